// A CPU profile of this process around a part of a benchmark, when BENCH_PROFILE_DIR names a
// folder: <folder>/<name>.cpuprofile (read it with bench/profile-top.ts or Chrome's DevTools).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A CPU profile of this process from now until stop(name), written to BENCH_PROFILE_DIR. */
export async function startProfile(): Promise<{ stop(name: string): Promise<void> } | undefined> {
  const dir = process.env['BENCH_PROFILE_DIR'];
  if (dir === undefined || dir === '') return undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}
