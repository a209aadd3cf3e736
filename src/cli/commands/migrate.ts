import { migrate, openStore } from '../../store/database.js';
import { recordServiceMode, refuseProductionDatabase } from '../../store/service-mode.js';
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
      // As a start does (store/service-mode.ts): the simulator never migrates a production
      // database, and production records that it runs on this one.
      await refuseProductionDatabase(store.db, config.mode);
      const applied = await migrate(store);
      await recordServiceMode(store.db, config.mode);
      ctx.io.out(
        applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`,
      );
      return 0;
    } finally {
      await store.close();
    }
  },
};
