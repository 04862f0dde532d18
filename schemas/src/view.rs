//! The project as one audience sees it (`audience.rs` says who): the tables, fields
//! and generated masters it may see. A build for an audience is made from this view,
//! and so is code for it.

use crate::audience::Audience;
use crate::schema::{Field, GeneratedKind, Project, TableSchema};

impl Project {
    /// The project as `audience` sees it: the tables, fields and generated masters it
    /// may see, in their order; indexes over fields it may not see left out. A build
    /// for an audience is made from this view, and so is code for it.
    pub fn view(&self, audience: Audience) -> Project {
        let tables = self
            .tables
            .iter()
            .filter(|t| t.audience.contains(audience))
            .map(|t| t.view(audience))
            .collect();
        let generated = self
            .generated
            .iter()
            .filter(|g| g.audience.contains(audience))
            .cloned()
            .collect();
        Project {
            records: self.records.clone(),
            unions: self.unions.clone(),
            config: self.config.clone(),
            tables,
            generated,
        }
    }

    /// Whether `audience` sees the whole project (its view is the project itself).
    pub fn seen_whole_by(&self, audience: Audience) -> bool {
        self.tables.iter().all(|t| {
            t.audience.contains(audience) && t.fields.iter().all(|f| f.audience.contains(audience))
        }) && self.generated.iter().all(|g| g.audience.contains(audience))
    }

    /// The generated masters' inputs as `(table, fields)` pairs: what a master reads.
    pub fn generated_inputs(kind: &GeneratedKind) -> Vec<(&str, Vec<&str>)> {
        match kind {
            GeneratedKind::Reverse(reverse) => {
                std::iter::once((reverse.target.as_str(), Vec::new()))
                    .chain(reverse.sources.iter().map(|s| {
                        let fields = std::iter::once(s.field.as_str())
                            .chain(s.columns.iter().map(String::as_str))
                            .collect();
                        (s.table.as_str(), fields)
                    }))
                    .collect()
            }
            GeneratedKind::Custom(custom) => vec![(custom.table.as_str(), custom.kind.fields())],
        }
    }
}

impl TableSchema {
    /// The table as `audience` sees it: its fields that audience may see; the primary
    /// key and indexes renumbered, an index over a field it may not see left out.
    pub fn view(&self, audience: Audience) -> TableSchema {
        let kept: Vec<usize> = (0..self.fields.len())
            .filter(|&i| self.fields[i].audience.contains(audience))
            .collect();
        let new_index = |old: usize| kept.iter().position(|&k| k == old);
        let mut table = self.clone();
        table.fields = kept.iter().map(|&i| self.fields[i].clone()).collect();
        table.primary_key = self
            .primary_key
            .iter()
            .filter_map(|&i| new_index(i))
            .collect();
        table.indexes = self
            .indexes
            .iter()
            .filter_map(|index| {
                let mut index = index.clone();
                index.fields = index
                    .fields
                    .iter()
                    .map(|&i| new_index(i))
                    .collect::<Option<_>>()?;
                index.order_by = index
                    .order_by
                    .iter()
                    .map(|&i| new_index(i))
                    .collect::<Option<_>>()?;
                Some(index)
            })
            .collect();
        table
    }

    /// The positions of the fields `audience` sees, in order (the columns a view keeps).
    pub fn seen_by(&self, audience: Audience) -> Vec<usize> {
        (0..self.fields.len())
            .filter(|&i| self.fields[i].audience.contains(audience))
            .collect()
    }
}

impl Field {
    /// Whether `audience` may see this field.
    pub fn seen_by(&self, audience: Audience) -> bool {
        self.audience.contains(audience)
    }
}
