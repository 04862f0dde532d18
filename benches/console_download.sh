#!/usr/bin/env bash
# The console's download of the current masters as workbooks (500 tables × 1,000 rows,
# a zip of 500 workbooks) while 20 other browsers open pages (a page, then 1 s, as
# benches/console.sh's section 6) — that section's download alone, on a repository
# where nothing else ran: the server time of each download (curl's time to the last
# byte on 127.0.0.1), RUNS of them, and their median. BROWSERS=0 measures it alone.
#
#   benches/console_download.sh     # RUNS=7 by default; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
browsers=${BROWSERS:-20}
. benches/common.sh
begin
[ -f "$work/xlsx500one/masterctl.toml" ] || "$synth" --out "$work/xlsx500one" --tables 500 --rows 1000 --format xlsx-one-workbook >/dev/null
repo=$(fresh_repo "$work/xlsx500one")
"$masterctl" --repo "$repo" import --region jp "$work/xlsx500one/data" >/dev/null
table=$(first_file "$repo/schemas")
table=${table%.toml}
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT
"$masterctl" --repo "$repo" serve --listen "127.0.0.1:$port" >/dev/null 2>&1 &
pids+=("$!")
for _ in $(seq 200); do
  curl -s -o /dev/null "$base/assets/console.js" && break
  sleep 0.05
done
jar="$work/download-jar"
curl -s -c "$jar" -b "$jar" -o /dev/null "$base/"
mkdir -p "$work/load"
for b in $(seq "$browsers"); do
  (
    bjar="$work/load/d$b.jar"
    curl -s -c "$bjar" -b "$bjar" -o /dev/null "$base/"
    while :; do
      for page in "/history?region=jp" "/table?region=jp&table=$table&q=1" "/tables?region=jp" "/"; do
        curl -s -b "$bjar" -o /dev/null "$base$page" || exit 0
        sleep 1
      done
    done
  ) &
  pids+=("$!")
done
sleep 2
times=""
for _ in $(seq "$runs"); do
  times+="$(curl -s -b "$jar" -o "$work/download.zip" -w '%{time_total}' "$base/download?region=jp")"$'\n'
done
median=$(printf '%s' "$times" | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
echo "| the current masters downloaded as workbooks, $browsers other browsers at work (median of $runs) | 500 × 1,000 rows | $median s ($(printf '%s' "$times" | sort -n | tr '\n' ' ')) |"
