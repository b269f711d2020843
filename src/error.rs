//! Errors that point into a file: YAML data (line and column) or a script
//! (line), rendered by miette with the offending source line.

use std::path::Path;

use miette::{Diagnostic, NamedSource, SourceSpan};

mod yaml;
pub use yaml::{read_text, yaml_error};

/// An error located in a source file.
#[derive(Debug, thiserror::Error, Diagnostic)]
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
        LocatedError {
            file: file.display().to_string(),
            line,
            column,
            label: message.clone(),
            message,
            src: NamedSource::new(file.display().to_string(), source.to_string()),
            span: (offset, len).into(),
            help: None,
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
    fn offsets_count_lines_and_characters() {
        let src = "a: 1\nbé: 2\n";
        assert_eq!(offset_of(src, 1, 1), 0);
        assert_eq!(offset_of(src, 2, 1), 5);
        assert_eq!(offset_of(src, 2, 3), 8); // é is two bytes
        assert_eq!(offset_of(src, 9, 1), src.len());
    }
}
