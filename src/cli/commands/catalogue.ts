import { readFile } from 'node:fs/promises';
import type { Bundle } from '../../domain/catalogue/bundle.js';
import type { CatalogueFormat } from '../../domain/catalogue/import-file.js';
import { formatFromFileName, parseCatalogue } from '../../domain/catalogue/import-file.js';
import { importCatalogue } from '../../domain/catalogue/import.js';
import { parseCountryList } from '../../domain/catalogue/query.js';
import { catalogueItem } from '../../domain/catalogue/catalogue-view.js';
import { listAllBundles } from '../../domain/catalogue/catalogue-reads.js';
import type { Command } from '../command.js';
import { UsageError, onePositional, parse } from '../command.js';
import { withServices } from '../services.js';
import { operator } from './audit.js';

function countLine(summary: {
  added: string[];
  updated: string[];
  removed: string[];
  retired: string[];
}): string {
  const parts = [`${summary.added.length} added`, `${summary.updated.length} updated`];
  if (summary.removed.length > 0) parts.push(`${summary.removed.length} removed`);
  if (summary.retired.length > 0) {
    parts.push(
      `${summary.retired.length} retired (still referenced by inventory or eSIMs: hidden from the catalogue, not deleted)`,
    );
  }
  return parts.join(', ');
}

export const catalogueImport: Command = {
  usage:
    'esim catalogue import <file.json|file.csv> [--replace] [--dry-run] [--format json|csv] [--json]',
  summary:
    'Add or update catalogue bundles from a file (all or nothing); --replace also drops bundles missing from it',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      replace: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      format: { type: 'string' },
      json: { type: 'boolean' },
    });
    const path = onePositional(positionals, 'file');
    const requested = values.format?.toLowerCase();
    if (requested !== undefined && requested !== 'json' && requested !== 'csv') {
      throw new UsageError(`--format must be json or csv, got "${values.format ?? ''}"`);
    }
    const format: CatalogueFormat | undefined = requested ?? formatFromFileName(path);
    if (format === undefined) {
      throw new UsageError(
        `cannot tell the format of "${path}": name it .json or .csv, or pass --format`,
      );
    }
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      ctx.io.err(
        `esim: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 1;
    }
    const parsed = parseCatalogue(text, format);
    if (parsed.errors.length > 0) {
      ctx.io.err(`esim: ${path}: nothing imported, ${parsed.errors.length} problem(s):`);
      for (const error of parsed.errors) ctx.io.err(`  ${error}`);
      return 1;
    }
    return withServices(ctx.config(), async (deps) => {
      const summary = await importCatalogue(
        { ...deps, actor: operator(ctx) },
        {
          bundles: parsed.bundles,
          source: path,
          replace: values.replace === true,
          dryRun: values['dry-run'] === true,
        },
      );
      if (values.json === true) {
        ctx.io.out(JSON.stringify(summary));
      } else {
        const verb = summary.dryRun ? 'dry run, nothing written; would import' : 'imported';
        ctx.io.out(`${verb} ${parsed.bundles.length} bundles from ${path}: ${countLine(summary)}`);
      }
      return 0;
    });
  },
};

function matches(
  bundle: Bundle,
  group: string | undefined,
  countries: string[] | undefined,
): boolean {
  if (group !== undefined && !bundle.groups.includes(group)) return false;
  if (countries !== undefined && !bundle.countries.some((c) => countries.includes(c))) return false;
  return true;
}

export const catalogueList: Command = {
  usage: 'esim catalogue list [--group <name>] [--countries <FR,DE>] [--json]',
  summary:
    'List catalogue bundles (every group, including retired ones); --json prints the API shape, which import accepts',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      { group: { type: 'string' }, countries: { type: 'string' }, json: { type: 'boolean' } },
      false,
    );
    const countries =
      values.countries === undefined ? undefined : parseCountryList(values.countries);
    return withServices(ctx.config(), async (deps) => {
      const bundles = (await listAllBundles(deps.store.db)).filter((b) =>
        matches(b, values.group, countries),
      );
      if (values.json === true) {
        ctx.io.out(JSON.stringify(bundles.map(catalogueItem), null, 1));
      } else {
        for (const b of bundles) {
          const data = b.unlimited ? 'unlimited' : `${b.dataAmount} MB`;
          const groups = b.groups.length === 0 ? 'retired' : b.groups.join(', ');
          ctx.io.out(
            `${b.name}  ${data}  ${b.duration} d  ${b.price}  [${groups}]  ${b.countries.join(',')}`,
          );
        }
      }
      return 0;
    });
  },
};
