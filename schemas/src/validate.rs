//! Validation across rows and tables ([`validate_tables`]): required fields, duplicate
//! primary keys (naming both rows), `unique` fields, foreign keys into other tables,
//! custom masters. Checks on one value are [`crate::check`].

use std::collections::HashMap;
use std::collections::HashSet;

use crate::check::{check_value, problem};
use crate::diagnostic::{Code, Diagnostic, Location, Report};
use crate::schema::{CustomKind, Field, FieldType, GeneratedKind, Project, TableKind, TableSchema};
use crate::table::Table;
use crate::value::{KeyHash, Value};
use masterctl_runtime::parallel::parallel_map;

/// Check every value of a table already typed (read back from a snapshot, say) against
/// the schema as it is now: required fields, each field's options, and each row's
/// fields against its case ([`crate::cases`]).
pub fn check_rows(schema: &TableSchema, table: &Table) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut wrong = HashSet::new();
    for (field_index, field) in schema.fields.iter().enumerate() {
        for (row, value) in table.columns[field_index].iter().enumerate() {
            let outcome = match value {
                Value::Null if field.required() => Err(Box::new(
                    problem(Code::Required, format!("`{}` is required but has no value", field.name))
                        .hint("the field is new or became required: import the table with the column filled"),
                )),
                Value::Null => Ok(()),
                value => check_value(field, value),
            };
            if let Err(mut d) = outcome {
                d.location = table.cell_location(row, field_index, &field.name);
                diagnostics.push(*d);
                wrong.insert((row, field_index));
            }
        }
    }
    diagnostics.extend(crate::cases::check_cases(schema, table, &wrong));
    diagnostics
}

/// Which fields of `schema`'s table [`validate_tables`] reads, by field index: the key,
/// `unique` fields (a reference points at one or at a single-field key), foreign keys,
/// a custom master's table and a glossary whole, and texts when the source language
/// has fonts to check them against. Reading for validation alone keeps only these fields' values
/// ([`crate::read::Keep::ForChecks`]); every cell is typed and checked all the same.
///
/// Every check below that reads a field must be named here: a test holds the report of
/// tables read with only these fields kept to the report of tables read whole, on every
/// project the tests have.
pub fn read_across(project: &Project, schema: &TableSchema) -> Vec<bool> {
    let whole = schema.glossary
        || project.generated.iter().any(|g| match &g.kind {
            GeneratedKind::Custom(custom) => custom.table == schema.name,
            _ => false,
        });
    let glyphs = project
        .config
        .fonts
        .contains_key(&project.config.source_language);
    // A table of several cases: its case field and each field of some cases.
    let case_at = schema.case_field_index();
    let cased = |index: usize, field: &Field| {
        case_at == Some(index) || (case_at.is_some() && !field.cases.is_empty())
    };
    schema
        .fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            whole
                || schema.primary_key.contains(&index)
                || field.unique
                || !field.referring().is_empty()
                || (glyphs && field.ty == FieldType::Text)
                || cased(index, field)
        })
        .collect()
}

/// Checks across rows and tables, on tables already typed (see [`crate::typing`]):
/// duplicate primary keys, `unique` fields and foreign keys. A reference into a table
/// that is not among `tables` cannot be checked and gives one warning per field.
///
/// Two phases, each in parallel: every table's keys (its primary-key index is kept),
/// then every foreign-key field, looking values up in the target's primary-key index
/// (or, for a reference to a `unique` field, in a set of that field's values).
pub fn validate_tables(project: &Project, tables: &[Table]) -> Report {
    let checked: Vec<(&Table, &TableSchema)> = tables
        .iter()
        .filter_map(|t| project.table(&t.name).map(|s| (t, s)))
        .collect();
    let keys = parallel_map(&checked, |(table, schema)| check_keys(schema, table));
    let mut report = Report::default();
    let mut key_index: HashMap<&str, &KeyIndex> = HashMap::new();
    for ((table, _), (index, diagnostics)) in checked.iter().zip(&keys) {
        report.extend(diagnostics.iter().cloned());
        if let Some(index) = index {
            key_index.insert(table.name.as_str(), index);
        }
    }
    let by_name: HashMap<&str, &Table> = tables.iter().map(|t| (t.name.as_str(), t)).collect();
    let by_name = &by_name;
    let references: Vec<Reference> = checked
        .iter()
        .flat_map(|&(table, schema)| {
            schema
                .fields
                .iter()
                .enumerate()
                .flat_map(move |(field_index, field)| {
                    // The field's own reference, and those of its records' fields.
                    field.referring().into_iter().map(move |referring| {
                        let target = referring.reference.table.as_str();
                        Reference {
                            table,
                            field_index,
                            field,
                            target: by_name.get(target).copied().zip(project.table(target)),
                            referring,
                        }
                    })
                })
        })
        .collect();
    for diagnostics in parallel_map(&references, |r| r.check(&key_index)) {
        report.extend(diagnostics);
    }
    report.extend(check_custom_masters(project, by_name));
    report.extend(crate::glyphs::check_glyphs(project, &checked));
    report
}

/// A single-field primary key's values and the row of each. Integer keys — most
/// master data — are held by value, so that a probe never follows a pointer into the
/// table's column; packed ones (ids 1 to n) by place, so that a probe is one load.
enum KeyIndex<'a> {
    /// Whole numbers from `min` spanning at most [`DENSE_SLOTS_PER_ROW`] slots a row:
    /// the slot of key `k` (`k − min`) holds its row + 1, or 0.
    Dense {
        min: i64,
        rows: Vec<u32>,
    },
    Ints(HashMap<i64, usize, KeyHash>),
    Values(HashMap<&'a Value, usize, KeyHash>),
}

/// A dense index takes at most this many slots (4 bytes each) a row — a hash index
/// takes about as many bytes a row, and a probe of it costs a hash and a search.
const DENSE_SLOTS_PER_ROW: u64 = 4;

impl<'a> KeyIndex<'a> {
    /// An empty index for the values of `column`, a column of `field`.
    fn for_column(field: &Field, column: &[Value]) -> KeyIndex<'a> {
        if field.ty != FieldType::Int {
            return KeyIndex::Values(HashMap::with_capacity_and_hasher(
                column.len(),
                KeyHash::default(),
            ));
        }
        let ints = column.iter().filter_map(|v| match v {
            Value::Int(i) => Some(*i),
            _ => None,
        });
        let (min, max) = ints.fold((i64::MAX, i64::MIN), |(lo, hi), i| (lo.min(i), hi.max(i)));
        let span = max.abs_diff(min).saturating_add(1);
        let rows = column.len() as u64;
        let packed = span <= rows.saturating_mul(DENSE_SLOTS_PER_ROW) && rows < u64::from(u32::MAX);
        if let Ok(slots) = usize::try_from(span)
            && min <= max
            && packed
        {
            return KeyIndex::Dense {
                min,
                rows: vec![0; slots],
            };
        }
        KeyIndex::Ints(HashMap::with_capacity_and_hasher(
            column.len(),
            KeyHash::default(),
        ))
    }

    /// Record the key's row; the first row already holding it, if any.
    fn insert(&mut self, value: &'a Value, row: usize) -> Option<usize> {
        match (self, value) {
            (KeyIndex::Dense { min, rows }, Value::Int(i)) => {
                // Every key of the column is within the span the index was made for.
                let slot = &mut rows[i.abs_diff(*min) as usize];
                match *slot {
                    0 => {
                        *slot = u32::try_from(row + 1).unwrap_or(u32::MAX);
                        None
                    }
                    first => Some(first as usize - 1),
                }
            }
            (KeyIndex::Ints(map), Value::Int(i)) => map.try_insert_first(*i, row),
            (KeyIndex::Values(map), value) => map.try_insert_first(value, row),
            // A typed int column holds only ints and nulls; nulls are skipped.
            (KeyIndex::Dense { .. } | KeyIndex::Ints(_), _) => None,
        }
    }

    fn contains(&self, value: &Value) -> bool {
        match (self, value) {
            (KeyIndex::Dense { min, rows }, Value::Int(i)) => {
                let slot = usize::try_from(i.abs_diff(*min)).ok();
                *i >= *min && slot.and_then(|s| rows.get(s)).is_some_and(|&r| r != 0)
            }
            (KeyIndex::Ints(map), Value::Int(i)) => map.contains_key(i),
            (KeyIndex::Values(map), value) => map.contains_key(value),
            (KeyIndex::Dense { .. } | KeyIndex::Ints(_), _) => false,
        }
    }
}

/// Insert unless present; the existing value when present.
trait InsertFirst<K, V> {
    fn try_insert_first(&mut self, key: K, value: V) -> Option<V>;
}

impl<K: std::hash::Hash + Eq, V: Copy> InsertFirst<K, V> for HashMap<K, V, KeyHash> {
    fn try_insert_first(&mut self, key: K, value: V) -> Option<V> {
        match self.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(value);
                None
            }
        }
    }
}

/// Primary key and `unique` fields of a table; the key index when the key is a single
/// field.
/// What custom masters need of their tables: positive weights for a `weighted` master;
/// for a `matrix`, each pair of its two enums at most once, and every pair present
/// unless it has a default.
fn check_custom_masters(project: &Project, tables: &HashMap<&str, &Table>) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for generated in &project.generated {
        let GeneratedKind::Custom(custom) = &generated.kind else {
            continue;
        };
        let (Some(schema), Some(table)) = (
            project.table(&custom.table),
            tables.get(custom.table.as_str()),
        ) else {
            continue;
        };
        match &custom.kind {
            CustomKind::Weighted { weight, .. } => {
                let Some(field) = schema.field_index(weight) else {
                    continue;
                };
                for row in 0..table.row_count() {
                    let value = table.value(row, field);
                    if value.as_f64().is_some_and(|w| w > 0.0) {
                        continue;
                    }
                    let mut d = problem(
                        Code::OutOfRange,
                        format!(
                            "the weighted master `{}` draws by `{weight}`: every weight must be positive",
                            generated.name
                        ),
                    )
                    .expected("a number above 0");
                    d.location = table.cell_location(row, field, weight);
                    if !value.is_null() {
                        d = d.found(value.canonical());
                    }
                    diagnostics.push(d);
                }
            }
            CustomKind::Matrix {
                row,
                column,
                default,
                ..
            } => {
                let (Some(r), Some(c)) = (schema.field_index(row), schema.field_index(column))
                else {
                    continue;
                };
                // A pair twice is a duplicate primary key already when the axes are the key.
                let mut key = schema.primary_key.clone();
                key.sort_unstable();
                let axes_are_key = key == [r.min(c), r.max(c)];
                let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
                for i in 0..table.row_count() {
                    let (Some(a), Some(b)) =
                        (table.value(i, r).as_str(), table.value(i, c).as_str())
                    else {
                        continue;
                    };
                    if let Some(&first) = seen.get(&(a, b))
                        && !axes_are_key
                    {
                        let mut d = problem(
                            Code::DuplicateKey,
                            format!(
                                "the matrix `{}` has ({a}, {b}) twice: here and at {}",
                                generated.name,
                                table.cell_location(first, r, row).place().trim()
                            ),
                        );
                        d.location = table.cell_location(i, r, row);
                        diagnostics.push(d);
                    } else {
                        seen.insert((a, b), i);
                    }
                }
                if default.is_none() {
                    for a in &schema.fields[r].values {
                        for b in &schema.fields[c].values {
                            if !seen.contains_key(&(a.as_ref(), b.as_ref())) {
                                let mut d = problem(
                                    Code::Required,
                                    format!(
                                        "the matrix `{}` has no row for ({a}, {b}) and no default",
                                        generated.name
                                    ),
                                )
                                .hint("add the row, or give the matrix a `default`");
                                d.location = Location {
                                    table: Some(table.name.clone()),
                                    ..Location::file(&table.origin.file)
                                };
                                diagnostics.push(d);
                            }
                        }
                    }
                }
            }
            CustomKind::Group { .. } => {}
        }
    }
    diagnostics
}

fn check_keys<'a>(
    schema: &TableSchema,
    table: &'a Table,
) -> (Option<KeyIndex<'a>>, Vec<Diagnostic>) {
    let mut report = Report::default();
    let index = match schema.kind {
        TableKind::Keyed => check_primary_key(schema, table, &mut report),
        TableKind::Singleton => {
            check_one_record(schema, table, &mut report);
            None
        }
        TableKind::List => None,
    };
    if schema.glossary {
        crate::glossary_terms::check_terms(schema, table, &mut report);
    }
    for (field_index, field) in schema.fields.iter().enumerate() {
        if field.unique {
            check_unique(schema, table, field_index, &mut report);
        }
    }
    (index, report.diagnostics)
}

/// One foreign-key field (or a field of the records a field holds, at `path`), and its
/// target table (with schema) when it was supplied.
struct Reference<'a> {
    table: &'a Table,
    field_index: usize,
    field: &'a Field,
    /// The field whose `references` this is: `field`, or a field of its records.
    referring: crate::schema::Referring<'a>,
    target: Option<(&'a Table, &'a TableSchema)>,
}

impl Reference<'_> {
    /// The values a cell refers with: the field's (a list's elements, a map's keys), or
    /// its records' field's at `path`.
    fn referring<'v>(&self, value: &'v Value, out: &mut Vec<&'v Value>) {
        let at = &self.referring;
        crate::schema::referring_values(value, &at.path, out);
    }

    /// The referring field's name as a planner finds it (`costs.item_id`).
    fn name(&self) -> String {
        match self.referring.path.is_empty() {
            true => self.field.name.clone(),
            false => format!("{}.{}", self.field.name, self.referring.field.name),
        }
    }

    fn check(&self, key_index: &HashMap<&str, &KeyIndex>) -> Vec<Diagnostic> {
        let (table, field) = (self.table, self.field);
        let reference = self.referring.reference;
        let target = self
            .target
            .and_then(|(t, s)| Some((t, s, s.field_index(&reference.field)?)));
        let Some((target, target_schema, target_field)) = target else {
            let mut location = table.origin.whole();
            location.table = Some(table.name.clone());
            location.field = Some(field.name.clone());
            return vec![
                Diagnostic::new(
                    Code::UncheckedReference,
                    location,
                    format!(
                        "references from `{}.{}` into `{reference}` were not checked: table `{}` is not in the input",
                        table.name,
                        self.name(),
                        reference.table
                    ),
                )
                .hint(format!("supply table `{}` too to check them", reference.table))
                .arg("target", reference.table.clone()),
            ];
        };
        // The target is the table's single-field key (its index exists) or a unique field.
        let set: HashSet<&Value, KeyHash>;
        let exists: Box<dyn Fn(&Value) -> bool + '_> = match key_index.get(target.name.as_str()) {
            Some(index) if target_schema.primary_key == [target_field] => {
                Box::new(|v| index.contains(v))
            }
            _ => {
                set = target.columns[target_field]
                    .iter()
                    .filter(|v| !v.is_null())
                    .collect();
                Box::new(|v| set.contains(v))
            }
        };
        let mut diagnostics = Vec::new();
        let mut found = Vec::new();
        for (row, value) in table.columns[self.field_index].iter().enumerate() {
            match value {
                Value::Null => continue,
                // Most references are one value in its field's own cell.
                Value::List(_) | Value::Map(_) | Value::Record(_) => {}
                single if self.referring.path.is_empty() && exists(single) => continue,
                _ => {}
            }
            found.clear();
            self.referring(value, &mut found);
            for &missing in found.iter().filter(|v| !exists(v)) {
                diagnostics.push(
                    Diagnostic::new(
                        Code::ForeignKey,
                        table.cell_location(row, self.field_index, &field.name),
                        format!("no `{}` has {} {missing}", reference.table, reference.field),
                    )
                    .found(missing.to_string())
                    .expected(format!("an existing {reference}"))
                    .arg("target", reference.table.to_string())
                    .arg("column", reference.field.to_string())
                    .hint(format!(
                        "add the row to `{}` ({}), or correct this value",
                        reference.table,
                        target.origin.describe()
                    )),
                );
            }
        }
        diagnostics
    }
}

/// Report rows that repeat a primary key; returns the key index of a single-field key.
fn check_primary_key<'a>(
    schema: &TableSchema,
    table: &'a Table,
    report: &mut Report,
) -> Option<KeyIndex<'a>> {
    if let [field] = schema.primary_key[..] {
        // A single-field key is checked like a unique field, without building keys.
        let mut index = KeyIndex::for_column(&schema.fields[field], &table.columns[field]);
        for (row, value) in table.columns[field].iter().enumerate() {
            if value.is_null() {
                continue;
            }
            if let Some(first) = index.insert(value, row) {
                report.push(duplicate_key(schema, table, first, row));
            }
        }
        return Some(index);
    }
    let mut first_row: HashMap<Vec<Value>, usize, KeyHash> =
        HashMap::with_capacity_and_hasher(table.row_count(), KeyHash::default());
    for row in 0..table.row_count() {
        let key = table.key(row, &schema.primary_key);
        if key.iter().any(Value::is_null) {
            continue; // already reported as required
        }
        if let Some(&first) = first_row.get(&key) {
            report.push(duplicate_key(schema, table, first, row));
        } else {
            first_row.insert(key, row);
        }
    }
    None
}

/// A singleton holds exactly one record: none, or a second, is an error naming the rows.
fn check_one_record(schema: &TableSchema, table: &Table, report: &mut Report) {
    let rows = table.row_count();
    if rows == 1 {
        return;
    }
    let expected = "one record: a row under the header, or the field names in a column with the values beside them";
    if rows == 0 {
        let mut location = table.origin.whole();
        location.table = Some(schema.name.clone());
        report.push(
            Diagnostic::new(
                Code::Required,
                location,
                format!("singleton `{}` has no record", schema.name),
            )
            .expected(expected)
            .arg("case", "no-record"),
        );
        return;
    }
    // A row's first cell read (its line in a CSV file).
    let at = |row: usize| table.row_location(row, None);
    let first = at(0).place();
    for row in 1..rows {
        let mut location = at(row);
        location.table = Some(schema.name.clone());
        let d = Diagnostic::new(
            Code::DuplicateKey,
            location,
            format!(
                "singleton `{}` holds one record, and this is record {} (the first is at {})",
                schema.name,
                row + 1,
                first.trim()
            ),
        )
        .expected(expected)
        .hint("keep one row, or make the table a list (`kind = \"list\"`) or a keyed table")
        .arg("case", "second-record")
        .arg("hint", "one-record");
        report.push(d);
    }
}

/// Row `row` repeats the primary key of row `first`: name both.
fn duplicate_key(schema: &TableSchema, table: &Table, first: usize, row: usize) -> Diagnostic {
    let key_field = schema.primary_key[0];
    let first_place = table.cell_location(first, key_field, "").place();
    let key_text = table
        .key(row, &schema.primary_key)
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let names = schema.primary_key_names().join(", ");
    Diagnostic::new(
        Code::DuplicateKey,
        table.cell_location(row, key_field, &schema.fields[key_field].name),
        format!("duplicate primary key ({names}) = ({key_text}): also at {first_place}"),
    )
    .found(key_text)
    .expected("a primary key used by one row only")
    .hint(format!("the first row with this key is at {first_place}"))
    .arg("first", first_place.trim().to_string())
    .arg("hint", "first-row")
}

fn check_unique(schema: &TableSchema, table: &Table, field_index: usize, report: &mut Report) {
    let field = &schema.fields[field_index];
    let mut first_row: HashMap<&Value, usize, KeyHash> = HashMap::default();
    for (row, value) in table.columns[field_index].iter().enumerate() {
        if value.is_null() {
            continue;
        }
        if let Some(&first) = first_row.get(value) {
            let first_place = table.cell_location(first, field_index, &field.name).place();
            report.push(
                Diagnostic::new(
                    Code::Unique,
                    table.cell_location(row, field_index, &field.name),
                    format!(
                        "`{}` must be unique, but {value} is also at {first_place}",
                        field.name
                    ),
                )
                .found(value.to_string())
                .expected("a value no other row has")
                .arg("first", first_place.trim().to_string()),
            );
        } else {
            first_row.insert(value, row);
        }
    }
}
