import { z } from 'zod';
import { catalogSearchSchema } from '@shop/catalog';

/**
 * What the gateway asks for: the catalogue's search parameters (prices in USD cents), so the
 * mock and the scraping implementations answer the same question.
 */
export const productQuerySchema = catalogSearchSchema;
export type ProductQuery = z.input<typeof productQuerySchema>;

/** Product ids are ASIN-shaped on both sides: 10 letters or digits, compared upper case. */
export const productIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9]{10}$/, 'must be 10 letters or digits (an ASIN)')
  .transform((id) => id.toUpperCase());
