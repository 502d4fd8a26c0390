import { defineAggregate } from '../aggregate';
import { userDecider } from './user-decider';

export const userAggregate = defineAggregate('user', userDecider, { snapshotVersion: 1 });
