import type { SearchConfig } from '@shop/config';
import { PaymentTerms } from '@shop/domain';

export type PaymentSettings =
  { enabled: true; terms: PaymentTerms; webhookSecret: string } | { enabled: false; reason: string };

export const PAYMENT_SETTINGS = Symbol('PAYMENT_SETTINGS');

/**
 * Verification needs the merchant address (the spec: without it verification is disabled) and the
 * webhook secret (without it the backend would refuse every confirmation, leaving payments stuck)
 * and the accepted coin (without it any coin would pass for the one the backend credits).
 */
export function paymentSettings(config: SearchConfig): PaymentSettings {
  if (!config.CHAIN_MERCHANT_ADDRESS)
    return { enabled: false, reason: 'CHAIN_MERCHANT_ADDRESS is not configured' };
  if (!config.DEPOSIT_WEBHOOK_SECRET)
    return { enabled: false, reason: 'DEPOSIT_WEBHOOK_SECRET is not configured' };
  if (!config.CHAIN_COIN_TYPE) return { enabled: false, reason: 'CHAIN_COIN_TYPE is not configured' };
  return {
    enabled: true,
    terms: {
      network: config.CHAIN_NETWORK,
      merchant: config.CHAIN_MERCHANT_ADDRESS,
      coinType: config.CHAIN_COIN_TYPE,
      minimumAmount: config.CHAIN_PAYMENT_AMOUNT_MIST,
    },
    webhookSecret: config.DEPOSIT_WEBHOOK_SECRET,
  };
}
