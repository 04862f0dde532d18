//! The template context: what the schemas say, arranged for code — tables with their
//! fields typed in the target language, keys, indexes, enums, reverse lookups and custom
//! masters. `masterctl codegen --dump-context` prints it; templates read nothing else.

use masterctl_schemas::schema::{
    CustomKind, Field as SchemaField, FieldType, GeneratedKind, Project, RecordType, TableKind,
    TableSchema, UnionType,
};
use masterctl_schemas::value::{Step, Value};
use serde::Serialize;

use crate::Lang;
use crate::names::{self, camel_in, enum_idents, literal, pascal_in, safe_ident, type_name};

/// Everything a template sees.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// `masterctl <version>`: what wrote the code.
    pub generator: String,
    /// The target language (`rust`, `csharp`, `go`, `typescript`).
    pub lang: String,
    /// The schema hash of the builds this code reads (a build's manifest has it).
    pub schema_hash: String,
    pub source_language: String,
    /// Every language of the project, the source first, the pseudo languages last.
    pub languages: Vec<String>,
    /// The package or crate name (`--name`).
    pub package: String,
    /// How the generated Rust crate reaches `masterctl-runtime` (a Cargo dependency
    /// specification: `{ path = "..." }` or `"0.1"`).
    pub runtime_dependency: String,
    pub tables: Vec<Table>,
    /// The record types the tables' fields hold (`kind = "record"` schemas).
    pub records: Vec<Record>,
    /// The union types the tables' fields hold (`kind = "union"` schemas).
    pub unions: Vec<Union>,
    pub enums: Vec<Enum>,
    pub reverses: Vec<Reverse>,
    pub groups: Vec<Group>,
    pub weighted: Vec<Weighted>,
    pub matrices: Vec<Matrix>,
}

/// What a table or a generated master is called.
#[derive(Debug, Clone, Serialize)]
pub struct Named {
    pub name: String,
    /// Its type's name (`QuestDrop`).
    pub type_name: String,
    /// Its member name in the target language's convention.
    pub ident: String,
    pub description: Option<String>,
}

impl Named {
    fn new(lang: Lang, name: &str, description: &Option<String>) -> Named {
        Named {
            name: name.to_string(),
            type_name: type_name(lang, name),
            ident: table_member(lang, name),
            description: description.clone(),
        }
    }
}

/// One table.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    #[serde(flatten)]
    pub named: Named,
    /// Every field, in the schema's order.
    pub fields: Vec<Field>,
    /// The fields stored in the table's archive (all but texts).
    pub columns: Vec<Field>,
    /// The text fields (one string per language).
    pub texts: Vec<Field>,
    /// The map fields (each a column of keys and one of values).
    pub maps: Vec<Field>,
    /// The primary key's fields, in key order.
    pub key: Vec<Field>,
    pub indexes: Vec<Index>,
    /// The reverse lookups whose target is this table.
    pub reverses: Vec<String>,
    /// `table` (keyed), `singleton` or `list`.
    pub kind: &'static str,
    /// One record: the loader's accessor is the record itself, checked at open.
    pub singleton: bool,
    /// A table of several cases: the enum field saying each row's case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_field: Option<Field>,
    /// The type of a row as its case (`ThingCase`), with a table's `case_field`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_type: Option<String>,
    /// Its cases, in the case field's order, each with the fields its rows fill.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<Case>,
}

/// A case of a table of several cases, for code: its rows, and the fields they fill.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// As the case field's cells write it.
    pub value: String,
    /// The value's identifier in the case field's enum.
    pub ident: String,
    /// The value as a string literal of the target language.
    pub literal: String,
    /// The type of a row of this case (`ThingGoods`).
    pub type_name: String,
    /// The fields its rows fill that not every row does.
    pub fields: Vec<CaseField>,
}

/// A field of some cases, as a case's row reads it.
#[derive(Debug, Clone, Serialize)]
pub struct CaseField {
    #[serde(flatten)]
    pub field: Field,
    /// Every row of the case holds one value there (the field is not optional, and is
    /// not a list, map, record, union or text): read as `filled_type`, never empty.
    pub filled: bool,
    pub filled_type: String,
}

/// One field, typed for the target language.
#[derive(Debug, Clone, Serialize)]
pub struct Field {
    pub name: String,
    /// The accessor's name in the target language's convention (reserved words escaped).
    pub ident: String,
    /// The name of a parameter taking its value (`category_id`, `categoryId`, Go's
    /// `categoryID`; reserved words escaped).
    pub param: String,
    /// Its position among the table's fields.
    pub index: usize,
    /// `int`, `float`, `bool`, `string`, `text`, `enum`, `date` or `datetime` (a list's
    /// element kind for a list).
    pub kind: &'static str,
    pub list: bool,
    /// May be empty (optional, without a default).
    pub nullable: bool,
    /// The accessor's type in the target language (`Option<i64>`, `long?`...).
    #[serde(rename = "type")]
    pub ty: String,
    /// The element type: the type itself, or a list's element type, never optional.
    pub scalar_type: String,
    /// The type of an argument taking one element (a key, an index value): the element
    /// type, borrowed for no longer than the call (`&str` in Rust).
    pub arg_type: String,
    /// How the runtime archive stores an element: `Int`, `Float`, `Bool`, `Str` (strings,
    /// texts and enums), `Date` or `DateTime`.
    pub archive_type: &'static str,
    /// Its type code in the client export (`docs/CLIENT-FORMAT.md`): 1 int, 2 float,
    /// 3 bool, 4 string (and text), 5 date, 6 datetime, 7 enum.
    pub client_type: u8,
    /// The enum type's name, for `enum` and `list<enum>` fields.
    pub enum_name: Option<String>,
    pub description: Option<String>,
    pub references: Option<Reference>,
    /// Part of the primary key.
    pub key: bool,
    pub unique: bool,
    /// A map: `scalar_type`, `archive_type` and `client_type` are its values', and
    /// `map` says its keys' (the archive holds its keys in the field's column and its
    /// values in `<name>.values`, lists of the same lengths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<MapKey>,
    /// The record type it holds (itself, a list's elements, a map's values), by its
    /// type's name: the build holds the cells' text in its column and each field of
    /// the record in `<name>/<field>` (`docs/CLIENT-FORMAT.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// A field holding records: each field of its record (nested records opened).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub record_leaves: Vec<RecordLeaf>,
    /// The union type it holds (itself, a list's elements, a map's values), by its
    /// type's name: the build holds the cells' text in its column, each value's case in
    /// `<name>/$case` and each case's fields in `<name>/<case>/<field>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub union: Option<String>,
    /// A field holding unions: each field of each case's record (nested ones opened),
    /// as its column holds it (`zone/circle/radius`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub union_leaves: Vec<UnionLeaf>,
    /// A field holding records: each union field of its records (nested records
    /// opened), where its record holds it and its cases' fields.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub record_unions: Vec<RecordUnion>,
}

/// A union field of the records a field holds: its columns and how code reaches it
/// from a record.
#[derive(Debug, Clone, Serialize)]
pub struct RecordUnion {
    /// Its cases' column (`price/bonus/$case`).
    pub case_column: String,
    /// Its members from the record (`bonus`, `cost.bonus`).
    pub path: String,
    /// Its members from the record, each but the first after `?.`.
    pub optional_path: String,
    /// The union's type name.
    pub union: String,
    /// Each field of each case's record, as for a union field.
    pub leaves: Vec<UnionLeaf>,
}

/// A field of a union's case, as the build keeps it beside the union's column.
#[derive(Debug, Clone, Serialize)]
pub struct UnionLeaf {
    /// The case, as the `<field>/$case` column names it (its record's name).
    pub case: String,
    /// The case's record type name.
    pub case_type: String,
    #[serde(flatten)]
    pub leaf: RecordLeaf,
}

/// A union type, for code: one of its cases, each a record.
#[derive(Debug, Clone, Serialize)]
pub struct Union {
    pub name: String,
    pub type_name: String,
    pub description: Option<String>,
    /// What its cells write between a case's name and its record.
    pub separator: String,
    pub cases: Vec<UnionCase>,
}

/// A case of a union: its record.
#[derive(Debug, Clone, Serialize)]
pub struct UnionCase {
    /// The record's name, as canonical files name the case.
    pub name: String,
    /// The record's type name.
    pub record: String,
    /// Its member name in the target language's convention.
    pub ident: String,
}

/// A field of the records a field holds, nested records opened: where the build holds
/// it and how code reaches it from a record.
#[derive(Debug, Clone, Serialize)]
pub struct RecordLeaf {
    /// Its column (`price/cost/item_id`).
    pub column: String,
    /// Its members from the record, joined by `.` (`cost.itemId`).
    pub path: String,
    /// Its members from the record, each but the first after `?.` (`cost?.itemId`).
    pub optional_path: String,
    pub kind: &'static str,
}

/// A record type, for code: a value of its fields.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub name: String,
    pub type_name: String,
    pub description: Option<String>,
    /// What its cells write between its fields.
    pub separator: String,
    pub fields: Vec<RecordField>,
}

/// A field of a record type, typed for the target language.
#[derive(Debug, Clone, Serialize)]
pub struct RecordField {
    pub name: String,
    pub ident: String,
    /// As a table's field's, or `record` for a record in the record, `union` for a
    /// union.
    pub kind: &'static str,
    /// May be empty (optional, without a default).
    pub nullable: bool,
    #[serde(rename = "type")]
    pub ty: String,
    pub scalar_type: String,
    pub archive_type: &'static str,
    pub client_type: u8,
    pub enum_name: Option<String>,
    /// A record in the record: its type's name.
    pub record: Option<String>,
    /// A union in the record: its type's name (`type` is one value of it, none when the
    /// part is empty, as a union field's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub union: Option<String>,
    pub description: Option<String>,
}

/// A map field's keys, typed for the target language.
#[derive(Debug, Clone, Serialize)]
pub struct MapKey {
    /// `int`, `string`, `enum` or `bool`.
    pub kind: &'static str,
    #[serde(rename = "type")]
    pub ty: String,
    pub archive_type: &'static str,
    pub client_type: u8,
    /// The column of its values: `<name>.values`.
    pub values_column: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reference {
    pub table: String,
    pub type_name: String,
    /// The referenced table's member name.
    pub ident: String,
    pub field: String,
    /// The field referred to is that table's whole primary key (a lookup by key finds
    /// the row).
    pub by_key: bool,
}

/// A secondary index.
#[derive(Debug, Clone, Serialize)]
pub struct Index {
    /// Its fields' names joined by `_and_` (`category_id`, `chapter_id_and_order`).
    pub name: String,
    pub fields: Vec<Field>,
    pub unique: bool,
    pub order_by: Vec<String>,
}

/// The values of one `enum` field.
#[derive(Debug, Clone, Serialize)]
pub struct Enum {
    /// The type's name: table and field (`ItemRarity`).
    pub name: String,
    pub table: String,
    pub field: String,
    pub description: Option<String>,
    pub values: Vec<EnumValue>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EnumValue {
    /// As written in the cells.
    pub value: String,
    /// A PascalCase identifier every target language accepts, unique in its enum.
    pub ident: String,
    /// The value as a string literal of the target language.
    pub literal: String,
    /// Its position (the number client exports store).
    pub index: usize,
}

/// A reverse lookup: for a row of `target`, the rows of the sources that point at it.
#[derive(Debug, Clone, Serialize)]
pub struct Reverse {
    #[serde(flatten)]
    pub named: Named,
    pub target: String,
    pub target_type: String,
    /// The target's key field (the lookup's argument).
    pub key: Field,
    /// The archive's column holding the target's key (`item_id`).
    pub key_column: String,
    pub sources: Vec<ReverseSource>,
    /// The extra columns copied from the sources, typed by the first source that has
    /// each (always nullable: another source may lack it).
    pub columns: Vec<Field>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReverseSource {
    pub table: String,
    pub type_name: String,
    /// The source table's member name.
    pub ident: String,
    pub field: String,
    /// The name as a string literal of the target language.
    pub literal: String,
    /// An earlier source is of the same table (through another field).
    pub repeated: bool,
}

/// A custom master grouping a table's rows by key fields.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    #[serde(flatten)]
    pub named: Named,
    pub table: String,
    pub table_type: String,
    /// The grouped table's member name.
    pub table_ident: String,
    pub group_by: Vec<Field>,
    pub order_by: Vec<String>,
}

/// A custom master of cumulative weights per group, for weighted draws.
#[derive(Debug, Clone, Serialize)]
pub struct Weighted {
    #[serde(flatten)]
    pub named: Named,
    pub table: String,
    pub table_type: String,
    /// The grouped table's member name.
    pub table_ident: String,
    pub group_by: Vec<Field>,
    pub weight: Field,
}

/// A dense table over two enum fields.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    #[serde(flatten)]
    pub named: Named,
    pub table: String,
    pub row: Field,
    pub column: Field,
    pub value: Field,
    /// The value of a missing cell, as a literal of the target language.
    pub default: Option<String>,
}

/// The member of `Masters` a table or generated master is (escaped from the template's
/// own: [`names::own_member`]).
fn table_member(lang: Lang, name: &str) -> String {
    names::own_member(member(lang, name), names::own(lang).masters)
}

/// The names a table, field or master is known by in generated code.
fn member(lang: Lang, name: &str) -> String {
    match lang {
        Lang::Rust => safe_ident(lang, name),
        Lang::CSharp | Lang::Go => safe_ident(lang, &pascal_in(lang, name)),
        Lang::TypeScript => safe_ident(lang, &camel_in(lang, name)),
    }
}

/// Names the built-in Go and C# templates give their own locals, receivers and imported
/// packages in functions taking parameters, and Go's predeclared identifiers: a parameter
/// of one of these names takes `Value` after it (`key` → `keyValue`).
const LOCALS: &[&str] = &[
    "any",
    "append",
    "at",
    "binary",
    "bool",
    "byte",
    "bytes",
    "c",
    "cap",
    "compare",
    "copy",
    "end",
    "err",
    "error",
    "false",
    "file",
    "filepath",
    "float32",
    "float64",
    "fmt",
    "g",
    "group",
    "high",
    "i",
    "int",
    "int32",
    "int64",
    "k",
    "key",
    "l",
    "len",
    "list",
    "low",
    "m",
    "make",
    "math",
    "member",
    "members",
    "new",
    "nil",
    "none",
    "o",
    "ok",
    "one",
    "os",
    "panic",
    "parts",
    "position",
    "r",
    "row",
    "rows",
    "sort",
    "start",
    "strconv",
    "string",
    "strings",
    "sync",
    "t",
    "target",
    "text",
    "time",
    "true",
    "uint32",
    "v",
    "values",
    "w",
    "written",
    "entry",
    "sorted",
    "order",
    "found",
    "table",
    "value",
    "cumulative",
    "index",
    "gate",
    "count",
];

/// The name of a parameter taking a field's value, in `lang`'s convention.
fn param(lang: Lang, name: &str) -> String {
    match lang {
        Lang::Rust => safe_ident(lang, name),
        Lang::Go | Lang::CSharp => match camel_in(lang, name) {
            local if LOCALS.contains(&local.as_str()) => format!("{local}Value"),
            param => safe_ident(lang, &param),
        },
        Lang::TypeScript => safe_ident(lang, &camel_in(lang, name)),
    }
}

/// The enum type of `field` of `table` (`Enum` after it should that be a name the
/// language's library has: `uint8` + `array`).
pub fn enum_name(lang: Lang, table: &str, field: &str) -> String {
    let name = format!("{}{}", pascal_in(lang, table), pascal_in(lang, field));
    if names::ambient(lang, &name) {
        format!("{name}Enum")
    } else {
        name
    }
}

/// A scalar type's name in `lang`.
fn scalar_name(lang: Lang, ty: &FieldType, enum_type: Option<&str>) -> String {
    let name = match (lang, ty) {
        (_, FieldType::Enum) => return enum_type.unwrap_or("String").to_string(),
        (Lang::Rust, FieldType::Int) => "i64",
        (Lang::Rust, FieldType::Float) => "f64",
        (Lang::Rust, FieldType::Bool) => "bool",
        (Lang::Rust, FieldType::Record(record)) => {
            return format!("{}<'a>", type_name(lang, &record.name));
        }
        (Lang::TypeScript, FieldType::Record(record)) => return type_name(lang, &record.name),
        // A union's text, for now: its cases' types are to come.
        (Lang::Rust, FieldType::String | FieldType::Text | FieldType::Union(_)) => "&'a str",
        (Lang::Rust, FieldType::Date) => "Date",
        (Lang::Rust, FieldType::DateTime) => "DateTime",
        (Lang::CSharp, FieldType::Int) => "long",
        (Lang::CSharp, FieldType::Float) => "double",
        (Lang::CSharp, FieldType::Bool) => "bool",
        (Lang::CSharp, FieldType::Record(record)) => return type_name(lang, &record.name),
        (Lang::CSharp, FieldType::String | FieldType::Text | FieldType::Union(_)) => "string",
        (Lang::CSharp, FieldType::Date | FieldType::DateTime) => "System.DateTime",
        (Lang::Go, FieldType::Int) => "int64",
        (Lang::Go, FieldType::Float) => "float64",
        (Lang::Go, FieldType::Bool) => "bool",
        (Lang::Go, FieldType::Record(record)) => return type_name(lang, &record.name),
        (Lang::Go, FieldType::String | FieldType::Text | FieldType::Union(_)) => "string",
        (Lang::Go, FieldType::Date | FieldType::DateTime) => "time.Time",
        (Lang::TypeScript, FieldType::Int | FieldType::Float) => "number",
        (Lang::TypeScript, FieldType::Bool) => "boolean",
        (Lang::TypeScript, FieldType::String | FieldType::Text | FieldType::Union(_)) => "string",
        (Lang::TypeScript, FieldType::Date | FieldType::DateTime) => "Date",
        (_, FieldType::List(inner) | FieldType::Map(_, inner)) => {
            return scalar_name(lang, inner, enum_type);
        }
    };
    name.to_string()
}

/// A map's type in `lang`, of its keys' and values' types.
fn map_type(lang: Lang, key: &str, value: &str) -> String {
    match lang {
        Lang::Rust => format!("Map<'a, {key}, {value}>"),
        Lang::CSharp => {
            format!("System.Collections.Generic.IReadOnlyDictionary<{key}, {value}>")
        }
        Lang::Go => format!("map[{key}]{value}"),
        Lang::TypeScript => format!("ReadonlyMap<{key}, {value}>"),
    }
}

/// The accessor's type: lists and nullable fields wrapped as `lang` wraps them.
fn full_type(lang: Lang, scalar: &str, list: bool, nullable: bool) -> String {
    let ty = match (lang, list) {
        (_, false) => scalar.to_string(),
        (Lang::Rust, true) => format!("List<'a, {scalar}>"),
        (Lang::CSharp, true) => format!("System.Collections.Generic.IReadOnlyList<{scalar}>"),
        (Lang::Go, true) => format!("[]{scalar}"),
        (Lang::TypeScript, true) => format!("readonly {scalar}[]"),
    };
    if !nullable {
        return ty;
    }
    match lang {
        Lang::Rust => format!("Option<{ty}>"),
        // Reference types are nullable as they are; value types take `?`.
        Lang::CSharp if list || scalar == "string" => ty,
        Lang::CSharp => format!("{ty}?"),
        Lang::Go if list => ty,
        Lang::Go => format!("*{ty}"),
        Lang::TypeScript => format!("{ty} | null"),
    }
}

fn kind(ty: &FieldType) -> &'static str {
    match ty.scalar() {
        FieldType::Int => "int",
        FieldType::Float => "float",
        FieldType::Bool => "bool",
        FieldType::String | FieldType::Record(_) | FieldType::Union(_) => "string",
        FieldType::Text => "text",
        FieldType::Enum => "enum",
        FieldType::Date => "date",
        FieldType::DateTime => "datetime",
        FieldType::List(_) => "list",
        FieldType::Map(..) => "map",
    }
}

/// How the archive stores one element of `ty` (`Int`, `Str`...) and its type code in
/// the client export.
fn stored(ty: &FieldType) -> (&'static str, u8) {
    match ty.scalar() {
        FieldType::Int => ("Int", 1),
        FieldType::Float => ("Float", 2),
        FieldType::Bool => ("Bool", 3),
        FieldType::Date => ("Date", 5),
        FieldType::DateTime => ("DateTime", 6),
        FieldType::Enum => ("Str", 7),
        _ => ("Str", 4),
    }
}

fn field(lang: Lang, project: &Project, table: &TableSchema, index: usize) -> Field {
    let schema: &SchemaField = &table.fields[index];
    let enum_type = schema
        .ty
        .holds_enum()
        .then(|| enum_name(lang, &table.name, &schema.name));
    let scalar_type = scalar_name(lang, &schema.ty, enum_type.as_deref());
    let list = matches!(schema.ty, FieldType::List(_));
    // A field some cases' rows alone fill is empty in the others'.
    let nullable = (schema.optional && schema.default.is_none()) || !schema.cases.is_empty();
    let map = schema.ty.map_key().map(|key| {
        let (archive_type, client_type) = stored(key);
        MapKey {
            kind: kind(key),
            ty: scalar_name(lang, key, enum_type.as_deref()),
            archive_type,
            client_type,
            values_column: format!("{}.values", schema.name),
        }
    });
    let mut typed = Field {
        name: schema.name.clone(),
        ident: names::own_member(member(lang, &schema.name), names::own(lang).row),
        param: param(lang, &schema.name),
        index,
        kind: kind(&schema.ty),
        list,
        nullable,
        ty: match &map {
            Some(key) => {
                let ty = map_type(lang, &key.ty, &scalar_type);
                // A C# dictionary and a Go map may be null as they are.
                match (lang, nullable) {
                    (Lang::Rust, true) => format!("Option<{ty}>"),
                    (Lang::TypeScript, true) => format!("{ty} | null"),
                    _ => ty,
                }
            }
            None => full_type(lang, &scalar_type, list, nullable),
        },
        arg_type: scalar_type.replace("&'a ", "&"),
        client_type: stored(&schema.ty).1,
        archive_type: stored(&schema.ty).0,
        scalar_type,
        enum_name: enum_type,
        description: schema.description.clone(),
        references: schema.references.as_ref().map(|r| Reference {
            table: r.table.clone(),
            type_name: type_name(lang, &r.table),
            ident: table_member(lang, &r.table),
            field: r.field.clone(),
            // A map's references are its keys': no one row to go to.
            by_key: map.is_none()
                && project
                    .table(&r.table)
                    .is_some_and(|t| t.primary_key_names() == [r.field.as_str()]),
        }),
        key: table.primary_key.contains(&index),
        unique: schema.unique,
        map,
        record: None,
        record_leaves: Vec::new(),
        union: None,
        union_leaves: Vec::new(),
        record_unions: Vec::new(),
    };
    if let Some(union) = schema.ty.union() {
        typed_as_union(lang, &mut typed, &type_name(lang, &union.name));
        typed.union_leaves = union_leaves(lang, &schema.name, union);
    }
    if let Some(record) = schema.ty.record() {
        typed_as_record(lang, &mut typed, &type_name(lang, &record.name));
        typed.record_leaves = record_leaves(lang, &schema.name, record);
        typed.record_unions = record_unions(lang, &schema.name, &[], record);
    }
    typed
}

/// Each field of one value of `record` that members reach (nested records opened, not
/// unions: [`record_unions`]), its column under `under`.
fn record_leaves(lang: Lang, under: &str, record: &RecordType) -> Vec<RecordLeaf> {
    (record.leaves().into_iter())
        .filter(|leaf| !leaf.path.iter().any(|step| matches!(step, Step::Case(_))))
        .filter_map(|leaf| {
            let members: Vec<String> = leaf.names.iter().map(|n| member(lang, n)).collect();
            Some(RecordLeaf {
                column: format!("{under}/{}", leaf.names.join("/")),
                path: members.join("."),
                optional_path: members.join("?."),
                kind: kind(&leaf.field?.ty),
            })
        })
        .collect()
}

/// Each field of each case of `union` (nested records opened), its column under
/// `under` (`zone/circle/radius`).
fn union_leaves(lang: Lang, under: &str, union: &UnionType) -> Vec<UnionLeaf> {
    (union.cases.iter())
        .flat_map(|case| {
            let name = case.record.name.as_str();
            let column = format!("{under}/{name}");
            (record_leaves(lang, &column, &case.record).into_iter()).map(move |leaf| UnionLeaf {
                case: name.to_string(),
                case_type: type_name(lang, name),
                leaf,
            })
        })
        .collect()
}

/// Each union field of `record` and of the records in it (`members` on the way to
/// it), its columns under `under`.
fn record_unions(
    lang: Lang,
    under: &str,
    members: &[String],
    record: &RecordType,
) -> Vec<RecordUnion> {
    let mut found = Vec::new();
    for field in &record.fields {
        let column = format!("{under}/{}", field.name);
        let members: Vec<String> = (members.iter().cloned())
            .chain([member(lang, &field.name)])
            .collect();
        match &field.ty {
            FieldType::Record(inner) => {
                found.extend(record_unions(lang, &column, &members, inner));
            }
            FieldType::Union(union) => found.push(RecordUnion {
                case_column: format!("{column}/$case"),
                path: members.join("."),
                optional_path: members.join("?."),
                union: type_name(lang, &union.name),
                leaves: union_leaves(lang, &column, union),
            }),
            _ => {}
        }
    }
    found
}

/// A field holding unions: the union's type name, and its accessor's type — the value,
/// none for an empty cell; a list of a list's values, a map's entries: `Vec`s in Rust,
/// an array and a `ReadonlyMap` in TypeScript, an interface value, a slice and a map in
/// Go and C#.
fn typed_as_union(lang: Lang, field: &mut Field, union: &str) {
    field.union = Some(union.to_string());
    let (map, list, nullable) = (field.map.as_ref(), field.list, field.nullable);
    field.ty = match lang {
        Lang::Rust => {
            let value = format!("{union}<'a>");
            match (map, list) {
                (Some(key), _) => format!("Vec<({}, {value})>", key.ty),
                (None, true) => format!("Vec<{value}>"),
                (None, false) => one_union(lang, union),
            }
        }
        Lang::TypeScript => match (map, list, nullable) {
            (Some(key), _, true) => format!("ReadonlyMap<{}, {union}> | null", key.ty),
            (Some(key), _, false) => format!("ReadonlyMap<{}, {union}>", key.ty),
            (None, true, _) => format!("readonly {union}[]"),
            (None, false, _) => one_union(lang, union),
        },
        Lang::Go => match map {
            Some(key) => format!("map[{}]{union}", key.ty),
            None if list => format!("[]{union}"),
            None => one_union(lang, union),
        },
        Lang::CSharp => match map {
            Some(key) => format!(
                "System.Collections.Generic.IReadOnlyDictionary<{}, {union}>",
                key.ty
            ),
            None if list => format!("System.Collections.Generic.IReadOnlyList<{union}>"),
            None => one_union(lang, union),
        },
    };
}

/// The type of one value of a union (a field's, a record's part), none for an empty
/// cell: an `Option` in Rust, `| null` in TypeScript, the interface itself in Go (nil)
/// and C# (null).
fn one_union(lang: Lang, union: &str) -> String {
    match lang {
        Lang::Rust => format!("Option<{union}<'a>>"),
        Lang::TypeScript => format!("{union} | null"),
        Lang::Go | Lang::CSharp => union.to_string(),
    }
}

/// A union type for `lang`: its cases, by their records.
fn union(lang: Lang, union: &UnionType) -> Union {
    Union {
        name: union.name.clone(),
        type_name: type_name(lang, &union.name),
        description: union.description.clone(),
        separator: union.separator.to_string(),
        cases: (union.cases.iter())
            .map(|c| UnionCase {
                name: c.record.name.clone(),
                record: type_name(lang, &c.record.name),
                ident: member(lang, &c.record.name),
            })
            .collect(),
    }
}

/// A field holding records: the record's type name, and its accessor's type — a record
/// (nullable when it may be empty), a list of a list's records (empty for an empty cell),
/// a map's entries: a `Vec` in Rust, a `ReadonlyMap` in TypeScript, a `map` in Go, a
/// C# field's own list or dictionary of the record struct.
fn typed_as_record(lang: Lang, field: &mut Field, record: &str) {
    field.record = Some(record.to_string());
    let (map, list, nullable) = (field.map.as_ref(), field.list, field.nullable);
    field.ty = match lang {
        Lang::Rust => {
            let value = format!("{record}<'a>");
            match (map, list, nullable) {
                (Some(key), _, _) => format!("Vec<({}, {value})>", key.ty),
                (None, true, _) => format!("Vec<{value}>"),
                (None, false, true) => format!("Option<{value}>"),
                (None, false, false) => value,
            }
        }
        Lang::TypeScript => match (map, list, nullable) {
            (Some(key), _, true) => format!("ReadonlyMap<{}, {record}> | null", key.ty),
            (Some(key), _, false) => format!("ReadonlyMap<{}, {record}>", key.ty),
            (None, true, _) => format!("readonly {record}[]"),
            (None, false, true) => format!("{record} | null"),
            (None, false, false) => record.to_string(),
        },
        Lang::Go => match (map, list, nullable) {
            (Some(key), _, _) => format!("map[{}]{record}", key.ty),
            (None, true, _) => format!("[]{record}"),
            (None, false, true) => format!("*{record}"),
            (None, false, false) => record.to_string(),
        },
        // As any field of its type: a value, a list, a dictionary.
        Lang::CSharp => return,
    };
}

/// A record type for `lang`: its fields typed, a record in it by its type's name.
fn record(lang: Lang, record: &RecordType) -> Record {
    let fields = record
        .fields
        .iter()
        .map(|f| {
            let enum_type =
                (f.ty == FieldType::Enum).then(|| enum_name(lang, &record.name, &f.name));
            let scalar_type = scalar_name(lang, &f.ty, enum_type.as_deref());
            let nullable = f.optional && f.default.is_none();
            let inner = f.ty.record().map(|r| type_name(lang, &r.name));
            let union = f.ty.union().map(|u| type_name(lang, &u.name));
            let ty = match &union {
                Some(union) => one_union(lang, union),
                None => full_type(lang, &scalar_type, false, nullable),
            };
            RecordField {
                name: f.name.clone(),
                ident: member(lang, &f.name),
                kind: match (&inner, &union) {
                    (Some(_), _) => "record",
                    (_, Some(_)) => "union",
                    _ => kind(&f.ty),
                },
                nullable,
                ty,
                archive_type: stored(&f.ty).0,
                client_type: stored(&f.ty).1,
                scalar_type,
                enum_name: enum_type,
                record: inner,
                union,
                description: f.description.clone(),
            }
        })
        .collect();
    Record {
        name: record.name.clone(),
        type_name: type_name(lang, &record.name),
        description: record.description.clone(),
        separator: record.separator.to_string(),
        fields,
    }
}

/// The enum type of a field's values, `owner` a table or a record.
fn enum_of(lang: Lang, owner: &str, field: &SchemaField) -> Enum {
    let idents = enum_idents(&field.values);
    Enum {
        name: enum_name(lang, owner, &field.name),
        table: owner.to_string(),
        field: field.name.clone(),
        description: field.description.clone(),
        values: field
            .values
            .iter()
            .zip(idents)
            .enumerate()
            .map(|(index, (value, ident))| EnumValue {
                value: value.to_string(),
                ident,
                literal: literal(lang, value),
                index,
            })
            .collect(),
    }
}

/// The cases of a table of several cases (none for another), each with the fields of
/// some cases its rows fill.
fn cases(lang: Lang, table: &TableSchema, fields: &[Field]) -> Vec<Case> {
    let Some(at) = table.case_field_index() else {
        return Vec::new();
    };
    let values = &table.fields[at].values;
    let row_type = type_name(lang, &table.name);
    (values.iter().zip(enum_idents(values)))
        .map(|(value, ident)| Case {
            value: value.to_string(),
            literal: literal(lang, value),
            type_name: format!("{row_type}{ident}"),
            ident,
            fields: (table.fields.iter().zip(fields))
                .filter(|(schema, _)| !schema.cases.is_empty() && schema.in_case(value))
                .map(|(schema, field)| {
                    let single = field.kind != "text"
                        && !field.list
                        && field.map.is_none()
                        && field.record.is_none()
                        && field.union.is_none();
                    CaseField {
                        filled: single && !schema.optional,
                        filled_type: full_type(lang, &field.scalar_type, false, false),
                        field: field.clone(),
                    }
                })
                .collect(),
        })
        .collect()
}

/// A number (or other value) as a literal of `lang`.
fn value_literal(lang: Lang, value: &Value, ty: &FieldType) -> String {
    match (value, ty) {
        (Value::Int(v), FieldType::Float) => format!("{v}.0"),
        (Value::Int(v), _) => v.to_string(),
        (Value::Float(v), _) => {
            let text = masterctl_runtime::text::format_float(*v);
            if text.contains(['.', 'e', 'E']) || !v.is_finite() {
                text
            } else {
                format!("{text}.0")
            }
        }
        (Value::Bool(v), _) => v.to_string(),
        (other, _) => literal(lang, &other.canonical()),
    }
}

/// The context of `project` for `lang`.
pub fn context(
    project: &Project,
    lang: Lang,
    schema_hash: &str,
    package: &str,
    runtime_dependency: &str,
) -> Context {
    let table_of = |name: &str| project.table(name);
    let mut tables: Vec<Table> = project
        .tables
        .iter()
        .map(|table| {
            let fields: Vec<Field> = (0..table.fields.len())
                .map(|i| field(lang, project, table, i))
                .collect();
            Table {
                named: Named::new(lang, &table.name, &table.description),
                kind: table.kind.as_str(),
                singleton: table.kind == TableKind::Singleton,
                columns: fields
                    .iter()
                    .filter(|f| f.kind != "text")
                    .cloned()
                    .collect(),
                texts: fields
                    .iter()
                    .filter(|f| f.kind == "text")
                    .cloned()
                    .collect(),
                maps: fields.iter().filter(|f| f.map.is_some()).cloned().collect(),
                key: table
                    .primary_key
                    .iter()
                    .map(|&k| fields[k].clone())
                    .collect(),
                indexes: table
                    .indexes
                    .iter()
                    .map(|index| Index {
                        name: index
                            .fields
                            .iter()
                            .map(|&f| table.fields[f].name.as_str())
                            .collect::<Vec<_>>()
                            .join("_and_"),
                        fields: index.fields.iter().map(|&f| fields[f].clone()).collect(),
                        unique: index.unique,
                        order_by: index
                            .order_by
                            .iter()
                            .map(|&f| table.fields[f].name.clone())
                            .collect(),
                    })
                    .collect(),
                case_field: table.case_field_index().map(|at| fields[at].clone()),
                case_type: table
                    .case_field
                    .as_ref()
                    .map(|_| format!("{}Case", type_name(lang, &table.name))),
                cases: cases(lang, table, &fields),
                fields,
                reverses: Vec::new(),
            }
        })
        .collect();
    let records: Vec<Record> = project.records.iter().map(|r| record(lang, r)).collect();
    let unions: Vec<Union> = project.unions.iter().map(|u| union(lang, u)).collect();
    let table_enums = project.tables.iter().flat_map(|table| {
        (table.fields.iter())
            .filter(|f| f.ty.holds_enum())
            .map(move |f| enum_of(lang, &table.name, f))
    });
    let record_enums = project.records.iter().flat_map(|record| {
        (record.fields.iter())
            .filter(|f| f.ty == FieldType::Enum)
            .map(move |f| enum_of(lang, &record.name, f))
    });
    let enums = table_enums.chain(record_enums).collect();
    let mut context = Context {
        generator: format!("masterctl {}", env!("CARGO_PKG_VERSION")),
        lang: lang.name().to_string(),
        schema_hash: schema_hash.to_string(),
        source_language: project.config.source_language.clone(),
        languages: project
            .config
            .languages_source_first()
            .chain(&project.config.pseudo.languages)
            .cloned()
            .collect(),
        package: package.to_string(),
        runtime_dependency: runtime_dependency.to_string(),
        tables: Vec::new(),
        records,
        unions,
        enums,
        reverses: Vec::new(),
        groups: Vec::new(),
        weighted: Vec::new(),
        matrices: Vec::new(),
    };
    let fields_of = |table: &TableSchema, names: &[String]| -> Vec<Field> {
        names
            .iter()
            .filter_map(|n| table.field_index(n))
            .map(|i| field(lang, project, table, i))
            .collect()
    };
    for generated in &project.generated {
        let named = Named::new(lang, &generated.name, &generated.description);
        match &generated.kind {
            GeneratedKind::Reverse(reverse) => {
                let Some(target) = table_of(&reverse.target) else {
                    continue;
                };
                let Some(&key) = target.primary_key.first() else {
                    continue;
                };
                let mut columns: Vec<Field> = Vec::new();
                for source in &reverse.sources {
                    let Some(table) = table_of(&source.table) else {
                        continue;
                    };
                    for column in &source.columns {
                        if columns.iter().any(|c| &c.name == column) {
                            continue;
                        }
                        if let Some(i) = table.field_index(column) {
                            let mut typed = field(lang, project, table, i);
                            // Another source may lack it: empty there.
                            typed.nullable = true;
                            typed.ty = full_type(lang, &typed.scalar_type, typed.list, true);
                            typed.key = false;
                            typed.references = None;
                            columns.push(typed);
                        }
                    }
                }
                if let Some(table) = tables.iter_mut().find(|t| t.named.name == reverse.target) {
                    table.reverses.push(generated.name.clone());
                }
                context.reverses.push(Reverse {
                    named,
                    target: reverse.target.clone(),
                    target_type: type_name(lang, &reverse.target),
                    key: field(lang, project, target, key),
                    key_column: format!("{}_{}", reverse.target, target.fields[key].name),
                    sources: reverse
                        .sources
                        .iter()
                        .enumerate()
                        .map(|(i, s)| ReverseSource {
                            table: s.table.clone(),
                            type_name: type_name(lang, &s.table),
                            ident: table_member(lang, &s.table),
                            field: s.field.clone(),
                            literal: literal(lang, &s.table),
                            repeated: reverse.sources[..i].iter().any(|e| e.table == s.table),
                        })
                        .collect(),
                    columns,
                });
            }
            GeneratedKind::Custom(custom) => {
                let Some(table) = table_of(&custom.table) else {
                    continue;
                };
                match &custom.kind {
                    CustomKind::Group { group_by, order_by } => context.groups.push(Group {
                        named,
                        table: table.name.clone(),
                        table_type: type_name(lang, &table.name),
                        table_ident: table_member(lang, &table.name),
                        group_by: fields_of(table, group_by),
                        order_by: order_by.clone(),
                    }),
                    CustomKind::Weighted { group_by, weight } => {
                        let Some(weight) = table.field_index(weight) else {
                            continue;
                        };
                        context.weighted.push(Weighted {
                            named,
                            table: table.name.clone(),
                            table_type: type_name(lang, &table.name),
                            table_ident: table_member(lang, &table.name),
                            group_by: fields_of(table, group_by),
                            weight: field(lang, project, table, weight),
                        });
                    }
                    CustomKind::Matrix {
                        row,
                        column,
                        value,
                        default,
                    } => {
                        let (Some(r), Some(c), Some(v)) = (
                            table.field_index(row),
                            table.field_index(column),
                            table.field_index(value),
                        ) else {
                            continue;
                        };
                        let value_type = table.fields[v].ty.clone();
                        context.matrices.push(Matrix {
                            named,
                            table: table.name.clone(),
                            row: field(lang, project, table, r),
                            column: field(lang, project, table, c),
                            value: field(lang, project, table, v),
                            default: default
                                .as_ref()
                                .map(|d| value_literal(lang, d, &value_type)),
                        });
                    }
                }
            }
        }
    }
    context.tables = std::mem::take(&mut tables);
    context
}
