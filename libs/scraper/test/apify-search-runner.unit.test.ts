import { describe, expect, it } from 'vitest';
import { ApifySearchRunner } from '../src/apify-search-runner';
import { ScraperError } from '../src/scraper-error';

// Nothing listens on the discard port: a request that did go out would fail as a connection error, not auth.
const unreachable = 'http://127.0.0.1:9';

describe('ApifySearchRunner without a token', () => {
  it.each([undefined, ''])(
    'fails with an auth error before calling the platform (token %j)',
    async (token) => {
      const runner = new ApifySearchRunner({ token, baseUrl: unreachable, maxRetries: 0 });
      await expect(
        runner.scrapeListing('https://www.amazon.com/s?k=socks', { maxResults: 10 }),
      ).rejects.toMatchObject({
        name: 'ScraperError',
        kind: 'auth',
      });
      await expect(runner.checkToken()).rejects.toMatchObject({ kind: 'auth' });
      await expect(runner.checkToken()).rejects.toBeInstanceOf(ScraperError);
    },
  );
});
