import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import type { EsimDetail } from '../../../domain/esims/esim.js';
import { readEsim } from '../../../domain/esims/esim-details.js';
import type { Api } from '../../api.js';
import { presentIn, switchOn } from '../../versions/wire.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { createEsimDetailCache } from './detail-cache.js';
import type { EsimDetailCache } from './detail-cache.js';
import type { EsimDetailBody } from './esim-view.js';
import {
  EsimLiveFields,
  EsimSchema,
  IccidParams,
  activationCode,
  checkIccid,
  esimDetailBody,
} from './esim-view.js';

const APPLE_SETUP = 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=';

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
    200: Type.Composite([
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
    ]),
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
    const links = installLinksOf(
      request.query.additionalFields,
      switchOn(request, 'androidInstallUrl'),
    );
    if (cache !== undefined && !links.apple && !links.android) {
      let json = bodies.get(esim);
      if (json === undefined) {
        // What Fastify itself would use for this body: the route's 200 serializer.
        const serialize = reply.getSerializationFunction('200') ?? JSON.stringify;
        // In the shape of the version serving the request (v2.1's body as it is).
        json = serialize(presentIn(request, esimDetailBody(esim)));
        bodies.set(esim, json);
      }
      // A string with a JSON content type is sent as it is (Fastify serialises only objects).
      return reply.type(JSON_CONTENT_TYPE).send(json);
    }
    const body: EsimDetailBody = esimDetailBody(esim);
    const code = encodeURIComponent(activationCode(esim));
    if (links.apple) body.appleInstallUrl = APPLE_SETUP + code;
    if (links.android) body.androidInstallUrl = ANDROID_SETUP + code;
    return body;
  });
}
