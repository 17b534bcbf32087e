#!/usr/bin/env bash
# The benchmark, one command: set-up (Debian tools + npm), the corpus (Debian packages, downloaded here), then
# bench/images/run.ts. `npm run bench -- --quick` for a smaller sample. Results: bench/results/*.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh
bash scripts/corpus.sh "${PRESSO_BENCH_CORPUS:-.corpus/bench}" scripts/corpus/bench-images.txt
export PATH="$root/node_modules/.bin:$PATH"
node bench/images/run.ts "$@"
