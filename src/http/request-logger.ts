import type { FastifyBaseLogger } from 'fastify';

// Fastify gives every request a child of the app's logger bound to its request id. Building a
// pino child (its bindings serialised, its prototype chain set up) costs more than most requests
// ever use it: below the configured level every call is a no-op. So each request gets a stand-in
// that makes the child on its first call at an enabled level and forwards to it from then on;
// what is logged, with which bindings and at which levels, is exactly what the child logs.

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** pino's standard level values. */
const LEVEL_VALUES: Readonly<Record<string, number>> = {
  silent: Infinity,
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};

class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings);
    return this.made;
  }

  private log(method: Method, args: unknown[]): void {
    const made = this.made;
    if (made !== undefined) {
      Reflect.apply(made[method], made, args);
      return;
    }
    // Not made yet: its level would be the parent's. A level name not known here makes the
    // child, which then decides itself.
    const threshold = LEVEL_VALUES[this.parent.level] ?? 0;
    if ((LEVEL_VALUES[method] ?? 0) < threshold) return;
    const logger = this.logger();
    Reflect.apply(logger[method], logger, args);
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.log('error', args);
  }

  warn(...args: unknown[]): void {
    this.log('warn', args);
  }

  info(...args: unknown[]): void {
    this.log('info', args);
  }

  debug(...args: unknown[]): void {
    this.log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.log('trace', args);
  }

  silent(): void {
    return undefined;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory. Options (a route's own logLevel or serializers) make the child at
 * once, as Fastify would.
 */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return Object.keys(options).length > 0
    ? logger.child(bindings, options)
    : new RequestLogger(logger, bindings);
}
