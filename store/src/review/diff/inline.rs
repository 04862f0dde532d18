//! Where two texts differ, for highlighting: word by word, or character by character
//! for scripts written without spaces (Japanese, Chinese), whose words a space-based
//! split would not find.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// A run of text that both sides share, or that only one of them has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Span {
    Same(String),
    Removed(String),
    Added(String),
}

/// The spans that turn `old` into `new` (runs of one kind merged).
pub fn inline(old: &str, new: &str) -> Vec<Span> {
    let by_char = !spaced(old) || !spaced(new);
    let diff = if by_char {
        TextDiff::from_chars(old, new)
    } else {
        TextDiff::from_words(old, new)
    };
    let mut spans: Vec<Span> = Vec::new();
    for change in diff.iter_all_changes() {
        let text = change.value();
        match (change.tag(), spans.last_mut()) {
            (ChangeTag::Equal, Some(Span::Same(run)))
            | (ChangeTag::Delete, Some(Span::Removed(run)))
            | (ChangeTag::Insert, Some(Span::Added(run))) => run.push_str(text),
            (ChangeTag::Equal, _) => spans.push(Span::Same(text.to_string())),
            (ChangeTag::Delete, _) => spans.push(Span::Removed(text.to_string())),
            (ChangeTag::Insert, _) => spans.push(Span::Added(text.to_string())),
        }
    }
    spans
}

/// Whether a text is written with spaces between words: it has a space, or is all
/// ASCII (a single word).
fn spaced(text: &str) -> bool {
    text.contains(' ') || text.is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_for_spaced_scripts_characters_for_the_others() {
        assert_eq!(
            inline("Iron Sword of fire", "Iron Blade of fire"),
            vec![
                Span::Same("Iron ".into()),
                Span::Removed("Sword".into()),
                Span::Added("Blade".into()),
                Span::Same(" of fire".into()),
            ]
        );
        assert_eq!(
            inline("鉄の剣", "鋼の剣"),
            vec![
                Span::Removed("鉄".into()),
                Span::Added("鋼".into()),
                Span::Same("の剣".into()),
            ]
        );
    }
}
