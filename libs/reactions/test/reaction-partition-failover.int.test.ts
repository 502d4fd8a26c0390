import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf, systemActor } from '@shop/contracts';
import {
  openTestEventStore,
  ServiceProcess,
  startServiceProcess,
  testEnvironment,
  TestEventStore,
} from '@shop/testing';

/**
 * A reaction across two processes, as across two gateways: four partitions, events flowing,
 * the second process up takes its share from the first, then the first is killed (SIGKILL: its
 * NATS and Postgres connections simply drop) while it holds partitions and has messages in hand.
 * The other takes those partitions over; every event ends up with one outcome, each cart's
 * outcomes in stream order.
 */

const env = testEnvironment('reactpartproc');
const partitions = 4;
/** Six carts in each partition. */
const carts = (() => {
  const chosen: string[] = [];
  const perPartition = new Map<number, number>();
  while (chosen.length < partitions * 6) {
    const id = randomUUID();
    const partition = partitionOf(id, partitions);
    if ((perPartition.get(partition) ?? 0) === 6) continue;
    perPartition.set(partition, (perPartition.get(partition) ?? 0) + 1);
    chosen.push(id);
  }
  return chosen;
})();
let t: TestEventStore;
let db: pg.Client;

beforeAll(async () => {
  t = await openTestEventStore(env);
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
  await db.query(`CREATE SCHEMA IF NOT EXISTS ${env.schema}`);
  await db.query(
    `CREATE TABLE ${env.schema}.reaction_outcomes (
       event_id uuid PRIMARY KEY,
       cart_id text NOT NULL,
       sequence bigint NOT NULL,
       handled_by int NOT NULL,
       handled_order bigserial NOT NULL,
       handlings int NOT NULL DEFAULT 1)`,
  );
});
afterAll(async () => {
  await db.query(`DROP SCHEMA IF EXISTS ${env.schema} CASCADE`);
  await db.query(`DROP SCHEMA IF EXISTS ${env.env.SECRETS_SCHEMA} CASCADE`);
  await db.end();
  await t.close();
});

const startProcess = () =>
  startServiceProcess('libs/reactions/test/outcome-recording-process.ts', {
    ...env.env,
    STREAM_PARTITIONS: String(partitions),
  });

/** How many of the reaction's partition locks are held, by any process. */
async function heldPartitions(): Promise<number> {
  const keys = Array.from(
    { length: partitions },
    (_, p) => `reaction:${env.stream}:outcomes:p${p}of${partitions}`,
  );
  const { rows } = await db.query<{ held: string }>(
    `SELECT count(*) AS held FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND ((classid::bigint << 32) | objid::bigint) IN (SELECT hashtext(k)::bigint FROM unnest($1::text[]) k)`,
    [keys],
  );
  return Number(rows[0]!.held);
}

interface Outcome {
  event_id: string;
  cart_id: string;
  sequence: string;
  handled_by: number;
  handlings: number;
}

async function outcomes(): Promise<Outcome[]> {
  const { rows } = await db.query<Outcome>(
    `SELECT event_id, cart_id, sequence, handled_by, handlings FROM ${env.schema}.reaction_outcomes ORDER BY handled_order`,
  );
  return rows;
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await sleep(100);
  }
}

/** Appends an ItemRemoved to a cart after another until stopped; each cart's sequences in order. */
function writeContinuously(): { stop(): Promise<Map<string, number[]>> } {
  const written = new Map<string, number[]>(carts.map((id) => [id, []]));
  let stopping = false;
  const writing = (async () => {
    for (let i = 0; !stopping; i++) {
      const cartId = carts[i % carts.length]!;
      const own = written.get(cartId)!;
      const { sequence } = await t.store.append(
        'cart',
        cartId,
        [{ type: 'ItemRemoved', data: { itemId: randomUUID(), reason: 'removed' } }],
        {
          expectedSequence: own.at(-1) ?? 0,
          commandId: randomUUID(),
          correlationId: randomUUID(),
          causationId: null,
          actor: systemActor,
        },
      );
      own.push(sequence);
      await sleep(2);
    }
  })();
  return {
    async stop() {
      stopping = true;
      await writing;
      return written;
    },
  };
}

/** Whether the latest 100 events were handled two partitions by each process, none by both. */
async function splitTwoAndTwo(pids: [number, number]): Promise<boolean> {
  const [a, b] = await Promise.all(pids.map(recentPartitionsOf));
  return a!.size === 2 && b!.size === 2 && [...a!].every((p) => !b!.has(p));
}

/** The partitions of the latest 100 events the process `pid` handled. */
async function recentPartitionsOf(pid: number): Promise<Set<number>> {
  const recent = (await outcomes()).slice(-100);
  return new Set(recent.filter((o) => o.handled_by === pid).map((o) => partitionOf(o.cart_id, partitions)));
}

describe('partitioned reaction failover across processes', () => {
  it('hands the partitions of a process killed under load to the other: every event handled once, in order per cart', async () => {
    const processes: ServiceProcess[] = [];
    try {
      const first = startProcess();
      processes.push(first);
      await first.waitForOutput(/reacting/);
      await until(
        async () => (await heldPartitions()) === partitions,
        'the first process holds every partition',
      );
      const writer = writeContinuously();
      await until(async () => (await outcomes()).length >= 100, 'the first process handling events');
      const second = startProcess();
      processes.push(second);
      await second.waitForOutput(/reacting/);
      const [killedPid, survivorPid] = [first.child.pid!, second.child.pid!];
      await until(() => splitTwoAndTwo([killedPid, survivorPid]), 'each process holding two partitions');
      first.child.kill('SIGUSR2');
      await first.waitForOutput(/holding [0-9a-f-]{36}/);
      await first.kill();
      const killedAt = (await outcomes()).length;
      await sleep(2000);
      const written = await writer.stop();

      const total = [...written.values()].reduce((n, own) => n + own.length, 0);
      await until(async () => (await outcomes()).length === total, 'every event handled', 60_000);
      const handled = await outcomes();

      // Handled once: one outcome per event (the key), and nothing beyond what was written.
      expect(new Set(handled.map((o) => o.event_id)).size).toBe(total);
      // The first handling of each cart's events followed its stream order.
      const firstOrder = new Map<string, number[]>(carts.map((id) => [id, []]));
      for (const o of handled) firstOrder.get(o.cart_id)!.push(Number(o.sequence));
      expect(firstOrder).toEqual(written);
      // The survivor went on in every partition, the killed one's two included.
      const bySurvivor = handled.filter((o) => o.handled_by === survivorPid);
      expect(new Set(bySurvivor.map((o) => partitionOf(o.cart_id, partitions)))).toEqual(
        new Set(Array.from({ length: partitions }, (_, p) => p)),
      );
      expect(handled.slice(killedAt).every((o) => o.handled_by === survivorPid)).toBe(true);
      expect(await heldPartitions()).toBe(partitions);
      // The killed process held a message whose outcome it had recorded: handled again, no new outcome.
      const repeats = handled.reduce((n, o) => n + o.handlings - 1, 0);
      expect(repeats).toBeGreaterThan(0);
      process.stdout.write(`${total} events, ${repeats} handled again after the takeover (no new outcome)\n`);
    } finally {
      for (const p of processes) await p.stop();
    }
  }, 120_000);
});
