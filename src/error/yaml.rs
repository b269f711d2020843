//! YAML errors in the user's terms: what is wrong and where, for a person
//! editing a scenario or ruleset (not advice for a Rust caller of the parser).
//!
//! serde-saphyr's own messages speak Rust ("invalid i32", "set
//! DuplicateKeyPolicy", "use from_str_multiple", `budget breached: Nodes {..}`);
//! [`yaml_error`] turns each kind into a sentence about the file, keeping
//! the line and column. A bracket never closed is reported at the bracket
//! itself, since the parser only notices it lines later.

use std::path::Path;

use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::Error;

use super::{offset_of, LocatedError};

/// Reads a text file of at most [`crate::files::TEXT_LIMIT`] bytes. A byte that is not UTF-8 is reported at its own line
/// and column (the file is shown with it replaced); any other failure says
/// `cannot read {what}`.
pub fn read_text(path: &Path, what: &str) -> Result<String, Box<LocatedError>> {
    let bytes = crate::layers::files::read(path)
        .map_err(|e| Box::new(LocatedError::at(path, "", 1, 1, format!("cannot read {what}: {e}"))))?
        .into_owned();
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let good = e.utf8_error().valid_up_to();
        let before = String::from_utf8_lossy(&bytes[..good]);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let shown = String::from_utf8_lossy(bytes).into_owned();
        let message = format!("byte 0x{:02X} is not UTF-8 text", bytes[good]);
        Box::new(
            LocatedError::at(path, &shown, line, column, message)
                .with_help("save the file as UTF-8 (most editors: \"Save with encoding\" > UTF-8)"),
        )
    })
}

/// Turns a serde-saphyr error into a located error for `file`, worded for
/// the person editing it.
pub fn yaml_error(file: &Path, source: &str, err: &Error) -> LocatedError {
    let inner = innermost(err);
    let (line, column) = err
        .location()
        .or_else(|| inner.location())
        .map_or((1, 1), |l| (l.line().max(1) as usize, l.column().max(1) as usize));
    let (message, help) = describe(inner, source, line, column);
    let at = offset_of(source, line, column);
    if let Some(open) = unclosed_bracket(source).filter(|o| o.offset <= at) {
        let (close, what) = if open.ch == '{' { ('}', "mapping") } else { (']', "list") };
        let unclosed = format!("this `{}` is never closed: the {what} needs its `{close}`", open.ch);
        let (ol, oc) = line_column(source, open.offset);
        let e = LocatedError::at(file, source, ol, oc, unclosed);
        if (ol, oc) == (line, column) {
            return e;
        }
        return e.with_help(format!("reading on, the parser stopped at line {line}, column {column}: {message}"));
    }
    let e = LocatedError::at(file, source, line, column, message);
    match help {
        Some(h) => e.with_help(h),
        None => e,
    }
}

/// The innermost error: without the snippet or alias wrappers.
fn innermost(err: &Error) -> &Error {
    match err {
        Error::WithSnippet { error, .. } | Error::AliasError { error, .. } => innermost(error),
        other => other,
    }
}

/// What went wrong, in the file's terms, and an optional hint.
fn describe(err: &Error, source: &str, line: usize, column: usize) -> (String, Option<String>) {
    let text = value_text(source, line, column);
    let got = if text.is_empty() { String::new() } else { format!(", got `{text}`") };
    match err {
        Error::InvalidScalar { ty, .. } => {
            let (what, range) = scalar_words(ty);
            match (range, text.parse::<i128>()) {
                (Some((lo, hi)), Ok(n)) if n < lo || n > hi => {
                    (format!("{text} is out of range: expected {what} from {lo} to {hi}"), None)
                }
                _ => (format!("expected {what}{got}"), quote_hint(&text)),
            }
        }
        Error::Unexpected { expected, .. } => (format!("expected {}{got}", structure_words(expected)), None),
        Error::SerdeInvalidType { unexpected, expected, .. } => {
            (format!("expected {}, got {}", serde_words(expected), unexpected_words(unexpected)), None)
        }
        Error::SerdeInvalidValue { unexpected, expected, .. } => {
            (format!("expected {}, got {}", serde_words(expected), unexpected_words(unexpected)), None)
        }
        Error::SerdeInvalidLength { len, expected, .. } => {
            let items = if *len == 1 { "1 item".to_string() } else { format!("{len} items") };
            (format!("expected {}, got {items}", serde_words(expected)), None)
        }
        Error::SerdeUnknownField { field, expected, .. } => {
            let closest = expected
                .iter()
                .filter(|k| strsim::levenshtein(k, field) <= 2)
                .min_by_key(|k| strsim::levenshtein(k, field));
            let hint = closest.map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default();
            (format!("unknown key `{field}`{hint}; the keys here are: {}", expected.join(", ")), None)
        }
        Error::SerdeMissingField { field, .. } => (format!("missing key `{field}`"), None),
        Error::DuplicateMappingKey { key, .. } => {
            let key = key.clone().unwrap_or_else(|| text.trim_end_matches(':').to_string());
            let first =
                first_key(source, &key, line, column).map(|l| format!(" (first on line {l})")).unwrap_or_default();
            (format!("`{key}` is given twice in the same mapping{first}"), Some("keep one of them".into()))
        }
        Error::MultipleDocuments { .. } => (
            "a second YAML document starts here: the file must hold one".into(),
            Some("remove the `---` line (or split the file in two)".into()),
        ),
        Error::Budget { breach, .. } => (budget_words(breach), None),
        Error::Eof { .. } => ("the file ends in the middle of a value (a bracket or quote not closed?)".into(), None),
        Error::NonFiniteFloat { value, .. } => (format!("`{value}` is not a finite number"), None),
        other => (library_words(other), None),
    }
}

/// The library's own message, first line, without its position prefix.
fn library_words(err: &Error) -> String {
    let text = err.to_string();
    let first = text.lines().next().unwrap_or("invalid YAML");
    let message = first.strip_prefix("error: ").unwrap_or(first);
    let message = match message.split_once(": ") {
        Some((pos, rest)) if pos.starts_with("line ") && pos.contains(" column ") => rest,
        _ => message,
    };
    // The parser may also end with " at line L, column C"; we show the position ourselves.
    match message.rsplit_once(" at line ") {
        Some((text, pos)) if pos.contains(", column ") => text.to_string(),
        _ => message.to_string(),
    }
}

/// A Rust scalar type in words, with its integer range when it has one.
fn scalar_words(ty: &str) -> (&'static str, Option<(i128, i128)>) {
    match ty {
        "i8" => ("a whole number", Some((i8::MIN.into(), i8::MAX.into()))),
        "i16" => ("a whole number", Some((i16::MIN.into(), i16::MAX.into()))),
        "i32" => ("a whole number", Some((i32::MIN.into(), i32::MAX.into()))),
        "i64" => ("a whole number", Some((i64::MIN.into(), i64::MAX.into()))),
        "u8" => ("a whole number, 0 or more", Some((0, u8::MAX.into()))),
        "u16" => ("a whole number, 0 or more", Some((0, u16::MAX.into()))),
        "u32" => ("a whole number, 0 or more", Some((0, u32::MAX.into()))),
        "u64" | "usize" => ("a whole number, 0 or more", Some((0, u64::MAX.into()))),
        t if t.starts_with('i') || t.starts_with('u') => ("a whole number", None),
        "bool" | "boolean" => ("true or false", None),
        _ => ("a number", None),
    }
}

/// A hint when a number was quoted or split over lines.
fn quote_hint(text: &str) -> Option<String> {
    if text.contains(' ') && text.split_whitespace().next().is_some_and(|w| w.parse::<f64>().is_ok()) {
        return Some("a `,` or closing bracket may be missing after the number".into());
    }
    None
}

/// The parser's structural expectations in words.
fn structure_words(expected: &str) -> String {
    match expected {
        "sequence start" => "a list `[...]`".into(),
        "mapping start" => "a mapping `{ key: value }`".into(),
        "scalar" => "a single value".into(),
        other => other.to_string(),
    }
}

/// serde's "expected ..." phrases in words.
fn serde_words(expected: &str) -> String {
    if expected.starts_with("struct ") || expected == "a map" {
        return "a mapping `{ key: value }`".into();
    }
    if let Some(n) = expected.strip_prefix("an array of length ") {
        return format!("a list of {n} items");
    }
    match expected {
        "a sequence" => "a list `[...]`".into(),
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" => scalar_words(expected).0.into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" => "text".into(),
        "any valid JSON value" => "a value".into(),
        other => other.to_string(),
    }
}

/// serde's "got ..." phrases in words.
fn unexpected_words(unexpected: &str) -> String {
    match unexpected {
        "map" => "a mapping".into(),
        "sequence" => "a list".into(),
        "unit value" => "nothing (an empty value)".into(),
        other => other.to_string(),
    }
}

/// A budget breach as the person sees it: the file is too big or too deep.
fn budget_words(breach: &BudgetBreach) -> String {
    match breach {
        BudgetBreach::Nodes { nodes } => format!(
            "the file holds too many values to read safely (more than {}); is a list repeated by mistake?",
            nodes.saturating_sub(1)
        ),
        BudgetBreach::Depth { depth } => format!(
            "lists and mappings are nested too deeply to read safely (more than {} levels)",
            depth.saturating_sub(1)
        ),
        BudgetBreach::Events { events } => {
            format!("the file is too large to read safely (more than {} YAML items)", events.saturating_sub(1))
        }
        BudgetBreach::ScalarBytes { total_scalar_bytes } => {
            format!("the file holds too much text to read safely ({total_scalar_bytes} bytes of values)")
        }
        BudgetBreach::Documents { .. } => "a second YAML document starts here: the file must hold one".into(),
        BudgetBreach::Aliases { .. }
        | BudgetBreach::Anchors { .. }
        | BudgetBreach::AliasAnchorRatio { .. }
        | BudgetBreach::MergeKeys { .. } => {
            "too many YAML aliases (`*name`) or anchors (`&name`) to read safely: write the values out".into()
        }
        _ => "the file is too large or too complex to read safely".into(),
    }
}

/// The value written at a line and column, up to the end of its token.
fn value_text(source: &str, line: usize, column: usize) -> String {
    let at = offset_of(source, line, column);
    let rest = &source[at..];
    let end = rest.find([',', ']', '}', '\n', '#']).unwrap_or(rest.len());
    let text = rest[..end].trim();
    let mut out: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// The line of the first `key:` before a duplicate at `line`/`column`: in
/// block style at the same column, in flow style on the same line.
fn first_key(source: &str, key: &str, line: usize, column: usize) -> Option<usize> {
    let at = offset_of(source, line, column);
    let before = &source[..at];
    before
        .match_indices(key)
        .filter(|(i, _)| {
            let after = before[i + key.len()..].trim_start_matches([' ', '"', '\'']);
            let prev = before[..*i].trim_end_matches(['"', '\'']).chars().next_back();
            after.starts_with(':') && prev.is_none_or(|c| matches!(c, ' ' | '\t' | '\n' | '{' | ','))
        })
        .map(|(i, _)| line_column(source, i))
        .filter(|&(l, c)| c == column || l == line)
        .map(|(l, _)| l)
        .last()
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// A flow bracket that is opened and never closed.
#[derive(Debug, PartialEq)]
struct Open {
    offset: usize,
    ch: char,
}

/// Finds the first `{` or `[` that is never closed (a YAML flow collection
/// left open), skipping quoted text, comments and block scalars.
///
/// A heuristic used only after the parser failed: it tells "never closed"
/// apart from the confusing error the parser gives lines later.
fn unclosed_bracket(source: &str) -> Option<Open> {
    let mut stack: Vec<Open> = Vec::new();
    let mut never_closed: Vec<Open> = Vec::new();
    let mut block_indent: Option<usize> = None;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(min) = block_indent {
            if line.trim().is_empty() || indent > min {
                continue;
            }
            block_indent = None;
        }
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        let mut last_token = '\n'; // the last non-space character, '\n' at line start
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match quote {
                Some('"') if c == '\\' => {
                    chars.next();
                }
                Some(q) if c == q => {
                    if q == '\'' && chars.peek().is_some_and(|(_, n)| *n == '\'') {
                        chars.next();
                    } else {
                        quote = None;
                    }
                }
                Some(_) => {}
                None => {
                    let value_start = matches!(last_token, '\n' | '[' | '{' | ',')
                        || (matches!(last_token, ':' | '-' | '?') && prev.is_whitespace());
                    match c {
                        '#' if prev.is_whitespace() => break,
                        '"' | '\'' if value_start => quote = Some(c),
                        '{' | '[' if value_start || !stack.is_empty() => stack.push(Open { offset: start + i, ch: c }),
                        '}' | ']' if !stack.is_empty() => {
                            let want = if c == '}' { '{' } else { '[' };
                            if let Some(pos) = stack.iter().rposition(|o| o.ch == want) {
                                never_closed.extend(stack.drain(pos + 1..));
                                stack.pop();
                            }
                        }
                        '|' | '>' if stack.is_empty() && value_start => {
                            let rest = line[i + 1..].split('#').next().unwrap_or("").trim();
                            if rest.chars().all(|r| matches!(r, '+' | '-' | '0'..='9')) {
                                block_indent = Some(indent);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            if !c.is_whitespace() {
                last_token = c;
            }
            prev = c;
        }
    }
    never_closed.extend(stack);
    never_closed.into_iter().min_by_key(|o| o.offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_at(src: &str) -> Option<(usize, usize)> {
        unclosed_bracket(src).map(|o| line_column(src, o.offset))
    }

    #[test]
    fn finds_the_bracket_never_closed() {
        assert_eq!(open_at("a: { b: 1\nc: 2\n"), Some((1, 4)));
        assert_eq!(open_at("a: [1, {b: 2]\n"), Some((1, 8)));
        assert_eq!(open_at("a: { b: [1, 2] }\nc: [3]\n"), None);
        // quotes, comments, plain text and block scalars are not brackets
        assert_eq!(open_at("a: \"{\" # [\nb: it's [x\nc: '[''{'\n"), None);
        assert_eq!(open_at("d: >\n  text with { and [\ne: 1\n"), None);
        assert_eq!(open_at("f: { g: [1,\n  2] }\n"), None);
    }
}
