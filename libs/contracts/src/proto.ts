import { z } from 'zod';
import { aggregates } from './aggregates';
import { EventCatalogue } from './event-catalogue';
import { actorSchema } from './event-envelope';
import { sealedValueSchema } from './personal-data';

type Json = Record<string, unknown>;

function schemaOf(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Json;
  delete out.$schema;
  return out;
}

const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/**
 * Data as stored: the personal fields are absent, sealed in the envelope's `personalData`; in
 * events of earlier builds each is sealed in place, or in clear when written before encryption.
 */
function storedDataSchema(catalogue: EventCatalogue, type: string): z.ZodType {
  const definition = catalogue.definition(type);
  const fields = catalogue.personalFields(type);
  if (fields.length === 0) return definition.schema;
  const object = definition.schema as z.ZodObject;
  const shape = object.shape as Record<string, z.ZodType>;
  return object.extend(
    Object.fromEntries(fields.map((f) => [f.name, z.union([sealedValueSchema, shape[f.name]!]).optional()])),
  );
}

/** The full envelope of one event type at its current version, as JSON Schema. */
function eventSchema(catalogue: EventCatalogue, type: string): Json {
  const definition = catalogue.definition(type);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://schemas.shop.local/events/${type}.v${definition.version}.json`,
    title: type,
    description: definition.description,
    type: 'object',
    required: [
      'id',
      'type',
      'version',
      'aggregateId',
      'occurredAt',
      'correlationId',
      'causationId',
      'actor',
      'data',
    ],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: { const: type },
      version: { const: definition.version },
      aggregateId: { type: 'string', description: `id of the ${definition.aggregate} aggregate` },
      occurredAt: { type: 'string', format: 'date-time' },
      correlationId: { type: 'string' },
      causationId: { type: ['string', 'null'] },
      actor: schemaOf(actorSchema),
      data: schemaOf(storedDataSchema(catalogue, type)),
      ...(definition.personalData.length > 0 && {
        personalData: {
          ...schemaOf(sealedValueSchema),
          description: `${definition.personalData.join(', ')}, sealed together under the data key kid (AES-256-GCM, the event id as associated data)`,
        },
      }),
    },
    'x-aggregate': definition.aggregate,
    'x-personal-data': definition.personalData,
  };
}

function asyncApi(catalogue: EventCatalogue): Json {
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  const schemas: Json = {};
  for (const definition of catalogue.definitions)
    schemas[definition.type] = eventSchema(catalogue, definition.type);
  for (const aggregate of aggregates) {
    const types = catalogue.definitions.filter((d) => d.aggregate === aggregate).map((d) => d.type);
    if (types.length === 0) continue;
    const message = `${pascal(aggregate)}Commit`;
    messages[message] = {
      name: message,
      title: `A commit on a ${aggregate} subject`,
      summary: 'The events one command decided, stored as one JetStream message.',
      headers: {
        type: 'object',
        properties: {
          'Nats-Msg-Id': { type: 'string', description: 'the command id: a retried command is stored once' },
          'Nats-Expected-Last-Subject-Sequence': {
            type: 'string',
            description: 'the aggregate version the command was decided on (0: the subject must be empty)',
          },
        },
      },
      payload: {
        type: 'object',
        required: ['commandId', 'events'],
        properties: {
          commandId: { type: 'string' },
          events: {
            type: 'array',
            minItems: 1,
            items: { oneOf: types.map((t) => ({ $ref: `#/components/schemas/${t}` })) },
          },
        },
      },
    };
    channels[aggregate] = {
      address: `{prefix}.${aggregate}.{hashBits}.{aggregateId}`,
      title: `${aggregate} aggregate`,
      parameters: {
        prefix: { description: 'EVENT_SUBJECT_PREFIX (default "shop")' },
        hashBits: {
          description:
            'the low six bits of the FNV-1a (32-bit) hash of aggregateId, low bit first, as six tokens 0 or 1 (e.g. 0.1.1.0.0.1): with STREAM_PARTITIONS=N (a power of two) the partition is the low log2(N) of them, so one wildcard subject holds a partition',
        },
        aggregateId: { description: `id of one ${aggregate}` },
      },
      messages: { [message]: { $ref: `#/components/messages/${message}` } },
    };
    operations[`append${pascal(aggregate)}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${aggregate}` },
      messages: [{ $ref: `#/channels/${aggregate}/messages/${message}` }],
    };
    operations[`consume${pascal(aggregate)}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${aggregate}` },
      messages: [{ $ref: `#/channels/${aggregate}/messages/${message}` }],
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Shop event stream',
      version: '1.0.0',
      description:
        'One JetStream stream (EVENT_STREAM, default SHOP) over subjects <prefix>.<aggregate>.<six hash bits>.<id> (the layout the stream description names). Generated from libs/contracts by `npm run proto`; do not edit.',
    },
    defaultContentType: 'application/json',
    servers: { jetstream: { host: '127.0.0.1:4222', protocol: 'nats', description: 'NATS with JetStream' } },
    channels,
    operations,
    components: { messages, schemas },
  };
}

/** Every file of proto/ that is generated from the catalogue, by path relative to proto/. */
export function generateProto(catalogue: EventCatalogue): Map<string, string> {
  const files = new Map<string, string>();
  const text = (value: Json) => `${JSON.stringify(value, null, 2)}\n`;
  for (const definition of catalogue.definitions) {
    files.set(`events/${definition.type}.schema.json`, text(eventSchema(catalogue, definition.type)));
  }
  files.set('asyncapi.json', text(asyncApi(catalogue)));
  return files;
}
