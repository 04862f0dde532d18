//! Synthetic master data for benchmarks: N tables × M rows with the types planners use
//! (ints with ranges, Japanese text, enums, floats, booleans, dates, lists) and foreign
//! keys into the first table, written as a complete master project — masterctl.toml,
//! schemas, and xlsx workbooks or CSV files — plus a Frictionless data package
//! describing the same tables and constraints, so other validators can run on the
//! same data.

use std::fmt::Write as _;
use std::path::Path;

use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub tables: usize,
    pub rows: usize,
    pub format: DataFormat,
}

impl Shape {
    pub fn new(tables: usize, rows: usize, format: DataFormat) -> Shape {
        Shape {
            tables,
            rows,
            format,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    /// One workbook per table.
    Xlsx,
    /// One workbook holding every table as a sheet.
    XlsxSingleWorkbook,
    /// One CSV file per table, and a Frictionless `datapackage.json`.
    Csv,
}

const RARITIES: [&str; 5] = ["common", "uncommon", "rare", "epic", "legendary"];
const NAMES: [&str; 8] = [
    "鉄の剣",
    "回復薬",
    "竜の牙",
    "スライムの核",
    "英雄の鎧",
    "魔法の杖",
    "黄金の盾",
    "精霊の羽",
];
const TAGS: [&str; 4] = ["sword", "potion", "material", "armor"];

/// The sheet name (= CSV stem) and table name of table `index`.
pub fn table_name(index: usize) -> String {
    format!("t{index:04}")
}

/// A tiny deterministic generator, so every run produces the same data.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One generated row, in schema field order.
struct Row {
    id: i64,
    name: String,
    rarity: &'static str,
    price: i64,
    rate: f64,
    tradable: bool,
    ref_id: i64,
    released_on: (u16, u8, u8),
    tags: String,
}

fn rows(table: usize, shape: &Shape) -> impl Iterator<Item = Row> + '_ {
    let mut rng = Lcg(table as u64 * 7919 + 17);
    (0..shape.rows).map(move |r| {
        let id = r as i64 + 1;
        let tags = match rng.below(3) {
            0 => String::new(),
            1 => TAGS[rng.below(4) as usize].to_string(),
            _ => format!(
                "{}|{}",
                TAGS[rng.below(4) as usize],
                TAGS[rng.below(4) as usize]
            ),
        };
        Row {
            id,
            name: format!("{}{}", NAMES[rng.below(8) as usize], id),
            rarity: RARITIES[rng.below(5) as usize],
            price: rng.below(1_000_000) as i64,
            rate: rng.below(10_000) as f64 / 10_000.0,
            tradable: rng.below(2) == 0,
            ref_id: rng.below(shape.rows as u64) as i64 + 1,
            released_on: (2024, 1 + rng.below(12) as u8, 1 + rng.below(28) as u8),
            tags,
        }
    })
}

const HEADER: [&str; 9] = [
    "id",
    "name",
    "rarity",
    "price",
    "rate",
    "tradable",
    "ref_id",
    "released_on",
    "tags",
];

fn schema(table: usize) -> String {
    let name = table_name(table);
    let reference = table_name(0);
    format!(
        r#"name = "{name}"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"
min = 1

[[fields]]
name = "name"
type = "text"
max_length = 32

[[fields]]
name = "rarity"
type = "enum"
values = ["common", "uncommon", "rare", "epic", "legendary"]

[[fields]]
name = "price"
type = "int"
min = 0
max = 1000000

[[fields]]
name = "rate"
type = "float"
min = 0
max = 1

[[fields]]
name = "tradable"
type = "bool"

[[fields]]
name = "ref_id"
type = "int"
references = "{reference}.id"

[[fields]]
name = "released_on"
type = "date"

[[fields]]
name = "tags"
type = "list<string>"
optional = true
"#
    )
}

/// The same tables as a Frictionless data package (Table Schema), foreign keys included.
fn datapackage(shape: &Shape) -> String {
    let mut resources = Vec::new();
    for table in 0..shape.tables {
        let name = table_name(table);
        resources.push(format!(
            r#"    {{
      "name": "{name}",
      "path": "data/{name}.csv",
      "profile": "tabular-data-resource",
      "schema": {{
        "fields": [
          {{"name": "id", "type": "integer", "constraints": {{"required": true, "minimum": 1}}}},
          {{"name": "name", "type": "string", "constraints": {{"required": true, "maxLength": 32}}}},
          {{"name": "rarity", "type": "string", "constraints": {{"required": true, "enum": ["common", "uncommon", "rare", "epic", "legendary"]}}}},
          {{"name": "price", "type": "integer", "constraints": {{"required": true, "minimum": 0, "maximum": 1000000}}}},
          {{"name": "rate", "type": "number", "constraints": {{"required": true, "minimum": 0, "maximum": 1}}}},
          {{"name": "tradable", "type": "boolean", "trueValues": ["TRUE", "true", "1"], "falseValues": ["FALSE", "false", "0"], "constraints": {{"required": true}}}},
          {{"name": "ref_id", "type": "integer", "constraints": {{"required": true}}}},
          {{"name": "released_on", "type": "date", "constraints": {{"required": true}}}},
          {{"name": "tags", "type": "string"}}
        ],
        "primaryKey": ["id"],
        "foreignKeys": [{{"fields": ["ref_id"], "reference": {{"resource": "{reference}", "fields": ["id"]}}}}]
      }}
    }}"#,
            reference = table_name(0)
        ));
    }
    format!(
        "{{\n  \"name\": \"synthetic-masters\",\n  \"resources\": [\n{}\n  ]\n}}\n",
        resources.join(",\n")
    )
}

/// Write a complete project under `dir`: `masterctl.toml`, `schemas/`, `data/`.
pub fn generate(dir: &Path, shape: &Shape) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    std::fs::create_dir_all(dir.join("schemas"))?;
    std::fs::create_dir_all(dir.join("data"))?;
    std::fs::write(
        dir.join("masterctl.toml"),
        "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n",
    )?;
    for table in 0..shape.tables {
        std::fs::write(
            dir.join("schemas")
                .join(format!("{}.toml", table_name(table))),
            schema(table),
        )?;
        match shape.format {
            DataFormat::Xlsx => {
                let mut workbook = Workbook::new();
                add_sheet(&mut workbook, table, shape)?;
                workbook.save(dir.join("data").join(format!("{}.xlsx", table_name(table))))?;
            }
            DataFormat::Csv => write_csv(dir, table, shape)?,
            DataFormat::XlsxSingleWorkbook => {}
        }
    }
    if shape.format == DataFormat::XlsxSingleWorkbook {
        let mut workbook = Workbook::new();
        for table in 0..shape.tables {
            add_sheet(&mut workbook, table, shape)?;
        }
        workbook.save(dir.join("data").join("masters.xlsx"))?;
    }
    if shape.format == DataFormat::Csv {
        std::fs::write(dir.join("datapackage.json"), datapackage(shape))?;
    }
    Ok(())
}

fn write_csv(dir: &Path, table: usize, shape: &Shape) -> std::io::Result<()> {
    let mut out = String::with_capacity(shape.rows * 80);
    out.push_str(&HEADER.join(","));
    out.push('\n');
    for row in rows(table, shape) {
        let (y, m, d) = row.released_on;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{y:04}-{m:02}-{d:02},{}",
            row.id,
            row.name,
            row.rarity,
            row.price,
            row.rate,
            if row.tradable { "TRUE" } else { "FALSE" },
            row.ref_id,
            row.tags
        );
    }
    std::fs::write(
        dir.join("data").join(format!("{}.csv", table_name(table))),
        out,
    )
}

fn add_sheet(
    workbook: &mut Workbook,
    table: usize,
    shape: &Shape,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let sheet = workbook.add_worksheet();
    sheet.set_name(table_name(table))?;
    for (c, name) in HEADER.iter().enumerate() {
        sheet.write_string(0, c as u16, *name)?;
    }
    for (r, row) in rows(table, shape).enumerate() {
        let r = r as u32 + 1;
        sheet.write_number(r, 0, row.id as f64)?;
        sheet.write_string(r, 1, &row.name)?;
        sheet.write_string(r, 2, row.rarity)?;
        sheet.write_number(r, 3, row.price as f64)?;
        sheet.write_number(r, 4, row.rate)?;
        sheet.write_boolean(r, 5, row.tradable)?;
        sheet.write_number(r, 6, row.ref_id as f64)?;
        let (y, m, d) = row.released_on;
        sheet.write_datetime_with_format(r, 7, ExcelDateTime::from_ymd(y, m, d)?, &date)?;
        if !row.tags.is_empty() {
            sheet.write_string(r, 8, &row.tags)?;
        }
    }
    Ok(())
}
