import { z } from 'zod';

export const SORT_OPTIONS = ['price_asc', 'price_desc', 'rating', 'newest'] as const;
export type SortBy = (typeof SORT_OPTIONS)[number];

/**
 * Query strings carry everything as text. Blank strings stay strings so they fail as "expected number"
 * instead of becoming 0 the way `z.coerce.number()` would turn them.
 */
const numeric = <T extends z.ZodNumber>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value), schema);

/** Only the literal words: `prime=yes` is a mistake worth reporting, not a silent `false`. */
const flag = z.preprocess(
  (value) => (value === 'true' ? true : value === 'false' ? false : value),
  z.boolean(),
);

const filterText = z.string().trim().min(1).max(100);

/**
 * Parameters of GET /api/search/realtime. Unknown parameters are rejected as well, so a misspelt filter
 * (`maxprice`) is reported instead of silently widening the search.
 */
export const searchQuerySchema = z
  .strictObject({
    q: z.string().trim().min(1).max(200),
    page: numeric(z.number().int().min(1)).default(1),
    limit: numeric(z.number().int().min(1).max(50)).default(20),
    minPrice: numeric(z.number().min(0)).optional(),
    maxPrice: numeric(z.number().min(0)).optional(),
    category: filterText.optional(),
    brand: filterText.optional(),
    color: filterText.optional(),
    size: filterText.optional(),
    sortBy: z.enum(SORT_OPTIONS).optional(),
    prime: flag.optional(),
    condition: z.enum(['new']).optional(),
  })
  .superRefine((query, ctx) => {
    if (query.minPrice !== undefined && query.maxPrice !== undefined && query.minPrice > query.maxPrice) {
      ctx.addIssue({ code: 'custom', path: ['maxPrice'], message: 'maxPrice must not be below minPrice' });
    }
  });

export type SearchQuery = z.output<typeof searchQuerySchema>;
export type SearchQueryInput = z.input<typeof searchQuerySchema>;
