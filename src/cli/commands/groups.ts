import { countBundlesByGroup } from '../../domain/catalogue/catalogue-reads.js';
import { findOrganisationById } from '../../domain/organisations/organisation-reads.js';
import type { Command } from '../command.js';
import { onePositional, parse } from '../command.js';
import { withServices } from '../services.js';

export const orgGroups: Command = {
  usage: 'esim org groups <org id> [--json]',
  summary:
    'Print the bundle groups an organisation may order from, with the bundles in each (as GET /organisation/groups)',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { json: { type: 'boolean' } });
    const orgId = onePositional(positionals, 'organisation id');
    return withServices(ctx.config(), async (deps) => {
      const org = await findOrganisationById(deps.store.db, orgId);
      if (org === undefined) {
        ctx.io.err(`esim: organisation ${orgId} not found`);
        return 1;
      }
      const { groups } = org;
      const counts = await countBundlesByGroup(deps.store.db, groups);
      const rows = groups.map((name) => ({ name, bundleCount: counts.get(name) ?? 0 }));
      if (values.json === true) {
        ctx.io.out(JSON.stringify({ groups: rows }));
      } else {
        for (const r of rows) ctx.io.out(`${r.name}  (${r.bundleCount} bundles)`);
      }
      return 0;
    });
  },
};
