//! Source text to code: the one way a chunk reaches Luau's loader.
//!
//! Luau's loader takes bytecode as well as text, and mlua tells them apart
//! by the first byte (below 0x09, or a version byte, means bytecode). Crafted
//! bytecode corrupts memory, so a script, module or REPL line that starts
//! with a control byte must never reach the loader as it is. Here source is
//! always compiled by Luau's own compiler, and only that output, a
//! [`Bytecode`], is ever loaded: its constructor is private to this module,
//! and clippy (`clippy.toml`) refuses `mlua::Lua::load` anywhere else.
//!
//! Luau's lexer reads a NUL byte as the end of the source, so the rest of a
//! file after one would be dropped without a word: a NUL is refused here as
//! a syntax error on its line. Any other control byte is Luau's to judge,
//! and its message names the byte rather than printing it raw.

use mlua::chunk::{ChunkMode, Compiler};
use mlua::{Function, Lua};

/// Bytecode made by Luau's compiler from source text in this process: the
/// only bytes the host hands to Luau's loader (shared: compiled modules are
/// kept for the process, see `lua::load`).
#[derive(Clone)]
pub struct Bytecode(std::sync::Arc<[u8]>);

impl Bytecode {
    /// The bytes, for the loader.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Reads a Lua source file, on disk or bundled
/// ([`crate::layers::files::read_to_string`]): text of at most
/// [`crate::files::TEXT_LIMIT`] bytes. Errors read as the rest of
/// "cannot read FILE: ...".
pub fn read_source(path: &std::path::Path) -> std::io::Result<String> {
    crate::layers::files::read_to_string(path).map(std::borrow::Cow::into_owned).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            std::io::Error::new(e.kind(), format!("{e}: Lua source is text, and sandtable loads no bytecode"))
        } else {
            e
        }
    })
}

/// Compiles source text. A syntax error is an [`mlua::Error::SyntaxError`]
/// whose message reads `LINE: what` (no chunk name; see [`compile`]).
pub(crate) fn compile_unnamed(compiler: &Compiler, source: &str) -> mlua::Result<Bytecode> {
    if let Some(at) = source.find('\0') {
        let line = source[..at].matches('\n').count() + 1;
        return Err(mlua::Error::SyntaxError {
            message: format!(
                "{line}: a NUL byte (0x00) in the source: Lua source is text, and sandtable loads no bytecode"
            ),
            incomplete_input: false,
        });
    }
    match compiler.compile(source) {
        Ok(bytecode) => Ok(Bytecode(bytecode.into())),
        Err(mlua::Error::SyntaxError { message, incomplete_input }) => {
            Err(mlua::Error::SyntaxError { message: name_control_bytes(&message), incomplete_input })
        }
        Err(other) => Err(other),
    }
}

/// Compiles source text; a syntax error reads `CHUNK:LINE: what`, as from
/// Luau's own loader (`@file` names `file`, `=name` names `name`).
pub fn compile(compiler: &Compiler, source: &str, name: &str) -> mlua::Result<Bytecode> {
    compile_unnamed(compiler, source).map_err(|e| match e {
        mlua::Error::SyntaxError { message, incomplete_input } => {
            mlua::Error::SyntaxError { message: format!("{}:{message}", chunk_id(name)), incomplete_input }
        }
        other => other,
    })
}

/// Loads compiled source as a function named `name`.
pub fn load(lua: &Lua, bytecode: &Bytecode, name: &str) -> mlua::Result<Function> {
    #[expect(clippy::disallowed_methods, reason = "the one place a chunk is loaded, and only compiler output")]
    let chunk = lua.load(bytecode.as_bytes());
    chunk.set_name(name).set_mode(ChunkMode::Binary).into_function()
}

/// Whether `source` fails to compile only because it ends too soon (an open
/// `function`, bracket or string): `Some(true)`; `Some(false)` when it
/// compiles, `None` for any other error. Nothing is loaded.
pub fn ends_too_soon(source: &str) -> Option<bool> {
    match compile_unnamed(&Compiler::new(), source) {
        Ok(_) => Some(false),
        Err(mlua::Error::SyntaxError { incomplete_input, .. }) => incomplete_input.then_some(true),
        Err(_) => None,
    }
}

/// Whether `source` compiles (nothing is loaded).
pub fn compiles(source: &str) -> bool {
    compile_unnamed(&Compiler::new(), source).is_ok()
}

/// The name Luau's loader puts in front of a chunk's messages.
fn chunk_id(name: &str) -> String {
    match name.strip_prefix('@').or_else(|| name.strip_prefix('=')) {
        Some(rest) => rest.to_string(),
        None => format!("[string \"{name}\"]"),
    }
}

/// Luau quotes the token it stopped at as it is: a control byte would reach
/// the terminal raw (an escape sequence even). Name it instead.
fn name_control_bytes(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&format!("\\x{:02X}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    if out != message {
        out.push_str(" (a control byte: Lua source is text, and sandtable loads no bytecode)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(source: &str) -> String {
        match compile(&Compiler::new(), source, "@b.lua") {
            Err(mlua::Error::SyntaxError { message, .. }) => message,
            Err(other) => panic!("{source:?}: not a syntax error: {other}"),
            Ok(_) => panic!("{source:?} compiled"),
        }
    }

    #[test]
    fn control_bytes_are_syntax_errors_on_their_line() {
        for b in (0u8..0x20).filter(|b| !b"\t\n\x0b\x0c\r".contains(b)) {
            let source = format!("x = 1\n{}print(1)\n", b as char);
            let e = error_of(&source);
            assert!(e.starts_with("b.lua:2: "), "byte {b:#04x}: {e}");
            assert!(e.contains("sandtable loads no bytecode"), "byte {b:#04x}: {e}");
            assert!(!e.chars().any(|c| c.is_control() && c != '\n'), "byte {b:#04x} printed raw: {e:?}");
        }
    }

    #[test]
    fn whitespace_control_bytes_are_whitespace() {
        for b in *b"\t\n\x0b\x0c\r" {
            let source = format!("{}return 1", b as char);
            assert!(compile(&Compiler::new(), &source, "@w.lua").is_ok(), "byte {b:#04x}");
        }
    }

    #[test]
    fn a_nul_anywhere_is_refused_not_read_as_the_end() {
        // Luau's lexer would stop at the NUL and run `x = 1` alone.
        let e = error_of("x = 1\n-- a note\0\nerror('the rest')\n");
        assert!(e.starts_with("b.lua:2: a NUL byte"), "{e}");
        assert_eq!(ends_too_soon("print(\0"), None);
    }

    #[test]
    fn bytecode_is_compiled_as_text_never_loaded() {
        let blob = Compiler::new().compile("print('from bytecode')").unwrap();
        // A version byte, then the types version: mlua's loader would take it for bytecode.
        assert!(blob[0] < 0x20 && blob[1] < 0x20, "{blob:?}");
        let source = String::from_utf8_lossy(&blob).into_owned();
        let e = error_of(&source);
        assert!(e.starts_with("b.lua:1: "), "{e}");
    }

    #[test]
    fn names_read_as_luau_names_them() {
        assert!(error_of("x = = 1").starts_with("b.lua:1: "));
        let e = compile(&Compiler::new(), "x = = 1", "=check").err().unwrap().to_string();
        assert!(e.contains("check:1: "), "{e}");
        let e = compile(&Compiler::new(), "x = = 1", "chunk").err().unwrap().to_string();
        assert!(e.contains("[string \"chunk\"]:1: "), "{e}");
    }

    #[test]
    fn loads_what_compiles() {
        let lua = Lua::new();
        let f = load(&lua, &compile(&Compiler::new(), "return 1 + 2", "=t").unwrap(), "=t").unwrap();
        assert_eq!(f.call::<i64>(()).unwrap(), 3);
        assert_eq!(ends_too_soon("function f("), Some(true));
        assert_eq!(ends_too_soon("return 1"), Some(false));
        assert_eq!(ends_too_soon("x = = 1"), None);
    }
}
