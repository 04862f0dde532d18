//! The branch a request names — a region, and perhaps a work branch of it — checked
//! against the project before it names anything, and written back into links.

use masterctl_store::{Branch, MasterRepo, Region, Structure};
use serde::Deserialize;

use crate::Console;
use crate::failed::ConsoleError;

/// `region=R[&branch=NAME]` of a request.
#[derive(Deserialize, Clone)]
pub struct Target {
    pub region: String,
    #[serde(default)]
    pub branch: Option<String>,
}

impl Target {
    /// The work branch named (an empty parameter names none).
    pub fn branch(&self) -> Option<&str> {
        self.branch.as_deref().filter(|b| !b.is_empty())
    }

    /// `region=…[&branch=…]` for a link.
    pub fn query(&self) -> String {
        let mut query = format!("region={}", urlencode(&self.region));
        if let Some(branch) = self.branch() {
            query.push_str(&format!("&branch={}", urlencode(branch)));
        }
        query
    }

    /// The repository, its structure and the branch named, checked against the project.
    pub fn open(&self, console: &Console) -> Result<(MasterRepo, Structure, Branch), ConsoleError> {
        let repo = console.open()?;
        let structure = repo.structure()?;
        let region = Region::of(&structure.project, &self.region)?;
        let line = Branch::of(&region, self.branch())?;
        Ok((repo, structure, line))
    }
}

/// A query value with everything but unreserved characters percent-encoded.
pub fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}
