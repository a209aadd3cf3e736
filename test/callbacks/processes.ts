import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Received } from '../receiver.js';

// Real processes for the end-to-end callback suites: the service (bin/esim.js serve) and the
// test receiver (test/receiver.ts), each reporting its URL on stdout.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_HANG_MS = 180_000;

export interface Proc {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

function startProcess(
  args: string[],
  env: Record<string, string>,
  urlPattern: RegExp,
  what: string,
): Promise<Proc> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return new Promise((resolve, reject) => {
    // A start waits for the process to report its URL or to exit; this bound only stops a hung
    // process from holding the suite forever (a loaded machine may take tens of seconds to start
    // a process that compiles its TypeScript on the fly).
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start within ${START_HANG_MS / 1000} s:\n${output}`));
    }, START_HANG_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = urlPattern.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          output: () => output,
          exited,
          async kill(signal = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            await exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${String(code)} before starting:\n${output}`));
    });
  });
}

/** `esim serve` as a child process; env adds to a quiet simulator default on PORT=0. */
export function startServerProcess(env: Record<string, string>): Promise<Proc> {
  return startProcess(
    ['bin/esim.js', 'serve'],
    { PORT: '0', LOG_LEVEL: 'warn', DEMO_ON_FIRST_START: 'false', ...env },
    /listening on (http:\/\/\S+)/,
    'esim serve',
  );
}

export interface ReceiverProc extends Proc {
  received(): Promise<Received[]>;
  behave(path: string, behaviour: object): Promise<void>;
}

export async function startReceiverProcess(args: string[] = []): Promise<ReceiverProc> {
  const proc = await startProcess(
    ['--import', 'tsx', 'test/receiver.ts', ...args],
    {},
    /listening (https?:\/\/\S+)/,
    'receiver',
  );
  return {
    ...proc,
    async received() {
      const res = await fetch(`${proc.url}/_receiver/received`);
      return (await res.json()) as Received[];
    },
    async behave(path, behaviour) {
      await fetch(`${proc.url}/_receiver/behaviour?path=${encodeURIComponent(path)}`, {
        method: 'POST',
        body: JSON.stringify(behaviour),
      });
    },
  };
}
