import { startServer } from '../../main.js';
import type { Command } from '../command.js';
import { parse } from '../command.js';

export const serve: Command = {
  usage: 'esim serve',
  summary: 'Start the HTTP service (and its workers) with the configuration from the environment',
  async run(ctx) {
    parse(ctx.args, {}, false);
    const server = await startServer(ctx.config(), ctx.io.out);
    await new Promise<void>((resolve) => {
      const stop = (signal: string): void => {
        ctx.io.out(`${signal} received, shutting down`);
        void server.close().then(resolve, resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    return 0;
  },
};
