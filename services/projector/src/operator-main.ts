import { loadConfigOrExit, sharedEnv } from '@shop/config';
import { natsOperatorStep } from './nats-operator-step';

/** Compose's one-shot `operator` service: the operator step on NATS, then it exits. */
natsOperatorStep(loadConfigOrExit(sharedEnv, 'operator'), (line) => process.stdout.write(`${line}\n`)).catch(
  (error: unknown) => {
    process.stderr.write(`operator step failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
