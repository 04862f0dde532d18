#!/usr/bin/env bash
# Migration of Luban's example project (fixtures/third-party/luban-examples): `migrate luban`
# into a new repository, then `validate` of its workbooks where they are, the release
# binary, best of RUNS (default 5). The issue's bar: both under 1 s in total.
#
#   RUNS=5 benches/migrate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh
prepare
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$PWD/target/release/masterctl
luban=$PWD/fixtures/third-party/luban-examples/DataTables

# One run of both steps into a fresh folder; prints "<migrate s> <validate s>".
both() {
  local out
  out=$(mktemp -d "$work/out.XXXX")
  rmdir "$out"
  local m v
  m=$(measure "$work" "$bin" migrate luban "$luban" --out "$out")
  v=$(measure "$work" "$bin" --repo "$out" validate "$luban/Datas")
  echo "${m% *} ${v% *}"
}

best_m="" best_v="" best_t=""
for _ in $(seq "$runs"); do
  read -r m v < <(both)
  t=$(awk "BEGIN{printf \"%.3f\", $m + $v}")
  if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then
    best_m=$m best_v=$v best_t=$t
  fi
done
printf '%-34s %8s s\n' "migrate luban (53 tables)" "$best_m"
printf '%-34s %8s s\n' "validate Datas (65 files)" "$best_v"
printf '%-34s %8s s\n' "both" "$best_t"
