import type { Command } from '../command.js';
import { simExport, simImport } from './sim-snapshot.js';
import { UsageError, onePositional, parse, parseInteger } from '../command.js';
import { URL_USAGE, simCall as call } from './sim-http.js';
import { simRequests } from './sim-requests.js';

// `esim sim ...`: the /_sim control plane of a running simulator, over HTTP, so the same
// commands drive a local server, a container or a CI service (sim-http.ts).

const urlOption = { url: { type: 'string' } } as const;

function iccidArg(positionals: readonly string[]): string {
  return encodeURIComponent(onePositional(positionals, 'ICCID'));
}

export const simInstall: Command = {
  usage: `esim sim install <iccid> [--status Installed|Downloaded|Unavailable] ${URL_USAGE}`,
  summary: 'Simulator: install the eSIM profile on a device',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { ...urlOption, status: { type: 'string' } });
    const body = values.status === undefined ? {} : { status: values.status };
    return call(ctx, values.url, 'POST', `/_sim/esims/${iccidArg(positionals)}/install`, body);
  },
};

export const simAttach: Command = {
  usage: `esim sim attach <iccid> (--country FR | --mcc 208 --mnc 01) ${URL_USAGE}`,
  summary: 'Simulator: attach the eSIM to a network of a country, or to an exact operator',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      ...urlOption,
      country: { type: 'string' },
      mcc: { type: 'string' },
      mnc: { type: 'string' },
    });
    const body: Record<string, string> = {};
    if (values.country !== undefined) body['country'] = values.country;
    if (values.mcc !== undefined) body['mcc'] = values.mcc;
    if (values.mnc !== undefined) body['mnc'] = values.mnc;
    if (Object.keys(body).length === 0) throw new UsageError('give --country, or --mcc and --mnc');
    return call(ctx, values.url, 'POST', `/_sim/esims/${iccidArg(positionals)}/attach`, body);
  },
};

export const simUsage: Command = {
  usage: `esim sim usage <iccid> (--bytes <n> | --mb <n>) ${URL_USAGE}`,
  summary: 'Simulator: use data on the eSIM (decimal MB: 1 MB = 1,000,000 bytes)',
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, {
      ...urlOption,
      bytes: { type: 'string' },
      mb: { type: 'string' },
    });
    const bytes =
      parseInteger(values.bytes, 'bytes', 1) ?? (parseInteger(values.mb, 'mb', 1) ?? 0) * 1_000_000;
    if (bytes <= 0) throw new UsageError('give --bytes or --mb');
    return call(ctx, values.url, 'POST', `/_sim/esims/${iccidArg(positionals)}/usage`, { bytes });
  },
};

export const simMsisdn: Command = {
  usage: `esim sim msisdn <iccid> [--country GB] ${URL_USAGE}`,
  summary:
    "Simulator: the eSIM's phone number, one of --country's when it has none yet (attaching gives one)",
  async run(ctx) {
    const { values, positionals } = parse(ctx.args, { ...urlOption, country: { type: 'string' } });
    const body = values.country === undefined ? {} : { country: values.country };
    return call(ctx, values.url, 'POST', `/_sim/esims/${iccidArg(positionals)}/msisdn`, body);
  },
};

export const simAdvance: Command = {
  usage: `esim sim advance [--days <n>] [--hours <n>] [--minutes <n>] [--seconds <n>] ${URL_USAGE}`,
  summary: 'Simulator: move the clock forward and apply what falls due (expiry, processing)',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      {
        ...urlOption,
        days: { type: 'string' },
        hours: { type: 'string' },
        minutes: { type: 'string' },
        seconds: { type: 'string' },
      },
      false,
    );
    const seconds =
      (parseInteger(values.days, 'days') ?? 0) * 86_400 +
      (parseInteger(values.hours, 'hours') ?? 0) * 3600 +
      (parseInteger(values.minutes, 'minutes') ?? 0) * 60 +
      (parseInteger(values.seconds, 'seconds') ?? 0);
    if (seconds <= 0)
      throw new UsageError('give a positive --days, --hours, --minutes or --seconds');
    return call(ctx, values.url, 'POST', '/_sim/clock/advance', { seconds });
  },
};

export const simClock: Command = {
  usage: `esim sim clock ${URL_USAGE}`,
  summary: 'Simulator: show the simulated time',
  async run(ctx) {
    const { values } = parse(ctx.args, urlOption, false);
    return call(ctx, values.url, 'GET', '/_sim/clock');
  },
};

export const simSms: Command = {
  usage: `esim sim sms [--iccid <iccid>] [--limit <n>] ${URL_USAGE}`,
  summary: 'Simulator: show SMS delivered to eSIMs, newest first',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      { ...urlOption, iccid: { type: 'string' }, limit: { type: 'string' } },
      false,
    );
    const query = new URLSearchParams();
    if (values.iccid !== undefined) query.set('iccid', values.iccid);
    const limit = parseInteger(values.limit, 'limit', 1);
    if (limit !== undefined) query.set('limit', String(limit));
    const qs = query.toString();
    return call(ctx, values.url, 'GET', `/_sim/sms${qs === '' ? '' : `?${qs}`}`);
  },
};

export const simReset: Command = {
  usage: `esim sim reset [--to-seed] ${URL_USAGE}`,
  summary:
    'Simulator: remove faults, restore the processing delay, empty the SMS outbox, reseed; --to-seed: back to the SEED_FILE state',
  async run(ctx) {
    const { values } = parse(ctx.args, { ...urlOption, 'to-seed': { type: 'boolean' } }, false);
    const query = values['to-seed'] === true ? '?toSeed=true' : '';
    return call(ctx, values.url, 'POST', `/_sim/reset${query}`);
  },
};

export const simFault: Command = {
  usage: `esim sim fault --route </v2.1/orders|pattern*> [--method POST] [--status 503] [--count <n> | --probability <0..1>] [--latency-ms <n>] ${URL_USAGE}`,
  summary:
    'Simulator: make API calls fail or slow down, on one version (a route without a version prefix is /v2.1’s)',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      {
        ...urlOption,
        route: { type: 'string' },
        method: { type: 'string' },
        status: { type: 'string' },
        count: { type: 'string' },
        probability: { type: 'string' },
        'latency-ms': { type: 'string' },
      },
      false,
    );
    if (values.route === undefined) throw new UsageError('--route is required');
    const body: Record<string, unknown> = { route: values.route };
    if (values.method !== undefined) body['method'] = values.method;
    const status = parseInteger(values.status, 'status', 400);
    if (status !== undefined) body['status'] = status;
    const count = parseInteger(values.count, 'count', 1);
    if (count !== undefined) body['count'] = count;
    const latency = parseInteger(values['latency-ms'], 'latency-ms');
    if (latency !== undefined) body['latencyMs'] = latency;
    if (values.probability !== undefined) {
      const p = Number(values.probability);
      if (!/^\d*\.?\d+$/.test(values.probability) || p < 0 || p > 1) {
        throw new UsageError('--probability must be a number from 0 to 1');
      }
      body['probability'] = p;
    }
    return call(ctx, values.url, 'POST', '/_sim/faults', body);
  },
};

export const simFaults: Command = {
  usage: `esim sim faults [--clear] ${URL_USAGE}`,
  summary: 'Simulator: list the active faults, or remove them all with --clear',
  async run(ctx) {
    const { values } = parse(ctx.args, { ...urlOption, clear: { type: 'boolean' } }, false);
    return values.clear === true
      ? call(ctx, values.url, 'DELETE', '/_sim/faults')
      : call(ctx, values.url, 'GET', '/_sim/faults');
  },
};

export const simProcessing: Command = {
  usage: `esim sim processing [--delay-seconds <0..600>] ${URL_USAGE}`,
  summary: 'Simulator: show or set how long new bundle assignments stay Processing',
  async run(ctx) {
    const { values } = parse(
      ctx.args,
      { ...urlOption, 'delay-seconds': { type: 'string' } },
      false,
    );
    const delay = parseInteger(values['delay-seconds'], 'delay-seconds');
    return delay === undefined
      ? call(ctx, values.url, 'GET', '/_sim/processing')
      : call(ctx, values.url, 'POST', '/_sim/processing', { delaySeconds: delay });
  },
};

/** Registered in COMMANDS (src/cli/main.ts) under these words. */
export const simCommands: Record<string, Command> = {
  'sim install': simInstall,
  'sim attach': simAttach,
  'sim usage': simUsage,
  'sim msisdn': simMsisdn,
  'sim advance': simAdvance,
  'sim clock': simClock,
  'sim sms': simSms,
  'sim requests': simRequests,
  'sim reset': simReset,
  'sim fault': simFault,
  'sim faults': simFaults,
  'sim processing': simProcessing,
  'sim export': simExport,
  'sim import': simImport,
};
