#!/usr/bin/env bash
# Downloads the real-file test corpus (Debian packages holding sample photos, videos, documents and the
# scikit-image test images) and unpacks it into ${PRESSO_CORPUS_DIR:-.corpus}. Only the .deb files are
# fetched and unpacked (never installed), so no root is needed beyond apt's own download rights.
# Idempotent: a marker file records a complete run; rerunning with the marker present does nothing.
set -euo pipefail

PACKAGES=(forensics-samples-files python3-skimage)
CORPUS_DIR="${PRESSO_CORPUS_DIR:-.corpus}"
# The marker names the package list, so adding a package triggers a new download.
MARKER="$CORPUS_DIR/.complete-$(printf '%s-' "${PACKAGES[@]}" | md5sum | cut -c1-12)"

fail() {
  echo "corpus.sh: $*" >&2
  exit 1
}

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
