#!/usr/bin/env bash
# masterctl diff against `daff diff --id` (the daff tool from PyPI) on the same two CSV
# versions of one table, 1% of its rows changed; and a diff of 500 tables of which one
# changed, against the diff of that table alone. Prints a Markdown table for
# BENCHMARKS.md.
#
#   benches/diff.sh          # ROWS=1000000 by default; WORK=DIR keeps the data
#   ONLY=blame benches/diff.sh   # the blame tables alone
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-1000000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
command -v daff >/dev/null || pip install -q daff
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl
synth=$PWD/target/release/synth

if [ "${ONLY:-}" != blame ]; then
# Two versions of a table "item": the new one changes every 100th row's price.
item_versions <<'PY'
write("old.csv", rows)
write("new.csv", bump(rows, 0, 1))
PY
repo="$work/repo"
item_repo "$repo"
import_item "$repo" jp old.csv
import_item "$repo" jp new.csv

read -r m_secs m_mem < <(best_of "${RUNS:-5}" "$repo" sh -c "'$masterctl' diff --region jp --format json > '$work/diff.json'")
read -r t_secs t_mem < <(best_of "${RUNS:-5}" "$repo" sh -c "'$masterctl' diff --region jp --color never > '$work/diff.txt'")
read -r d_secs d_mem < <(measure "$work" sh -c "timeout 1200 daff diff --id id old.csv new.csv > daff.txt")
changes=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['changes']))" "$work/diff.json")

echo "| diff of one ${rows}-row table, 1% of rows changed (${changes} cells) | wall time | peak memory |"
echo "| --- | --- | --- |"
echo "| masterctl diff --region jp --format json, best of ${RUNS:-5} (both versions read from git) | ${m_secs} s | $((m_mem / 1024)) MB |"
echo "| masterctl diff --region jp (terminal text), best of ${RUNS:-5} | ${t_secs} s | $((t_mem / 1024)) MB |"
echo "| daff diff --id id old.csv new.csv | ${d_secs} s | $((d_mem / 1024)) MB |"
awk "BEGIN{printf \"\\nmasterctl is %.0fx faster than daff on the same files.\\n\\n\", $d_secs / $m_secs}"

# 500 tables of 1,000 rows; one table changes one price. The whole diff reads only the
# changed table (the others' blob ids are equal): about the cost of that table alone.
[ -f "$work/t500/masterctl.toml" ] || "$synth" --out "$work/t500" --tables 500 --rows 1000 --format csv >/dev/null
many=$(fresh_repo "$work/t500")
"$masterctl" --repo "$many" import --region jp "$work/t500/data" >/dev/null
table=$(first_file "$work/t500/data")
last_price "$work/t500/data/$table" "$many/$table"
"$masterctl" --repo "$many" import --region jp "$many/$table" >/dev/null
read -r a_secs _ < <(best_of "${RUNS:-5}" "$many" "$masterctl" diff --region jp --format json)
read -r o_secs _ < <(best_of "${RUNS:-5}" "$many" "$masterctl" diff --region jp --format json --table "${table%.csv}")
echo "| 500 tables, one changed | wall time |"
echo "| --- | --- |"
echo "| masterctl diff --region jp (every table) | ${a_secs} s |"
echo "| masterctl diff --region jp --table ${table%.csv} (that table alone) | ${o_secs} s |"
fi

# Blame of one row over 1,000 imports of a 100,000-row table: the first import by
# masterctl, then 999 commits of the same structure each changing one price of another
# row (written with git fast-import, as masterctl's canonical files), the last one
# changing the blamed row's price. BLAME_ROWS and BLAME_IMPORTS change the size.
blame_rows=${BLAME_ROWS:-100000}
imports=${BLAME_IMPORTS:-1000}
history="$work/history"
item_repo "$history"
mkdir -p "$work/in"
python3 - "$work/in/item.csv" "$blame_rows" <<'PY'
import sys
n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    f.write("id,price,rarity\n")
    f.writelines("%d,%d,common\n" % (i, i * 10) for i in range(1, n + 1))
PY
"$masterctl" --repo "$history" import --region jp "$work/in/item.csv" >/dev/null
python3 - "$blame_rows" "$imports" "$(git -C "$history" rev-parse masters/jp)" <<'PY' | git -C "$history" fast-import --quiet
import sys
n, imports, parent = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
prices = [i * 10 for i in range(1, n + 1)]
out = sys.stdout
for k in range(1, imports):
    row = n // 2 if k == imports - 1 else 1 + (k * 7919) % n
    prices[row - 1] += 1
    data = "id,price,rarity\n" + "".join("%d,%d,common\n" % (i + 1, p) for i, p in enumerate(prices))
    body = data.encode()
    message = ("Import into jp: 1 table changed\n\nitem: 0 added, 1 changed, 0 removed\n").encode()
    out.write("commit refs/heads/masters/jp\n")
    out.write("committer bench <bench@masterctl.invalid> %d +0000\n" % (1700000000 + k))
    out.write("data %d\n" % len(message)); out.flush()
    sys.stdout.buffer.write(message)
    out.write("\nfrom %s\n" % parent if k == 1 else "\n")
    out.write("M 100644 inline tables/item.csv\ndata %d\n" % len(body)); out.flush()
    sys.stdout.buffer.write(body)
    out.write("\n")
PY
git -C "$history" gc -q
row=$((blame_rows / 2))
# The first blame works out which rows each version changed and keeps that
# (.git/masterctl/row-changes/); later ones read only the versions their row changed in.
rm -rf "$history/.git/masterctl/row-changes"
read -r c_secs c_mem < <(measure "$history" "$masterctl" blame --region jp item "$row" --format json)
read -r b_secs b_mem < <(best_of "${RUNS:-5}" "$history" "$masterctl" blame --region jp item "$row" --format json)
read -r f_secs f_mem < <(best_of "${RUNS:-5}" "$history" "$masterctl" blame --region jp item 1 --format json)
echo
echo "| blame over ${imports} imports of a ${blame_rows}-row table | wall time | peak memory |"
echo "| --- | --- | --- |"
echo "| the first blame of the history (item ${row}: every version read once, what each changed kept) | ${c_secs} s | $((c_mem / 1024)) MB |"
echo "| again, item ${row} (changed by the last import), best of ${RUNS:-5} | ${b_secs} s | $((b_mem / 1024)) MB |"
echo "| another row, never changed (item 1): the whole history walked, best of ${RUNS:-5} | ${f_secs} s | $((f_mem / 1024)) MB |"

# The same, over a history masterctl wrote: BLAME_OWN_IMPORTS (default 50) imports of the
# table by `masterctl import`, each changing one price; every import kept what it changed,
# so even the first blame reads no version the long way.
own="$work/own-history"
item_repo "$own"
own_imports=${BLAME_OWN_IMPORTS:-50}
for k in $(seq 0 $((own_imports - 1))); do
  python3 - "$work/in/item.csv" "$blame_rows" "$k" "$own_imports" <<'PY'
import sys
path, n, k, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]) - 1
prices = [i * 10 for i in range(1, n + 1)]
for j in range(1, k + 1):
    prices[(n // 2 if j == last else 1 + (j * 7919) % n) - 1] += 1
with open(path, "w") as f:
    f.write("id,price,rarity\n")
    f.writelines("%d,%d,common\n" % (i + 1, p) for i, p in enumerate(prices))
PY
  "$masterctl" --repo "$own" import --region jp "$work/in/item.csv" >/dev/null
done
read -r oc_secs oc_mem < <(measure "$own" "$masterctl" blame --region jp item "$row" --format json)
read -r of_secs of_mem < <(measure "$own" "$masterctl" blame --region jp item 1 --format json)
echo
echo "| blame over ${own_imports} imports by masterctl of a ${blame_rows}-row table | wall time | peak memory |"
echo "| --- | --- | --- |"
echo "| the first blame of the history, item ${row} (changed by the last import) | ${oc_secs} s | $((oc_mem / 1024)) MB |"
echo "| then item 1, never changed (the whole history walked) | ${of_secs} s | $((of_mem / 1024)) MB |"
