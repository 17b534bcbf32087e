#!/usr/bin/env bash
# Every benchmark, one command each: `npm run bench` (images), `npm run bench:media`, `npm run bench:documents`,
# `npm run bench:archives`, `npm run bench:stores`, `npm run bench:scale`, `npm run bench:sandbox`, `npm run bench:spawn`, `npm run bench:dashboard`, `npm run bench:client`.
# Usage: scripts/bench.sh <images|media|documents|archives|stores|scale|sandbox|spawn|dashboard|client> [args for the run, such as --quick]. Each runs the set-up
# (Debian tools + npm), downloads its corpus from Debian packages (scripts/corpus.sh with its list), then
# bench/<name>/run.ts, which prints its table, writes it into the README and writes bench/results/*.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
name="${1:?usage: scripts/bench.sh <images|media|documents|archives|stores|scale|sandbox|spawn|dashboard|client> [args]}"
shift
case "$name" in
  images | media | archives | scale) list=scripts/corpus/bench-images.txt ;; # media clips, archived folders and the scale bench's photos come with these packages
  documents) list=scripts/corpus/bench-documents.txt ;;
  stores) list='' ;; # random bytes, no corpus
  sandbox) list='' ;; # the tests' inputs (test/support/corpus.ts fetches their corpus itself)
  spawn) list='' ;; # /bin/true, no corpus
  dashboard) list='' ;; # the built dashboard's own files
  client) list=scripts/corpus/bench-images.txt ;; # 200 real images for the client CLI against a curl loop
  *) echo "scripts/bench.sh: unknown benchmark '$name' (images, media, documents, archives, stores, scale, sandbox, spawn, dashboard, client)" >&2; exit 2 ;;
esac
scripts/setup.sh
export PRESSO_BENCH_CORPUS="${PRESSO_BENCH_CORPUS:-.corpus/bench}"
[ -z "$list" ] || bash scripts/corpus.sh "$PRESSO_BENCH_CORPUS" "$list"
export PATH="$root/node_modules/.bin:$PATH"
node "bench/$name/run.ts" "$@"
