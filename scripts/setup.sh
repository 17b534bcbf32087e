#!/usr/bin/env bash
# Idempotent set-up for a fresh machine: Debian packages the service calls, then npm dependencies
# (which bring Node 24 as the `node` devDependency). Quiet when there is nothing to do.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Debian packages, one per line in scripts/apt-packages.txt (comments allowed).
missing=()
while read -r pkg; do
  [ -z "$pkg" ] && continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' scripts/apt-packages.txt)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm dependencies: reinstalled when package-lock.json changed since the last install.
stamp="node_modules/.presso-lock.sha1"
want="$(sha1sum package-lock.json | cut -d' ' -f1)"
if [ ! -x node_modules/.bin/node ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "$want" >"$stamp"
fi

# The native addons, each built when missing or older than its sources, with node-gyp against Node 24's
# headers, which the `node` package's install puts in node_modules (offline; a later plain `npm install` can
# prune them, `npm rebuild node` puts them back). Needs g++, make, python3.
#   native/ssimulacra2: the quality metric (src/processors/shared/metric/ssimulacra2-native.ts);
#   native/spawn: posix_spawn for the tool runner (src/processors/shared/spawn-process.ts).
for name in ssimulacra2 spawn; do
  addon_dir="native/$name"
  addon="$addon_dir/build/Release/$name.node"
  if [ ! -f "$addon" ] || [ -n "$(find "$addon_dir/binding.gyp" "$addon_dir/src" -newer "$addon" -print -quit)" ]; then
    platform="$(node_modules/.bin/node -p 'process.platform + "-" + process.arch')"
    headers="$root/node_modules/node/node_modules/node-$platform"
    [ -f "$headers/include/node/node_api.h" ] || npm rebuild node --loglevel=error >/dev/null
    echo "setup: building the native $name addon (node-gyp)"
    (cd "$addon_dir" && "$root/node_modules/.bin/node" "$root/node_modules/node-gyp/bin/node-gyp.js" rebuild \
      --nodedir="$headers" --loglevel=error >/dev/null)
  fi
done

# TypeBox as one file (dist/vendor/typebox.mjs, the `#typebox` import of package.json), bundled by esbuild
# when missing or older than the lock file: the package is 373 modules, and every Node process of the
# service, its CLI and each test file loads them (measured: ~110 CPU ms a start, 3-9 ms as one file).
typebox_bundle="dist/vendor/typebox.mjs"
if [ ! -f "$typebox_bundle" ] || [ package-lock.json -nt "$typebox_bundle" ]; then
  echo "setup: bundling TypeBox (esbuild)"
  "$root/node_modules/.bin/esbuild" node_modules/typebox/build/index.mjs --bundle --format=esm --platform=node \
    --outfile="$typebox_bundle" --log-level=warning
fi

# svgo as one file (dist/vendor/svgo.cjs, the `#svgo` import), bundled from the package's own CommonJS build with
# css-tree and csso inside: the SVG child loads it at every sanitise (svg-child.ts), and as ~190 modules its
# load was most of the child's start (measured on this machine: 0.49 -> 0.21 CPU-s an import).
svgo_bundle="dist/vendor/svgo.cjs"
if [ ! -f "$svgo_bundle" ] || [ package-lock.json -nt "$svgo_bundle" ]; then
  echo "setup: bundling svgo (esbuild)"
  "$root/node_modules/.bin/esbuild" node_modules/svgo/dist/svgo-node.cjs --bundle --format=cjs --platform=node \
    --outfile="$svgo_bundle" --log-level=warning
fi

# The dashboard (dashboard/, Vite + Preact): built into dist/dashboard when missing or older than any of its
# sources (or the lock file, which pins Vite and Preact). The API process serves it under /dashboard/.
dashboard_index="dist/dashboard/index.html"
if [ ! -f "$dashboard_index" ] || [ -n "$(find dashboard package-lock.json -newer "$dashboard_index" -print -quit)" ]; then
  echo "setup: building the dashboard (vite build)"
  "$root/node_modules/.bin/node" "$root/node_modules/vite/bin/vite.js" build -c dashboard/vite.config.ts >/dev/null
fi

# @presso/client (packages/client): built into packages/client/dist (JavaScript and .d.ts: Node strips no
# types under node_modules, so an installed package needs it; the CLI's bin and the tests run it too) when
# missing or older than any of its sources, its build settings or the lock file (which pins TypeScript).
client_entry="packages/client/dist/node.js"
if [ ! -f "$client_entry" ] || [ -n "$(find packages/client/src packages/client/scripts/build.ts packages/client/tsconfig.build.json packages/client/package.json package-lock.json -newer "$client_entry" -print -quit)" ]; then
  echo "setup: building @presso/client (tsc)"
  "$root/node_modules/.bin/node" packages/client/scripts/build.ts >/dev/null
fi
