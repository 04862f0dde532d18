#!/usr/bin/env bash
# masterctl rebase against `daff merge` (the daff tool from PyPI) on the same three CSV
# versions of one table: the parent (the import point), ours (the region, 1% of rows
# changed) and theirs (upstream, another 1% changed). Then the review a dry run shows
# when upstream changed every row (EVERY: row counts, 5,000 to 40,000 by default),
# against the rebase itself: it must grow linearly. Last, the text-heavy shape: one
# table of TEXT_ROWS rows (200,000) written by synth (9 fields, a Japanese text, a
# foreign key to itself), 1% of the texts changed by the region and 1% of the prices
# upstream, against daff. Prints Markdown tables for BENCHMARKS.md.
#
#   benches/rebase.sh          # ROWS=1000000 by default; WORK=DIR keeps the data
#   ONLY=text benches/rebase.sh    # the text-heavy shape alone
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-1000000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
command -v daff >/dev/null || pip install -q daff
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl

if [ "${ONLY:-}" != text ]; then
# Three versions of a table "item": ours changes every 100th row's price, theirs every
# 100th row offset by 50 (no overlap: a clean merge).
item_versions <<'PY'
write("parent.csv", rows)
write("ours.csv", bump(rows, 0, 1))
write("theirs.csv", bump(rows, 50, 2))
PY
repo="$work/repo"
global_from_jp "$repo"
import_item "$repo" global ours.csv
import_item "$repo" jp theirs.csv

# The dry run is repeatable: the best of RUNS (default 5).
read -r m_secs m_mem < <(best_of "${RUNS:-5}" "$repo" "$masterctl" rebase --region global --dry-run)
read -r d_secs d_mem < <(measure "$work" timeout 600 daff merge --output merged.csv parent.csv ours.csv theirs.csv)
read -r c_secs c_mem < <(measure "$repo" "$masterctl" rebase --region global)

echo "| merge of one ${rows}-row table, 1% changed on each side | wall time | peak memory |"
echo "| --- | --- | --- |"
echo "| masterctl rebase --dry-run, best of ${RUNS:-5} (read 3 versions from git, merge, validate, build the snapshot) | ${m_secs} s | $((m_mem / 1024)) MB |"
echo "| masterctl rebase (the same, and the commit written) | ${c_secs} s | $((c_mem / 1024)) MB |"
echo "| daff merge parent.csv ours.csv theirs.csv | ${d_secs} s | $((d_mem / 1024)) MB |"
awk "BEGIN{printf \"\\nmasterctl is %.0fx faster than daff on the same files.\\n\", $d_secs / $m_secs}"

# Upstream changed every row: the dry run (the merge and its review, change by change)
# against the rebase (the merge and its commit).
echo
echo "| upstream changed every row | rebase --dry-run (best of ${RUNS:-5}) | rebase | dry run / rebase |"
echo "| --- | --- | --- | --- |"
for n in ${EVERY:-5000 10000 20000 40000}; do
  (
    rows=$n
    work="$work/every$n"
    mkdir -p "$work"
    item_versions <<'PY'
write("parent.csv", rows)
write("theirs.csv", [(i, price + 1, rarity) for (i, price, rarity) in rows])
PY
    repo="$work/repo"
    global_from_jp "$repo"
    import_item "$repo" jp theirs.csv
    read -r dry _ < <(best_of "${RUNS:-5}" "$repo" "$masterctl" rebase --region global --dry-run)
    read -r real _ < <(measure "$repo" "$masterctl" rebase --region global)
    echo "| $n rows | ${dry} s | ${real} s | $(awk "BEGIN{printf \"%.1f\", $dry / $real}")× |"
  )
done
fi

# The text-heavy shape: synth's table, the region renaming every 100th row, upstream
# halving every 100th price from the 50th.
text_rows=${TEXT_ROWS:-200000}
text="$work/text$text_rows"
rm -rf "$text" && ./target/release/synth --out "$text/synth" --tables 1 --rows "$text_rows" --format csv >/dev/null
python3 - "$text" <<'PY'
import csv, sys
work = sys.argv[1]
rows = list(csv.reader(open(f"{work}/synth/data/t0000.csv", encoding="utf-8", newline="")))
header, body = rows[0], rows[1:]
def write(name, rs):
    with open(f"{work}/{name}", "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header] + rs)
write("parent.csv", body)
ours = [list(r) for r in body]
for i in range(0, len(ours), 100):
    ours[i][1] += "改"
write("ours.csv", ours)
theirs = [list(r) for r in body]
for i in range(50, len(theirs), 100):
    theirs[i][3] = str(int(theirs[i][3]) // 2)
write("theirs.csv", theirs)
PY
repo="$text/repo"
new_repo "$repo" && mkdir -p "$text/in" && cp -r "$text/synth/schemas" "$repo/"
printf '%s\n\n[regions.global]\nbranch = "masters/global"\nupstream = "jp"\n' "$(cat "$text/synth/masterctl.toml")" >"$repo/masterctl.toml"
git -C "$repo" add -A && git -C "$repo" commit -q -m structure
import_text() { cp "$text/$2" "$text/in/t0000.csv" && "$masterctl" --repo "$repo" import --region "$1" "$text/in/t0000.csv" >/dev/null; }
import_text jp parent.csv
"$masterctl" --repo "$repo" rebase --region global >/dev/null
import_text global ours.csv
import_text jp theirs.csv
read -r t_dry t_dry_mem < <(best_of "${RUNS:-5}" "$repo" "$masterctl" rebase --region global --dry-run)
read -r t_daff t_daff_mem < <(measure "$text" timeout 900 daff merge --output merged.csv parent.csv ours.csv theirs.csv)
read -r t_real t_real_mem < <(measure "$repo" "$masterctl" rebase --region global)
echo
echo "| merge of one ${text_rows}-row table with Japanese text, 1% changed on each side | wall time | peak memory | daff / this |"
echo "| --- | --- | --- | --- |"
echo "| masterctl rebase --dry-run, best of ${RUNS:-5} | ${t_dry} s | $((t_dry_mem / 1024)) MB | $(awk "BEGIN{printf \"%.0f\", $t_daff / $t_dry}")× |"
echo "| masterctl rebase | ${t_real} s | $((t_real_mem / 1024)) MB | $(awk "BEGIN{printf \"%.0f\", $t_daff / $t_real}")× |"
echo "| daff merge parent.csv ours.csv theirs.csv | ${t_daff} s | $((t_daff_mem / 1024)) MB | 1× |"
