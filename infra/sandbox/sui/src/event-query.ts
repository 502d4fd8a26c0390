import type { EventId, PaginatedEvents, SuiEvent } from '@mysten/sui/client';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { INVALID_PARAMS, RpcError } from './rpc-error';

/** The node's page size cap (QUERY_MAX_RESULT_LIMIT); 0 or more means the cap. */
export const MAX_EVENTS_PER_PAGE = 50;

type Filter = Record<string, unknown>;

/**
 * `suix_queryEvents` over the stand-in's event stream: filter, then page from just after the
 * cursor (exclusive) in the requested direction. `nextCursor` is the last returned event, or the
 * given cursor for an empty page, as the node does.
 */
export function queryEvents(
  log: readonly SuiEvent[],
  filter: unknown,
  cursor: unknown,
  limit: unknown,
  descending: unknown,
): PaginatedEvents {
  const matches = matcher(filter);
  const pageSize =
    typeof limit === 'number' && limit > 0 && limit <= MAX_EVENTS_PER_PAGE ? limit : MAX_EVENTS_PER_PAGE;
  // The node's own default is ascending; the SDK always says which it wants.
  const ordered = descending === true ? [...log].reverse() : log;
  let start = 0;
  if (cursor !== null && cursor !== undefined) {
    const { txDigest, eventSeq } = parseCursor(cursor);
    const at = ordered.findIndex((event) => event.id.txDigest === txDigest && event.id.eventSeq === eventSeq);
    if (at < 0) throw new RpcError(INVALID_PARAMS, `Could not find event with id ${txDigest}:${eventSeq}`);
    start = at + 1;
  }
  const data: SuiEvent[] = [];
  let hasNextPage = false;
  for (let index = start; index < ordered.length; index += 1) {
    const event = ordered[index];
    if (!event || !matches(event)) continue;
    if (data.length === pageSize) {
      hasNextPage = true;
      break;
    }
    data.push(event);
  }
  const last = data.at(-1);
  return { data, hasNextPage, nextCursor: last ? last.id : ((cursor as EventId | null | undefined) ?? null) };
}

function parseCursor(cursor: unknown): EventId {
  const value = cursor as Partial<EventId>;
  if (typeof value.txDigest !== 'string' || typeof value.eventSeq !== 'string') {
    throw new RpcError(INVALID_PARAMS, 'Invalid params: cursor must be {txDigest, eventSeq}');
  }
  return { txDigest: value.txDigest, eventSeq: value.eventSeq };
}

function matcher(filter: unknown): (event: SuiEvent) => boolean {
  if (typeof filter !== 'object' || filter === null)
    throw new RpcError(INVALID_PARAMS, 'Invalid params: event filter');
  const [kind, value] = Object.entries(filter as Filter)[0] ?? [];
  switch (kind) {
    case 'All':
      return () => true;
    case 'MoveModule': {
      const { package: pkg, module } = moduleOf(value);
      return (event) => normalizeSuiAddress(event.packageId) === pkg && event.transactionModule === module;
    }
    case 'MoveEventModule': {
      const { package: pkg, module } = moduleOf(value);
      return (event) => {
        const [address, eventModule] = normalizeStructTag(event.type).split('::');
        return address === pkg && eventModule === module;
      };
    }
    case 'MoveEventType': {
      if (typeof value !== 'string') throw new RpcError(INVALID_PARAMS, 'Invalid params: MoveEventType');
      const type = normalizeStructTag(value);
      return (event) => normalizeStructTag(event.type) === type;
    }
    case 'Sender': {
      if (typeof value !== 'string') throw new RpcError(INVALID_PARAMS, 'Invalid params: Sender');
      const sender = normalizeSuiAddress(value);
      return (event) => normalizeSuiAddress(event.sender) === sender;
    }
    case 'Transaction':
      return (event) => event.id.txDigest === value;
    default:
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: the Sui stand-in does not support event filter ${String(kind)}`,
      );
  }
}

function moduleOf(value: unknown): { package: string; module: string } {
  const { package: pkg, module } = (value ?? {}) as { package?: unknown; module?: unknown };
  if (typeof pkg !== 'string' || typeof module !== 'string') {
    throw new RpcError(INVALID_PARAMS, 'Invalid params: expected {package, module}');
  }
  return { package: normalizeSuiAddress(pkg), module };
}
