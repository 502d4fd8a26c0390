import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, TestClient, TestStack } from './stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack('devwallet');
});
afterAll(async () => stack?.stop());

const walletOf = (client: TestClient) =>
  eventually(
    () => client.request('GET', '/api/auth/profile'),
    (r) => r.json.walletStatus === 'active' || r.json.walletStatus === 'failed',
  );

describe('dev login and provider wallets', () => {
  it("never binds the provider wallet of the person whose email it is given, before or after that person's first session", async () => {
    for (const personFirst of [true, false]) {
      const email = `${randomUUID().slice(0, 8)}@example.com`;
      const person = new TestClient(stack.url);
      const attacker = new TestClient(stack.url);
      const signIn = async () => {
        const session = await stack.provider.issueToken(email);
        expect((await person.request('POST', '/api/auth/session', { jwt: session.jwt, email })).status).toBe(
          200,
        );
      };
      const devLogin = async () => {
        expect((await attacker.request('POST', '/api/dev/login', { email })).status).toBe(200);
      };
      if (personFirst) await signIn().then(devLogin);
      else await devLogin().then(signIn);
      const [theirs, devs] = await Promise.all([walletOf(person), walletOf(attacker)]);
      expect([theirs.json.walletStatus, devs.json.walletStatus]).toEqual(['active', 'active']);
      expect(devs.json.userId).not.toBe(theirs.json.userId);
      expect(devs.json.evmAddress).not.toBe(theirs.json.evmAddress);
    }
  });
});
