import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MemwalError, MemwalMemoryStore } from '../src';
import { startFakeRelayer } from './fake-relayer';

const DELEGATE_KEY = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const ACCOUNT_ID = '0x5e1f';
const USER = '6f1c1d8e-3a52-4a58-9d0e-4f1f3b7c2a10';
const OTHER_USER = '0b6a4d4c-9a0f-4d2e-8f0e-2d8e5b7c1a22';

/** RFC 8032's first test vector: its public key is known, so the client's derivation is checked too. */
const PUBLIC_KEY = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

let relayer: Awaited<ReturnType<typeof startFakeRelayer>>;
const store = (overrides: Partial<ConstructorParameters<typeof MemwalMemoryStore>[0]> = {}) =>
  new MemwalMemoryStore({ url: relayer.url, delegateKey: DELEGATE_KEY, accountId: ACCOUNT_ID, ...overrides });

beforeAll(async () => {
  relayer = await startFakeRelayer({ registeredKey: PUBLIC_KEY, accountId: ACCOUNT_ID });
});
afterAll(() => relayer.close());
afterEach(() => {
  relayer.behaviour.delayMs = 0;
  relayer.behaviour.failWith = undefined;
  relayer.memories.clear();
  relayer.requests.length = 0;
});

describe('MemwalMemoryStore against a relayer', () => {
  it("remembers with a signed request in the user's namespace", async () => {
    await store().remember(USER, 'Prefers slim fit', { namespace: 'preferences', source: 'chat' });
    const [request] = relayer.requests;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/api/remember',
      body: { text: 'Prefers slim fit', namespace: `shop-user-${USER}` },
    });
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-public-key': PUBLIC_KEY,
      'x-account-id': ACCOUNT_ID,
      'x-timestamp': expect.stringMatching(/^\d{10}$/),
      'x-nonce': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'x-signature': expect.stringMatching(/^[0-9a-f]{128}$/),
    });
  });

  it('recalls the closest memories first, as Memory records', async () => {
    const memwal = store();
    await memwal.remember(USER, 'Prefers slim fit jeans', { namespace: 'preferences', source: 'chat' });
    await memwal.remember(USER, 'Shoe size 10', { namespace: 'profile', source: 'onboarding' });
    const memories = await memwal.recall(USER, 'shoe size for running shoes', { limit: 5 });
    expect(relayer.requests.at(-1)?.body).toEqual({
      query: 'shoe size for running shoes',
      limit: 5,
      namespace: `shop-user-${USER}`,
    });
    expect(memories).toEqual([
      {
        id: expect.stringMatching(/^blob-/),
        content: 'Shoe size 10',
        namespace: `shop-user-${USER}`,
        source: 'memwal',
        createdAt: null,
        score: 0.4,
      },
      expect.objectContaining({ content: 'Prefers slim fit jeans', score: 0 }),
    ]);
  });

  it("keeps one user's memories from another", async () => {
    await store().remember(USER, 'Allergic to wool', { namespace: 'preferences', source: 'chat' });
    expect(await store().recall(OTHER_USER, 'wool', { limit: 5 })).toEqual([]);
    expect(await store().recall(USER, 'wool', { limit: 5 })).toHaveLength(1);
  });

  it("forgets every memory of one user's namespace and none of another's, and forgets again harmlessly", async () => {
    await store().remember(USER, 'Allergic to wool', { namespace: 'preferences', source: 'chat' });
    await store().remember(USER, 'Prefers slim fit', { namespace: 'preferences', source: 'chat' });
    await store().remember(OTHER_USER, 'Loves wool', { namespace: 'preferences', source: 'chat' });
    await store().forget(USER);
    await store().forget(USER);
    expect(await store().recall(USER, 'wool slim fit', { limit: 5 })).toEqual([]);
    expect(await store().recall(OTHER_USER, 'wool', { limit: 5 })).toHaveLength(1);
    expect(relayer.requests.filter((r) => r.path === '/api/forget').map((r) => r.body)).toEqual([
      { namespace: `shop-user-${USER}` },
      { namespace: `shop-user-${USER}` },
    ]);
  });

  it('bounds the limit it asks for and skips an empty query', async () => {
    await store().recall(USER, 'jackets', { limit: 500 });
    expect(relayer.requests.at(-1)?.body).toMatchObject({ limit: 100 });
    relayer.requests.length = 0;
    expect(await store().recall(USER, '   ', { limit: 5 })).toEqual([]);
    expect(relayer.requests).toEqual([]);
  });

  it('uses the configured namespace prefix', async () => {
    await store({ namespacePrefix: 'staging' }).remember(USER, 'Likes navy', {
      namespace: 'p',
      source: 'chat',
    });
    expect(relayer.requests[0]?.body).toMatchObject({ namespace: `staging-${USER}` });
  });

  it('signs with a fresh nonce every time, so the relayer accepts repeats of the same call', async () => {
    const memwal = store();
    await memwal.recall(USER, 'socks', { limit: 3 });
    await memwal.recall(USER, 'socks', { limit: 3 });
    const [first, second] = relayer.requests.map(({ headers }) => headers['x-nonce']);
    expect(first).not.toBe(second);
  });
});

describe('MemwalMemoryStore failures', () => {
  async function failure(promise: Promise<unknown>): Promise<MemwalError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MemwalError);
    return error as MemwalError;
  }

  it('reports a key the relayer does not know as an http error with its code', async () => {
    const wrongKey = store({
      delegateKey: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    });
    const error = await failure(wrongKey.recall(USER, 'socks', { limit: 5 }));
    expect(error).toMatchObject({ kind: 'http', details: { status: 401, serverCode: 'UNAUTHORIZED' } });
    expect(error.message).toBe('MemWal /api/recall answered 401: key not registered');
  });

  it('reports an error status with a non-JSON body by its first words', async () => {
    relayer.behaviour.failWith = { status: 502, body: '<html>Bad Gateway</html>' };
    const error = await failure(store().remember(USER, 'x y z', { namespace: 'p', source: 'chat' }));
    expect(error).toMatchObject({ kind: 'http', details: { status: 502 } });
    expect(error.message).toBe('MemWal /api/remember answered 502: <html>Bad Gateway</html>');
  });

  it('reads the server code from an "error" field too', async () => {
    relayer.behaviour.failWith = { status: 426, body: JSON.stringify({ error: 'SDK_TOO_OLD' }) };
    const error = await failure(store().recall(USER, 'socks', { limit: 5 }));
    expect(error).toMatchObject({ kind: 'http', details: { status: 426, serverCode: 'SDK_TOO_OLD' } });
  });

  it('reports a success with an unexpected body as an invalid response', async () => {
    relayer.behaviour.failWith = { status: 200, body: JSON.stringify({ memories: [] }) };
    const error = await failure(store().recall(USER, 'socks', { limit: 5 }));
    expect(error).toMatchObject({ kind: 'invalid-response', details: { status: 200 } });
  });

  it('gives up after its timeout', async () => {
    relayer.behaviour.delayMs = 500;
    const error = await failure(store({ timeoutMs: 100 }).recall(USER, 'socks', { limit: 5 }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe('MemWal /api/recall gave no answer within 100 ms');
  });

  it("stops when the caller's signal aborts", async () => {
    relayer.behaviour.delayMs = 500;
    const controller = new AbortController();
    const pending = store().recall(USER, 'socks', { limit: 5, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await failure(pending)).kind).toBe('aborted');
  });

  it('reports a relayer that is not listening as a network error', async () => {
    const error = await failure(store({ url: 'http://127.0.0.1:9' }).recall(USER, 'socks', { limit: 5 }));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/^MemWal \/api\/recall is unreachable: /);
  });

  it('refuses a delegate key that is not 32 bytes', () => {
    expect(() => store({ delegateKey: 'abcd' })).toThrow('the MemWal delegate key must be 32 bytes of hex');
  });
});
