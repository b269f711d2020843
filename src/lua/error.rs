//! Script errors for people: the message, the script and line it came from
//! (shown with the source line by miette), and the Lua traceback.

use std::fmt;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};

use crate::error::LocatedError;

/// An error from running Lua or loading what it asked for.
///
/// Callers that must tell a budget or Ctrl-C from a script's own error match
/// on [`ScriptError::TimeLimit`] and [`ScriptError::Interrupted`], never on
/// the message text.
#[derive(Debug)]
pub enum ScriptError {
    /// Points into a file: a script line, or a YAML line and column.
    Located(Box<LocatedError>),
    /// No file to point at; `help` carries a traceback when there is one.
    Plain { message: String, help: Option<String> },
    /// The script (a command, a spec, a trial) ran longer than its time
    /// budget of `ms` milliseconds. Its message is written here, once.
    TimeLimit { ms: u64 },
    /// The person stopped the script (Ctrl-C).
    Interrupted,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScriptError::Located(l) => write!(f, "{l}"),
            ScriptError::Plain { message, .. } => f.write_str(message),
            ScriptError::TimeLimit { ms } => write!(
                f,
                "time limit: the script ran longer than its budget of {ms} ms (raise it with --time-limit or `limits: {{ time_ms: ... }}` in ruleset.yaml)"
            ),
            ScriptError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for ScriptError {}

/// A ruleset that does not load: a YAML error keeps its file, line and
/// column (one box when shown, not a box inside a message).
impl From<crate::ruleset::RulesetError> for ScriptError {
    fn from(e: crate::ruleset::RulesetError) -> ScriptError {
        match e {
            crate::ruleset::RulesetError::Located(l) => ScriptError::Located(l),
            other => ScriptError::plain(other.to_string()),
        }
    }
}

impl Diagnostic for ScriptError {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            ScriptError::Located(l) => l.help(),
            ScriptError::Plain { help, .. } => help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>),
            ScriptError::TimeLimit { .. } | ScriptError::Interrupted => None,
        }
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            ScriptError::Located(l) => l.source_code(),
            _ => None,
        }
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            ScriptError::Located(l) => l.labels(),
            _ => None,
        }
    }
}

impl ScriptError {
    pub fn plain(message: impl Into<String>) -> ScriptError {
        ScriptError::Plain { message: message.into(), help: None }
    }

    /// Wraps any diagnostic, keeping only its text.
    pub fn plain_diag(e: impl fmt::Display) -> ScriptError {
        ScriptError::plain(e.to_string())
    }

    /// The script location (file, line) the error points at, if any.
    pub fn location(&self) -> Option<(String, usize)> {
        match self {
            ScriptError::Located(l) => Some((l.file.clone(), l.line)),
            _ => None,
        }
    }

    /// The message without location or traceback.
    pub fn message(&self) -> String {
        match self {
            ScriptError::Located(l) => l.message.clone(),
            ScriptError::Plain { message, .. } => message.clone(),
            ScriptError::TimeLimit { .. } | ScriptError::Interrupted => self.to_string(),
        }
    }

    /// The help text (a traceback, a hint) to edit, for the kinds of error
    /// that carry one.
    pub fn help_mut(&mut self) -> Option<&mut Option<String>> {
        match self {
            ScriptError::Located(l) => Some(&mut l.help),
            ScriptError::Plain { help, .. } => Some(help),
            ScriptError::TimeLimit { .. } | ScriptError::Interrupted => None,
        }
    }

    /// Builds a located error from an mlua error, reading the script to show its line.
    pub fn from_lua(err: &mlua::Error) -> ScriptError {
        ScriptError::from_lua_with(err, None)
    }

    /// Like [`from_lua`](ScriptError::from_lua), with the source of an in-memory chunk (REPL input) by name.
    ///
    /// A [`ScriptError::TimeLimit`] or [`ScriptError::Interrupted`] that the
    /// host's guard wrapped into the mlua error (`Host::guarded`) comes back
    /// out as itself.
    pub fn from_lua_with(err: &mlua::Error, chunk: Option<(&str, &str)>) -> ScriptError {
        match err.downcast_ref::<ScriptError>() {
            Some(ScriptError::TimeLimit { ms }) => return ScriptError::TimeLimit { ms: *ms },
            Some(ScriptError::Interrupted) => return ScriptError::Interrupted,
            // A located error raised by an API call (a scenario file that does
            // not load, from `scenario(...)`): shown once, at its own file,
            // with the script's traceback as the way it was reached.
            Some(ScriptError::Located(l)) => {
                let mut l = l.clone();
                if l.help.is_none() {
                    l.help = split_error(err).1.map(|t| format!("reached from the script: {}", t.trim_end()));
                }
                return ScriptError::Located(l);
            }
            _ => {}
        }
        let (message, traceback) = split_error(err);
        let message = visible_controls(&message).into_owned();
        let traceback = traceback.map(|t| visible_controls(&t).into_owned());
        let located = find_location(&message).or_else(|| traceback.as_deref().and_then(find_location));
        let message_clean = strip_location(&message);
        if let Some((file, line)) = located {
            let source = match chunk {
                Some((name, src)) if name == file => Some(src.to_string()),
                _ => crate::layers::files::read_to_string(std::path::Path::new(&file)).ok().map(|s| s.into_owned()),
            };
            if let Some(source) = source {
                let syntax = is_syntax_error(err);
                let column =
                    syntax.then(|| syntax_column(&source, line, &message_clean)).flatten().unwrap_or_else(|| {
                        source
                            .lines()
                            .nth(line.saturating_sub(1))
                            .map(|l| l.len() - l.trim_start().len() + 1)
                            .unwrap_or(1)
                    });
                let shown = visible_controls(&source);
                let mut l = LocatedError::at(std::path::Path::new(&file), &shown, line, column, message_clean.clone())
                    .with_label("here");
                // A compile error has no call stack: its traceback would only show the loader.
                l.help = if syntax { None } else { traceback.map(|t| t.trim_end().to_string()) };
                return ScriptError::Located(Box::new(l));
            }
            return ScriptError::Plain { message: format!("{file}:{line}: {message_clean}"), help: traceback };
        }
        ScriptError::Plain { message: message_clean, help: traceback }
    }
}

/// Text as shown in an error (a message, the source under it): control
/// bytes other than tab and line ends as their Unicode pictures (`␛` for
/// ESC), one character for one, so a hostile file or string cannot send
/// escape sequences to the terminal.
fn visible_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let hidden = |i: usize, b: u8| {
        (b.is_ascii_control() && !matches!(b, b'\t' | b'\n' | b'\r'))
            || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
    };
    if !bytes.iter().enumerate().any(|(i, &b)| hidden(i, b)) {
        return text.into();
    }
    text.char_indices()
        .map(|(i, c)| match u8::try_from(c) {
            Ok(b) if hidden(i, b) => char::from_u32(0x2400 + u32::from(b).min(0x21)).unwrap_or('\u{FFFD}'),
            _ => c,
        })
        .collect::<String>()
        .into()
}

/// Whether the innermost error is Luau's parser rejecting the source.
fn is_syntax_error(err: &mlua::Error) -> bool {
    match err {
        mlua::Error::SyntaxError { .. } => true,
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => is_syntax_error(cause),
        _ => false,
    }
}

/// The 1-based column (in characters) of the token Luau's parser stopped at
/// on `line`, for the parse error `message`.
///
/// Luau knows the column but `lua_load` reports only `chunk:line: message`,
/// so the column is found again by compiling ever longer prefixes of the line
/// (no code runs): the token is where a prefix first gives the same error.
/// Candidates are the occurrences of the token the message names
/// (`got '='`), else every character. At end of input, the end of the line.
pub fn syntax_column(source: &str, line: usize, message: &str) -> Option<usize> {
    let lines: Vec<&str> = source.split('\n').collect();
    let text = *lines.get(line.checked_sub(1)?)?;
    if message.contains("got <eof>") {
        return Some(text.trim_end().chars().count() + 1);
    }
    let before: String = lines[..line - 1].iter().map(|l| format!("{l}\n")).collect();
    let compiler = mlua::chunk::Compiler::new();
    let same_error = |end: usize| -> bool {
        let prefix = format!("{before}{}", &text[..end]);
        super::chunk::compile_unnamed(&compiler, &prefix).err().and_then(|e| compile_error(&e))
            == Some((line, message.to_string()))
    };
    let token = message.rsplit_once("got '").and_then(|(_, rest)| rest.strip_suffix('\'')).filter(|t| !t.is_empty());
    let chars = |byte: usize| text[..byte].chars().count() + 1;
    if let Some(tok) = token {
        for (at, _) in text.match_indices(tok) {
            if same_error(at + tok.len()) {
                return Some(chars(at));
            }
        }
    }
    let ends: Vec<usize> = text.char_indices().map(|(i, c)| i + c.len_utf8()).collect();
    for end in ends {
        if same_error(end) {
            // The token ends here: step back to its start.
            let start = text[..end]
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
                .last()
                .map_or(end - text[..end].chars().last().map_or(1, char::len_utf8), |(i, _)| i);
            return Some(chars(start));
        }
    }
    None
}

/// The line and message of an error from `chunk::compile_unnamed`, whose
/// text is `LINE: message`.
fn compile_error(e: &mlua::Error) -> Option<(usize, String)> {
    let mlua::Error::SyntaxError { message, .. } = e else { return None };
    let (line, msg) = message.split_once(": ")?;
    Some((line.trim().parse().ok()?, msg.to_string()))
}

/// Splits an mlua error into its innermost message and any traceback.
fn split_error(err: &mlua::Error) -> (String, Option<String>) {
    match err {
        mlua::Error::CallbackError { traceback, cause } => {
            let (m, inner_tb) = split_error(cause);
            let tb = if traceback.is_empty() { None } else { Some(super::trim_traceback(traceback)) };
            (m, inner_tb.or(tb))
        }
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => {
            let (msg, tb) = match m.find("\nstack traceback:") {
                Some(i) => (m[..i].to_string(), Some(super::trim_traceback(&m[i + 1..]))),
                None => (m.clone(), None),
            };
            (cap_lines(&msg, 12), tb)
        }
        mlua::Error::MemoryError(_) => (
            "memory limit: the script needed more memory than its budget allows (raise it with --memory-limit or `limits: { memory_mb: ... }` in ruleset.yaml)".to_string(),
            None,
        ),
        mlua::Error::WithContext { context, cause } => {
            let (m, tb) = split_error(cause);
            (format!("{context}: {m}"), tb)
        }
        mlua::Error::BadArgument { to, pos, name, cause } => {
            let (m, tb) = split_error(cause);
            // Our API's own messages say what was wrong; only type mismatches need the position.
            if !matches!(**cause, mlua::Error::FromLuaConversionError { .. }) {
                return match to {
                    Some(f) if !m.starts_with(f.as_str()) => (format!("{f}: {m}"), tb),
                    _ => (m, tb),
                };
            }
            let which = name.as_ref().map_or(format!("#{pos}"), |n| format!("#{pos} ({n})"));
            let f = to.as_deref().map(|f| format!(" to '{f}'")).unwrap_or_default();
            (format!("bad argument {which}{f}: {m}"), tb)
        }
        mlua::Error::FromLuaConversionError { from, to, message } => (
            format!("expected {to}, got {from}{}", message.as_ref().map(|m| format!(" ({m})")).unwrap_or_default()),
            None,
        ),
        other => (other.to_string(), None),
    }
}

/// Caps a message at `n` lines (an error object can be enormous).
fn cap_lines(text: &str, n: usize) -> String {
    let text = cap_bytes(text);
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= n {
        return text.to_string();
    }
    format!("{}\n... ({} more lines)", lines[..n].join("\n"), lines.len() - n)
}

/// Longest error message shown, in bytes: a script may raise an error of
/// any size, and laying out a huge one for the terminal takes many times its size.
const MAX_ERROR_BYTES: usize = 4096;

/// The message cut to [`MAX_ERROR_BYTES`] (at a character boundary), saying how much was left out.
fn cap_bytes(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_ERROR_BYTES {
        return text.into();
    }
    let mut end = MAX_ERROR_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} more bytes)", &text[..end], text.len() - end).into()
}

/// Finds the first `file:line:` in a message or traceback whose file is a script.
pub fn find_location(text: &str) -> Option<(String, usize)> {
    for line in text.lines() {
        let line = line.trim_start();
        let mut search = line;
        while let Some(i) = search.find(':') {
            let (file, rest) = search.split_at(i);
            let digits: String = rest[1..].chars().take_while(|c| c.is_ascii_digit()).collect();
            let file = file.trim_start_matches("[string \"").trim_end_matches("\"]").trim();
            let plausible = !file.is_empty()
                && !file.contains(' ')
                && file != "sandtable"
                && !file.starts_with('[')
                && (file.ends_with(".lua")
                    || file.ends_with(".luau")
                    || file == "repl"
                    || file.starts_with("repl#")
                    || file.starts_with("stdin"));
            if !digits.is_empty() && rest[1 + digits.len()..].starts_with(':') && plausible {
                return digits.parse().ok().map(|n| (file.to_string(), n));
            }
            if !digits.is_empty() && rest.len() == 1 + digits.len() && plausible {
                return digits.parse().ok().map(|n| (file.to_string(), n));
            }
            search = &search[i + 1..];
        }
    }
    None
}

/// Drops the `file:line: ` prefixes Lua puts on a message (an error rethrown
/// through nested coroutines carries one per level).
fn strip_location(message: &str) -> String {
    let mut rest = message;
    while let Some((file, line)) = find_location(rest) {
        match rest.strip_prefix(&format!("{file}:{line}: ")) {
            Some(r) => rest = r,
            None => break,
        }
    }
    rest.to_string()
}

/// Renders any diagnostic the way the CLI and REPL show it (colours only on a terminal).
pub fn render_error(diag: &dyn Diagnostic, color: bool) -> String {
    let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    let mut out = String::new();
    if handler.render_report(&mut out, diag).is_err() {
        return diag.to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_script_locations() {
        assert_eq!(find_location("rules/a.lua:12: boom"), Some(("rules/a.lua".into(), 12)));
        assert_eq!(
            find_location("stack traceback:\n\t[C]: in ?\n\tspec/x.lua:7: in function 'f'"),
            Some(("spec/x.lua".into(), 7))
        );
        assert_eq!(find_location("repl:1: attempt to call a nil value"), Some(("repl".into(), 1)));
        assert_eq!(find_location("no location here: 12"), None);
    }

    fn column_of(src: &str) -> Option<usize> {
        let e = super::super::chunk::compile_unnamed(&mlua::chunk::Compiler::new(), src).err().expect("a syntax error");
        let (line, m) = compile_error(&e).expect("LINE: message");
        syntax_column(src, line, &m)
    }

    #[test]
    fn syntax_errors_point_at_the_token() {
        assert_eq!(column_of("local x = = 1"), Some(11));
        assert_eq!(column_of("x = 1 + * 3"), Some(9));
        assert_eq!(column_of("local a = 1\nlocal b = (2 +\nprint(a))) "), Some(10));
    }
}
