#!/usr/bin/env bash
# The test suite, from a fresh clone: set-up, the real-file corpus, then
#   npm test                      lint/format, typecheck and every test file (CI: .ci/run)
#   npm test -- PATH|GLOB ...     only those test files (folders and globs too), no lint or typecheck
#   npm run test:fast [PATH ...]  the fast tier only (test/run/tiers.ts), no lint or typecheck
# The tests run through test/run/run-tests.ts: one pool, longest first, with a bound of its own on heavy files,
# then the slowest files and the run's wall and CPU time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh
bash scripts/corpus.sh
export PATH="$root/node_modules/.bin:$PATH"
if [ "$#" -eq 0 ]; then
  echo "== lint and format (biome)"
  biome ci --reporter=summary .
  echo "== typecheck (tsc, strict)"
  tsc -p tsconfig.json
  tsc -p dashboard/tsconfig.json
fi
echo "== tests"
status=0
node test/run/run-tests.ts "$@" || status=$?
echo "== npm test: ${SECONDS} s in all, set-up included, exit status ${status}"
exit "$status"
