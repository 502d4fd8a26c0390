import { sql } from 'kysely';
import { RecordedEvent } from '@shop/contracts';
import { EventStore } from '@shop/eventstore';
import { AnyKysely, AnyProjection } from './projection';

export interface ParkedSubject {
  projection: string;
  subject: string;
  sequence: number;
  error: string;
  attempts: number;
  waiting: number;
}

export async function listParked(db: AnyKysely, schema: string): Promise<ParkedSubject[]> {
  const s = db.withSchema(schema);
  const subjects = await s.selectFrom('parked_subjects').selectAll().orderBy('parked_at').execute();
  const counts = await s
    .selectFrom('parked_events')
    .select(['projection', 'subject', sql<number>`count(*)::int`.as('waiting')])
    .groupBy(['projection', 'subject'])
    .execute();
  const waiting = new Map(counts.map((c) => [`${c.projection}|${c.subject}`, Number(c.waiting)]));
  return subjects.map((p) => ({
    projection: p.projection,
    subject: p.subject,
    sequence: Number(p.sequence),
    error: p.error,
    attempts: p.attempts,
    waiting: waiting.get(`${p.projection}|${p.subject}`) ?? 0,
  }));
}

/**
 * Operator command: apply a parked subject's waiting events (all of them for `retry`, all
 * but the poison one for `skip`) and unpark it. It holds the checkpoint row lock, so no live
 * batch interleaves; if the events still fail, nothing changes and the error is returned.
 */
export async function releaseParked(options: {
  store: EventStore;
  db: AnyKysely;
  schema: string;
  projection: AnyProjection;
  subject: string;
  mode: 'retry' | 'skip';
}): Promise<{ applied: number; skipped: number }> {
  const { store, db, schema, projection, subject, mode } = options;
  return db.transaction().execute(async (trx) => {
    const s = trx.withSchema(schema);
    await s
      .selectFrom('projection_checkpoints')
      .select('position')
      .where('projection', '=', projection.name)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const parked = await s
      .selectFrom('parked_subjects')
      .selectAll()
      .where('projection', '=', projection.name)
      .where('subject', '=', subject)
      .executeTakeFirst();
    if (!parked) throw new Error(`${subject} is not parked for ${projection.name}`);
    const waiting = await s
      .selectFrom('parked_events')
      .select('sequence')
      .where('projection', '=', projection.name)
      .where('subject', '=', subject)
      .orderBy('sequence')
      .execute();
    const sequences = waiting
      .map((w) => Number(w.sequence))
      .filter((seq) => mode === 'retry' || seq !== Number(parked.sequence));
    const events: RecordedEvent[] = [];
    for (const sequence of sequences) events.push(...((await store.readCommit(sequence)) ?? []));
    await projection.apply(s, events);
    await s
      .deleteFrom('parked_events')
      .where('projection', '=', projection.name)
      .where('subject', '=', subject)
      .execute();
    await s
      .deleteFrom('parked_subjects')
      .where('projection', '=', projection.name)
      .where('subject', '=', subject)
      .execute();
    return { applied: sequences.length, skipped: waiting.length - sequences.length };
  });
}
