//! A record or union spread over the columns its header spans (`column_span`: Luban's
//! polymorphic bean over `三角形`, `1`, `2`, `3`), or each element of a multi-row list
//! of them on its row: its text's parts, one a column — import joins a row's cells by
//! the type's separator again.

use masterctl_schemas::Value;
use masterctl_schemas::schema::Field;

/// The text of column `part` of `span` for `element`, a value of `field`'s type (or of
/// its list's): its `part`th part, the last column holding the rest; `None` when the
/// column is left empty. An element whose text ends with its separator (an empty last
/// part, which import would leave out) stays whole in the first column.
pub(super) fn part_of(field: &Field, element: &Value, part: usize, span: usize) -> Option<String> {
    let separator = field.element_over_columns()?;
    let mut text = String::new();
    super::write_text(&mut text, field, element);
    if text.ends_with(separator) {
        return (part == 0).then_some(text);
    }
    let mut parts = text.splitn(span, separator);
    let found = parts.nth(part).map(str::to_string);
    found.filter(|p| !p.is_empty())
}

/// The one element a row shows of `value`, a spread field's: the value itself (a record
/// or union), a list's only element; `None` for a list of several (written whole in the
/// first column) or none.
pub(super) fn the_element(value: &Value) -> Option<&Value> {
    match value {
        Value::Null => None,
        Value::List(items) => match &items[..] {
            [one] => Some(one),
            _ => None,
        },
        one => Some(one),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use masterctl_schemas::load::load_from_files;

    /// `trio`, a record of three optional parts separated by `:`, over two columns.
    fn spread_trio() -> Field {
        let files = [
            (
                "schemas/trio.toml",
                "kind = \"record\"\nseparator = \":\"\n\n[[fields]]\nname = \"a\"\ntype = \"int\"\noptional = true\n\n\
                 [[fields]]\nname = \"b\"\ntype = \"string\"\noptional = true\n\n\
                 [[fields]]\nname = \"c\"\ntype = \"string\"\noptional = true\n",
            ),
            (
                "schemas/spot.toml",
                "name = \"spot\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n\
                 [[fields]]\nname = \"at\"\ntype = \"trio\"\ncolumn_span = 2\n",
            ),
        ];
        let files = files.map(|(path, text)| (path.into(), text.to_string()));
        let project = load_from_files(None, files.to_vec()).unwrap();
        project.tables[0].fields[1].clone()
    }

    #[test]
    fn each_column_takes_its_part_and_the_last_the_rest() {
        let field = spread_trio();
        let parts = |text: &str| {
            let value = masterctl_schemas::parse::parse_text(&field.ty, text).unwrap();
            (0..2)
                .map(|p| part_of(&field, &value, p, 2))
                .collect::<Vec<_>>()
        };
        // More parts than columns: the rest in the last column, joined as import joins.
        assert_eq!(parts("1:x:y"), [Some("1".into()), Some("x:y".into())]);
        // An empty last part, which import would leave out: whole in the first column.
        assert_eq!(parts("1:x:"), [Some("1:x:".into()), None]);
        // An empty part before others: its column left empty.
        assert_eq!(parts(":x:y"), [None, Some("x:y".into())]);
    }
}
