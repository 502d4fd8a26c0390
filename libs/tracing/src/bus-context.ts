import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { headers as natsHeaders, type MsgHdrs } from 'nats';

const setter: TextMapSetter<MsgHdrs> = {
  set: (headers, key, value) => headers.set(key, value),
};

const getter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (headers) => (headers ? headers.keys() : []),
  get: (headers, key) => headers?.get(key) || undefined,
};

/** Writes the active trace context (W3C `traceparent`, `tracestate`) into a NATS message's headers. */
export function injectTraceContext(headers: MsgHdrs, from: Context = context.active()): void {
  propagation.inject(from, headers, setter);
}

/** Fresh NATS headers carrying `span`'s context, for a message sent under a span that is not made active. */
export function headersCarrying(span: Span): MsgHdrs {
  const headers = natsHeaders();
  injectTraceContext(headers, trace.setSpan(context.active(), span));
  return headers;
}

/** The trace context a NATS message carries, or the root context when it carries none. */
export function traceContextOf(headers: MsgHdrs | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, headers, getter);
}

/** The span that published a NATS message, when its headers name one. */
export function publisherOf(headers: MsgHdrs | undefined): SpanContext | undefined {
  return trace.getSpanContext(traceContextOf(headers));
}
