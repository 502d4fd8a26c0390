import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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

/** The rows of the table under "NATS users and permissions": user and the subjects it may append to. */
function tableRows(): Record<string, string[]> {
  const start = operations.indexOf('**NATS users and permissions.**');
  const rows = operations
    .slice(start)
    .split('\n')
    .filter((line) => /^\| `[a-z-]+` +\|/.test(line));
  return Object.fromEntries(
    rows.map((row) => {
      const [user, , append] = row
        .split('|')
        .slice(1)
        .map((cell) => cell.trim());
      return [user!.replaceAll('`', ''), [...append!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)];
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
});
