import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

const aliasesIn = (folder: string, prefix: string) =>
  readdirSync(resolve(root, folder))
    .filter((name) => existsSync(resolve(root, folder, name, 'src/index.ts')))
    .map((name) => [`@shop/${prefix}${name}`, resolve(root, folder, name, 'src/index.ts')]);

const libAliases = Object.fromEntries([...aliasesIn('libs', ''), ...aliasesIn('infra/sandbox', 'sandbox-')]);

export default defineConfig({
  root,
  plugins: [swc.vite({ configFile: resolve(root, '.swcrc'), module: { type: 'es6' } })],
  resolve: { alias: libAliases },
  test: {
    include: ['{libs,services,infra,scripts}/**/test/**/*.test.ts', 'test/reliability/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: [resolve(root, 'scripts/test/global-setup.ts')],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
