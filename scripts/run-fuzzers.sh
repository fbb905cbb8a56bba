#!/usr/bin/env bash
# Builds the parser fuzz targets (the "debug" preset: clang, libFuzzer + ASan/UBSan, the same build
# as the sanitizer run of the unit tests) and runs each for a few seconds on its seed corpus
# (fuzz/corpus/<name>/ when present). Any crash fails the run.
#   scripts/run-fuzzers.sh [seconds-per-target]
set -euo pipefail
seconds=${1:-10}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
cmake --preset debug >/dev/null
cmake --build --preset debug
shopt -s nullglob
targets=(build/debug/fuzz/*_fuzz)
if ((${#targets[@]} == 0)); then
  echo "run-fuzzers: no fuzz targets built" >&2
  exit 1
fi
passed=0 failed=0
for t in "${targets[@]}"; do
  name=$(basename "$t")
  work=$(mktemp -d)
  seeds=()
  [[ -d fuzz/corpus/${name%_fuzz} ]] && seeds=("fuzz/corpus/${name%_fuzz}")
  if "$t" -max_total_time="$seconds" -max_len=65536 -timeout=5 -rss_limit_mb=2048 \
      -artifact_prefix="$work/" "$work" "${seeds[@]}" >"$work/log" 2>&1; then
    echo "fuzz $name: ok ($(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$work/log" | tail -1))"
    passed=$((passed + 1))
  else
    echo "fuzz $name: FAILED" >&2
    tail -40 "$work/log" >&2
    failed=$((failed + 1))
  fi
  rm -rf "$work"
done
echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
