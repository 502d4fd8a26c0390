import {
  ACTOR_RUN_TIMEOUT_SECS,
  ApifySearchRunner,
  buildMarketplaceSearchUrl,
  DEFAULT_ACTOR_ID,
  ScraperError,
  searchProducts,
  searchQuerySchema,
  type ApifySearchRunnerOptions,
} from '@shop/scraper';
import { ApifyClient } from 'apify-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateListing, MALFORMING_QUIRKS } from '../src/listing-items';
import { startApifySandbox, type ApifySandbox } from '../src/server';

const token = 'runner-test-token';
const listingUrl = buildMarketplaceSearchUrl({ q: 'wool socks', maxPrice: 40 });
let sandbox: ApifySandbox;

beforeAll(async () => {
  sandbox = await startApifySandbox({ port: 0, token });
});
afterEach(() => sandbox.setResponseDelay(0));
afterAll(async () => {
  await sandbox.close();
});

const runner = (options: Partial<ApifySearchRunnerOptions> = {}) =>
  new ApifySearchRunner({ token, baseUrl: sandbox.url, maxRetries: 0, ...options });

async function scrapeError(promise: Promise<unknown>): Promise<ScraperError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ScraperError);
  return error as ScraperError;
}

describe('ApifySearchRunner against the sandbox', () => {
  it('runs the actor with the spec input and returns the dataset items', async () => {
    const items = await runner().scrapeListing(listingUrl, { maxResults: 100 });
    expect(items).toEqual(generateListing(listingUrl).items);
    expect(sandbox.lastRun()).toEqual({
      id: expect.any(String),
      input: {
        listingUrls: [{ url: listingUrl }],
        scrapeMode: 'AUTO',
        additionalProperties: true,
        maxProductResults: 100,
      },
      timeoutSecs: ACTOR_RUN_TIMEOUT_SECS,
      maxItems: 100,
      status: 'SUCCEEDED',
    });
  });

  it('caps the items at maxResults', async () => {
    const items = await runner().scrapeListing(listingUrl, { maxResults: 4 });
    expect(items).toEqual(generateListing(listingUrl).items.slice(0, 4));
  });

  it.each(['FAILED', 'ABORTED', 'TIMED-OUT'] as const)(
    'turns a run ending %s into an upstream error',
    async (status) => {
      sandbox.failNextRun(status);
      const error = await scrapeError(runner().scrapeListing(listingUrl, { maxResults: 10 }));
      expect(error).toMatchObject({
        kind: 'upstream',
        details: { runStatus: status, runId: expect.any(String) },
      });
    },
  );

  it('sees a run outlive its run timeout as TIMED-OUT', async () => {
    sandbox.slowNextRun(1500);
    const error = await scrapeError(
      runner({ runTimeoutSecs: 1 }).scrapeListing(listingUrl, { maxResults: 10 }),
    );
    expect(error).toMatchObject({ kind: 'upstream', details: { runStatus: 'TIMED-OUT' } });
  });

  it('gives up on a run still going after waitSecs, aborts it and reports a timeout', async () => {
    sandbox.slowNextRun(10_000);
    const error = await scrapeError(runner({ waitSecs: 1 }).scrapeListing(listingUrl, { maxResults: 10 }));
    expect(error).toMatchObject({ kind: 'timeout', details: { runStatus: 'RUNNING' } });
    expect(sandbox.lastRun()?.status).toBe('ABORTED');
  });

  it('reports an HTTP answer slower than the request timeout as a timeout', async () => {
    sandbox.setResponseDelay(1500);
    const error = await scrapeError(runner({ requestTimeoutSecs: 0.5 }).checkToken());
    expect(error.kind).toBe('timeout');
  });

  it('turns a refused token into an auth error, for runs and for the token check', async () => {
    const started = sandbox.runsStarted();
    const wrong = runner({ token: 'not-the-token' });
    const error = await scrapeError(wrong.scrapeListing(listingUrl, { maxResults: 10 }));
    expect(error).toMatchObject({ kind: 'auth', details: { statusCode: 401 } });
    expect((await scrapeError(wrong.checkToken())).kind).toBe('auth');
    expect(sandbox.runsStarted()).toBe(started);
  });

  it('starts no run without a token', async () => {
    const started = sandbox.runsStarted();
    expect(
      (await scrapeError(runner({ token: undefined }).scrapeListing(listingUrl, { maxResults: 10 }))).kind,
    ).toBe('auth');
    expect(sandbox.runsStarted()).toBe(started);
  });

  it('reports an unknown actor as upstream', async () => {
    const error = await scrapeError(
      runner({ actorId: 'someone/else' }).scrapeListing(listingUrl, { maxResults: 10 }),
    );
    expect(error).toMatchObject({ kind: 'upstream', details: { statusCode: 404 } });
  });

  it('reports an unreachable platform as upstream', async () => {
    const error = await scrapeError(runner({ baseUrl: 'http://127.0.0.1:9' }).checkToken());
    expect(error.kind).toBe('upstream');
  });

  it('passes the token check with the right token', async () => {
    await expect(runner().checkToken()).resolves.toBeUndefined();
  });

  it('feeds searchProducts end to end, malformed items dropped', async () => {
    const query = searchQuerySchema.parse({ q: 'wool socks', maxPrice: '40', limit: '50' });
    const result = await searchProducts(query, { runner: runner() });
    const { items, quirks } = generateListing(listingUrl);
    const usable = items.length - quirks.filter(({ quirk }) => MALFORMING_QUIRKS.has(quirk)).length;
    expect(result).toMatchObject({ total: usable, page: 1, limit: 50, totalPage: 1 });
    expect(result.products).toHaveLength(usable);
    for (const product of result.products) expect(product.price).toBeLessThanOrEqual(40);
  });
});

describe('apify-client against the sandbox with log streaming on', () => {
  it('resolves call() once the streamed log closes', async () => {
    const client = new ApifyClient({ token, baseUrl: sandbox.url, maxRetries: 0 });
    const run = await client
      .actor(DEFAULT_ACTOR_ID)
      .call({ listingUrls: [{ url: listingUrl }] }, { log: 'default' });
    expect(run.status).toBe('SUCCEEDED');
    const { items, total } = await client.dataset(run.defaultDatasetId).listItems();
    expect(total).toBe(items.length);
  });
});
