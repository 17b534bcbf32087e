#!/usr/bin/env bash
# Downloads the benchmark corpus: real images no one here made, from Debian packages (fetched with
# `apt-get download` and unpacked with dpkg-deb, never installed). Idempotent (a marker per package list).
set -euo pipefail
PACKAGES=(forensics-samples-files mate-backgrounds plasma-workspace-wallpapers python3-skimage desktop-base
  imagemagick-6-doc gnome-backgrounds)
DIR="${PRESSO_BENCH_CORPUS:-.corpus/bench}"
MARKER="$DIR/.complete-$(printf '%s-' "${PACKAGES[@]}" | md5sum | cut -c1-12)"
[[ -f "$MARKER" ]] && exit 0
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
download() { (cd "$TMP" && apt-get download -qq "${PACKAGES[@]}") >"$TMP/apt.log" 2>&1; }
if ! download; then
  apt-get update -qq >"$TMP/update.log" 2>&1 || { echo "apt-get update failed" >&2; tail -3 "$TMP/update.log" >&2; exit 1; }
  download || { echo "apt-get download failed" >&2; tail -3 "$TMP/apt.log" >&2; exit 1; }
fi
for deb in "$TMP"/*.deb; do dpkg-deb -x "$deb" "$DIR"; done
touch "$MARKER"
