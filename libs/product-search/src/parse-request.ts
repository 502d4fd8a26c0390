import { z } from 'zod';
import { describeZodError } from '@shop/http';
import { productIdSchema, productQuerySchema } from './product-query';
import { ProductSearchError } from './product-search-error';

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ProductSearchError('invalid', describeZodError(parsed.error), 'BAD_REQUEST');
  return parsed.data;
}

/** Both implementations refuse the same questions, before any work or any message. */
export const parseProductQuery = (query: unknown) => parse(productQuerySchema, query);
export const parseProductId = (productId: unknown) => parse(productIdSchema, productId);
