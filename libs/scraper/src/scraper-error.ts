export type ScraperErrorKind = 'auth' | 'upstream' | 'timeout';

/**
 * Why a scrape could not give items. `auth`: no token or one the platform refuses. `upstream`: the platform
 * answered with an error or the actor run ended FAILED, ABORTED or TIMED-OUT (`runStatus` says which).
 * `timeout`: this side stopped waiting, for an HTTP answer or for a run that had not finished.
 */
export class ScraperError extends Error {
  override readonly name = 'ScraperError';

  constructor(
    readonly kind: ScraperErrorKind,
    message: string,
    readonly details: { runId?: string; runStatus?: string; statusCode?: number; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }
}
