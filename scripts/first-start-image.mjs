// `npm run build`, step 3b: the database a first start begins with, dist/first-start.sqlite. An
// empty SQLite database with every migration applied and the built-in catalogue loaded (its rows
// and their stored JSON), made by the same code a start runs (tsc's output in dist/), so a first
// start copies one file instead of running the migrations and computing the catalogue
// (src/store/first-start-image.ts). VACUUM INTO writes it compact, without a WAL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const load = (path) => import(pathToFileURL(join(dist, path)).href);

export async function writeFirstStartImage(out) {
  const { migrate, openStore } = await load('store/database.js');
  const { encodeMissingBundleJson, seedBuiltInCatalogue } = await load('domain/catalogue/seed.js');
  const scratch = mkdtempSync(join(tmpdir(), 'esim-first-start-'));
  const path = join(scratch, 'esim.sqlite');
  try {
    const store = openStore({ kind: 'sqlite', path });
    try {
      await migrate(store);
      await seedBuiltInCatalogue(store.db, new Date().toISOString());
      await encodeMissingBundleJson(store.db);
    } finally {
      await store.close();
    }
    rmSync(out, { force: true });
    const db = new SQLite(path);
    try {
      db.prepare('VACUUM INTO ?').run(out);
    } finally {
      db.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await writeFirstStartImage(process.argv[2] ?? join(dist, 'first-start.sqlite'));
}
