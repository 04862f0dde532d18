#!/usr/bin/env bash
# Two builds of masterctl side by side on the same data, runs alternating (A, B, A, B…)
# so that both see the same machine: for changes that must not change speed (a
# refactor), "before" and "after". Times validate and a first import of 500 xlsx
# workbooks × 1,000 rows, a second import changing all 500 tables, a second import
# changing one row of a 1,000,000-row table, a rebase taking 500 changed tables, the
# runtime build of a 1,000,000-row table and opening that build as a server would
# (inspect). Prints a Markdown table for BENCHMARKS.md: the best of N runs of each,
# and B/A.
#
#   benches/ab.sh A_BINARY B_BINARY      # RUNS=5 by default; WORK=DIR keeps the data
#   ONLY=import benches/ab.sh A B        # only the scenarios whose label holds "import"
#
# A binary of an earlier commit: git worktree add /tmp/before <commit>, then
# cargo build --release -p masterctl there.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: benches/ab.sh A_BINARY B_BINARY" >&2; exit 2; }
a=$(realpath "$1")
b=$(realpath "$2")
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
synth=$PWD/target/release/synth
[ -f "$work/xlsx500/masterctl.toml" ] || "$synth" --out "$work/xlsx500" --tables 500 --rows 1000 --format xlsx >/dev/null
[ -f "$work/xlsx500b/masterctl.toml" ] || "$synth" --out "$work/xlsx500b" --tables 500 --rows 1001 --format xlsx >/dev/null
[ -f "$work/csv1m/masterctl.toml" ] || "$synth" --out "$work/csv1m" --tables 1 --rows 1000000 --format csv >/dev/null
# csv1m's table with one price changed, half-way down.
if [ ! -d "$work/csv1m-row" ]; then
  mkdir -p "$work/csv1m-row"
  big=$(first_file "$work/csv1m/data")
  python3 - "$work/csv1m/data/$big" "$work/csv1m-row/$big" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
row = rows[len(rows) // 2]
row[rows[0].index("price")] = str(int(row[rows[0].index("price")] or 0) + 1)
csv.writer(open(sys.argv[2], "w", encoding="utf-8", newline=""), lineterminator="\n").writerows(rows)
PY
fi

# repo DATA: fresh_repo, with a region `global` following jp; prints its path.
repo() {
  local dir
  dir=$(fresh_repo "$1")
  printf '\n[regions.global]\nbranch = "masters/global"\nupstream = "jp"\n' >>"$dir/masterctl.toml"
  git -C "$dir" commit -q -am "region global"
  echo "$dir"
}

# One scenario, run by both binaries in turn; prints its table row.
# scenario LABEL DATA SETUP TIMED: in a new repository of DATA's structure, SETUP BIN DIR
# prepares (untimed), then the command TIMED BIN DIR prints is timed (its words are
# split on spaces: keep WORK free of them).
scenario() {
  local label=$1 data=$2 setup=$3 timed=$4 ra="" rb="" bin dir run
  [[ "$label" == *"${ONLY:-}"* ]] || return 0
  for _ in $(seq "$runs"); do
    for bin in "$a" "$b"; do
      dir=$(repo "$data")
      "$setup" "$bin" "$dir"
      # shellcheck disable=SC2046
      run=$(measure "$dir" $("$timed" "$bin" "$dir"))
      if [ "$bin" = "$a" ]; then ra+="$run"$'\n'; else rb+="$run"$'\n'; fi
      rm -rf "$dir"
    done
  done
  local best_a best_b
  best_a=$(printf '%s' "$ra" | sort -n | head -1)
  best_b=$(printf '%s' "$rb" | sort -n | head -1)
  awk -v l="$label" -v a="$best_a" -v b="$best_b" 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    printf "| %s | %.3f s, %d MB | %.3f s, %d MB | %.2f |\n", l, x[1], x[2] / 1024, y[1], y[2] / 1024, y[1] / x[1]
  }'
}

nothing() { :; }
validate() { echo "$1 --repo $2 validate $work/xlsx500/data"; }
import_first() { echo "$1 --repo $2 import --region jp $work/xlsx500/data"; }
first_import() { "$1" --repo "$2" import --region jp "$work/xlsx500/data" >/dev/null; }
import_all_changed() { echo "$1 --repo $2 import --region jp $work/xlsx500b/data"; }
import_one_row() { echo "$1 --repo $2 import --region jp $work/csv1m-row"; }
rebase_setup() {
  "$1" --repo "$2" import --region jp "$work/xlsx500/data" >/dev/null
  "$1" --repo "$2" rebase --region global >/dev/null
  "$1" --repo "$2" import --region jp "$work/xlsx500b/data" >/dev/null
}
rebase() { echo "$1 --repo $2 rebase --region global"; }
build_setup() { "$1" --repo "$2" import --region jp "$work/csv1m/data" >/dev/null; }
build() { echo "$1 --repo $2 build --region jp --out $2/build"; }
inspect_setup() {
  build_setup "$1" "$2"
  "$1" --repo "$2" build --region jp --out "$2/build" >/dev/null
}
inspect() { echo "$1 inspect $2/build"; }

echo "| A: $1, B: $2 (best of $runs, alternating) | A | B | B/A |"
echo "| --- | --- | --- | --- |"
scenario "validate 500 xlsx × 1,000 rows" "$work/xlsx500" nothing validate
scenario "import 500 xlsx × 1,000 rows (first)" "$work/xlsx500" nothing import_first
scenario "import 500 xlsx again, every table changed" "$work/xlsx500" first_import import_all_changed
scenario "import 1,000,000 rows again, one row changed" "$work/csv1m" build_setup import_one_row
scenario "rebase: upstream changed all 500 tables" "$work/xlsx500" rebase_setup rebase
scenario "build 1,000,000 rows" "$work/csv1m" build_setup build
scenario "open a 1,000,000-row build (inspect: hash + check)" "$work/csv1m" inspect_setup inspect
