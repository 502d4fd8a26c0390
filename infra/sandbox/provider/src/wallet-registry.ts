import { Address, getAddress, isAddress } from 'viem';
import { z } from 'zod';
import { chainOrReject, sandboxChainNames } from './chains';
import { stableAddress } from './ids';
import { ProviderApiError } from './provider-api-error';
import { fromBaseUnits, usdcDecimals } from './usdc';

const evmAddress = z.string().refine((v) => isAddress(v, { strict: false }), 'must be an EVM address');

/** Owners are `<kind>:<id>`; emails are case-insensitive, so they are kept lower-case. */
const owner = z
  .string()
  .regex(
    /^(email|userId|phoneNumber|twitter|x):[^:]+$/,
    'owner must look like email:<address> or userId:<id>',
  )
  .transform((v) => (v.startsWith('email:') ? v.toLowerCase() : v));

export const createWalletBody = z.object({
  chainType: z.literal('evm', 'the sandbox only creates evm wallets'),
  type: z.literal('smart', 'the sandbox only creates smart wallets'),
  owner: owner.optional(),
  config: z.object({
    adminSigner: z.discriminatedUnion('type', [
      z.object({ type: z.literal('email'), email: z.email() }),
      z.object({ type: z.literal('api-key') }),
      z.object({ type: z.literal('external-wallet'), address: evmAddress }),
    ]),
  }),
});
export type CreateWalletBody = z.output<typeof createWalletBody>;

type AdminSignerWire = { type: string; locator: string; address: Address; email?: string };

export interface WalletWire {
  chainType: 'evm';
  type: 'smart';
  address: Address;
  owner?: string;
  createdAt: string;
  config: { adminSigner: AdminSignerWire };
}

interface WalletRecord {
  wire: WalletWire;
  /** USDC base units per chain name. */
  balances: Map<string, bigint>;
}

const ownerLocator = /^((?:email|userId|phoneNumber|twitter|x):[^:]+):evm(?::smart)?$/;

export class WalletRegistry {
  private readonly byAddress = new Map<string, WalletRecord>();
  private readonly byOwner = new Map<string, WalletRecord>();
  private ownerless = 0;

  /** One wallet per owner: a repeat returns the existing one, as the provider does. */
  create(body: CreateWalletBody): { wallet: WalletWire; created: boolean } {
    const known = body.owner ? this.byOwner.get(body.owner) : undefined;
    if (known) return { wallet: known.wire, created: false };
    const seed = body.owner ?? `ownerless:${++this.ownerless}`;
    const wire: WalletWire = {
      chainType: 'evm',
      type: 'smart',
      address: stableAddress(`provider-wallet:${seed}`),
      ...(body.owner ? { owner: body.owner } : {}),
      createdAt: new Date().toISOString(),
      config: { adminSigner: adminSignerWire(body.config.adminSigner, seed) },
    };
    const record: WalletRecord = { wire, balances: new Map() };
    this.byAddress.set(wire.address.toLowerCase(), record);
    if (body.owner) this.byOwner.set(body.owner, record);
    return { wallet: wire, created: true };
  }

  get(locator: string): WalletWire {
    return this.require(locator).wire;
  }

  /** Any address can be asked about; one the stand-in never made simply holds nothing. */
  balanceOf(address: string, chain: string): bigint {
    return this.byAddress.get(address.toLowerCase())?.balances.get(chain) ?? 0n;
  }

  credit(locator: string, chain: string, amount: bigint): WalletWire {
    chainOrReject(chain);
    const record = this.require(locator);
    record.balances.set(chain, (record.balances.get(chain) ?? 0n) + amount);
    return record.wire;
  }

  debit(address: string, chain: string, amount: bigint): void {
    const record = this.byAddress.get(address.toLowerCase());
    const balance = record?.balances.get(chain) ?? 0n;
    if (!record || balance < amount) {
      throw new ProviderApiError(409, `wallet ${address} holds ${fromBaseUnits(balance)} usdc on ${chain}`);
    }
    record.balances.set(chain, balance - amount);
  }

  /** The 2025-06-09 balances format: one entry per token, summed over the asked chains. */
  tokenBalances(locator: string, tokens: string[], chains: string[]): unknown[] {
    const record = this.require(locator);
    const asked = chains.map(chainOrReject);
    // Only the stablecoin moves in the sandbox; other tokens are left out as unknown to it.
    if (!tokens.includes('usdc')) return [];
    const perChain = asked.map((chain) => ({ chain, raw: record.balances.get(chain.name) ?? 0n }));
    const total = perChain.reduce((sum, { raw }) => sum + raw, 0n);
    return [
      {
        symbol: 'usdc',
        name: 'USD Coin',
        decimals: usdcDecimals,
        amount: fromBaseUnits(total),
        rawAmount: total.toString(),
        chains: Object.fromEntries(
          perChain.map(({ chain, raw }) => [
            chain.name,
            {
              locator: `${chain.name}:${chain.usdc}`,
              amount: fromBaseUnits(raw),
              rawAmount: raw.toString(),
              contractAddress: chain.usdc,
            },
          ]),
        ),
      },
    ];
  }

  /** The faucet's legacy v1-alpha2 answer: base units per chain plus `total`. */
  legacyBalances(locator: string): unknown[] {
    const record = this.require(locator);
    const balances: Record<string, string> = {};
    let total = 0n;
    for (const name of sandboxChainNames()) {
      const raw = record.balances.get(name) ?? 0n;
      balances[name] = raw.toString();
      total += raw;
    }
    balances.total = total.toString();
    return [{ token: 'usdc', decimals: usdcDecimals, balances }];
  }

  private require(locator: string): WalletRecord {
    const record = this.find(locator);
    if (!record) throw new ProviderApiError(404, `Wallet ${locator} not found`, 'wallet-not-found');
    return record;
  }

  private find(locator: string): WalletRecord | undefined {
    if (isAddress(locator, { strict: false })) return this.byAddress.get(locator.toLowerCase());
    const match = ownerLocator.exec(locator);
    if (!match?.[1]) {
      throw new ProviderApiError(
        400,
        `${locator} is not a wallet locator (address or <owner>:evm)`,
        'invalid-locator',
      );
    }
    return this.byOwner.get(owner.parse(match[1]));
  }
}

function adminSignerWire(signer: CreateWalletBody['config']['adminSigner'], seed: string): AdminSignerWire {
  switch (signer.type) {
    case 'email':
      return {
        type: 'email',
        email: signer.email,
        locator: `email:${signer.email}`,
        address: stableAddress(`provider-signer:email:${signer.email.toLowerCase()}`),
      };
    case 'api-key': {
      const address = stableAddress(`provider-signer:api-key:${seed}`);
      return { type: 'api-key', locator: `api-key:${address}`, address };
    }
    case 'external-wallet': {
      const address = getAddress(signer.address);
      return { type: 'external-wallet', locator: `external-wallet:${address}`, address };
    }
  }
}
