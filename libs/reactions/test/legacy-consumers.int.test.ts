import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, nanos } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateWildcard, systemActor } from '@shop/contracts';
import { openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { moveLegacyConsumers } from '../src/legacy-consumers';

const env = testEnvironment('legacycons');
let t: TestEventStore;

beforeAll(async () => {
  t = await openTestEventStore(env);
});
afterAll(async () => {
  await t.close();
});

async function append(cartId: string, expectedSequence: number): Promise<number> {
  const result = await t.store.append(
    'cart',
    cartId,
    [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
    {
      expectedSequence,
      commandId: randomUUID(),
      correlationId: randomUUID(),
      causationId: null,
      actor: systemActor,
    },
  );
  return result.sequence;
}

describe("moving consumers of an earlier version to their owners' names (npm run migrate)", () => {
  it("gives a reaction's consumer its successor after the old ack floor, and removes a projection's", async () => {
    const cartId = randomUUID();
    const first = await append(cartId, 0);
    const second = await append(cartId, first);
    const third = await append(cartId, second);
    const config = {
      ack_policy: AckPolicy.Explicit,
      filter_subject: aggregateWildcard(env.subjectPrefix, 'cart'),
      ack_wait: nanos(60_000),
      max_deliver: -1,
      max_ack_pending: 1000,
    };
    await t.store.jsm.consumers.add(env.stream, {
      ...config,
      durable_name: 'reaction_order-cart',
      deliver_policy: DeliverPolicy.All,
    });
    await t.store.jsm.consumers.add(env.stream, {
      durable_name: 'projection_orders',
      ack_policy: AckPolicy.All,
      deliver_policy: DeliverPolicy.All,
    });
    // The old reaction handled the first two commits.
    const messages = await (
      await t.store.js.consumers.get(env.stream, 'reaction_order-cart')
    ).fetch({ max_messages: 2 });
    for await (const message of messages) await message.ackAck();

    const moves = await moveLegacyConsumers(t.store.jsm, env.stream);

    expect(moves).toEqual(
      expect.arrayContaining([
        { from: 'reaction_order-cart', to: 'gateway_reaction_order-cart', startsAt: third },
        { from: 'projection_orders', to: null },
      ]),
    );
    const names: string[] = [];
    for await (const info of t.store.jsm.consumers.list(env.stream)) names.push(info.name);
    expect(names.sort()).toEqual(['gateway_reaction_order-cart']);
    const moved = await t.store.jsm.consumers.info(env.stream, 'gateway_reaction_order-cart');
    expect(moved.config).toMatchObject({
      ...config,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: third,
    });
    // Run again (nothing old left), it does nothing.
    expect(await moveLegacyConsumers(t.store.jsm, env.stream)).toEqual([]);
  });
});
