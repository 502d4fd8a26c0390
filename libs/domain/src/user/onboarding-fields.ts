import { z } from 'zod';

/** Field constraints of the spec's "Onboarding data" table: the one definition, for requests and docs. */
const text = (min: number, max: number) => z.string().trim().min(min).max(max);

export const onboardingCountries = ['US', 'GB', 'AU', 'CA', 'DE', 'FR', 'JP', 'SG'] as const;
export const topsSizes = ['XXS', 'XS', 'S', 'M', 'L', 'XL', 'XXL'] as const;

export const displayNameSchema = z.object({ displayName: text(1, 100) });

export const shippingAddressSchema = z.object({
  firstName: text(1, 50),
  lastName: text(1, 50),
  street: text(5, 200),
  apt: z.string().trim().max(50).optional(),
  country: z.enum(onboardingCountries),
  city: text(2, 100),
  state: z.string().trim().max(100).optional(),
  zip: text(3, 20),
});
export type ShippingAddress = z.infer<typeof shippingAddressSchema>;

export const sizesSchema = z.object({
  topsSize: z.enum(topsSizes),
  bottomsSize: text(1, 10),
  footwearSize: text(1, 10),
});
export type Sizes = z.infer<typeof sizesSchema>;
