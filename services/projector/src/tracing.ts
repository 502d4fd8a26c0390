import { traceProcess } from '@shop/tracing';

/**
 * Imported first by main.ts: the instrumentations must be in place before pg and ioredis load.
 * The projector's only HTTP is the operator's (/metrics, /ready, /health, never traced) and it
 * calls nothing over HTTP, so the http and fetch instrumentations would only cost it; and its
 * only spans, a batch's, have no children but query spans, so without those it runs without
 * async context tracking, which every promise would pay for.
 */
export const tracing = traceProcess('projector', {
  instrumentations: ['pg', 'ioredis'],
  ownSpansNest: false,
});
