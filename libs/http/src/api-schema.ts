import { z } from 'zod';

/** OpenAPI's rule for the keys of components.schemas. */
const componentName = /^[a-zA-Z0-9._-]+$/;

/**
 * Names a resource once for the OpenAPI documents: every route that takes or returns it (or a
 * schema that contains it) gets `$ref: '#/components/schemas/<name>'`, and the schema itself
 * appears once under that name, which clients generate their types from. The returned schema
 * validates exactly as `schema` does; use it in place of `schema`.
 */
export function apiSchema<T extends z.ZodType>(name: string, schema: T): T {
  if (!componentName.test(name)) throw new Error(`${JSON.stringify(name)} cannot name an OpenAPI component`);
  return schema.meta({ id: name });
}
