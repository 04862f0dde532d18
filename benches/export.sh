#!/usr/bin/env bash
# Export of a region as workbooks: 500 tables × 1,000 rows imported into jp, then
# `masterctl export` against openpyxl (what a studio's own script would use) writing the
# same tables, read from the branch's canonical CSV, one xlsx per table (write-only
# mode, its fastest); and masterctl's ODS and CSV exports of the same tables. Each export
# must import back as "nothing changed". Best of RUNS (default 3), release binary, same
# machine.
#
#   RUNS=3 benches/export.sh          (needs python3 and openpyxl: pip install openpyxl)
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh
prepare
needs_openpyxl
runs=${RUNS:-3}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
bin=$PWD/target/release/masterctl
synth=$PWD/target/release/synth
[ -f "$work/xlsx500/masterctl.toml" ] || "$synth" --out "$work/xlsx500" --tables 500 --rows 1000 --format xlsx >/dev/null
repo=$work/repo
if [ ! -d "$repo/.git" ]; then
  repo=$(fresh_repo "$work/xlsx500")
  mv "$repo" "$work/repo" && repo=$work/repo
  "$bin" --repo "$repo" import --region jp "$work/xlsx500/data" >/dev/null
fi
# The canonical tables as openpyxl's input.
rm -rf "$work/csv" && mkdir -p "$work/csv"
git -C "$repo" archive masters/jp tables | tar -x -C "$work/csv"
cat >"$work/openpyxl_export.py" <<'PY'
import csv, os, sys
from openpyxl import Workbook
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for name in sorted(os.listdir(src)):
    book = Workbook(write_only=True)
    sheet = book.create_sheet(name[:-4])
    with open(os.path.join(src, name), encoding="utf-8", newline="") as f:
        for row in csv.reader(f):
            sheet.append(row)
    book.save(os.path.join(out, name[:-4] + ".xlsx"))
PY
ours=$(best_of "$runs" "$work" "$bin" --repo "$repo" export --region jp --out "$work/ours")
theirs=$(best_of "$runs" "$work" python3 "$work/openpyxl_export.py" "$work/csv/tables" "$work/theirs")
ods=$(best_of "$runs" "$work" "$bin" --repo "$repo" export --region jp --format ods --out "$work/ours-ods")
csv=$(best_of "$runs" "$work" "$bin" --repo "$repo" export --region jp --format csv --out "$work/ours-csv")
for dir in ours ours-ods ours-csv; do
  "$bin" --repo "$repo" import --region jp "$work/$dir" | grep -q "nothing changed" || { echo "$dir did not import back as nothing changed" >&2; exit 1; }
done
printf '%-44s %8s s %8s MB\n' "masterctl export (500 × 1,000)" "${ours% *}" "$(( ${ours#* } / 1024 ))"
printf '%-44s %8s s %8s MB\n' "masterctl export --format ods" "${ods% *}" "$(( ${ods#* } / 1024 ))"
printf '%-44s %8s s %8s MB\n' "masterctl export --format csv" "${csv% *}" "$(( ${csv#* } / 1024 ))"
printf '%-44s %8s s %8s MB\n' "openpyxl write-only, from canonical CSV" "${theirs% *}" "$(( ${theirs#* } / 1024 ))"
awk "BEGIN{printf \"ratio: %.1fx\\n\", ${theirs% *} / ${ours% *}}"
