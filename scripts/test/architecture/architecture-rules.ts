import { posix } from 'node:path';

/** One TypeScript file and the module specifiers it imports; `path` is repository-relative. */
export interface SourceImports {
  path: string;
  imports: string[];
}

/** npm name to package folder (`@shop/domain` -> `libs/domain`) of the libs and of the services. */
export interface WorkspacePackages {
  libs: Map<string, string>;
  services: Map<string, string>;
}

export interface Violation {
  file: string;
  imported: string;
}

/**
 * What libs/domain may import: its deciders are pure, so nothing that reaches a network, a disk,
 * a process or a clock. `node:crypto` hashes name-based ids; `@mysten/sui/utils` only normalises
 * address and type-tag strings (the Sui client lives in `@mysten/sui/client`, refused).
 */
export const DOMAIN_ALLOWED_IMPORTS: readonly string[] = [
  'zod',
  '@shop/contracts',
  'node:crypto',
  '@mysten/sui/utils',
];

/**
 * A read route answers a read from the read models, never from the stream:
 * - a query handler of a service: `services/<service>/src/**` files named `*.query.ts` (one
 *   @nestjs/cqrs query handler) or `*-queries.ts` (several);
 * - a read model's reads in libs/read-models: `*-queries.ts`, the queries those handlers call,
 *   and `*-cache.ts`, the caches they read through.
 * The modules of its own package a read route imports by relative path count as the route too.
 */
export function isReadRoute(path: string): boolean {
  return (
    /^services\/[^/]+\/src\/.+(\.query|-queries)\.ts$/.test(path) ||
    /^libs\/read-models\/src\/.+(-cache|-queries)\.ts$/.test(path)
  );
}

const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../');

/** `libs/domain/src/cart/x.ts` -> `libs/domain`. */
export function packageFolderOf(path: string): string | undefined {
  const [top, name] = path.split('/');
  return top && name ? `${top}/${name}` : undefined;
}

/** `@shop/eventstore/src/x` -> `@shop/eventstore`, `@mysten/sui/utils` -> `@mysten/sui`, `pg` -> `pg`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const resolveRelative = (from: string, specifier: string) =>
  posix.normalize(posix.join(posix.dirname(from), specifier));

/** The package folder an import lands in, whether named as a workspace package or reached by path. */
function targetFolder(from: string, specifier: string, packages: WorkspacePackages): string | undefined {
  if (isRelative(specifier)) return packageFolderOf(resolveRelative(from, specifier));
  const name = packageNameOf(specifier);
  return packages.libs.get(name) ?? packages.services.get(name);
}

/** Rule: a lib (source or test) never imports a service, by package name or by relative path. */
export function libsImportingServices(files: SourceImports[], packages: WorkspacePackages): Violation[] {
  return files
    .filter((file) => file.path.startsWith('libs/'))
    .flatMap((file) =>
      file.imports
        .filter((specifier) => targetFolder(file.path, specifier, packages)?.startsWith('services/'))
        .map((imported) => ({ file: file.path, imported })),
    );
}

/**
 * The libs' dependency graph from their production sources (`libs/<lib>/src`): lib name to the
 * libs it imports. Tests are left out: a lib's test may use @shop/testing, which uses the lib.
 */
export function libDependencies(
  files: SourceImports[],
  packages: WorkspacePackages,
): Map<string, Set<string>> {
  const nameOf = new Map([...packages.libs].map(([name, folder]) => [folder, name]));
  const graph = new Map([...packages.libs.keys()].map((name) => [name, new Set<string>()]));
  for (const file of files) {
    const folder = packageFolderOf(file.path);
    const lib = folder && nameOf.get(folder);
    if (!lib || !file.path.startsWith(`${folder}/src/`)) continue;
    for (const specifier of file.imports) {
      const target = nameOf.get(targetFolder(file.path, specifier, packages) ?? '');
      if (target && target !== lib) graph.get(lib)!.add(target);
    }
  }
  return graph;
}

/** Rule: the graph has no cycle. Each cycle found is returned as its path, first node repeated last. */
export function cyclesIn(graph: Map<string, Set<string>>): string[][] {
  const done = new Set<string>();
  const cycles = new Map<string, string[]>();
  const visit = (node: string, path: string[]) => {
    const at = path.indexOf(node);
    if (at >= 0) {
      const cycle = path.slice(at);
      // One entry per cycle, whichever node the walk entered it by.
      const start = cycle.indexOf([...cycle].sort()[0]!);
      const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
      cycles.set(rotated.join(' -> '), [...rotated, rotated[0]!]);
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return [...cycles.values()];
}

/** Rule: libs/domain/src imports only the allow-list, and nothing outside libs/domain by path. */
export function domainImportsWithIo(files: SourceImports[]): Violation[] {
  return files
    .filter((file) => file.path.startsWith('libs/domain/src/'))
    .flatMap((file) =>
      file.imports
        .filter((specifier) =>
          isRelative(specifier)
            ? !resolveRelative(file.path, specifier).startsWith('libs/domain/')
            : !DOMAIN_ALLOWED_IMPORTS.includes(specifier),
        )
        .map((imported) => ({ file: file.path, imported })),
    );
}

/**
 * Rule: no read route imports the event store (@shop/eventstore, or libs/eventstore by path),
 * itself or through a module of its own package it imports by relative path. The violation
 * names the route and the chain of modules that reaches the store.
 */
export function readRoutesImportingEventStore(
  files: SourceImports[],
  packages: WorkspacePackages,
): Violation[] {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const moduleAt = (path: string) =>
    byPath.get(path) ?? byPath.get(`${path}.ts`) ?? byPath.get(`${path}/index.ts`);
  const violations: Violation[] = [];
  for (const route of files.filter((file) => isReadRoute(file.path))) {
    const folder = packageFolderOf(route.path);
    const seen = new Set<string>();
    const walk = (file: SourceImports, chain: string[]) => {
      if (seen.has(file.path)) return;
      seen.add(file.path);
      for (const specifier of file.imports) {
        if (targetFolder(file.path, specifier, packages) === 'libs/eventstore') {
          violations.push({ file: route.path, imported: [...chain, specifier].join(' -> ') });
        } else if (isRelative(specifier)) {
          const next = moduleAt(resolveRelative(file.path, specifier));
          if (next && packageFolderOf(next.path) === folder) walk(next, [...chain, next.path]);
        }
      }
    };
    walk(route, []);
  }
  return violations;
}

/** The read side's packages: the projections, the read models and their stores. */
export const READ_SIDE_FOLDERS: readonly string[] = [
  'libs/projections',
  'libs/read-models',
  'libs/db',
  'libs/redis',
];

/**
 * Rule: the write side (libs/commands/src) imports nothing of the read side, by name or by path:
 * it waits for its commits to be readable through the ReadYourWrites it is given.
 */
export function writeSideImportingReadSide(files: SourceImports[], packages: WorkspacePackages): Violation[] {
  return files
    .filter((file) => file.path.startsWith('libs/commands/src/'))
    .flatMap((file) =>
      file.imports
        .filter((specifier) => READ_SIDE_FOLDERS.includes(targetFolder(file.path, specifier, packages) ?? ''))
        .map((imported) => ({ file: file.path, imported })),
    );
}
