import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectorEnv } from '@shop/config';
import { systemActor } from '@shop/contracts';
import { createLogger } from '@shop/logging';
import { dropSchema, openTestEventStore, testEnvironment, TestEventStore } from '@shop/testing';
import { RunningProjector, startProjector } from '../../services/projector/src/projector';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');
const env = testEnvironment('projcli');
let t: TestEventStore;
let projector: RunningProjector;

const cli = (...args: string[]) =>
  run(process.execPath, ['-r', '@swc-node/register', 'scripts/projections.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env.env },
  });

beforeAll(async () => {
  t = await openTestEventStore(env);
  projector = await startProjector(
    loadConfig(projectorEnv, { ...process.env, ...env.env }),
    createLogger('test', 'silent'),
  );
});
afterAll(async () => {
  await projector.stop();
  await t.close();
  await dropSchema(env);
});

describe('npm run projections', () => {
  it('lists a parked subject and skips its poison event', async () => {
    const userId = randomUUID();
    // A display name for a user who never registered: the users projection refuses it.
    const { sequence } = await t.store.append(
      'user',
      userId,
      [{ type: 'DisplayNameSet', data: { displayName: 'Ghost' } }],
      {
        commandId: randomUUID(),
        correlationId: 'test',
        actor: systemActor,
        expectedSequence: 0,
      },
    );
    await projector.runners.find((r) => r.name === 'users')!.caughtUp(sequence);
    const subject = t.store.subject('user', userId);

    const parked = await cli('parked');
    expect(parked.stdout).toContain(`users\t${subject}\tfrom sequence ${sequence}\t1 waiting`);

    const skipped = await cli('skip', 'users', subject);
    expect(skipped.stdout).toContain(`${subject}: applied 0, skipped 1; unparked`);
    expect((await cli('parked')).stdout).not.toContain(subject);

    await expect(cli('retry', 'nope', subject)).rejects.toMatchObject({ code: 64 });
  });
});
