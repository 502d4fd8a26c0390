import { defineAggregate } from '../aggregate';
import { cartDecider } from './cart-decider';

export const cartAggregate = defineAggregate('cart', cartDecider, { snapshotVersion: 2 });
