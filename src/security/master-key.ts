import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';

export const MASTER_KEY_FILE = 'master.key';

function readKeyFile(file: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError('MASTER_KEY', `cannot read ${file}: ${(error as Error).message}`);
  }
  const key = Buffer.from(text.trim(), 'hex');
  if (key.length !== 32 || !/^[0-9a-fA-F]{64}$/.test(text.trim())) {
    throw new ConfigError('MASTER_KEY', `${file} does not hold a 32-byte hex key`);
  }
  return key;
}

/**
 * The configured MASTER_KEY, or in simulator mode one generated into the data directory on first
 * start (file mode 0600) and reused afterwards, so API keys stored earlier stay readable.
 */
export function resolveMasterKey(config: Config): Buffer {
  if (config.masterKey !== undefined) return config.masterKey;
  if (config.mode === 'production')
    throw new ConfigError('MASTER_KEY', 'is required in production mode');
  const file = join(config.dataDir, MASTER_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing !== undefined) return existing;
  // Written whole to a temporary file, then linked into place: link() fails if another process
  // got there first (its key wins), and nobody ever reads a half-written key.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError('DATA_DIR', `cannot write ${file}: ${(error as Error).message}`);
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  const created = readKeyFile(file);
  if (created === undefined) throw new ConfigError('DATA_DIR', `cannot read back ${file}`);
  return created;
}
