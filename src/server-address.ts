import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A simulator records the address it listens on in its data folder, so `esim sim …` and the
// other commands that talk to a running server find it without being told (a server on
// PORT=41873 is found as well as one on 8080). The record names the process: a record left by a
// process that has ended is ignored.

export const ADDRESS_FILE = 'server.json';

interface AddressRecord {
  readonly url: string;
  readonly pid: number;
}

/** Writes the record; the returned function removes it if it is still this process's. */
export function recordServerAddress(dataDir: string, url: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, ADDRESS_FILE);
  const record: AddressRecord = { url, pid: process.pid };
  // A temporary file of this process's own: instances started at once from one data folder
  // (several servers on one PostgreSQL database) each write theirs and rename it into place,
  // the last one standing, where one shared name let a rename find the file already taken.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(record) + '\n');
  renameSync(temporary, file);
  return () => {
    if (readRecord(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}

function readRecord(file: string): AddressRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<AddressRecord>;
    if (typeof parsed.url !== 'string' || typeof parsed.pid !== 'number') return undefined;
    return { url: parsed.url, pid: parsed.pid };
  } catch {
    return undefined;
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The address a running server of this data folder recorded, if that server still runs. */
export function recordedServerAddress(dataDir: string): string | undefined {
  const record = readRecord(join(dataDir, ADDRESS_FILE));
  return record !== undefined && running(record.pid) ? record.url : undefined;
}

/**
 * Where a command finds the server: `--url`, else ESIM_URL, else the address the server of
 * DATA_DIR recorded, else HOST and PORT as the server would read them (default 127.0.0.1:8080).
 */
export function serverUrl(
  env: Readonly<Record<string, string | undefined>>,
  explicit: string | undefined,
): string {
  const given = explicit ?? nonEmpty(env['ESIM_URL']);
  if (given !== undefined) return given.replace(/\/+$/, '');
  const recorded = recordedServerAddress(nonEmpty(env['DATA_DIR']) ?? './data');
  if (recorded !== undefined) return recorded;
  return listenerUrl(nonEmpty(env['HOST']) ?? '127.0.0.1', nonEmpty(env['PORT']) ?? '8080');
}

/**
 * Where a server listening on HOST and PORT is reached from this machine: every address
 * (0.0.0.0, ::) as the loopback of its family, an IPv6 address in brackets. Never `localhost`,
 * which may resolve to ::1 while the server listens on 127.0.0.1 only.
 */
export function listenerUrl(host: string, port: string | number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  const bracketed =
    reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable;
  return `http://${bracketed}:${port}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
