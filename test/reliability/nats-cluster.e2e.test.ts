import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalogue } from '@shop/contracts';
import { connectNats, EventStore } from '@shop/eventstore';
import { PrivateNatsCluster, startPrivateNatsCluster, testEnvironment } from '@shop/testing';
import { CommandLoad, missingAcknowledged } from './command-load';
import {
  compareWithRebuild,
  figures,
  readStream,
  Stack,
  waitForProjections,
  withDeadline,
  writeFigures,
} from './harness';

/**
 * Three nats-servers on loopback as one JetStream cluster, the stream with three replicas.
 * The node leading the stream is killed under load: no acknowledged event is lost and writes
 * continue on the other two. RELIABILITY_CLUSTER_SECONDS sets how long the load runs on two nodes.
 */
const secondsOnTwoNodes = Number(process.env.RELIABILITY_CLUSTER_SECONDS ?? 5);

let cluster: PrivateNatsCluster;
let stack: Stack;

/** JetStream in a fresh cluster answers once a meta leader is elected; create the R3 stream then. */
async function createReplicatedStream(url: string, stream: string, subjectPrefix: string): Promise<void> {
  const nc = await connectNats(url, 'cluster-setup');
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      try {
        const store = await EventStore.create(nc, {
          stream,
          subjectPrefix,
          catalogue: eventCatalogue,
          replicas: 3,
        });
        await store.provision();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(250);
      }
    }
  } finally {
    await nc.close();
  }
}

beforeAll(async () => {
  cluster = await startPrivateNatsCluster(3);
  const names = testEnvironment('natscluster');
  await createReplicatedStream(cluster.url, names.stream, names.subjectPrefix);
  stack = await Stack.start('natscluster', {
    vars: {
      NATS_URL: cluster.url,
      EVENT_STREAM_REPLICAS: '3',
      EVENT_STREAM: names.stream,
      EVENT_SUBJECT_PREFIX: names.subjectPrefix,
    },
  });
}, 90_000);
afterAll(async () => {
  writeFigures('nats-cluster', { secondsOnTwoNodes });
  await stack?.stop();
  await cluster?.close();
});

describe('three-node JetStream cluster, R3 stream', () => {
  it('loses no acknowledged event when the stream leader is killed, and keeps taking writes', async () => {
    const store = await stack.store();
    expect((await store.jsm.streams.info(stack.env.stream)).config.num_replicas).toBe(3);
    const users = await Promise.all(Array.from({ length: 6 }, () => stack.shopper({ wallet: false })));
    const load = new CommandLoad(users, { allowedCommandStatuses: [503] });
    load.start();
    await sleep(2000);

    const leader = (await store.jsm.streams.info(stack.env.stream)).cluster?.leader;
    const victim = cluster.nodes.find((n) => n.name === leader);
    expect(victim, `stream leader ${leader}`).toBeDefined();
    const killedAt = Date.now();
    await victim!.stop('SIGKILL');
    figures.faultsSurvived++;

    // Writes continue on the two survivors (after a leader election).
    const deadline = Date.now() + 30_000;
    while (load.acknowledgedSince(killedAt) < 20 && Date.now() < deadline) await sleep(100);
    const resumedAfterMs = Date.now() - killedAt;
    expect(load.acknowledgedSince(killedAt)).toBeGreaterThanOrEqual(20);
    await sleep(secondsOnTwoNodes * 1000);
    await load.stop();
    expect(load.unexpected).toEqual([]);
    figures.invariantsBroken += load.unexpected.length;
    const afterKill = load.acknowledgedSince(killedAt);

    // Every acknowledged command is in the stream (now led by another node) and the read model.
    await stack.quietSequence();
    const info = await store.jsm.streams.info(stack.env.stream);
    expect(info.cluster?.leader).not.toBe(leader);
    expect(info.state.messages).toBe(info.state.last_seq);
    await waitForProjections(stack.database, stack.env.schema, info.state.last_seq, 60_000);
    const { missingInStream, missingInReadModel } = await missingAcknowledged(
      load.acknowledged,
      store,
      stack.database,
      stack.env.schema,
    );
    expect(missingInStream).toEqual([]);
    expect(missingInReadModel).toEqual([]);
    const { differing, sequence } = await compareWithRebuild(store, stack.database, stack.env.schema);
    // A reaction backing off since the election may append after the stream went quiet.
    if (sequence > info.state.last_seq)
      console.info(`cluster: ${sequence - info.state.last_seq} commits appended after the stream went quiet`);
    figures.invariantsBroken += differing.length;
    expect(differing).toEqual([]);

    // Reading the whole stream (rebuilds, replays, long aggregates) never hangs on the lost node.
    for (let round = 0; round < 3; round++) {
      const commits = await withDeadline(readStream(store), 20_000, 'reading the stream');
      expect(commits.length).toBeGreaterThanOrEqual(sequence);
      expect(commits.at(-1)?.sequence).toBe(commits.length);
    }

    // The killed node comes back and catches up with the stream.
    await victim!.start();
    const caughtUp = Date.now() + 30_000;
    for (;;) {
      const replicas = (await store.jsm.streams.info(stack.env.stream)).cluster?.replicas ?? [];
      const back = replicas.find((r) => r.name === victim!.name);
      if (back?.current && (back.lag ?? 0) === 0) break;
      if (Date.now() > caughtUp)
        throw new Error(`restarted node did not catch up: ${JSON.stringify(replicas)}`);
      await sleep(250);
    }
    figures.faultsSurvived++;
    console.info(
      `cluster: ${load.acknowledged.length} acknowledged, ${afterKill} after the leader was killed, writes resumed after ${resumedAfterMs} ms`,
    );
  }, 120_000);
});
