import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ContextSlot } from '@shop/logging';
import {
  ConsistencyKey,
  ConsistencyPositions,
  formatConsistencyToken,
  mergeConsistencyPositions,
  parseConsistencyToken,
} from '@shop/projections';
import type { CookiePolicy } from '../auth/session-cookies';

/** Carries the client's consistency token; see parseConsistencyToken. */
export const CONSISTENCY_COOKIE = 'consistency-token';

/** Long enough for any catch-up the bounded wait can ride out; after it, a token is moot. */
const tokenLifetimeSeconds = 300;
const lateWritersKept = 10_000;

/**
 * Timed-out writes made after their request's headers were sent (a streamed chat turn's tool
 * calls and stored messages): too late for the cookie, so this process remembers them per user.
 */
class LateWrites {
  private readonly byUser = new Map<string, Map<ConsistencyKey, number>>();

  record(userId: string, key: ConsistencyKey, sequence: number): void {
    const positions = this.byUser.get(userId) ?? new Map<ConsistencyKey, number>();
    positions.set(key, Math.max(sequence, positions.get(key) ?? 0));
    this.byUser.delete(userId);
    this.byUser.set(userId, positions);
    if (this.byUser.size > lateWritersKept) this.byUser.delete(this.byUser.keys().next().value!);
  }

  /** What `userId` must wait for; forgotten once handed out, as the wait settles it. */
  take(userId: string): ConsistencyPositions {
    const positions = this.byUser.get(userId) ?? new Map<ConsistencyKey, number>();
    this.byUser.delete(userId);
    return positions;
  }
}

interface Scope {
  /** This request's timed-out writes, while they can still go into its cookie. */
  unreadable: Map<ConsistencyKey, number>;
  /** Set once the headers are on their way. */
  sealed: boolean;
  /** The signed-in user, once the access guard has said who it is. */
  userId: string | null;
  late: LateWrites;
}

const storage = new ContextSlot<Scope>('consistencyScope');
const scopeOf = Symbol('consistencyScope');

const requestScope = (request: FastifyRequest) => (request as { [scopeOf]?: Scope })[scopeOf];

/** Notes a write of the current request whose read-your-writes wait timed out, for its cookie. */
export function recordUnreadableWrite(key: ConsistencyKey, sequence: number): void {
  const scope = storage.get();
  if (!scope || scope.sealed) return;
  scope.unreadable.set(key, Math.max(sequence, scope.unreadable.get(key) ?? 0));
}

/**
 * Notes a commit appended while serving a request whose headers are already sent. Noted at the
 * append, not when its wait times out, because the stream may end (and the client read again)
 * while that wait still runs.
 */
export function recordAppend(key: ConsistencyKey, sequence: number): void {
  const scope = storage.get();
  if (scope?.sealed && scope.userId) scope.late.record(scope.userId, key, sequence);
}

/** The positions a request of `userId` must be able to read before it is served. */
export function positionsToRead(request: FastifyRequest, userId: string): ConsistencyPositions {
  const scope = requestScope(request);
  const token = parseConsistencyToken(request.cookies?.[CONSISTENCY_COOKIE]);
  if (!scope) return token;
  scope.userId = userId;
  return mergeConsistencyPositions(token, scope.late.take(userId));
}

/**
 * Opens a scope per request that collects its timed-out writes, and answers with the client's
 * token advanced to them, so its next request (to any gateway) waits for them before reading.
 * Only a timed-out write sets the cookie: the common answer carries nothing new.
 */
export function installConsistencyScope(fastify: FastifyInstance, policy: CookiePolicy): void {
  const late = new LateWrites();
  fastify.addHook('onRequest', (request, _reply, done) => {
    const scope: Scope = { unreadable: new Map(), sealed: false, userId: null, late };
    (request as { [scopeOf]?: Scope })[scopeOf] = scope;
    storage.run(scope, done);
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const scope = requestScope(request);
    if (scope && scope.unreadable.size > 0) {
      const positions = mergeConsistencyPositions(
        parseConsistencyToken(request.cookies?.[CONSISTENCY_COOKIE]),
        scope.unreadable,
      );
      reply.setCookie(CONSISTENCY_COOKIE, formatConsistencyToken(positions), {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: policy.secure,
        maxAge: tokenLifetimeSeconds,
      });
    }
    if (scope) scope.sealed = true;
    done(null, payload);
  });
}
