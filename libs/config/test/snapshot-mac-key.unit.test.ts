import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/load-config';
import { sharedEnv } from '../src/shared-config';
import { snapshotMacKey } from '../src/snapshot-mac-key';

const production = {
  DATA_ENCRYPTION_KEY: 'cd'.repeat(32),
  NATS_USER: 'gateway',
  NATS_PASSWORD: 'the gateway password',
};
const keyOf = (env: Record<string, string>) => snapshotMacKey(loadConfig(sharedEnv, env)).toString('hex');

describe('the snapshot MAC key', () => {
  it("is the writing service's own: another service's NATS credential, or another stream, derives another key", () => {
    const gateway = keyOf(production);
    expect(gateway).toMatch(/^[0-9a-f]{64}$/);
    expect(keyOf(production)).toBe(gateway);
    expect(keyOf({ ...production, NATS_USER: 'search', NATS_PASSWORD: 'the search password' })).not.toBe(
      gateway,
    );
    expect(keyOf({ ...production, NATS_PASSWORD: 'a rotated password' })).not.toBe(gateway);
    expect(keyOf({ ...production, EVENT_STREAM: 'OTHER' })).not.toBe(gateway);
    // The data key alone, which every process holds, is not enough to derive it.
    expect(keyOf({ ...production, DATA_ENCRYPTION_KEY: 'ef'.repeat(32) })).not.toBe(gateway);
  });

  it('comes from the credentials file when the service has one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'creds-'));
    const creds = (name: string, seed: string) => {
      writeFileSync(
        join(dir, name),
        `-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`,
      );
      return join(dir, name);
    };
    const env = { DATA_ENCRYPTION_KEY: production.DATA_ENCRYPTION_KEY };
    const one = keyOf({ ...env, NATS_CREDS: creds('gateway.creds', 'SUAGATEWAY') });
    expect(keyOf({ ...env, NATS_CREDS: creds('copy.creds', 'SUAGATEWAY') })).toBe(one);
    expect(keyOf({ ...env, NATS_CREDS: creds('search.creds', 'SUASEARCH') })).not.toBe(one);
  });

  it('is refused in production without a NATS credential, and derived from the data key outside it', () => {
    expect(() =>
      snapshotMacKey({ ...loadConfig(sharedEnv, { NODE_ENV: 'test' }), NODE_ENV: 'production' }),
    ).toThrow(/NATS_PASSWORD .* or NATS_CREDS is required in production/);
    const local = { NODE_ENV: 'development', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/shop' };
    expect(keyOf(local)).toBe(keyOf(local));
    expect(keyOf(local)).not.toBe(
      keyOf({ ...local, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/other' }),
    );
  });
});
