// A bare node:http server for bench/modes.ts: it answers each request whose method and URL it
// was given with the very bytes (status, Content-Type, body) the service answered to it, read
// from the JSON file named by REPLAY_FILE, after reading (and, for a JSON body, parsing) the
// request as a handler would. It shows what HTTP and JSON alone cost on this machine in the same
// run. Prints its address, then serves until SIGTERM.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

export interface Replayed {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

const file = process.env['REPLAY_FILE'];
if (file === undefined) throw new Error('REPLAY_FILE must name the answers to replay');
const answers = new Map<string, { status: number; contentType: string; body: Buffer }>();
for (const a of JSON.parse(readFileSync(file, 'utf8')) as Replayed[]) {
  answers.set(`${a.method} ${a.url}`, {
    status: a.status,
    contentType: a.contentType,
    body: Buffer.from(a.body),
  });
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const answer = answers.get(`${req.method ?? ''} ${req.url ?? ''}`);
    if (chunks.length > 0) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (answer === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not replayed"}');
      return;
    }
    res
      .writeHead(answer.status, {
        'content-type': answer.contentType,
        'content-length': answer.body.length,
        'x-request-id': randomUUID(),
      })
      .end(answer.body);
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
