// An in-memory order service for bench/modes.ts: POST /v2.1/orders as the service answers it
// (same body, same checks a handler must make, the same answer's fields), with organisations,
// balances, inventory and orders in Maps instead of a database. It shows what taking an order
// costs without durable state on this machine in the same run. Set up from PEER_SETUP (JSON:
// apiKey, balance, bundles with their prices); prints its address, then serves until SIGTERM.
import { randomUUID } from 'node:crypto';
import http from 'node:http';

interface Setup {
  readonly apiKey: string;
  readonly balance: number;
  readonly bundles: readonly { readonly name: string; readonly price: number }[];
}

interface Organisation {
  balance: number;
  readonly inventory: Map<string, number>;
  readonly orders: Map<string, unknown>;
}

const setup = JSON.parse(process.env['PEER_SETUP'] ?? 'null') as Setup | null;
if (setup === null) throw new Error('PEER_SETUP must hold the key, balance and bundles');
const prices = new Map(setup.bundles.map((b) => [b.name, b.price]));
const organisations = new Map<string, Organisation>([
  [setup.apiKey, { balance: setup.balance, inventory: new Map(), orders: new Map() }],
]);

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Line {
  type: 'bundle';
  item: string;
  quantity: number;
  subTotal: number;
  pricePerUnit: number;
}

function linesOf(body: unknown): { type: string; assign: boolean; lines: Line[] } {
  if (typeof body !== 'object' || body === null) throw new Refusal(400, 'body must be an object');
  const { type, assign = false, order } = body as Record<string, unknown>;
  if (type !== 'transaction' && type !== 'validate')
    throw new Refusal(400, 'type must be transaction or validate');
  if (typeof assign !== 'boolean') throw new Refusal(400, 'assign must be a boolean');
  if (!Array.isArray(order) || order.length === 0 || order.length > 50)
    throw new Refusal(400, 'order must list 1 to 50 items');
  const lines = order.map((entry: unknown, i): Line => {
    const { type: kind, item, quantity } = (entry ?? {}) as Record<string, unknown>;
    if (kind !== 'bundle') throw new Refusal(400, `order[${i}].type must be bundle`);
    if (typeof item !== 'string') throw new Refusal(400, `order[${i}].item must be a string`);
    if (!Number.isInteger(quantity) || (quantity as number) < 1 || (quantity as number) > 1000)
      throw new Refusal(400, `order[${i}].quantity must be 1 to 1000`);
    const price = prices.get(item);
    if (price === undefined) throw new Refusal(400, `order[${i}].item: no bundle ${item}`);
    const units = quantity as number;
    return { type: 'bundle', item, quantity: units, subTotal: price * units, pricePerUnit: price };
  });
  return { type, assign, lines };
}

function place(org: Organisation, body: unknown): unknown {
  const { type, assign, lines } = linesOf(body);
  const total = lines.reduce((sum, line) => sum + line.subTotal, 0);
  if (total > org.balance) throw new Refusal(400, 'insufficient balance');
  const answer = {
    order: lines,
    total,
    currency: 'USD',
    status: type === 'transaction' ? 'completed' : 'validated',
    statusMessage:
      type === 'transaction'
        ? `Order completed: ${lines.length} bundle${lines.length === 1 ? '' : 's'} added to inventory`
        : 'Order validated',
    orderReference: randomUUID(),
    createDate: new Date().toISOString(),
    assign,
  };
  if (type === 'transaction') {
    org.balance -= total;
    for (const line of lines)
      org.inventory.set(line.item, (org.inventory.get(line.item) ?? 0) + line.quantity);
    org.orders.set(answer.orderReference, answer);
  }
  return answer;
}

function send(res: http.ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': randomUUID(),
    })
    .end(body);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      if (req.method !== 'POST' || req.url !== '/v2.1/orders') throw new Refusal(404, 'no route');
      const org = organisations.get(String(req.headers['x-api-key'] ?? ''));
      if (org === undefined) throw new Refusal(403, 'invalid API key');
      send(res, 200, place(org, JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    } catch (error) {
      if (error instanceof Refusal) send(res, error.status, { message: error.message });
      else send(res, 400, { message: 'body is not JSON' });
    }
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
