import { describe, expect, it } from 'vitest';
import type { Aggregates } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import { depositFundingKey, initialDepositState } from '@shop/domain';
import type { ProviderClient } from '@shop/provider';
import { LockCheck, LockLost } from '@shop/reactions';
import { DepositCrediting } from '../src/deposit/deposit-crediting';

const digest = 'Dig3stLock';

/** A claimed deposit, a provider that counts its funding calls, and what was recorded. */
function crediting() {
  const funded: string[] = [];
  const recorded: string[] = [];
  const aggregates = {
    deposit: {
      state: async () => ({
        state: {
          ...initialDepositState(),
          status: 'claimed',
          attempt: 1,
          evmAddress: `0x${'e'.repeat(40)}`,
          usdcAmount: '1.5',
        },
        version: 1,
      }),
      execute: async (_id: string, command: { type: string }) => {
        recorded.push(command.type);
        return { state: initialDepositState(), version: 2 };
      },
    },
  } as unknown as Aggregates;
  const provider = {
    fundWallet: async (_locator: string, _input: unknown, options: { idempotencyKey?: string }) => {
      funded.push(options.idempotencyKey ?? '');
      return {};
    },
  } as unknown as ProviderClient;
  const config = { PROVIDER_CHAIN: 'base-sepolia' } as GatewayConfig;
  return { service: new DepositCrediting(aggregates, provider, config), funded, recorded };
}

const held: LockCheck = { assertHeld: () => undefined };
const lost: LockCheck = {
  assertHeld: () => {
    throw new LockLost('reconcile:test:deposit-claims');
  },
};

describe('funding a claimed deposit under a lock', () => {
  it('calls the provider, under the digest key, while the lock is held', async () => {
    const { service, funded, recorded } = crediting();
    await service.settle(digest, held);
    expect(funded).toEqual([depositFundingKey(digest)]);
    expect(recorded).toEqual(['RecordDepositCredit']);
  });

  it('leaves the call to the new holder when the lock was lost, and records nothing', async () => {
    const { service, funded, recorded } = crediting();
    await expect(service.settle(digest, lost)).rejects.toBeInstanceOf(LockLost);
    expect(funded).toEqual([]);
    expect(recorded).toEqual([]);
  });
});
