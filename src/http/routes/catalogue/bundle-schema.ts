import { Type } from '@sinclair/typebox';
import { CountryRef } from '../../schemas/common.js';

// The catalogue item (spec "Bundle"), shared by the list and the detail route.

export const BundleSchema = Type.Object({
  name: Type.String({
    description:
      'Bundle name, case-sensitive; used to place orders. Convention esim_<size>GB_<days>D_<ISO2 or region>_V2.',
  }),
  description: Type.String({
    description: 'Human-readable summary, e.g. "eSIM, 1GB, 7 Days, France, V2".',
  }),
  groups: Type.Array(Type.String(), { description: 'Bundle groups the bundle belongs to.' }),
  countries: Type.Array(CountryRef, { description: 'Base countries.' }),
  dataAmount: Type.Integer({
    description: 'Data included, in decimal megabytes (1 GB = 1000 MB); -1 when unlimited.',
  }),
  duration: Type.Integer({ description: 'Validity after activation, in days.' }),
  speed: Type.Array(Type.String({ enum: ['2G', '3G', '4G', '5G'] }), {
    description: 'Network generations available: 2G, 3G, 4G, 5G.',
  }),
  autostart: Type.Boolean({
    description: 'Whether the bundle starts by itself on first use in a covered country.',
  }),
  unlimited: Type.Boolean({ description: 'Whether data is unlimited (then dataAmount is -1).' }),
  roamingEnabled: Type.Array(CountryRef, {
    description: 'Further countries where the bundle can be used besides its base countries.',
  }),
  price: Type.Integer({
    description: 'Price per bundle in minor units of the organisation currency (cents for USD).',
  }),
  billingType: Type.String({
    description:
      'How the bundle is charged, as the live service names it: FixedCost (the price is paid once, when ordered) for every bundle here.',
  }),
});
