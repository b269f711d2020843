//! Compiling what a person typed: as an expression first (so `dice.roll(3,
//! "d6")` shows its roll), else as statements; and telling an unfinished
//! chunk from a finished one by compiling alone, never by running it.

use mlua::{Function, Lua};

use crate::lua::chunk::ends_too_soon;
use crate::lua::compile_chunk;

/// Compiles input under `name`: `return <input>` when that is valid Luau,
/// else the input as statements. The error is the statements' one, which
/// is the one that describes what was typed.
pub fn compile(lua: &Lua, src: &str, name: &str) -> mlua::Result<Function> {
    let chunk_name = format!("@{name}");
    if let Ok(f) = compile_chunk(lua, &format!("return {src}"), &chunk_name) {
        return Ok(f);
    }
    compile_chunk(lua, src, &chunk_name)
}

/// True when the input is an unfinished chunk (an open `function`, `do`,
/// bracket or long string) that more lines could complete. Meta commands
/// and blank input are always complete.
pub fn is_incomplete(src: &str) -> bool {
    let t = src.trim();
    if t.is_empty() || t.starts_with(':') {
        return false;
    }
    let as_expr = ends_too_soon(&format!("return {src}"));
    if as_expr == Some(false) {
        return false;
    }
    let as_stmt = ends_too_soon(src);
    if as_stmt == Some(false) {
        return false;
    }
    as_expr == Some(true) || as_stmt == Some(true) || ends_in_long_bracket(src)
}

/// True when the input ends inside a `[[ long string ]]` or `--[[ comment ]]`
/// (Luau calls those malformed rather than unfinished).
fn ends_in_long_bracket(src: &str) -> bool {
    use super::lexer::{tokens, Kind};
    let toks = tokens(src);
    let Some(last) = toks.iter().rev().find(|t| t.kind != Kind::Space) else { return false };
    if !matches!(last.kind, Kind::String | Kind::Comment) || last.end != src.len() {
        return false;
    }
    let text = &src[last.start..last.end];
    let body = text.strip_prefix("--").unwrap_or(text).as_bytes();
    if body.first() != Some(&b'[') {
        return false;
    }
    let level = body[1..].iter().take_while(|&&b| b == b'=').count();
    if body.get(1 + level) != Some(&b'[') {
        return false;
    }
    let close = format!("]{}]", "=".repeat(level));
    !(body.len() >= 2 * (level + 2) && body.ends_with(close.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_unfinished_chunks() {
        for src in [
            "function f(x)",
            "function f(x)\n  return x",
            "for i = 1, 3 do",
            "t = {1,",
            "print(",
            "x = [[a",
            "if x then",
        ] {
            assert!(is_incomplete(src), "{src:?} should continue");
        }
        for src in ["", ":map", "1 + 1", "x = 1", "function f(x) return x end", "print(1))", "x = = 1"] {
            assert!(!is_incomplete(src), "{src:?} should be complete (or an error)");
        }
    }

    #[test]
    fn expression_first() {
        let lua = Lua::new();
        let f = compile(&lua, "1 + 2", "repl#1").unwrap();
        assert_eq!(f.call::<i64>(()).unwrap(), 3);
        let g = compile(&lua, "y = 5", "repl#2").unwrap();
        g.call::<()>(()).unwrap();
        assert_eq!(lua.globals().get::<i64>("y").unwrap(), 5);
        let e = compile(&lua, "x = = 1", "repl#3").unwrap_err().to_string();
        assert!(e.contains("repl#3:1"), "{e}");
    }
}
