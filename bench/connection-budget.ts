/**
 * Whether the Postgres connections the bench's phases hold at their peak fit the server, checked
 * before anything starts: a stock Postgres takes 100, and a phase past it fails minutes in with
 * `sorry, too many clients already`.
 */

/**
 * Connections a bench stack holds outside its two pools: one per single-active reaction of the
 * gateway, each locked on a connection of its own (6: deposit-crediting, wallet-provisioning,
 * provider-webhooks, account-erasure, session-key-erasure, order-cart), and the projector's
 * partition-claims session (1). Counted per process (`ss -tnp` against pg_stat_activity) on an
 * idle bench stack; a reaction or lock added to the gateway or projector adds to it.
 */
export const STACK_CONNECTIONS_BEYOND_POOLS = 7;

/** The pool sizes of a bench stack's gateway and projector (DATABASE_POOL_SIZE; unset, 20 and 10). */
export interface StackPools {
  gateway: number;
  projector: number;
}

/** The services' own pool sizes, which the main stack runs with. */
export const SERVICE_POOLS: StackPools = { gateway: 20, projector: 10 };

/** The most connections one bench stack (gateway and projector) holds. */
export function stackConnections(pools: StackPools): number {
  return pools.gateway + pools.projector + STACK_CONNECTIONS_BEYOND_POOLS;
}

/** What the server allows, read from it before the bench starts anything. */
export interface ServerConnections {
  maxConnections: number;
  /** superuser_reserved_connections, plus reserved_connections where the server has it (16+). */
  reserved: number;
  /** Client connections already open, the bench's own query aside: other work on the server. */
  inUse: number;
}

export interface PhaseDemand {
  phase: string;
  /** What holds connections at the phase's peak, each with the most it holds. */
  holders: { what: string; connections: number }[];
}

/** The pool size of each tracing stack's gateway and projector (--tracing-pool-size). */
export const TRACING_POOL_SIZE = 5;

/** What the bench keeps of its own pool for the tracing phase, which reads nothing: cleaning up after it. */
export const BENCH_POOL_DURING_TRACING = 2;

/** The bench's own pool for a load of `concurrency` workers: one each, and a few for its own reads. */
export const benchPoolFor = (concurrency: number) => concurrency + 4;

/** The phases' peaks that do not fit, each as a sentence naming its holders and the server's room. */
export function connectionShortfalls(server: ServerConnections, demands: PhaseDemand[]): string[] {
  const room = server.maxConnections - server.reserved - server.inUse;
  return demands.flatMap(({ phase, holders }) => {
    const needed = holders.reduce((sum, holder) => sum + holder.connections, 0);
    if (needed <= room) return [];
    const parts = holders.map((holder) => `${holder.what} ${holder.connections}`).join(', ');
    return [
      `the ${phase} phase needs ${needed} Postgres connections at its peak (${parts}), but the server ` +
        `has room for ${room} (max_connections ${server.maxConnections}, ${server.reserved} reserved, ` +
        `${server.inUse} in use by others): ${needed - room} short`,
    ];
  });
}

/** The peak of the phases that run stacks: the main stack's, and tracing's five stacks. */
export function benchDemands(options: {
  /** The bench's own pool: the load's concurrency and a few for its own reads. */
  benchPool: number;
  tracing: { stacks: number; pools: StackPools; benchPool: number } | null;
}): PhaseDemand[] {
  // The main stack runs from the start to the tracing phase, whatever phases are chosen.
  const demands: PhaseDemand[] = [
    {
      phase: 'main stack',
      holders: [
        { what: "the bench's own pool", connections: options.benchPool },
        {
          what: `the stack (pools ${SERVICE_POOLS.gateway} and ${SERVICE_POOLS.projector}, locks ${STACK_CONNECTIONS_BEYOND_POOLS})`,
          connections: stackConnections(SERVICE_POOLS),
        },
      ],
    },
  ];
  const { tracing } = options;
  if (tracing)
    // The main stack and the bench's large pool are closed before it starts.
    demands.push({
      phase: 'tracing',
      holders: [
        { what: "the bench's own pool", connections: tracing.benchPool },
        {
          what: `${tracing.stacks} stacks of ${stackConnections(tracing.pools)} (pools ${tracing.pools.gateway} and ${tracing.pools.projector}, locks ${STACK_CONNECTIONS_BEYOND_POOLS})`,
          connections: tracing.stacks * stackConnections(tracing.pools),
        },
      ],
    });
  return demands;
}

/** Refuses, before anything starts, a run whose phases would not fit the server's connections. */
export function checkConnectionBudget(server: ServerConnections, demands: PhaseDemand[]): void {
  const shortfalls = connectionShortfalls(server, demands);
  if (shortfalls.length > 0)
    throw new Error(
      `${shortfalls.join('; ')}. Raise max_connections, stop what else is connected, lower --tracing-pool-size or --concurrency, or leave the phase out (--phases).`,
    );
}
