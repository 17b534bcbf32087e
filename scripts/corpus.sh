#!/usr/bin/env bash
# Unpacks a corpus of real files from Debian packages: `scripts/corpus.sh [DIR] [LIST]`, LIST being a file with
# one package per line (comments allowed; default scripts/corpus/test.txt, DIR default
# ${PRESSO_CORPUS_DIR:-.corpus}). Only the .deb files are fetched (`apt-get download`) and unpacked with
# dpkg-deb, never installed. Idempotent: a marker named after the package list records a complete run, so
# adding a package to the list triggers a new download.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS_DIR="${1:-${PRESSO_CORPUS_DIR:-.corpus}}"
LIST="${2:-$root/scripts/corpus/test.txt}"

fail() {
  echo "corpus.sh: $*" >&2
  exit 1
}

[[ -f "$LIST" ]] || fail "no package list at $LIST."
mapfile -t PACKAGES < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$LIST" | grep -v '^$')
[[ ${#PACKAGES[@]} -gt 0 ]] || fail "the package list $LIST is empty."
MARKER="$CORPUS_DIR/.complete-$(printf '%s-' "${PACKAGES[@]}" | md5sum | cut -c1-12)"
[[ -f "$MARKER" ]] && exit 0

command -v apt-get >/dev/null || fail "apt-get is not available; the corpus comes from Debian packages (${PACKAGES[*]})."
command -v dpkg-deb >/dev/null || fail "dpkg-deb is not available."

mkdir -p "$CORPUS_DIR" 2>/dev/null || fail "cannot create the corpus directory $CORPUS_DIR."
CORPUS_DIR="$(cd "$CORPUS_DIR" && pwd)"
DOWNLOAD_DIR="$(mktemp -d)"
trap 'rm -rf "$DOWNLOAD_DIR"' EXIT

download() {
  (cd "$DOWNLOAD_DIR" && apt-get download -qq "${PACKAGES[@]}") >"$DOWNLOAD_DIR/apt.log" 2>&1
}

# apt-get update is slow and needs root: only run it when the package lists are stale.
if ! download; then
  apt-get update -qq >"$DOWNLOAD_DIR/update.log" 2>&1 ||
    fail "apt-get update failed: $(tail -n 3 "$DOWNLOAD_DIR/update.log")"
  download || fail "apt-get download ${PACKAGES[*]} failed: $(tail -n 3 "$DOWNLOAD_DIR/apt.log")"
fi

for deb in "$DOWNLOAD_DIR"/*.deb; do
  dpkg-deb -x "$deb" "$CORPUS_DIR" || fail "could not unpack $(basename "$deb")"
done

touch "$MARKER"
