import { describe, expect, it } from 'vitest';
import { checkReadiness } from '../src/readiness';

describe('checkReadiness', () => {
  it('is ready when every check passes, and names each one', async () => {
    const readiness = await checkReadiness([
      { name: 'nats', check: async () => undefined },
      { name: 'postgres', check: async () => undefined },
    ]);
    expect(readiness.ready).toBe(true);
    expect(readiness.checks).toEqual({
      nats: { ok: true, latencyMs: expect.any(Number) },
      postgres: { ok: true, latencyMs: expect.any(Number) },
    });
  });

  it('is not ready when one check fails or hangs, and says which and why', async () => {
    const readiness = await checkReadiness(
      [
        { name: 'nats', check: async () => undefined },
        { name: 'redis', check: () => Promise.reject(new Error('connection refused')) },
        { name: 'postgres', check: () => new Promise<void>(() => undefined) },
      ],
      50,
    );
    expect(readiness.ready).toBe(false);
    expect(readiness.checks.nats?.ok).toBe(true);
    expect(readiness.checks.redis).toMatchObject({ ok: false, error: 'connection refused' });
    expect(readiness.checks.postgres).toMatchObject({ ok: false, error: 'no answer within 50 ms' });
  });
});
