//! Records and unions built in an order where each type comes after the types it
//! names: a record after the records and unions its fields hold, a union after its
//! cases' records. Types that name one another in a circle are an error each.

use std::collections::HashSet;

use toml::Spanned;

use crate::diagnostic::Code;

use super::records::{DeclaredRecord, names_any};
use super::unions::DeclaredUnion;
use super::*;

/// A type waiting to be built.
enum Waiting<'s> {
    Record(DeclaredRecord<'s>),
    Union(DeclaredUnion<'s>),
}

impl Waiting<'_> {
    fn name(&self) -> &str {
        match self {
            Waiting::Record(record) => &record.name,
            Waiting::Union(union) => &union.name,
        }
    }

    /// Whether it names any of `types`, which are still to be built.
    fn names_any(&self, types: &HashSet<&str>) -> bool {
        match self {
            Waiting::Record(record) => names_any(record.raw, types),
            Waiting::Union(union) => union.case_records().any(|r| types.contains(r)),
        }
    }
}

impl Builder {
    /// Every record and union schema as a type in `self.records` and `self.unions`;
    /// `tables` are the tables' names, which neither may take.
    pub(super) fn build_types(
        &mut self,
        records: &[(SourceText, RawSchema)],
        unions: &[(SourceText, RawSchema)],
        tables: &HashSet<String>,
    ) {
        let named = |schemas: &[(SourceText, RawSchema)]| -> HashSet<String> {
            schemas
                .iter()
                .map(|(source, raw)| declared_name(source, raw))
                .collect()
        };
        let (record_names, union_names) = (named(records), named(unions));
        let declared_records = self.declare_records(records, &(tables | &union_names));
        let declared_unions = self.declare_unions(unions, &(tables | &record_names));
        let mut waiting: Vec<Waiting<'_>> = (declared_records.into_iter().map(Waiting::Record))
            .chain(declared_unions.into_iter().map(Waiting::Union))
            .collect();
        // Build whichever names no type still waiting, until none is left or all wait.
        loop {
            let names: HashSet<&str> = waiting.iter().map(Waiting::name).collect();
            let Some(next) = waiting.iter().position(|w| !w.names_any(&names)) else {
                break;
            };
            match waiting.remove(next) {
                Waiting::Record(record) => self.build_declared_record(record),
                Waiting::Union(union) => self.build_declared_union(union),
            }
        }
        for circling in waiting {
            self.holds_itself(circling);
        }
    }

    /// A type that names itself through its fields, cases, or theirs.
    fn holds_itself(&mut self, circling: Waiting<'_>) {
        let (source, raw, of, through) = match &circling {
            Waiting::Record(r) => (r.source, r.raw, "record", "its fields"),
            Waiting::Union(u) => (u.source, u.raw, "union", "its cases"),
        };
        let name = circling.name().to_string();
        let span = raw.name.as_ref().map_or(0..0, Spanned::span);
        self.error(
            source
                .error(
                    Code::InvalidOption,
                    span,
                    format!("{of} `{name}` holds itself, through {through} or theirs"),
                )
                .hint("records and unions may hold other records and unions, never in a circle"),
        );
        self.broken_records.insert(name);
    }
}
