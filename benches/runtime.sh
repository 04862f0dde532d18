#!/usr/bin/env bash
# The runtime loader on a synthetic master set of about 100 MB: 20 tables (one of
# 1,000,000 rows, 19 of 10,000), Japanese names, a 10,000-row gacha lineup with a weighted
# master, indexes on the large table. Built with `masterctl build`, then measured by the
# criterion bench `runtime` (open: validated, hash-trusted, unchecked, against read() and
# mmap-and-touch floors and against decoding the same data from JSON and from the
# canonical CSVs; lookups against std's HashMap). Also: the build of 500 tables × 1,000
# rows. Prints the figures for BENCHMARKS.md.
#
#   benches/runtime.sh             # WORK=DIR keeps the data; ROWS=1000000
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-1000000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl
synth=$PWD/target/release/synth

# 20 tables of 10,000 rows; table 0 replaced by one of ROWS rows.
rm -rf "$work/project" "$work/big" "$work/repo"
"$synth" --out "$work/project" --tables 20 --rows 10000 --format csv >/dev/null
"$synth" --out "$work/big" --tables 1 --rows "$rows" --format csv >/dev/null
cp "$work/big/data/t0000.csv" "$work/project/data/t0000.csv"
cat >> "$work/project/schemas/t0000.toml" <<'TOML'

[[indexes]]
fields = ["rarity"]
order_by = ["price"]

[[indexes]]
fields = ["price"]
TOML
cat > "$work/project/schemas/lineup.toml" <<'TOML'
name = "lineup"
primary_key = ["gacha_id", "slot"]

[[fields]]
name = "gacha_id"
type = "int"

[[fields]]
name = "slot"
type = "int"

[[fields]]
name = "item_id"
type = "int"
references = "t0000.id"

[[fields]]
name = "weight"
type = "int"
min = 1
TOML
cat > "$work/project/schemas/draw.toml" <<'TOML'
name = "draw"
[custom]
kind = "weighted"
table = "lineup"
group_by = ["gacha_id"]
weight = "weight"
TOML
python3 - "$work/project/data/lineup.csv" <<'PY'
import random, sys
random.seed(7)
with open(sys.argv[1], "w") as f:
    f.write("gacha_id,slot,item_id,weight\n")
    for g in range(1, 101):
        for s in range(1, 101):
            f.write(f"{g},{s},{random.randint(1, 10000)},{random.randint(1, 100)}\n")
PY

mkdir -p "$work/repo"
cp -r "$work/project/masterctl.toml" "$work/project/schemas" "$work/repo/"
git -C "$work/repo" init -q -b main
git -C "$work/repo" config user.name bench && git -C "$work/repo" config user.email bench@masterctl.invalid
git -C "$work/repo" add -A && git -C "$work/repo" commit -qm structure
region=jp
"$masterctl" --repo "$work/repo" import --region "$region" "$work/project/data" >/dev/null
read -r b_secs b_mem < <(best_of 3 "$work/repo" "$masterctl" build --region "$region" --out "$work/build")
echo "build of the 100 MB set: ${b_secs} s, $((b_mem / 1024)) MB peak; $(du -sb "$work/build" | cut -f1) bytes"
# The canonical CSVs, for the CSV and JSON baselines.
rm -rf "$work/canonical" && mkdir -p "$work/canonical"
git -C "$work/repo" archive "masters/$region" tables locales | tar -x -C "$work/canonical"

# 500 tables × 1,000 rows: the build alone.
rm -rf "$work/wide" "$work/wide-repo" && mkdir -p "$work/wide-repo"
"$synth" --out "$work/wide" --tables 500 --rows 1000 --format csv >/dev/null
cp -r "$work/wide/masterctl.toml" "$work/wide/schemas" "$work/wide-repo/"
git -C "$work/wide-repo" init -q -b main
git -C "$work/wide-repo" config user.name bench && git -C "$work/wide-repo" config user.email bench@masterctl.invalid
git -C "$work/wide-repo" add -A && git -C "$work/wide-repo" commit -qm structure
"$masterctl" --repo "$work/wide-repo" import --region "$region" "$work/wide/data" >/dev/null
read -r w_secs w_mem < <(best_of 5 "$work/wide-repo" "$masterctl" build --region "$region" --out "$work/wide-build")
echo "build of 500 tables × 1,000 rows: ${w_secs} s (best of 5), $((w_mem / 1024)) MB peak"

MASTERCTL_BUILD="$work/build" MASTERCTL_CANONICAL="$work/canonical" \
  cargo bench -q -p masterctl-benches --bench runtime -- --noplot 2>&1 | grep -E "^[a-z].*time:|^ +time:|^[a-z_/ ]+$|ratio|GB/s|floor" || true
