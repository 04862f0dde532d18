#!/usr/bin/env bash
# One large text-heavy table, validated end to end (process start to exit) by masterctl
# and by frictionless-py on the same files: ROWS rows (200,000) of 8 fields — two
# Japanese texts of 8 and 40 characters, an enum, integers, a number, a date and a
# foreign key to a 50-row table. The shape a single big text table has in a real
# project (item names and descriptions), where every piece of work is one file.
# Runs alternate; prints a Markdown table for BENCHMARKS.md (best and worst of RUNS).
#
#   benches/one_table.sh          # RUNS=7 by default; WORK=DIR keeps the generated data
#   MASTERCTL=path/to/other/masterctl benches/one_table.sh   # the same for another binary
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
rows=${ROWS:-200000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
command -v frictionless >/dev/null || pip install -q frictionless
. benches/common.sh
prepare
masterctl=${MASTERCTL:-$PWD/target/release/masterctl}
data="$work/one$rows"

[ -f "$data/datapackage.json" ] || python3 - "$data" "$rows" <<'PY'
import json, os, random, sys
out, rows = sys.argv[1], int(sys.argv[2])
os.makedirs(f"{out}/data", exist_ok=True)
os.makedirs(f"{out}/schemas", exist_ok=True)
rng = random.Random(31)
kana = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
kanji = "剣盾鎧兜弓槍杖薬草石炎氷雷風光闇竜王聖魔"
def jp(n): return "".join(rng.choice(kanji if i % 3 == 0 else kana) for i in range(n))
rarities = ["common", "uncommon", "rare", "epic", "legendary"]
with open(f"{out}/data/category.csv", "w", encoding="utf-8", newline="") as f:
    f.write("id,label\n")
    for i in range(1, 51):
        f.write(f"{i},{jp(6)}\n")
with open(f"{out}/data/item.csv", "w", encoding="utf-8", newline="") as f:
    f.write("id,name,description,rarity,price,rate,category_id,released_on\n")
    for i in range(1, rows + 1):
        f.write(f"{i},{jp(8)},{jp(40)},{rng.choice(rarities)},{rng.randrange(1000000)},"
                f"{rng.random():.4f},{rng.randrange(1, 51)},2025-{rng.randrange(1, 13):02}-{rng.randrange(1, 29):02}\n")
with open(f"{out}/masterctl.toml", "w") as f:
    f.write('source_language = "ja"\nlanguages = ["ja", "en"]\n\n[regions.jp]\nbranch = "masters/jp"\n')
with open(f"{out}/schemas/category.toml", "w") as f:
    f.write('name = "category"\nprimary_key = ["id"]\n\n[[fields]]\nname = "id"\ntype = "int"\n\n'
            '[[fields]]\nname = "label"\ntype = "text"\n')
with open(f"{out}/schemas/item.toml", "w") as f:
    f.write('name = "item"\nprimary_key = ["id"]\n\n'
            '[[fields]]\nname = "id"\ntype = "int"\nmin = 1\n\n'
            '[[fields]]\nname = "name"\ntype = "text"\nmax_length = 16\n\n'
            '[[fields]]\nname = "description"\ntype = "text"\nmax_length = 80\n\n'
            '[[fields]]\nname = "rarity"\ntype = "enum"\nvalues = ["common", "uncommon", "rare", "epic", "legendary"]\n\n'
            '[[fields]]\nname = "price"\ntype = "int"\nmin = 0\nmax = 1000000\n\n'
            '[[fields]]\nname = "rate"\ntype = "float"\nmin = 0\nmax = 1\n\n'
            '[[fields]]\nname = "category_id"\ntype = "int"\nreferences = "category.id"\n\n'
            '[[fields]]\nname = "released_on"\ntype = "date"\n')
req = {"required": True}
package = {"name": "one-table", "resources": [
    {"name": "category", "path": "data/category.csv", "profile": "tabular-data-resource",
     "schema": {"fields": [{"name": "id", "type": "integer", "constraints": req},
                           {"name": "label", "type": "string", "constraints": req}],
                "primaryKey": ["id"]}},
    {"name": "item", "path": "data/item.csv", "profile": "tabular-data-resource",
     "schema": {"fields": [
        {"name": "id", "type": "integer", "constraints": {"required": True, "minimum": 1}},
        {"name": "name", "type": "string", "constraints": {"required": True, "maxLength": 16}},
        {"name": "description", "type": "string", "constraints": {"required": True, "maxLength": 80}},
        {"name": "rarity", "type": "string", "constraints": {"required": True, "enum": rarities}},
        {"name": "price", "type": "integer", "constraints": {"required": True, "minimum": 0, "maximum": 1000000}},
        {"name": "rate", "type": "number", "constraints": {"required": True, "minimum": 0, "maximum": 1}},
        {"name": "category_id", "type": "integer", "constraints": req},
        {"name": "released_on", "type": "date", "constraints": req}],
        "primaryKey": ["id"],
        "foreignKeys": [{"fields": ["category_id"], "reference": {"resource": "category", "fields": ["id"]}}]}}]}
json.dump(package, open(f"{out}/datapackage.json", "w"), indent=1)
PY

# Alternating runs, so that the machine's drift falls on both tools alike.
m_all=() f_all=()
for _ in $(seq "$runs"); do
  m_all+=("$(measure "$data" "$masterctl" validate data)")
done
for _ in $(seq "$(( runs < 3 ? runs : 3 ))"); do
  f_all+=("$(measure "$data" frictionless validate datapackage.json)")
done
stats() { printf '%s\n' "$@" | sort -n | awk 'NR==1{b=$1; m=$2} {w=$1} END{printf "%s %s %d\n", b, w, m}'; }
read -r m_best m_worst m_mem < <(stats "${m_all[@]}")
read -r f_best f_worst f_mem < <(stats "${f_all[@]}")
cat <<TABLE
| $rows rows, 8 fields, two Japanese texts, an FK | best | worst | peak memory |
| --- | --- | --- | --- |
| masterctl validate | ${m_best} s | ${m_worst} s | $((m_mem / 1024)) MB |
| frictionless validate $(frictionless --version 2>/dev/null | tail -1) | ${f_best} s | ${f_worst} s | $((f_mem / 1024)) MB |

masterctl is $(awk "BEGIN{printf \"%.0f\", $f_best / $m_best}")× faster than frictionless (best against best).
TABLE
