import { z } from 'zod';

const placeholder = '{orderId}';

/** The one way a template becomes a link, so the check below tests what the gateway hands out. */
export const orderApprovalUrlOf = (template: string, orderId: string): string =>
  template.replaceAll(placeholder, encodeURIComponent(orderId));

const isHttpUrl = (value: string) => {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
};

/**
 * ORDER_APPROVAL_URL: the page where the shopper approves an order's payment, as a template
 * naming the order with `{orderId}` (`https://shop.example.com/orders/{orderId}`). Outside agents
 * get it filled in with the order they created, since they cannot approve the payment themselves.
 */
export const orderApprovalUrlTemplate = z
  .string()
  .trim()
  .refine((value) => value.includes(placeholder), `must contain ${placeholder}`)
  .refine(
    (value) => isHttpUrl(orderApprovalUrlOf(value, '00000000-0000-4000-8000-000000000000')),
    `must be an http(s) URL once ${placeholder} is filled in`,
  );
