//! Who may see a table, a field or a generated master: the game's servers, its clients
//! (a client build is public the day it ships: players unpack it), or only the
//! designers (`design`: notes and working columns that never leave the repository).
//! `audience = ["server", "client"]` in a schema (on the table, a field, a generated
//! master) or in `masterctl.toml` (the project's default); a field takes its table's
//! unless it names its own. [`Project::view`] is the project as one audience sees it.

use std::fmt;

use crate::schema::{Field, GeneratedKind, Project, TableSchema};

/// One audience.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Audience {
    Server,
    Client,
    Design,
}

impl Audience {
    pub const ALL: [Audience; 3] = [Audience::Server, Audience::Client, Audience::Design];

    pub fn name(self) -> &'static str {
        match self {
            Audience::Server => "server",
            Audience::Client => "client",
            Audience::Design => "design",
        }
    }

    /// The audience a schema names (`server`, `client`, `design`).
    pub fn of(name: &str) -> Option<Audience> {
        Audience::ALL.into_iter().find(|a| a.name() == name)
    }

    fn bit(self) -> u8 {
        match self {
            Audience::Server => 1,
            Audience::Client => 2,
            Audience::Design => 4,
        }
    }
}

impl fmt::Display for Audience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of audiences: who may see something. The default — what a project that names
/// none gets — is servers and clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Audiences(u8);

impl Default for Audiences {
    fn default() -> Audiences {
        Audiences::of(&[Audience::Server, Audience::Client])
    }
}

impl Audiences {
    /// Nobody (what an intersection of disjoint sets is).
    pub const NONE: Audiences = Audiences(0);

    pub fn of(audiences: &[Audience]) -> Audiences {
        Audiences(audiences.iter().fold(0, |bits, a| bits | a.bit()))
    }

    pub fn contains(self, audience: Audience) -> bool {
        self.0 & audience.bit() != 0
    }

    /// Whether everyone in `self` is in `other` too.
    pub fn is_within(self, other: Audiences) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn and(self, other: Audiences) -> Audiences {
        Audiences(self.0 & other.0)
    }

    /// These and `audience` too.
    pub fn and_also(self, audience: Audience) -> Audiences {
        Audiences(self.0 | audience.bit())
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The audiences in `self` that `other` lacks.
    pub fn beyond(self, other: Audiences) -> Audiences {
        Audiences(self.0 & !other.0)
    }

    pub fn iter(self) -> impl Iterator<Item = Audience> {
        Audience::ALL.into_iter().filter(move |a| self.contains(*a))
    }
}

impl fmt::Display for Audiences {
    /// `server, client`; `nobody` for the empty set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("nobody");
        }
        let names: Vec<&str> = self.iter().map(Audience::name).collect();
        f.write_str(&names.join(", "))
    }
}

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
