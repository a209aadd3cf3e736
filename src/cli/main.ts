import { pathToFileURL } from 'node:url';
import { ConfigError, DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS, loadConfig } from '../config.js';
import type { Config } from '../config.js';
import { DomainError } from '../domain/errors/error-codes.js';
import { statementCancelled } from '../store/conflicts.js';
import { BUSY_RETRY_MS, isBusyError } from '../store/sqlite-busy.js';
import type { CliIo, Command } from './command.js';
import { UsageError } from './command.js';
import { backupCommand, restoreCommand } from './commands/backup.js';
import { callbacksList, callbacksResend, callbacksShow } from './commands/callbacks.js';
import { catalogueImport, catalogueList } from './commands/catalogue.js';
import {
  esimsDelete,
  esimsRefresh,
  esimsSetRef,
  esimsSuspend,
  esimsUnsuspend,
} from './commands/esims.js';
import { orgGroups } from './commands/groups.js';
import { inventoryList, inventoryRefund } from './commands/inventory.js';
import { orgCard } from './commands/card.js';
import { ledgerShow, ledgerVerify } from './commands/ledger.js';
import { migrateCommand } from './commands/migrate.js';
import { networksList } from './commands/networks.js';
import { mailList } from './commands/mail.js';
import { orgCreate, orgList, orgRotateKey, orgShow, orgUpdate, userAdd } from './commands/org.js';
import { auditList } from './commands/audit.js';
import { serve } from './commands/serve.js';
import { userList, userRemove, userRole } from './commands/user.js';
import { simCommands } from './commands/sim.js';

/** Every command, by its words. Areas add theirs here. */
export const COMMANDS: Record<string, Command> = {
  serve,
  migrate: migrateCommand,
  backup: backupCommand,
  restore: restoreCommand,
  'org create': orgCreate,
  'org list': orgList,
  'org update': orgUpdate,
  'org show': orgShow,
  'org rotate-key': orgRotateKey,
  'user add': userAdd,
  'user list': userList,
  'user role': userRole,
  'user remove': userRemove,
  'catalogue import': catalogueImport,
  'catalogue list': catalogueList,
  'org card': orgCard,
  'ledger verify': ledgerVerify,
  'ledger show': ledgerShow,
  'callbacks list': callbacksList,
  'callbacks show': callbacksShow,
  'callbacks resend': callbacksResend,
  'org groups': orgGroups,
  'inventory list': inventoryList,
  'inventory refund': inventoryRefund,
  'esims set-ref': esimsSetRef,
  'esims refresh': esimsRefresh,
  'esims suspend': esimsSuspend,
  'esims unsuspend': esimsUnsuspend,
  'esims delete': esimsDelete,
  networks: networksList,
  'audit list': auditList,
  'mail list': mailList,
  ...simCommands,
};

// `esim org list | head` closes stdout early, `esim sim 2>&1 | head -1` stderr: that is the
// reader's choice, not an error. What is left to print goes nowhere, and the command still ends
// with its own exit code (2 for bad arguments), which an unhandled EPIPE turned into 1.
const closed = new Set<NodeJS.WriteStream>();
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed.add(stream);
  });
}

function writeLine(stream: NodeJS.WriteStream, line: string): void {
  if (!closed.has(stream)) stream.write(line + '\n');
}

const stdio: CliIo = {
  out: (line) => writeLine(process.stdout, line),
  err: (line) => writeLine(process.stderr, line),
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

function help(print: (line: string) => void): void {
  print('Usage: esim <command> [options]\n');
  for (const command of Object.values(COMMANDS))
    print(`  ${command.usage}\n      ${command.summary}`);
  print('\nConfiguration comes from the environment: see docs/configuration.md.');
  print('Exit codes: 0 done, 1 failed, 2 bad arguments, 78 bad configuration.');
}

function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const key = argv.slice(0, words).join(' ');
    const command = COMMANDS[key];
    if (command !== undefined && argv.length >= words) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  io: CliIo = stdio,
): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    help(io.out);
    return 0;
  }
  if (argv.length === 0) {
    io.err('esim: a command is required');
    help(io.err);
    return 2;
  }
  const found = findCommand(argv);
  const group = Object.entries(COMMANDS).filter(([words]) => words.split(' ')[0] === argv[0]);
  if (found === undefined && group.length > 0) {
    // A command group such as `esim org`: its own commands, as help or as a usage mistake.
    const wantsHelp = argv.includes('--help') || argv.includes('-h');
    const print = wantsHelp ? io.out : io.err;
    if (!wantsHelp) {
      const given =
        argv[1] === undefined ? 'a subcommand is required' : `unknown subcommand "${argv[1]}"`;
      print(`esim ${argv[0]}: ${given}`);
    }
    print(`Usage: esim ${argv[0]} <command> [options]\n`);
    for (const [, command] of group) print(`  ${command.usage}\n      ${command.summary}`);
    return wantsHelp ? 0 : 2;
  }
  if (found === undefined) {
    io.err(`esim: unknown command "${argv.slice(0, 2).join(' ')}"`);
    help(io.err);
    return 2;
  }
  if (found.rest.includes('--help')) {
    io.out(`Usage: ${found.command.usage}\n${found.command.summary}`);
    return 0;
  }
  let config: Config | undefined;
  try {
    return await found.command.run({
      args: found.rest,
      env,
      io,
      config: () => (config ??= loadConfig(env)),
    });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`esim: ${error.message}\nUsage: ${found.command.usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(`esim: configuration error: ${error.message}`);
      return 78;
    }
    if (error instanceof DomainError) {
      io.err(`esim: ${error.message}`);
      return 1;
    }
    if (isBusyError(error)) {
      io.err(
        `esim: the database is busy: another process held it for longer than SQLITE_BUSY_WAIT_MS (${config?.sqliteBusyWaitMs ?? BUSY_RETRY_MS} ms); try again`,
      );
      return 1;
    }
    if (statementCancelled(error)) {
      io.err(
        `esim: ${(error as Error).message}: PostgreSQL ended a statement that ran past DATABASE_STATEMENT_TIMEOUT_MS (${config?.databaseStatementTimeoutMs ?? DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS} ms, a lock wait included); for a long command, run it with DATABASE_STATEMENT_TIMEOUT_MS=0`,
      );
      return 1;
    }
    io.err(`esim: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

// Run directly (`tsx src/cli/main.ts`). No top-level await: the bundle is CommonJS.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    // Once the command is done, a leftover handle (a socket, a timer) must not keep it alive.
    setTimeout(() => process.exit(), 2000).unref();
  });
}
