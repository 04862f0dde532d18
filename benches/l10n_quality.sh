#!/usr/bin/env bash
# What the localization checks cost at scale: one table of ROWS rows with two text
# fields (2 × ROWS units, 200,000 by default), its English translated.
#   - the pseudo language: `build` and `build --pseudo qps` (best of RUNS each), and the
#     ratio (the target: at most 1.3×);
#   - the glyph check: `validate` of the table without and with `[fonts]` (a Japanese
#     font of Debian's, IPA Gothic: about 12,000 glyphs), the difference being the check
#     over every unit (the target: at most 0.2 s);
#   - `l10n charset` of the Japanese texts;
#   - the translation memory: `l10n export` of a language half translated, every unit
#     of the other half looked up (the target: at most 2 s).
# Prints a Markdown table for BENCHMARKS.md.
#
#   benches/l10n_quality.sh     # ROWS=100000, RUNS=5; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-100000}
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
font=/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf
[ -f "$font" ] || { echo "benches/l10n_quality.sh: needs $font (apt-get install fonts-ipafont-gothic)" >&2; exit 2; }
python3 -c "import fontTools" 2>/dev/null || { echo "benches/l10n_quality.sh: needs fontTools (pip install fonttools)" >&2; exit 2; }
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl

repo="$work/repo"
text_item_repo "$repo" && mkdir -p "$repo/fonts" "$work/in"
python3 - "$work/in/item.csv" "$rows" "$font" <<'PY'
import sys
from fontTools.ttLib import TTFont
path, n, font = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# Text of thousands of kanji the font has (so the check, not the reporting, is what is
# timed), kana and Latin letters; one text in 1,000 holds a character it lacks (U+9FA6).
kanji = sorted(c for c in TTFont(font).getBestCmap() if 0x4E00 <= c <= 0x9FFF)
with open(path, "w") as f:
    f.write("id,name,description\n")
    for i in range(1, n + 1):
        name = "".join(chr(kanji[(i * 7 + k) % len(kanji)]) for k in range(4))
        rare = "\u9fa6" if i % 1000 == 0 else ""
        f.write(f"{i},{name}の剣{i}{rare},<b>{{name}}</b>が{i}番目に見つけた宝 Lv.{i % 99}\n")
PY
git -C "$repo" add masterctl.toml schemas && git -C "$repo" commit -q -m structure
"$masterctl" --repo "$repo" import --region jp "$work/in/item.csv" >/dev/null
# translate FILE PREFIX [odd]: a translator's answer in an exported CSV file — PREFIX
# before every source text, or only the odd rows' with `odd`.
translate() {
  python3 - "$1" "$2" "${3:-all}" <<'PY'
import csv, sys
path, prefix, which = sys.argv[1:4]
rows = list(csv.reader(open(path, encoding="utf-8-sig", newline="")))
s = next(i for i, h in enumerate(rows[0]) if h.startswith("source_"))
t = next(i for i, h in enumerate(rows[0]) if h.startswith("translation_"))
k = rows[0].index("key")
for r in rows[1:]:
    if which == "all" or int(r[k]) % 2 == 1:
        r[t] = prefix + r[s]
csv.writer(open(path, "w", encoding="utf-8", newline="")).writerows(rows)
PY
}
"$masterctl" --repo "$repo" l10n export --region jp --lang en --format csv --out "$work/en.csv" >/dev/null
translate "$work/en.csv" "EN "
"$masterctl" --repo "$repo" l10n import --region jp "$work/en.csv" >/dev/null

units=$((rows * 2))
# The memory: a second language, half its units translated (the odd rows), every 10th
# name the same as the row before's; `l10n export` of the other half, each unit looked
# up in the memory (exact matches by hash, close ones through the trigram index).
printf '\n[regions.de]\nbranch = "masters/de"\nupstream = "jp"\nlanguages = ["ja", "de"]\n' >> "$repo/masterctl.toml"
sed -i 's/^languages = \["ja", "en"\]$/languages = ["ja", "en", "de"]/' "$repo/masterctl.toml"
git -C "$repo" commit -qam "de"
python3 - "$work/in/item.csv" "$work/in/memory.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
for i, row in enumerate(rows[1:], start=1):
    if i % 10 == 0:
        row[1] = rows[i - 1][1] if i > 1 else row[1]
csv.writer(open(sys.argv[2], "w", encoding="utf-8", newline="")).writerows(rows)
PY
mkdir -p "$work/in/memory" && cp "$work/in/memory.csv" "$work/in/memory/item.csv"
"$masterctl" --repo "$repo" import --region jp "$work/in/memory/item.csv" >/dev/null
"$masterctl" --repo "$repo" l10n export --region jp --lang de --format csv --out "$work/de.csv" >/dev/null
translate "$work/de.csv" "DE " odd
read -r unhelped _ < <(best_of "$runs" "$repo" "$masterctl" l10n export --region jp --lang de --format xliff --out "$work/de.xlf")
"$masterctl" --repo "$repo" l10n import --region jp "$work/de.csv" >/dev/null
read -r memory _ < <(best_of "$runs" "$repo" "$masterctl" l10n export --region jp --lang de --format xliff --out "$work/de.xlf")
matches=$("$masterctl" --repo "$repo" --format json l10n status --region jp --lang de | python3 -c 'import json,sys; m=json.load(sys.stdin)["languages"][0]["memory"]; print(m["exact"], "exact,", m["close"], "close")')
"$masterctl" --repo "$repo" import --region jp "$work/in/item.csv" >/dev/null

read -r plain _ < <(best_of "$runs" "$repo" "$masterctl" build --region jp --out "$work/build")
read -r pseudo _ < <(best_of "$runs" "$repo" "$masterctl" build --region jp --pseudo qps --out "$work/build")
read -r unchecked _ < <(best_of "$runs" "$repo" "$masterctl" validate "$work/in/item.csv")
cp "$font" "$repo/fonts/ipag.ttf"
printf '\n[fonts]\nja = "fonts/ipag.ttf"\n' >> "$repo/masterctl.toml"
read -r checked _ < <(best_of "$runs" "$repo" "$masterctl" validate "$work/in/item.csv")
read -r charset _ < <(best_of "$runs" "$repo" "$masterctl" l10n charset --lang ja --region jp --out "$work/ja.txt")
echo "| ${units} units (${rows} rows, two text fields; en translated) | time (best of ${runs}) | ratio |"
echo "| --- | --- | --- |"
echo "| build | ${plain} s | 1.00× |"
echo "| build --pseudo qps | ${pseudo} s | $(awk "BEGIN{printf \"%.2f\", $pseudo / $plain}")× |"
echo "| validate | ${unchecked} s | 1.00× |"
echo "| validate with [fonts] (IPA Gothic) | ${checked} s | glyph check $(awk "BEGIN{printf \"%.3f\", $checked - $unchecked}") s |"
echo "| l10n charset --lang ja ($(tr -d '\n' < "$work/ja.txt" | wc -m) characters) | ${charset} s | |"
echo "| l10n export --lang de, none translated (${units} units, no memory) | ${unhelped} s | |"
echo "| l10n export --lang de, half translated: memory for $((units / 2)) units (${matches}) | ${memory} s | |"
