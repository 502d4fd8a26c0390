/**
 * Every aggregate owns one subject per instance: `<prefix>.<aggregate>.<id>`.
 * External inputs that must take effect once forever are aggregates of their own.
 */
export const aggregates = [
  'user',
  'cart',
  'order',
  'session',
  'memory',
  'deposit',
  'payment',
  'provider-webhook',
  'chain',
  'agent-client',
  'agent-grant',
] as const;

export type AggregateName = (typeof aggregates)[number];

export function isAggregateName(value: string): value is AggregateName {
  return (aggregates as readonly string[]).includes(value);
}
