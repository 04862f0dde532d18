# Helpers of the benchmark scripts (sourced by compare.sh, import.sh, rebase.sh, diff.sh, ab.sh).

# prepare: what timing needs, and the release binaries.
prepare() {
  command -v /usr/bin/time >/dev/null || { apt-get update -q && apt-get install -y -q time; }
  cargo build --release -q -p masterctl -p masterctl-benches
}

# begin: what a benchmark starts with: $work (WORK, or a new temporary folder), the
# release binaries built, $masterctl and $synth naming them, and $latency the delay
# link's tools (LATENCY_TOOLS, or ../shared/tools/latency).
begin() {
  work=${WORK:-$(mktemp -d)}
  mkdir -p "$work"
  prepare
  masterctl=$PWD/target/release/masterctl
  synth=$PWD/target/release/synth
  latency=${LATENCY_TOOLS:-$PWD/../shared/tools/latency}
}

# needs_openpyxl: exits 2, saying what to install, when python3 lacks openpyxl.
needs_openpyxl() {
  python3 -c "import openpyxl" 2>/dev/null || { echo "$0 needs openpyxl (pip install openpyxl)" >&2; exit 2; }
}

# measure DIR CMD...: one run of CMD in DIR; prints "<seconds> <peak KB>". Fails if CMD does.
measure() {
  local dir=$1; shift
  local start end mem
  start=$(date +%s%N)
  mem=$(cd "$dir" && /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1)
  end=$(date +%s%N)
  awk "BEGIN{printf \"%.3f %d\\n\", ($end - $start) / 1e9, $mem}"
}

# fastest N CMD...: N runs of CMD, each printing a line whose first field is seconds;
# prints the line of the fastest.
fastest() {
  local n=$1; shift
  local best="" run
  for _ in $(seq "$n"); do
    run=$("$@")
    if [ -z "$best" ] || awk "BEGIN{exit !(${run%% *} < ${best%% *})}"; then best=$run; fi
  done
  echo "$best"
}

# best_of N DIR CMD...: the fastest of N runs, as measure prints it.
best_of() {
  local n=$1; shift
  fastest "$n" measure "$@"
}

# new_repo DIR: an empty git repository at DIR (made if missing), committing as bench.
new_repo() {
  mkdir -p "$1"
  git -C "$1" init -q -b main
  git -C "$1" config user.name bench && git -C "$1" config user.email bench@masterctl.invalid
}

# text_item_repo REPO: a new repository (languages ja and en, region jp) holding one
# table "item" with two text fields, name (max_length 40) and description.
text_item_repo() {
  rm -rf "$1" && new_repo "$1" && mkdir -p "$1/schemas"
  printf 'source_language = "ja"\nlanguages = ["ja", "en"]\n\n[regions.jp]\nbranch = "masters/jp"\n' >"$1/masterctl.toml"
  cat >"$1/schemas/item.toml" <<'TOML'
name = "item"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "name"
type = "text"
max_length = 40

[[fields]]
name = "description"
type = "text"
description = "Shown under the item's name"
TOML
}

# fresh_repo DATA: a new repository under $work with DATA's structure; prints its path.
fresh_repo() {
  local repo
  repo=$(mktemp -d "$work/repo.XXXX")
  new_repo "$repo"
  cp "$1/masterctl.toml" "$repo/"
  cp -r "$1/schemas" "$repo/"
  commit_structure "$repo"
  echo "$repo"
}

# item_repo REPO [REGIONS]: a new repository holding one table "item" (id int, price
# int, rarity enum common/rare), region jp, and REGIONS (more masterctl.toml text).
item_repo() {
  local repo=$1
  rm -rf "$repo" && new_repo "$repo" && mkdir -p "$repo/schemas"
  printf 'source_language = "ja"\nlanguages = ["ja"]\n\n[regions.jp]\nbranch = "masters/jp"\n%b' "${2:-}" >"$repo/masterctl.toml"
  cat >"$repo/schemas/item.toml" <<'TOML'
name = "item"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "price"
type = "int"

[[fields]]
name = "rarity"
type = "enum"
values = ["common", "rare"]
TOML
  commit_structure "$repo"
}

# commit_structure REPO: commit masterctl.toml and schemas/ on main (an import copies
# the committed structure).
commit_structure() {
  git -C "$1" add masterctl.toml schemas && git -C "$1" commit -q -m structure
}

# first_file DIR / last_file DIR: the first (last) file name in DIR, sorted (without
# `ls | head`, whose early exit fails the pipeline under pipefail).
first_file() { local files=("$1"/*); basename "${files[0]}"; }
last_file() { local files=("$1"/*); basename "${files[${#files[@]}-1]}"; }

# item_versions: versions of the table "item" (id, price, rarity: rows 1..$rows, seeded)
# written as CSV files into $work by the Python on stdin, which has `rows`, `n`,
# write(name, rows) and bump(rows, start, by) (every 100th row from `start` with its
# price raised by `by`).
item_versions() {
  python3 -c "$(cat <<'PY'
import random, sys
work, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
rows = [(i, random.randint(0, 1000000), random.choice(["common", "rare"])) for i in range(1, n + 1)]
def write(name, rs):
    with open(f"{work}/{name}", "w") as f:
        f.write("id,price,rarity\n")
        f.writelines("%d,%d,%s\n" % r for r in rs)
def bump(rs, start, by):
    rs = list(rs)
    for i in range(start, len(rs), 100):
        rs[i] = (rs[i][0], rs[i][1] + by, rs[i][2])
    return rs
PY
)
$(cat)" "$work" "$rows"
}

# last_price SOURCE DEST: SOURCE's CSV with its last row's price 123456, written to DEST
# (one table changed by one cell, as the delivery and diff benches change it).
last_price() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
rows[-1][rows[0].index("price")] = "123456"
csv.writer(open(sys.argv[2], "w", encoding="utf-8", newline="")).writerows(rows)
PY
}

# global_from_jp REPO: item_repo with a region global taking from jp; jp holds
# $work/parent.csv and global starts from it.
global_from_jp() {
  item_repo "$1" '\n[regions.global]\nbranch = "masters/global"\nupstream = "jp"\n'
  import_item "$1" jp parent.csv
  "$masterctl" --repo "$1" rebase --region global >/dev/null
}

# import_item REPO REGION FILE: import $work/FILE as the region's table "item".
import_item() {
  mkdir -p "$work/in" && cp "$work/$3" "$work/in/item.csv"
  "$masterctl" --repo "$1" import --region "$2" "$work/in/item.csv" >/dev/null
}

# upload_reviewed BASE JAR CSRF REGION FILE OUT: upload FILE to the console at BASE (a
# browser's session: the cookie in JAR, its form token CSRF) for REGION, then ask for
# its review until it is ready (the page stops reloading itself); the page into OUT.
upload_reviewed() {
  local review
  review=$(curl -s -b "$2" -o /dev/null -w '%{redirect_url}' -F "csrf=$3" -F "region=$4" -F "files=@$5" "$1/upload")
  while :; do
    curl -s -b "$2" -o "$6" "$review"
    grep -q 'http-equiv="refresh"' "$6" || break
    sleep 0.02
  done
}
