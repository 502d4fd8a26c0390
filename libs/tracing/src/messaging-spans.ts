import {
  ROOT_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import type { JsMsg, MsgHdrs } from 'nats';
import { headersCarrying, publisherOf, traceContextOf } from './bus-context';
import { inSpan, queriesReadActiveSpan } from './spans';

/**
 * Messaging spans as the OpenTelemetry semantic conventions name them: `publish` and
 * `process` of a destination. A subject holds an aggregate id, so the span name carries the
 * subject's template (`shop.cart.*`) and the attribute the subject itself.
 */
export const messagingAttributes = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  template: 'messaging.destination.template',
  operationType: 'messaging.operation.type',
  messageId: 'messaging.message.id',
  consumerGroup: 'messaging.consumer.group.name',
  batchCount: 'messaging.batch.message_count',
  streamSequence: 'messaging.nats.stream.sequence',
  deliveryCount: 'messaging.nats.message.delivery_count',
} as const;

/**
 * `shop.cart.<hash bits>.<id>` → `shop.cart.*`: what the subjects of one aggregate type have in
 * common (the prefix and the aggregate: see subjectFor).
 */
export function subjectTemplate(subject: string): string {
  const tokens = subject.split('.');
  return tokens.length < 3 ? subject : `${tokens[0]}.${tokens[1]}.*`;
}

/**
 * Publishes under a `publish` span whose context the message carries in its headers (the
 * headers `publish` is given to send), so whoever processes it continues the trace. Nothing runs
 * inside it to find it as the active span, so it is not made active: entering a context costs
 * every command.
 */
export function tracedPublish<T>(
  subject: string,
  messageId: string | undefined,
  publish: (headers: MsgHdrs) => Promise<T>,
  sequenceOf: (result: T) => number,
): Promise<T> {
  const template = subjectTemplate(subject);
  return inSpan(
    `publish ${template}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        [messagingAttributes.system]: 'nats',
        [messagingAttributes.destination]: subject,
        [messagingAttributes.template]: template,
        [messagingAttributes.operationType]: 'send',
        ...(messageId ? { [messagingAttributes.messageId]: messageId } : {}),
      },
    },
    async (span) => {
      const result = await publish(headersCarrying(span));
      span.setAttribute(messagingAttributes.streamSequence, sequenceOf(result));
      return result;
    },
    { active: false },
  );
}

/** The message id the publisher gave (the command id), from the `Nats-Msg-Id` header. */
function messageIdOf(message: JsMsg): string | undefined {
  return message.headers?.get('Nats-Msg-Id') || undefined;
}

/**
 * Handles one message under a `process` span that continues the publisher's trace (its child,
 * and linked to it as the conventions ask of a consumer).
 */
export function tracedProcess<T>(
  consumer: string,
  message: JsMsg,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const template = subjectTemplate(message.subject);
  const publisher = publisherOf(message.headers);
  const messageId = messageIdOf(message);
  return inSpan(
    `process ${template}`,
    {
      kind: SpanKind.CONSUMER,
      links: publisher ? [{ context: publisher }] : [],
      attributes: {
        [messagingAttributes.system]: 'nats',
        [messagingAttributes.destination]: message.subject,
        [messagingAttributes.template]: template,
        [messagingAttributes.operationType]: 'process',
        [messagingAttributes.consumerGroup]: consumer,
        [messagingAttributes.streamSequence]: message.seq,
        [messagingAttributes.deliveryCount]: message.info.redeliveryCount,
        ...(messageId ? { [messagingAttributes.messageId]: messageId } : {}),
      },
    },
    work,
    { parent: traceContextOf(message.headers) },
  );
}

/** A span links to at most this many contexts by default; a larger batch links its first ones. */
const maxLinks = 128;

/**
 * Handles a batch of messages under one `process` span linked to the context of each message
 * that carries one: a batch serves many requests, and each of their traces reaches it through
 * its link. It continues the trace of the first such message the sampler kept, else of the first
 * one, so a batch of one command (the usual case at a light load) sits inside that command's
 * trace, and a sampled trace keeps its batch span when a trace left out came first: under an
 * unsampled parent no span would be made. `work` is a batch's queries: the span is made active
 * only for query spans to find (see queriesReadActiveSpan).
 */
export function tracedBatch<T>(
  consumer: string,
  destination: string,
  messages: readonly JsMsg[],
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const links: Link[] = [];
  let parent: Context = ROOT_CONTEXT;
  let parentSampled = false;
  for (const message of messages) {
    if (links.length === maxLinks) break;
    const carried = traceContextOf(message.headers);
    const publisher = trace.getSpanContext(carried);
    if (!publisher) continue;
    const sampled = (publisher.traceFlags & TraceFlags.SAMPLED) !== 0;
    if (links.length === 0 || (sampled && !parentSampled)) {
      parent = carried;
      parentSampled = sampled;
    }
    links.push({
      context: publisher,
      attributes: {
        [messagingAttributes.destination]: message.subject,
        [messagingAttributes.streamSequence]: message.seq,
      },
    });
  }
  return inSpan(
    `process ${destination}`,
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: {
        [messagingAttributes.system]: 'nats',
        [messagingAttributes.destination]: destination,
        [messagingAttributes.operationType]: 'process',
        [messagingAttributes.consumerGroup]: consumer,
        [messagingAttributes.batchCount]: messages.length,
        [messagingAttributes.streamSequence]: messages.at(-1)?.seq ?? 0,
      },
    },
    work,
    { parent, active: queriesReadActiveSpan() },
  );
}

/** A NATS request under a `send` span whose context travels in the request's headers (not made active, as a publish's). */
export function tracedRequest<T>(subject: string, request: (headers: MsgHdrs) => Promise<T>): Promise<T> {
  return inSpan(
    `send ${subject}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [messagingAttributes.system]: 'nats',
        [messagingAttributes.destination]: subject,
        [messagingAttributes.operationType]: 'send',
      },
    },
    async (span) => request(headersCarrying(span)),
    { active: false },
  );
}

/** Answers a NATS request under a `process` span continuing the requester's trace. */
export function tracedReply<T>(
  subject: string,
  headers: MsgHdrs | undefined,
  work: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `process ${subject}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [messagingAttributes.system]: 'nats',
        [messagingAttributes.destination]: subject,
        [messagingAttributes.operationType]: 'process',
      },
    },
    work,
    { parent: traceContextOf(headers) },
  );
}
