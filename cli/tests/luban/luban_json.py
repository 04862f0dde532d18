"""Luban's own JSON output of a project against masterctl's client JSON of its migration.

Usage: python3 luban_json.py MASTERS_REPO BUILD LUBAN_JSON_DIR

For each table of the masterctl project in MASTERS_REPO whose schema says which Luban
table it was converted from (`# Converted from Luban table demo.TbItem`), Luban's JSON
(`demo_tbitem.json` in LUBAN_JSON_DIR: an array of records) is compared with the
client JSON of BUILD (`client/json/tables/<table>.json`, columns and rows), record by
record in order and field by field for every field masterctl converted: a field as
itself, a bean spread over columns as its flattened fields (`reward_item_id` is
`reward.item_id`), a map spread over columns as one field per key, a list of beans as
aligned lists, a bean written in one cell (a record) as the object its fields' columns
(`cost/item_id`) make. Luban writes enums as numbers, datetimes as Unix seconds and maps as
[key, value] pairs; each is read so. Prints the number of values compared; exits 1
naming every value that differs.
"""

import datetime
import json
import math
import re
import sys
import tomllib
from pathlib import Path


def luban_name(schema_text):
    m = re.search(r"^# Converted from Luban table (\S+)", schema_text, re.M)
    return m.group(1) if m else None


def enum_numbers(field):
    """A masterctl enum value's name → Luban's number for it."""
    numbers = {}
    for i, v in enumerate(field.get("values", [])):
        if isinstance(v, str):
            numbers[v] = None
        else:
            numbers[v["value"]] = v.get("number")
    return numbers


def as_luban(field, value, kind):
    """A value of masterctl's client JSON as Luban's JSON writes it."""
    if value is None:
        return None
    if kind == "enum":
        number = enum_numbers(field).get(value)
        return number if number is not None else value
    if kind == "datetime" and isinstance(value, str):
        moment = datetime.datetime.strptime(value[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
        return int(moment.timestamp())
    return value


def scalar_kind(ty):
    if ty.startswith("list<") or ty.startswith("map<"):
        inner = ty[ty.index("<") + 1 : -1]
        return inner.split(",")[-1].strip()
    return ty


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# The project's record types (`kind = "record"` schemas), by name.
RECORDS = {}
# The project's union types (`kind = "union"` schemas), by name.
UNIONS = {}


def parsed(field, text):
    """A part of a record's text as the client JSON would hold it typed."""
    if text == "":
        return None
    kind = field["type"]
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        return text == "true"
    return text


def union_object(text, name):
    """A union's text in the client JSON (`demo_d2,1,2`) as Luban's object: `$type` its
    case's Luban name, then its record's fields (parts in order, nested records opened
    where they share the separator)."""
    if text is None:
        return None
    u = UNIONS[name]
    sep = u.get("separator", ",")
    named, _, rest = text.partition(sep)
    case = next(c for c in u["cases"] if c["record"] == named)

    def fields_of(rec, parts, sep):
        obj = {}
        for f in rec["fields"]:
            inner = RECORDS.get(f["type"])
            if inner is not None and inner.get("separator", ",") == sep:
                obj[f["name"]] = fields_of(inner, parts, sep)
            elif inner is not None:
                # A record of another separator: one part, split by its own.
                part = next(parts, "")
                own = inner.get("separator", ",")
                obj[f["name"]] = fields_of(inner, iter(part.split(own)), own) if part else None
            else:
                obj[f["name"]] = as_luban(f, parsed(f, next(parts, "")), f["type"])
        return obj

    obj = fields_of(RECORDS[case["record"]], iter(rest.split(sep)), sep)
    obj["$type"] = case["record"]
    return obj


def case_record(luban_type):
    """The record of the union case Luban names `luban_type` (`Rectangle`,
    `test2.Rectangle`)."""
    short = luban_type.rsplit(".", 1)[-1]
    for u in UNIONS.values():
        for case in u["cases"]:
            if luban_type in case.get("names", []) or short in case.get("names", []):
                return case["record"]
    return luban_type


def record_object(cells, column, rec, listed):
    """A record field's value in the client JSON as Luban's object (a list's, a list of
    them): built from the columns of its fields (`cost/item_id`), nested by path."""
    if cells.get(column) is None:
        return None
    leaves = {c[len(column) + 1 :]: v for c, v in cells.items() if c.startswith(column + "/")}

    def one(i):
        obj = {}
        for path, values in leaves.items():
            value = values[i] if i is not None else values
            *outer, last = path.split("/")
            node, where = obj, rec
            for part in outer:
                node = node.setdefault(part, {})
                where = RECORDS[next(f for f in where["fields"] if f["name"] == part)["type"]]
            field = next(f for f in where["fields"] if f["name"] == last)
            node[last] = as_luban(field, value, field["type"])
        return obj

    return [one(i) for i in range(len(cells[column]))] if listed else one(None)


def luban_object(value):
    """Luban's object with its keys as masterctl names its fields (snake case)."""
    if isinstance(value, dict):
        return {snake([k]): luban_object(v) for k, v in value.items()}
    if isinstance(value, list):
        return [luban_object(v) for v in value]
    return value


def luban_union(value):
    """Luban's polymorphic object (or list of them): its keys as masterctl names its
    fields, `$type` kept."""
    if isinstance(value, list):
        return [luban_union(v) for v in value]
    if isinstance(value, dict):
        return {
            ("$type" if k == "$type" else snake([k])): (case_record(v) if k == "$type" else luban_union(v))
            for k, v in value.items()
        }
    return value


def same_object(ours, theirs):
    """Two records alike, an empty field of ours being Luban's 0 or ""."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return set(ours) == set(theirs) and all(
            same_object(ours[k], theirs[k]) or (ours[k] is None and theirs[k] in (0, "", False)) for k in ours
        )
    if isinstance(ours, list) and isinstance(theirs, list):
        return len(ours) == len(theirs) and all(same_object(a, b) for a, b in zip(ours, theirs))
    return same(ours, theirs)


def luban_value(record, path):
    """The value at a dotted path of a Luban record (`reward.item_id`)."""
    value = record
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return KeyError
        value = value[part]
    return value


def paths(record, prefix=()):
    """Every leaf of a Luban record, with its path and its snake name."""
    for key, value in record.items():
        path = prefix + (key,)
        if isinstance(value, dict) and "$type" not in value:
            yield from paths(value, path)
        else:
            yield path, value


def snake(parts):
    text = "_".join(parts)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()


def main():
    repo, build, luban_dir = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    compared, wrong, tables = 0, [], 0
    texts = [p.read_text() for p in sorted((repo / "schemas").glob("*.toml"))]
    for text in texts:
        schema = tomllib.loads(text)
        if schema.get("kind") == "record":
            RECORDS[schema["name"]] = schema
        if schema.get("kind") == "union":
            UNIONS[schema["name"]] = schema
    for text in texts:
        schema = tomllib.loads(text)
        luban = luban_name(text)
        if not luban or "fields" not in schema:
            continue
        luban_file = luban_dir / (luban.replace(".", "_").lower() + ".json")
        ours_file = build / "client/json/tables" / f"{schema['name']}.json"
        if not luban_file.exists() or not ours_file.exists():
            continue
        tables += 1
        theirs = json.loads(luban_file.read_text())
        ours = json.loads(ours_file.read_text())
        columns = ours["columns"]
        fields = {f["name"]: f for f in schema["fields"]}
        name = schema["name"]
        if len(theirs) != len(ours["rows"]):
            wrong.append(f"{name}: Luban has {len(theirs)} records, masterctl {len(ours['rows'])}")
            continue
        # Luban keeps the sheet's order, masterctl the key's: records meet by key.
        key = schema.get("primary_key", [])
        ours_rows = [dict(zip(columns, row)) for row in ours["rows"]]
        if key:
            def key_of_theirs(record):
                leaves = {snake(p): v for p, v in paths(record)}
                return tuple(str(leaves.get(k)) for k in key)
            by_key = {tuple(str(r[k]) for k in key): r for r in ours_rows}
            pairs = [(key_of_theirs(r), r, by_key.get(key_of_theirs(r))) for r in theirs]
        else:
            pairs = [(i, r, o) for i, (r, o) in enumerate(zip(theirs, ours_rows))]
        # Luban's `text` fields are keys in masterctl; its JSON holds their translation.
        keys_of_texts = set(re.findall(r"^# Converted with a change: field `([^`]+)`: text is a localization key", text, re.M))
        for index, record, cells in pairs:
            if cells is None:
                wrong.append(f"{name}{list(index)}: no masterctl record with this key")
                continue
            leaves = {snake(p): (p, v) for p, v in paths(record)}
            for column, value in cells.items():
                field = fields.get(column)
                if field is None or column in keys_of_texts:
                    continue  # a map's `.values` (compared with its keys), a text's key
                kind = scalar_kind(field["type"])
                if kind in UNIONS:
                    found = next((v for k, v in record.items() if snake([k]) == column), KeyError)
                    if found is KeyError:
                        continue
                    if field["type"].startswith("list<"):
                        ours_value = None if value is None else [union_object(v, kind) for v in value]
                    else:
                        ours_value = union_object(value, kind)
                    compared += 1
                    if not same_object(ours_value, luban_union(found)):
                        wrong.append(f"{name}[{index}].{column}: masterctl {ours_value!r}, Luban {found!r}")
                    continue
                if kind in RECORDS:
                    found = next((v for k, v in record.items() if snake([k]) == column), KeyError)
                    if found is KeyError:
                        continue
                    ours_value = record_object(cells, column, RECORDS[kind], field["type"].startswith("list<"))
                    compared += 1
                    if not same_object(ours_value, luban_object(found)):
                        wrong.append(f"{name}[{index}].{column}: masterctl {ours_value!r}, Luban {found!r}")
                    continue
                if field["type"].startswith("map<"):
                    key_kind = field["type"][4:-1].split(",")[0].strip()
                    pairs = [
                        [as_luban(field, k, key_kind), as_luban(field, v, kind)]
                        for k, v in zip(value or [], cells.get(column + ".values") or [])
                    ]
                    found = leaves.get(column, (None, KeyError))[1]
                    if found is KeyError:
                        continue
                    theirs_pairs = sorted(found, key=lambda p: p[0]) if isinstance(found, list) else found
                    compared += 1
                    if not same(pairs, theirs_pairs):
                        wrong.append(f"{name}[{index}].{column}: masterctl {pairs}, Luban {found}")
                    continue
                if column in leaves:
                    found = leaves[column][1]
                else:
                    # A list of beans as aligned lists: `item_list_weight` is
                    # `item_list[*].weight`.
                    found = KeyError
                    for key, (p, v) in leaves.items():
                        if isinstance(v, list) and column.startswith(key + "_") and all(isinstance(e, dict) for e in v):
                            sub = column[len(key) + 1 :]
                            found = [e.get(next((k for k in e if snake([k]) == sub), sub)) for e in v]
                            break
                    if found is KeyError:
                        continue
                ours_value = [as_luban(field, v, kind) for v in value] if isinstance(value, list) else as_luban(field, value, kind)
                if ours_value is None and found in (None, [], ""):
                    continue
                if field.get("optional") and ours_value is None and found is not None:
                    # Luban writes an empty optional number as 0, a string as "".
                    ours_value = 0 if isinstance(found, (int, float)) and not isinstance(found, bool) else found if found in ("", []) else None
                compared += 1
                if not same(ours_value, found):
                    wrong.append(f"{name}[{index}].{column}: masterctl {ours_value!r}, Luban {found!r}")
    print(f"{tables} {compared}")
    for w in wrong[:400]:
        print(w, file=sys.stderr)
    sys.exit(1 if wrong else 0)


main()
