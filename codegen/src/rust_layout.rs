//! Rust laid out as rustfmt lays it out (its default rules: lines of at most 100
//! columns, the arguments of a call or the items of an array on one line when they
//! take at most 60, a chain of calls on one line when it takes at most 60), for the
//! shapes the built-in templates write where a name's length decides the layout: a
//! signature, a statement or field with one call or array, and a chain of calls.

const MAX_WIDTH: usize = 100;
/// `fn_call_width` and `array_width`.
const LIST_WIDTH: usize = 60;
const CHAIN_WIDTH: usize = 60;
const INDENT: usize = 4;

fn width(text: &str) -> usize {
    text.chars().count()
}

fn pad(indent: usize) -> String {
    " ".repeat(indent)
}

/// A call's parentheses or an array's brackets in a line: where they open and close,
/// and the items between (split at their own commas, not at nested ones).
struct Delimited<'t> {
    open: usize,
    close: usize,
    items: Vec<&'t str>,
}

impl Delimited<'_> {
    /// The items written on one line.
    fn width(&self) -> usize {
        self.items.iter().map(|item| width(item)).sum::<usize>()
            + 2 * self.items.len().saturating_sub(1)
    }
}

/// The first call's arguments or array's items in `text` (the first `(` or `[`).
fn first_delimited(text: &str) -> Option<Delimited<'_>> {
    let open = text.find(['(', '['])?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut cuts = Vec::new();
    let mut close = None;
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i <= open) {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' if depth == 0 => {
                close = Some(i);
                break;
            }
            ')' | ']' | '>' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => cuts.push(i),
            _ => {}
        }
    }
    let close = close?;
    let mut items = Vec::new();
    let mut start = open + 1;
    for cut in cuts.into_iter().chain([close]) {
        let item = text[start..cut].trim();
        if !item.is_empty() {
            items.push(item);
        }
        start = cut + 1;
    }
    Some(Delimited { open, close, items })
}

/// Whether `text` stays on one line `indent` columns in.
fn fits(text: &str, indent: usize) -> bool {
    indent + width(text) <= MAX_WIDTH
        && first_delimited(text).is_none_or(|list| list.width() <= LIST_WIDTH)
}

/// `text` with its first call's arguments (or array's items) one per line.
fn vertical(text: &str, indent: usize) -> Option<String> {
    Some(lay_out_vertically(text, &first_delimited(text)?, indent))
}

/// `text` with the items of `list`, its first call or array, one per line.
fn lay_out_vertically(text: &str, list: &Delimited<'_>, indent: usize) -> String {
    let inner = pad(indent + INDENT);
    let mut out = String::from(&text[..=list.open]);
    out.push('\n');
    for item in &list.items {
        out.push_str(&format!("{inner}{item},\n"));
    }
    out.push_str(&pad(indent));
    out.push_str(&text[list.close..]);
    out
}

/// A struct literal's field (`name: value,`): where its value starts.
fn field_value(text: &str) -> Option<usize> {
    let colon = text.find(": ")?;
    let name = &text[..colon];
    let is_name = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    is_name.then_some(colon + 2)
}

/// A statement or a struct literal's field, `indent` columns in, holding at most one
/// call or array whose layout its length decides: on one line when it fits; a `let`'s
/// value on the next line when it fits there on one line; else the arguments one per
/// line, the value taken to the next line when its call cannot open on the first.
pub fn line(text: &str, indent: usize) -> String {
    if fits(text, indent) {
        return text.to_string();
    }
    if let Some(arm) = match_arm(text, indent) {
        return arm;
    }
    if text.starts_with("let ")
        && let Some(equals) = text.find(" = ")
    {
        let (head, value) = (&text[..equals + 2], &text[equals + 3..]);
        if fits(value, indent + INDENT) {
            return format!("{head}\n{}{value}", pad(indent + INDENT));
        }
        return opening_here(text, indent).unwrap_or_else(|| {
            format!(
                "{head}\n{}{}",
                pad(indent + INDENT),
                line(value, indent + INDENT)
            )
        });
    }
    if let Some(start) = field_value(text) {
        return opening_here(text, indent).unwrap_or_else(|| {
            let value = line(&text[start..], indent + INDENT);
            format!("{}\n{}{value}", &text[..start - 1], pad(indent + INDENT))
        });
    }
    vertical(text, indent).unwrap_or_else(|| text.to_string())
}

/// An impl's header (`impl Trait for Type`, without its brace) with its opening brace:
/// on one line when that fits, else the type on a line of its own, the brace on the
/// next.
pub fn impl_header(header: &str, indent: usize) -> String {
    let one_line = format!("{header} {{");
    let Some(at) = header
        .find(" for ")
        .filter(|_| indent + width(&one_line) > MAX_WIDTH)
    else {
        return one_line;
    };
    let (head, ty) = (&header[..at], &header[at + 1..]);
    format!("{head}\n{}{ty}\n{}{{", pad(indent + INDENT), pad(indent))
}

/// A match arm (`pattern => value,`) too long for a line: its value in a block.
fn match_arm(text: &str, indent: usize) -> Option<String> {
    let value = text.strip_suffix(',')?;
    let at = value.find(" => ")?;
    let (pattern, value) = (&value[..at], &value[at + 4..]);
    Some(format!(
        "{pattern} => {{\n{}{}\n{}}}",
        pad(indent + INDENT),
        line(value, indent + INDENT),
        pad(indent)
    ))
}

/// [`vertical`], when the line that opens the call fits with room for what follows
/// the call's close (rustfmt lays a call out in the width left after its `?` and `,`).
fn opening_here(text: &str, indent: usize) -> Option<String> {
    let list = first_delimited(text)?;
    let after = width(&text[list.close + 1..]);
    let opening = width(&text[..=list.open]);
    (indent + opening + after <= MAX_WIDTH).then(|| lay_out_vertically(text, &list, indent))
}

/// A chain of calls (`f.debug_struct("Item")`, then `.field(...)` per line), `indent`
/// columns in: on one line when it takes at most 60 columns, else a link per line, each
/// call laid out as [`line`] lays it out.
pub fn chain(links: &[&str], indent: usize) -> String {
    let one_line: String = links.concat();
    if width(&one_line) <= CHAIN_WIDTH && indent + width(&one_line) <= MAX_WIDTH {
        return one_line;
    }
    links
        .iter()
        .enumerate()
        .map(|(i, link)| match i {
            0 => line(link, indent),
            _ => format!("{}{}", pad(indent + INDENT), line(link, indent + INDENT)),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A function signature (`pub fn get(&self, a: A) -> R`, without its body) as rustfmt
/// lays it out when it starts `indent` columns in and is followed by ` {`: on one line
/// when that fits in 100 columns, else one parameter per line.
pub fn signature(signature: &str, indent: usize) -> String {
    if indent + width(signature) + 2 <= MAX_WIDTH {
        return signature.to_string();
    }
    vertical(signature, indent).unwrap_or_else(|| signature.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_signatures_take_a_line_per_parameter() {
        assert_eq!(
            signature("pub fn get(&self, id: i64) -> Option<Item<'a>>", 4),
            "pub fn get(&self, id: i64) -> Option<Item<'a>>"
        );
        let long = "pub fn get(&self, attacker: ElementAffinityAttacker, defender: ElementAffinityDefender) -> Option<ElementAffinity<'a>>";
        assert_eq!(
            signature(long, 4),
            "pub fn get(\n        &self,\n        attacker: ElementAffinityAttacker,\n        defender: ElementAffinityDefender,\n    ) -> Option<ElementAffinity<'a>>"
        );
    }

    #[test]
    fn a_call_goes_one_argument_per_line_past_sixty_columns_of_arguments() {
        let short = "id: column(&table, \"id\", ColumnType::Int, false)?,";
        assert_eq!(line(short, 12), short);
        // 62 columns of arguments on a 76-column line.
        let long = ".field(\"bed_pk_diamond_score_rate\", &self.bed_pk_diamond_score_rate())";
        assert_eq!(
            line(long, 12),
            ".field(\n                \"bed_pk_diamond_score_rate\",\n                &self.bed_pk_diamond_score_rate(),\n            )"
        );
        // 59 columns of arguments on a 106-column line.
        let wide = "bed_pk_diamond_score_rate: column(&table, \"bed_pk_diamond_score_rate\", ColumnType::Int, false)?,";
        assert_eq!(
            line(wide, 12),
            "bed_pk_diamond_score_rate: column(\n                &table,\n                \"bed_pk_diamond_score_rate\",\n                ColumnType::Int,\n                false,\n            )?,"
        );
        // Commas in a string or a nested call are not the call's.
        let nested = "f(\"a, b\", g(1, 2), [3, 4])";
        let list = first_delimited(nested).unwrap();
        assert_eq!(list.items, ["\"a, b\"", "g(1, 2)", "[3, 4]"]);
    }

    #[test]
    fn a_let_takes_its_value_to_the_next_line_when_it_fits_there() {
        let text = "let aaaaaaaaaaaaaaaaaaaaaaaa = <KkkkkkkkkkkkkkkkkkkkkkkkAaaaaaaaaaaaaaaaaaaaaaaa as FieldValue>::parse(text)?;";
        assert_eq!(
            line(text, 8),
            "let aaaaaaaaaaaaaaaaaaaaaaaa =\n            <KkkkkkkkkkkkkkkkkkkkkkkkAaaaaaaaaaaaaaaaaaaaaaaa as FieldValue>::parse(text)?;"
        );
    }

    #[test]
    fn a_field_whose_call_cannot_open_on_its_line_takes_the_next() {
        let name = "t".repeat(38);
        let text = format!("{name}_columns: T{name}Columns::find(&inner)?,");
        assert_eq!(
            line(&text, 12),
            format!("{name}_columns:\n                T{name}Columns::find(&inner)?,")
        );
    }

    #[test]
    fn long_impl_headers_and_match_arms_break_as_rustfmt_breaks_them() {
        let ty = format!("T{}E{}", "t".repeat(39), "e".repeat(39));
        assert_eq!(
            impl_header(&format!("impl<'a> FieldValue<'a> for {ty}"), 0),
            format!("impl<'a> FieldValue<'a>\n    for {ty}\n{{")
        );
        let value = "v".repeat(40);
        assert_eq!(
            line(&format!("\"{value}\" => Some(Self::V{value}),"), 12),
            format!("\"{value}\" => {{\n                Some(Self::V{value})\n            }}")
        );
    }

    #[test]
    fn a_chain_of_sixty_columns_is_one_line() {
        let links = [
            "f.debug_struct(\"TestIndex\")",
            ".field(\"id\", &self.id())",
            ".finish()",
        ];
        assert_eq!(chain(&links, 8), links.concat());
        let links = [
            "f.debug_struct(\"TestIndex1\")",
            ".field(\"id\", &self.id())",
            ".finish()",
        ];
        assert_eq!(
            chain(&links, 8),
            "f.debug_struct(\"TestIndex1\")\n            .field(\"id\", &self.id())\n            .finish()"
        );
    }
}
