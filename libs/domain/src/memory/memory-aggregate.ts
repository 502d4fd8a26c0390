import { defineAggregate } from '../aggregate';
import { memoryDecider } from './memory-decider';

export const memoryAggregate = defineAggregate('memory', memoryDecider, { snapshotVersion: 1 });
