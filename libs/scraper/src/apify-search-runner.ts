import { ApifyApiError, ApifyClient } from 'apify-client';
import { ScraperError } from './scraper-error';

export const DEFAULT_ACTOR_ID = 'apify/e-commerce-scraping-tool';
export const ACTOR_RUN_TIMEOUT_SECS = 300;
/** Time past the run timeout to wait for the platform to report the run's end before giving up on it. */
const FINISH_GRACE_SECS = 60;

export interface ListingScrapeOptions {
  /** Upper bound on products scraped (and paid for) from the listing and the pages after it. */
  maxResults: number;
}

/** Scrapes one marketplace listing (search results) page into raw actor items. */
export interface SearchRunner {
  scrapeListing(listingUrl: string, options: ListingScrapeOptions): Promise<unknown[]>;
}

export interface ApifySearchRunnerOptions {
  /** Absent or empty: every call fails with an `auth` ScraperError without reaching the platform. */
  token: string | undefined;
  /** Without the `/v2` suffix; apify-client appends it. Defaults to the public API. */
  baseUrl?: string;
  actorId?: string;
  runTimeoutSecs?: number;
  /** How long to wait for the run to end; past it the run is aborted and a `timeout` error thrown. */
  waitSecs?: number;
  /** apify-client's HTTP retries on network errors, 429 and 5xx (its default is 8). */
  maxRetries?: number;
  /** Limit of one HTTP request to the platform (apify-client's default is 360). */
  requestTimeoutSecs?: number;
}

const SUCCEEDED = 'SUCCEEDED';
const FAILED_ENDINGS = new Set(['FAILED', 'ABORTED', 'TIMED-OUT']);

function isRequestTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNABORTED' || code === 'ETIMEDOUT';
}

function toScraperError(error: unknown, action: string): ScraperError {
  if (error instanceof ScraperError) return error;
  if (error instanceof ApifyApiError) {
    const kind = error.statusCode === 401 || error.statusCode === 403 ? 'auth' : 'upstream';
    return new ScraperError(
      kind,
      `${action}: ${error.statusCode} ${error.type ?? ''} ${error.message}`.trim(),
      {
        statusCode: error.statusCode,
        cause: error,
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ScraperError(isRequestTimeout(error) ? 'timeout' : 'upstream', `${action}: ${message}`, {
    cause: error,
  });
}

/** The scraping platform's e-commerce actor, run through apify-client. */
export class ApifySearchRunner implements SearchRunner {
  private readonly client: ApifyClient;
  private readonly hasToken: boolean;
  private readonly actorId: string;
  private readonly runTimeoutSecs: number;
  private readonly waitSecs: number;

  constructor(options: ApifySearchRunnerOptions) {
    this.hasToken = Boolean(options.token);
    this.actorId = options.actorId ?? DEFAULT_ACTOR_ID;
    this.runTimeoutSecs = options.runTimeoutSecs ?? ACTOR_RUN_TIMEOUT_SECS;
    this.waitSecs = options.waitSecs ?? this.runTimeoutSecs + FINISH_GRACE_SECS;
    // apify-client rejects unknown option keys and treats explicit undefined as a value, so only set keys go in.
    this.client = new ApifyClient({
      ...(options.token ? { token: options.token } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.requestTimeoutSecs !== undefined ? { timeoutSecs: options.requestTimeoutSecs } : {}),
    });
  }

  async scrapeListing(listingUrl: string, { maxResults }: ListingScrapeOptions): Promise<unknown[]> {
    this.requireToken();
    const input = {
      listingUrls: [{ url: listingUrl }],
      scrapeMode: 'AUTO',
      additionalProperties: true,
      maxProductResults: maxResults,
    };
    let run;
    try {
      // log: null skips the log stream; following it costs three extra requests and holds call() open.
      run = await this.client.actor(this.actorId).call(input, {
        timeout: this.runTimeoutSecs,
        waitSecs: this.waitSecs,
        maxItems: maxResults,
        log: null,
      });
    } catch (error) {
      throw toScraperError(error, `Starting actor ${this.actorId} failed`);
    }
    if (FAILED_ENDINGS.has(run.status)) {
      throw new ScraperError('upstream', `Actor run ${run.id} ended ${run.status}`, {
        runId: run.id,
        runStatus: run.status,
      });
    }
    if (run.status !== SUCCEEDED) {
      await this.abandon(run.id);
      throw new ScraperError('timeout', `Actor run ${run.id} still ${run.status} after ${this.waitSecs} s`, {
        runId: run.id,
        runStatus: run.status,
      });
    }
    try {
      const { items } = await this.client.dataset(run.defaultDatasetId).listItems({ limit: maxResults });
      return items;
    } catch (error) {
      throw toScraperError(error, `Reading dataset ${run.defaultDatasetId} failed`);
    }
  }

  /** Resolves when the token names a user of the platform; the health probe's check. */
  async checkToken(): Promise<void> {
    this.requireToken();
    let user;
    try {
      user = await this.client.user('me').get();
    } catch (error) {
      throw toScraperError(error, 'Token check failed');
    }
    if (!user)
      throw new ScraperError('auth', 'Token check failed: the platform knows no user for this token');
  }

  private requireToken(): void {
    if (!this.hasToken)
      throw new ScraperError('auth', 'No scraping platform token configured (APIFY_API_TOKEN)');
  }

  /** A run nobody waits for any more still costs money until it ends. */
  private async abandon(runId: string): Promise<void> {
    try {
      await this.client.run(runId).abort();
    } catch {
      // The timeout is the error worth reporting; a run that could not be aborted ends at its own timeout.
    }
  }
}
