import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the collector keeps it: times in milliseconds, attributes flattened. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  service: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  failed: boolean;
  attributes: Record<string, unknown>;
  events: { name: string; atMs: number; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttribute[];
  events?: { name: string; timeUnixNano: string | number; attributes?: OtlpAttribute[] }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const valueOf = (value: OtlpValue | undefined): unknown =>
  value?.stringValue ??
  (value?.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value?.doubleValue ??
  value?.boolValue ??
  value?.arrayValue?.values?.map(valueOf);

const attributesOf = (attributes: OtlpAttribute[] | undefined): Record<string, unknown> =>
  Object.fromEntries((attributes ?? []).map((a) => [a.key, valueOf(a.value)]));

const millis = (nanos: string | number) => Number(BigInt(nanos) / 1000n) / 1000;

/** The spans of an OTLP/JSON trace export (`POST /v1/traces`), as the JavaScript exporter sends them. */
export function spansOfExport(body: OtlpTraces): CollectedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? 'unknown');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        service,
        name: span.name,
        kind: span.kind ?? 0,
        startMs: millis(span.startTimeUnixNano),
        endMs: millis(span.endTimeUnixNano),
        failed: span.status?.code === 2,
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((event) => ({
          name: event.name,
          atMs: millis(event.timeUnixNano),
          attributes: attributesOf(event.attributes),
        })),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
      })),
    );
  });
}

/**
 * One trace as a timeline: its spans in start order, each as `+offset duration service name`,
 * indented under its parent, with its events beneath.
 */
export function timelineOf(spans: readonly CollectedSpan[]): string[] {
  if (spans.length === 0) return [];
  const start = Math.min(...spans.map((s) => s.startMs));
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | undefined, CollectedSpan[]>();
  for (const span of [...spans].sort((a, b) => a.startMs - b.startMs)) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of children.get(parent) ?? []) {
      const offset = `+${(span.startMs - start).toFixed(1)}ms`.padStart(10);
      const duration = `${(span.endMs - span.startMs).toFixed(1)}ms`.padStart(9);
      const where = span.attributes['http.target'] ?? span.attributes['url.path'] ?? '';
      lines.push(
        `${offset} ${duration} ${'  '.repeat(depth)}${span.service}: ${span.name}${where ? ` ${String(where)}` : ''}${span.failed ? ' FAILED' : ''}`,
      );
      for (const event of span.events) {
        const reason = event.attributes.reason ? `: ${String(event.attributes.reason)}` : '';
        lines.push(`${' '.repeat(20)} ${'  '.repeat(depth + 1)}! ${event.name}${reason}`);
      }
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

export interface TraceCollector {
  /** Where processes send their spans: their OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  traces(): Map<string, CollectedSpan[]>;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * An OTLP/HTTP (JSON) receiver keeping the spans of the last `keep` traces in memory, joined
 * across every process that exports to it. `GET /traces` lists them, newest first, each with its
 * timeline; `GET /traces/<trace id>` gives one trace's spans. It listens on loopback only.
 */
export async function startTraceCollector(options: { port: number; keep?: number }): Promise<TraceCollector> {
  const keep = options.keep ?? 50;
  const traces = new Map<string, CollectedSpan[]>();
  const server: Server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body, null, 2));
    };
    if (request.method === 'POST' && request.url === '/v1/traces') {
      readBody(request).then(
        (text) => {
          let spans: CollectedSpan[];
          try {
            spans = spansOfExport(JSON.parse(text) as OtlpTraces);
          } catch {
            send(400, { error: 'not an OTLP/JSON trace export' });
            return;
          }
          for (const span of spans) {
            const trace = traces.get(span.traceId) ?? [];
            traces.delete(span.traceId);
            traces.set(span.traceId, [...trace, span]);
          }
          for (const id of traces.keys()) {
            if (traces.size <= keep) break;
            traces.delete(id);
          }
          send(200, {});
        },
        () => send(400, { error: 'unreadable body' }),
      );
      return;
    }
    if (request.method === 'GET' && request.url === '/traces') {
      send(
        200,
        [...traces].reverse().map(([traceId, spans]) => ({ traceId, timeline: timelineOf(spans) })),
      );
      return;
    }
    const one = request.method === 'GET' ? /^\/traces\/([0-9a-f]{32})$/.exec(request.url ?? '') : null;
    if (one) {
      const spans = traces.get(one[1]!);
      send(spans ? 200 : 404, spans ?? { error: 'no such trace (only the last ones are kept)' });
      return;
    }
    send(404, { error: 'POST /v1/traces, GET /traces, GET /traces/<trace id>' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    traces: () => traces,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
