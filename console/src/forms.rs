//! The forms that change something: each carries the session's token, names what it
//! acts on and what to do, and perhaps words for the commit.

use serde::Deserialize;

/// `csrf`, what the form acts on (`on`, its fields beside the others), `action`, and
/// an optional `message`.
#[derive(Deserialize)]
pub struct Acting<T> {
    #[serde(default)]
    pub csrf: Option<String>,
    #[serde(flatten)]
    pub on: T,
    pub action: String,
    #[serde(default)]
    message: Option<String>,
}

impl<T> Acting<T> {
    /// The words typed, if any.
    pub fn message(&self) -> Option<&str> {
        typed(self.message.as_deref())
    }
}

/// A text field as typed, trimmed; `None` when left empty.
pub fn typed(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}
