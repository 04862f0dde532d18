#!/usr/bin/env bash
# The translator loop at scale: one table of ROWS rows with two text fields (2 × ROWS
# units, 200,000 by default), untranslated; `l10n export` in each format, a translator's
# answer to every unit, and `l10n import` of it (checked, matched, committed). Also what
# translate-toolkit takes just to count the same files (`pocount`), for scale.
# Prints a Markdown table for BENCHMARKS.md.
#
#   benches/l10n.sh            # ROWS=100000 by default; RUNS=5; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-100000}
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
python3 -c "import translate.storage" 2>/dev/null || pip install -q translate-toolkit
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl

repo="$work/repo"
text_item_repo "$repo" && mkdir -p "$work/in"
python3 - "$work/in/item.csv" "$rows" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("id,name,description\n")
    for i in range(1, n + 1):
        f.write(f"{i},アイテム{i},<b>{{name}}</b>が{i}番目に見つけた宝\n")
PY
commit_structure "$repo"
"$masterctl" --repo "$repo" import --region jp "$work/in/item.csv" >/dev/null
before=$(git -C "$repo" rev-parse masters/jp)

# A translator's answer: "EN " before every source text (placeholders and tags kept).
translate() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
src, dst = sys.argv[1], sys.argv[2]
if src.endswith(".po"):
    out, msgid = [], None
    for line in open(src, encoding="utf-8"):
        if line.startswith("msgid "):
            msgid = line[len("msgid "):].strip()
        if line.startswith('msgstr ""') and msgid not in (None, '""'):
            line = 'msgstr "EN ' + msgid[1:] + "\n"
        out.append(line)
    open(dst, "w", encoding="utf-8").writelines(out)
elif src.endswith(".xliff"):
    out = []
    for line in open(src, encoding="utf-8"):
        out.append(line)
        s = line.strip()
        if s.startswith("<source>"):
            out.append('        <target state="translated">EN ' + s[len("<source>"):-len("</source>")] + "</target>\n")
    open(dst, "w", encoding="utf-8").writelines(out)
else:
    rows = list(csv.reader(open(src, encoding="utf-8-sig", newline="")))
    s = next(i for i, h in enumerate(rows[0]) if h.startswith("source_"))
    t = next(i for i, h in enumerate(rows[0]) if h.startswith("translation_"))
    for r in rows[1:]:
        r[t] = "EN " + r[s]
    csv.writer(open(dst, "w", encoding="utf-8", newline="")).writerows(rows)
PY
}

units=$((rows * 2))
echo "| ${units} units (one table of ${rows} rows, two text fields) | export | import --dry-run | import (committed) | translate-toolkit pocount |"
echo "| --- | --- | --- | --- | --- |"
for format in xliff po csv; do
  out="$work/en.$format"
  read -r e_secs _ < <(best_of "$runs" "$repo" "$masterctl" l10n export --region jp --lang en --format "$format" --out "$out")
  translate "$out" "$work/done.$format"
  read -r d_secs _ < <(best_of "$runs" "$repo" "$masterctl" l10n import --region jp --dry-run "$work/done.$format")
  read -r i_secs i_mem < <(measure "$repo" "$masterctl" l10n import --region jp "$work/done.$format")
  test "$("$masterctl" --repo "$repo" --format json l10n status --region jp | python3 -c 'import json,sys; print(json.load(sys.stdin)["languages"][0]["total"]["translated"])')" = "$units"
  git -C "$repo" update-ref refs/heads/masters/jp "$before"
  if [ "$format" = csv ]; then p_secs="—"; else read -r p_secs _ < <(measure "$work" python3 -m translate.tools.pocount "$out"); p_secs="$p_secs s"; fi
  echo "| $format | ${e_secs} s | ${d_secs} s | ${i_secs} s ($((i_mem / 1024)) MB) | ${p_secs} |"
done
