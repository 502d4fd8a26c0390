import { Controller, Get, Post } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiRoute, apiSchema, buildOpenApiDocument } from '../src';

const problem = apiSchema('Problem', z.object({ error: z.string(), code: z.string() }));
const item = apiSchema(
  'Item',
  z.object({
    id: z.uuid(),
    size: z.string().max(50).describe('default "Default"'),
    note: z.string().nullable(),
  }),
);
const addItem = apiSchema(
  'AddItem',
  z.object({ name: z.string().min(1), size: z.string().max(50).optional() }),
);
const itemList = apiSchema('ItemList', z.object({ items: z.array(item) }));

@Controller('named')
export class NamedController {
  @Get()
  @ApiRoute({
    summary: 'list',
    tags: ['named'],
    access: 'public',
    responses: { 200: { description: 'the items', schema: itemList } },
  })
  list() {}

  @Post()
  @ApiRoute({
    summary: 'add',
    tags: ['named'],
    access: 'public',
    body: addItem,
    responses: { 201: { description: 'the item', schema: item } },
    errors: [{ status: 400, code: 'VALIDATION_ERROR', description: 'bad body' }],
  })
  add() {}

  @Get('first')
  @ApiRoute({
    summary: 'first, maybe',
    tags: ['named'],
    access: 'public',
    responses: { 200: { description: 'an item or none', schema: z.object({ item: item.nullable() }) } },
  })
  first() {}

  @Get('plain')
  @ApiRoute({
    summary: 'unnamed',
    tags: ['named'],
    access: 'public',
    responses: { 200: { description: 'inline', schema: z.object({ ok: z.boolean() }) } },
  })
  plain() {}
}

/** A request body named like a response of another route: one name, two shapes. */
@Controller('clash')
export class ClashController {
  @Post()
  @ApiRoute({
    summary: 'takes an Item',
    tags: ['clash'],
    access: 'public',
    body: item,
    responses: { 200: { description: 'the item', schema: item } },
  })
  echo() {}
}

type Doc = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

const documentOf = (tag: string) =>
  buildOpenApiDocument({
    title: 't',
    version: '1',
    description: 'd',
    includeTag: (t) => t === tag,
    errorSchema: problem,
  }) as unknown as Doc;

const jsonContent = (operation: Record<string, unknown>, status: string) =>
  (operation.responses as Record<string, { content: Record<string, { schema: unknown }> }>)[status]!.content[
    'application/json'
  ]!.schema;

describe('named schemas in the OpenAPI document', () => {
  const doc = documentOf('named');
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  it('lists each named schema once, under its name, with its own shape', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(['AddItem', 'Item', 'ItemList', 'Problem']);
    expect(doc.components.schemas.Item).toMatchObject({
      type: 'object',
      required: ['id', 'size', 'note'],
      properties: { size: { type: 'string', maxLength: 50, description: 'default "Default"' } },
    });
    expect(doc.components.schemas.ItemList).toMatchObject({
      properties: { items: { type: 'array', items: ref('Item') } },
    });
    // A request's shape: the optional field is not required.
    expect(doc.components.schemas.AddItem).toMatchObject({ required: ['name'] });
  });

  it('references them from request bodies, responses, nested and nullable uses, and errors', () => {
    const post = doc.paths['/named']!.post!;
    expect(post.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: ref('AddItem') } },
    });
    expect(jsonContent(post, '201')).toEqual(ref('Item'));
    expect(jsonContent(post, '400')).toEqual(ref('Problem'));
    expect(jsonContent(doc.paths['/named']!.get!, '200')).toEqual(ref('ItemList'));
    expect(jsonContent(doc.paths['/named/first']!.get!, '200')).toMatchObject({
      properties: { item: { anyOf: [ref('Item'), { type: 'null' }] } },
    });
    expect(JSON.stringify(doc)).not.toContain('$defs');
  });

  it('leaves unnamed schemas inline', () => {
    expect(jsonContent(doc.paths['/named/plain']!.get!, '200')).toMatchObject({
      type: 'object',
      properties: { ok: { type: 'boolean' } },
    });
  });

  it('validates with the very schema it names', () => {
    expect(addItem.parse({ name: 'shirt', size: '' })).toEqual({ name: 'shirt', size: '' });
    expect(addItem.safeParse({ name: '' }).success).toBe(false);
  });

  it('refuses a name OpenAPI does not allow for a component', () => {
    expect(() => apiSchema('Cart Item', z.object({}))).toThrow(/cannot name an OpenAPI component/);
  });

  it('refuses one name with two shapes in one document', () => {
    expect(() => documentOf('clash')).toThrow(
      /Item has two shapes in one document \(a request and a response\)/,
    );
  });
});
