import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { OFFLINE_MODEL_ID, planOfflineAnswer } from '@shop/assistant';
import { parseChatRequest } from './chat-request';
import { completionChunksOf, completionOf } from './completion';
import { FaultInjector, modelFaultModes, type ModelFault, type ModelFaultOptions } from './faults';
import { invalidRequest, OpenAIError } from './openai-error';
import { promptOf } from './prompt-of';

export const DEFAULT_MODEL_SANDBOX_KEY = 'sk-sandbox-local';

export interface ModelSandboxOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** The only bearer key /v1 accepts. */
  apiKey?: string;
  /** Model ids served; any other is `model_not_found`. */
  models?: string[];
  logLevel?: string;
}

export interface RecordedCompletion {
  model: string;
  stream: boolean;
  /** The fault this request got, if any. */
  fault?: ModelFault['mode'];
  /** The function names the request offered, as sent (before any check). */
  tools: string[];
  at: string;
}

function offeredTools(body: unknown): string[] {
  const tools = (body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((entry: { function?: { name?: unknown } } | null) =>
    typeof entry?.function?.name === 'string' ? [entry.function.name] : [],
  );
}

export interface ModelSandbox {
  /** The server's root; OpenAI clients take `${url}/v1` as their base URL. */
  url: string;
  baseURL: string;
  apiKey: string;
  models: readonly string[];
  failNext(fault: ModelFaultOptions): void;
  clearFaults(): void;
  /** Every POST /v1/chat/completions that passed authentication, oldest first. */
  requests(): RecordedCompletion[];
  close(): Promise<void>;
}

const faultBody = z.object({
  mode: z.enum(modelFaultModes),
  times: z.number().int().positive().optional(),
  status: z.number().int().min(400).max(599).optional(),
  retryAfterSeconds: z.number().min(0).optional(),
  afterChunks: z.number().int().optional(),
  delayMs: z.number().int().min(0).optional(),
  stream: z.boolean().optional(),
  skip: z.number().int().min(0).optional(),
});

const sse = (value: unknown) => `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`;

/**
 * A stand-in for an OpenAI-compatible Chat Completions server, answering with the project's offline
 * planner: the same tool calls with the same arguments as the in-process offline model, on the wire a
 * hosted model uses. It refuses what a strict server refuses, and /sandbox/faults makes it fail the way
 * hosted models do.
 */
export async function startModelSandbox(options: ModelSandboxOptions = {}): Promise<ModelSandbox> {
  const apiKey = options.apiKey ?? DEFAULT_MODEL_SANDBOX_KEY;
  const models = options.models ?? [OFFLINE_MODEL_ID];
  const faults = new FaultInjector();
  const recorded: RecordedCompletion[] = [];
  const created = Math.floor(Date.now() / 1000);
  // Hung requests must not hold close() open.
  const app = Fastify({ logger: { level: options.logLevel ?? 'silent' }, forceCloseConnections: true });

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/v1/')) return;
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      const error = new OpenAIError(
        401,
        'Incorrect API key provided. You can find your API key in your sandbox configuration.',
        'invalid_request_error',
        null,
        'invalid_api_key',
      );
      return reply.code(401).send(error.toBody());
    }
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    if (error instanceof OpenAIError) return reply.code(error.statusCode).send(error.toBody());
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error(error);
    const type = status < 500 ? 'invalid_request_error' : 'server_error';
    return reply.code(status).send(new OpenAIError(status, error.message, type).toBody());
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        new OpenAIError(
          404,
          `Invalid URL (${request.method} ${request.url})`,
          'invalid_request_error',
        ).toBody(),
      ),
  );

  const modelView = (id: string) => ({ id, object: 'model', created, owned_by: 'sandbox' });
  app.get('/v1/models', async () => ({ object: 'list', data: models.map(modelView) }));
  app.get<{ Params: { id: string } }>('/v1/models/:id', async (request) => {
    if (!models.includes(request.params.id)) throw modelNotFound(request.params.id);
    return modelView(request.params.id);
  });

  app.post('/v1/chat/completions', async (request, reply) => {
    const stream = (request.body as { stream?: unknown } | null)?.stream === true;
    const fault = faults.take(stream);
    const model = String((request.body as { model?: unknown } | null)?.model ?? '');
    recorded.push({
      model,
      stream,
      ...(fault && { fault: fault.mode }),
      tools: offeredTools(request.body),
      at: new Date().toISOString(),
    });
    if (fault?.mode === 'hang') return hang(request, reply);
    if (fault?.mode === 'rate-limit') {
      const seconds = fault.retryAfterSeconds ?? 1;
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send(
          new OpenAIError(
            429,
            `Rate limit reached for ${model}. Please try again in ${seconds}s.`,
            'requests',
            null,
            'rate_limit_exceeded',
          ).toBody(),
        );
    }
    if (fault?.mode === 'error') {
      const status = fault.status ?? 500;
      const type = status < 500 ? 'invalid_request_error' : 'server_error';
      return reply
        .code(status)
        .send(
          new OpenAIError(status, 'The server had an error while processing your request.', type).toBody(),
        );
    }

    const body = parseChatRequest(request.body);
    if (!models.includes(body.model)) throw modelNotFound(body.model);
    const offered = body.tool_choice === 'none' ? [] : (body.tools ?? []).map((tool) => tool.function.name);
    const answer = planOfflineAnswer(promptOf(body.messages), offered);
    const meta = {
      id: `chatcmpl-${answer.ids.text.slice('txt_'.length)}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model,
    };

    if (!body.stream) {
      if (fault?.mode === 'slow') await sleep(fault.delayMs ?? 0);
      if (fault?.mode === 'cut') return cut(reply);
      return completionOf(answer, meta);
    }
    const chunks = completionChunksOf(answer, meta, body.stream_options?.include_usage === true);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const afterChunks =
      fault?.mode === 'cut' ? (fault.afterChunks ?? Math.floor(chunks.length / 2)) : undefined;
    const cutAt = afterChunks !== undefined && afterChunks < 0 ? chunks.length + afterChunks : afterChunks;
    for (const [index, chunk] of chunks.entries()) {
      if (raw.destroyed) return;
      if (index === cutAt) return cut(reply);
      if (fault?.mode === 'slow') await sleep(fault.delayMs ?? 0);
      await new Promise<void>((written) => raw.write(sse(chunk), () => written()));
    }
    raw.end(sse('[DONE]'));
  });

  app.post('/sandbox/faults', async (request, reply) => {
    const parsed = faultBody.safeParse(request.body);
    if (!parsed.success) throw invalidRequest(z.prettifyError(parsed.error));
    faults.failNext(parsed.data);
    return reply.code(204).send();
  });
  app.delete('/sandbox/faults', async (_request, reply) => {
    faults.clear();
    return reply.code(204).send();
  });

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const { port } = app.server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    apiKey,
    models,
    failNext: (fault) => faults.failNext(fault),
    clearFaults: () => faults.clear(),
    requests: () => [...recorded],
    close: () => app.close(),
  };
}

const modelNotFound = (id: string) =>
  new OpenAIError(
    404,
    `The model \`${id}\` does not exist or you do not have access to it.`,
    'invalid_request_error',
    null,
    'model_not_found',
  );

/** Accepts the request and goes quiet until the caller gives up or the sandbox closes. */
async function hang(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.hijack();
  await new Promise((closed) => request.raw.socket.once('close', closed));
}

/** Cuts the connection with the answer unfinished, as a crashed or restarted server does. */
function cut(reply: FastifyReply): void {
  if (!reply.sent) reply.hijack();
  reply.raw.socket?.destroy();
}
