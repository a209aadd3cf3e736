// An example receiver for usage callbacks, for integrators.
//
//   ESIM_API_KEY=esim_... PORT=9000 npx tsx examples/callback-receiver.ts
//   esim org update <org id> --callback-url http://localhost:9000/callbacks --callback-version V3
//
// It verifies the V3 signature on the raw body (before any JSON parsing), drops duplicates by
// X-Event-Id (delivery is at least once), answers 2xx quickly and does the real work afterwards.
// V2 callbacks carry no signature: accept them only from a trusted network.
import { createServer } from 'node:http';
import { verifyCallbackSignature } from 'esim-bundle-service-client/verify';

const apiKey = process.env['ESIM_API_KEY'] ?? '';
const port = Number(process.env['PORT'] ?? 9000);
const acceptUnsigned = process.env['ACCEPT_V2'] === 'true';
if (apiKey === '' && !acceptUnsigned) {
  console.error('set ESIM_API_KEY to the organisation API key (or ACCEPT_V2=true for unsigned V2)');
  process.exit(2);
}

// Ids of events already handled. A real receiver keeps these in its database, with the effect.
const seen = new Set<string>();

interface UsageCallback {
  iccid: string;
  alertType: string;
  bundle?: { name: string; remainingQuantity: number; initialQuantity: number };
  threshold?: number;
}

function handle(event: UsageCallback, id: string, at: string): void {
  const remaining =
    event.bundle === undefined
      ? ''
      : ` ${event.bundle.remainingQuantity} bytes left of ${event.bundle.name}`;
  console.log(
    `${at} ${id} ${event.alertType}${event.threshold === undefined ? '' : ` ${event.threshold}%`} ${event.iccid}${remaining}`,
  );
}

createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const signature = req.headers['x-signature-sha256'];
    if (typeof signature === 'string') {
      if (!verifyCallbackSignature(raw, signature, apiKey)) {
        // Wrong key (was the API key rotated?) or a forged request: refuse, and it is retried.
        res.writeHead(401).end('bad signature');
        return;
      }
    } else if (!acceptUnsigned) {
      res.writeHead(401).end('unsigned callback');
      return;
    }
    let event: UsageCallback;
    try {
      event = JSON.parse(raw.toString('utf8')) as UsageCallback;
    } catch {
      res.writeHead(400).end('not JSON');
      return;
    }
    const id = String(req.headers['x-event-id'] ?? '');
    res.writeHead(204).end();
    if (seen.has(id)) return; // a retry of something already handled
    seen.add(id);
    handle(event, id, String(req.headers['x-event-timestamp'] ?? ''));
  });
}).listen(port, () => console.log(`receiving usage callbacks on http://localhost:${port}/`));
