#!/usr/bin/env bash
# The documents benchmark, one command (`npm run bench:documents`): set-up, the corpus of real PDFs and office
# files (scripts/corpus/bench-documents.txt, Debian packages unpacked here), then bench/documents/run.ts.
# Results: a Markdown table on stdout and bench/results/documents.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh
export PRESSO_BENCH_CORPUS="${PRESSO_BENCH_CORPUS:-.corpus/bench}"
bash scripts/corpus.sh "$PRESSO_BENCH_CORPUS" scripts/corpus/bench-documents.txt
export PATH="$root/node_modules/.bin:$PATH"
node bench/documents/run.ts "$@"
