#!/usr/bin/env bash
# Scaffolds a workspace package: scripts/new-package.sh libs/name | services/name | infra/sandbox/name
set -euo pipefail
dir=$1
name=$(basename "$dir")
case "$dir" in infra/sandbox/*) name="sandbox-$name" ;; esac
depth=$(echo "$dir" | tr -cd '/' | wc -c)
up=$(printf '../%.0s' $(seq 0 "$depth"))
mkdir -p "$dir/src" "$dir/test"
[ -f "$dir/package.json" ] || cat > "$dir/package.json" <<JSON
{
  "name": "@shop/$name",
  "version": "0.1.0",
  "private": true,
  "main": "dist/index.js",
  "types": "src/index.ts",
  "scripts": {
    "build": "swc src -d dist --strip-leading-paths --config-file ${up}.swcrc --ignore '**/*.test.ts'",
    "typecheck": "tsc -p tsconfig.json",
    "lint": "eslint .",
    "test": "vitest run --root ${up} --passWithNoTests $dir/"
  }
}
JSON
[ -f "$dir/tsconfig.json" ] || cat > "$dir/tsconfig.json" <<JSON
{
  "extends": "${up}tsconfig.base.json",
  "compilerOptions": { "baseUrl": "${up}" },
  "include": ["src/**/*.ts", "test/**/*.ts"]
}
JSON
[ -f "$dir/src/index.ts" ] || echo "export {};" > "$dir/src/index.ts"
echo "scaffolded $dir"
