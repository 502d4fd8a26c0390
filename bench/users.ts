import { userIdForProviderSubject } from '@shop/domain';
import type { ProviderSandbox } from '@shop/sandbox-provider';
import { ApiClient } from './api-client';
import { CookieJar } from './cookie-jar';

export interface BenchUser {
  email: string;
  /** The gateway's id of the user (and of its cart), from the provider subject its JWT names. */
  userId: string;
  /** The user's browser: session cookies from sign-in, and any consistency token since. */
  jar: CookieJar;
}

const address = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  street: '1 Main Street',
  country: 'US',
  city: 'Austin',
  state: 'TX',
  zip: '78701',
};

/**
 * Sign-in as production does it (a JWT the provider stand-in signs, exchanged for session
 * cookies: there is no dev login in production) plus the three onboarding steps, `concurrency`
 * users at a time.
 */
export async function onboardUsers(
  api: ApiClient,
  provider: ProviderSandbox,
  count: number,
  concurrency: number,
  runId: string,
): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const email = `bench-${runId}-${next++}@example.com`;
        const session = await provider.issueToken(email);
        const jar = new CookieJar();
        await api.expect(200, 'POST', '/api/auth/session', { jar, body: { jwt: session.jwt, email } });
        await api.expect(200, 'POST', '/api/onboarding/step-1', { jar, body: { displayName: 'Bench' } });
        await api.expect(200, 'POST', '/api/onboarding/step-2', { jar, body: address });
        await api.expect(200, 'POST', '/api/onboarding/step-3', {
          jar,
          body: { topsSize: 'M', bottomsSize: '32', footwearSize: '42' },
        });
        const { sub } = JSON.parse(Buffer.from(session.jwt.split('.')[1]!, 'base64url').toString()) as {
          sub: string;
        };
        users.push({ email, userId: userIdForProviderSubject(sub), jar });
      }
    }),
  );
  return users;
}

let products = 0;

/** A product the cart accepts; a new id each time, so no add is refused as a duplicate. */
export function benchProduct() {
  const n = products++;
  return {
    productId: `BENCH${n}`,
    productName: `Bench product ${n}`,
    price: 1000 + (n % 5000),
    image: 'https://example.com/p.jpg',
    productUrl: `https://example.com/p/${n}`,
    retailer: ['amazon', 'zara', 'hm'][n % 3]!,
  };
}
