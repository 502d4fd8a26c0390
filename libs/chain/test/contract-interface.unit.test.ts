import { Transaction } from '@mysten/sui/transactions';
import { describe, expect, it } from 'vitest';
import contractJson from '../../../proto/sui-cart-contract.json';
import {
  ABORT_NAMES,
  abortNameOf,
  cartContract,
  cartFunction,
  CART_FUNCTION_NAMES,
  parseContractEvent,
} from '@shop/chain';
import { encodeCallArguments } from '../src/call-arguments';

const PKG = `0x${'1'.repeat(64)}`;
const REGISTRY = { objectId: `0x${'2'.repeat(64)}`, initialSharedVersion: '3' };
const USER = `0x${'3'.repeat(64)}`;

describe('the contract file as the client reads it', () => {
  it('names every abort code once and maps codes back to names', () => {
    expect(cartContract.cart.abortCodes.map((abort) => abort.name).sort()).toEqual([...ABORT_NAMES].sort());
    expect(abortNameOf(1n)).toBe('CartFull');
    expect(abortNameOf(2n)).toBe('DuplicateItem');
    expect(abortNameOf(3n)).toBe('ItemNotFound');
    expect(abortNameOf(999n)).toBeUndefined();
    expect(cartContract.cart.limits.maxItemsPerCart).toBe(10);
  });

  it('encodes every entry function offline with the argument count and order the file gives', async () => {
    const values = {
      user: USER,
      product_id: 'B0X',
      product_name: 'Shirt',
      price_cents: 1_999n,
      image_url: 'https://i.example/x.jpg',
      product_url: 'https://s.example/x',
      size: 'M',
      color: 'Blue',
      retailer: 'marketplace',
      item_id: `0x${'4'.repeat(64)}`,
      order_id: 'order-1',
    };
    for (const name of CART_FUNCTION_NAMES) {
      const fn = cartFunction(name);
      const tx = new Transaction();
      tx.setSender(USER);
      tx.setGasPrice(1_000);
      tx.setGasBudget(10_000_000);
      tx.setGasPayment([
        { objectId: `0x${'5'.repeat(64)}`, version: '1', digest: '11111111111111111111111111111111' },
      ]);
      tx.moveCall({
        target: `${PKG}::cart::${name}`,
        arguments: encodeCallArguments(tx, fn, values, REGISTRY),
      });
      const data = Transaction.from(await tx.build()).getData();
      const params = fn.parameters.filter((param) => !param.type.includes('TxContext'));
      expect(data.commands[0]?.MoveCall?.arguments).toHaveLength(params.length);
      expect(data.inputs[0]?.Object?.SharedObject).toMatchObject({
        objectId: REGISTRY.objectId,
        mutable: true,
      });
    }
  });

  it('refuses a call whose value for a parameter is missing or of the wrong kind', () => {
    const tx = new Transaction();
    expect(() => encodeCallArguments(tx, cartFunction('init_cart'), {}, REGISTRY)).toThrow(
      /no value for parameter user/,
    );
    expect(() => encodeCallArguments(tx, cartFunction('init_cart'), { user: 5n }, REGISTRY)).toThrow(
      /expected a string/,
    );
  });

  it('parses events by the field lists in the file and leaves foreign events unknown', () => {
    const base = {
      id: { txDigest: 'D', eventSeq: '0' },
      packageId: PKG,
      transactionModule: 'cart',
      sender: USER,
    };
    const created = parseContractEvent(
      {
        ...base,
        type: `${PKG}::cart::CartCreated`,
        parsedJson: { user: USER, cart_id: '0x9' },
        bcs: '',
        bcsEncoding: 'base64',
      },
      PKG,
    );
    expect(created).toMatchObject({ kind: 'CartCreated', user: USER, cartId: `0x${'0'.repeat(63)}9` });

    const foreign = parseContractEvent(
      {
        ...base,
        type: `0x${'6'.repeat(64)}::cart::CartCreated`,
        parsedJson: {},
        bcs: '',
        bcsEncoding: 'base64',
      },
      PKG,
    );
    expect(foreign.kind).toBe('Unknown');

    expect(() =>
      parseContractEvent(
        {
          ...base,
          type: `${PKG}::cart::CartCreated`,
          parsedJson: { user: USER },
          bcs: '',
          bcsEncoding: 'base64',
        },
        PKG,
      ),
    ).toThrow(/does not match the contract/);
  });

  it('is the file in proto/, not a copy', () => {
    expect(cartContract.cart.functions.map((fn) => fn.name)).toEqual(
      contractJson.cart.functions.map((fn) => fn.name),
    );
  });
});
