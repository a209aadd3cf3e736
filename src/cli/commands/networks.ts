import { countryNetworks } from '../../domain/network/country-networks.js';
import type { Command } from '../command.js';
import { UsageError, parse } from '../command.js';

export const networksList: Command = {
  usage: 'esim networks (--countries <names or ISO codes> | --isos <ISO codes> | --all) [--json]',
  summary: 'Print the mobile networks of countries (as GET /networks)',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      {
        countries: { type: 'string' },
        isos: { type: 'string' },
        all: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      false,
    );
    if (values.countries === undefined && values.isos === undefined && values.all !== true) {
      throw new UsageError('give --countries, --isos or --all');
    }
    const result = countryNetworks({
      countries: values.countries,
      isos: values.isos,
      returnAll: values.all,
    });
    if (values.json === true) {
      ctx.io.out(JSON.stringify({ countryNetworks: result }));
      return 0;
    }
    for (const country of result) {
      ctx.io.out(`${country.name}  ${country.countryName}`);
      for (const n of country.networks) {
        ctx.io.out(`  ${n.mcc}${n.mnc}  ${n.brandName} (${n.name})  ${n.speed.join(' ') || '-'}`);
      }
    }
    return 0;
  },
};
