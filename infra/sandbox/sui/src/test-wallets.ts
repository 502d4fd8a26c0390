import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { coinBalance } from './executor';
import type { Fixtures } from './fixtures';
import { storageCostOf } from './gas';
import { randomDigest, randomObjectId } from './identifiers';
import type { Ledger } from './ledger';
import type { StoredObject } from './object-store';

export interface WalletPaymentInput {
  payer: string;
  receiver: string;
  amountMist: bigint;
  coinType: string;
  nonce: string;
}

/** The payer's coins of that type hold less than the payment: nothing is spent or recorded. */
export class InsufficientCoinBalance extends Error {}

/** The stand-in's own faucet address, the sender of its transfers. */
export const FAUCET_ADDRESS = normalizeSuiAddress('0xfa0cee');

const coinObjectType = (coinType: string) => normalizeStructTag(`0x2::coin::Coin<${coinType}>`);

/**
 * Test coins and the payments a wallet makes with them. The faucet mints a coin of any type to an
 * address; a wallet payment spends the payer's coins through the payment package's `pay` and
 * records the transaction with its PaymentReceipt, as executing the wallet's signed transaction
 * would. Nobody signs: the stand-in acts for the address, since the page asking holds no key.
 */
export class TestWallets {
  constructor(
    private readonly ledger: Ledger,
    private readonly fixtures: Fixtures,
  ) {}

  balance(owner: string, coinType: string): bigint {
    return this.coinsOf(owner, coinType).reduce((sum, coin) => sum + coinBalance(coin), 0n);
  }

  coinCount(owner: string, coinType: string): number {
    return this.coinsOf(owner, coinType).length;
  }

  /** Mints `amountMist` of `coinType` to `owner` in a transfer from the faucet; returns its digest. */
  faucet(owner: string, coinType: string, amountMist: bigint): string {
    const recipient = normalizeSuiAddress(owner);
    const digest = this.fixtures.addTransaction({
      sender: FAUCET_ADDRESS,
      call: { package: '0x2', module: 'pay', function: 'split_and_transfer' },
      balanceChanges: [{ owner: { AddressOwner: recipient }, coinType, amount: String(amountMist) }],
    });
    this.mint(recipient, coinType, amountMist, digest);
    return digest;
  }

  /** Spends the payer's coins through the payment package; returns the payment's digest. */
  pay(input: WalletPaymentInput): string {
    const coins = this.coinsOf(input.payer, input.coinType);
    const held = coins.reduce((sum, coin) => sum + coinBalance(coin), 0n);
    if (input.amountMist <= 0n || held < input.amountMist) {
      throw new InsufficientCoinBalance(
        `${normalizeSuiAddress(input.payer)} holds ${held} of ${input.coinType}, not ${input.amountMist}`,
      );
    }
    const digest = this.fixtures.createPayment(input);
    let due = input.amountMist;
    for (const coin of coins) {
      if (due === 0n) break;
      const taken = coinBalance(coin) < due ? coinBalance(coin) : due;
      due -= taken;
      if (taken === coinBalance(coin)) this.ledger.objects.remove(coin.objectId, coin.version + 1n);
      else
        this.ledger.objects.put({
          ...coin,
          version: coin.version + 1n,
          digest: randomDigest(),
          fields: { ...coin.fields, balance: String(coinBalance(coin) - taken) },
          previousTransaction: digest,
        });
    }
    this.mint(normalizeSuiAddress(input.receiver), input.coinType, input.amountMist, digest);
    return digest;
  }

  private mint(owner: string, coinType: string, amountMist: bigint, digest: string): void {
    const objectId = randomObjectId();
    const coin = {
      objectId,
      version: 1n,
      type: coinObjectType(coinType),
      owner: { AddressOwner: owner },
      fields: { id: { id: objectId }, balance: String(amountMist) },
    };
    this.ledger.objects.put({
      ...coin,
      digest: randomDigest(),
      children: {},
      storageCost: storageCostOf(coin),
      previousTransaction: digest,
    });
  }

  private coinsOf(owner: string, coinType: string): StoredObject[] {
    const holder = normalizeSuiAddress(owner);
    const wanted = coinObjectType(coinType);
    return this.ledger.objects
      .all()
      .filter(
        (object) =>
          typeof object.owner === 'object' &&
          'AddressOwner' in object.owner &&
          normalizeSuiAddress(object.owner.AddressOwner) === holder &&
          normalizeStructTag(object.type) === wanted,
      )
      .sort((a, b) => a.objectId.localeCompare(b.objectId));
  }
}
