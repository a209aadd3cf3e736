import type { LogFormat } from '../config.js';

// The log read by a person (LOG_FORMAT=pretty, or `auto` on a terminal): the one line of each
// request as `18:30:01 POST /v2.1/orders 200 12 ms` and other entries as "time LEVEL message",
// with the stack of an error. Anywhere else (a file, a pipe, a log collector) the log stays JSON,
// one object per line, as operations.md describes. The lines are few and fixed (app.ts writes the
// request line), so a formatter of a dozen lines is used rather than a pretty-printer package
// and its dependencies.

export interface LogStream {
  write(line: string): void;
}

interface Entry {
  level?: number;
  time?: string | number;
  msg?: string;
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

function clockTime(time: string | number | undefined): string {
  const date = new Date(time ?? Date.now());
  return (Number.isNaN(date.getTime()) ? new Date() : date).toISOString().slice(11, 19);
}

/** A pino destination that writes readable lines to `out`. */
export function readableLog(out: LogStream): LogStream {
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
      if (entry.req !== undefined && entry.res !== undefined && entry.responseTime !== undefined) {
        const ms = Math.round(entry.responseTime);
        const { method = '?', url = '?' } = entry.req;
        out.write(`${time} ${method} ${url} ${entry.res.statusCode ?? '?'} ${ms} ms\n`);
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

/**
 * The log destination of a server: readable lines with LOG_FORMAT=pretty, or with `auto` when
 * stdout is a terminal; otherwise undefined, pino's JSON on stdout.
 */
export function consoleLog(
  format: LogFormat,
  stdout: LogStream & { isTTY?: boolean },
): LogStream | undefined {
  const pretty = format === 'pretty' || (format === 'auto' && stdout.isTTY === true);
  return pretty ? readableLog(stdout) : undefined;
}
