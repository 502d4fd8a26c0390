import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildProjections, tableChecksums } from '@shop/projections';
import {
  cartItemsProjection,
  chatSessionsProjection,
  readModelMigrations,
  usersProjection,
} from '@shop/read-models';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

/**
 * Every value the API accepts must be storable in the read models and replayable: a value a
 * projection cannot write parks the whole subject, and the user's later writes answer 2xx but
 * never show.
 */
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('storable', { RATE_LIMIT_RPM: '100000' });
});
afterAll(async () => {
  await stack?.stop();
});

const product = (n: number, overrides: Record<string, unknown> = {}) => ({
  productId: `B0STORE${String(n).padStart(4, '0')}`,
  productName: `Wool coat ${n}`,
  price: 12999,
  image: `https://images.example.com/${n}.jpg`,
  productUrl: `https://shop.example.com/dp/${n}`,
  retailer: 'Example Outfitters',
  ...overrides,
});

async function onboarded(): Promise<TestClient> {
  const client = new TestClient(stack.url);
  await client.onboard(`${randomUUID().slice(0, 8)}@example.com`);
  return client;
}

const cartIds = async (client: TestClient) =>
  ((await client.request('GET', '/api/cart')).json.items as { productId: string }[]).map((i) => i.productId);

describe('values the API accepts are storable', () => {
  it('stores a price above 2^31-1 cents, and the cart keeps working after it', async () => {
    const client = await onboarded();
    const large = await client.request('POST', '/api/cart', product(1, { price: 2 ** 31 }));
    expect(large.status).toBe(201);
    const next = await client.request('POST', '/api/cart', product(2));
    expect(next.status).toBe(201);
    const cart = await eventually(
      () => client.request('GET', '/api/cart'),
      (r) => (r.json.items as unknown[]).length === 2,
    );
    expect((cart.json.items as { price: number }[]).map((i) => i.price).sort()).toEqual([12999, 2 ** 31]);
  });

  it('refuses a price above the bound with 400 CartInvalidProductError', async () => {
    const client = await onboarded();
    for (const price of [1e13, Number.MAX_SAFE_INTEGER, 2 ** 63]) {
      const res = await client.request('POST', '/api/cart', product(3, { price }));
      expect([res.status, res.json.code]).toEqual([400, 'CartInvalidProductError']);
    }
  });

  it('refuses text a read model cannot hold (NUL, unpaired surrogates) with 400 on every write route', async () => {
    const client = await onboarded();
    const unstorable = ['Coat\u0000', 'Coat\ud800', '\udc00Coat'];
    for (const text of unstorable) {
      const writes = [
        client.request('POST', '/api/cart', product(4, { productName: text })),
        client.request('POST', '/api/cart', product(5, { retailer: text })),
        client.request('POST', '/api/cart', product(6, { size: text })),
        client.request('POST', '/api/onboarding/step-1', { displayName: text }),
        client.request('POST', '/api/onboarding/step-2', {
          firstName: 'Ada',
          lastName: 'Lovelace',
          street: text,
          country: 'US',
          city: 'Austin',
          state: 'TX',
          zip: '78701',
        }),
        client.request('POST', '/api/onboarding/step-3', {
          topsSize: text,
          bottomsSize: '32',
          footwearSize: '42',
        }),
        client.request('POST', '/api/sessions', { title: text }),
        client.request('POST', '/api/chat', {
          messages: [{ role: 'user', parts: [{ type: 'text', text: `find a ${text}` }] }],
        }),
      ];
      const answers = await Promise.all(writes);
      expect(answers.map((r) => [r.status, r.json?.code])).toEqual(
        answers.map(() => [400, 'VALIDATION_ERROR']),
      );
    }
    // Nothing was parked, so the user's next write is readable.
    expect((await client.request('POST', '/api/cart', product(7))).status).toBe(201);
    expect(await cartIds(client)).toEqual([product(7).productId]);
    const parked = await stack.database.db
      .withSchema(stack.env.schema)
      .selectFrom('parked_subjects')
      .selectAll()
      .execute();
    expect(parked).toEqual([]);
  });

  it('keeps text that is storable exactly as sent (emoji, other scripts)', async () => {
    const client = await onboarded();
    const name = 'Mantel 🧥 — 羊毛 Ωmega';
    expect((await client.request('POST', '/api/cart', product(8, { productName: name }))).status).toBe(201);
    const items = (await client.request('GET', '/api/cart')).json.items as { productName: string }[];
    expect(items.map((i) => i.productName)).toEqual([name]);
  });

  it('rebuilds the cart, user and session read models with identical rows', async () => {
    const last = await stack.store.lastStreamSequence();
    for (const runner of stack.projector.runners) await runner.caughtUp(last);
    const projections = [cartItemsProjection(), usersProjection, chatSessionsProjection];
    const tables = ['cart_items', 'users', 'chat_sessions'];
    const rebuilt = `${stack.env.schema}_storable_rebuilt`;
    await rebuildProjections({
      store: stack.store,
      db: stack.database.db,
      schema: rebuilt,
      projections,
      migrations: readModelMigrations,
      untilSequence: last,
    });
    const live = await tableChecksums(stack.database.db, stack.env.schema, tables);
    expect(live.cart_items!.rows).toBeGreaterThanOrEqual(4);
    expect(await tableChecksums(stack.database.db, rebuilt, tables)).toEqual(live);
  });
});
