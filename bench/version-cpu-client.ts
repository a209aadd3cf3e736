// The load generator of bench/version-cpu.ts in socket mode: a child process, so that its own CPU
// is not counted in the server's. For each block the parent sends over IPC it makes `count`
// requests over keep-alive connections, `concurrency` at a time, reads every answer whole and
// replies with how many had another status than the one expected.
import http from 'node:http';

export interface Block {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly status: number;
  readonly count: number;
  readonly concurrency: number;
}

export interface BlockDone {
  readonly failed: number;
  readonly firstFailure?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function once(block: Block): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...block.headers };
    if (block.body !== undefined) headers['content-length'] = Buffer.byteLength(block.body);
    const req = http.request(block.url, { method: block.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(block.body);
  });
}

async function run(block: Block): Promise<BlockDone> {
  let next = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const lane = async (): Promise<void> => {
    while (next < block.count) {
      next += 1;
      const { status, text } = await once(block);
      if (status !== block.status) {
        failed += 1;
        firstFailure ??= `${status} ${text.slice(0, 200)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: block.concurrency }, lane));
  return { failed, ...(firstFailure === undefined ? {} : { firstFailure }) };
}

process.on('message', (block: Block) => {
  run(block).then(
    (done) => process.send?.(done),
    (error: unknown) => process.send?.({ failed: block.count, firstFailure: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
