//! Everything the binary shows: diagnostics grouped by table (coloured on a terminal),
//! JSON for machines, and failures. A closed pipe (`masterctl validate | head`) is a
//! normal end, not an error.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use masterctl_schemas::{Diagnostic, Report, Severity};
use serde::Serialize;

use crate::failure::Failure;

/// The options every command takes; `repo` is filled from [`RepoArg`] (the commands
/// that read a repository take `--repo`, before or after the command's name).
#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    #[arg(skip)]
    pub repo: Option<PathBuf>,
    /// Output for people (text) or machines (json)
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// When to colour text output
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--repo` of a command that reads the master repository.
#[derive(Args, Debug, Clone, Default)]
pub struct RepoArg {
    /// The master repository (default: the current folder or the nearest parent holding
    /// masterctl.toml)
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
}

/// The exchange formats are for `l10n export` alone, whose help names them; the help
/// of the other commands shows text and json.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    /// XLIFF 1.2 (`l10n export` only)
    #[value(hide = true)]
    Xliff,
    /// gettext PO (`l10n export` only)
    #[value(hide = true)]
    Po,
    /// CSV for spreadsheets (`l10n export` and `export` only)
    #[value(hide = true)]
    Csv,
    /// xlsx workbooks (`export` only, its default)
    #[value(hide = true)]
    Xlsx,
    /// OpenDocument spreadsheets (`export` only)
    #[value(hide = true)]
    Ods,
}

impl Format {
    /// The exchange format it names, if it names one.
    pub fn exchange(self) -> Option<masterctl_locales::exchange::Format> {
        use masterctl_locales::exchange::Format as Exchange;
        match self {
            Format::Xliff => Some(Exchange::Xliff),
            Format::Po => Some(Exchange::Po),
            Format::Csv => Some(Exchange::Csv),
            Format::Text | Format::Json | Format::Xlsx | Format::Ods => None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// What a command returns when it succeeds: data (its JSON is what it serializes) that
/// also knows how to read as text.
pub trait Render: Serialize {
    fn text(&self, output: &Output);
}

pub struct Output {
    pub format: Format,
    /// Whether standard output and standard error are coloured (anstream's choice for
    /// each under `--color auto`: a terminal, `NO_COLOR`, `CLICOLOR_FORCE`, `TERM`).
    stdout: anstream::ColorChoice,
    stderr: anstream::ColorChoice,
    /// A pager the text goes through (`Output::page`), while it runs.
    pager: std::sync::Mutex<Option<std::process::Child>>,
}

/// The styles this program paints, by the index [`Output::paint`] marks them with.
const STYLES: [anstyle::Style; 6] = [
    anstyle::Style::new().bold(),
    anstyle::Style::new().dimmed(),
    anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Red))),
    anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Yellow))),
    anstyle::Style::new().fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Cyan))),
    anstyle::Style::new().fg_color(Some(anstyle::Color::Ansi(anstyle::AnsiColor::Green))),
];
const BOLD: usize = 0;
const DIM: usize = 1;
const RED: usize = 2;
const YELLOW: usize = 3;
const CYAN: usize = 4;
const GREEN: usize = 5;
/// The mark of the end of a style.
const RESET: &str = "r";

impl Output {
    pub fn new(args: &GlobalArgs) -> Output {
        let choice = match args.color {
            ColorChoice::Always => anstream::ColorChoice::Always,
            ColorChoice::Never => anstream::ColorChoice::Never,
            ColorChoice::Auto => anstream::ColorChoice::Auto,
        };
        let resolve = |auto: anstream::ColorChoice| match choice {
            anstream::ColorChoice::Auto => auto,
            chosen => chosen,
        };
        Output {
            format: args.format,
            stdout: resolve(anstream::AutoStream::choice(&std::io::stdout())),
            stderr: resolve(anstream::AutoStream::choice(&std::io::stderr())),
            pager: std::sync::Mutex::new(None),
        }
    }

    /// Send the text that follows through `$PAGER` (`less -FRX` when unset: it quits at
    /// once when the text fits the screen, and keeps the colours), when standard output
    /// is a terminal and the output is text. `PAGER=` (empty) or `PAGER=cat` turns it
    /// off; a pager that does not start leaves the text on standard output.
    pub fn page(&self) {
        if self.is_json() || !std::io::stdout().is_terminal() {
            return;
        }
        let command = std::env::var("PAGER").unwrap_or_else(|_| "less -FRX".to_string());
        let mut words = command.split_whitespace();
        let Some(program) = words.next().filter(|p| *p != "cat") else {
            return;
        };
        let child = std::process::Command::new(program)
            .args(words)
            .env(
                "LESS",
                std::env::var("LESS").unwrap_or_else(|_| "FRX".into()),
            )
            .stdin(std::process::Stdio::piped())
            .spawn();
        if let (Ok(child), Ok(mut pager)) = (child, self.pager.lock()) {
            *pager = Some(child);
        }
    }

    /// Wait for the pager, if one runs, after the last line (the reader quits it).
    pub fn end_paging(&self) {
        let Ok(mut pager) = self.pager.lock() else {
            return;
        };
        if let Some(mut child) = pager.take() {
            drop(child.stdin.take());
            let _ = child.wait();
        }
    }

    pub fn is_json(&self) -> bool {
        self.format == Format::Json
    }

    /// `text` in one of [`STYLES`], as [`terminal_safe`] will write it: the style is
    /// marked with this process's own marker, which no data can hold, so that only the
    /// colours painted here reach a terminal as escape sequences. The stream a line goes
    /// to drops them when it is not coloured.
    fn paint(&self, style: usize, text: &str) -> String {
        if self.stdout == anstream::ColorChoice::Never
            && self.stderr == anstream::ColorChoice::Never
        {
            return text.to_string();
        }
        let marker = colour_marker();
        format!("{marker}{style}{COLOUR_END}{text}{marker}{RESET}{COLOUR_END}")
    }

    /// `warning: TEXT` on standard error: something the command could not do that does
    /// not undo what it did.
    pub fn warning(&self, text: &str) {
        self.error_line(&format!("{} {text}", self.paint(0, "warning:")));
    }

    /// A line of news on standard error while a command keeps running (`watch`): what
    /// it did, never its result (which goes to standard output).
    pub fn note(&self, text: &str) {
        self.error_line(text);
    }

    /// A line on standard error, coloured when it is.
    fn error_line(&self, text: &str) {
        let text = terminal_safe(text, self.stderr != anstream::ColorChoice::Never);
        let mut stream = anstream::AutoStream::new(std::io::stderr().lock(), self.stderr);
        let _ = writeln!(stream, "{text}");
    }

    /// A progress bar on standard error for reading files, drawn once a second file is
    /// known to be coming (a single file gets none); hidden when standard error is not a
    /// terminal or the output is JSON.
    pub fn progress(&self, label: &'static str) -> FileProgress {
        self.progress_of(label, "files")
    }

    /// [`Output::progress`] counting other things than files (`objects`).
    pub fn progress_of(&self, label: &'static str, things: &'static str) -> FileProgress {
        let shown = !self.is_json() && std::io::stderr().is_terminal();
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        bar.set_style(
            indicatif::ProgressStyle::with_template(&format!(
                "{label} [{{bar:30}}] {{pos}}/{{len}} {things} ({{elapsed}})"
            ))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        FileProgress {
            bar,
            shown,
            drawn: std::sync::Once::new(),
        }
    }

    /// A spinner on standard error for work of unknown length (`building jp`); hidden
    /// when standard error is not a terminal or the output is JSON.
    pub fn spinner(&self, message: String) -> indicatif::ProgressBar {
        if self.is_json() || !std::io::stderr().is_terminal() {
            return indicatif::ProgressBar::hidden();
        }
        let spinner = indicatif::ProgressBar::new_spinner().with_message(message);
        spinner.enable_steady_tick(std::time::Duration::from_millis(120));
        spinner
    }

    /// Print a line to standard output (terminal-safe, see [`terminal_safe`]).
    pub fn line(&self, text: impl AsRef<str>) {
        self.write_out(&format!("{}\n", text.as_ref()));
    }

    /// Lines, each ending in a newline, on standard output (terminal-safe).
    pub fn lines(&self, text: &str) {
        if !text.is_empty() {
            self.write_out(text);
        }
    }

    /// Text on standard output (or into the pager), escaped for a terminal, coloured
    /// when standard output is.
    fn write_out(&self, text: &str) {
        let coloured = self.stdout != anstream::ColorChoice::Never;
        let text = terminal_safe(text, coloured);
        if let Ok(mut pager) = self.pager.lock()
            && let Some(stdin) = pager.as_mut().and_then(|child| child.stdin.as_mut())
        {
            // A reader who quits the pager early ends the output, as a closed pipe does.
            let _ = stdin.write_all(text.as_bytes());
            return;
        }
        if coloured {
            let mut out = anstream::AutoStream::new(std::io::stdout().lock(), self.stdout);
            let _ = out.write_all(text.as_bytes());
        } else {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint(BOLD, text)
    }

    /// Something added (green).
    pub fn added(&self, text: &str) -> String {
        self.paint(GREEN, text)
    }

    /// Something removed (red).
    pub fn removed(&self, text: &str) -> String {
        self.paint(RED, text)
    }

    /// Something a reviewer must look at (yellow).
    pub fn flagged(&self, text: &str) -> String {
        self.paint(YELLOW, text)
    }

    /// Print a value as pretty JSON to standard output.
    pub fn json<T: Serialize>(&self, value: &T) {
        let mut out = std::io::stdout().lock();
        if serde_json::to_writer_pretty(&mut out, value).is_ok() {
            let _ = writeln!(out);
        }
    }

    /// A command's result, shown once: its text for people, or its JSON (the result's
    /// fields beside `"ok": true`) for machines.
    pub fn render<R: Render>(&self, result: &R) {
        if self.is_json() {
            #[derive(Serialize)]
            struct Ok<'r, R> {
                ok: bool,
                #[serde(flatten)]
                result: &'r R,
            }
            self.json(&Ok { ok: true, result });
        } else {
            result.text(self);
        }
    }

    /// A result that says itself whether it is a success (its own `ok`): validate's
    /// report, whichever way it went.
    pub fn show<R: Render>(&self, result: &R) {
        if self.is_json() {
            self.json(result);
        } else {
            result.text(self);
        }
    }

    /// Why data was rejected (every diagnostic, as text or JSON), and that nothing was
    /// written.
    fn rejected(&self, report: &Report) {
        if self.is_json() {
            self.json(&RejectedJson::of(report, None));
        } else {
            self.diagnostics(report);
            self.line(format!(
                "{} {}; nothing was written",
                self.bold("rejected:"),
                count_text(report.error_count(), report.warning_count())
            ));
        }
    }

    /// Every diagnostic of a report, as [`Output::diagnostics_of`] shows them.
    pub fn diagnostics(&self, report: &Report) {
        self.diagnostics_of(&report.diagnostics);
    }

    /// Diagnostics as text, grouped by table (or by file when they concern no table).
    pub fn diagnostics_of(&self, diagnostics: &[Diagnostic]) {
        let mut groups: Vec<(String, Vec<&Diagnostic>)> = Vec::new();
        for d in diagnostics {
            let group = match (&d.location.table, &d.location.file) {
                (Some(table), _) => format!("table {table}"),
                (None, Some(file)) => file.display().to_string(),
                (None, None) => "general".to_string(),
            };
            match groups.iter_mut().find(|(g, _)| *g == group) {
                Some((_, list)) => list.push(d),
                None => groups.push((group, vec![d])),
            }
        }
        let mut out = String::new();
        for (group, list) in groups {
            let errors = list.iter().filter(|d| d.is_error()).count();
            let warnings = list.len() - errors;
            let counts = count_text(errors, warnings);
            out.push_str(&format!(
                "{} {}\n",
                self.paint(BOLD, &group),
                self.paint(DIM, &format!("({counts})"))
            ));
            for d in list {
                out.push_str(&self.diagnostic(d));
            }
            out.push('\n');
        }
        self.write_out(&out);
    }

    fn diagnostic(&self, d: &Diagnostic) -> String {
        let (label, style) = match d.severity {
            Severity::Error => ("error", RED),
            Severity::Warning => ("warning", YELLOW),
        };
        let mut place = d.location.place();
        match (&d.location.field, &d.location.key) {
            (Some(field), Some(key)) => place.push_str(&format!(" ({field}, key {key})")),
            (Some(field), None) => place.push_str(&format!(" ({field})")),
            _ => {}
        }
        let mut text = format!(
            "  {}{} {}: {}\n",
            self.paint(style, label),
            self.paint(DIM, &format!("[{}]", d.code)),
            place.trim(),
            d.message
        );
        // A translation unit's text is not in any cell the reader could look at: show it.
        if let (Some(found), Some(_), None, None) =
            (&d.found, &d.location.key, &d.location.cell, d.location.line)
        {
            text.push_str(&format!("      {} {found}\n", self.paint(DIM, "found:")));
        }
        if let Some(expected) = &d.expected {
            text.push_str(&format!(
                "      {} {expected}\n",
                self.paint(DIM, "expected:")
            ));
        }
        if let Some(hint) = &d.hint {
            text.push_str(&format!("      {} {hint}\n", self.paint(CYAN, "hint:")));
        }
        text
    }

    /// Say why a command failed, on standard error (or as JSON on standard output).
    pub fn failure(&self, failure: &Failure) {
        match failure {
            Failure::InvalidSchema(report) => {
                let what = invalid_structure(report);
                if self.is_json() {
                    self.json(&RejectedJson::of(report, Some(what)));
                } else {
                    self.diagnostics(report);
                    self.error_line(&format!(
                        "{} {what} ({})",
                        self.paint(RED, "error:"),
                        count_text(report.error_count(), report.warning_count())
                    ));
                }
            }
            Failure::Rejected(report) => self.rejected(report),
            Failure::Shown | Failure::ShownRefused => {}
            Failure::Invalid { message, hint }
            | Failure::Usage { message, hint }
            | Failure::Environment { message, hint } => {
                if self.is_json() {
                    self.json(&FailedJson {
                        error: message,
                        hint: hint.as_deref(),
                        ok: false,
                    });
                } else {
                    self.error_line(&format!("{} {message}", self.paint(RED, "error:")));
                    if let Some(hint) = hint {
                        self.error_line(&format!("  {} {hint}", self.paint(CYAN, "hint:")));
                    }
                }
            }
        }
    }
}

/// Files read so far, as a bar. [`FileProgress::file_done`] is called once per file from
/// any thread: the bar counts up by one each time, so calls arriving out of order never
/// make it count backwards.
pub struct FileProgress {
    bar: indicatif::ProgressBar,
    shown: bool,
    drawn: std::sync::Once,
}

impl FileProgress {
    pub fn file_done(&self, total: usize) {
        if total < 2 {
            return;
        }
        self.drawn.call_once(|| {
            self.bar.set_length(total as u64);
            if self.shown {
                self.bar
                    .set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
        });
        self.bar.inc(1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// What a rejected structure is, by where its errors are: `masterctl.toml is not
/// valid`, `the schema files are not valid`, or both.
fn invalid_structure(report: &Report) -> &'static str {
    let (mut config, mut schemas) = (false, false);
    for d in report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
    {
        let in_config = d
            .location
            .file
            .as_deref()
            .and_then(std::path::Path::file_name)
            .is_some_and(|name| name == "masterctl.toml");
        if in_config {
            config = true;
        } else {
            schemas = true;
        }
    }
    match (config, schemas) {
        (true, false) => "masterctl.toml is not valid",
        (true, true) => "masterctl.toml and the schema files are not valid",
        _ => "the schema files are not valid",
    }
}

/// `1 file`, `3 files`: a count with its word, singular or plural (an added `s`).
pub fn counted(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `3 errors, 1 warning`
pub fn count_text(errors: usize, warnings: usize) -> String {
    let plural = counted;
    match (errors, warnings) {
        (0, 0) => "no problems".to_string(),
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

/// Where a colour painted by [`Output::paint`] ends its parameters.
const COLOUR_END: char = '\u{e001}';

/// What starts a colour painted by this process: a private-use character and a number
/// drawn when the process starts. Text from files, cells or commits was written before
/// and cannot hold it, so [`terminal_safe`] tells painted colours from data.
fn colour_marker() -> &'static str {
    static MARKER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    MARKER.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        format!("\u{e000}{random:016x}")
    })
}

/// The escape sequence of a style [`Output::paint`] marked: its index in [`STYLES`], or
/// [`RESET`].
fn painted_sequence(mark: &str) -> Option<String> {
    if mark == RESET {
        return Some(anstyle::Reset.render().to_string());
    }
    let style = STYLES.get(mark.parse::<usize>().ok()?)?;
    Some(style.render().to_string())
}

/// Whether `c` reaches a terminal only as an escape: control characters other than line
/// feed and tab (cursor moves, colours and concealment, window titles), and the
/// bidirectional controls and line separators that make a line read otherwise than it
/// is (U+202E turns the rest of a line around).
fn unsafe_on_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Text for a terminal: every control or bidirectional character from a file name, a
/// cell or a commit is written as an escape (`\u{1b}`), escape sequences included
/// (colours, concealment, cursor moves, titles); line breaks and tabs pass, and the
/// colours this process painted ([`Output::paint`]) become their sequences on a
/// `coloured` stream and are left out on another (nothing to strip afterwards).
pub fn terminal_safe(text: &str, coloured: bool) -> std::borrow::Cow<'_, str> {
    let marker = colour_marker();
    if !text.contains(unsafe_on_terminal) && !text.contains(marker) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some(painted) = rest.strip_prefix(marker)
            && let Some(end) = painted.find(COLOUR_END)
            && let Some(sequence) = painted_sequence(&painted[..end])
        {
            if coloured {
                out.push_str(&sequence);
            }
            rest = &painted[end + COLOUR_END.len_utf8()..];
            continue;
        }
        if unsafe_on_terminal(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    #[test]
    fn terminals_see_no_control_sequences_but_our_colours() {
        assert_eq!(terminal_safe("plain\tline\n", true), "plain\tline\n");
        // Colours from data never pass: not even a plain SGR (ESC[8m conceals the rest).
        assert_eq!(
            terminal_safe("\u{1b}[1mbold\u{1b}[0m", true),
            "\\u{1b}[1mbold\\u{1b}[0m"
        );
        assert_eq!(terminal_safe("a\u{1b}[8mhidden", true), "a\\u{1b}[8mhidden");
        assert_eq!(terminal_safe("abc\u{202e}fed", true), "abc\\u{202e}fed");
        // Ours do, and only when painted by this process.
        let marker = super::colour_marker();
        let painted = format!("{marker}0\u{e001}bold{marker}r\u{e001}");
        assert_eq!(terminal_safe(&painted, true), "\u{1b}[1mbold\u{1b}[0m");
        let red = format!("{marker}2\u{e001}error:{marker}r\u{e001}");
        assert_eq!(
            terminal_safe(&red, true),
            "\u{1b}[1m\u{1b}[31merror:\u{1b}[0m"
        );
        let unknown = format!("{marker}99\u{e001}x");
        assert_eq!(
            terminal_safe(&unknown, true),
            unknown,
            "no style of that index"
        );
        // An uncoloured stream gets the text without the colours, data still escaped.
        let mixed = format!("{marker}2\u{e001}error:{marker}r\u{e001} a\u{1b}[8m");
        assert_eq!(terminal_safe(&mixed, false), "error: a\\u{1b}[8m");
        let forged = "\u{e000}0000000000000000".to_string() + "8\u{e001}x";
        assert_eq!(terminal_safe(&forged, true), forged);
        assert_eq!(terminal_safe("a\u{1b}[2Jb", true), "a\\u{1b}[2Jb");
        assert_eq!(
            terminal_safe("x\u{1b}]0;title\u{7}", true),
            "x\\u{1b}]0;title\\u{7}"
        );
        assert_eq!(terminal_safe("\r\u{9b}", true), "\\u{d}\\u{9b}");
    }
}

/// Rejected data as JSON: every diagnostic and the counts (`error` says what, for broken
/// schema files). Fields in the order JSON objects print (by name).
#[derive(Serialize)]
struct RejectedJson<'a> {
    diagnostics: &'a [Diagnostic],
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    errors: usize,
    ok: bool,
    warnings: usize,
}

impl<'a> RejectedJson<'a> {
    fn of(report: &'a Report, error: Option<&'a str>) -> RejectedJson<'a> {
        RejectedJson {
            diagnostics: &report.diagnostics,
            error,
            errors: report.error_count(),
            ok: false,
            warnings: report.warning_count(),
        }
    }
}

/// A failure as JSON: what went wrong, and what to do (`null` when nothing is said).
#[derive(Serialize)]
struct FailedJson<'a> {
    error: &'a str,
    hint: Option<&'a str>,
    ok: bool,
}
