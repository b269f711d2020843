//! The `:commands`: maps, unit lists, the log, loading and saving, seeds,
//! forced dice, params, undo and redo, help.
//!
//! Commands that change the battlefield (or the ruleset) are remembered for
//! `:undo` like Lua input is; those that only look (`:map`, `:units`,
//! `:log`, `:help`, `:save`) are not.

mod odds;
mod state;
#[cfg(test)]
mod tests;
mod view;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mlua::{Function, Lua, Table, Value};

use super::api::{catalogue, find_command, Command, AREAS, COMMANDS, KEYS};
use super::complete::{closest, global, global_names, members, resolve, Target};
use super::lexer::{self, Kind};
use super::save::{scenario_yaml, SaveInfo};
use super::{load_scenario, resolve_scenario, Session};
use crate::battlefield::{Map, World};
use crate::hex::Hex;
use crate::lua::{hex_value, ScenarioOverrides, ScriptError, State};
use crate::render::svg::{self, SvgOptions};
use crate::render::terminal::{self, MapOptions};
use crate::render::LosLine;
use crate::ruleset::Ruleset;
use crate::unit::Position;

/// Splits command arguments at spaces, keeping "quoted text" together.
pub fn split_args(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for ch in s.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(ch);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if quote.is_some() {
        return Err("a quote is not closed".into());
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

/// One line about the battlefield: map, units per side, whose turn.
pub fn summary(world: &World) -> String {
    let map = match world.map {
        Map::Hex { cols, rows, offset } => format!("{cols}x{rows} hex map ({})", offset.name()),
        Map::Table { width, height } => {
            format!("{} x {} cm tabletop", crate::lua::format_number(width), crate::lua::format_number(height))
        }
    };
    let mut sides: Vec<String> = world
        .sides
        .iter()
        .map(|s| {
            let n = world.units.iter().filter(|u| u.side == s.name && u.alive()).count();
            format!("{} {n} unit{}", s.name, if n == 1 { "" } else { "s" })
        })
        .collect();
    if sides.is_empty() {
        sides.push(format!("{} units", world.units.len()));
    }
    let turn = match &world.current_side {
        Some(s) => format!("turn {}, {s} to play", world.turn),
        None => format!("turn {}", world.turn),
    };
    format!("{map} · {} · {turn}", sides.join(", "))
}

/// Reads a hex from command text: `q,r`, `(q,r)`, `hex(q,r)`, or a unit id
/// (its hex).
fn parse_hex(world: &World, text: &str) -> Result<Hex, String> {
    let t = text.trim().trim_start_matches("hex").trim_start_matches('(').trim_end_matches(')');
    if let Some((q, r)) = t.split_once(',') {
        if let (Ok(q), Ok(r)) = (q.trim().parse::<i32>(), r.trim().parse::<i32>()) {
            return Ok(Hex::new(q, r));
        }
    }
    if let Ok(i) = world.unit_index(text) {
        return world.units[i].hex().ok_or_else(|| format!("unit '{text}' is not on the hex map"));
    }
    Err(format!("'{text}' is not a hex: write q,r (as in hex(q, r)) or a unit id"))
}

/// Identifiers a chunk declares as locals, parameters or loop variables
/// (they are not globals, so no "did you mean" for them).
fn declared_names(src: &str) -> Vec<String> {
    let toks: Vec<(Kind, &str)> = lexer::tokens(src)
        .into_iter()
        .filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment))
        .map(|t| (t.kind, &src[t.start..t.end]))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            (Kind::Keyword, "local") | (Kind::Keyword, "for") => {
                let mut j = i + 1;
                while j < toks.len() {
                    match toks[j] {
                        (Kind::Ident, n) => out.push(n.to_string()),
                        (Kind::Punct, ",") | (Kind::Keyword, "function") => {}
                        (Kind::Punct, ":") if j + 1 < toks.len() => j += 1, // a type annotation
                        _ => break,
                    }
                    j += 1;
                }
                i = j;
            }
            (Kind::Keyword, "function") => {
                let mut j = i + 1;
                while j < toks.len() && toks[j] != (Kind::Punct, "(") {
                    j += 1;
                }
                while j < toks.len() && toks[j] != (Kind::Punct, ")") {
                    if let (Kind::Ident, n) = toks[j] {
                        out.push(n.to_string());
                    }
                    j += 1;
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    out
}

/// Globals of standard Lua and Luau that the sandbox leaves out, with why.
const DISABLED: &[(&str, &str)] = &[
    ("loadstring", "rules run only their ruleset's files; `require` loads a module"),
    ("load", "rules run only their ruleset's files; `require` loads a module"),
    ("dofile", "scripts read no files; `require` loads a module, `scenario(...)` a battlefield"),
    ("loadfile", "scripts read no files; `require` loads a module"),
    ("getfenv", "environments are fixed"),
    ("setfenv", "environments are fixed"),
    ("newproxy", "not needed by rules"),
    ("gcinfo", "`collectgarbage('count')` gives the memory in use"),
    ("io", "scripts read and write no files; `print` writes to the output"),
];

/// The note for a global or library field that the sandbox disabled
/// (`loadstring`, `os.execute`, ...), or `None` for any other name.
fn disabled_note(owner: Option<&str>, name: &str) -> Option<String> {
    match owner {
        None => {
            DISABLED.iter().find(|(n, _)| *n == name).map(|(n, why)| format!("`{n}` is disabled in the sandbox: {why}"))
        }
        Some("os") => {
            Some(format!("`os.{name}` is disabled in the sandbox: `os` keeps clock, time, date and difftime"))
        }
        Some("debug") => Some(format!("`debug.{name}` is disabled in the sandbox: `debug` keeps traceback")),
        Some(_) => None,
    }
}

/// A "did you mean" for an error caused by a misspelt global or field.
pub fn suggest(lua: &Lua, state: &State, src: &str, message: &str) -> Option<String> {
    if !message.contains("nil") {
        return None;
    }
    let declared = declared_names(src);
    let toks = lexer::tokens(src);
    let significant: Vec<&lexer::Token> =
        toks.iter().filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment)).collect();
    for (i, t) in significant.iter().enumerate() {
        if t.kind != Kind::Ident {
            continue;
        }
        let name = &src[t.start..t.end];
        let prev = i.checked_sub(1).map(|p| &src[significant[p].start..significant[p].end]);
        match prev {
            Some(sep @ ("." | ":")) => {
                let parent_text = &src[..significant[i - 1].start];
                let target = resolve(lua, state, parent_text);
                if matches!(target, Target::Unknown) {
                    continue;
                }
                let known = members(lua, state, &target, sep == ":");
                if known.is_empty() || known.iter().any(|(n, _)| n == name) {
                    continue;
                }
                let owner = parent_text.trim_end();
                let owner =
                    &owner[owner.rfind(|c: char| c.is_whitespace() || c == '=' || c == '(').map_or(0, |p| p + 1)..];
                if let Some(note) = disabled_note(Some(owner), name) {
                    return Some(note);
                }
                if let Some(c) = closest(name, known.iter().map(|(n, _)| n.as_str())) {
                    return Some(format!("`{owner}` has no `{name}`; did you mean `{owner}{sep}{c}`?"));
                }
            }
            _ => {
                if declared.iter().any(|d| d == name) || global(lua, name).is_some() {
                    continue;
                }
                if let Some(note) = disabled_note(None, name) {
                    return Some(note);
                }
                let names = global_names(lua);
                return Some(match closest(name, names.iter().map(String::as_str)) {
                    Some(c) => format!("`{name}` is not defined; did you mean `{c}`?"),
                    None => format!(
                        "`{name}` is not defined (globals you set at the prompt last the session; `local` ones only one input)"
                    ),
                });
            }
        }
    }
    None
}

/// Greedy word wrap to `width` columns.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Two columns, the second wrapped under itself to fit `width`; a first
/// column too wide for the page puts its text on the lines below.
fn columns(rows: &[(String, &str)], width: usize) -> String {
    let left = rows.iter().map(|(l, _)| l.chars().count()).filter(|&n| n <= width / 2).max().unwrap_or(0);
    let start = 2 + left + 2;
    let room = width.saturating_sub(start).max(24);
    let mut out = String::new();
    for (l, r) in rows {
        let text = wrap(r, room);
        let mut rest = text.iter();
        if l.chars().count() > left {
            let _ = writeln!(out, "  {l}");
        } else {
            let _ = writeln!(out, "  {l:<left$}  {}", rest.next().map_or("", String::as_str));
        }
        for line in rest {
            let _ = writeln!(out, "{}{line}", " ".repeat(start));
        }
    }
    out
}

impl Session {
    /// Runs a `:command`. Returns whether it succeeded.
    pub(super) fn command(&mut self, line: &str) -> bool {
        let body = line.trim_start_matches(':');
        let (name, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        if name.is_empty() {
            self.complain_text("a command follows the ':' (:help lists them)");
            return false;
        }
        let cmd = match find_command(name) {
            Ok(c) => c,
            Err(options) => {
                let msg = if options.is_empty() {
                    let close = closest(name, COMMANDS.iter().map(|c| c.name));
                    match close {
                        Some(c) => format!("unknown command :{name}; did you mean :{c}? (:help lists the commands)"),
                        None => format!("unknown command :{name} (:help lists the commands)"),
                    }
                } else {
                    format!(
                        ":{name} could be {}",
                        options.iter().map(|o| format!(":{o}")).collect::<Vec<_>>().join(", ")
                    )
                };
                self.complain_text(&msg);
                return false;
            }
        };
        if cmd.name == "sim" || cmd.name == "exact" {
            // The expression is Luau, quotes and all: not split into words.
            return match self.odds(cmd.name == "exact", rest) {
                Ok(()) => true,
                Err(CmdError::Text(t)) => {
                    self.complain_text(&t);
                    false
                }
                Err(CmdError::Script(e)) => {
                    self.complain(&e);
                    false
                }
            };
        }
        let args = match split_args(rest) {
            Ok(a) => a,
            Err(e) => {
                self.complain_text(&e);
                return false;
            }
        };
        let r = match cmd.name {
            "help" => self.help(args.first().map(String::as_str)),
            "map" => self.map(&args),
            "view" => self.view(&args),
            "units" => self.units(args.first().map(String::as_str)),
            "sides" => self.sides(),
            "log" => self.log(&args),
            "load" | "open" => self.load(cmd, &args),
            "ruleset" => self.ruleset(&args),
            "reload" => {
                if self.reload(None) {
                    Ok(())
                } else {
                    return false;
                }
            }
            "set" => self.set(&args),
            "seed" => self.seed_cmd(&args),
            "force" => self.force(&args),
            "undo" => self.undo_redo(true),
            "redo" => self.undo_redo(false),
            "save" => self.save(&args),
            "transcript" => self.write_transcript(&args),
            "quit" => {
                self.quit = true;
                Ok(())
            }
            other => Err(CmdError::Text(format!(":{other} is not implemented"))),
        };
        match r {
            Ok(()) => true,
            Err(CmdError::Text(t)) => {
                self.complain_text(&t);
                false
            }
            Err(CmdError::Script(e)) => {
                self.complain(&e);
                false
            }
        }
    }

    pub(super) fn usage(cmd: &str) -> CmdError {
        let c = COMMANDS.iter().find(|c| c.name == cmd);
        CmdError::Text(format!("usage: :{cmd} {}", c.map_or("", |c| c.args)))
    }

    fn help(&mut self, topic: Option<&str>) -> Result<(), CmdError> {
        let width = self.width.clamp(40, 120);
        let mut s = String::new();
        let color = self.color;
        let heading = |s: &mut String, t: &str| {
            if color {
                let _ = writeln!(s, "\x1b[1m{t}\x1b[0m");
            } else {
                let _ = writeln!(s, "{t}");
            }
        };
        let cmd_row = |c: &Command| (format!(":{} {}", c.name, c.args).trim_end().to_string(), c.doc);
        match topic.map(|t| t.trim_start_matches(':')) {
            None => {
                heading(&mut s, "Commands");
                s.push_str(&columns(&COMMANDS.iter().map(cmd_row).collect::<Vec<_>>(), width));
                heading(&mut s, "Keys");
                s.push_str(&columns(&KEYS.iter().map(|(k, d)| (k.to_string(), *d)).collect::<Vec<_>>(), width));
                heading(&mut s, "Lua API (:help GROUP lists one group, :help NAME one function)");
                s.push_str(&columns(&AREAS.iter().map(|a| (a.name.to_string(), a.about)).collect::<Vec<_>>(), width));
                for line in wrap(
                    "Input is Luau, tried as an expression first so that its value prints. Globals you define \
                     last the session; every input is a transaction (an error changes nothing).",
                    width,
                ) {
                    let _ = writeln!(s, "{line}");
                }
            }
            Some(t) => {
                let mut found = false;
                if let Ok(c) = find_command(t) {
                    s.push_str(&columns(&[cmd_row(c)], width));
                    found = true;
                }
                let group = AREAS.iter().find(|a| a.name == t).map(|a| a.name).or(match t {
                    "unit" | "units" => Some("unit"),
                    "roll" => Some("roll"),
                    _ => None,
                });
                let entries: Vec<_> = match group {
                    Some(g) => catalogue().iter().filter(|e| e.group == g).collect(),
                    None => catalogue()
                        .iter()
                        .filter(|e| {
                            let n = super::api::entry_name(e.usage);
                            n == t
                                || n.ends_with(&format!(".{t}"))
                                || n.ends_with(&format!(":{t}"))
                                || e.usage.contains(t)
                        })
                        .collect(),
                };
                if let Some(g) = group {
                    if let Some(d) = AREAS.iter().find(|a| a.name == g).map(|a| a.about) {
                        heading(&mut s, &format!("{g}: {d}"));
                    }
                }
                s.push_str(&columns(&entries.iter().map(|e| (e.usage.to_string(), e.doc)).collect::<Vec<_>>(), width));
                found |= !entries.is_empty();
                // The ruleset: `:help great_war`, `:help reserve_artillery.fire`.
                let rs = self.host.state.ruleset.borrow().clone();
                if let Some(rs) = rs.as_ref() {
                    if t == rs.name || t == "ruleset" {
                        s.push_str(&super::rules_help::ruleset_help(rs));
                        found = true;
                    } else if let Some(f) = super::rules_help::find_function(rs, t) {
                        s.push_str(&super::rules_help::function_help(rs, &f));
                        found = true;
                    } else if rs.modules.iter().any(|m| m == t) {
                        s.push_str(&super::rules_help::ruleset_help(rs));
                        found = true;
                    } else if let Some(ty) = super::rules_help::find_type(rs, t) {
                        s.push_str(&super::rules_help::type_help(&ty));
                        found = true;
                    }
                }
                if !found {
                    return Err(CmdError::Text(format!(
                        "no help on '{t}': try :help, :help world, :help dice, :help hex, :help ruleset, :help MODULE.FUNCTION, :help TYPE"
                    )));
                }
            }
        }
        self.say(&s);
        Ok(())
    }
}

/// Why a command failed: a short line, or a full diagnostic.
pub(super) enum CmdError {
    Text(String),
    Script(ScriptError),
}
