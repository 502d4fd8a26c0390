import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { z } from 'zod';
import { ApiRouteSpec, registeredRoutes } from './api-route';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

function joinPath(...parts: (string | undefined)[]): string {
  const joined = parts
    .filter((p): p is string => !!p && p !== '/')
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .join('/');
  return `/${joined}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(schema: z.ZodObject | undefined, location: 'query' | 'path'): JsonSchema[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const fieldSchema = jsonSchema(field as z.ZodType, 'input');
    return {
      name,
      in: location,
      required: location === 'path' || !(field as z.ZodType).safeParse(undefined).success,
      schema: fieldSchema,
      ...(fieldSchema.description ? { description: fieldSchema.description } : {}),
    };
  });
}

const errorEnvelope = {
  type: 'object',
  required: ['error', 'code'],
  properties: { error: { type: 'string' }, code: { type: 'string' } },
};

function operation(spec: ApiRouteSpec): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? {
            content: {
              [response.contentType ?? 'application/json']: { schema: jsonSchema(response.schema, 'output') },
            },
          }
        : {}),
    };
  }
  const errorsByStatus = new Map<number, string[]>();
  for (const error of spec.errors ?? []) {
    errorsByStatus.set(error.status, [
      ...(errorsByStatus.get(error.status) ?? []),
      `${error.code}: ${error.description}`,
    ]);
  }
  for (const [status, lines] of errorsByStatus) {
    responses[String(status)] = {
      description: lines.join('\n'),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return {
    summary: spec.summary,
    tags: spec.tags,
    ...(spec.access === 'public' ? { security: [] } : {}),
    parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query')],
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(spec.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

/** OpenAPI 3.1 from the same zod schemas and Nest routes that serve requests. */
export function buildOpenApiDocument(options: {
  title: string;
  version: string;
  description: string;
  includeTag: (tag: string) => boolean;
  /** Components and security of the service's own conventions (envelopes, auth). */
  errorSchema?: JsonSchema;
  securitySchemes?: JsonSchema;
}): JsonSchema {
  const { includeTag, errorSchema, securitySchemes, ...info } = options;
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of registeredRoutes) {
    if (!route.spec.tags.every(includeTag)) continue;
    const controller = route.controller as { prototype: Record<string, object> };
    const handler = controller.prototype[route.handler]!;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
    const path = joinPath(
      Reflect.getMetadata(PATH_METADATA, controller) as string | undefined,
      Reflect.getMetadata(PATH_METADATA, handler) as string | undefined,
    );
    const verb = RequestMethod[method].toLowerCase();
    paths[path] = { ...paths[path], [verb]: operation(route.spec) };
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { ErrorEnvelope: errorSchema ?? errorEnvelope },
      ...(securitySchemes ? { securitySchemes } : {}),
    },
    ...(securitySchemes ? { security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })) } : {}),
  };
}
