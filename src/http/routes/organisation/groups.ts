import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { countBundlesByGroup } from '../../../domain/catalogue/catalogue-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';

const Group = Type.Object({
  name: Type.String({
    description: 'Group name, as used by the group filter of GET /catalogue (exact).',
  }),
  desc: Type.String({ description: 'What the group holds, e.g. "412 bundles".' }),
  bundleCount: Type.Integer({ description: 'Catalogue bundles in the group now.' }),
});

const schema = {
  tags: ['Organisation'],
  operationId: 'listOrganisationGroups',
  summary: 'List the bundle groups of the organisation',
  description:
    'The bundle groups the organisation may order from, in the order the organisation lists them ' +
    '(GET /organisation groups). The shape is the live service\u2019s later one, ' +
    '{"groups":[{"name","desc"}]}; bundleCount is an addition.',
  security: apiKeySecurity,
  response: {
    200: Type.Object(
      { groups: Type.Array(Group) },
      {
        description: 'The groups of the caller organisation.',
      },
    ),
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerListOrganisationGroups(app: Api, deps: AppDeps): void {
  app.get('/organisation/groups', { schema }, async (request) => {
    const { groups } = request.organisation;
    const counts = await countBundlesByGroup(deps.store.db, groups);
    return {
      groups: groups.map((name) => {
        const n = counts.get(name) ?? 0;
        return { name, desc: `${n} bundle${n === 1 ? '' : 's'}`, bundleCount: n };
      }),
    };
  });
}
