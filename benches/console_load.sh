#!/usr/bin/env bash
# The console under load: 20 planners browsing while the heaviest work a planner can
# start runs beside them — a blame of a row of a 1,000,000-row table, over and over, and
# the import dry run of an uploaded workbook of 500 sheets × 1,000 rows (upload, then
# its review polled until ready), over and over. Each planner is a loop of the pages a
# planner opens (regions, a history, the translations, the import form, the releases),
# one after another for SECONDS, a THINK-second pause between two (a quick reader:
# 1 s by default; 0 makes it a throughput test of 2 cores); the page times (curl's time to the last byte) of all
# 20 are pooled: p50, p99, max. The same planners are measured first with nothing heavy
# running. Prints a Markdown table for BENCHMARKS.md. Only 127.0.0.1 is used.
#
#   benches/console_load.sh                 # SECONDS_EACH=30 THINK=1; WORK=DIR keeps the data
#   MASTERCTL=/path/to/other/masterctl benches/console_load.sh   # another binary's console
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SECONDS_EACH:-30}
think=${THINK:-1}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
masterctl=${MASTERCTL:-$PWD/target/release/masterctl}
synth=$PWD/target/release/synth

# --- the data: 500 tables in one workbook, and a table of 1,000,000 rows ---------------
[ -f "$work/xlsx500one/masterctl.toml" ] || "$synth" --out "$work/xlsx500one" --tables 500 --rows 1000 --format xlsx-one-workbook >/dev/null
[ -f "$work/csv1m/masterctl.toml" ] || "$synth" --out "$work/csv1m" --tables 1 --rows 1000000 --format csv >/dev/null
workbook="$work/xlsx500one/data/$(first_file "$work/xlsx500one/data")"
# The million rows as a table of their own, `big`, beside the 500.
if [ ! -f "$work/big/big.csv" ]; then
  mkdir -p "$work/big"
  sed 's/t0000/big/g' "$work/csv1m/schemas/t0000.toml" >"$work/big/big.toml"
  cp "$work/csv1m/data/t0000.csv" "$work/big/big.csv"
  # A second version of it: one price changed half-way down (blame walks both).
  python3 - "$work/big/big.csv" "$work/big/changed/big.csv" <<'PY'
import csv, os, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
row = rows[len(rows) // 2]
row[rows[0].index("price")] = str(int(row[rows[0].index("price")] or 0) + 1)
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
csv.writer(open(sys.argv[2], "w", encoding="utf-8", newline=""), lineterminator="\n").writerows(rows)
PY
fi
key=500000

repo=$(mktemp -d "$work/repo.XXXX")
new_repo "$repo"
cp "$work/xlsx500one/masterctl.toml" "$repo/"
cp -r "$work/xlsx500one/schemas" "$repo/"
cp "$work/big/big.toml" "$repo/schemas/"
printf '\n[regions.global]\nbranch = "masters/global"\nupstream = "jp"\n\n[regions.fresh]\nbranch = "masters/fresh"\n' >>"$repo/masterctl.toml"
commit_structure "$repo"
"$masterctl" --repo "$repo" import --region jp "$work/xlsx500one/data" "$work/big/big.csv" >/dev/null
"$masterctl" --repo "$repo" import --region jp "$work/xlsx500one/data" "$work/big/changed/big.csv" >/dev/null
"$masterctl" --repo "$repo" rebase --region global >/dev/null
# The upload is checked against `fresh`, a region with nothing imported yet (every row
# new), so the console reads and validates the whole workbook.

# --- the console ---------------------------------------------------------------------
servers=()
loops=()
cleanup() {
  for pid in "${loops[@]}" "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
port=$((20000 + RANDOM % 20000))
"$masterctl" --repo "$repo" serve --listen "127.0.0.1:$port" >/dev/null 2>&1 &
servers+=("$!")
base="http://127.0.0.1:$port"
for _ in $(seq 200); do
  curl -s -o /dev/null "$base/assets/console.js" && break
  sleep 0.05
done
jar="$work/jar"
curl -s -c "$jar" -b "$jar" -o "$work/page.html" "$base/"
csrf=$(grep -o 'name="csrf" value="[0-9a-f]*"' "$work/page.html" | head -1 | sed 's/.*value="//; s/"$//')

pages=("/" "/history?region=jp" "/translations?region=jp" "/import?region=jp" "/releases?region=jp" "/history?region=global" "/translations?region=global")
# Every page once: what a page works out once per commit is worked out before timing.
for page in "${pages[@]}"; do
  code=$(curl -s -b "$jar" -o /dev/null -w '%{http_code}' "$base$page")
  [ "$code" = 200 ] || { echo "$page answered $code" >&2; exit 1; }
done

# planners OUT: 20 planners, each its pages in turn for $seconds; their times into OUT.
planners() {
  local out=$1
  : >"$out"
  seq 20 | xargs -P 20 -I{} bash -c '
    jar='"$work"'/planner-{}.jar
    curl -s -c "$jar" -b "$jar" -o /dev/null '"$base"'/
    end=$((SECONDS + '"$seconds"'))
    while [ $SECONDS -lt $end ]; do
      for page in '"${pages[*]@Q}"'; do
        curl -s --max-time 120 -b "$jar" -o /dev/null -w "%{http_code} %{time_total}\n" "'"$base"'$page"
        sleep '"$think"'
      done
    done' >>"$out"
}

# stats FILE: requests, not 200, p50, p99 and max in milliseconds.
stats() {
  local n bad
  n=$(wc -l <"$1")
  bad=$(awk '$1 != 200' "$1" | wc -l)
  awk '{print $2}' "$1" | sort -n | awk -v n="$n" -v bad="$bad" '
    { v[NR] = $1 }
    END {
      p50 = v[int(n * 0.50) > 0 ? int(n * 0.50) : 1]
      p99 = v[int(n * 0.99) > 0 ? int(n * 0.99) : 1]
      printf "%d | %d | %.0f ms | %.0f ms | %.0f ms", n, bad, p50 * 1000, p99 * 1000, v[n] * 1000
    }'
}

# --- 1. the planners alone -------------------------------------------------------------
planners "$work/alone"

# --- 2. the planners beside a blame and an import dry run, each over and over -----------
: >"$work/blames"
(
  while :; do
    curl -s --max-time 600 -b "$jar" -o /dev/null -w '%{http_code} %{time_total}\n' \
      "$base/blame?region=jp&table=big&key=$key" >>"$work/blames"
  done
) &
loops+=("$!")
: >"$work/reviews"
(
  while :; do
    start=$(date +%s%N)
    upload_reviewed "$base" "$jar" "$csrf" fresh "$workbook" "$work/review.html"
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 ))" >>"$work/reviews"
  done
) &
loops+=("$!")
# Both under way before the planners start.
sleep 2
planners "$work/beside"
for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null || true; done
loops=()
blames=$(wc -l <"$work/blames")
blame_s=$(awk '{s += $2} END {if (NR) printf "%.1f", s / NR; else print "—"}' "$work/blames")
reviews=$(wc -l <"$work/reviews")

echo "| the console, $("$masterctl" --version | head -1) | requests | not 200 | p50 | p99 | max |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| 20 planners, a page every ${think} s for ${seconds} s, nothing else running | $(stats "$work/alone") |"
echo "| the same, beside blames of a 1,000,000-row table ($blames done, ${blame_s} s each) and 500-sheet import dry runs ($reviews done) | $(stats "$work/beside") |"
