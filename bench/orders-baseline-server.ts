// The baseline process of bench/orders.ts: a bare Fastify route that parses the same JSON body
// and answers with the very bytes the service answered to the same request (read from the file
// named by BARE_RESPONSE_FILE), so the benchmark shows what HTTP and JSON alone cost on this
// machine in the same run. Prints its address, then serves until SIGTERM.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const file = process.env['BARE_RESPONSE_FILE'];
if (file === undefined) throw new Error('BARE_RESPONSE_FILE must name the response to serve');
const bytes = readFileSync(file);
const app = Fastify({ logger: false });
app.post('/v2.1/orders', async (request, reply) => {
  // Touch the parsed body as a handler would.
  if (typeof request.body !== 'object' || request.body === null) return reply.code(400).send();
  return reply.type('application/json; charset=utf-8').send(bytes);
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
