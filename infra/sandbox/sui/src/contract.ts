import { z } from 'zod';
import contractJson from '../../../../proto/sui-cart-contract.json';

/*
 * The stand-in reads the same contract file as @shop/chain but through its own schema: a
 * simulator that shared the client's parsing would share its bugs too.
 */
const field = z.object({ name: z.string().min(1), type: z.string().min(1) });
const struct = z.object({ fields: z.array(field) });

const contractSchema = z.object({
  cart: z.object({
    module: z.string().min(1),
    limits: z.object({
      maxItemsPerCart: z.number().int().positive(),
      uniqueItemKey: z.array(z.string()).min(1),
      maxBytes: z.record(z.string(), z.number().int().positive()),
      requiredNonEmpty: z.array(z.string()),
      minPriceCents: z.number().int().nonnegative(),
    }),
    structs: z.record(z.string(), struct),
    functions: z.array(
      z.object({
        name: z.string(),
        visibility: z.enum(['Public', 'Friend', 'Private']),
        isEntry: z.boolean(),
        parameters: z.array(field),
        aborts: z.array(z.string()),
        emits: z.array(z.string()),
      }),
    ),
    abortCodes: z.array(z.object({ code: z.number().int().nonnegative(), name: z.string() })),
    events: z.record(z.string(), struct),
  }),
  payment: z.object({
    module: z.string().min(1),
    events: z.object({ PaymentReceipt: struct }),
  }),
});

export type SandboxContract = z.output<typeof contractSchema>;
export type FunctionSpec = SandboxContract['cart']['functions'][number];
export type FieldSpec = z.output<typeof field>;

export const contract: SandboxContract = contractSchema.parse(contractJson);

export function abortCode(name: string): number {
  const entry = contract.cart.abortCodes.find((abort) => abort.name === name);
  if (!entry) throw new Error(`contract file has no abort named ${name}`);
  return entry.code;
}

export function eventFields(name: string): FieldSpec[] {
  const spec = contract.cart.events[name];
  if (!spec) throw new Error(`contract file has no event named ${name}`);
  return spec.fields;
}
