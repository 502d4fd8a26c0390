import { traceProcess } from '@shop/tracing';

/**
 * Imported first by main.ts: the instrumentations must be in place before pg and ioredis load.
 * The projector's only HTTP is the operator's (/metrics, /ready, /health, never traced) and it
 * calls nothing over HTTP, so the http and fetch instrumentations would only cost it: the http
 * one switches on async context tracking for every scrape, which every promise then pays for.
 */
export const tracing = traceProcess('projector', { instrumentations: ['pg', 'ioredis'] });
