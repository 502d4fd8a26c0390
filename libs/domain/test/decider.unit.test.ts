import { describe, expect, it } from 'vitest';
import { CartCommand } from '../src/cart/cart-commands';
import { cartDecider } from '../src/cart/cart-decider';
import { fold, unhandledCommand } from '../src/decider';

describe('decider', () => {
  it('gives every fold a state of its own', () => {
    const first = fold(cartDecider, []);
    first.knownItemIds.add('item-of-another-cart');
    expect(fold(cartDecider, []).knownItemIds.size).toBe(0);
    expect(cartDecider.initialState()).not.toBe(cartDecider.initialState());
  });

  it('refuses to compile a switch that leaves a command unhandled, and names it if one slips through', () => {
    const decideAll = (command: CartCommand | { type: 'EmptyCart' }) => {
      switch (command.type) {
        case 'AddItem':
        case 'RemoveItem':
        case 'BeginCheckout':
        case 'ReleaseCheckout':
        case 'RestoreItem':
        case 'RecordOnChainCart':
        case 'LinkOnChainItem':
        case 'RemoveOnChainItem':
          return 'handled';
        default:
          // @ts-expect-error EmptyCart is not handled, so `command` is not `never`
          return unhandledCommand(command);
      }
    };
    expect(() => decideAll({ type: 'EmptyCart' })).toThrow('unhandled command EmptyCart');
  });
});
