import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import { foundation } from './001-foundation.js';

export interface MigrationStep {
  up(db: Kysely<unknown>): Promise<void>;
}

/** Every migration, in order. Names sort lexically; applied ones are never edited. */
export function migrationsFor(dialect: DialectName): Record<string, MigrationStep> {
  return {
    '001-foundation': foundation(dialect),
  };
}
