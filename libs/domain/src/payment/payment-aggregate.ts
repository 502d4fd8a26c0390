import { defineAggregate } from '../aggregate';
import { paymentDecider } from './payment-decider';

export const paymentAggregate = defineAggregate('payment', paymentDecider, { snapshotVersion: 1 });
