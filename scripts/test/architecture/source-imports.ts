import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { SourceImports, WorkspacePackages } from './architecture-rules';

const SKIPPED = new Set(['node_modules', 'dist', 'coverage']);

function typescriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every module specifier a file names: static imports and re-exports, `import type` included,
 * dynamic `import()` and `require()`. Comments and strings that merely mention a package do not count.
 */
export function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

/** The imports of every TypeScript file under libs/ and services/, with repository-relative paths. */
export function readSourceImports(root: string): SourceImports[] {
  return ['libs', 'services'].flatMap((top) =>
    typescriptFiles(join(root, top)).map((file) => ({
      path: relative(root, file).split(sep).join('/'),
      imports: importsOf(readFileSync(file, 'utf8')),
    })),
  );
}

/** The npm name of each package under libs/ and services/, from its package.json. */
export function readWorkspacePackages(root: string): WorkspacePackages {
  const namesIn = (top: string) =>
    new Map(
      readdirSync(join(root, top), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(root, top, entry.name, 'package.json')))
        .map((entry) => {
          const manifest = JSON.parse(readFileSync(join(root, top, entry.name, 'package.json'), 'utf8'));
          return [manifest.name as string, `${top}/${entry.name}`] as const;
        }),
    );
  return { libs: namesIn('libs'), services: namesIn('services') };
}
