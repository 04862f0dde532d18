//! What changed in one table's schema: fields added, removed, retyped, their options,
//! and the primary key.

use masterctl_schemas::{Field, TableSchema};

/// One change of a table's schema.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaChange {
    FieldAdded {
        field: String,
        ty: String,
    },
    FieldRemoved {
        field: String,
        ty: String,
    },
    FieldRetyped {
        field: String,
        old: String,
        new: String,
    },
    /// An option of a field (`optional`, `min`, `values`, ...), as written.
    OptionChanged {
        field: String,
        option: &'static str,
        old: Option<String>,
        new: Option<String>,
    },
    KeyChanged {
        old: Vec<String>,
        new: Vec<String>,
    },
}

/// The changes from `old` to `new`, fields in the new schema's order, removed ones last.
pub fn schema_changes(old: &TableSchema, new: &TableSchema) -> Vec<SchemaChange> {
    let mut changes = Vec::new();
    let (old_key, new_key) = (key_names(old), key_names(new));
    if old_key != new_key {
        changes.push(SchemaChange::KeyChanged {
            old: old_key,
            new: new_key,
        });
    }
    for field in &new.fields {
        let Some(before) = old.fields.iter().find(|f| f.name == field.name) else {
            changes.push(SchemaChange::FieldAdded {
                field: field.name.clone(),
                ty: field.ty.to_string(),
            });
            continue;
        };
        if before.ty != field.ty {
            changes.push(SchemaChange::FieldRetyped {
                field: field.name.clone(),
                old: before.ty.to_string(),
                new: field.ty.to_string(),
            });
        }
        for ((option, was), (_, now)) in options(before).into_iter().zip(options(field)) {
            if was != now {
                changes.push(SchemaChange::OptionChanged {
                    field: field.name.clone(),
                    option,
                    old: was,
                    new: now,
                });
            }
        }
    }
    for field in &old.fields {
        if !new.fields.iter().any(|f| f.name == field.name) {
            changes.push(SchemaChange::FieldRemoved {
                field: field.name.clone(),
                ty: field.ty.to_string(),
            });
        }
    }
    changes
}

/// The names of a schema's primary key fields.
pub fn key_names(schema: &TableSchema) -> Vec<String> {
    schema
        .primary_key
        .iter()
        .map(|&f| schema.fields[f].name.clone())
        .collect()
}

/// Every option of a field as written (`None`: not set), in one fixed order.
fn options(field: &Field) -> [(&'static str, Option<String>); 11] {
    let flag = |on: bool| on.then(|| "true".to_string());
    let list = |values: &[std::sync::Arc<str>]| {
        (!values.is_empty()).then(|| {
            let names: Vec<&str> = values.iter().map(|v| &**v).collect();
            format!("[{}]", names.join(", "))
        })
    };
    [
        ("optional", flag(field.optional)),
        ("default", field.default.as_ref().map(|v| v.canonical())),
        ("min", field.min.as_ref().map(|v| v.canonical())),
        ("max", field.max.as_ref().map(|v| v.canonical())),
        ("min_length", field.min_length.map(|n| n.to_string())),
        ("max_length", field.max_length.map(|n| n.to_string())),
        ("pattern", field.pattern.as_ref().map(|(p, _)| p.clone())),
        ("values", list(&field.values)),
        (
            "references",
            field.references.as_ref().map(|r| r.to_string()),
        ),
        ("unique", flag(field.unique)),
        ("description", field.description.clone()),
    ]
}
