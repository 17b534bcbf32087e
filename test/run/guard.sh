#!/usr/bin/env bash
# Runs a command (the whole test run) under one time-out: `test/run/guard.sh npm test`.
# PRESSO_CI_TIMEOUT (default 120m: a quiet 2-core machine needs about 6 min, a loaded one many times that;
# a number of seconds, or with s, m or h) bounds it. At the time-out it prints the test files still running
# (with how long each has run), then ends the command's whole session and process tree: SIGTERM, then
# SIGKILL after PRESSO_CI_KILL_GRACE (default 10s). Exits with the command's status, or 124 on a time-out.
set -uo pipefail

seconds_of() {
  local value="$1"
  case "$value" in
    *h) echo $((${value%h} * 3600)) ;;
    *m) echo $((${value%m} * 60)) ;;
    *s) echo "${value%s}" ;;
    *) echo "$value" ;;
  esac
}
limit="$(seconds_of "${PRESSO_CI_TIMEOUT:-120m}")"
grace="$(seconds_of "${PRESSO_CI_KILL_GRACE:-10s}")"

# Every process of the run: its session (setsid below), and the descendants of its leader that started
# sessions of their own (the tool runner starts each tool in its own group).
members() {
  local sid="$1"
  ps -e -o pid=,ppid=,sid= | awk -v sid="$sid" '
    { parent[$1] = $2; session[$1] = $3 }
    END {
      for (p in parent) if (session[p] == sid) keep[p] = 1
      do { grown = 0
        for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grown = 1 }
      } while (grown)
      for (p in keep) print p
    }'
}

# The test files running now: node processes of the run with a *.test.* last argument that are not the
# `node --test` runner itself (which lists every file).
running_files() {
  local pid
  for pid in $(members "$1"); do
    ps -o etimes=,args= -p "$pid" 2>/dev/null
  done | awk '{ runner = 0; for (i = 3; i <= NF; i++) if ($i == "--test") runner = 1 }
    !runner && $2 ~ /node$/ && $NF ~ /\.test\.[cm]?[jt]s$/ { printf "  %s (running for %d s)\n", $NF, $1 }' |
    sort -u
}

marker="$(mktemp)"
trap 'rm -f "$marker"' EXIT

setsid "$@" &
leader=$!

(
  deadline=$((SECONDS + limit))
  while kill -0 "$leader" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo timed-out >"$marker"
      echo "== time-out: the run passed ${PRESSO_CI_TIMEOUT:-120m}; test files still running:" >&2
      files="$(running_files "$leader")"
      echo "${files:-  (none: the runner itself hung)}" >&2
      pids="$(members "$leader")"
      # shellcheck disable=SC2086
      kill -TERM $pids 2>/dev/null
      for _ in $(seq "$grace"); do
        [ -z "$(members "$leader")" ] && break
        sleep 1
      done
      # shellcheck disable=SC2086
      kill -KILL $pids $(members "$leader") 2>/dev/null
      echo "== time-out: the run's processes were killed" >&2
      exit 0
    fi
    sleep 1
  done
) &
watchdog=$!

wait "$leader"
status=$?
wait "$watchdog"
# A process the run left behind (an orphaned server holding a pipe open) is ended too, and named.
left="$(members "$leader")"
if [ -n "$left" ]; then
  echo "== the run left $(echo "$left" | wc -l) process(es) behind; killed:" >&2
  # shellcheck disable=SC2086
  ps -o pid=,args= -p "$(echo $left | tr ' ' ',')" >&2
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null
fi
[ -s "$marker" ] && exit 124
exit "$status"
