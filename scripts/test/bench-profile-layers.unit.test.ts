import { describe, expect, it } from 'vitest';
import {
  CpuProfile,
  GC_LAYER,
  layerTable,
  layerTimes,
  OTHER_LAYER,
  ProfileNode,
} from '../../bench/profile-layers';

const root = '/srv/app';
const frame = (id: number, functionName: string, url: string, children: number[] = []): ProfileNode => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  children,
});

/**
 * A command's stacks, as a compiled gateway's profile has them:
 *   (root) > processTicksAndRejections > runMicrotasks > decideAndAppend (libs/commands)
 *     > append (libs/eventstore) > publish (nats)        -- append
 *     > parse (zod, inside the decider runner)           -- validation, the innermost claim
 *   (root) > parserOnHeadersComplete (node:_http_common) > emit (node:events) > canActivate (auth)
 *     > writev (native)                                  -- a socket write under the guard
 *   (root) > emit (node:events)                          -- nothing claims it
 *   (root) > (garbage collector), (idle), and the profiler writing itself out
 */
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 7, 11, 12, 13, 14]),
    frame(2, 'processTicksAndRejections', 'node:internal/process/task_queues', [3]),
    frame(3, 'runMicrotasks', '', [4]),
    frame(4, 'decideAndAppend', `file://${root}/libs/commands/dist/decider-runner.js`, [5, 6]),
    frame(5, 'append', `file://${root}/libs/eventstore/dist/event-store.js`, [15]),
    frame(6, 'parse', `file://${root}/node_modules/zod/v4/core/parse.js`),
    frame(7, 'parserOnHeadersComplete', 'node:_http_common', [8]),
    frame(8, 'emit', 'node:events', [9]),
    frame(9, 'canActivate', `file://${root}/services/gateway/dist/auth/access.guard.js`, [10]),
    frame(10, 'writev', ''),
    frame(11, 'emit', 'node:events'),
    frame(12, '(garbage collector)', ''),
    frame(13, '(idle)', ''),
    frame(14, 'save', `file://${root}/bench/cpu-profile.cjs`),
    frame(15, 'publish', `file://${root}/node_modules/nats/lib/nats-base-client/nats.js`),
  ],
  // Each sample 1 ms (timeDeltas are µs).
  samples: [4, 4, 5, 15, 15, 6, 7, 8, 9, 10, 11, 12, 12, 13, 13, 13, 14, 3],
  timeDeltas: Array.from({ length: 18 }, () => 1000),
};

describe('layerTimes: a profile sample belongs to the innermost frame a layer claims', () => {
  const times = layerTimes(profile);

  it('gives a frame of a claimed file, and what it calls that no layer claims, to that layer', () => {
    expect(times.get('decider and aggregate cache')).toBe(2);
    // nats' publish and the event store's append are both the append.
    expect(times.get('append and its ack')).toBe(3);
  });

  it('gives a library call to the library layer, whoever calls it', () => {
    expect(times.get('validation')).toBe(1);
  });

  it('passes through unclaimed frames to the nearest claimed one', () => {
    // node:_http_common and node:events under it are HTTP; the guard called through events is the guard.
    expect(times.get('HTTP parsing and routing')).toBe(2);
    expect(times.get('guards and JWT verification')).toBe(1);
  });

  it('claims a native socket write by its name, under whatever called it', () => {
    expect(times.get('socket writes (system calls)')).toBe(1);
  });

  it('keeps GC apart, leaves idle and the profiler itself out, and the unclaimed rest is other', () => {
    expect(times.get(GC_LAYER)).toBe(2);
    // emit at the root (nothing claims it), and runMicrotasks' own time goes to the async machinery.
    expect(times.get(OTHER_LAYER)).toBe(1);
    expect(times.get('promises, async context and timers')).toBe(1);
    const busy = [...times.values()].reduce((a, b) => a + b, 0);
    expect(busy).toBe(profile.samples.length - 3 - 1);
  });
});

describe('a rule naming a function as well as a file', () => {
  it('claims that function of the file, and leaves the rest of the file to its own layer', () => {
    const reply = `file://${root}/node_modules/fastify/lib/reply.js`;
    const times = layerTimes({
      nodes: [frame(1, '(root)', '', [2]), frame(2, 'send', reply, [3]), frame(3, 'serialize', reply)],
      samples: [2, 3, 3],
      timeDeltas: [1000, 1000, 1000],
    });
    expect(times.get('serialization')).toBe(2);
    expect(times.get('HTTP parsing and routing')).toBe(1);
  });
});

describe('layerTable', () => {
  it('shares the measured CPU per unit out by the layers’ shares of the samples', () => {
    const times = new Map([
      ['validation', 30],
      ['append and its ack', 10],
    ]);
    // 2 CPU seconds over 1000 commands: 2000 µs a command, 75% and 25% of it.
    const table = layerTable([{ title: 'command', times, units: 1000, cpuSeconds: 2 }]);
    const row = (layer: string) =>
      table
        .split('\n')
        .find((line) => line.startsWith(`| ${layer} `))!
        .split('|')
        .map((cell) => cell.trim());
    expect(row('validation').slice(2, 4)).toEqual(['1500.0', '75%']);
    expect(row('append and its ack').slice(2, 4)).toEqual(['500.0', '25%']);
    expect(row('total (process CPU)').slice(2, 4)).toEqual(['2000.0', '100%']);
  });
});
