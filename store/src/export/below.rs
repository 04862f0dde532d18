//! A multi-row list laid out as the sheets write it (`multi_row`, Luban's `*field`): its
//! first element on its record's row, each other on a row of its own below, whose key
//! cells are empty — import reads those rows as going on with the record above.

use masterctl_schemas::Value;
use masterctl_schemas::schema::Field;

/// The elements of `value`, a list of multi-row `field`, to write one a row — or `None`
/// when it stays whole in its record's cell: a list of one element or none, or one with
/// an element whose cell alone would not read back as it (empty, holding the list's
/// separator, or starting with `#` in the sheet's first column, which marks a comment
/// row).
pub(super) fn one_a_row<'v>(
    field: &Field,
    first_column: bool,
    value: &'v Value,
) -> Option<&'v [Value]> {
    if !field.multi_row {
        return None;
    }
    let Value::List(items) = value else {
        return None;
    };
    if items.len() < 2 {
        return None;
    }
    let separator = field.separator.as_deref().unwrap_or("|");
    let mut text = String::new();
    let not_alone = items.iter().any(|item| {
        text.clear();
        super::write_text(&mut text, field, item);
        let comment = first_column && text.starts_with('#');
        text.trim().is_empty() || text.contains(separator) || comment
    });
    (!not_alone).then_some(&items[..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use masterctl_schemas::load::load_from_files;

    /// A multi-row list of strings, `steps`.
    fn steps() -> Field {
        let schema = "name = \"quest\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n\
            [[fields]]\nname = \"steps\"\ntype = \"list<string>\"\nmulti_row = true\n";
        let project = load_from_files(None, vec![("schemas/quest.toml".into(), schema.into())]);
        project.unwrap().tables[0].fields[1].clone()
    }

    fn list(items: &[&str]) -> Value {
        Value::List(items.iter().map(|&s| Value::Str(s.into())).collect())
    }

    #[test]
    fn a_list_stays_whole_when_an_element_would_not_read_back_alone() {
        let field = steps();
        let rows = |items: &[&str], first| one_a_row(&field, first, &list(items)).map(<[_]>::len);
        assert_eq!(rows(&["talk", "fight"], false), Some(2));
        assert_eq!(rows(&["talk"], false), None);
        assert_eq!(rows(&["talk", ""], false), None);
        assert_eq!(rows(&["#talk", "fight"], false), Some(2));
        assert_eq!(rows(&["#talk", "fight"], true), None);
        assert_eq!(rows(&["a|b", "c"], false), None);
        let mut single = field.clone();
        single.multi_row = false;
        assert_eq!(one_a_row(&single, false, &list(&["a", "b"])), None);
    }
}
