//! Who may see a table, a field or a generated master: the game's servers, its clients
//! (a client build is public the day it ships: players unpack it), or only the
//! designers (`design`: notes and working columns that never leave the repository).
//! `audience = ["server", "client"]` in a schema (on the table, a field, a generated
//! master) or in `masterctl.toml` (the project's default); a field takes its table's
//! unless it names its own. `Project::view` (`view.rs`) is the project as one audience
//! sees it.

use std::fmt;

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
