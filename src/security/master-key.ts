import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';

/**
 * The configured MASTER_KEY, or in simulator mode one generated into the data directory on first
 * start (file mode 0600) and reused afterwards.
 */
export function resolveMasterKey(config: Config): Buffer {
  if (config.masterKey !== undefined) return config.masterKey;
  if (config.mode === 'production')
    throw new ConfigError('MASTER_KEY', 'is required in production mode');
  const file = join(config.dataDir, 'master.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length !== 32)
      throw new ConfigError('MASTER_KEY', `${file} does not hold a 32-byte hex key`);
    return key;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 });
  return key;
}
