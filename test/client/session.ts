import createClient from 'openapi-fetch';
import type { OpenAPI3 } from 'openapi-typescript';
import type { CallbackWorker } from '../../src/workers/callback-delivery.js';
import { createCallbackWorker } from '../../src/workers/callback-delivery.js';
import { BUILT_IN_GROUPS } from '../../src/domain/catalogue/naming.js';
import { saveCard } from '../../src/domain/money/save-card.js';
import type { DatabaseKind, TestApp } from '../harness.js';
import { startTestApp } from '../harness.js';
import type { Receiver } from '../receiver.js';
import { startReceiver } from '../receiver.js';
import type { CallContext } from './calls.js';
import type { paths } from 'esim-bundle-service-client/v2.1';

// A real server on a fresh database, an organisation in every group with a saved card and a
// callback receiver, and the typed client pointed at the server the way a generated client
// resolves the document's (relative) server.

export interface ClientSession {
  readonly t: TestApp;
  readonly document: OpenAPI3;
  readonly context: CallContext;
  close(): Promise<void>;
}

export async function startClientSession(kind: DatabaseKind): Promise<ClientSession> {
  const receiver: Receiver = await startReceiver();
  const t = await startTestApp(kind);
  const org = await t.createOrg({
    name: 'Acme Travel',
    balance: 1_000_000,
    groups: BUILT_IN_GROUPS,
    callbackUrl: `${receiver.url}/hook`,
    callbackVersion: 'V3',
  });
  await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
  const worker: CallbackWorker = createCallbackWorker(t.deps, { warn: () => undefined });
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const document = (await (await fetch(`${address}/v2.1/openapi.json`)).json()) as OpenAPI3;
  const server = document.servers?.[0]?.url ?? '';
  const context: CallContext = {
    client: createClient<paths>({
      baseUrl: new URL(server, address).toString().replace(/\/$/, ''),
      headers: { 'X-API-Key': org.apiKey },
    }),
    deliverCallbacks: () => worker.drain(),
    bundle: '',
    orderReference: '',
    applyReference: '',
    iccid: '',
    usageId: 0,
    assignmentIds: [],
    callbackId: '',
    faultId: '',
  };
  return {
    t,
    document,
    context,
    async close() {
      await worker.stop();
      await t.close();
      await receiver.close();
    },
  };
}
