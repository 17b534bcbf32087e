#!/usr/bin/env bash
# The video and audio benchmark, one command (`npm run bench:media`): set-up (Debian ffmpeg, npm), the corpus
# of real clips (forensics-samples-files, from scripts/corpus/bench-images.txt), then bench/media/run.ts.
# Results: tables on stdout, the README's media table, and bench/results/media-<date>.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/setup.sh
export PRESSO_BENCH_CORPUS="${PRESSO_BENCH_CORPUS:-.corpus/bench}"
bash scripts/corpus.sh "$PRESSO_BENCH_CORPUS" scripts/corpus/bench-images.txt
export PATH="$root/node_modules/.bin:$PATH"
node bench/media/run.ts "$@"
