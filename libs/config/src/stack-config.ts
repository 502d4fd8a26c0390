import { z } from 'zod';
import { port } from './env-types';

/**
 * `npm start`'s own variables; each service it starts reads its own. `ports` names the
 * stack-wide port variable of each process with the port it takes when unset (the start script
 * knows its processes).
 */
export function stackEnv(ports: Record<string, number>) {
  return z
    .object({
      /** Where the private NATS and Postgres `npm start` starts keep their data, from the repository's root. */
      STACK_DATA_DIR: z.string().min(1).default('.stack'),
      /** The in-process trace collector's port; unset: 9467, or any free one when that is taken. */
      TRACES_PORT: z.coerce.number().int().min(1).max(65535).optional(),
      ...Object.fromEntries(Object.entries(ports).map(([name, fallback]) => [name, port(fallback)])),
    })
    .transform(({ STACK_DATA_DIR, TRACES_PORT, ...rest }) => ({
      dataDir: STACK_DATA_DIR,
      tracesPort: TRACES_PORT,
      /** Each process's port by its stack-wide variable. */
      ports: rest as Record<string, number>,
    }));
}

export type StackSettings = z.output<ReturnType<typeof stackEnv>>;
