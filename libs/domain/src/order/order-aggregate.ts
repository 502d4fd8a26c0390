import { defineAggregate } from '../aggregate';
import { orderDecider } from './order-decider';

export const orderAggregate = defineAggregate('order', orderDecider, { snapshotVersion: 1 });
