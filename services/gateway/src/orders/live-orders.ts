import { Inject, Injectable } from '@nestjs/common';
import { ProviderClient } from '@shop/provider';
import type { Redis } from '@shop/redis';
import { PROVIDER, REDIS } from '../infrastructure/tokens';
import { OrderResponse } from './order.schema';

export type LiveOrder = Pick<OrderResponse, 'phase' | 'payment' | 'quote'>;

const listCacheSeconds = 10;
/** A list waits this long for a live status, then shows the stored one (the fetch goes on and caches). */
const listLiveWaitMs = 1500;

/** The provider's current view of an order: phase, payment and quote. */
@Injectable()
export class LiveOrders {
  constructor(
    @Inject(PROVIDER) private readonly provider: ProviderClient | null,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Fresh from the provider; throws when it cannot be reached. */
  async fetch(providerOrderId: string): Promise<LiveOrder> {
    if (!this.provider) throw new Error('the payment provider is not configured');
    const order = await this.provider.getOrder(providerOrderId);
    const live: LiveOrder = {
      phase: order.phase,
      payment: { status: order.payment.status, currency: order.payment.currency ?? 'usdc' },
      quote: order.quote?.totalPrice ? { totalPrice: order.quote.totalPrice } : null,
    };
    await this.redis
      .set(`live-order:${providerOrderId}`, JSON.stringify(live), 'EX', listCacheSeconds)
      .catch(() => undefined);
    return live;
  }

  /** For lists: a few seconds of staleness is fine and an outage yields null, never an error. */
  async cachedOrNull(providerOrderId: string): Promise<LiveOrder | null> {
    const cached = await this.redis.get(`live-order:${providerOrderId}`).catch(() => null);
    if (cached) return JSON.parse(cached) as LiveOrder;
    // A hung provider must not hold the whole list for the provider client's full deadline.
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), listLiveWaitMs);
    });
    return Promise.race([this.fetch(providerOrderId).catch(() => null), giveUp]).finally(() =>
      clearTimeout(timer),
    );
  }
}

/** Ours decides the status; the provider's live phase, payment and quote are newer than the read model's. */
export function mergeLive(order: OrderResponse, live: LiveOrder | null): OrderResponse {
  if (!live) return order;
  return {
    ...order,
    phase: live.phase,
    payment: live.payment ?? order.payment,
    quote: live.quote ?? order.quote,
  };
}

export const isLiveMergeable = (order: OrderResponse) =>
  order.type === 'checkout' && order.status !== 'delivered' && order.status !== 'cancelled';
