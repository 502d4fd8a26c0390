import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsumerMessages, Msg } from 'nats';
import {
  dropForeignDelivery,
  foreignDeliveriesDropped,
  ownDelivery,
  parseAckSubject,
  subjectMatches,
  takeOwnDeliveriesOnly,
} from '../src/own-deliveries';

const own = { stream: 'SHOP', consumer: 'projector_projection_users', filter: 'shop.user.*.*' };
const v1 = (stream: string, consumer: string, sequence = 7) =>
  `$JS.ACK.${stream}.${consumer}.1.${sequence}.3.1700000000000000000.12`;

describe('parseAckSubject', () => {
  it('reads the nats-server 2.9 form and the form with a domain, an account hash and a random token, as nats.js does', () => {
    expect(parseAckSubject(v1('SHOP', 'c1', 42))).toEqual({
      stream: 'SHOP',
      consumer: 'c1',
      deliveryCount: 1,
      streamSequence: 42,
      deliverySequence: 3,
      pending: 12,
    });
    for (const reply of [
      '$JS.ACK.hub.ACCHASH.SHOP.c1.2.42.3.1700000000000000000.12.r4nd0m',
      '$JS.ACK._.ACCHASH.SHOP.c1.2.42.3.1700000000000000000.12',
    ])
      expect(parseAckSubject(reply)).toMatchObject({
        stream: 'SHOP',
        consumer: 'c1',
        deliveryCount: 2,
        streamSequence: 42,
      });
  });

  it('is null for anything else', () => {
    for (const reply of [
      undefined,
      '',
      '_INBOX_gateway.abc',
      '$JS.FC.SHOP.abc',
      '$JS.ACK.SHOP.c1.1.42.3.1700000000000000000',
      '$JS.ACK.SHOP.c1.1.x.3.1700000000000000000.12',
      '$JS.NAK.SHOP.c1.1.42.3.1700000000000000000.12',
      '$JS.ACK.hub.HASH.SHOP.c1.1.42.3.1700000000000000000.12.r.extra',
    ])
      expect(parseAckSubject(reply)).toBeNull();
  });
});

describe('subjectMatches', () => {
  it('matches tokens, a `*` for one token and a last `>` for one or more', () => {
    expect(subjectMatches('shop.user.0a.u1', 'shop.user.*.*')).toBe(true);
    expect(subjectMatches('shop.user.0a.u1', 'shop.>')).toBe(true);
    expect(subjectMatches('shop.user.0a.u1', 'shop.user.0a.u1')).toBe(true);
    expect(subjectMatches('shop.cart.0a.u1', 'shop.user.*.*')).toBe(false);
    expect(subjectMatches('shop.user.0a', 'shop.user.*.*')).toBe(false);
    expect(subjectMatches('shop.user.0a.u1.x', 'shop.user.*.*')).toBe(false);
    expect(subjectMatches('shop', 'shop.>')).toBe(false);
    expect(subjectMatches('shopx.user.0a.u1', 'shop.>')).toBe(false);
  });
});

describe('ownDelivery', () => {
  it("takes only its own consumer's deliveries of its stream, on a subject within its filter", () => {
    const subject = 'shop.user.0a.u1';
    expect(ownDelivery({ subject, reply: v1('SHOP', own.consumer, 9) }, own)?.streamSequence).toBe(9);
    expect(ownDelivery({ subject, reply: v1('SHOP', 'eph123') }, own)).toBeNull();
    expect(ownDelivery({ subject, reply: v1('OTHER', own.consumer) }, own)).toBeNull();
    expect(ownDelivery({ subject: 'shop.cart.0a.u1', reply: v1('SHOP', own.consumer) }, own)).toBeNull();
    expect(ownDelivery({ subject, reply: '' }, own)).toBeNull();
    expect(ownDelivery({ subject, reply: undefined } as unknown as Msg, own)).toBeNull();
    // Without a filter, any subject of its own consumer.
    const unfiltered = { stream: 'SHOP', consumer: 'eph' };
    expect(ownDelivery({ subject: 'shop.cart.0a.u1', reply: v1('SHOP', 'eph') }, unfiltered)).not.toBeNull();
  });
});

describe('dropForeignDelivery', () => {
  afterEach(() => vi.useRealTimers());

  it('counts every drop and logs a flood once, then its count at most every 10 s', () => {
    vi.useFakeTimers();
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const logger = {
      warn: (obj: object, msg: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    };
    const before = foreignDeliveriesDropped().get('reaction') ?? 0;
    const message = { subject: 'shop.cart.0a.c1', reply: v1('SHOP', 'attacker') };
    for (let i = 0; i < 1000; i++) dropForeignDelivery('reaction', 'flood-test', message, own, logger);
    expect(foreignDeliveriesDropped().get('reaction')).toBe(before + 1000);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.obj).toMatchObject({
      receiver: 'reaction',
      name: 'flood-test',
      consumer: own.consumer,
      dropped: 1,
      last: { subject: 'shop.cart.0a.c1', stream: 'SHOP', consumer: 'attacker' },
    });
    vi.advanceTimersByTime(10_000);
    expect(lines.map((l) => l.obj.dropped)).toEqual([1, 999]);
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(2);
    dropForeignDelivery('reaction', 'flood-test', message, own, logger);
    expect(lines.map((l) => l.obj.dropped)).toEqual([1, 999, 1]);
  });
});

describe('takeOwnDeliveriesOnly', () => {
  const inbox = '_INBOX_projector.X';
  const msg = (subject: string, reply?: string) => ({ subject, reply }) as Msg;

  it("passes the pull's own deliveries and the server's statuses on the inbox to nats.js, and nothing else", () => {
    const seen: Msg[] = [];
    const dropped: Msg[] = [];
    const internals = { inbox, sub: { callback: (_: unknown, m: Msg) => seen.push(m) } };
    takeOwnDeliveriesOnly(internals as unknown as ConsumerMessages, own, (m) => dropped.push(m));
    const mine = msg('shop.user.0a.u1', v1('SHOP', own.consumer));
    const status = msg(inbox);
    const foreign = [
      msg('shop.user.0a.u1', v1('SHOP', 'eph')),
      msg('shop.cart.0a.u1', v1('SHOP', own.consumer)),
      msg('shop.user.0a.u1'),
    ];
    for (const m of [mine, status, ...foreign]) internals.sub.callback(null, m);
    expect(seen).toEqual([mine, status]);
    expect(dropped).toEqual(foreign);
  });

  it('stops the pull and fails when nats.js no longer has what it wraps, rather than run unguarded', () => {
    const stop = vi.fn();
    expect(() =>
      takeOwnDeliveriesOnly({ stop } as unknown as ConsumerMessages, own, () => undefined),
    ).toThrow(/changed/);
    expect(stop).toHaveBeenCalled();
  });
});
