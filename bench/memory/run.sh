#!/usr/bin/env bash
# Peak RSS of the image processor for the audit's memory cases, each in its own process with the glibc
# settings of bin/presso. Usage: bash bench/memory/run.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-1048576}"
node="$root/node_modules/.bin/node"
"$node" bench/memory/image-peak-rss.ts --case prepare
for c in png49 photos4 photos24x2; do "$node" bench/memory/image-peak-rss.ts --case "$c"; done
