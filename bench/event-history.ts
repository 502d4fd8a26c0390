import { randomBytes, randomUUID } from 'node:crypto';
import { AggregateName, NewEvent } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';

export type Step = [AggregateName, string, NewEvent];

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const product = (n: number) => ({
  productId: `P${n}`,
  productName: `Product ${n}`,
  price: 500 + n,
  image: 'https://example.com/p.jpg',
  size: 'M',
  color: 'Blue',
  productUrl: `https://example.com/p/${n}`,
  retailer: ['amazon', 'zara', 'hm'][n % 3]!,
});

/** One user's life as commands would record it: 16 events over user, cart, session and order. */
function userHistory(): Step[][] {
  const userId = randomUUID();
  const sessionId = randomUUID();
  const orderId = randomUUID();
  const items = [randomUUID(), randomUUID(), randomUUID()];
  const progress = { phase: 'x', payment: null, quote: null, deliveryId: null };
  const user: Step[] = (
    [
      {
        type: 'UserRegistered',
        data: { providerSubject: `bench|${userId}`, email: `${userId}@example.com` },
      },
      { type: 'DisplayNameSet', data: { displayName: 'Bench' } },
      {
        type: 'ShippingAddressSaved',
        data: {
          firstName: 'A',
          lastName: 'B',
          street: 'S',
          apt: null,
          country: 'US',
          city: 'C',
          state: null,
          zip: '1',
        },
      },
      {
        type: 'SizesSaved',
        data: { topsSize: 'M', bottomsSize: '32', footwearSize: '42', firstCompletion: true },
      },
      { type: 'WalletProvisioningStarted', data: { attempt: 1 } },
      { type: 'WalletProvisioned', data: { suiAddress: `0x${hex(32)}`, evmAddress: `0x${hex(20)}` } },
    ] as NewEvent[]
  ).map((e) => ['user', userId, e]);
  const cart: Step[] = [
    ...items.map((itemId, n): Step => [
      'cart',
      userId,
      { type: 'ItemAdded', data: { ...product(n), itemId } },
    ]),
    ['cart', userId, { type: 'ItemRemoved', data: { itemId: items[0]!, reason: 'removed' } }],
  ];
  const session: Step[] = [
    ['session', sessionId, { type: 'SessionCreated', data: { userId, title: null } }],
    ...[0, 1].map((n): Step => [
      'session',
      sessionId,
      {
        type: 'ChatMessageAppended',
        data: {
          messageId: `${sessionId}-${n}`,
          role: n ? 'assistant' : 'user',
          parts: [{ type: 'text', text: 'hello' }],
        },
      },
    ]),
  ];
  const order: Step[] = [
    [
      'order',
      orderId,
      {
        type: 'OrderCreated',
        data: {
          userId,
          type: 'checkout',
          cartItemId: items[1]!,
          providerOrderId: `po-${orderId}`,
          phase: 'quote',
          item: product(1),
          payment: null,
          quote: null,
          walletAddress: null,
          serializedTransaction: null,
        },
      },
    ],
    ['order', orderId, { type: 'OrderPaymentConfirmed', data: progress }],
    ['order', orderId, { type: 'OrderDelivered', data: progress }],
  ];
  return [user, cart, session, order];
}

export const eventsPerUser = 16;

/**
 * A cart's long history, as `commits` commands would leave it: items added and removed in
 * turn, so it ends empty (a cart holds ten items at most).
 */
export function cartHistory(userId: string, commits: number): Step[] {
  const steps: Step[] = [];
  for (let n = 0; steps.length < commits; n++) {
    const itemId = randomUUID();
    steps.push([
      'cart',
      userId,
      {
        type: 'ItemAdded',
        data: { ...product(n), itemId },
      },
    ]);
    if (steps.length < commits)
      steps.push(['cart', userId, { type: 'ItemRemoved', data: { itemId, reason: 'removed' } }]);
  }
  return steps;
}

/**
 * The cart and chat-session parts of a history only: nothing in them sets off a reaction of a
 * running gateway (wallet provisioning, order follow-ups), so they can grow a live stream.
 */
export const quietAggregates: readonly AggregateName[] = ['cart', 'session'];

/** Events in one history of just these aggregates. */
export function eventsPerUserOf(aggregates: readonly AggregateName[]): number {
  return userHistory()
    .filter((chain) => aggregates.includes(chain[0]![0]))
    .flat().length;
}

/**
 * Appends `users` histories (of `aggregates` only, when given) through EventStore.append, one command (commit) per event, with
 * `inFlight` appends pipelined: each subject's commits follow one another (each expects the
 * sequence the previous one got), and many subjects are written at once.
 */
export async function appendHistory(
  store: EventStore,
  users: number,
  inFlight: number,
  aggregates?: readonly AggregateName[],
): Promise<number> {
  return appendChains(store, userHistories(users, aggregates), inFlight);
}

/** The commit chains of `users` user histories (of `aggregates` only, when given), one chain per subject. */
export function userHistories(users: number, aggregates?: readonly AggregateName[]): Step[][] {
  const chains: Step[][] = [];
  for (let u = 0; u < users; u++) {
    chains.push(...userHistory().filter((chain) => !aggregates || aggregates.includes(chain[0]![0])));
  }
  return chains;
}

/** Each chain's subject: its aggregate and id. */
export const subjectsOf = (chains: readonly Step[][]): [AggregateName, string][] =>
  chains.map((chain) => [chain[0]![0], chain[0]![1]]);

export async function appendChains(
  store: EventStore,
  chains: readonly Step[][],
  inFlight: number,
): Promise<number> {
  let next = 0;
  let events = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < chains.length) {
        const chain = chains[next++]!;
        let version = 0;
        for (const [aggregate, id, event] of chain) {
          const result = await store.append(aggregate, id, [event], {
            commandId: randomUUID(),
            correlationId: randomUUID(),
            actor: { kind: 'system', id: null },
            expectedSequence: version,
          });
          version = result.sequence;
          events++;
        }
      }
    }),
  );
  return events;
}
