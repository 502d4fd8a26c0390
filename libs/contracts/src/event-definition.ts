import { z } from 'zod';
import { AggregateName } from './aggregates';

export interface EventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> {
  readonly type: T;
  readonly version: number;
  readonly aggregate: AggregateName;
  readonly description: string;
  readonly schema: S;
  /** Top-level data fields holding personal data: stored encrypted under the subject's data key. */
  readonly personalData: readonly string[];
}

export function defineEvent<T extends string, S extends z.ZodType>(definition: {
  type: T;
  version: number;
  aggregate: AggregateName;
  description: string;
  schema: S;
  personalData?: readonly string[];
}): EventDefinition<T, S> {
  return { personalData: [], ...definition };
}

/** Moves the data of one event type from `fromVersion` to `fromVersion + 1`. */
export interface Upcaster {
  readonly type: string;
  readonly fromVersion: number;
  readonly up: (data: unknown) => unknown;
}

export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? { type: T; data: z.output<S> } : never;
