//! A build's values and rows in serde's data model, for tools that print them as JSON
//! (`masterctl inspect`): numbers and booleans as themselves, a list as an array, an
//! empty cell as null, strings, dates and datetimes as their text (a datetime in UTC,
//! `…Z`); a row as an object of its columns, in column order, a map field as one object
//! of its keys (as text: JSON's keys are strings) to its values, a record field as its
//! text (its fields' columns are not written apart).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::format::MAP_VALUES;
use crate::table::{Row, ValueRef};

impl Serialize for ValueRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ValueRef::Null => serializer.serialize_unit(),
            ValueRef::Int(v) => serializer.serialize_i64(*v),
            ValueRef::Float(v) => serializer.serialize_f64(*v),
            ValueRef::Bool(v) => serializer.serialize_bool(*v),
            ValueRef::List(list) => {
                let mut seq = serializer.serialize_seq(Some(list.len()))?;
                for item in list.iter() {
                    seq.serialize_element(&item)?;
                }
                seq.end()
            }
            other => serializer.collect_str(other),
        }
    }
}

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let table = self.table();
        let mut map = serializer.serialize_map(None)?;
        for (position, name) in table.field_columns() {
            match table.column(&format!("{name}{MAP_VALUES}")) {
                Some(values) => {
                    let entries = MapShown(self.value(position), self.value(values));
                    map.serialize_entry(name, &entries)?;
                }
                None => map.serialize_entry(name, &self.value(position))?,
            }
        }
        map.end()
    }
}

/// A map field's keys and values (two lists in the same order) as one object; no map
/// (an empty cell) as null.
struct MapShown<'a>(ValueRef<'a>, ValueRef<'a>);

impl Serialize for MapShown<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (ValueRef::List(keys), ValueRef::List(values)) = (&self.0, &self.1) else {
            return serializer.serialize_unit();
        };
        let mut map = serializer.serialize_map(Some(keys.len()))?;
        for (key, value) in keys.iter().zip(values.iter()) {
            map.serialize_entry(&key.to_string(), &value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_serialize_as_their_json() {
        let json = |v: ValueRef<'_>| serde_json::to_string(&v).unwrap();
        assert_eq!(json(ValueRef::Null), "null");
        assert_eq!(json(ValueRef::Int(-3)), "-3");
        assert_eq!(json(ValueRef::Float(0.5)), "0.5");
        assert_eq!(json(ValueRef::Bool(true)), "true");
        assert_eq!(json(ValueRef::Str("鉄\"の剣")), "\"鉄\\\"の剣\"");
        assert_eq!(json(ValueRef::Date(0)), "\"1970-01-01\"");
        assert_eq!(
            json(ValueRef::DateTime(3_600_000)),
            "\"1970-01-01T01:00:00Z\""
        );
    }
}
