import { defineAggregate } from '../aggregate';
import { depositDecider } from './deposit-decider';

export const depositAggregate = defineAggregate('deposit', depositDecider, { snapshotVersion: 1 });
