#!/usr/bin/env bash
# Writes the lists of names each target language's own library declares, which a type
# the generated code declares must not hide (`codegen::names::ambient`), from each
# language's reference as installed — never by hand:
#
#   rust.txt        the std prelude (Rust 2024: std::prelude::v1 and core's rust_2024),
#                   read from the toolchain's documentation (`rustup component add rust-docs`)
#   typescript.txt  every global the ECMAScript libraries of TypeScript declare
#                   (lib.es5.d.ts … lib.esnext.*.d.ts, lib.decorators*.d.ts; not the
#                   DOM's, which are the browser's), from the typescript package (npm)
#   csharp.txt      every public type of the namespaces the generated C# imports
#                   (System, System.Collections, System.Collections.Generic,
#                   System.Globalization, System.IO, System.Text), listed by Mono's
#                   own reflection (mono-mcs, mono-runtime)
#   go.txt          Go's predeclared identifiers (builtin.go of the Go installed)
#
# Only names a type could be spelled as are kept (ASCII letters and digits, starting
# with a letter). Run from anywhere: codegen/src/ambient/extract.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

header() {
  echo "# $1"
  echo "# Written by extract.sh (beside this file) from $2; do not edit by hand."
}

# Rust: the prelude's re-exports, from the HTML documentation of the toolchain in use.
docs="$(rustc --print sysroot)/share/doc/rust/html"
{
  header "Names of Rust's std prelude (2024 edition)" "rustc $(rustc --version | cut -d' ' -f2)'s documentation"
  python3 - "$docs" <<'PY'
import html, re, sys
docs = sys.argv[1]
names = set()
for page in ("std/prelude/v1/index.html", "core/prelude/rust_2024/index.html"):
    text = open(f"{docs}/{page}", encoding="utf-8").read()
    for used in re.findall(r"<code>pub use (.*?);</code>", text):
        used = re.sub(r"<[^>]+>", "", html.unescape(used))
        group = re.search(r"\{(.*)\}", used)
        for part in (group.group(1).split(",") if group else [used]):
            name = part.strip().split(" as ")[-1].split("::")[-1]
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name):
                names.add(name)
print("\n".join(sorted(names)))
PY
} > "$here/rust.txt"

# TypeScript: what the ECMAScript libraries declare at the top level.
lib="$(npm root -g)/typescript/lib"
{
  header "Globals of TypeScript's ECMAScript libraries" "typescript $(node -p "require('$(npm root -g)/typescript/package.json').version")'s lib files"
  cat "$lib"/lib.es5.d.ts "$lib"/lib.es20*.d.ts "$lib"/lib.esnext*.d.ts "$lib"/lib.decorators*.d.ts |
    grep -oE '^(interface|type|declare (var|let|const|function|namespace|type|class|abstract class|enum)) [A-Za-z][A-Za-z0-9]*' |
    awk '{print $NF}' | sort -u
} > "$here/typescript.txt"

# C#: the public types of the imported namespaces, as Mono lists them.
cat > "$work/List.cs" <<'CS'
using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
class List {
  static void Main() {
    var namespaces = new HashSet<string> { "System", "System.Collections", "System.Collections.Generic", "System.Globalization", "System.IO", "System.Text" };
    var assemblies = new[] { typeof(object).Assembly, typeof(Uri).Assembly, typeof(Enumerable).Assembly };
    var names = new SortedSet<string>(StringComparer.Ordinal);
    foreach (var assembly in assemblies)
      foreach (var type in assembly.GetExportedTypes())
        if (type.Namespace != null && namespaces.Contains(type.Namespace) && !type.IsNested)
          names.Add(type.Name.Split('`')[0]);
    foreach (var name in names) Console.WriteLine(name);
  }
}
CS
mcs -r:System.Core -out:"$work/List.exe" "$work/List.cs" >/dev/null
{
  header "Public types of the namespaces the generated C# imports" "Mono $(mono --version | head -1 | cut -d' ' -f5)'s class libraries"
  mono "$work/List.exe" | grep -E '^[A-Za-z][A-Za-z0-9]*$'
} > "$here/csharp.txt"

# Go: the predeclared identifiers (builtin.go documents each; its Type, Type1,
# IntegerType, FloatType and ComplexType stand for any type and are not declared).
builtin="$(go env GOROOT)/src/builtin/builtin.go"
{
  header "Go's predeclared identifiers" "go $(go env GOVERSION)'s builtin.go"
  {
    grep -oE '^(type|func|var|const) [A-Za-z][A-Za-z0-9]*' "$builtin" | awk '{print $2}'
    grep -oE '^\s+(true|false|iota)\b' "$builtin" | tr -d '[:space:]' | sed 's/\(true\|false\|iota\)/\1\n/g'
  } | grep -vxE 'Type|Type1|IntegerType|FloatType|ComplexType' | grep -v '^$' | sort -u
} > "$here/go.txt"

wc -l "$here"/*.txt
