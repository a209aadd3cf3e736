// On a terminal, a simulator's log is read by a person: one line per request (time, method,
// redacted URL, status, duration) instead of pino's two JSON lines, and other entries as
// "time LEVEL message". Anywhere else (a file, a pipe, a log collector, production) the log stays
// JSON, one object per line, as operations.md describes.

export interface LogStream {
  write(line: string): void;
}

interface Entry {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
}

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Requests seen but not yet answered, bounded so a stream of aborted requests cannot grow it. */
const MAX_OPEN = 1000;

function clockTime(ms: number | undefined): string {
  return new Date(ms ?? Date.now()).toISOString().slice(11, 19);
}

/** A pino destination that writes readable lines to `out`. */
export function readableLog(out: LogStream): LogStream {
  const open = new Map<string, { method: string; url: string }>();
  return {
    write(line: string) {
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        out.write(line);
        return;
      }
      const time = clockTime(entry.time);
      if (entry.msg === 'incoming request' && entry.reqId !== undefined) {
        if (open.size >= MAX_OPEN) open.delete(open.keys().next().value ?? '');
        open.set(entry.reqId, { method: entry.req?.method ?? '?', url: entry.req?.url ?? '?' });
        return;
      }
      if (entry.msg === 'request completed' && entry.reqId !== undefined) {
        const request = open.get(entry.reqId) ?? { method: '?', url: '?' };
        open.delete(entry.reqId);
        const ms = Math.round(entry.responseTime ?? 0);
        out.write(
          `${time} ${request.method} ${request.url} ${entry.res?.statusCode ?? '?'} ${ms} ms\n`,
        );
        return;
      }
      const level = LEVELS[entry.level ?? 30] ?? 'INFO';
      const detail = entry.err?.stack ?? entry.err?.message;
      out.write(
        `${time} ${level} ${entry.msg ?? ''}${detail === undefined ? '' : `\n${detail}`}\n`,
      );
    },
  };
}

/** The log destination of a server: readable on a terminal in simulator mode, else JSON. */
export function consoleLog(
  mode: 'simulator' | 'production',
  stdout: LogStream & { isTTY?: boolean },
): LogStream | undefined {
  return mode === 'simulator' && stdout.isTTY === true ? readableLog(stdout) : undefined;
}
