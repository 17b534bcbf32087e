#!/usr/bin/env bash
# The whole test suite, from a fresh clone: set-up, the real-file corpus, lint/format, typecheck, tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh
bash scripts/corpus.sh
export PATH="$root/node_modules/.bin:$PATH"
echo "== lint and format (biome)"
biome ci --reporter=summary .
echo "== typecheck (tsc, strict)"
tsc -p tsconfig.json
echo "== tests"
# Globs, not folders: Node 24's runner takes a folder argument for a module path.
node --test --test-reporter=spec "$@" 'test/**/*.test.ts'
