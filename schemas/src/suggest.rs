//! "Did you mean": the closest known name to a misspelt one, for every hint that offers
//! one (sheets, tables, fields, enum values, regions).

/// The closest candidate to a misspelt name, if it is close enough to be a likely typo.
/// Names that differ only in their numbers (`Sheet1`, `Sheet5`; `Table2`, `Table3`) are
/// numbered siblings, not typos of each other: never suggested.
pub fn did_you_mean<'a>(found: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let found_lower = found.to_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        if candidate.to_lowercase() == found_lower {
            return Some(candidate);
        }
        if numbered_siblings(&found_lower, &candidate.to_lowercase()) {
            continue;
        }
        let score = strsim::jaro_winkler(&found_lower, &candidate.to_lowercase());
        if score >= 0.8 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Both names hold digits, and are the same without them.
fn numbered_siblings(a: &str, b: &str) -> bool {
    let letters = |s: &str| s.chars().filter(|c| !c.is_numeric()).collect::<String>();
    a.chars().any(char::is_numeric) && b.chars().any(char::is_numeric) && letters(a) == letters(b)
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn numbered_siblings_are_not_typos_of_each_other() {
        let sheets = ["Sheet5", "Items"];
        assert_eq!(did_you_mean("Sheet1", sheets.into_iter()), None);
        assert_eq!(did_you_mean("シート1", ["シート2"].into_iter()), None);
        assert_eq!(did_you_mean("Itmes", sheets.into_iter()), Some("Items"));
        // A name without its number may still be a typo of a numbered one.
        assert_eq!(did_you_mean("Sheet", sheets.into_iter()), Some("Sheet5"));
    }

    #[test]
    fn close_names_are_suggested_and_far_ones_not() {
        let known = ["item", "quest", "quest_drop"];
        assert_eq!(did_you_mean("itme", known.into_iter()), Some("item"));
        assert_eq!(did_you_mean("Quest", known.into_iter()), Some("quest"));
        assert_eq!(did_you_mean("monster", known.into_iter()), None);
    }

    #[test]
    fn typos_find_their_word() {
        let values = ["common", "rare", "epic", "legendary"];
        assert_eq!(did_you_mean("raer", values.into_iter()), Some("rare"));
        assert_eq!(
            did_you_mean("Legendery", values.into_iter()),
            Some("legendary")
        );
        assert_eq!(did_you_mean("zzz", values.into_iter()), None);
    }
}
