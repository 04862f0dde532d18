#!/usr/bin/env bash
# The client loaders `codegen` writes (over `build --client`) against the JSON export of
# the same build read the usual way: TypeScript against `JSON.parse`, Go against
# `encoding/json`. 20 tables (one of ROWS rows, 19 of 10,000) with Japanese names; each
# language measured in one process, best of RUNS: opening the build (headers read,
# columns found), opening it and reading every field of every row through the generated
# API, and parsing the same tables and texts as JSON (files read into memory first on
# both sides). Prints a Markdown table.
#
#   benches/client.sh        # ROWS=1000000, RUNS=5; WORK=DIR keeps the data
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-1000000}
runs=${RUNS:-5}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
command -v tsc >/dev/null || npm install -g -q typescript@5.9.3
command -v go >/dev/null || { echo "benches/client.sh: needs go (apt-get install golang-go)" >&2; exit 2; }
masterctl=$PWD/target/release/masterctl
synth=$PWD/target/release/synth

if [ ! -f "$work/repo/build/manifest.json" ]; then
  rm -rf "$work/project" "$work/big" "$work/repo"
  "$synth" --out "$work/project" --tables 20 --rows 10000 --format csv >/dev/null
  "$synth" --out "$work/big" --tables 1 --rows "$rows" --format csv >/dev/null
  cp "$work/big/data/t0000.csv" "$work/project/data/t0000.csv"
  mkdir -p "$work/repo"
  cp -r "$work/project/masterctl.toml" "$work/project/schemas" "$work/repo/"
  git -C "$work/repo" init -q -b main
  git -C "$work/repo" config user.name bench && git -C "$work/repo" config user.email bench@masterctl.invalid
  commit_structure "$work/repo"
  "$masterctl" --repo "$work/repo" import --region jp "$work/project/data" >/dev/null
  "$masterctl" --repo "$work/repo" build --region jp --out "$work/repo/build" --client >/dev/null
fi
rm -rf "$work/ts"
"$masterctl" --repo "$work/repo" codegen --lang typescript --out "$work/ts" >/dev/null
cat > "$work/ts/bench.ts" <<'TS'
import { Masters } from "./masters";
declare const require: (module: string) => any;
declare const process: { argv: string[]; hrtime: { bigint(): bigint } };
const fs = require("fs");
const path = require("path");
const dir: string = process.argv[2];
const runs = Number(process.argv[3]);
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
const files = new Map<string, Uint8Array>();
for (const f of manifest.files) {
  if ((f.kind === "client" || f.kind === "client-json") && (f.language ?? "ja") === "ja") {
    files.set(f.path, fs.readFileSync(path.join(dir, f.path)));
  }
}
const binaryBytes = [...files].filter(([p]) => p.endsWith(".bin")).reduce((n, [, b]) => n + b.length, 0);
const jsonFiles = [...files].filter(([p]) => p.endsWith(".json") && !p.includes("/generated/"));
const jsonBytes = jsonFiles.reduce((n, [, b]) => n + b.length, 0);
const read = (p: string): Uint8Array => files.get(p) as Uint8Array;
const seconds = (f: () => void): number => {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    f();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return best;
};
let sink = 0;
const open = seconds(() => { sink += new Masters(read, "ja").t0000.length; });
const everything = seconds(() => {
  const masters = new Masters(read, "ja") as unknown as Record<string, unknown>;
  for (const key of Object.keys(masters)) {
    const table = masters[key];
    if (typeof table !== "object" || table === null || !(Symbol.iterator in table)) continue;
    let getters: string[] | null = null;
    for (const row of table as Iterable<object>) {
      getters ??= Object.getOwnPropertyNames(Object.getPrototypeOf(row)).filter((n) => n !== "constructor");
      for (const name of getters) {
        const value = (row as Record<string, unknown>)[name];
        if (value !== null && value !== undefined) sink++;
      }
    }
  }
});
const decoder = new TextDecoder();
const parse = seconds(() => {
  for (const [, bytes] of jsonFiles) sink += JSON.parse(decoder.decode(bytes)).rows.length;
});
console.log(JSON.stringify({ open, everything, parse, binaryBytes, jsonBytes, sink }));
TS
(cd "$work/ts" && tsc --strict --target es2020 --module commonjs --lib es2020,dom --outDir out masters.ts bench.ts)
ts=$(node --max-old-space-size=8192 "$work/ts/out/bench.js" "$work/repo/build" "$runs")

# Go: the generated package, a template of ours adding a function that reads every
# field of every row, and a program timing it against encoding/json.
rm -rf "$work/go" "$work/go-templates"
mkdir -p "$work/go-templates" "$work/go/bench"
cat > "$work/go-templates/every.go.hbs" <<'GO'
package {{snake package}}

//go:noinline
func keep[T any](v T) {}

// ReadEverything reads every field of every row of every table.
func ReadEverything(m *Masters) int {
	n := 0
{{#each tables}}
	for i := 0; i < m.{{ident}}.Len(); i++ {
		row := m.{{ident}}.Row(i)
{{#each fields}}
		keep(row.{{ident}}())
{{/each}}
		n++
	}
{{/each}}
	return n
}
GO
"$masterctl" --repo "$work/repo" codegen --lang go --out "$work/go/masters" --templates "$work/go-templates" >/dev/null
printf 'module bench\n\ngo 1.18\n' > "$work/go/go.mod"
cat > "$work/go/bench/main.go" <<'GO'
package main

import (
	"bench/masters"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	dir := os.Args[1]
	runs, _ := strconv.Atoi(os.Args[2])
	var manifest struct {
		Files []struct {
			Path     string  `json:"path"`
			Kind     string  `json:"kind"`
			Language *string `json:"language"`
		} `json:"files"`
	}
	content, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(content, &manifest); err != nil {
		panic(err)
	}
	files := map[string][]byte{}
	binaryBytes, jsonBytes := 0, 0
	var jsonFiles [][]byte
	for _, f := range manifest.Files {
		if (f.Kind != "client" && f.Kind != "client-json") || (f.Language != nil && *f.Language != "ja") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			panic(err)
		}
		files[f.Path] = b
		if strings.HasSuffix(f.Path, ".bin") {
			binaryBytes += len(b)
		} else if !strings.Contains(f.Path, "/generated/") {
			jsonBytes += len(b)
			jsonFiles = append(jsonFiles, b)
		}
	}
	read := func(path string) ([]byte, error) { return files[path], nil }
	seconds := func(f func()) float64 {
		best := math.Inf(1)
		for i := 0; i < runs; i++ {
			start := time.Now()
			f()
			best = math.Min(best, time.Since(start).Seconds())
		}
		return best
	}
	sink := 0
	open := seconds(func() {
		m, err := masters.Open(read, "ja")
		if err != nil {
			panic(err)
		}
		sink += m.T0000.Len()
	})
	everything := seconds(func() {
		m, err := masters.Open(read, "ja")
		if err != nil {
			panic(err)
		}
		sink += masters.ReadEverything(m)
	})
	parse := seconds(func() {
		for _, b := range jsonFiles {
			var file struct {
				Rows [][]interface{} `json:"rows"`
			}
			if err := json.Unmarshal(b, &file); err != nil {
				panic(err)
			}
			sink += len(file.Rows)
		}
	})
	fmt.Printf(`{"open": %g, "everything": %g, "parse": %g, "binaryBytes": %d, "jsonBytes": %d, "sink": %d}`+"\n",
		open, everything, parse, binaryBytes, jsonBytes, sink)
}
GO
(cd "$work/go" && GOFLAGS=-mod=mod GOPROXY=off go build -o bench/bench ./bench)
go=$("$work/go/bench/bench" "$work/repo/build" "$runs")

python3 - "$ts" "$go" "$rows" "$runs" <<'PY'
import json, sys
ts, go, rows, runs = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"| client export of 20 tables ({rows:,}-row table + 19 × 10,000), texts in ja, best of {runs} | seconds | vs parsing the JSON export |")
print("| --- | --- | --- |")
for lang, r, parser in [("TypeScript", ts, "JSON.parse"), ("Go", go, "encoding/json")]:
    print(f"| {parser} of the JSON export ({r['jsonBytes'] / 1e6:.0f} MB) | {r['parse']:.3f} s | 1× |")
    print(f"| generated {lang} loader: open ({r['binaryBytes'] / 1e6:.0f} MB binary) | {r['open']:.4f} s | {r['parse'] / r['open']:,.0f}× faster |")
    print(f"| generated {lang} loader: open and read every field of every row | {r['everything']:.3f} s | {r['parse'] / r['everything']:.1f}× faster |")
PY
