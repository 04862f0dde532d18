#!/usr/bin/env bash
# One wide sheet through the planner's whole loop: a workbook of ROWS rows (51,200) ×
# 30 columns — a key, ints, floats, short strings, enums, bools, dates, lists and one
# Japanese text — validated, imported into an empty region, built, and exported back
# (which must import as "nothing changed"). Each step timed from process start to exit
# with its peak memory; best of RUNS (3). With BASE=path/to/other/masterctl, each step
# alternates with that binary on the same data, and the ratio is printed.
#
#   benches/wide_sheet.sh                     # WORK=DIR keeps the generated workbook
#   BASE=/tmp/old/masterctl benches/wide_sheet.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh
begin
needs_openpyxl
runs=${RUNS:-3}
rows=${ROWS:-51200}
data=$work/wide$rows

[ -f "$data/data/wide.xlsx" ] || python3 - "$data" "$rows" <<'PY'
import datetime, os, random, sys
from openpyxl import Workbook
out, rows = sys.argv[1], int(sys.argv[2])
os.makedirs(f"{out}/data", exist_ok=True)
os.makedirs(f"{out}/schemas", exist_ok=True)
rng = random.Random(57)
kana = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん"
kinds = ["sword", "shield", "potion", "ring", "bow", "staff"]
fields = [("id", "int", "\nmin = 1")]
fields += [(f"n{i}", "int", "\nmin = 0\nmax = 1000000") for i in range(6)]
fields += [(f"x{i}", "float", "") for i in range(5)]
fields += [(f"s{i}", "string", "\nmax_length = 32") for i in range(7)]
fields += [(f"e{i}", "enum", "\nvalues = [" + ", ".join(f'"{k}"' for k in kinds) + "]") for i in range(3)]
fields += [(f"b{i}", "bool", "") for i in range(3)]
fields += [(f"d{i}", "date", "") for i in range(2)]
fields += [(f"l{i}", "list<int>", "\noptional = true") for i in range(2)]
fields += [("name", "text", "\nmax_length = 24")]
assert len(fields) == 30
with open(f"{out}/masterctl.toml", "w") as f:
    f.write('source_language = "ja"\nlanguages = ["ja"]\n\n[regions.jp]\nbranch = "masters/jp"\n')
with open(f"{out}/schemas/wide.toml", "w") as f:
    f.write('name = "wide"\nprimary_key = ["id"]\n')
    for name, ty, more in fields:
        f.write(f'\n[[fields]]\nname = "{name}"\ntype = "{ty}"{more}\n')
book = Workbook(write_only=True)
sheet = book.create_sheet("wide")
sheet.append([name for name, _, _ in fields])
start = datetime.date(2024, 1, 1)
for i in range(1, rows + 1):
    row = [i]
    row += [rng.randrange(1000000) for _ in range(6)]
    row += [round(rng.random() * 1000, 3) for _ in range(5)]
    row += [f"{rng.choice(kinds)}_{rng.randrange(100000)}" for _ in range(7)]
    row += [rng.choice(kinds) for _ in range(3)]
    row += [rng.random() < 0.5 for _ in range(3)]
    row += [(start + datetime.timedelta(days=rng.randrange(900))).isoformat() for _ in range(2)]
    row += ["|".join(str(rng.randrange(500)) for _ in range(rng.randrange(4))) or None for _ in range(2)]
    row += ["".join(rng.choice(kana) for _ in range(8))]
    sheet.append(row)
book.save(f"{out}/data/wide.xlsx")
PY

# once BIN WHAT SIDE: one run of a step of BIN, its repository $work/repo-SIDE:
# "<seconds> <peak KB>". The region is emptied (a fresh repository) before each import,
# so that every import writes the whole table.
once() {
  local bin=$1 repo=$work/repo-$3
  case $2 in
    validate) measure "$data" "$bin" validate data ;;
    import)
      rm -rf "$repo" && mv "$(fresh_repo "$data")" "$repo"
      measure "$data" "$bin" --repo "$repo" import --region jp data ;;
    build) measure "$data" "$bin" --repo "$repo" build --region jp --out "$work/build-$3" ;;
    export) measure "$data" "$bin" --repo "$repo" export --region jp --out "$work/export-$3" ;;
  esac
}

# step BIN WHAT SIDE: the fastest of $runs.
step() { fastest "$runs" once "$@"; }

printf '| %s rows × 30 columns, one sheet | masterctl | peak memory |%s\n' "$rows" "${BASE:+ previous | its memory | ratio |}"
printf '| --- | --- | --- |%s\n' "${BASE:+ --- | --- | --- |}"
for what in validate import build export; do
  ours=$(step "$masterctl" "$what" new)
  line="| $what | ${ours% *} s | $(( ${ours#* } / 1024 )) MB |"
  if [ -n "${BASE:-}" ]; then
    theirs=$(step "$BASE" "$what" base)
    line+=" ${theirs% *} s | $(( ${theirs#* } / 1024 )) MB | $(awk "BEGIN{printf \"%.2f×\", ${theirs% *} / ${ours% *}}") |"
  fi
  echo "$line"
done
"$masterctl" --repo "$work/repo-new" import --region jp "$work/export-new" | grep -q "nothing changed" \
  || { echo "the export did not import back as nothing changed" >&2; exit 1; }
