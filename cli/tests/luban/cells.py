"""Every cell of a migrated Luban project, read again by an independent reader.

Usage: python3 cells.py MASTERS_REPO DATA_DIR

For each table of the masterctl project in MASTERS_REPO (its schemas/*.toml, which name
where each table is read: `source`, the headers, `column_offset`), the workbook is read
with openpyxl, the way Luban lays it out (a `##var` header; `##` rows and rows whose
first cell starts with `#` are not data; the first column is Luban's marker column;
`##column` sheets hold records down columns: a singleton's one, a keyed table's one per
values column), each cell is written as masterctl's
canonical files write it, and the result is compared, cell by cell, with the region
branch's canonical CSV (`git show masters/main:tables/<table>.csv`). Prints the number
of cells compared; exits 1 naming every cell that differs.
"""

import csv
import datetime
import re
import io
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import openpyxl


def parse_datetime(text):
    """`1999-8-4 10:09:09`, `2024/04/01 10:00`, ISO 8601 with an offset: a datetime."""
    import re

    m = re.fullmatch(
        r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z|[+-]\d{2}:?\d{2})?",
        text,
    )
    if not m:
        return None
    y, mo, d, h, mi, s, frac, zone = m.groups()
    micro = int((frac or "0").ljust(6, "0")[:6])
    value = datetime.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0), micro)
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        value = value.replace(tzinfo=datetime.timezone(sign * offset))
    return value


def canonical_float(x):
    if x == 0:
        return "0"
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(float(x))


# The project's record types (`kind = "record"` schemas), by name.
RECORDS = {}
# The project's union types (`kind = "union"` schemas), by name.
UNIONS = {}


def union(name, value):
    """A union's cell as canonical files write it: its case by its record's name, then
    that record's parts."""
    u = UNIONS[name]
    sep = u.get("separator", ",")
    text = canonical_float(value) if isinstance(value, float) else str(value)
    named, _, rest = text.partition(sep)
    for case in u["cases"]:
        if named.strip() == case["record"] or named.strip() in case.get("names", []):
            return case["record"] + sep + record(case["record"], rest)
    return f"!{text}"


def record(name, value):
    """A record's cell as canonical files write it: each field's part as its type reads
    it, a record field of the same separator taking its own parts from those that follow."""
    rec = RECORDS[name]
    sep = rec.get("separator", ",")
    text = canonical_float(value) if isinstance(value, float) else str(value)
    split = text.split(sep)
    # A name of its type before its parts (an optional bean's `{}`, `vec3`) is not kept.
    if len(split) == record_parts(name) + 1 and split[0].strip() in rec.get("names", []):
        split = split[1:]
    parts = iter(split)

    def fields_of(rec):
        out = []
        for f in rec["fields"]:
            inner = RECORDS.get(f["type"])
            if inner is not None and inner.get("separator", ",") == sep:
                out.append(fields_of(inner))
                continue
            part = next(parts, "")
            if inner is not None:
                got = record(f["type"], part) if part.strip() else None
            else:
                got = scalar(f["type"], part, f)
            out.append(default_text(f) if got is None else got)
        return sep.join(out)

    return fields_of(rec)


def record_parts(name):
    """How many parts a record's cell has (a record field of the same separator counting its own)."""
    rec = RECORDS[name]
    sep = rec.get("separator", ",")
    count = 0
    for f in rec["fields"]:
        inner = RECORDS.get(f["type"])
        same = inner is not None and inner.get("separator", ",") == sep
        count += record_parts(f["type"]) if same else 1
    return count


def scalar(ty, value, field):
    """One value as masterctl's canonical files write it (None: no value)."""
    if value is None:
        return None
    if ty in RECORDS:
        text = value.strip() if isinstance(value, str) else value
        return None if text == "" else record(ty, text)
    if ty in UNIONS:
        text = value.strip() if isinstance(value, str) else value
        return None if text == "" else union(ty, text)
    if isinstance(value, str):
        text = value.strip() if ty not in ("string", "text") else value
        if text == "" or text in field.get("null", []):
            return None
    if ty == "int":
        if isinstance(value, bool):
            return str(int(value))
        if isinstance(value, (int, float)):
            return str(int(value)) if float(value).is_integer() else f"!{value}"
        text = str(value).strip()
        # A whole number written as text keeps every digit (a float would not).
        return str(int(text)) if text.lstrip("+-").isdigit() else str(int(float(text)))
    if ty == "float":
        return canonical_float(float(value))
    if ty == "bool":
        if isinstance(value, bool):
            return "true" if value else "false"
        text = str(value).strip().lower()
        return {"true": "true", "1": "true", "false": "false", "0": "false"}.get(text, f"!{value}")
    if ty == "enum":
        text = value if isinstance(value, str) else canonical_float(value)
        text = text.strip()
        for v in field.get("values", []):
            if isinstance(v, str):
                if v == text:
                    return v
                continue
            names = [v["value"], *v.get("aliases", [])]
            if "number" in v:
                names.append(str(v["number"]))
            if text in names:
                return v["value"]
        return f"!{text}"
    if ty == "date":
        if isinstance(value, datetime.datetime):
            return value.date().isoformat()
        return str(value).strip()
    if ty == "datetime":
        if not isinstance(value, datetime.datetime):
            value = parse_datetime(str(value).strip())
            if value is None:
                return f"!{value}"
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        millis = round(value.microsecond / 1000)
        if millis == 1000:
            value, millis = value.replace(microsecond=0) + datetime.timedelta(seconds=1), 0
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        return f"{text}.{millis:03d}Z" if millis else f"{text}Z"
    # string (and text): numbers keep their spelling.
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return canonical_float(value)
    if field.get("escapes"):
        return unescape(str(value))
    return str(value)


def unescape(text):
    """A cell's backslash escapes (`escapes = true`, Luban's `#escape=1`) read."""

    def one(match):
        escape = match.group(1)
        if escape[0] == "u":
            return chr(int(escape[1:].strip("{}"), 16))
        return {"n": "\n", "r": "\r", "t": "\t"}.get(escape, escape)

    return re.sub(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|.)", one, text)


def cell_text(field, value):
    """A cell of `field` as the canonical file writes it ("" for none)."""
    ty = field["type"]
    if value is not None and isinstance(value, str) and value in field.get("null", []):
        value = None
    if ty.startswith("list<"):
        if value is None or (isinstance(value, str) and value.strip() == ""):
            return default_text(field)
        inner = ty[5:-1]
        sep = field.get("separator", "|")
        text = value if isinstance(value, str) else canonical_float(value) if isinstance(value, float) else str(value)
        pieces = text.split(sep)
        rec = RECORDS.get(inner)
        if rec is not None and rec.get("separator", ",") == sep:
            # Records whose separator is the list's: one after another, each its parts.
            width = record_parts(inner)
            pieces = [sep.join(pieces[i : i + width]) for i in range(0, len(pieces), width)]
        parts = [scalar(inner, p.strip(), field) for p in pieces]
        return "|".join(p or "" for p in parts)
    if ty.startswith("map<"):
        if value is None or (isinstance(value, str) and value.strip() == ""):
            return default_text(field)
        key_ty, value_ty = [t.strip() for t in ty[4:-1].split(",")]
        sep = field.get("separator", "|")
        key_sep = field.get("key_separator", ":")
        text = str(value)
        if sep == key_sep:
            parts = text.split(sep)
            pairs = list(zip(parts[0::2], parts[1::2]))
        else:
            pairs = [entry.split(key_sep, 1) for entry in text.split(sep)]
        entries = [(scalar(key_ty, k.strip(), field), scalar(value_ty, v.strip(), field)) for k, v in pairs]
        order = (lambda e: int(e[0])) if key_ty == "int" else (lambda e: e[0])
        return "|".join(f"{k}:{v}" for k, v in sorted(entries, key=order))
    got = scalar(ty, value, field)
    return default_text(field) if got is None else got


def default_text(field):
    if "default" not in field:
        return ""
    d = field["default"]
    if isinstance(d, bool):
        return "true" if d else "false"
    if isinstance(d, float):
        return canonical_float(d)
    if isinstance(d, list):
        return "|".join(str(x) for x in d)
    return str(d)


def header_names(field):
    spelled = field.get("column", field["name"])
    names = spelled if isinstance(spelled, list) else [spelled]
    return [n for n in names]


def shown(cell):
    """A cell's value as its format shows it: a date-time rounded to the second, or to
    the digits of a second its number format shows after the seconds (`ss.000`), as
    Excel rounds what it displays."""
    value = cell.value
    if not isinstance(value, datetime.datetime):
        return value
    fraction = re.search(r"[sS]\.(0{1,3})", cell.number_format or "")
    unit = 10 ** (6 - (len(fraction.group(1)) if fraction else 0))
    # Half up, as Excel rounds (Python's round() would take a half to the even unit).
    micro = (value.microsecond + unit // 2) // unit * unit
    return value.replace(microsecond=0) + datetime.timedelta(microseconds=micro)


def luban_rows(ws):
    """(header cells, data rows) of a Luban sheet: the first `##var` (or `##`) row is the
    header; rows whose first cell starts with `#` are not data."""
    rows = [[shown(c) for c in r] for r in ws.iter_rows()]
    header = None
    data = []
    for row in rows:
        first = row[0] if row else None
        if header is None:
            if isinstance(first, str) and first.strip().startswith("##"):
                header = row
            continue
        if isinstance(first, str) and first.strip().startswith("#"):
            continue
        if all(c is None or (isinstance(c, str) and c.strip() == "") for c in row[1:]):
            continue
        data.append(row)
    return header, data


def vertical(ws, fields, singleton):
    """The records of a `##column` sheet: names down column A, values in the columns
    that are not `#` notes above the first name — a singleton's one record in the first,
    another table's a record in each that holds a value."""
    rows = [[shown(c) for c in r] for r in ws.iter_rows()]
    wanted = {n: f for f in fields for n in header_names(f)}
    first = next(i for i, r in enumerate(rows) if r and isinstance(r[0], str) and r[0].strip() in wanted)
    width = max(len(r) for r in rows)
    notes = lambda c: any(isinstance(rows[i][c], str) and rows[i][c].strip().startswith("#") for i in range(first) if c < len(rows[i]))
    named = [r for r in rows[first:] if r and isinstance(r[0], str) and r[0].strip() in wanted]
    columns = [c for c in range(1, width) if not notes(c)]
    if singleton:
        columns = columns[:1]
    else:
        columns = [c for i, c in enumerate(columns) if i == 0 or any(c < len(r) and r[c] not in (None, "") for r in named)]
    records = []
    for values in columns:
        record = {}
        for r in named:
            record[wanted[r[0].strip()]["name"]] = r[values] if values < len(r) else None
        records.append(record)
    return records


class CsvSheet:
    """A CSV file as a sheet of cells (its text; an empty cell none), as openpyxl gives
    a worksheet's."""

    class Cell:
        number_format = None

        def __init__(self, value):
            self.value = value if value != "" else None

    def __init__(self, path):
        with open(path, newline="", encoding="utf-8-sig") as f:
            self.rows = [[CsvSheet.Cell(v) for v in row] for row in csv.reader(f)]

    def iter_rows(self):
        return iter(self.rows)

    def cell(self, row, column):
        cells = self.rows[row - 1] if row <= len(self.rows) else []
        return cells[column - 1] if column <= len(cells) else CsvSheet.Cell("")


def expected_rows(schema, data_dir):
    source = schema.get("source")
    if source is None:
        return None
    # The sheet follows the `#` after the file's extension (the file may start with `#`).
    lower = source.lower()
    cut = min((lower.find(f".{e}#") + len(e) + 1 for e in ("xlsx", "xlsm", "xlsb", "xls", "ods") if f".{e}#" in lower), default=len(source))
    file, sheet = source[:cut], source[cut + 1:]
    if file.lower().endswith(".csv"):
        return sheet_rows(schema, CsvSheet(Path(data_dir) / file), None)
    wb = openpyxl.load_workbook(Path(data_dir) / file, data_only=True)
    if sheet != "*" and "," not in sheet:
        return sheet_rows(schema, wb[sheet] if sheet else wb.worksheets[0], None)
    # One table over several sheets: every data sheet (`*`: those of Luban's layout),
    # or those named; each row's sheet is its `source_sheet` field's.
    names = [n for n in wb.sheetnames if str(wb[n].cell(1, 1).value or "").strip().startswith("##")] if sheet == "*" else sheet.split(",")
    return [row for name in names for row in sheet_rows(schema, wb[name], name)]


def sheet_rows(schema, ws, sheet_name):
    """The canonical rows of one sheet of a table (`sheet_name`: its name, for the
    table's `source_sheet` field, when the table is read from several)."""
    fields = schema["fields"]
    first_cell = ws.cell(1, 1).value
    marked = isinstance(first_cell, str) and first_cell.strip().startswith("##") and "column" in first_cell.lower().split("#")
    singleton = schema.get("kind") == "singleton"
    if singleton and isinstance(first_cell, str) and "column" in first_cell.lower() or marked:
        records = vertical(ws, fields, singleton)
        return [[cell_text(f, rec.get(f["name"])) for f in fields if f["type"] != "text"] for rec in records]
    header, data = luban_rows(ws)
    heads = [h.strip() if isinstance(h, str) else h for h in header]
    where = {}
    for f in fields:
        for name in header_names(f):
            if name in heads:
                where[f["name"]] = heads.index(name) + f.get("column_offset", 0)
                break
    columns = [f for f in fields if f["type"] != "text"]
    key = schema.get("primary_key", [])
    multi_row = any(f.get("multi_row") for f in columns)
    out = []
    for row in data:
        value = lambda f: row[where[f["name"]]] if where.get(f["name"]) is not None and where[f["name"]] < len(row) else None
        # A row whose key cells are empty goes on with the record above (`*field`).
        goes_on = multi_row and out and (
            schema.get("kind") == "singleton"
            or (key and all(value(f) in (None, "") for f in columns if f["name"] in key))
        )
        if goes_on:
            for i, f in enumerate(columns):
                if over_columns(f) and f.get("multi_row"):
                    more = row_element(f, row, where)
                elif f.get("multi_row") and value(f) not in (None, ""):
                    more = cell_text(f, value(f))
                else:
                    more = ""
                if more:
                    out[-1][i] = f"{out[-1][i]}|{more}" if out[-1][i] else more
            continue
        out.append([
            sheet_name if f.get("source_sheet")
            else (row_element(f, row, where) or default_text(f)) if over_columns(f)
            else spread_text(f, row, where) if f.get("column_span")
            else cell_text(f, value(f))
            for f in columns
        ])
    return [in_case(schema, columns, row) for row in out]


def in_case(schema, columns, row):
    """A row of a table of several cases (`case_field`): a field of other cases than the
    row's is empty (its default is its cases' alone)."""
    case_field = schema.get("case_field")
    if case_field is None:
        return row
    case = row[[f["name"] for f in columns].index(case_field)]
    return [
        "" if "cases" in f and case not in f["cases"] and text == default_text(f) else text
        for f, text in zip(columns, row)
    ]


def over_columns(field):
    """A record or union over the columns its header spans, its parts one a column (or
    a multi-row list of them, one a row)."""
    if not field.get("column_span"):
        return False
    ty = field["type"]
    if ty.startswith("list<"):
        return bool(field.get("multi_row"))
    return ty in UNIONS or ty in RECORDS


def row_element(field, row, where):
    """A row's element of a multi-row list over the columns its header spans: its parts,
    one a column (the empty ones after the last left out), as its type's cell would
    write them ("" for none)."""
    at = where.get(field["name"])
    if at is None:
        return ""
    cells = list(row[at:at + field["column_span"]])
    while cells and cells[-1] in (None, ""):
        cells.pop()
    if not cells:
        return ""
    inner = field["type"][5:-1] if field["type"].startswith("list<") else field["type"]
    of = UNIONS.get(inner) or RECORDS[inner]
    texts = ["" if c is None else canonical_float(c) if isinstance(c, float) else str(c) for c in cells]
    return scalar(inner, of.get("separator", ",").join(texts), field) or ""


def spread_text(field, row, where):
    """A list over the columns its header spans (`column_span`): each column's elements,
    in order; an empty cell adds none."""
    at = where.get(field["name"])
    if at is None:
        return default_text(field)
    cells = row[at:at + field["column_span"]]
    inner = RECORDS.get(field["type"][5:-1])
    sep = field.get("separator", "|")
    if inner is not None and inner.get("separator", ",") == sep:
        # Records separated as the list is: the cells are one run of parts, a record
        # after another (Luban's `list,Pair` over `1`, `2`, `3`, `4`).
        texts = [canonical_float(c) if isinstance(c, float) else str(c) for c in cells if c not in (None, "")]
        return cell_text(field, sep.join(texts)) if texts else default_text(field)
    parts = [cell_text(field, c) for c in cells if c not in (None, "")]
    joined = "|".join(p for p in parts if p)
    return joined or default_text(field)


def main():
    repo, data_dir = sys.argv[1], sys.argv[2]
    compared, wrong = 0, []
    schemas = [tomllib.loads(p.read_text()) for p in sorted(Path(repo, "schemas").glob("*.toml"))]
    RECORDS.update({s["name"]: s for s in schemas if s.get("kind") == "record"})
    UNIONS.update({s["name"]: s for s in schemas if s.get("kind") == "union"})
    for schema in schemas:
        if "fields" not in schema or schema.get("kind") in ("record", "union"):
            continue
        expected = expected_rows(schema, data_dir)
        if expected is None:
            continue
        name = schema["name"]
        shown = subprocess.run(
            ["git", "show", f"masters/main:tables/{name}.csv"], cwd=repo, capture_output=True, text=True
        )
        if shown.returncode != 0:
            wrong.append(f"{name}: no canonical file")
            continue
        actual = list(csv.reader(io.StringIO(shown.stdout)))[1:]
        columns = [f for f in schema["fields"] if f["type"] != "text"]
        key = schema.get("primary_key", [])
        index = [i for i, f in enumerate(columns) if f["name"] in key]
        if index:
            by_key = lambda rows: {tuple(r[i] for i in index): r for r in rows}
            got, want = by_key(actual), by_key(expected)
        else:
            got, want = dict(enumerate(actual)), dict(enumerate(expected))
        if set(got) != set(want):
            wrong.append(f"{name}: rows {sorted(set(want) ^ set(got))[:5]} differ")
        for k, row in want.items():
            other = got.get(k)
            if other is None:
                continue
            for f, a, b in zip(columns, other, row):
                compared += 1
                same = a == b
                if not same and f["type"] == "float" and a and b:
                    same = math.isclose(float(a), float(b), rel_tol=1e-12)
                if not same:
                    wrong.append(f"{name} {k} {f['name']}: masterctl `{a}`, the workbook `{b}`")
    print(compared)
    for w in wrong[:50]:
        print(w, file=sys.stderr)
    sys.exit(1 if wrong else 0)


main()
