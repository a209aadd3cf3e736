import { Type } from '@sinclair/typebox';
import type { Static, TObject } from '@sinclair/typebox';
import type { Esim } from '../../../domain/esims/esim.js';
import { esimBody, esimLiveFields } from '../../routes/esims/esim-view.js';
import { EsimAnswer } from '../../routes/esims/get.js';
import { EsimListAnswer, EsimListItem } from '../../routes/esims/list.js';
import { presenter } from '../presenter.js';
import type { EsimPage, EsimRead } from '../results.js';
import { reshaped, without } from '../shapes/schema-tools.js';

// GET /esims/{iccid} and GET /esims. v2.1: firstInstalledDateTime RFC 3339 (or ""), the list
// items with v2.1's `msisdn`. v2.2 and v2.3: the list items without it (v2.5's field). v2.4:
// firstInstalledDateTime in milliseconds since the epoch (0 when never) in the list as in the
// detail. v2.5: `state`, `msisdn` on both, and on the detail `brandingId`, `profileName` and the
// Android install link.

const INSTALLED_MS = Type.Integer({
  description: 'When the profile was first installed, milliseconds since the epoch; 0 when never.',
});

const STATE = Type.Unsafe<'active' | 'suspended' | 'deactivated'>({
  type: 'string',
  enum: ['active', 'suspended', 'deactivated'],
  description:
    'active; suspended (POST /esims/{iccid}/suspend: no data, no SMS until unsuspended); or deactivated (deleted with DELETE /esims/{iccid}: gone for good).',
});

const MSISDN = Type.String({
  description:
    'The eSIM phone number (E.164 digits, no +), given by the network for SMS; empty when it has none.',
});

/** Every eSIM of this service is issued with one network profile, which takes every bundle. */
export const PROFILE_NAME = 'default';

const installedMs = (esim: Esim): number =>
  esim.firstInstalledAt === null ? 0 : Date.parse(esim.firstInstalledAt);

// --- GET /esims/{iccid}

function detailV21({ esim, appleInstallUrl }: EsimRead): Static<typeof EsimAnswer> {
  return {
    ...esimBody(esim),
    ...esimLiveFields(esim, esim),
    ...(appleInstallUrl === undefined ? {} : { appleInstallUrl }),
  };
}

export const ESIM_V21 = presenter(EsimAnswer, detailV21);

const EsimV24 = reshaped(EsimAnswer, { firstInstalledDateTime: INSTALLED_MS });

const detailV24 = (read: EsimRead): Static<typeof EsimV24> => ({
  ...detailV21(read),
  firstInstalledDateTime: installedMs(read.esim),
});

export const ESIM_V24 = presenter(EsimV24, detailV24);

const EsimV25 = reshaped(EsimV24, {
  state: STATE,
  brandingId: Type.String({
    description: 'The branding profile of the eSIM: "(default)", the default branding.',
  }),
  msisdn: MSISDN,
  profileName: Type.String({
    description: `The network profile the eSIM was issued with: "${PROFILE_NAME}", the one profile of this service, which takes every bundle.`,
  }),
  androidInstallUrl: Type.Optional(
    Type.String({
      description:
        'With additionalFields=androidInstallUrl or installUrl: https://esimsetup.android.com/esim_qrcode_provisioning?carddata= followed by the URL-encoded activation code LPA:1$<smdpAddress>$<matchingId>.',
    }),
  ),
});

export const ESIM_V25 = presenter(EsimV25, (read: EsimRead) => ({
  ...detailV24(read),
  state: read.esim.state,
  brandingId: '(default)',
  msisdn: read.esim.msisdn ?? '',
  profileName: PROFILE_NAME,
  ...(read.androidInstallUrl === undefined ? {} : { androidInstallUrl: read.androidInstallUrl }),
}));

// --- GET /esims

type ItemV21 = Static<typeof EsimListItem>;

function itemV21({ esim, activity }: EsimPage['esims'][number]): ItemV21 {
  return {
    ...esimBody(esim),
    ...esimLiveFields(esim, activity),
    msisdn: esim.msisdn ?? '',
    createDate: esim.createdAt,
  };
}

/** The page around a version's items, with the counters v2.1 answers. */
function pageOf<I extends TObject>(item: I) {
  const { headers } = EsimListAnswer as { headers?: unknown };
  return reshaped(EsimListAnswer, { esims: Type.Array(item) }, { headers });
}

function page<I>(read: EsimPage, item: (listed: EsimPage['esims'][number]) => I) {
  return {
    esims: read.esims.map(item),
    pageCount: Math.max(1, Math.ceil(read.total / read.perPage)),
    rows: read.total,
    pageSize: read.perPage,
  };
}

export const ESIMS_V21 = presenter(EsimListAnswer, (read: EsimPage) => page(read, itemV21));

const ItemV22 = without(EsimListItem, ['msisdn']);

// v2.5's msisdn left out.
const itemV22 = ({ esim, activity }: EsimPage['esims'][number]): Static<typeof ItemV22> => ({
  ...esimBody(esim),
  ...esimLiveFields(esim, activity),
  createDate: esim.createdAt,
});

export const ESIMS_V22 = presenter(pageOf(ItemV22), (read: EsimPage) => page(read, itemV22));

const ItemV24 = reshaped(ItemV22, { firstInstalledDateTime: INSTALLED_MS });

const itemV24 = (listed: EsimPage['esims'][number]): Static<typeof ItemV24> => ({
  ...itemV22(listed),
  firstInstalledDateTime: installedMs(listed.esim),
});

export const ESIMS_V24 = presenter(pageOf(ItemV24), (read: EsimPage) => page(read, itemV24));

const ItemV25 = reshaped(EsimListItem, { firstInstalledDateTime: INSTALLED_MS, state: STATE });

export const ESIMS_V25 = presenter(pageOf(ItemV25), (read: EsimPage) =>
  page(read, (listed) => ({
    ...itemV21(listed),
    firstInstalledDateTime: installedMs(listed.esim),
    state: listed.esim.state,
  })),
);
