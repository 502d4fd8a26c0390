import { z } from 'zod';
import { defineEvent } from '../event-definition';

export const UserRegistered = defineEvent({
  type: 'UserRegistered',
  version: 1,
  aggregate: 'user',
  description: 'A provider identity was seen for the first time and given an internal user id.',
  schema: z.object({
    providerSubject: z.string().min(1),
    email: z.email().nullable(),
  }),
  // The subject is the provider's id of a person (in development it embeds the email).
  personalData: ['providerSubject', 'email'],
});

export const DisplayNameSet = defineEvent({
  type: 'DisplayNameSet',
  version: 1,
  aggregate: 'user',
  description: 'Onboarding step 1 answered.',
  schema: z.object({ displayName: z.string().min(1).max(100) }),
  personalData: ['displayName'],
});

export const ShippingAddressSaved = defineEvent({
  type: 'ShippingAddressSaved',
  version: 1,
  aggregate: 'user',
  description: 'Onboarding step 2 answered: the address orders are shipped to.',
  schema: z.object({
    firstName: z.string(),
    lastName: z.string(),
    street: z.string(),
    apt: z.string().nullable(),
    country: z.string(),
    city: z.string(),
    state: z.string().nullable(),
    zip: z.string(),
  }),
  personalData: ['firstName', 'lastName', 'street', 'apt', 'city', 'state', 'zip'],
});

export const SizesSaved = defineEvent({
  type: 'SizesSaved',
  version: 1,
  aggregate: 'user',
  description: 'Onboarding step 3 answered; the first one completes onboarding.',
  schema: z.object({
    topsSize: z.string(),
    bottomsSize: z.string(),
    footwearSize: z.string(),
    firstCompletion: z.boolean(),
  }),
  personalData: ['topsSize', 'bottomsSize', 'footwearSize'],
});

export const WalletProvisioningStarted = defineEvent({
  type: 'WalletProvisioningStarted',
  version: 1,
  aggregate: 'user',
  description: 'Wallet provisioning began (status pending).',
  schema: z.object({ attempt: z.number().int().positive() }),
});

export const WalletProvisioned = defineEvent({
  type: 'WalletProvisioned',
  version: 1,
  aggregate: 'user',
  description: 'Both wallets exist: the Sui address (its key is kept outside the stream) and the EVM wallet.',
  schema: z.object({
    suiAddress: z.string().regex(/^0x[0-9a-f]{64}$/),
    evmAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  }),
});

export const WalletProvisioningFailed = defineEvent({
  type: 'WalletProvisioningFailed',
  version: 1,
  aggregate: 'user',
  description: 'Wallet provisioning failed; it can be retried.',
  schema: z.object({ reason: z.string().min(1).max(500) }),
});

export const AccountClosed = defineEvent({
  type: 'AccountClosed',
  version: 1,
  aggregate: 'user',
  description:
    "The account was closed by its user or erased by an operator; the user's data key is destroyed after it, so every personal field of the user reads as erased.",
  schema: z.object({
    by: z.enum(['user', 'operator']),
    // Ids only, never personal: which session keys the erasure destroys, so a reaction can finish
    // it after a crash. Complete up to stream sequence `sessionsThrough`; sessions of the user
    // appended after that are found in the stream. Absent on closures recorded before they were.
    sessionIds: z.array(z.uuid()).optional(),
    sessionsThrough: z.number().int().nonnegative().optional(),
  }),
});

export const userEvents = [
  UserRegistered,
  DisplayNameSet,
  ShippingAddressSaved,
  SizesSaved,
  WalletProvisioningStarted,
  WalletProvisioned,
  WalletProvisioningFailed,
  AccountClosed,
] as const;
