//! Errors that point into a file: YAML data (line and column) or a script
//! (line), rendered by miette with the offending source line.

use std::path::Path;

use miette::{Diagnostic, NamedSource, SourceSpan};

mod yaml;
pub use yaml::{read_text, yaml_error};

/// An error located in a source file.
#[derive(Clone, Debug, thiserror::Error, Diagnostic)]
#[error("{file}:{line}:{column}: {message}")]
pub struct LocatedError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("{label}")]
    pub span: SourceSpan,
    pub label: String,
    #[help]
    pub help: Option<String>,
}

impl LocatedError {
    /// Builds an error at a 1-based line and column of `source`.
    pub fn at(file: &Path, source: &str, line: usize, column: usize, message: impl Into<String>) -> LocatedError {
        let message = message.into();
        let offset = offset_of(source, line, column);
        let len = source[offset..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != ',' && *c != ']' && *c != '}')
            .map(char::len_utf8)
            .sum::<usize>()
            .max(1);
        let len = len.min(source.len().saturating_sub(offset)).max(if source.is_empty() { 0 } else { 1 });
        let (shown, span, help) = match excerpt(source, offset, len) {
            Some((text, span)) => {
                let help = format!(
                    "line {line} is too long to show whole ({} characters); shown here around column {column}",
                    line_at(source, offset).chars().count()
                );
                (text, span, Some(help))
            }
            None => (source.to_string(), (offset, len).into(), None),
        };
        LocatedError {
            file: file.display().to_string(),
            line,
            column,
            label: message.clone(),
            message,
            src: NamedSource::new(file.display().to_string(), shown),
            span,
            help,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Replaces the short label under the source line.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }
}

/// Lines longer than this many bytes are shown as an excerpt around the
/// error (miette cannot draw a label past column 65535, and a megabyte-long
/// line helps nobody).
const LONG_LINE: usize = 2000;

/// Characters shown either side of the error in an excerpt.
const AROUND: usize = 60;

/// The line of `source` holding byte `offset` (without its line end).
fn line_at(source: &str, offset: usize) -> &str {
    let start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = source[offset..].find('\n').map_or(source.len(), |i| offset + i);
    &source[start..end]
}

/// When the error sits on a very long line: that line cut to the text around
/// the error (with `…` where it was cut) and the span within it.
fn excerpt(source: &str, offset: usize, len: usize) -> Option<(String, SourceSpan)> {
    let line = line_at(source, offset);
    if line.len() <= LONG_LINE {
        return None;
    }
    let line_start = line.as_ptr() as usize - source.as_ptr() as usize;
    let at = offset - line_start;
    let before: usize = line[..at].chars().rev().take(AROUND).map(char::len_utf8).sum();
    let len = line[at..].chars().take(AROUND).map(char::len_utf8).sum::<usize>().min(len.max(1));
    let after: usize = line[at + len..].chars().take(AROUND).map(char::len_utf8).sum();
    let (from, to) = (at - before, at + len + after);
    let lead = if from > 0 { "…" } else { "" };
    let tail = if to < line.len() { "…" } else { "" };
    let text = format!("{lead}{}{tail}", &line[from..to]);
    Some((text, (lead.len() + before, len).into()))
}

/// Byte offset of a 1-based line and column (in characters), clamped to the text.
pub fn offset_of(source: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in source.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let col: usize = l.chars().take(column.saturating_sub(1)).map(char::len_utf8).sum();
            return (offset + col).min(source.len());
        }
        offset += l.len();
    }
    source.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_far_along_a_long_line_is_shown_as_an_excerpt() {
        let mut src = String::from("a: 1\nterrain: [");
        for _ in 0..20_000 {
            src.push_str("[1, 1], ");
        }
        src.push_str("[1, x]]\n");
        let column = src.lines().nth(1).map_or(0, |l| l.find('x').unwrap_or(0) + 1);
        assert!(column > 65_535);
        let e = LocatedError::at(Path::new("big.yaml"), &src, 2, column, "invalid number");
        assert_eq!(e.line, 2);
        assert_eq!(e.column, column);
        let shown = crate::lua::render_error(&e, false);
        assert!(shown.contains("[1, x]"), "{shown}");
        assert!(shown.contains("too long to show whole"), "{shown}");
        assert!(shown.len() < 2000, "{shown}");
    }

    #[test]
    fn offsets_count_lines_and_characters() {
        let src = "a: 1\nbé: 2\n";
        assert_eq!(offset_of(src, 1, 1), 0);
        assert_eq!(offset_of(src, 2, 1), 5);
        assert_eq!(offset_of(src, 2, 3), 8); // é is two bytes
        assert_eq!(offset_of(src, 9, 1), src.len());
    }
}
