import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventCatalogue } from '../src/domain-events';
import { generateProto } from '../src/proto';

const protoDir = resolve(__dirname, '../../../proto');

describe('proto/', () => {
  it('matches what libs/contracts generates (run `npm run proto` after changing an event)', () => {
    const files = generateProto(eventCatalogue);
    for (const [path, content] of files) {
      const file = join(protoDir, path);
      expect(existsSync(file), `${path} is missing`).toBe(true);
      expect(readFileSync(file, 'utf8'), `${path} is stale`).toBe(content);
    }
    const onDisk = readdirSync(join(protoDir, 'events')).map((f) => `events/${f}`);
    expect(onDisk.sort()).toEqual([...files.keys()].filter((p) => p.startsWith('events/')).sort());
  });

  it('describes every event type with its envelope and versioned data', () => {
    const asyncapi = JSON.parse(generateProto(eventCatalogue).get('asyncapi.json')!);
    expect(asyncapi.asyncapi).toBe('3.0.0');
    expect(asyncapi.channels.cart.address).toBe('{prefix}.cart.{hashBits}.{aggregateId}');
    expect(Object.keys(asyncapi.components.schemas)).toEqual(
      expect.arrayContaining(['ItemAdded', 'UserRegistered']),
    );
  });
});
