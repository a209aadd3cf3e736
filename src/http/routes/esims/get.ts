import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import type { EsimDetail } from '../../../domain/esims/esim.js';
import { readEsim } from '../../../domain/esims/esim-details.js';
import type { Api } from '../../api.js';
import { can } from '../../versions/capabilities.js';
import { present, presented } from '../../versions/presenter.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { createEsimDetailCache } from './detail-cache.js';
import type { EsimDetailCache } from './detail-cache.js';
import {
  EsimLiveFields,
  EsimSchema,
  IccidParams,
  activationCode,
  checkIccid,
} from './esim-view.js';

const APPLE_SETUP = 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=';

/** v2.1's answer: the profile and its live fields (versions/presenters/esims.ts). */
export const EsimAnswer = Type.Composite([
  EsimSchema,
  EsimLiveFields,
  Type.Object({
    appleInstallUrl: Type.Optional(
      Type.String({
        description:
          'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata= followed by the URL-encoded activation code LPA:1$<smdpAddress>$<matchingId>.',
      }),
    ),
  }),
]);

const schema = {
  tags: ['eSIMs'],
  operationId: 'getEsim',
  summary: 'Get an eSIM',
  description:
    'Profile details of one eSIM of the organisation. With additionalFields=appleInstallUrl the ' +
    'response also carries appleInstallUrl, a link that installs the profile on an iPhone (iOS 17.4+).',
  security: apiKeySecurity,
  params: IccidParams,
  querystring: Type.Object({
    additionalFields: Type.Optional(
      Type.String({
        description:
          'Comma-separated extra fields to include: appleInstallUrl. Other names are ignored.',
      }),
    ),
  }),
  response: {
    200: presented(EsimAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

const ANDROID_SETUP = 'https://esimsetup.android.com/esim_qrcode_provisioning?carddata=';

/** The install links additionalFields asks for. */
interface InstallLinks {
  readonly apple: boolean;
  readonly android: boolean;
}

const NO_LINKS: InstallLinks = { apple: false, android: false };

/**
 * The links additionalFields asks for. v2.1 knows only appleInstallUrl; with `androidLinks`
 * (v2.5) also androidInstallUrl, and installUrl for both. Other names are ignored, as the live
 * service ignores them (client code asks for fields such as qrCode and carries on without).
 */
function installLinksOf(additionalFields: string | undefined, androidLinks: boolean): InstallLinks {
  if (additionalFields === undefined || additionalFields === '') return NO_LINKS;
  const fields = new Set(additionalFields.split(',').map((f) => f.trim()));
  const both = androidLinks && fields.has('installUrl');
  return {
    apple: both || fields.has('appleInstallUrl'),
    android: both || (androidLinks && fields.has('androidInstallUrl')),
  };
}

/** The eSIMs held in memory where that can be correct (detail-cache.ts): SQLite, ESIM_CACHE_MS > 0. */
function detailCache(deps: AppDeps): EsimDetailCache | undefined {
  const { writes, config, store, wallClock } = deps;
  if (writes === undefined || store.dialect !== 'sqlite' || config.esimCacheMs <= 0)
    return undefined;
  return createEsimDetailCache({ writes, clock: wallClock, ttlMs: config.esimCacheMs });
}

/** The content type Fastify gives a JSON body it serialises itself. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function registerGetEsim(app: Api, deps: AppDeps): void {
  const { db } = deps.store;
  const cache = detailCache(deps);
  // The serialised body of each eSIM the cache holds, made once by the route's own serializer:
  // a poll that finds the eSIM unchanged sends the same bytes without building or serialising it
  // again. Keyed by the eSIM object, so it lives exactly as long as the cache holds the eSIM.
  const bodies = new WeakMap<EsimDetail, string>();
  app.get('/esims/:iccid', { schema }, async (request, reply) => {
    const iccid = checkIccid(request.params.iccid);
    const organisationId = request.organisation.id;
    // The eSIM as the portal reads it too (readEsim: one statement for the eSIM and its
    // activity, 404 when unknown); the body is built from it directly. An eSIM held in memory
    // is used without waiting for anything.
    const esim =
      cache === undefined
        ? await readEsim(db, organisationId, iccid)
        : (cache.get(organisationId, iccid) ??
          (await cache.load(organisationId, iccid, () => readEsim(db, organisationId, iccid))));
    const links = installLinksOf(request.query.additionalFields, can(request, 'androidInstallUrl'));
    if (cache !== undefined && !links.apple && !links.android) {
      let json = bodies.get(esim);
      if (json === undefined) {
        // What Fastify itself would use for this body: the route's 200 serializer.
        const serialize = reply.getSerializationFunction('200') ?? JSON.stringify;
        json = serialize(present(request, 'getEsim', { esim }));
        bodies.set(esim, json);
      }
      // A string with a JSON content type is sent as it is (Fastify serialises only objects).
      return reply.type(JSON_CONTENT_TYPE).send(json);
    }
    // A deleted eSIM has no install links (nor any install secret: its presenter).
    if (esim.state === 'deactivated') return present(request, 'getEsim', { esim });
    const code = encodeURIComponent(activationCode(esim));
    return present(request, 'getEsim', {
      esim,
      ...(links.apple ? { appleInstallUrl: APPLE_SETUP + code } : {}),
      ...(links.android ? { androidInstallUrl: ANDROID_SETUP + code } : {}),
    });
  });
}
