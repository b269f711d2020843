//! The rustyline helper: completion, hints, syntax colours, matching
//! brackets, and multi-line input.
//!
//! It holds a clone of the session's Lua state (the same state, not a copy)
//! so that completion sees the globals a person defined a moment ago; it
//! only ever reads it, with raw access (see `complete`). Whether Enter
//! finishes the input or opens a new line is decided by compiling the input
//! (never running it): an unfinished `function ... end` continues.

use std::borrow::Cow::{self, Borrowed, Owned};
use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;

use mlua::Lua;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::{Hint, Hinter};
use rustyline::history::SearchDirection;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

use super::api::{catalogue, entry_name, find_command, AREAS, COMMANDS};
use super::complete::{global, lua_candidates};
use super::eval::is_incomplete;
use super::lexer::{self, Kind};
use crate::lua::State;

/// A hint: what is shown greyed after the cursor, and what Right-arrow inserts.
pub struct ReplHint {
    display: String,
    completion: Option<String>,
}

impl Hint for ReplHint {
    fn display(&self) -> &str {
        &self.display
    }
    fn completion(&self) -> Option<&str> {
        self.completion.as_deref()
    }
}

/// The REPL's editing comforts.
pub struct ReplHelper {
    lua: Lua,
    state: Rc<State>,
    /// True while a decision prompt is open: then input is an answer, not Lua.
    pub asking: Rc<Cell<bool>>,
    color: bool,
    bracket: Cell<bool>,
    files: FilenameCompleter,
}

impl ReplHelper {
    pub fn new(lua: Lua, state: Rc<State>, asking: Rc<Cell<bool>>, color: bool) -> ReplHelper {
        ReplHelper { lua, state, asking, color, bracket: Cell::new(true), files: FilenameCompleter::new() }
    }

    fn pairs(start: usize, names: Vec<String>) -> (usize, Vec<Pair>) {
        (start, names.into_iter().map(|n| Pair { display: n.clone(), replacement: n }).collect())
    }

    /// Completion after a `:` at the start of the input.
    fn complete_meta(&self, line: &str, pos: usize, ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let lead = before.len() - before.trim_start().len();
        let body = &before[lead + 1..];
        let Some(space) = body.find(char::is_whitespace) else {
            let mut names: Vec<String> =
                COMMANDS.iter().filter(|c| c.name.starts_with(body)).map(|c| format!(":{}", c.name)).collect();
            names.sort();
            return Ok(Self::pairs(lead, names));
        };
        let cmd = &body[..space];
        let args = &body[space..];
        let word_start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &before[word_start..];
        let prev: Vec<&str> = args.split_whitespace().collect();
        let prev_words = if args.ends_with(char::is_whitespace) { prev.len() } else { prev.len().saturating_sub(1) };
        let pick =
            |names: Vec<String>| Self::pairs(word_start, names.into_iter().filter(|n| n.starts_with(word)).collect());
        let name = find_command(cmd).map(|c| c.name).unwrap_or("");
        match name {
            "load" | "open" | "save" => {
                let (start, mut found) = self.files.complete(line, pos, ctx)?;
                if name != "save" && !word.contains('/') {
                    for s in scenario_files() {
                        if s.starts_with(word) && !found.iter().any(|p| p.replacement == s) {
                            found.push(Pair { display: s.clone(), replacement: s });
                        }
                    }
                    return Ok((if found.is_empty() { start } else { word_start.min(start) }, found));
                }
                Ok((start, found))
            }
            "map" => {
                if prev.get(prev_words.wrapping_sub(1)) == Some(&"--svg") && prev_words > 0 {
                    return self.files.complete(line, pos, ctx);
                }
                Ok(pick(vec!["--svg".into(), "--los".into()]))
            }
            "ruleset" if prev_words == 0 => Ok(pick(ruleset_names())),
            "ruleset" if prev_words == 1 => {
                let variants = self
                    .state
                    .ruleset
                    .borrow()
                    .as_ref()
                    .map(|r| r.variants.keys().cloned().collect())
                    .unwrap_or_default();
                Ok(pick(variants))
            }
            "set" => {
                let names = self
                    .state
                    .ruleset
                    .borrow()
                    .as_ref()
                    .map(|r| r.param_names().into_iter().map(|n| format!("{n}=")).collect())
                    .unwrap_or_default();
                Ok(pick(names))
            }
            "force" => {
                let w = self.state.world.borrow();
                if prev_words == 0 {
                    Ok(pick(w.dice.kinds().iter().map(|k| k.name.to_string()).collect()))
                } else {
                    let faces = w
                        .dice
                        .kind_index(prev[0])
                        .map(|k| w.dice.kind(k).values.iter().map(|v| v.to_string()).collect())
                        .unwrap_or_default();
                    Ok(pick(faces))
                }
            }
            "units" => Ok(pick(self.state.world.borrow().sides.iter().map(|s| s.name.to_string()).collect())),
            "help" => {
                let mut names: Vec<String> = COMMANDS.iter().map(|c| c.name.to_string()).collect();
                names.extend(AREAS.iter().map(|a| a.name.to_string()));
                names.extend(catalogue().iter().map(|e| entry_name(e.usage).to_string()));
                names.sort();
                names.dedup();
                Ok(pick(names))
            }
            _ => Ok((pos, Vec::new())),
        }
    }

    /// `dice.roll(` -> the rest of the signature and its doc, greyed.
    fn signature_hint(&self, line: &str) -> Option<String> {
        let before = line.trim_end_matches([' ']);
        let open = before.chars().last().filter(|c| *c == '(' || *c == '{')?;
        let callee = &before[..before.len() - 1];
        let start = callee
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.' || *c == ':'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let name = &callee[start..];
        if name.is_empty() {
            return None;
        }
        let method = name.rsplit_once(':').map(|(_, m)| m);
        let builtin = catalogue().iter().find(|e| entry_name(e.usage) == name);
        if builtin.is_none() {
            // A ruleset function: its signature and the first line of its doc comment.
            let rs = self.state.ruleset.borrow().clone();
            if let Some(f) = rs.as_ref().and_then(|rs| super::rules_help::find_function(rs, name)) {
                let at = f.signature.find('(')?;
                let args = &f.signature[at + 1..];
                let first = f.doc.first().map(|d| format!("  -- {d}")).unwrap_or_default();
                return Some(format!("{args}{first}"));
            }
        }
        let entry = builtin.or_else(|| {
            let m = method?;
            catalogue().iter().find(|e| {
                let n = entry_name(e.usage);
                matches!(e.group, "hex value" | "unit" | "roll") && n.rsplit_once(':').is_some_and(|(_, x)| x == m)
            })
        })?;
        let usage = entry.usage.split("  ").next().unwrap_or(entry.usage);
        let at = usage.find(open)?;
        Some(format!("{}  -- {}", &usage[at + 1..], entry.doc))
    }
}

/// The names of the rulesets of every layer of the search path.
pub(super) fn ruleset_names() -> Vec<String> {
    let mut out: Vec<String> = crate::ruleset::all().into_iter().map(|l| l.name).collect();
    out.sort();
    out.dedup();
    out
}

/// Scenario files under `scripts/` of every layer, as `:load` accepts them
/// (relative to `scripts/`; a name an earlier layer has is listed once).
pub(super) fn scenario_files() -> Vec<String> {
    use crate::layers::files;
    let mut out = Vec::new();
    for layer in crate::layers::layers() {
        let root: PathBuf = layer.root.join("scripts");
        let mut stack = vec![(root.clone(), 0)];
        while let Some((dir, depth)) = stack.pop() {
            for p in files::list(&dir) {
                if files::is_dir(&p) && depth < 3 {
                    stack.push((p, depth + 1));
                } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                    if let Ok(rel) = p.strip_prefix(&root) {
                        out.push(rel.display().to_string());
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(&self, line: &str, pos: usize, ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        if self.asking.get() {
            return Ok((pos, Vec::new()));
        }
        if line[..pos].trim_start().starts_with(':') && !line[..pos].contains('\n') {
            return self.complete_meta(line, pos, ctx);
        }
        let (start, names) = lua_candidates(&self.lua, &self.state, line, pos);
        Ok(Self::pairs(start, names))
    }
}

impl Hinter for ReplHelper {
    type Hint = ReplHint;

    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<ReplHint> {
        if self.asking.get() || line.is_empty() || pos < line.len() {
            return None;
        }
        if let Some(rest) = line.strip_prefix(':') {
            if let Some(cmd) = rest.strip_suffix(' ').filter(|c| !c.contains(' ')) {
                if let Ok(c) = find_command(cmd) {
                    if !c.args.is_empty() {
                        return Some(ReplHint { display: format!("{}  -- {}", c.args, c.doc), completion: None });
                    }
                }
            }
        }
        if let Some(sig) = self.signature_hint(line) {
            return Some(ReplHint { display: sig, completion: None });
        }
        // The most recent single-line history entry that continues this input.
        let history = ctx.history();
        let mut index = ctx.history_index();
        while index > 0 {
            index -= 1;
            let found = history.starts_with(line, index, SearchDirection::Reverse).ok().flatten()?;
            if found.entry.len() > line.len() && !found.entry.contains('\n') {
                let rest = found.entry[line.len()..].to_string();
                return Some(ReplHint { display: rest.clone(), completion: Some(rest) });
            }
            index = found.idx;
        }
        None
    }
}

const KEYWORD: &str = "\x1b[35m";
const STRING: &str = "\x1b[32m";
const NUMBER: &str = "\x1b[33m";
const COMMENT: &str = "\x1b[90m";
const API_NAME: &str = "\x1b[36m";
const BRACKET: &str = "\x1b[1;34;4m";
const META: &str = "\x1b[1;36m";
const RESET: &str = "\x1b[0m";

/// The sandtable API's global tables, coloured apart from the user's names.
const API_GLOBALS: &[&str] =
    &["world", "dice", "hex", "tabletop", "decide", "answers", "policy", "on", "off", "emit", "params", "ruleset"];

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, pos: usize) -> Cow<'l, str> {
        if !self.color || self.asking.get() || line.is_empty() {
            return Borrowed(line);
        }
        if line.starts_with(':') {
            let end = line.find(char::is_whitespace).unwrap_or(line.len());
            return Owned(format!("{META}{}{RESET}{}", &line[..end], &line[end..]));
        }
        // The bracket next to the cursor, and its partner.
        let mut marked: Vec<usize> = Vec::new();
        if self.bracket.get() {
            let at = [pos.checked_sub(1), Some(pos)]
                .into_iter()
                .flatten()
                .find(|&i| line.as_bytes().get(i).is_some_and(|b| b"()[]{}".contains(b)) && line.is_char_boundary(i));
            if let Some(at) = at {
                if let Some(m) = lexer::matching_bracket(line, at) {
                    marked.push(m);
                    marked.push(at);
                }
            }
        }
        let mut out = String::with_capacity(line.len() + 32);
        for t in lexer::tokens(line) {
            let text = &line[t.start..t.end];
            let colour = match t.kind {
                Kind::Keyword => Some(KEYWORD),
                Kind::String => Some(STRING),
                Kind::Number => Some(NUMBER),
                Kind::Comment => Some(COMMENT),
                Kind::Ident if API_GLOBALS.contains(&text) && global(&self.lua, text).is_some() => Some(API_NAME),
                Kind::Punct if marked.contains(&t.start) => Some(BRACKET),
                _ => None,
            };
            match colour {
                // Colour each line of a multi-line token separately so the
                // terminal never carries a colour across the prompt.
                Some(c) => {
                    for (i, part) in text.split('\n').enumerate() {
                        if i > 0 {
                            out.push('\n');
                        }
                        if !part.is_empty() {
                            out.push_str(c);
                            out.push_str(part);
                            out.push_str(RESET);
                        }
                    }
                }
                None => out.push_str(text),
            }
        }
        Owned(out)
    }

    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(&'s self, prompt: &'p str, default: bool) -> Cow<'b, str> {
        if self.color && default {
            Owned(format!("\x1b[1;32m{prompt}{RESET}"))
        } else {
            Borrowed(prompt)
        }
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color {
            Owned(format!("\x1b[90m{hint}{RESET}"))
        } else {
            Borrowed(hint)
        }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, kind: CmdKind) -> bool {
        // The final refresh (after Enter) shows no bracket highlight.
        self.bracket.set(kind != CmdKind::ForcedRefresh);
        self.color
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        if self.asking.get() {
            return Ok(ValidationResult::Valid(None));
        }
        if is_incomplete(ctx.input()) {
            Ok(ValidationResult::Incomplete)
        } else {
            Ok(ValidationResult::Valid(None))
        }
    }
}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lua::{Host, HostOptions};

    fn helper(color: bool) -> (Host, ReplHelper) {
        let host = Host::new(HostOptions { capture_output: true, ..Default::default() }).unwrap();
        let h = ReplHelper::new(host.lua.clone(), host.state.clone(), Rc::new(Cell::new(false)), color);
        (host, h)
    }

    #[test]
    fn signature_hints() {
        let (_host, h) = helper(false);
        let hint = h.signature_hint("dice.roll(").unwrap();
        assert!(hint.starts_with("n, kind, reason?)  -- roll n dice"), "{hint}");
        assert!(h.signature_hint("x = hex(1,2):distance(").unwrap().starts_with("other)"));
        assert!(h.signature_hint("world:add_unit{").unwrap().starts_with("id=, side="));
        assert!(h.signature_hint("nothing(").is_none());
    }

    #[test]
    fn highlighting_keeps_the_text() {
        let (_host, h) = helper(true);
        let src = "local r = dice.roll(3, \"d6\") -- go";
        let out = h.highlight(src, 0).to_string();
        assert!(
            out.contains(KEYWORD) && out.contains(STRING) && out.contains(NUMBER) && out.contains(COMMENT),
            "{out:?}"
        );
        let mut plain = String::new();
        let mut esc = false;
        for ch in out.chars() {
            if esc {
                esc = ch != 'm';
            } else if ch == '\x1b' {
                esc = true;
            } else {
                plain.push(ch);
            }
        }
        assert_eq!(plain, src);
        let (_host2, off) = helper(false);
        assert_eq!(off.highlight(src, 0), src);
    }

    #[test]
    fn brackets_match_at_the_cursor() {
        let (_host, h) = helper(true);
        let out = h.highlight("f(a, {b})", 9).to_string();
        assert_eq!(out.matches(BRACKET).count(), 2, "{out:?}");
    }
}
