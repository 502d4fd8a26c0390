import { randomUUID } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import { eventCatalogue } from '@shop/contracts';
import { createDatabase } from '@shop/db';
import { buildCommit, EventStore, encodeCommit } from '@shop/eventstore';
import { closedLoop, LoadResult } from './load';
import { benchProduct } from './users';

/**
 * The same work as a cart command without our code: publish one commit-sized message with an
 * expected-subject-sequence guard and wait for its ack, then upsert the row it describes into
 * a cart_items-shaped table. No decider, no HTTP, no projector, no read-your-writes wait. The
 * upsert commits as the projections' batches do, without waiting for the WAL flush.
 */
export async function rawFloor(options: {
  store: EventStore;
  databaseUrl: string;
  liveSchema: string;
  scratchSchema: string;
  concurrency: number;
  seconds: number;
}): Promise<LoadResult> {
  const { store, concurrency } = options;
  const url = new URL(options.databaseUrl);
  url.searchParams.set('options', '-c synchronous_commit=off');
  const database = createDatabase(url.toString(), { max: concurrency, applicationName: 'bench-raw-floor' });
  try {
    return await upsertLoop(store, database.db as Kysely<unknown>, options);
  } finally {
    await database.close();
  }
}

async function upsertLoop(
  store: EventStore,
  db: Kysely<unknown>,
  options: { liveSchema: string; scratchSchema: string; concurrency: number; seconds: number },
): Promise<LoadResult> {
  const { concurrency, seconds } = options;
  await store.provision();
  await sql`CREATE SCHEMA ${sql.id(options.scratchSchema)}`.execute(db);
  const table = sql.table(`${options.scratchSchema}.cart_items`);
  await sql`CREATE TABLE ${table} (LIKE ${sql.table(`${options.liveSchema}.cart_items`)} INCLUDING ALL)`.execute(
    db,
  );
  const versions = new Map<string, number>();
  return closedLoop(concurrency, seconds, async (worker) => {
    const userId = randomUUID();
    const itemId = randomUUID();
    const subject = store.subject('cart', `${worker}`);
    const product = benchProduct();
    const commit = buildCommit(
      eventCatalogue,
      userId,
      [{ type: 'ItemAdded', data: { ...product, size: 'Default', color: 'Default', itemId } }],
      { commandId: randomUUID(), correlationId: randomUUID(), actor: { kind: 'user', id: userId } },
    );
    const started = performance.now();
    const ack = await store.js.publish(subject, encodeCommit(commit), {
      msgID: commit.commandId,
      expect: { lastSubjectSequence: versions.get(subject) ?? 0 },
    });
    versions.set(subject, ack.seq);
    await sql`
      INSERT INTO ${table} (item_id, user_id, product_id, product_name, price, image, size, color,
                            product_url, retailer, on_chain_object_id, created_at, deleted_at, version)
      VALUES (${itemId}, ${userId}, ${product.productId}, ${product.productName}, ${product.price},
              ${product.image}, 'Default', 'Default', ${product.productUrl}, ${product.retailer}, NULL,
              now(), NULL, ${ack.seq})
      ON CONFLICT (item_id) DO UPDATE SET deleted_at = excluded.deleted_at, version = excluded.version`.execute(
      db,
    );
    return [performance.now() - started];
  });
}
