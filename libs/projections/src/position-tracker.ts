import { NatsConnection, Subscription } from 'nats';
import { checkpointSubject } from './checkpoint-subject';
import { AnyKysely } from './projection';

/**
 * Knows how far each projection has got, from the projector's announcements, so a command
 * handler can answer once its commit is readable instead of letting the client read stale rows.
 */
export class PositionTracker {
  private readonly positions = new Map<string, number>();
  private readonly waiters = new Set<{
    projections: readonly string[];
    sequence: number;
    resolve: (ok: boolean) => void;
  }>();
  private subscription: Subscription | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly db: AnyKysely,
    private readonly schema: string,
    private readonly subjectPrefix: string,
  ) {}

  async start(): Promise<void> {
    this.subscription = this.nc.subscribe(checkpointSubject(this.subjectPrefix, '*'), {
      callback: (error, message) => {
        // An announcement has no reply subject; a stored message a consumer pushed here has one.
        if (error || message.reply) return;
        const projection = message.subject.slice(message.subject.lastIndexOf('.') + 1);
        this.advance(projection, Number(message.string()));
      },
    });
    // Subscribed first, then read: an announcement can't fall between the two.
    const rows = await this.db
      .withSchema(this.schema)
      .selectFrom('projection_checkpoints')
      .select(['projection', 'position'])
      .execute()
      .catch(() => []);
    for (const row of rows) this.advance(row.projection, Number(row.position));
  }

  stop(): void {
    this.subscription?.unsubscribe();
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters.clear();
  }

  position(projection: string): number {
    return this.positions.get(projection) ?? 0;
  }

  /** True once every named projection has applied `sequence`; false when the wait timed out. */
  waitFor(projections: readonly string[], sequence: number, timeoutMs: number): Promise<boolean> {
    if (this.reached(projections, sequence)) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        projections,
        sequence,
        resolve: (ok: boolean) => {
          clearTimeout(timer);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private advance(projection: string, position: number): void {
    if (!Number.isFinite(position) || position <= (this.positions.get(projection) ?? -1)) return;
    this.positions.set(projection, position);
    for (const waiter of this.waiters) {
      if (this.reached(waiter.projections, waiter.sequence)) {
        this.waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  }

  private reached(projections: readonly string[], sequence: number): boolean {
    return projections.every((p) => (this.positions.get(p) ?? 0) >= sequence);
  }
}
