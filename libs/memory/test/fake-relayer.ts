import { createHash, createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** DER header of an X.509 Ed25519 public key; the 32 raw bytes follow it. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const CLOCK_SKEW_SECONDS = 300;

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

interface Stored {
  blobId: string;
  text: string;
}

/**
 * A MemWal relayer stand-in speaking the REST API of the reference: signed POST /api/remember (202 with a
 * job), POST /api/recall ({results: [{blob_id, text, distance}], total}) and POST /api/forget (every
 * memory of a namespace: {deleted, namespace, owner}, as the relayer's API reference documents it). It verifies every signature
 * over `{timestamp}.{METHOD}.{path}.{sha256(body)}.{nonce}.{accountId}` with the sent public key, refuses
 * replayed nonces and stale timestamps, and ranks recall by word overlap (distance = 1 - overlap).
 */
export async function startFakeRelayer(options: { registeredKey: string; accountId: string }) {
  const memories = new Map<string, Stored[]>();
  const nonces = new Set<string>();
  const requests: ReceivedRequest[] = [];
  const behaviour = { delayMs: 0, failWith: undefined as { status: number; body: string } | undefined };

  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  function authenticate(request: IncomingMessage, raw: string): string | undefined {
    const header = (name: string) => String(request.headers[name] ?? '');
    const [timestamp, nonce, account, publicKey] = [
      'x-timestamp',
      'x-nonce',
      'x-account-id',
      'x-public-key',
    ].map(header) as [string, string, string, string];
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > CLOCK_SKEW_SECONDS) return 'stale timestamp';
    if (nonces.has(nonce)) return 'replayed nonce';
    if (publicKey !== options.registeredKey || account !== options.accountId) return 'key not registered';
    const bodyHash = createHash('sha256').update(raw).digest('hex');
    const message = `${timestamp}.${request.method}.${request.url}.${bodyHash}.${nonce}.${account}`;
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(publicKey, 'hex')]),
      format: 'der',
      type: 'spki',
    });
    if (!verify(null, Buffer.from(message), key, Buffer.from(header('x-signature'), 'hex')))
      return 'bad signature';
    nonces.add(nonce);
    return undefined;
  }

  const words = (text: string) =>
    new Set(
      text
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean),
    );

  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
      });
      setTimeout(() => {
        if (behaviour.failWith) return send(response, behaviour.failWith.status, behaviour.failWith.body);
        const refusal = authenticate(request, raw);
        if (refusal) return send(response, 401, { message: refusal, code: 'UNAUTHORIZED' });
        if (request.method === 'POST' && request.url === '/api/remember') {
          const stored = memories.get(body.namespace) ?? [];
          stored.push({ blobId: `blob-${requests.length}`, text: body.text });
          memories.set(body.namespace, stored);
          return send(response, 202, { job_id: `job-${requests.length}`, status: 'pending' });
        }
        if (request.method === 'POST' && request.url === '/api/recall') {
          const wanted = words(body.query);
          const results = (memories.get(body.namespace) ?? [])
            .map(({ blobId, text }) => {
              const shared = [...words(text)].filter((word) => wanted.has(word)).length;
              return { blob_id: blobId, text, distance: 1 - shared / Math.max(1, wanted.size) };
            })
            .sort((a, b) => a.distance - b.distance)
            .slice(0, body.limit);
          return send(response, 200, { results, total: results.length });
        }
        if (request.method === 'POST' && request.url === '/api/forget') {
          const namespace = body?.namespace ?? 'default';
          const deleted = memories.get(namespace)?.length ?? 0;
          memories.delete(namespace);
          return send(response, 200, { deleted, namespace, owner: options.accountId });
        }
        return send(response, 404, { error: 'not found' });
      }, behaviour.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    memories,
    behaviour,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
