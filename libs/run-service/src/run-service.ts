/** Past this a stuck shutdown is abandoned rather than left hanging. */
const shutdownDeadlineMs = 30_000;

/** Logs the drain and a failed shutdown; the stand-ins have none and stay quiet. */
interface ShutdownLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface StartedService {
  /** Drains and closes everything the process opened. */
  stop(): Promise<void>;
  logger?: ShutdownLog;
}

const describe = (error: unknown) =>
  error instanceof Error ? (error.stack ?? error.message) : String(error);

/**
 * A process's main: starts it, then on SIGTERM or SIGINT stops it and exits 0 (1 when stopping
 * fails, takes longer than the deadline, or a second signal comes). A failed start exits 1 with
 * the reason on stderr.
 */
export function runService(name: string, start: () => Promise<StartedService>): void {
  start().then(
    (service) => {
      let stopping = false;
      const shutdown = (signal: NodeJS.Signals) => {
        if (stopping) process.exit(1);
        stopping = true;
        service.logger?.info({ signal }, `draining ${name} service`);
        setTimeout(() => process.exit(1), shutdownDeadlineMs).unref();
        service.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            if (service.logger) service.logger.error({ err: error }, 'shutdown failed');
            else process.stderr.write(`[${name}] shutdown failed: ${describe(error)}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', shutdown);
      process.on('SIGINT', shutdown);
    },
    (error: unknown) => {
      process.stderr.write(`[${name}] failed to start: ${describe(error)}\n`);
      process.exit(1);
    },
  );
}
