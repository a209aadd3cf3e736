// The baseline process of bench/orders.ts: a bare Fastify route that parses the same JSON body
// and answers with an order of the same shape and size from memory, so the benchmark can show
// what HTTP and JSON alone cost on this machine. Prints its address, then serves until SIGTERM.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
let n = 0;
app.post('/v2.1/orders', async (request) => {
  n += 1;
  const body = request.body as { order: { item: string; quantity: number }[] };
  return {
    order: body.order.map((l) => ({
      type: 'bundle',
      item: l.item,
      quantity: l.quantity,
      subTotal: l.quantity,
      pricePerUnit: 1,
    })),
    total: 1,
    currency: 'USD',
    status: 'completed',
    statusMessage: 'Order completed: 1 bundle added to inventory',
    orderReference: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    createDate: new Date().toISOString(),
    assign: false,
  };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
