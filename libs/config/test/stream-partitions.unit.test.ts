import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/load-config';
import { sharedEnv } from '../src/shared-config';

const problemsOf = (value: string) => {
  try {
    loadConfig(sharedEnv, { NODE_ENV: 'development', STREAM_PARTITIONS: value });
  } catch (error) {
    return (error as ConfigError).problems;
  }
  return [];
};

describe('STREAM_PARTITIONS', () => {
  it('takes every power of two from 1 to 64', () => {
    for (let count = 1; count <= 64; count *= 2) expect(problemsOf(String(count))).toEqual([]);
    expect(loadConfig(sharedEnv, { NODE_ENV: 'development' }).STREAM_PARTITIONS).toBe(1);
  });

  it('refuses any other count, saying why', () => {
    for (const bad of ['0', '3', '6', '48', '128', '1.5', 'four']) {
      expect(problemsOf(bad)).toEqual([
        expect.stringMatching(/^STREAM_PARTITIONS: .*power of two from 1 to 64/),
      ]);
    }
  });
});
