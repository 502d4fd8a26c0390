import type { z } from 'zod';
import type { Memory, MemoryStore, RecallOptions, RememberOptions } from './memory';
import { MemwalError } from './memwal-error';
import { MemwalSigner } from './memwal-signer';
import {
  errorBodySchema,
  forgetResponseSchema,
  recallResponseSchema,
  rememberResponseSchema,
} from './memwal-wire';

export interface MemwalMemoryStoreOptions {
  /** The relayer's base URL. */
  url: string;
  /** The Ed25519 delegate private key registered on the account, 32 bytes of hex. */
  delegateKey: string;
  /** The MemWalAccount object id. */
  accountId: string;
  /** A user's memories live in the relayer namespace `<namespacePrefix>-<userId>`. */
  namespacePrefix?: string;
  /** Deadline of one relayer call. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export const MEMWAL_SOURCE = 'memwal';
const DEFAULT_NAMESPACE_PREFIX = 'shop-user';
const DEFAULT_TIMEOUT_MS = 5000;
/** The relayer's own bound on one recall (its MCP tool documents 1 to 100). */
const MAX_RECALL_LIMIT = 100;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const describe = (cause: unknown) =>
  cause instanceof Error ? (cause.cause ?? cause).toString() : String(cause);

/**
 * A MemoryStore on the MemWal relayer's REST API (POST /api/remember, POST /api/recall, and POST
 * /api/forget for an erased user), every request signed with the account's delegate key. The relayer keeps only text per namespace, and one backend
 * account serves every user, so each user gets a namespace of their own; the `namespace` and `source`
 * labels of remember() have nowhere to go and are not sent. Recall reports the namespace searched,
 * source "memwal", no creation time, and score = 1 - distance.
 *
 * The relayer embeds, encrypts and uploads in the background: remember() resolves once it accepted the
 * memory, which becomes recallable when that job is done.
 */
export class MemwalMemoryStore implements MemoryStore {
  private readonly baseUrl: string;
  private readonly signer: MemwalSigner;
  private readonly namespacePrefix: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: MemwalMemoryStoreOptions) {
    this.baseUrl = options.url.replace(/\/+$/, '');
    this.signer = new MemwalSigner(options.delegateKey, options.accountId);
    this.namespacePrefix = options.namespacePrefix ?? DEFAULT_NAMESPACE_PREFIX;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchImpl = options.fetch ?? fetch;
  }

  namespaceOf(userId: string): string {
    return `${this.namespacePrefix}-${userId}`;
  }

  async remember(userId: string, fact: string, options: RememberOptions): Promise<void> {
    await this.post(
      '/api/remember',
      { text: fact, namespace: this.namespaceOf(userId) },
      rememberResponseSchema,
      options.signal,
    );
  }

  async recall(userId: string, query: string, options: RecallOptions): Promise<Memory[]> {
    // The relayer would embed an empty query and return arbitrary memories.
    if (query.trim() === '') return [];
    const namespace = this.namespaceOf(userId);
    const limit = Math.min(Math.max(Math.floor(options.limit), 1), MAX_RECALL_LIMIT);
    const { results } = await this.post(
      '/api/recall',
      { query, limit, namespace },
      recallResponseSchema,
      options.signal,
    );
    return [...results]
      .sort((a, b) => a.distance - b.distance)
      .slice(0, limit)
      .map((hit) => ({
        id: hit.blob_id,
        content: hit.text,
        namespace,
        source: MEMWAL_SOURCE,
        createdAt: null,
        score: Math.min(1, Math.max(0, 1 - hit.distance)),
      }));
  }

  /**
   * Deletes every memory of the user's namespace from the relayer's index (POST /api/forget), so
   * recall finds none. Idempotent: forgetting an empty namespace deletes nothing. The encrypted
   * blobs stay on Walrus, where only the account's own restore could index them again.
   */
  async forget(userId: string, signal?: AbortSignal): Promise<void> {
    await this.post('/api/forget', { namespace: this.namespaceOf(userId) }, forgetResponseSchema, signal);
  }

  private async post<S extends z.ZodType>(
    path: string,
    body: object,
    schema: S,
    signal: AbortSignal | undefined,
  ): Promise<z.output<S>> {
    const text = JSON.stringify(body);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let raw: string;
    try {
      const response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...this.signer.headers('POST', path, text),
        },
        body: text,
        signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
      });
      status = response.status;
      raw = await response.text();
    } catch (cause) {
      if (signal?.aborted) throw new MemwalError('aborted', `MemWal ${path} was aborted`, { cause });
      if (deadline.aborted) {
        throw new MemwalError('timeout', `MemWal ${path} gave no answer within ${this.timeoutMs} ms`, {
          cause,
        });
      }
      throw new MemwalError('network', `MemWal ${path} is unreachable: ${describe(cause)}`, { cause });
    }

    const json = parseJson(raw);
    if (status < 200 || status >= 300) {
      const error = errorBodySchema.safeParse(json).data;
      // Proxies in front of the relayer answer with HTML; its first words still help an operator.
      const reason = error?.message ?? error?.error ?? (raw.slice(0, 200) || 'no details');
      const serverCode = error?.code ?? error?.error;
      throw new MemwalError('http', `MemWal ${path} answered ${status}: ${reason}`, {
        status,
        ...(serverCode !== undefined && { serverCode }),
      });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new MemwalError('invalid-response', `MemWal ${path} answered ${status} with an unexpected body`, {
        status,
        cause: parsed.error,
      });
    }
    return parsed.data;
  }
}
