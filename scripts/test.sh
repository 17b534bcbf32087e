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
tsc -p dashboard/tsconfig.json
echo "== tests"
# Globs, not folders: Node 24's runner takes a folder argument for a module path.
# One test file per core at least two at once (Node's default is cores - 1, one file at a time on two cores):
# most files wait on ffmpeg, LibreOffice or sockets, so two files at once halve the wall time (9.5 -> 4.5 min
# on 2 cores), and every test must pass under that contention anyway (no test asserts on wall time).
jobs="$(nproc 2>/dev/null || echo 2)"
[ "$jobs" -lt 2 ] && jobs=2
node --test --test-concurrency="$jobs" --test-reporter=spec "$@" 'test/**/*.test.ts'
