import { traceProcess } from '@shop/tracing';

/**
 * Imported first by main.ts: the instrumentations must be in place before pg and ioredis load.
 * Everything the gateway calls (the provider, the chain, the model, the search service over the
 * bus) goes through fetch or NATS, none through node:http's client, whose instrumentation would
 * only cost it.
 */
export const tracing = traceProcess('gateway', { instrumentations: ['fastify', 'undici', 'pg', 'ioredis'] });
