//! Mutants of a module's Luau source: one token (or one statement) changed
//! at a time, found with the REPL's forgiving tokenizer (`lua::lexer`).
//!
//! What changes: comparisons (`<` to `<=` and to `>`, `==` to `~=`, ...),
//! arithmetic (`+`/`-`, `*`/`/`, `//`, `%`, `^`), a concatenation given an
//! extra piece, `#t` one short, a unary minus dropped, numbers (integers one
//! step each way, decimals to 0 and doubled), a string compared with `==` or
//! `~=` made one no value holds, `true`/`false`, `and`/`or`, `not` removed,
//! `math.min`/`math.max` swapped, a guard clause's `return` removed, and a
//! call or assignment statement removed. Never the level argument of
//! `error`/`violation` or the text of `world:note(...)`, which no rule reads.

use crate::lua::lexer::{self, Kind, Token};

/// What a Lua mutant changes: a rule, or only the text of a message (an
/// error, a rule violation, a prompt, a print).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    Code,
    Message,
}

/// One change to a Luau source: the bytes `start..end` become `with`.
#[derive(Clone, Debug, PartialEq)]
pub struct LuaMutant {
    pub line: u32,
    pub col: u32,
    pub change: String,
    pub start: usize,
    pub end: usize,
    pub with: String,
    pub reach: Reach,
}

impl LuaMutant {
    /// The whole mutated source.
    pub fn apply(&self, src: &str) -> String {
        format!("{}{}{}", &src[..self.start], self.with, &src[self.end..])
    }
}

/// The source's tokens without spaces and comments.
struct Toks<'a> {
    src: &'a str,
    t: Vec<Token>,
}

impl<'a> Toks<'a> {
    fn new(src: &'a str) -> Self {
        let t = lexer::tokens(src).into_iter().filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment)).collect();
        Toks { src, t }
    }
    fn text(&self, i: usize) -> &'a str {
        self.t.get(i).map_or("", |t| &self.src[t.start..t.end])
    }
    fn len(&self) -> usize {
        self.t.len()
    }
    /// Whether tokens `i` and `i + 1` touch (`<` `=` is `<=`).
    fn touch(&self, i: usize) -> bool {
        self.t.get(i + 1).is_some_and(|n| n.start == self.t[i].end && n.kind == Kind::Punct)
    }
    /// Whether a line break lies between tokens `i - 1` and `i`.
    fn starts_line(&self, i: usize) -> bool {
        i == 0 || self.src[self.t[i - 1].end..self.t[i].start].contains('\n')
    }
    /// True when token `i` ends an operand, so a `-` or `+` after it is binary.
    fn ends_operand(&self, i: usize) -> bool {
        let s = self.text(i);
        match self.t[i].kind {
            Kind::Number | Kind::Ident | Kind::String => true,
            Kind::Keyword => matches!(s, "true" | "false" | "nil"),
            Kind::Punct => matches!(s, ")" | "]" | "}"),
            _ => false,
        }
    }
    /// The index of the bracket closing the one at `i`.
    fn close(&self, i: usize) -> Option<usize> {
        let mut depth = 0usize;
        for j in i..self.len() {
            match self.text(j) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }
    /// The end (exclusive) of a suffixed expression starting at `i` (a name
    /// or a parenthesised expression, then `.name`, `[k]`, `:m(...)` and
    /// calls), and whether its last suffix is a call.
    fn suffixed_end(&self, i: usize) -> Option<(usize, bool)> {
        let mut j = match (self.t.get(i)?.kind, self.text(i)) {
            (Kind::Ident, _) => i + 1,
            (_, "(") => self.close(i)? + 1,
            _ => return None,
        };
        let mut call = false;
        loop {
            match self.text(j) {
                "." if self.t.get(j + 1).is_some_and(|t| t.kind == Kind::Ident) && !self.touch_dot(j) => {
                    j += 2;
                    call = false;
                }
                ":" if self.t.get(j + 1).is_some_and(|t| t.kind == Kind::Ident) => {
                    j = self.call_args_end(j + 2)?;
                    call = true;
                }
                "[" => {
                    j = self.close(j)? + 1;
                    call = false;
                }
                "(" | "{" if !self.starts_line(j) => {
                    j = self.call_args_end(j)?;
                    call = true;
                }
                _ if self.t.get(j).is_some_and(|t| t.kind == Kind::String) && !self.starts_line(j) => {
                    j += 1;
                    call = true;
                }
                _ => return Some((j, call)),
            }
        }
    }
    /// Whether the `.` at `j` is part of `..` or `...`.
    fn touch_dot(&self, j: usize) -> bool {
        self.touch(j) && self.text(j + 1) == "."
    }
    /// The end (exclusive) of call arguments starting at `j`: `(...)`, `{...}` or a string.
    fn call_args_end(&self, j: usize) -> Option<usize> {
        match self.text(j) {
            "(" | "{" => Some(self.close(j)? + 1),
            _ if self.t.get(j)?.kind == Kind::String => Some(j + 1),
            _ => None,
        }
    }
    /// The end (exclusive) of the expression of an assignment's right side
    /// starting at `j`: at depth 0, the first token that starts a line after
    /// a token that cannot continue an expression, a `;`, a block keyword.
    fn expression_end(&self, j: usize) -> usize {
        let mut depth = 0i32;
        let mut k = j;
        while k < self.len() {
            let s = self.text(k);
            let kw = self.t[k].kind == Kind::Keyword;
            if depth == 0 && k > j {
                let continues = matches!(
                    self.text(k - 1),
                    "+" | "-" | "*" | "/" | "%" | "^" | "." | "=" | "<" | ">" | "," | "and" | "or" | "not" | "#"
                );
                if (kw && matches!(s, "end" | "else" | "elseif" | "until" | "then" | "do"))
                    || s == ";"
                    || (self.starts_line(k) && !continues && !matches!(s, "and" | "or" | ".." | "."))
                {
                    return k;
                }
            }
            match s {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                "function" | "if" | "do" | "repeat" if kw => depth += 1,
                "end" | "until" if kw => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return k;
            }
            k += 1;
        }
        k
    }
}

/// The mutants found so far, placed by line and column.
struct Out<'a> {
    src: &'a str,
    /// Byte offset of each line's start.
    lines: Vec<usize>,
    message: Vec<bool>,
    list: Vec<LuaMutant>,
}

impl Out<'_> {
    /// A mutant of token `i`'s statement: bytes `start..end` become `with`.
    fn push(&mut self, i: usize, start: usize, end: usize, with: String, change: String) {
        let line = self.lines.partition_point(|&l| l <= start);
        let col = self.src[self.lines[line - 1]..start].chars().count() as u32 + 1;
        let reach = if self.message[i] { Reach::Message } else { Reach::Code };
        self.list.push(LuaMutant { line: line as u32, col, change, start, end, with, reach });
    }

    /// The same token's text swapped for `to`.
    fn swap(&mut self, i: usize, start: usize, end: usize, to: &str) {
        let change = format!("`{}` -> `{to}`", &self.src[start..end]);
        self.push(i, start, end, to.to_string(), change);
    }
}

/// Every mutant of a Luau source, in source order. Mutants that no longer
/// compile are left out by [`compiles`], not here.
pub fn lua_mutants(src: &str) -> Vec<LuaMutant> {
    let toks = Toks::new(src);
    let quiet = call_arguments(&toks, &["note"]);
    let nested = bracketed(&toks);
    let lines = std::iter::once(0).chain(src.match_indices('\n').map(|(p, _)| p + 1)).collect();
    let mut out = Out { src, lines, message: message_parts(&toks), list: Vec::new() };
    let mut i = 0;
    while i < toks.len() {
        if quiet[i] {
            i += 1;
            continue;
        }
        if toks.starts_line(i) && !nested[i] {
            if let Some((end, what)) = statement(&toks, i).filter(|&(end, _)| !is_note(&toks, end)) {
                let (a, b) = (toks.t[i].start, toks.t[end - 1].end);
                let lines = "\n".repeat(src[a..b].matches('\n').count());
                out.push(i, a, b, lines, format!("{what} removed: `{}`", short(&src[a..b])));
            }
        }
        i += match toks.t[i].kind {
            Kind::Punct => operator(&toks, i, &mut out),
            _ => {
                word(&toks, i, &mut out);
                1
            }
        };
    }
    out.list
}

/// The mutants of an operator at token `i`; how many tokens it spans.
fn operator(toks: &Toks, i: usize, out: &mut Out) -> usize {
    let t = toks.t[i];
    let s = toks.text(i);
    let next = toks.touch(i).then(|| toks.text(i + 1));
    let binary = i > 0 && toks.ends_operand(i - 1);
    let (two, one) = ((t.start, t.end + 1), (t.start, t.end));
    let mut width = 1;
    let mut ops: Vec<((usize, usize), &str)> = Vec::new();
    match (s, next) {
        ("=", Some("=")) => {
            ops.push((two, "~="));
            width = 2;
        }
        ("~", Some("=")) => {
            ops.push((two, "=="));
            width = 2;
        }
        ("<", Some("=")) => {
            ops.extend([(two, "<"), (two, ">=")]);
            width = 2;
        }
        (">", Some("=")) => {
            ops.extend([(two, ">"), (two, "<=")]);
            width = 2;
        }
        ("<", _) => ops.extend([(one, "<="), (one, ">")]),
        (">", _) => ops.extend([(one, ">="), (one, "<")]),
        ("-", Some(">")) => width = 2, // a function type's arrow
        ("+", _) if binary => ops.push((one, "-")),
        ("-", _) if binary => ops.push((one, "+")),
        // Unary minus: the operand keeps its sign.
        ("-", _)
            if toks.t.get(i + 1).is_some_and(|n| matches!(n.kind, Kind::Number | Kind::Ident))
                || toks.text(i + 1) == "(" =>
        {
            out.push(i, t.start, t.end, String::new(), "unary `-` removed".into());
        }
        ("*", _) if binary => ops.push((one, "/")),
        ("/", Some("/")) => {
            ops.push((two, "/"));
            width = 2;
        }
        ("/" | "%" | "^", _) if binary => ops.push((one, "*")),
        (".", Some(".")) => {
            width = 2;
            let vararg = toks.touch(i + 1) && toks.text(i + 2) == ".";
            let compound = toks.touch(i + 1) && toks.text(i + 2) == "=";
            if vararg {
                width = 3;
            } else if !compound {
                out.push(i, t.start, t.end + 1, ".. \"~\" ..".into(), "`..` -> `.. \"~\" ..`".into());
            }
        }
        ("#", _) => {
            if let Some((end, _)) = toks.suffixed_end(i + 1) {
                let e = toks.t[end - 1].end;
                let operand = &toks.src[t.start..e];
                out.push(i, t.start, e, format!("({operand} - 1)"), format!("`{operand}` -> `{operand} - 1`"));
            }
        }
        _ => {}
    }
    for ((a, b), to) in ops {
        out.swap(i, a, b, to);
    }
    width
}

/// The mutants of a number, string, name or keyword at token `i`.
fn word(toks: &Toks, i: usize, out: &mut Out) {
    let t = toks.t[i];
    let s = toks.text(i);
    match t.kind {
        Kind::Number if !is_error_level(toks, i) => {
            for to in number_changes(s) {
                out.swap(i, t.start, t.end, &to);
            }
        }
        Kind::String if compared(toks, i) => {
            let q = &s[..1];
            if (q == "\"" || q == "'") && s.len() >= 2 && s.ends_with(q) {
                out.swap(i, t.start, t.end, &format!("{q}~{}", &s[1..]));
            }
        }
        Kind::Ident
            if matches!(s, "min" | "max") && i >= 2 && toks.text(i - 1) == "." && toks.text(i - 2) == "math" =>
        {
            let to = if s == "min" { "max" } else { "min" };
            out.push(i, t.start, t.end, to.into(), format!("`math.{s}` -> `math.{to}`"));
        }
        Kind::Keyword => match s {
            "true" => out.swap(i, t.start, t.end, "false"),
            "false" => out.swap(i, t.start, t.end, "true"),
            "and" => out.swap(i, t.start, t.end, "or"),
            "or" => out.swap(i, t.start, t.end, "and"),
            "not" => {
                let end = toks.t.get(i + 1).map_or(t.end, |n| n.start);
                out.push(i, t.start, end, String::new(), "`not` removed".into());
            }
            "return" if i > 0 && matches!(toks.text(i - 1), "then" | "else") => {
                if let Some(end) = block_end(toks, i + 1) {
                    out.push(i, t.start, toks.t[end].start, String::new(), "early `return` removed".into());
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// The new texts of a number literal: an integer one step each way (not
/// below 0), a decimal to 0 and doubled.
fn number_changes(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(n) = s.parse::<i64>() {
        out.push((n + 1).to_string());
        if n > 0 {
            out.push((n - 1).to_string());
        }
    } else if let Ok(d) = s.parse::<f64>() {
        if d.is_finite() && d != 0.0 {
            if d.fract() == 0.0 && d.abs() < 1e15 {
                out.push(crate::lua::format_number(d + 1.0));
                out.push(crate::lua::format_number(d - 1.0));
            } else {
                out.push("0".into());
                out.push(crate::lua::format_number(d * 2.0));
            }
        }
    }
    out
}

/// Whether the string at `i` is an operand of `==` or `~=`.
fn compared(toks: &Toks, i: usize) -> bool {
    let op = |j: usize| matches!(toks.text(j), "=" | "~") && toks.touch(j) && toks.text(j + 1) == "=";
    (i >= 2 && op(i - 2)) || op(i + 1)
}

/// A call or assignment statement starting at token `i` (the first token of
/// its line): the end (exclusive) and what it is.
fn statement(toks: &Toks, i: usize) -> Option<(usize, &'static str)> {
    if toks.t[i].kind != Kind::Ident {
        return None;
    }
    let (j, call) = toks.suffixed_end(i)?;
    let s = toks.text(j);
    let op_assign = matches!(s, "+" | "-" | "*" | "/" | "%" | "^") && toks.touch(j) && toks.text(j + 1) == "=";
    let concat_assign =
        s == "." && toks.touch(j) && toks.text(j + 1) == "." && toks.touch(j + 1) && toks.text(j + 2) == "=";
    let assign = s == "=" && !(toks.touch(j) && toks.text(j + 1) == "=");
    if assign || op_assign || concat_assign {
        let rhs = j + if assign {
            1
        } else if op_assign {
            2
        } else {
            3
        };
        let end = toks.expression_end(rhs);
        return (end > rhs).then_some((end, "assignment"));
    }
    let ends = j >= toks.len()
        || toks.starts_line(j)
        || s == ";"
        || matches!(s, "end" | "else" | "elseif" | "until") && toks.t[j].kind == Kind::Keyword;
    (call && ends).then_some((j, "call"))
}

/// Whether a call statement ending before token `end` is a `world:note(...)`.
fn is_note(toks: &Toks, end: usize) -> bool {
    if end == 0 || toks.text(end - 1) != ")" {
        return false;
    }
    let mut depth = 0usize;
    for k in (0..end).rev() {
        match toks.text(k) {
            ")" | "]" | "}" => depth += 1,
            "(" | "[" | "{" => {
                depth -= 1;
                if depth == 0 {
                    return k >= 2 && toks.text(k - 1) == "note" && toks.text(k - 2) == ":";
                }
            }
            _ => {}
        }
    }
    false
}

/// A statement shortened for a one-line message.
fn short(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}...", one.chars().take(57).collect::<String>())
    } else {
        one
    }
}

/// Marks the tokens inside the arguments of calls to the named functions
/// (`world:note(...)`: a note is text for the log that no rule reads).
fn call_arguments(toks: &Toks, names: &[&str]) -> Vec<bool> {
    let mut out = vec![false; toks.len()];
    for i in 1..toks.len() {
        if names.contains(&toks.text(i)) && toks.text(i + 1) == "(" && matches!(toks.text(i - 1), ":" | ".") {
            if let Some(close) = toks.close(i + 1) {
                out[i + 2..close].iter_mut().for_each(|q| *q = true);
            }
        }
    }
    out
}

/// Marks the tokens inside brackets (a table constructor's fields are not statements).
fn bracketed(toks: &Toks) -> Vec<bool> {
    let mut depth = 0usize;
    (0..toks.len())
        .map(|i| {
            let inside = depth > 0;
            match toks.text(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
            inside
        })
        .collect()
}

/// Marks the tokens that only build a message: the arguments of `error`,
/// `violation` and `print`, a `prompt = ...` field, and what a
/// `return nil, ...` or `return false, ...` gives after its first value
/// (the reason a check refuses).
fn message_parts(toks: &Toks) -> Vec<bool> {
    let mut out = vec![false; toks.len()];
    for i in 0..toks.len() {
        let s = toks.text(i);
        if s == "return" && matches!(toks.text(i + 1), "nil" | "false") && toks.text(i + 2) == "," {
            let end = toks.expression_end(i + 3);
            out[i + 3..end].iter_mut().for_each(|q| *q = true);
        } else if matches!(s, "error" | "violation" | "print") && toks.text(i + 1) == "(" {
            if let Some(close) = toks.close(i + 1) {
                out[i + 2..close].iter_mut().for_each(|q| *q = true);
            }
        } else if s == "prompt"
            && toks.text(i + 1) == "="
            && !toks.touch(i + 1)
            && matches!(toks.text(i - 1), "{" | ",")
        {
            // The field's value runs to the `,` or `}` at its own depth.
            let mut depth = 0i32;
            let mut j = i + 2;
            while j < toks.len() {
                match toks.text(j) {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" if depth == 0 => break,
                    ")" | "]" | "}" => depth -= 1,
                    "," | ";" if depth == 0 => break,
                    "function" if toks.t[j].kind == Kind::Keyword => depth += 1,
                    "end" if toks.t[j].kind == Kind::Keyword => depth -= 1,
                    _ => {}
                }
                out[j] = true;
                j += 1;
            }
        }
    }
    out
}

/// True for the level argument of `error(msg, 2)` or `rules.violation(msg, 2)`:
/// it only picks which line an error message names, not what the rule does.
fn is_error_level(toks: &Toks, i: usize) -> bool {
    if i < 2 || toks.text(i + 1) != ")" || toks.text(i - 1) != "," {
        return false;
    }
    // Back to the call's opening parenthesis.
    let mut depth = 0usize;
    let mut j = i;
    while j > 0 {
        j -= 1;
        match toks.text(j) {
            ")" | "]" | "}" => depth += 1,
            "(" | "[" | "{" if depth > 0 => depth -= 1,
            "(" => return j > 0 && matches!(toks.text(j - 1), "error" | "violation"),
            "[" | "{" => return false,
            _ => {}
        }
    }
    false
}

/// The index of the `end` (or `else`) that closes the block a statement
/// starting at `from` sits in (nested blocks skipped).
fn block_end(toks: &Toks, from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for j in from..toks.len() {
        if toks.t[j].kind != Kind::Keyword {
            continue;
        }
        match toks.text(j) {
            "function" | "if" | "do" | "repeat" => depth += 1,
            "until" if depth > 0 => depth -= 1,
            "end" | "else" | "elseif" | "until" if depth == 0 => {
                return matches!(toks.text(j), "end" | "else").then_some(j)
            }
            "end" => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Whether a mutated source still compiles (a mutant that cannot load would
/// be killed by every spec and teach nothing). Bytecode only: no Lua state.
pub fn compiles(source: &str) -> bool {
    mlua::chunk::Compiler::new().set_optimization_level(0).compile(source).is_ok()
}
