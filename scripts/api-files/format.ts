import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

// Generated files are written as Prettier would format them, so `npm run format` leaves them be.

export async function formatted(source: string, parser: 'typescript' | 'json'): Promise<string> {
  const config = await resolveConfig(fileURLToPath(new URL('../../package.json', import.meta.url)));
  return format(source, { ...config, parser });
}
