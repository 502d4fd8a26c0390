import { ReadinessCheck } from '../readiness';

/** What a service hands the probes: the dependencies /ready checks, and what to undo on shutdown. */
export interface ObservabilityWiring {
  checks: readonly ReadinessCheck[];
  /** Detaches hooks and listeners the wiring attached. */
  stop?: () => void;
}

export const OBSERVABILITY_WIRING = Symbol('OBSERVABILITY_WIRING');
