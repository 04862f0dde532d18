#!/usr/bin/env bash
# Working as a team, measured: (1) a pull that joins one changed cell of a
# 1,000,000-row table (another clone changed another cell) against a local rebase of
# the same change — the same keyed three-way merge, reached through a remote; (2) the
# bytes a push of an import of 500 tables sends, and of a re-import changing one row,
# against `git push` of the same commits to a copy of the same remote. The remote is a
# bare repository on this machine (what a path or file:// URL names).
# Prints Markdown tables for BENCHMARKS.md.
#
#   benches/team.sh            # ROWS=1000000, RUNS=3 by default; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-1000000}
runs=${RUNS:-3}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl
git_q() { git -c advice.detachedHead=false "$@" >/dev/null 2>&1; }

# --- 1. pull against rebase, one table of $rows rows ---------------------------------
item_versions <<'PY'
write("parent.csv", rows)
# one cell each: the region's (or this clone's) and upstream's (or the remote's)
ours = list(rows); ours[10] = (ours[10][0], ours[10][1] + 1, ours[10][2]); write("ours.csv", ours)
theirs = list(rows); theirs[500000 % len(rows)] = (theirs[500000 % len(rows)][0], theirs[500000 % len(rows)][1] + 2, theirs[500000 % len(rows)][2]); write("theirs.csv", theirs)
PY
# The local rebase: global follows jp; jp changes one cell, global another.
local_repo="$work/local"
item_repo "$local_repo" '\n[regions.global]\nbranch = "masters/global"\nupstream = "jp"\n'
import_item "$local_repo" jp parent.csv
"$masterctl" --repo "$local_repo" rebase --region global >/dev/null
import_item "$local_repo" global ours.csv
import_item "$local_repo" jp theirs.csv
# The pull: two clones of one remote; the remote has theirs, this clone ours.
aiko="$work/aiko" bob="$work/bob" remote="$work/remote.git"
rm -rf "$aiko" "$bob" "$remote"
item_repo "$aiko"
import_item "$aiko" jp parent.csv
git init -q --bare -b main "$remote"
git -C "$aiko" remote add origin "$remote"
git_q -C "$aiko" push origin main
"$masterctl" --repo "$aiko" push >/dev/null
git_q clone "$remote" "$bob"
git -C "$bob" config user.name bob && git -C "$bob" config user.email bob@masterctl.invalid
"$masterctl" --repo "$bob" pull >/dev/null
import_item "$aiko" jp theirs.csv
"$masterctl" --repo "$aiko" push >/dev/null
import_item "$bob" jp ours.csv
# Each run on a fresh copy (both change the repository).
rebases="" pulls=""
for _ in $(seq "$runs"); do
  rm -rf "$work/run" && cp -a "$local_repo" "$work/run"
  rebases+="$(measure "$work/run" "$masterctl" rebase --region global)"$'\n'
  rm -rf "$work/run" && cp -a "$bob" "$work/run"
  git -C "$work/run" remote set-url origin "$remote"
  pulls+="$(measure "$work/run" "$masterctl" pull --region jp)"$'\n'
done
best() { sort -n | head -1; }
read -r r_secs r_mem < <(printf '%s' "$rebases" | best)
read -r p_secs p_mem < <(printf '%s' "$pulls" | best)
echo "| one ${rows}-row table, one cell changed on each side | wall time (best of $runs) | peak memory |"
echo "| --- | --- | --- |"
echo "| masterctl rebase --region global (the keyed merge, local) | ${r_secs} s | $((r_mem / 1024)) MB |"
echo "| masterctl pull --region jp (fetch the remote's commit, the same merge, commit) | ${p_secs} s | $((p_mem / 1024)) MB |"
awk "BEGIN{printf \"\\npull / rebase: %.2f\\n\\n\", $p_secs / $r_secs}"

# --- 2. what a push sends -----------------------------------------------------------------
data="$work/csv500"
[ -f "$data/masterctl.toml" ] || ./target/release/synth --out "$data" --tables 500 --rows 1000 --format csv >/dev/null
repo=$(fresh_repo "$data")
pack_bytes() { du -sb "$1/objects" | cut -f1; }
empty_remote() {
  rm -rf "$1" && git init -q --bare -b main "$1"
  git_q -C "$repo" push "$1" main
}
# masterctl's remote and git's, each holding the structure only.
empty_remote "$work/m.git" && empty_remote "$work/g.git"
git -C "$repo" remote add origin "$work/m.git"
"$masterctl" --repo "$repo" import --region jp "$data/data" >/dev/null
sent() { # label remote command...
  local label=$1 remote=$2; shift 2
  local before after start end
  before=$(pack_bytes "$remote")
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  after=$(pack_bytes "$remote")
  awk "BEGIN{printf \"| %s | %d KB | %.3f s |\\n\", \"$label\", ($after - $before) / 1024, ($end - $start) / 1e9}"
}
echo "| push to a bare remote on this machine | bytes the remote gained | wall time |"
echo "| --- | --- | --- |"
sent "masterctl push: an import of 500 tables × 1,000 rows (all new)" "$work/m.git" "$masterctl" --repo "$repo" push
sent "git push of the same commit" "$work/g.git" git -C "$repo" push "$work/g.git" masters/jp
file="$data/data/$(first_file "$data/data")"
cp "$file" "$work/original.csv"
sed -i '2s/^\([0-9]*\),[^,]*,/\1,changed,/' "$file"
"$masterctl" --repo "$repo" import --region jp "$data/data" >/dev/null
cp "$work/original.csv" "$file"
sent "masterctl push: a re-import, one row of one table changed" "$work/m.git" "$masterctl" --repo "$repo" push
sent "git push of the same commit" "$work/g.git" git -C "$repo" push "$work/g.git" masters/jp
