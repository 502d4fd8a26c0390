import { defineAggregate } from '../aggregate';
import { sessionDecider } from './session-decider';

export const sessionAggregate = defineAggregate('session', sessionDecider, { snapshotVersion: 1 });
