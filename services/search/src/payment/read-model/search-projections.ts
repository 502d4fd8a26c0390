import { Projection } from '@shop/projections';
import { paymentTransactionsProjection } from './payment-transactions.projection';
import { SearchDatabase } from './search-database';

/** Every projection this service runs in-process into SEARCH_SCHEMA. */
export const searchProjections: readonly Projection<SearchDatabase>[] = [paymentTransactionsProjection];
