import { startServer } from '../../main.js';
import type { Command } from '../command.js';
import { parse } from '../command.js';

const message = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

export const serve: Command = {
  usage: 'esim serve',
  summary: 'Start the HTTP service (and its workers) with the configuration from the environment',
  async run(ctx) {
    parse(ctx.args, {}, false);
    const config = ctx.config();
    const server = await startServer(config, ctx.io.out);
    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals): void => {
        if (stopping) {
          // A second signal means "now": skip the rest of the drain.
          ctx.io.err(`${signal} received again, exiting without waiting`);
          process.exit(1);
        }
        stopping = true;
        ctx.io.out(`${signal} received, shutting down`);
        // A drain that hangs (a stuck client, an unreachable database) must not keep the
        // process alive past what the orchestrator allows.
        setTimeout(() => {
          ctx.io.err(`shutdown took longer than SHUTDOWN_TIMEOUT_MS=${config.shutdownTimeoutMs}`);
          process.exit(1);
        }, config.shutdownTimeoutMs).unref();
        server.close().then(
          () => {
            ctx.io.out('stopped');
            resolve(0);
          },
          (error: unknown) => {
            ctx.io.err(`shutdown failed: ${message(error)}`);
            resolve(1);
          },
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
};
