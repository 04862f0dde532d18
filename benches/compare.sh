#!/usr/bin/env bash
# Side by side, on the same data, end to end (process start to exit):
#   1. masterctl validate vs frictionless validate (frictionless-py, Table Schema with
#      the same types, constraints, primary and foreign keys) on 200,000 CSV rows;
#   2. masterctl validate on 500 sheets × 1,000 rows (the shape of Luban's published
#      benchmark), as 500 workbooks and as one workbook of 500 sheets.
# Prints a Markdown table for BENCHMARKS.md: best wall time of N runs, peak memory.
#
#   benches/compare.sh            # RUNS=5 by default; WORK=DIR keeps the generated data
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

command -v frictionless >/dev/null || pip install -q frictionless
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl

[ -f "$work/csv200k/datapackage.json" ] || ./target/release/synth --out "$work/csv200k" --tables 2 --rows 100000 --format csv
[ -f "$work/xlsx500/masterctl.toml" ] || ./target/release/synth --out "$work/xlsx500" --tables 500 --rows 1000 --format xlsx
[ -f "$work/xlsx500one/masterctl.toml" ] || ./target/release/synth --out "$work/xlsx500one" --tables 500 --rows 1000 --format xlsx-one-workbook


read -r m_csv m_csv_mem < <(best_of "$runs" "$work/csv200k" "$masterctl" validate data)
read -r f_csv f_csv_mem < <(best_of "$(( runs < 3 ? runs : 3 ))" "$work/csv200k" frictionless validate datapackage.json)
read -r m_xlsx m_xlsx_mem < <(best_of "$runs" "$work/xlsx500" "$masterctl" validate data)
read -r m_one m_one_mem < <(best_of "$runs" "$work/xlsx500one" "$masterctl" validate data)

ratio=$(awk "BEGIN{printf \"%.0f\", $f_csv / $m_csv}")
cat <<TABLE
| data | tool | wall time (best of runs) | peak memory |
| --- | --- | --- | --- |
| 200,000 CSV rows (2 tables, FK) | masterctl validate | ${m_csv} s | $((m_csv_mem / 1024)) MB |
| 200,000 CSV rows (2 tables, FK) | frictionless validate $(frictionless --version 2>/dev/null | tail -1) | ${f_csv} s | $((f_csv_mem / 1024)) MB |
| 500 xlsx × 1,000 rows | masterctl validate | ${m_xlsx} s | $((m_xlsx_mem / 1024)) MB |
| 1 xlsx, 500 sheets × 1,000 rows | masterctl validate | ${m_one} s | $((m_one_mem / 1024)) MB |

masterctl is ${ratio}× faster than frictionless on the same 200,000 rows.
TABLE
