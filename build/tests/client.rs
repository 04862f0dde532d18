//! The client export read back by a decoder written from `docs/CLIENT-FORMAT.md` alone:
//! every type, lists, empty cells, enums by position, texts with fallbacks; every part
//! 8-aligned; and the JSON form holding the same cells.

use std::collections::HashMap;
use std::sync::Arc;

use masterctl_build::client::{table_file, table_json, texts_file, texts_json};
use masterctl_runtime::format::{
    ColumnData, ColumnType, Strings, StringsData, TableData, TextColumn, Values,
};

/// A decoder of the documented layout: each column's cells as text (`-` for empty),
/// list elements joined by `|`, and each part's offset checked to be a multiple of 8.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let part = &self.bytes[self.at..self.at + n];
        self.at += n;
        part
    }
    fn u8(&mut self) -> u8 {
        self.take(1)[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take(2).try_into().unwrap())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }
    fn str(&mut self) -> String {
        let n = self.u32() as usize;
        String::from_utf8(self.take(n).to_vec()).unwrap()
    }
    fn align(&mut self) {
        while !self.at.is_multiple_of(8) {
            assert_eq!(self.u8(), 0, "padding is zero");
        }
    }
    fn words<const N: usize>(&mut self, n: usize) -> Vec<[u8; N]> {
        self.align();
        (0..n).map(|_| self.take(N).try_into().unwrap()).collect()
    }
}

struct Column {
    name: String,
    ty: u8,
    flags: u8,
    values: Vec<String>,
}

/// A decoded file: kind, schema hash, name, language, and each column's cells as text.
struct Decoded {
    kind: u16,
    hash: String,
    name: String,
    language: String,
    columns: Vec<(String, Vec<String>)>,
}

fn decode(bytes: &[u8]) -> Decoded {
    let mut r = Reader { bytes, at: 0 };
    assert_eq!(r.take(4), b"MCCL");
    assert_eq!(r.u16(), 1);
    let kind = r.u16();
    let (hash, name, language) = (r.str(), r.str(), r.str());
    let rows = r.u32() as usize;
    let count = r.u32() as usize;
    let mut columns = Vec::new();
    for _ in 0..count {
        let name = r.str();
        let (ty, flags) = (r.u8(), r.u8());
        assert_eq!(r.u16(), 0);
        let values = if ty == 7 {
            (0..r.u32()).map(|_| r.str()).collect()
        } else {
            Vec::new()
        };
        columns.push(Column {
            name,
            ty,
            flags,
            values,
        });
    }
    let mut out = Vec::new();
    for column in &columns {
        let nulls: Vec<u64> = if column.flags & 2 != 0 {
            r.words::<8>(rows.div_ceil(64))
                .into_iter()
                .map(u64::from_le_bytes)
                .collect()
        } else {
            Vec::new()
        };
        let offsets: Option<Vec<usize>> = (column.flags & 1 != 0).then(|| {
            r.words::<4>(rows + 1)
                .into_iter()
                .map(|w| u32::from_le_bytes(w) as usize)
                .collect()
        });
        let n = offsets.as_ref().map_or(rows, |o| o[rows]);
        let elements: Vec<String> = match column.ty {
            1 => r
                .words::<8>(n)
                .into_iter()
                .map(|w| i64::from_le_bytes(w).to_string())
                .collect(),
            2 => r
                .words::<8>(n)
                .into_iter()
                .map(|w| f64::from_le_bytes(w).to_string())
                .collect(),
            3 => r
                .words::<1>(n)
                .into_iter()
                .map(|w| (w[0] == 1).to_string())
                .collect(),
            5 => r
                .words::<4>(n)
                .into_iter()
                .map(|w| format!("day {}", i32::from_le_bytes(w)))
                .collect(),
            6 => r
                .words::<8>(n)
                .into_iter()
                .map(|w| format!("ms {}", i64::from_le_bytes(w)))
                .collect(),
            7 => r
                .words::<4>(n)
                .into_iter()
                .map(|w| column.values[u32::from_le_bytes(w) as usize].clone())
                .collect(),
            4 => {
                let ends: Vec<usize> = r
                    .words::<4>(n)
                    .into_iter()
                    .map(|w| u32::from_le_bytes(w) as usize)
                    .collect();
                let text = r.take(ends.last().copied().unwrap_or(0)).to_vec();
                (0..n)
                    .map(|i| {
                        let start = if i == 0 { 0 } else { ends[i - 1] };
                        String::from_utf8(text[start..ends[i]].to_vec()).unwrap()
                    })
                    .collect()
            }
            other => panic!("type {other}"),
        };
        let fallback: Vec<u8> = if column.flags & 4 != 0 {
            r.words::<1>(rows).into_iter().map(|w| w[0]).collect()
        } else {
            Vec::new()
        };
        let cells = (0..rows)
            .map(|row| {
                if nulls
                    .get(row / 64)
                    .is_some_and(|w| (w >> (row % 64)) & 1 == 1)
                {
                    return "-".to_string();
                }
                let mut cell = match &offsets {
                    Some(o) => elements[o[row]..o[row + 1]].join("|"),
                    None => elements[row].clone(),
                };
                if let Some(from) = fallback.get(row).filter(|f| **f != 0) {
                    cell.push_str(&format!(" (from {from})"));
                }
                cell
            })
            .collect();
        out.push((column.name.clone(), cells));
    }
    assert_eq!(r.at, bytes.len(), "nothing after the last column");
    Decoded {
        kind,
        hash,
        name,
        language,
        columns: out,
    }
}

fn column(
    name: &str,
    ty: ColumnType,
    list: bool,
    nulls: Vec<u64>,
    offsets: Vec<u32>,
    values: Values,
) -> ColumnData {
    ColumnData {
        name: name.into(),
        ty,
        list,
        nulls,
        offsets,
        values,
    }
}

#[test]
fn a_table_reads_back_as_documented() {
    let data = TableData {
        name: "item".into(),
        rows: 3,
        columns: vec![
            column(
                "id",
                ColumnType::Int,
                false,
                vec![],
                vec![],
                Values::Int(vec![1, 2, -3]),
            ),
            column(
                "rate",
                ColumnType::Float,
                false,
                vec![0b010],
                vec![],
                Values::Float(vec![0.5, 0.0, 1e-3]),
            ),
            column(
                "tradable",
                ColumnType::Bool,
                false,
                vec![],
                vec![],
                Values::Bool(vec![true, false, true]),
            ),
            column(
                "rarity",
                ColumnType::Str,
                false,
                vec![],
                vec![],
                Values::Str(["rare", "common", "レア"].into_iter().collect()),
            ),
            column(
                "tags",
                ColumnType::Str,
                true,
                vec![0b100],
                vec![0, 2, 2, 2],
                Values::Str(["sword", "starter"].into_iter().collect()),
            ),
            column(
                "code",
                ColumnType::Str,
                false,
                vec![],
                vec![],
                Values::Str(["Q\"1", "", "鉄"].into_iter().collect()),
            ),
            column(
                "released_on",
                ColumnType::Date,
                false,
                vec![],
                vec![],
                Values::Date(vec![19814, 0, -1]),
            ),
            column(
                "opens_at",
                ColumnType::DateTime,
                false,
                vec![],
                vec![],
                Values::DateTime(vec![1_700_000_000_123, 0, 5]),
            ),
        ],
        primary_key: vec![0],
        indexes: vec![],
        key_hash: vec![],
    };
    let rarity: Vec<Arc<str>> = ["common", "rare", "レア"]
        .into_iter()
        .map(Arc::from)
        .collect();
    let enums: HashMap<&str, &[Arc<str>]> = HashMap::from([("rarity", rarity.as_slice())]);
    let bytes = table_file("hash", &data, &enums);
    let decoded = decode(&bytes);
    let head = (decoded.kind, decoded.hash.as_str(), decoded.name.as_str());
    assert_eq!(head, (1, "hash", "item"));
    assert_eq!(decoded.language, "");
    let cells: HashMap<String, Vec<String>> = decoded.columns.into_iter().collect();
    assert_eq!(cells["id"], ["1", "2", "-3"]);
    assert_eq!(cells["rate"], ["0.5", "-", "0.001"]);
    assert_eq!(cells["tradable"], ["true", "false", "true"]);
    assert_eq!(cells["rarity"], ["rare", "common", "レア"]);
    assert_eq!(cells["tags"], ["sword|starter", "", "-"]);
    assert_eq!(cells["code"], ["Q\"1", "", "鉄"]);
    assert_eq!(cells["released_on"], ["day 19814", "day 0", "day -1"]);
    assert_eq!(cells["opens_at"], ["ms 1700000000123", "ms 0", "ms 5"]);

    let json: serde_json::Value = serde_json::from_slice(&table_json("hash", &data)).unwrap();
    assert_eq!(json["kind"], "table");
    assert_eq!(json["columns"][4], "tags");
    assert_eq!(
        json["rows"][0],
        serde_json::json!([
            1,
            0.5,
            true,
            "rare",
            ["sword", "starter"],
            "Q\"1",
            "2024-04-01",
            "2023-11-14T22:13:20.123Z"
        ])
    );
    assert_eq!(json["rows"][1][1], serde_json::Value::Null);
    assert_eq!(json["rows"][2][4], serde_json::Value::Null);
}

#[test]
fn texts_read_back_with_their_fallbacks() {
    let data = StringsData {
        table: "item".into(),
        language: "en".into(),
        rows: 3,
        fields: vec![
            TextColumn {
                name: "name".into(),
                values: ["Iron Sword", "鋼の剣", "Shield"]
                    .into_iter()
                    .collect::<Strings>(),
                fallback: vec![0, 2, 0],
            },
            TextColumn {
                name: "description".into(),
                values: ["", "x", ""].into_iter().collect::<Strings>(),
                fallback: vec![],
            },
        ],
    };
    let decoded = decode(&texts_file("hash", &data));
    let head = (
        decoded.kind,
        decoded.name.as_str(),
        decoded.language.as_str(),
    );
    assert_eq!(head, (2, "item", "en"));
    assert_eq!(
        decoded.columns[0].1,
        ["Iron Sword", "鋼の剣 (from 2)", "Shield"]
    );
    assert_eq!(decoded.columns[1].1, ["-", "x", "-"]);
    let json: serde_json::Value = serde_json::from_slice(&texts_json("hash", &data)).unwrap();
    assert_eq!(json["rows"][1], serde_json::json!(["鋼の剣", "x"]));
    assert_eq!(json["rows"][0][1], serde_json::Value::Null);
}
