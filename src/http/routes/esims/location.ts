import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import { operatorByCode } from '../../../domain/network/operators.js';
import { findOwnedNetwork } from '../../../domain/esims/esim-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { IccidParams, checkIccid, esimNotFound } from './esim-view.js';

const schema = {
  tags: ['eSIMs'],
  operationId: 'getEsimLocation',
  summary: 'Get the last known location of an eSIM',
  description:
    'The network the eSIM last registered on. An eSIM never seen on a network is a 404 saying so.',
  security: apiKeySecurity,
  params: IccidParams,
  response: {
    200: Type.Object({
      mobileNetworkCode: Type.String({ description: 'MCC followed by MNC, e.g. 23415.' }),
      networkName: Type.String({ description: 'Operator brand, e.g. Vodafone UK.' }),
      networkBrandName: Type.String({
        description:
          'Brand of the network, as the live service names the field (later versions); the same brand as networkName.',
      }),
      country: Type.String({ description: 'ISO 3166-1 alpha-2 code of the network country.' }),
      lastSeen: Type.String({
        description:
          'When the network last saw the eSIM (attach, or data use; refreshed at most once a minute), RFC 3339 UTC.',
      }),
    }),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerGetEsimLocation(app: Api, deps: AppDeps): void {
  app.get('/esims/:iccid/location', { schema }, async (request) => {
    const iccid = checkIccid(request.params.iccid);
    const { db } = deps.store;
    // One statement: the eSIM's ownership and where it is attached.
    const found = await findOwnedNetwork(db, request.organisation.id, iccid);
    if (found === undefined) throw esimNotFound(iccid);
    const { network } = found;
    if (network === undefined) {
      throw notFound(`eSIM ${iccid} has not been seen on a network yet`);
    }
    return {
      mobileNetworkCode: network.mcc + network.mnc,
      networkName: network.networkName,
      networkBrandName: operatorByCode(network.mcc, network.mnc)?.name ?? network.networkName,
      country: network.country,
      lastSeen: network.lastSeen,
    };
  });
}
