import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readModelProjections } from '@shop/read-models';
import { analyticsProjections } from '../../services/analytics/src/analytics-projections';
import { searchProjections } from '../../services/search/src/payment/read-model/search-projections';

/** The permission table of docs/operations.md says what infra/nats/nats-server.conf enforces. */
const root = resolve(__dirname, '../..');
const config = readFileSync(resolve(root, 'infra/nats/nats-server.conf'), 'utf8');
const operations = readFileSync(resolve(root, 'docs/operations.md'), 'utf8');

/** Each user of the configuration with the subjects it may publish to and the ones it is denied. */
function usersOfConfig(): Record<string, { allow: string[]; deny: string }> {
  const blocks = config.split(/\n\s*user: /).slice(1);
  return Object.fromEntries(
    blocks.map((block) => {
      const name = block.slice(0, block.indexOf('\n')).trim();
      const publish = block.slice(block.indexOf('publish'), block.indexOf('subscribe'));
      const allow = [...publish.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
      const deny = /deny: (\$\w+)/.exec(publish)?.[1] ?? '';
      return [name, { allow, deny }];
    }),
  );
}

/** The durable consumers each user's rights name (by their info subject), and every consumer subject it may publish to. */
function consumersOfConfig(): Record<string, { names: string[]; subjects: string[] }> {
  return Object.fromEntries(
    Object.entries(usersOfConfig()).map(([user, { allow }]) => [
      user,
      {
        names: allow.flatMap((s) => /^\$JS\.API\.CONSUMER\.INFO\.SHOP\.(.+)$/.exec(s)?.[1] ?? []),
        subjects: allow.filter((s) => /^\$JS\.(API\.CONSUMER\.|ACK\.)/.test(s)),
      },
    ]),
  );
}

/** The names of the gateway's reactions, as each reaction class declares it. */
function reactionNames(): string[] {
  const sources = readdirSync(resolve(root, 'services/gateway/src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.reaction.ts'))
    .map((file) => readFileSync(resolve(root, 'services/gateway/src', file), 'utf8'));
  return sources.flatMap((source) => /readonly name = '([^']+)'/.exec(source)?.[1] ?? []).sort();
}

/** The rows of the table under "NATS users and permissions": user, the subjects it may append to, the consumers it owns. */
function tableRows(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(tableCells()).map(([user, cells]) => [user, cells.append]));
}

function tableCells(): Record<string, { append: string[]; consumers: string[] }> {
  const start = operations.indexOf('**NATS users and permissions.**');
  const rows = operations
    .slice(start)
    .split('\n')
    .filter((line) => /^\| `[a-z-]+` +\|/.test(line));
  return Object.fromEntries(
    rows.map((row) => {
      const [user, , append, consumers] = row
        .split('|')
        .slice(1)
        .map((cell) => cell.trim());
      const codes = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      return [user!.replaceAll('`', ''), { append: codes(append!), consumers: codes(consumers!) }];
    }),
  );
}

describe('the NATS permission table of docs/operations.md', () => {
  const users = usersOfConfig();
  const table = tableRows();

  it('has a row for each user of the shipped configuration, and no other', () => {
    expect(Object.keys(table).sort()).toEqual(Object.keys(users).sort());
  });

  it('names exactly the event subjects each user may append to', () => {
    for (const [user, { allow }] of Object.entries(users)) {
      const events = allow.filter((subject) => subject === '>' || subject.startsWith('shop.'));
      expect([user, table[user]]).toEqual([user, events]);
    }
  });

  it('denies every user but the operator the deletion and purge of the stream', () => {
    for (const [user, { allow, deny }] of Object.entries(users)) {
      if (user === 'operator') continue;
      expect([user, deny]).toEqual([user, '$STREAM_ADMIN']);
      expect([user, allow.filter((s) => /STREAM\.(DELETE|PURGE|MSG\.DELETE)|^>$/.test(s))]).toEqual([
        user,
        [],
      ]);
    }
  });

  it('names exactly the consumers each user owns, its own prefix on each, with all six of their subjects and no other', () => {
    const cells = tableCells();
    for (const [user, { names, subjects }] of Object.entries(consumersOfConfig())) {
      if (user === 'operator') continue;
      expect([user, cells[user]!.consumers]).toEqual([user, names]);
      expect([user, names.filter((name) => !name.startsWith(`${user}_`))]).toEqual([user, []]);
      const own = names.flatMap((name) => [
        `$JS.API.CONSUMER.CREATE.SHOP.${name}`,
        `$JS.API.CONSUMER.CREATE.SHOP.${name}.>`,
        `$JS.API.CONSUMER.INFO.SHOP.${name}`,
        `$JS.API.CONSUMER.MSG.NEXT.SHOP.${name}`,
        `$JS.API.CONSUMER.DELETE.SHOP.${name}`,
        `$JS.ACK.SHOP.${name}.>`,
      ]);
      const reads = [
        '$JS.API.CONSUMER.CREATE.SHOP',
        '$JS.API.CONSUMER.LIST.SHOP',
        '$JS.API.CONSUMER.NAMES.SHOP',
      ];
      expect([user, [...subjects].sort()]).toEqual([user, [...own, ...reads].sort()]);
    }
  });

  it('lists the consumer of every reaction and projection the code runs under its process, and no other', () => {
    const consumers = consumersOfConfig();
    const wanted = {
      gateway: reactionNames().map((name) => `gateway_reaction_${name}`),
      projector: readModelProjections().map((p) => `projector_projection_${p.name}`),
      search: searchProjections.map((p) => `search_projection_${p.name}`),
      analytics: analyticsProjections.map((p) => `analytics_projection_${p.name}`),
      replay: [],
      'chain-indexer': [],
    };
    for (const [user, names] of Object.entries(wanted))
      expect([user, [...consumers[user]!.names].sort()]).toEqual([user, [...names].sort()]);
  });

  it('gives no service user the right to create or update a stream', () => {
    for (const [user, { allow }] of Object.entries(usersOfConfig())) {
      if (user === 'operator') continue;
      expect([user, allow.filter((s) => /STREAM\.(CREATE|UPDATE)/.test(s))]).toEqual([user, []]);
    }
    expect(config).toMatch(
      /STREAM_ADMIN = \[\s*"\$JS\.API\.STREAM\.CREATE\.>"\s*"\$JS\.API\.STREAM\.UPDATE\.>"/,
    );
  });
});
