import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import {
  RunStore,
  TERMINAL_STATUSES,
  type FailedStatus,
  type NextRun,
  type RunInput,
  type RunRecord,
} from './runs';

export const DEFAULT_SANDBOX_ACTOR_ID = 'apify/e-commerce-scraping-tool';
/** The platform holds a `waitForFinish` request at most this long. */
const MAX_WAIT_FOR_FINISH_SECS = 60;
/** What the dataset API reports as the limit when none was asked for. */
const UNLIMITED = 999_999_999_999;

export interface ApifySandboxOptions {
  token: string;
  port?: number;
  host?: string;
  /** The actor this sandbox plays, as `username/name`. */
  actorId?: string;
  /** How long a run stays RUNNING before it ends. */
  runDurationMs?: number;
}

export interface ApifySandbox {
  /** Base URL for `new ApifyClient({ baseUrl })`; the API itself is under `/v2`. */
  url: string;
  close(): Promise<void>;
  /** The next run started ends with this status and an empty dataset. */
  failNextRun(status: FailedStatus): void;
  /** The next run started stays RUNNING this long (it ends TIMED-OUT if that exceeds its run timeout). */
  slowNextRun(durationMs: number): void;
  /** Every later HTTP answer is held back this long. */
  setResponseDelay(ms: number): void;
  runsStarted(): number;
  lastRun(): RunRecord | undefined;
}

type ApifyErrorType =
  | 'token-not-valid'
  | 'record-not-found'
  | 'invalid-input'
  | 'invalid-request'
  | 'page-not-found'
  | 'internal-error';

function sendError(reply: FastifyReply, statusCode: number, type: ApifyErrorType, message: string) {
  return reply.code(statusCode).send({ error: { type, message } });
}

function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length);
  return (request.query as { token?: string }).token;
}

function optionalNumber(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

function isRunInput(body: unknown): body is RunInput {
  const listingUrls = (body as { listingUrls?: unknown } | null)?.listingUrls;
  return (
    Array.isArray(listingUrls) &&
    listingUrls.length > 0 &&
    listingUrls.every((entry) => typeof (entry as { url?: unknown } | null)?.url === 'string')
  );
}

async function waitAtMost(done: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

const NEXT_RUN_STATUSES: readonly string[] = TERMINAL_STATUSES.filter((status) => status !== 'SUCCEEDED');

/**
 * A stand-in for the scraping platform's REST API, covering what apify-client 2.x sends for
 * `actor(id).call()` (with or without log streaming), `run(id).waitForFinish()` / `abort()`,
 * `dataset(id).listItems()` and `user('me').get()`. Actor paths are served under both `/v2/acts` (clients
 * up to 2.23.3) and `/v2/actors` (later ones).
 */
export async function startApifySandbox(options: ApifySandboxOptions): Promise<ApifySandbox> {
  const actorId = options.actorId ?? DEFAULT_SANDBOX_ACTOR_ID;
  const actorSafeId = actorId.replace('/', '~');
  const [username = '', actorName = actorId] = actorId.split('/');
  const store = new RunStore(options.runDurationMs ?? 25);
  let responseDelayMs = 0;
  const app = Fastify({ logger: false });

  app.addHook('onRequest', async (request, reply) => {
    if (responseDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, responseDelayMs));
    const token = presentedToken(request);
    if (token !== options.token) {
      return sendError(
        reply,
        401,
        'token-not-valid',
        token ? 'Authentication token is not valid.' : 'Authentication token was not provided.',
      );
    }
  });
  // apify-client posts bodiless requests (abort) with a form content type; only JSON bodies carry meaning.
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const statusCode = error.statusCode ?? 500;
    return sendError(
      reply,
      statusCode,
      statusCode < 500 ? 'invalid-request' : 'internal-error',
      error.message,
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, 'page-not-found', `We have bad news: there is no API endpoint at ${request.url}`),
  );

  const isOurActor = (id: string) => id === actorSafeId || id === store.actorId;
  const runView = (id: string) => {
    const run = store.get(id);
    if (!run) return undefined;
    return {
      id: run.id,
      actId: run.actId,
      userId: store.userId,
      actorTaskId: null,
      status: run.status,
      statusMessage: run.statusMessage,
      startedAt: run.startedAt.toISOString(),
      finishedAt: run.finishedAt?.toISOString() ?? null,
      buildId: 'sandboxbuild00001',
      buildNumber: '0.1.0',
      exitCode: run.status === 'RUNNING' ? null : run.status === 'SUCCEEDED' ? 0 : 1,
      defaultDatasetId: run.datasetId,
      defaultKeyValueStoreId: `${run.id.slice(0, 14)}kvs`,
      defaultRequestQueueId: `${run.id.slice(0, 14)}rqu`,
      containerUrl: `https://${run.id}.runs.sandbox.invalid`,
      options: {
        build: 'latest',
        timeoutSecs: run.timeoutSecs ?? 3600,
        memoryMbytes: 4096,
        diskMbytes: 8192,
      },
      stats: {},
      meta: { origin: 'API' },
    };
  };

  const actorRoutes = ['/v2/acts/:actorId', '/v2/actors/:actorId'];
  for (const path of actorRoutes) {
    app.get<{ Params: { actorId: string } }>(path, async (request, reply) => {
      if (!isOurActor(request.params.actorId))
        return sendError(reply, 404, 'record-not-found', 'Actor was not found');
      return { data: { id: store.actorId, userId: store.userId, name: actorName, username, isPublic: true } };
    });

    app.post<{ Params: { actorId: string }; Querystring: Record<string, string | undefined> }>(
      `${path}/runs`,
      async (request, reply) => {
        if (!isOurActor(request.params.actorId))
          return sendError(reply, 404, 'record-not-found', 'Actor was not found');
        if (!isRunInput(request.body)) {
          return sendError(
            reply,
            400,
            'invalid-input',
            'Input is not valid: field listingUrls must be a non-empty array of {url}',
          );
        }
        const run = store.start(
          request.body,
          optionalNumber(request.query.timeout),
          optionalNumber(request.query.maxItems),
        );
        const waitSecs = Math.min(optionalNumber(request.query.waitForFinish) ?? 0, MAX_WAIT_FOR_FINISH_SECS);
        if (waitSecs > 0) await waitAtMost(run.finished, waitSecs * 1000);
        return reply.code(201).send({ data: runView(run.id) });
      },
    );
  }

  app.get<{ Params: { runId: string }; Querystring: { waitForFinish?: string } }>(
    '/v2/actor-runs/:runId',
    async (request, reply) => {
      const run = store.get(request.params.runId);
      if (!run) return sendError(reply, 404, 'record-not-found', 'Actor run was not found');
      const waitSecs = Math.min(optionalNumber(request.query.waitForFinish) ?? 0, MAX_WAIT_FOR_FINISH_SECS);
      if (waitSecs > 0) await waitAtMost(run.finished, waitSecs * 1000);
      return { data: runView(run.id) };
    },
  );

  app.post<{ Params: { runId: string } }>('/v2/actor-runs/:runId/abort', async (request, reply) => {
    const run = store.get(request.params.runId);
    if (!run) return sendError(reply, 404, 'record-not-found', 'Actor run was not found');
    store.abort(run);
    return { data: runView(run.id) };
  });

  // A streamed log stays open until the run ends: apify-client's call() waits for the stream to close.
  app.get<{ Params: { runId: string }; Querystring: { stream?: string } }>(
    '/v2/actor-runs/:runId/log',
    async (request, reply) => {
      const run = store.get(request.params.runId);
      if (!run) return sendError(reply, 404, 'record-not-found', 'Actor run was not found');
      if (request.query.stream === '1' || request.query.stream === 'true') await run.finished;
      const lines = [`Starting the crawler for ${run.input.listingUrls.map(({ url }) => url).join(', ')}`];
      if (run.status !== 'RUNNING') lines.push(run.statusMessage);
      return reply.type('text/plain; charset=utf-8').send(`${lines.join('\n')}\n`);
    },
  );

  app.get<{ Params: { datasetId: string }; Querystring: Record<string, string | undefined> }>(
    '/v2/datasets/:datasetId/items',
    async (request, reply) => {
      const items = store.dataset(request.params.datasetId);
      if (!items) return sendError(reply, 404, 'record-not-found', 'Dataset was not found');
      const desc = request.query.desc === '1' || request.query.desc === 'true';
      const offset = optionalNumber(request.query.offset) ?? 0;
      const limit = optionalNumber(request.query.limit) || UNLIMITED;
      const ordered = desc ? [...items].reverse() : items;
      const page = ordered.slice(offset, offset + limit);
      return reply
        .headers({
          'x-apify-pagination-total': String(items.length),
          'x-apify-pagination-offset': String(offset),
          'x-apify-pagination-limit': String(limit),
          'x-apify-pagination-count': String(page.length),
          'x-apify-pagination-desc': String(desc),
        })
        .send(page);
    },
  );

  app.get('/v2/users/me', async () => ({
    data: { id: store.userId, username: 'sandbox-user', profile: {}, plan: { id: 'SANDBOX' } },
  }));

  // Lets a developer running the sandbox alone (or another process's tests) script the next run.
  app.post<{ Body: NextRun | undefined }>('/_sandbox/next-run', async (request, reply) => {
    const { status, durationMs } = request.body ?? {};
    if (status !== undefined && !NEXT_RUN_STATUSES.includes(status)) {
      return sendError(reply, 400, 'invalid-input', `status must be one of ${NEXT_RUN_STATUSES.join(', ')}`);
    }
    if (durationMs !== undefined && !(Number.isFinite(durationMs) && durationMs >= 0)) {
      return sendError(reply, 400, 'invalid-input', 'durationMs must be a non-negative number');
    }
    store.setNextRun({ ...(status ? { status } : {}), ...(durationMs !== undefined ? { durationMs } : {}) });
    return reply.code(204).send();
  });

  const address = await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  return {
    url: address,
    close: async () => {
      store.stop();
      await app.close();
    },
    failNextRun: (status) => store.setNextRun({ status }),
    slowNextRun: (durationMs) => store.setNextRun({ durationMs }),
    setResponseDelay: (ms) => {
      responseDelayMs = ms;
    },
    runsStarted: () => store.runsStarted(),
    lastRun: () => store.lastRun(),
  };
}
