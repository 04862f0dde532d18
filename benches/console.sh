#!/usr/bin/env bash
# The console, measured against the command line and a browser:
#   1. checking an uploaded workbook of 500 sheets × 1,000 rows — the upload, then the
#      review page ready (the import's own dry run) — against `masterctl validate` of the
#      same file, the two alternately (the median of each and of their ratios);
#   2. the server time of each page (curl's time to the last byte on 127.0.0.1, median
#      of RUNS, and the first request's: a commit's review and a branch's translation
#      states are worked out once per commit) on the sample game and on a repository of
#      those 500 tables;
#   3. 20 browsers' worth of page requests at once against the 500-table repository
#      (each browser 10 pages in a row): every answer a 200, and the wall time;
#   4. the conflict grid of a rebase with 1,000 conflicting cells, loaded in Chromium
#      (playwright-core, as the browser test drives it): time to the load event;
#   5. 20 planners browsing while blames of a 1,000,000-row table and import dry runs of
#      500 sheets run beside them (benches/console_load.sh): p50/p99 of their pages;
#   6. a browser edit of 5 cells (5 rows' `price`, through the row form into the draft)
#      committed on the 500-table repository while 20 other browsers ask for pages (a
#      page, then THINK seconds, 1 by default, as benches/console_load.sh): the
#      commit's time, from the press of the button to the history page answered; and
#      the download of the 500 tables as workbooks beside the same 20 browsers.
# Prints Markdown tables for BENCHMARKS.md. Only 127.0.0.1 is used.
#
#   benches/console.sh            # RUNS=5 by default; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl
[ -f "$work/xlsx500one/masterctl.toml" ] || ./target/release/synth --out "$work/xlsx500one" --tables 500 --rows 1000 --format xlsx-one-workbook >/dev/null
workbook="$work/xlsx500one/data/$(first_file "$work/xlsx500one/data")"

servers=()
cleanup() { for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# serve REPO PORT: the console of REPO on 127.0.0.1:PORT, waited for.
serve() {
  "$masterctl" --repo "$1" serve --listen "127.0.0.1:$2" >/dev/null 2>&1 &
  servers+=("$!")
  for _ in $(seq 200); do
    curl -s -o /dev/null "http://127.0.0.1:$2/assets/console.js" && return 0
    sleep 0.05
  done
  echo "the console of $1 did not start" >&2
  exit 2
}

# session BASE JAR: a browser's session (the cookie in JAR); prints its form token.
session() {
  curl -s -c "$2" -b "$2" "$1/" -o "$work/page.html"
  grep -o 'name="csrf" value="[0-9a-f]*"' "$work/page.html" | sed -n 1p | sed 's/.*value="//; s/"$//'
}

# median: the middle of the numbers on stdin.
median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }

# --- the repositories ---------------------------------------------------------------
big=$(fresh_repo "$work/xlsx500one")
printf '\n[regions.global]\nbranch = "masters/global"\nupstream = "jp"\n' >>"$big/masterctl.toml"
commit_structure "$big"
"$masterctl" --repo "$big" import --region jp "$work/xlsx500one/data" >/dev/null
"$masterctl" --repo "$big" rebase --region global >/dev/null
# The upload is checked against a branch without those tables (every row new), so the
# console reads and validates the whole workbook.
empty=$(fresh_repo "$work/xlsx500one")
sample="$work/sample"
rm -rf "$sample" && mkdir -p "$sample"
git -C "$sample" init -q -b main
git -C "$sample" config user.name bench && git -C "$sample" config user.email bench@masterctl.invalid
"$masterctl" init "$sample" --from fixtures >/dev/null
"$masterctl" --repo "$sample" import --region jp fixtures/workbooks >/dev/null
"$masterctl" --repo "$sample" rebase --region global >/dev/null

# --- 1. an uploaded workbook checked, against validate --------------------------------
# (measured alternately below, once the consoles run: this machine's speed drifts)
port_big=$((20000 + RANDOM % 20000))
serve "$big" "$port_big"
base="http://127.0.0.1:$port_big"
jar="$work/jar"
session "$base" "$jar" >/dev/null
port_empty=$((port_big + 3))
serve "$empty" "$port_empty"
empty_base="http://127.0.0.1:$port_empty"
empty_jar="$work/empty-jar"
csrf=$(session "$empty_base" "$empty_jar")
validates="" uploads="" ratios=""
for _ in $(seq "$runs"); do
  read -r v _ < <(measure "$work/xlsx500one" "$masterctl" validate data)
  start=$(date +%s%N)
  upload_reviewed "$empty_base" "$empty_jar" "$csrf" jp "$workbook" "$work/review.html"
  end=$(date +%s%N)
  grep -q 'Import into masters/jp?' "$work/review.html" || { echo "the review of the upload is not the expected one" >&2; exit 1; }
  u=$(awk "BEGIN{printf \"%.3f\", ($end - $start) / 1e9}")
  validates+="$v"$'\n' uploads+="$u"$'\n' ratios+="$(awk "BEGIN{printf \"%.3f\", $u / $v}")"$'\n'
done
validate_s=$(printf '%s' "$validates" | median)
upload_s=$(printf '%s' "$uploads" | median)
ratio=$(printf '%s' "$ratios" | median)
ratio_range="$(printf '%s' "$ratios" | sort -n | head -1)–$(printf '%s' "$ratios" | sort -n | tail -1)"
echo "## The console"
echo
echo "| work (alternately, median of $runs) | masterctl validate | the console: upload → review ready | ratio (median, range) |"
echo "| --- | --- | --- | --- |"
echo "| 1 xlsx, 500 sheets × 1,000 rows ($(( $(stat -c %s "$workbook") / 1024 / 1024 )) MB) | ${validate_s} s | ${upload_s} s | ${ratio}× (${ratio_range}) |"
echo

# --- 2. each page's server time -------------------------------------------------------
# pages REPO-HEAD TABLE KEY: the pages a planner opens, as paths.
pages() {
  echo "/"
  echo "/history?region=jp"
  echo "/commit?id=$1"
  echo "/blame?region=jp&table=$2&key=$3"
  echo "/translations?region=jp"
  echo "/join?kind=rebase&region=${4:-jp}"
  echo "/import?region=jp"
  echo "/releases?region=jp"
}
time_pages() { # BASE JAR HEAD TABLE KEY REBASE-REGION
  local page times
  while read -r page; do
    times=""
    for _ in $(seq "$runs"); do
      times+="$(curl -s -b "$2" -o /dev/null -w '%{time_total}' "$1$page")"$'\n'
    done
    printf '%s %s %s\n' "$page" "$(printf '%s' "$times" | median)" "$(printf '%s' "$times" | head -1)"
  done < <(pages "$3" "$4" "$5" "$6")
}
port_sample=$((port_big + 1))
serve "$sample" "$port_sample"
sample_base="http://127.0.0.1:$port_sample"
session "$sample_base" "$work/sample-jar" >/dev/null
sample_head=$(git -C "$sample" rev-parse masters/jp)
big_head=$(git -C "$big" rev-parse masters/jp)
big_table=$(first_file "$big/schemas")
big_table=${big_table%.toml}
echo "| page | sample game (8 tables): median (first) | 500 tables × 1,000 rows: median (first) |"
echo "| --- | --- | --- |"
paste -d' ' \
  <(time_pages "$sample_base" "$work/sample-jar" "$sample_head" item 1 global) \
  <(time_pages "$base" "$jar" "$big_head" "$big_table" 1 global) |
  awk '{printf "| `%s` | %.0f ms (%.0f) | %.0f ms (%.0f) |\n", $1, $2 * 1000, $3 * 1000, $5 * 1000, $6 * 1000}'
echo

# --- 3. 20 browsers at once -------------------------------------------------------------
mkdir -p "$work/load"
start=$(date +%s%N)
seq 20 | xargs -P 20 -I{} bash -c '
  jar='"$work"'/load/{}.jar
  curl -s -c "$jar" -b "$jar" -o /dev/null -w "%{http_code}\n" '"$base"'/
  for page in "/history?region=jp" "/commit?id='"$big_head"'" "/blame?region=jp&table='"$big_table"'&key=1" "/translations?region=jp" "/import?region=jp" "/join?kind=rebase&region=global" "/releases?region=jp" "/history?region=jp" "/"; do
    curl -s -b "$jar" -o /dev/null -w "%{http_code}\n" "'"$base"'$page"
  done' >"$work/load/codes"
end=$(date +%s%N)
answered=$(wc -l <"$work/load/codes")
failed=$(grep -vc '^200$' "$work/load/codes" || true)
echo "| load | requests | not 200 | wall time |"
echo "| --- | --- | --- | --- |"
echo "| 20 browsers × 10 pages, 500 tables | $answered | $failed | $(awk "BEGIN{printf \"%.2f\", ($end - $start) / 1e9}") s |"
echo

# --- 4. the conflict grid of 1,000 cells in Chromium -----------------------------------
rows=1000
item_versions <<'PY'
write("parent.csv", rows)
write("ours.csv", [(i, p + 1, r) for (i, p, r) in rows])
write("theirs.csv", [(i, p + 2, r) for (i, p, r) in rows])
PY
grid="$work/grid"
global_from_jp "$grid"
import_item "$grid" global ours.csv
import_item "$grid" jp theirs.csv
port_grid=$((port_big + 2))
serve "$grid" "$port_grid"
node_root=$(npm root -g)
if [ -d "$node_root/playwright-core" ] && [ -x /usr/bin/chromium ]; then
  grid_ms=$(NODE_ROOT=$node_root BASE="http://127.0.0.1:$port_grid" RUNS=$runs node --input-type=module -e '
    import { createRequire } from "node:module";
    import path from "node:path";
    const require = createRequire(import.meta.url);
    const { chromium } = require(path.join(process.env.NODE_ROOT, "playwright-core"));
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(process.env.BASE + "/");
    let best = Infinity, rows = 0;
    for (let i = 0; i < Number(process.env.RUNS); i++) {
      const start = Date.now();
      await page.goto(process.env.BASE + "/join?kind=rebase&region=global", { waitUntil: "load" });
      best = Math.min(best, Date.now() - start);
      rows = await page.locator("#conflicts tbody tr").count();
    }
    await browser.close();
    console.log(`${best} ${rows}`);
  ')
  read -r grid_best grid_rows <<<"$grid_ms"
  server_grid=$(for _ in $(seq "$runs"); do curl -s -b "$work/sample-jar" -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port_grid/join?kind=rebase&region=global"; done | median)
  echo "| conflict grid | cells | server time | loaded in Chromium |"
  echo "| --- | --- | --- | --- |"
  echo "| rebase of 1,000 rows, every price changed on both sides | $grid_rows | $(awk "BEGIN{printf \"%.0f\", $server_grid * 1000}") ms | ${grid_best} ms |"
else
  echo "(playwright-core or chromium missing: the conflict grid is not measured)"
fi

# --- 6. a browser edit of 5 cells committed, 20 other browsers at work -----------------
edit_csrf=$(session "$base" "$jar")
stop="$work/stop-browsing"
rm -f "$stop"
for b in $(seq 20); do
  (
    bjar="$work/load/b$b.jar"
    curl -s -c "$bjar" -b "$bjar" -o /dev/null "$base/"
    while [ ! -f "$stop" ]; do
      for page in "/history?region=jp" "/table?region=jp&table=$big_table&q=1" "/tables?region=jp" "/"; do
        curl -s -b "$bjar" -o /dev/null "$base$page"
        sleep "${THINK:-1}"
      done
    done
  ) &
  servers+=("$!")
done
price_at=$(git -C "$big" show "masters/jp:tables/$big_table.csv" | sed -n 1p | tr ',' '\n' | grep -nx price | cut -d: -f1)
edit_times=""
for _ in $(seq "$runs"); do
  for key in 1 2 3 4 5; do
    was=$(git -C "$big" show "masters/jp:tables/$big_table.csv" | awk -F, -v key="$key" -v at="$price_at" '$1 == key { print $at }')
    curl -s -b "$jar" -o /dev/null --data-urlencode "csrf=$edit_csrf" --data-urlencode region=jp \
      --data-urlencode "table=$big_table" --data-urlencode "key=$key" --data-urlencode "was.price=$was" \
      --data-urlencode "v.price=$((was + 1))" --data-urlencode action=save "$base/row"
  done
  start=$(date +%s%N)
  next=$(curl -s -b "$jar" -o /dev/null -w '%{redirect_url}' --data-urlencode "csrf=$edit_csrf" \
    --data-urlencode region=jp --data-urlencode action=commit --data-urlencode message=bench "$base/edits")
  # (a long write answers with its /working page, which reloads itself until done)
  while [[ "$next" == *"/working"* ]]; do
    got=$(curl -s -b "$jar" -o /dev/null -w '%{redirect_url}' "$next")
    [ -z "$got" ] || next=$got
  done
  curl -s -b "$jar" -o "$work/edited.html" "$next"
  end=$(date +%s%N)
  grep -q 'holds your edits' "$work/edited.html" || { echo "the edit was not committed: $next" >&2; exit 1; }
  edit_times+="$(awk "BEGIN{printf \"%.3f\", ($end - $start) / 1e9}")"$'\n'
done
download_times=""
for _ in $(seq "$runs"); do
  download_times+="$(curl -s -b "$jar" -o "$work/download.zip" -w '%{time_total}' "$base/download?region=jp")"$'\n'
done
touch "$stop"
downloaded=$(python3 -c 'import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))' "$work/download.zip")
echo
echo "| in the browser, 20 other browsers at work (median of $runs) | tables | time |"
echo "| --- | --- | --- |"
echo "| an edit of 5 cells of 5 rows, committed | 500 × 1,000 rows | $(printf '%s' "$edit_times" | median) s |"
echo "| the current masters downloaded as workbooks ($downloaded in a zip, $(( $(stat -c %s "$work/download.zip") / 1024 / 1024 )) MB) | 500 × 1,000 rows | $(printf '%s' "$download_times" | median) s |"

# --- 5. 20 planners beside a blame of 1,000,000 rows and a 500-sheet dry run -----------
echo
WORK="$work" benches/console_load.sh
