#!/usr/bin/env bash
# The console's table pages on a table of 1,000,000 rows (9 fields, a Japanese text, a
# reference), while 20 other browsers open pages beside them (each a page, then THINK
# seconds — 1 by default, as benches/console_load.sh — the table's pages among
# theirs: its pages, a search of it): the server time of each
# page (curl's time to the last byte on 127.0.0.1), the median of RUNS and its range —
# the first page after the server starts (the table read and kept), a page, a page
# filtered by the text column (a new filter each run), a search across every column,
# ordered by a number (the first order made, then kept), a row by its key. Against
# SQLite (what datasette serves a table from), in process, no HTTP: the same filtered
# page as datasette asks for it — the 100 rows and the count of rows matching.
# Prints a Markdown table for BENCHMARKS.md. Only 127.0.0.1 is used.
#
#   benches/table_pages.sh          # RUNS=7 by default; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
think=${THINK:-1}
. benches/common.sh
begin
[ -f "$work/csv1m/masterctl.toml" ] || "$synth" --out "$work/csv1m" --tables 1 --rows 1000000 --format csv >/dev/null
repo=$(fresh_repo "$work/csv1m")
"$masterctl" --repo "$repo" import --region jp "$work/csv1m/data" >/dev/null

port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
"$masterctl" --repo "$repo" serve --listen "127.0.0.1:$port" >/dev/null 2>&1 &
server=$!
others=()
cleanup() { kill "$server" "${others[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 200); do
  curl -s -o /dev/null "$base/assets/console.js" && break
  sleep 0.05
done
table="/table?region=jp&table=t0000"
# time PATH: the server time of one page, in ms; it must be a 200.
time_page() {
  local out
  out=$(curl -s -o "$work/page.html" -w '%{http_code} %{time_total}' "$base$1")
  [ "${out%% *}" = 200 ] || { echo "$1: ${out%% *}" >&2; exit 1; }
  awk "BEGIN{printf \"%.1f\", ${out##* } * 1000}"
}
median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
range() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END{print lo "–" hi}'; }

first=$(time_page "$table")
# 20 other browsers at work: each opens the branch's pages and the table's, in a loop.
for b in $(seq 20); do
  (
    while :; do
      for page in "/" "/history?region=jp" "/tables?region=jp" "$table&from=$((b * 1000))" "$table&q=$b$b" "/translations?region=jp"; do
        curl -s -o /dev/null "$base$page" || exit 0
        sleep "$think"
      done
    done
  ) &
  others+=("$!")
done
sleep 1

declare -A times
measure_page() { # NAME PATH
  times[$1]+="$(time_page "$2")"$'\n'
}
sorted_first=""
for run in $(seq "$runs"); do
  measure_page page "$table&from=$((run * 100))"
  # A text of the names that matches about one row in a thousand.
  measure_page filtered "$table&f.name=$((run * 7 + 100))9"
  measure_page search "$table&q=$((run * 3 + 500))1"
  measure_page key "$table&key=$((run * 100000 + 7))"
done
sorted_first=$(time_page "$table&sort=price&desc=1")
for _ in $(seq "$runs"); do measure_page sorted "$table&sort=price&desc=1&from=$((RANDOM % 9000 * 100))"; done
grep -q 'Rows ' "$work/page.html" || { echo "not a table page" >&2; exit 1; }

# SQLite: the table loaded once, then each filtered page as datasette asks for it.
sqlite_ms=$(python3 - "$work/csv1m/data/t0000.csv" "$work/t0000.sqlite" "$runs" <<'PY'
import csv, os, sqlite3, statistics, sys, time
source, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
if not os.path.exists(path):
    db = sqlite3.connect(path)
    rows = csv.reader(open(source, encoding="utf-8"))
    header = next(rows)
    db.execute(f"create table t ({', '.join(header)}, primary key (id))")
    db.executemany(f"insert into t values ({', '.join('?' * len(header))})", rows)
    db.commit()
    db.close()
db = sqlite3.connect(path)
times = []
for run in range(1, runs + 1):
    needle = f"%{run * 7 + 100}9%"
    start = time.perf_counter()
    page = db.execute("select * from t where name like ? limit 101", (needle,)).fetchall()
    count = db.execute("select count(*) from t where name like ?", (needle,)).fetchone()[0]
    times.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.1f} {min(times):.1f}–{max(times):.1f}")
PY
)

row() { # LABEL NAME
  printf '| %s | %s ms (%s) |\n' "$1" "$(printf '%s' "${times[$2]}" | median)" "$(printf '%s' "${times[$2]}" | range)"
}
echo "## Table pages: 1,000,000 rows, 20 other browsers at work"
echo
echo "| page | server time: median (range) of $runs |"
echo "| --- | --- |"
echo "| the first page after the server starts (the table read and kept) | $first ms (no other browser yet) |"
row "a page of 100 rows" page
row "100 rows filtered by the text column" filtered
row "100 rows, a search across every column" search
row "the page holding a row, by key" key
echo "| ordered by price, descending: the first | $sorted_first ms |"
row "ordered by price, descending, then" sorted
echo "| SQLite 3.$(python3 -c 'import sqlite3; print(sqlite3.sqlite_version.split(".", 1)[1])'): the filtered page and its count, in process | ${sqlite_ms%% *} ms (${sqlite_ms#* }) |"
