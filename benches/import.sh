#!/usr/bin/env bash
# masterctl import end to end (read, validate, canonicalize, write objects, commit), for
# 500 sheets × 1,000 rows (500 xlsx workbooks) and for one 1,000,000-row CSV table: the
# first import, an unchanged re-import, and a re-import with one row changed.
# Prints a Markdown table for BENCHMARKS.md: best wall time of N runs, peak memory.
#
#   benches/import.sh            # RUNS=3 by default; WORK=DIR keeps the generated data
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl
[ -f "$work/xlsx500/masterctl.toml" ] || ./target/release/synth --out "$work/xlsx500" --tables 500 --rows 1000 --format xlsx >/dev/null
[ -f "$work/csv1m/masterctl.toml" ] || ./target/release/synth --out "$work/csv1m" --tables 1 --rows 1000000 --format csv >/dev/null


# best LINES...: the line with the smallest first field.
best() { sort -n | head -1; }

row() { # label "<s> <KB>"
  local secs=${2% *} kb=${2#* }
  echo "| $1 | ${secs} s | $((kb / 1024)) MB |"
}

bench_shape() { # name data-dir changed-data-dir (or "" to change one row of the first CSV)
  local name=$1 data=$2 changed_data=$3
  local first="" again="" changed=""
  for _ in $(seq "$runs"); do
    local repo
    repo=$(fresh_repo "$data")
    first+="$(measure "$repo" "$masterctl" import --region jp "$data/data")"$'\n'
    again+="$(measure "$repo" "$masterctl" import --region jp "$data/data")"$'\n'
    if [ -n "$changed_data" ]; then
      changed+="$(measure "$repo" "$masterctl" import --region jp "$changed_data/data")"$'\n'
    else
      local file
      file="$data/data/$(first_file "$data/data")"
      cp "$file" "$work/original.csv"
      sed -i '2s/^\([0-9]*\),[^,]*,/\1,changed,/' "$file"
      changed+="$(measure "$repo" "$masterctl" import --region jp "$data/data")"$'\n'
      cp "$work/original.csv" "$file"
    fi
    rm -rf "$repo"
  done
  row "$name: first import" "$(printf '%s' "$first" | best)"
  row "$name: re-import, unchanged" "$(printf '%s' "$again" | best)"
  if [ -n "$changed_data" ]; then
    row "$name: re-import, every table changed (1,001 rows each)" "$(printf '%s' "$changed" | best)"
  else
    row "$name: re-import, one row changed" "$(printf '%s' "$changed" | best)"
  fi
}

[ -f "$work/xlsx500b/masterctl.toml" ] || ./target/release/synth --out "$work/xlsx500b" --tables 500 --rows 1001 --format xlsx >/dev/null
echo "| import | wall time (best of $runs) | peak memory |"
echo "| --- | --- | --- |"
bench_shape "500 xlsx × 1,000 rows" "$work/xlsx500" "$work/xlsx500b"
bench_shape "1 CSV table × 1,000,000 rows" "$work/csv1m" ""
