import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { DatabaseHandle } from '@shop/db';
import type { EventStore } from '@shop/eventstore';
import { Client, figures, HungRequestError, isEnvelope, product, readStream, TestResponse } from './harness';

export interface Acknowledged {
  kind: 'session' | 'cart-add' | 'cart-remove';
  userId: string;
  id: string;
  status: number;
}

export interface Answer {
  at: number;
  ms: number;
  kind: string;
  status: number;
  code?: string;
}

export interface LoadUser {
  client: Client;
  userId: string;
}

/**
 * A steady stream of commands (sessions, cart adds and removals) and reads, one worker per user,
 * recording every acknowledged (2xx) command so that, after a fault, each one can be looked up
 * in the stream and the read model. A command refused with 503 is retried as a client would:
 * a cart add under the same Idempotency-Key.
 */
export class CommandLoad {
  readonly acknowledged: Acknowledged[] = [];
  readonly answers: Answer[] = [];
  /** Answers outside the contract: a 500, a non-envelope error, a hang. */
  readonly unexpected: string[] = [];
  private stopping = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly users: LoadUser[],
    private readonly options: {
      /** Statuses a command may answer besides 2xx while a dependency is down. */
      allowedCommandStatuses?: number[];
      allowedReadStatuses?: number[];
      pauseMs?: number;
    } = {},
  ) {}

  start(): void {
    this.running = Promise.all(this.users.map((user) => this.worker(user))).then(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Acknowledged commands answered after `since` (ms since epoch). */
  acknowledgedSince(since: number): number {
    return this.answers.filter((a) => a.at >= since && a.status < 300 && a.kind !== 'read').length;
  }

  private async worker(user: LoadUser): Promise<void> {
    const commandStatuses = new Set(this.options.allowedCommandStatuses ?? [503]);
    const readStatuses = new Set(this.options.allowedReadStatuses ?? []);
    const active: string[] = [];
    let pendingAdd: { key: string; body: ReturnType<typeof product> } | null = null;
    let pendingRemoval: string | null = null;
    for (let i = 0; !this.stopping && i < 100_000; i++) {
      const step = i % 4;
      try {
        if (step === 0) {
          const res = await this.call('session', user.client, 'POST', '/api/sessions', { title: `t${i}` });
          if (res.status === 201) this.ack('session', user.userId, res.json.id as string, res.status);
          else this.check(res, commandStatuses, 'POST /api/sessions');
        } else if (step === 1) {
          pendingAdd ??= { key: randomUUID(), body: product(`${user.userId.slice(0, 8)}-${i}`, 100 + i) };
          const res = await this.call('cart-add', user.client, 'POST', '/api/cart', pendingAdd.body, {
            'idempotency-key': pendingAdd.key,
          });
          if (res.status === 201) {
            this.ack('cart-add', user.userId, res.json.id as string, res.status);
            if (!active.includes(res.json.id as string)) active.push(res.json.id as string);
            pendingAdd = null;
          } else this.check(res, commandStatuses, 'POST /api/cart');
        } else if (step === 2) {
          if (!pendingRemoval && active.length > 5) pendingRemoval = active.shift()!;
          if (pendingRemoval) {
            const res = await this.call('cart-remove', user.client, 'DELETE', `/api/cart/${pendingRemoval}`);
            if (res.status === 204) {
              this.ack('cart-remove', user.userId, pendingRemoval, res.status);
              pendingRemoval = null;
            } else if (res.status === 404 && res.json?.code === 'CartItemNotFoundError') {
              // A retry of a removal whose first attempt was stored although it was answered 503.
              pendingRemoval = null;
            } else this.check(res, commandStatuses, 'DELETE /api/cart/:id');
          }
        } else {
          const res = await this.call('read', user.client, 'GET', '/api/cart');
          if (res.status !== 200) this.check(res, readStatuses, 'GET /api/cart');
        }
      } catch (error) {
        this.unexpected.push(error instanceof HungRequestError ? error.message : String(error));
        await sleep(200);
      }
      if (this.options.pauseMs) await sleep(this.options.pauseMs);
    }
  }

  private async call(
    kind: string,
    client: Client,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<TestResponse> {
    const started = Date.now();
    const res = await client.request(method, path, body, headers);
    const ms = Date.now() - started;
    this.answers.push({ at: Date.now(), ms, kind, status: res.status, code: res.json?.code as string });
    if (res.status >= 500 || res.status === 0) {
      // Back off a little while a dependency is down, as a client would.
      await sleep(100);
    }
    return res;
  }

  private ack(kind: Acknowledged['kind'], userId: string, id: string, status: number): void {
    this.acknowledged.push({ kind, userId, id, status });
  }

  private check(res: TestResponse, allowed: Set<number>, what: string): void {
    if (!isEnvelope(res.json)) {
      this.unexpected.push(`${what}: ${res.status} without the envelope: ${res.text.slice(0, 200)}`);
    } else if (!allowed.has(res.status)) {
      this.unexpected.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  }
}

/**
 * Every acknowledged command looked up in the stream and in the read model; returns the ones
 * missing from either (each one an acknowledged event lost).
 */
export async function missingAcknowledged(
  acknowledged: readonly Acknowledged[],
  store: EventStore,
  database: DatabaseHandle,
  schema: string,
): Promise<{ missingInStream: Acknowledged[]; missingInReadModel: Acknowledged[] }> {
  const commits = await readStream(store);
  const created = new Set<string>();
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const commit of commits) {
    for (const event of commit.events) {
      if (event.type === 'SessionCreated') created.add(event.aggregateId);
      if (event.type === 'ItemAdded') added.add(event.data.itemId as string);
      if (event.type === 'ItemRemoved') removed.add(event.data.itemId as string);
    }
  }
  const { rows: sessions } = await sql<{ session_id: string }>`
    SELECT session_id FROM ${sql.table(`${schema}.chat_sessions`)}`.execute(database.db);
  const { rows: items } = await sql<{ item_id: string; deleted: boolean }>`
    SELECT item_id, deleted_at IS NOT NULL AS deleted FROM ${sql.table(`${schema}.cart_items`)}`.execute(
    database.db,
  );
  const sessionRows = new Set(sessions.map((r) => r.session_id));
  const itemRows = new Map(items.map((r) => [r.item_id, r.deleted]));
  const missingInStream = acknowledged.filter((a) =>
    a.kind === 'session' ? !created.has(a.id) : a.kind === 'cart-add' ? !added.has(a.id) : !removed.has(a.id),
  );
  const missingInReadModel = acknowledged.filter((a) =>
    a.kind === 'session'
      ? !sessionRows.has(a.id)
      : a.kind === 'cart-add'
        ? !itemRows.has(a.id)
        : itemRows.get(a.id) !== true,
  );
  figures.eventsLost += new Set([...missingInStream, ...missingInReadModel]).size;
  return { missingInStream, missingInReadModel };
}
