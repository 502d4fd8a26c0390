import { CartEvent, RecordedEvent } from '@shop/contracts';
import { Projection } from '@shop/projections';
import { AnalyticsDatabase } from '../schema/analytics-database';

type ItemAdded = RecordedEvent<Extract<CartEvent, { type: 'ItemAdded' }>>;

/**
 * How often each product was put in a cart. Names are kept as first seen in the stream: the
 * earliest add in a batch wins inside it, and a stored row (older still) is never renamed, so
 * any batching gives the same rows.
 */
export const productsProjection: Projection<AnalyticsDatabase> = {
  name: 'analytics_products',
  aggregates: ['cart'],
  tables: ['product_adds'],
  async apply(db, events) {
    const firstSeen = new Map<
      string,
      { product_id: string; product_name: string; retailer: string; adds: number }
    >();
    for (const e of events) {
      if (e.type !== 'ItemAdded') continue;
      const { productId, productName, retailer } = (e as ItemAdded).data;
      const row = firstSeen.get(productId);
      if (row) row.adds++;
      else firstSeen.set(productId, { product_id: productId, product_name: productName, retailer, adds: 1 });
    }
    if (firstSeen.size === 0) return;
    await db
      .insertInto('product_adds')
      .values([...firstSeen.values()])
      .onConflict((oc) =>
        oc.column('product_id').doUpdateSet((eb) => ({
          adds: eb(eb.ref('product_adds.adds'), '+', eb.ref('excluded.adds')),
        })),
      )
      .execute();
  },
};
