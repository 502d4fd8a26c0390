import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  cyclesIn,
  domainImportsWithIo,
  isReadRoute,
  libDependencies,
  libsImportingServices,
  readRoutesImportingEventStore,
  SourceImports,
  WorkspacePackages,
  writeSideImportingReadSide,
} from './architecture/architecture-rules';
import { importsOf, readSourceImports, readWorkspacePackages } from './architecture/source-imports';

/** A small workspace for proving each rule catches what it is meant to catch. */
const fixturePackages: WorkspacePackages = {
  libs: new Map([
    ['@shop/contracts', 'libs/contracts'],
    ['@shop/domain', 'libs/domain'],
    ['@shop/commands', 'libs/commands'],
    ['@shop/eventstore', 'libs/eventstore'],
    ['@shop/projections', 'libs/projections'],
    ['@shop/read-models', 'libs/read-models'],
    ['@shop/chain-indexer', 'libs/chain-indexer'],
  ]),
  services: new Map([
    ['@shop/gateway', 'services/gateway'],
    ['@shop/chain-indexer-service', 'services/chain-indexer'],
  ]),
};
const file = (path: string, ...imports: string[]): SourceImports => ({ path, imports });

describe('architecture rules, on fixtures (each rule fails on a violation)', () => {
  it('reads every kind of import from a source, and no mere mention of a package', () => {
    const source = [
      "import { a } from '@shop/contracts';",
      "import type { Kysely } from 'kysely';",
      "export * from './cart/cart-state';",
      "export { b } from '@shop/domain';",
      "const pg = await import('pg');",
      "const fs = require('node:fs');",
      "// import { x } from '@shop/eventstore';",
      'const text = "from \'@shop/redis\'";',
    ].join('\n');
    expect(importsOf(source).sort()).toEqual(
      ['./cart/cart-state', '@shop/contracts', '@shop/domain', 'kysely', 'node:fs', 'pg'].sort(),
    );
  });

  it('a lib importing a service, by package name or by path, is a violation', () => {
    const files = [
      file('libs/projections/src/runtime.ts', '@shop/contracts', '@shop/gateway'),
      file('libs/eventstore/test/store.int.test.ts', '../../../services/gateway/src/app.module'),
      file('libs/domain/src/x.ts', '@shop/chain-indexer-service/src/indexer'),
      file('libs/read-models/src/uses-a-lib.ts', '@shop/chain-indexer'),
      file('services/gateway/src/main.ts', '@shop/projections', '@shop/chain-indexer-service'),
    ];
    expect(libsImportingServices(files, fixturePackages)).toEqual([
      { file: 'libs/projections/src/runtime.ts', imported: '@shop/gateway' },
      {
        file: 'libs/eventstore/test/store.int.test.ts',
        imported: '../../../services/gateway/src/app.module',
      },
      { file: 'libs/domain/src/x.ts', imported: '@shop/chain-indexer-service/src/indexer' },
    ]);
  });

  it('a cycle among the libs is a violation, reported with its path; test-only imports make none', () => {
    const acyclic = [
      file('libs/projections/src/runtime.ts', '@shop/eventstore'),
      file('libs/eventstore/src/store.ts', '@shop/contracts'),
      file('libs/contracts/test/events.unit.test.ts', '@shop/projections'),
    ];
    expect(cyclesIn(libDependencies(acyclic, fixturePackages))).toEqual([]);
    const cyclic = [
      ...acyclic,
      file('libs/contracts/src/events.ts', '../../read-models/src/cart/cart-cache'),
      file('libs/read-models/src/cart/cart-cache.ts', '@shop/projections'),
    ];
    expect(cyclesIn(libDependencies(cyclic, fixturePackages))).toEqual([
      ['@shop/contracts', '@shop/read-models', '@shop/projections', '@shop/eventstore', '@shop/contracts'],
    ]);
  });

  it('libs/domain importing anything with I/O, or any lib but contracts, is a violation', () => {
    const refused = [
      'node:fs',
      'node:net',
      'node:http',
      'node:https',
      'node:child_process',
      'pg',
      'kysely',
      'ioredis',
      'nats',
      'undici',
      '@mysten/sui/client',
      '@shop/eventstore',
      '@shop/redis',
      '@shop/db',
      '../../../eventstore/src/event-store',
    ];
    const allowed = [
      'zod',
      '@shop/contracts',
      'node:crypto',
      '@mysten/sui/utils',
      '../decider',
      './cart-state',
    ];
    const files = [
      file('libs/domain/src/cart/cart-decider.ts', ...allowed, ...refused),
      file('libs/domain/test/cart-decider.unit.test.ts', 'vitest', 'node:fs'),
    ];
    expect(domainImportsWithIo(files)).toEqual(
      refused.map((imported) => ({ file: 'libs/domain/src/cart/cart-decider.ts', imported })),
    );
  });

  it('tells read routes from the other modules', () => {
    for (const route of [
      'services/gateway/src/cart/get-cart.query.ts',
      'services/gateway/src/orders/order-queries.ts',
      'services/search/src/payment/get-payment-record.query.ts',
      'libs/read-models/src/order/orders-cache.ts',
    ]) {
      expect(isReadRoute(route), route).toBe(true);
    }
    for (const other of [
      'services/gateway/src/cart/add-item.command.ts',
      'services/gateway/src/cart/cart.controller.ts',
      'services/gateway/test/get-cart.query.ts',
      'libs/read-models/src/cart/cart-items-projection.ts',
      'libs/projections/src/command-executor.ts',
    ]) {
      expect(isReadRoute(other), other).toBe(false);
    }
  });

  it('a read route importing the event store, itself or through a module of its own, is a violation', () => {
    const files = [
      file('services/gateway/src/cart/get-cart.query.ts', '@shop/db', '@shop/eventstore'),
      file('services/gateway/src/orders/order-queries.ts', './live-orders', '@shop/read-models'),
      file('services/gateway/src/orders/live-orders.ts', '../infrastructure/tokens'),
      file('services/gateway/src/infrastructure/tokens.ts', '@shop/eventstore/src/decider-runner'),
      file('libs/read-models/src/cart/cart-cache.ts', '../../../eventstore/src/event-store'),
      file('services/gateway/src/cart/add-item.command.ts', '@shop/eventstore'),
    ];
    expect(readRoutesImportingEventStore(files, fixturePackages)).toEqual([
      { file: 'services/gateway/src/cart/get-cart.query.ts', imported: '@shop/eventstore' },
      {
        file: 'services/gateway/src/orders/order-queries.ts',
        imported:
          'services/gateway/src/orders/live-orders.ts -> services/gateway/src/infrastructure/tokens.ts -> @shop/eventstore/src/decider-runner',
      },
      { file: 'libs/read-models/src/cart/cart-cache.ts', imported: '../../../eventstore/src/event-store' },
    ]);
  });
});

describe('architecture rules, on fixtures: the write side', () => {
  it('the write side importing the read side, by package name or by path, is a violation', () => {
    const files = [
      file('libs/commands/src/command-executor.ts', '@shop/domain', '@shop/eventstore', '@shop/projections'),
      file('libs/commands/src/aggregates.ts', '../../read-models/src/cart/cart-cache', './decider-runner'),
      file('libs/commands/test/executor.unit.test.ts', '@shop/projections'),
      file('libs/projections/src/read-model-positions.ts', '@shop/commands'),
    ];
    expect(writeSideImportingReadSide(files, fixturePackages)).toEqual([
      { file: 'libs/commands/src/command-executor.ts', imported: '@shop/projections' },
      { file: 'libs/commands/src/aggregates.ts', imported: '../../read-models/src/cart/cart-cache' },
    ]);
  });
});

describe('architecture of the tree', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const files = readSourceImports(root);
  const packages = readWorkspacePackages(root);

  it('finds the sources, the packages and the read routes it checks', () => {
    expect(files.filter((f) => f.path.startsWith('libs/domain/src/')).length).toBeGreaterThan(20);
    expect(packages.libs.get('@shop/domain')).toBe('libs/domain');
    expect(packages.services.get('@shop/gateway')).toBe('services/gateway');
    expect(files.filter((f) => isReadRoute(f.path)).map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'services/gateway/src/cart/get-cart.query.ts',
        'services/gateway/src/orders/order-queries.ts',
        'services/gateway/src/sessions/session-queries.ts',
        'services/gateway/src/user/get-profile.query.ts',
        'services/gateway/src/onboarding/get-onboarding-status.query.ts',
        'services/search/src/payment/get-payment-record.query.ts',
        'libs/read-models/src/cart/cart-cache.ts',
        'libs/read-models/src/order/orders-cache.ts',
      ]),
    );
  });

  it('no lib imports a service', () => {
    expect(libsImportingServices(files, packages)).toEqual([]);
  });

  it('the libs form no cycle', () => {
    expect(cyclesIn(libDependencies(files, packages))).toEqual([]);
  });

  it('libs/domain imports nothing with I/O', () => {
    expect(domainImportsWithIo(files)).toEqual([]);
  });

  it('no read route imports the event store', () => {
    expect(readRoutesImportingEventStore(files, packages)).toEqual([]);
  });

  it('the write side imports nothing of the read side', () => {
    expect(files.some((f) => f.path.startsWith('libs/commands/src/'))).toBe(true);
    expect(writeSideImportingReadSide(files, packages)).toEqual([]);
  });
});
