//! A forgiving Luau tokenizer: the REPL's editing comforts (syntax colours,
//! matching brackets, knowing whether the cursor sits in a string or comment,
//! where completion should stay quiet) and the tokens `test --mutate` changes.
//!
//! It never fails: unfinished strings and comments run to the end of the
//! input, which is exactly what a person sees while still typing them.
//! Whether a chunk is complete is decided by the Luau compiler, not here.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Keyword,
    Ident,
    Number,
    String,
    Comment,
    Punct,
    Space,
}

/// A token: its kind and byte range in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

pub const KEYWORDS: &[&str] = &[
    "and", "break", "continue", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil",
    "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// The level of a long bracket opening at `s[i..]` (`[[` is 0, `[==[` is 2).
fn long_open(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'[') {
        return None;
    }
    let mut j = i + 1;
    while s.get(j) == Some(&b'=') {
        j += 1;
    }
    (s.get(j) == Some(&b'[')).then_some(j - i - 1)
}

/// The end (exclusive) of a long bracket body closing at level `level`, searching from `from`.
fn long_close(s: &[u8], from: usize, level: usize) -> usize {
    let mut i = from;
    while i < s.len() {
        if s[i] == b']' {
            let mut j = i + 1;
            while j < s.len() && s[j] == b'=' {
                j += 1;
            }
            if j - i - 1 == level && s.get(j) == Some(&b']') {
                return j + 1;
            }
        }
        i += 1;
    }
    s.len()
}

fn quoted_end(s: &[u8], from: usize, quote: u8) -> usize {
    let mut i = from + 1;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 2,
            b'\n' if quote != b'`' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

/// Splits Luau source into tokens covering every byte.
pub fn tokens(src: &str) -> Vec<Token> {
    let s = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let start = i;
        let c = s[i];
        let kind = if c.is_ascii_whitespace() {
            while i < s.len() && s[i].is_ascii_whitespace() {
                i += 1;
            }
            Kind::Space
        } else if c == b'-' && s.get(i + 1) == Some(&b'-') {
            i = match long_open(s, i + 2) {
                Some(level) => long_close(s, i + 4 + level, level),
                None => s[i..].iter().position(|&b| b == b'\n').map_or(s.len(), |p| i + p),
            };
            Kind::Comment
        } else if let Some(level) = long_open(s, i) {
            i = long_close(s, i + 2 + level, level);
            Kind::String
        } else if c == b'"' || c == b'\'' || c == b'`' {
            i = quoted_end(s, i, c);
            Kind::String
        } else if c.is_ascii_digit() || (c == b'.' && s.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            i += 1;
            while i < s.len() {
                let d = s[i];
                let exp_sign =
                    (d == b'+' || d == b'-') && matches!(s[i - 1], b'e' | b'E') && !src[start..i].starts_with("0x");
                if d.is_ascii_alphanumeric() || d == b'_' || d == b'.' || exp_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            Kind::Number
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_' || s[i] >= 0x80) {
                i += 1;
            }
            if KEYWORDS.contains(&&src[start..i]) {
                Kind::Keyword
            } else {
                Kind::Ident
            }
        } else {
            i += 1;
            while i < s.len() && !src.is_char_boundary(i) {
                i += 1;
            }
            Kind::Punct
        };
        // Keep every token on character boundaries.
        while i < s.len() && !src.is_char_boundary(i) {
            i += 1;
        }
        out.push(Token { kind, start, end: i.min(s.len()) });
    }
    out
}

/// True when byte offset `pos` is inside a string or a comment (or just
/// after an unfinished one).
pub fn in_string_or_comment(src: &str, pos: usize) -> bool {
    tokens(src).iter().any(|t| {
        matches!(t.kind, Kind::String | Kind::Comment)
            && t.start < pos
            && (pos < t.end || (t.end == src.len() && !closed(src, t)))
    })
}

fn closed(src: &str, t: &Token) -> bool {
    let text = &src[t.start..t.end];
    match t.kind {
        Kind::Comment => {
            let body = &text[2..];
            match long_open(body.as_bytes(), 0) {
                Some(level) => text.len() >= 4 + 2 * level + 2 && text.ends_with(&format!("]{}]", "=".repeat(level))),
                None => false,
            }
        }
        Kind::String => {
            let b = text.as_bytes();
            match b[0] {
                q @ (b'"' | b'\'' | b'`') => {
                    b.len() >= 2 && b[b.len() - 1] == q && !text[..text.len() - 1].ends_with('\\')
                }
                _ => {
                    let level = long_open(b, 0).unwrap_or(0);
                    text.len() >= 4 + 2 * level && text.ends_with(&format!("]{}]", "=".repeat(level)))
                }
            }
        }
        _ => true,
    }
}

/// The byte offset of the bracket matching the one at `at`, skipping
/// brackets inside strings and comments.
pub fn matching_bracket(src: &str, at: usize) -> Option<usize> {
    let toks = tokens(src);
    let brackets: Vec<(usize, u8)> = toks
        .iter()
        .filter(|t| t.kind == Kind::Punct && t.end == t.start + 1)
        .map(|t| (t.start, src.as_bytes()[t.start]))
        .filter(|(_, b)| b"()[]{}".contains(b))
        .collect();
    let me = brackets.iter().position(|(i, _)| *i == at)?;
    let (_, b) = brackets[me];
    let (open, close, forward) = match b {
        b'(' => (b'(', b')', true),
        b'[' => (b'[', b']', true),
        b'{' => (b'{', b'}', true),
        b')' => (b'(', b')', false),
        b']' => (b'[', b']', false),
        _ => (b'{', b'}', false),
    };
    let mut depth = 0i32;
    let seq: Box<dyn Iterator<Item = &(usize, u8)>> =
        if forward { Box::new(brackets[me..].iter()) } else { Box::new(brackets[..=me].iter().rev()) };
    for &(i, c) in seq {
        if c == open {
            depth += if forward { 1 } else { -1 };
        } else if c == close {
            depth += if forward { -1 } else { 1 };
        }
        if depth == 0 {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Kind, &str)> {
        tokens(src).into_iter().filter(|t| t.kind != Kind::Space).map(|t| (t.kind, &src[t.start..t.end])).collect()
    }

    #[test]
    fn tokenizes_luau() {
        assert_eq!(
            kinds(r#"local x = dice.roll(3, "d6") -- roll"#),
            vec![
                (Kind::Keyword, "local"),
                (Kind::Ident, "x"),
                (Kind::Punct, "="),
                (Kind::Ident, "dice"),
                (Kind::Punct, "."),
                (Kind::Ident, "roll"),
                (Kind::Punct, "("),
                (Kind::Number, "3"),
                (Kind::Punct, ","),
                (Kind::String, "\"d6\""),
                (Kind::Punct, ")"),
                (Kind::Comment, "-- roll"),
            ]
        );
        assert_eq!(kinds("1e-3 + 0x1F"), vec![(Kind::Number, "1e-3"), (Kind::Punct, "+"), (Kind::Number, "0x1F")]);
        assert_eq!(kinds("--[[ a\nb ]] x"), vec![(Kind::Comment, "--[[ a\nb ]]"), (Kind::Ident, "x")]);
        assert_eq!(kinds("[==[ ]] ]==]"), vec![(Kind::String, "[==[ ]] ]==]")]);
        assert_eq!(kinds("'it\\'s'"), vec![(Kind::String, "'it\\'s'")]);
        assert_eq!(kinds("\"é\" ü"), vec![(Kind::String, "\"é\""), (Kind::Ident, "ü")]);
    }

    #[test]
    fn knows_strings_and_comments() {
        assert!(in_string_or_comment("print(\"wor", 10));
        assert!(!in_string_or_comment("print(\"a\") wor", 14));
        assert!(in_string_or_comment("x -- wor", 8));
        assert!(!in_string_or_comment("--[[ a ]] wor", 13));
    }

    #[test]
    fn matches_brackets_outside_strings() {
        let src = "f(a, \")\", {b[1]})";
        assert_eq!(matching_bracket(src, 1), Some(src.len() - 1));
        assert_eq!(matching_bracket(src, src.len() - 1), Some(1));
        assert_eq!(matching_bracket(src, 10), Some(15));
        assert_eq!(matching_bracket("f(", 1), None);
    }
}
