import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { z } from 'zod';
import { ApiRouteSpec, registeredRoutes } from './api-route';

type JsonSchema = Record<string, unknown>;

const componentPrefix = '#/components/schemas/';
const defsPrefix = '#/$defs/';

/**
 * The component schemas of one document. A schema named with `apiSchema` is converted in the
 * direction it is used in (a request's input or a response's output); the same name with two
 * different shapes in one document is refused rather than silently picking one.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly usedAs = new Map<string, 'input' | 'output'>();

  add(name: string, schema: JsonSchema, io: 'input' | 'output'): void {
    const existing = this.schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      const uses = this.usedAs.get(name) === io ? `two different schemas` : `a request and a response`;
      throw new Error(
        `The component schema ${name} has two shapes in one document (${uses}); give each its own name`,
      );
    }
    this.schemas[name] = schema;
    this.usedAs.set(name, io);
  }
}

/** Points the named schemas' `#/$defs/<name>` at the document's components, anywhere in `value`. */
function referToComponents(value: unknown, named: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => referToComponents(item, named));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith(defsPrefix)) {
        const name = inner.slice(defsPrefix.length);
        if (named.has(name)) return [key, `${componentPrefix}${name}`];
      }
      return [key, referToComponents(inner, named)];
    }),
  );
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  // zod puts every schema with an id (apiSchema) under $defs, and names the ones it only
  // needed to break a cycle __schemaN; the named ones move to the components.
  const defs = (out.$defs ?? {}) as Record<string, JsonSchema>;
  delete out.$defs;
  const named = new Set(Object.keys(defs).filter((name) => !/^__schema\d+$/.test(name)));
  for (const name of named) {
    components.add(name, referToComponents(defs[name], named) as JsonSchema, io);
    delete defs[name];
  }
  const local = Object.keys(defs).length > 0 ? { $defs: defs } : {};
  return referToComponents({ ...out, ...local }, named) as JsonSchema;
}

function joinPath(...parts: (string | undefined)[]): string {
  const joined = parts
    .filter((p): p is string => !!p && p !== '/')
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .join('/');
  return `/${joined}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parameters(
  schema: z.ZodObject | undefined,
  location: 'query' | 'path',
  components: Components,
): JsonSchema[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const fieldSchema = jsonSchema(field as z.ZodType, 'input', components);
    return {
      name,
      in: location,
      required: location === 'path' || !(field as z.ZodType).safeParse(undefined).success,
      schema: fieldSchema,
      ...(fieldSchema.description ? { description: fieldSchema.description } : {}),
    };
  });
}

function operation(spec: ApiRouteSpec, errorSchema: JsonSchema, components: Components): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? {
            content: {
              [response.contentType ?? 'application/json']: {
                schema: jsonSchema(response.schema, 'output', components),
              },
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
      content: { 'application/json': { schema: errorSchema } },
    };
  }
  return {
    summary: spec.summary,
    tags: spec.tags,
    ...(spec.access === 'public' ? { security: [] } : {}),
    parameters: [
      ...parameters(spec.params, 'path', components),
      ...parameters(spec.query, 'query', components),
    ],
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: {
              [spec.bodyContentType ?? 'application/json']: {
                schema: jsonSchema(spec.body, 'input', components),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/**
 * OpenAPI 3.1 from the same zod schemas and Nest routes that serve requests. Schemas named with
 * `apiSchema` are components, referenced from every operation (and schema) that uses them.
 */
export function buildOpenApiDocument(options: {
  title: string;
  version: string;
  description: string;
  includeTag: (tag: string) => boolean;
  /** The service's error envelope, answered with every documented error (name it with apiSchema). */
  errorSchema: z.ZodType;
  securitySchemes?: JsonSchema;
}): JsonSchema {
  const { includeTag, errorSchema, securitySchemes, ...info } = options;
  const components = new Components();
  const errorJsonSchema = jsonSchema(errorSchema, 'output', components);
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
    paths[path] = { ...paths[path], [verb]: operation(route.spec, errorJsonSchema, components) };
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b))),
      ...(securitySchemes ? { securitySchemes } : {}),
    },
    ...(securitySchemes ? { security: Object.keys(securitySchemes).map((name) => ({ [name]: [] })) } : {}),
  };
}
