// The later versions' part of test/record-answers.ts: on the same database, after everything
// else, each of /v2.2 to /v2.5 reads and writes what differs between the versions (orders and
// their replays, money, eSIM details and lists, bundles, history, revokes, refunds and top-ups,
// an order the balance cannot pay), so that two builds are compared on every version's shapes.

type Raw = (step: string, path: string, init?: RequestInit) => Promise<Response>;
type Cli = (step: string, argv: string[]) => Promise<string>;

export interface LaterVersionsContext {
  readonly raw: Raw;
  readonly cli: Cli;
  readonly apiKey: string;
  /** The eSIM the v2.1 calls installed and used. */
  readonly iccid: string;
  readonly bundle: string;
}

const LATER = ['2.2', '2.3', '2.4', '2.5'] as const;

export async function recordLaterVersions(c: LaterVersionsContext): Promise<void> {
  const { raw, bundle, iccid } = c;
  const key = { 'X-API-Key': c.apiKey };
  const json = { ...key, 'content-type': 'application/json' };
  const poor = JSON.parse(
    await c.cli('org create without funds', [
      'org',
      'create',
      '--name',
      'Penniless Travel',
      '--balance',
      '0',
      '--json',
    ]),
  ) as { apiKey: string };
  const line = (quantity: number) => [{ type: 'bundle', item: bundle, quantity }];
  for (const v of LATER) {
    const p = `/v${v}`;
    const step = (name: string) => `v${v} ${name}`;
    const post = (name: string, path: string, body: unknown, idempotencyKey?: string) =>
      raw(step(name), `${p}${path}`, {
        method: 'POST',
        headers:
          idempotencyKey === undefined ? json : { ...json, 'Idempotency-Key': idempotencyKey },
        body: JSON.stringify(body),
      });
    const get = (name: string, path: string, headers: Record<string, string> = {}) =>
      raw(step(name), `${p}${path}`, { headers: { ...key, ...headers } });

    await get('organisation', '/organisation');
    await get('catalogue', '/catalogue?countries=FR&perPage=3');
    await get('catalogue bundle', `/catalogue/bundle/${bundle}`);
    await post('order validate', '/orders', { type: 'validate', order: line(1) });
    const order = { type: 'transaction', assign: true, order: line(1) };
    const placed = (await (await post('order', '/orders', order, `record-v${v}-order`)).json()) as {
      orderReference: string;
      order: { iccids: string[] }[];
    };
    await post('order replay', '/orders', order, `record-v${v}-order`);
    const fresh = placed.order[0]?.iccids[0] ?? '';
    await post('order into inventory', '/orders', { type: 'transaction', order: line(2) });
    await get('order get', `/orders/${placed.orderReference}`);
    await get('orders', '/orders?perPage=2');
    const inventory = (await (await get('inventory', '/inventory')).json()) as {
      bundles: { name: string; available: { id: number; remaining: number }[] }[];
    };
    const batch = inventory.bundles
      .find((b) => b.name === bundle)
      ?.available.find((a) => a.remaining >= 2);
    const refund = { usageId: batch?.id ?? 0, quantity: 1 };
    await post('refund', '/inventory/refund', refund, `record-v${v}-refund`);
    await post('refund replay', '/inventory/refund', refund, `record-v${v}-refund`);
    const amount = v === '2.4' || v === '2.5' ? '10.00' : '1000';
    const topUp = (name: string) =>
      raw(step(name), `${p}/organisation/balance?amount=${amount}`, {
        method: 'POST',
        headers: { ...key, 'Idempotency-Key': `record-v${v}-top-up` },
      });
    await topUp('top-up');
    await topUp('top-up replay');
    await get('esims', '/esims?perPage=3');
    await get('esims by iccid', `/esims?perPage=3&filterBy=iccid&filter=${iccid}`);
    await get('esim', `/esims/${iccid}`);
    await get('esim with link', `/esims/${iccid}?additionalFields=appleInstallUrl`);
    await get('esim new', `/esims/${fresh}`);
    await get('history', `/esims/${iccid}/history`);
    await get('bundles', `/esims/${iccid}/bundles`);
    await get('bundles used', `/esims/${iccid}/bundles?includeUsed=true&limit=2`);
    await get('bundle', `/esims/${iccid}/bundles/${bundle}`);
    const queued = (await (await get('bundles new', `/esims/${fresh}/bundles`)).json()) as {
      bundles: { assignments: { id: string }[] }[];
    };
    await get('compatible', `/esims/${iccid}/compatible/${bundle}`);
    await get('install data', `/esims/assignments?reference=${placed.orderReference}`, {
      accept: 'application/json',
    });
    await raw(
      step('revoke by name validate'),
      `${p}/esims/${fresh}/bundles/${bundle}?type=validate`,
      {
        method: 'DELETE',
        headers: key,
      },
    );
    const id = queued.bundles[0]?.assignments[0]?.id ?? '0';
    await raw(
      step('revoke assignment validate'),
      `${p}/esims/${fresh}/bundles/${bundle}/assignments/${id}?type=validate`,
      { method: 'DELETE', headers: key },
    );
    await raw(step('order without funds'), `${p}/orders`, {
      method: 'POST',
      headers: { 'X-API-Key': poor.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'transaction', order: line(1) }),
    });
  }
}
