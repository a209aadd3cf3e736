import { migrate, openStore } from '../../store/database.js';
import type { Command } from '../command.js';
import { parse } from '../command.js';

export const migrateCommand: Command = {
  usage: 'esim migrate',
  summary: 'Apply pending database migrations and exit',
  async run(ctx) {
    parse(ctx.args, {}, false);
    const config = ctx.config();
    const store = openStore(config.database, {
      busyWaitMs: config.sqliteBusyWaitMs,
      synchronous: config.sqliteSynchronous,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
    });
    try {
      const applied = await migrate(store);
      ctx.io.out(
        applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
