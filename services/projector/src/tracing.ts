import { traceProcess } from '@shop/tracing';

/** Imported first by main.ts: the instrumentations must be in place before http, pg and ioredis load. */
export const tracing = traceProcess('projector');
