//! The `:commands`: maps, unit lists, the log, loading and saving, seeds,
//! forced dice, params, undo and redo, help.
//!
//! Commands that change the battlefield (or the ruleset) are remembered for
//! `:undo` like Lua input is; those that only look (`:map`, `:units`,
//! `:log`, `:help`, `:save`) are not.

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
                if let Some(c) = closest(name, known.iter().map(|(n, _)| n.as_str())) {
                    return Some(format!("`{owner}` has no `{name}`; did you mean `{owner}{sep}{c}`?"));
                }
            }
            _ => {
                if declared.iter().any(|d| d == name) || global(lua, name).is_some() {
                    continue;
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
            "units" => self.units(args.first().map(String::as_str)),
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

    fn usage(cmd: &str) -> CmdError {
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
                    }
                }
                if !found {
                    return Err(CmdError::Text(format!(
                        "no help on '{t}': try :help, :help world, :help dice, :help hex, :help ruleset, :help MODULE.FUNCTION"
                    )));
                }
            }
        }
        self.say(&s);
        Ok(())
    }

    /// Asks the ruleset (through Lua, so a custom rule counts) whether a sees b.
    fn line_of_sight(&self, a: Hex, b: Hex) -> Result<LosLine, CmdError> {
        let r = self.host.guarded(|lua| {
            let world: Table = lua.globals().get("world")?;
            let los: Function = world.get("los")?;
            let (clear, blocker): (bool, Value) = los.call((world.clone(), hex_value(a), hex_value(b)))?;
            let blocker = match blocker {
                Value::Nil => None,
                v => Some(crate::lua::hex_from_value(&v)?),
            };
            Ok((clear, blocker))
        });
        let (clear, blocker) = r.map_err(|e| CmdError::Script(ScriptError::from_lua(&e)))?;
        Ok(LosLine { from: a, to: b, clear, blocker })
    }

    fn map(&mut self, args: &[String]) -> Result<(), CmdError> {
        let mut svg_file: Option<PathBuf> = None;
        let mut los: Option<(String, String)> = None;
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "--svg" => {
                    svg_file = Some(args.get(i + 1).ok_or_else(|| Self::usage("map"))?.into());
                    i += 2;
                }
                "--los" => {
                    let (a, b) = (args.get(i + 1), args.get(i + 2));
                    match (a, b) {
                        (Some(a), Some(b)) => los = Some((a.clone(), b.clone())),
                        _ => return Err(CmdError::Text("usage: :map --los A B (hexes as q,r or unit ids)".into())),
                    }
                    i += 3;
                }
                other => {
                    return Err(CmdError::Text(format!("unknown option '{other}' (:map [--svg FILE] [--los A B])")))
                }
            }
        }
        let los = match los {
            Some((a, b)) => {
                let (ha, hb) = {
                    let w = self.host.state.world.borrow();
                    (parse_hex(&w, &a).map_err(CmdError::Text)?, parse_hex(&w, &b).map_err(CmdError::Text)?)
                };
                Some(self.line_of_sight(ha, hb)?)
            }
            None => None,
        };
        let verdict = los.as_ref().map(|l| match (l.clear, l.blocker) {
            (true, _) => format!("line of sight {} -> {}: clear", l.from, l.to),
            (false, Some(b)) => format!("line of sight {} -> {}: blocked at {b}", l.from, l.to),
            (false, None) => format!("line of sight {} -> {}: blocked", l.from, l.to),
        });
        if let Some(path) = svg_file {
            let text = {
                let w = self.host.state.world.borrow();
                svg::render(&w, &SvgOptions { title: Some(self.scenario_name.clone()).filter(|t| !t.is_empty()), los })
            };
            std::fs::write(&path, text).map_err(|e| CmdError::Text(format!("cannot write {}: {e}", path.display())))?;
            let mut msg = format!("wrote {}", path.display());
            if let Some(v) = verdict {
                msg.push_str(&format!(" ({v})"));
            }
            self.say(&msg);
            return Ok(());
        }
        let text = {
            let w = self.host.state.world.borrow();
            let opts = MapOptions { color: self.color, width: self.width };
            match &los {
                // Show the line on a copy: the crossed hexes, its ends, the blocker.
                Some(l) => {
                    let mut copy = w.clone();
                    copy.marks.clear();
                    for (h, _) in crate::hex::los_hexes(l.from, l.to) {
                        if h != l.from && h != l.to {
                            copy.marks.push((h, ".".into()));
                        }
                    }
                    copy.marks.push((l.from, "A".into()));
                    copy.marks.push((l.to, "B".into()));
                    if let Some(b) = l.blocker {
                        copy.marks.retain(|(h, _)| *h != b);
                        copy.marks.push((b, "X".into()));
                    }
                    terminal::render(&copy, &opts)
                }
                None => terminal::render(&w, &opts),
            }
        };
        self.say(&text);
        if let Some(v) = verdict {
            self.say(&v);
        }
        Ok(())
    }

    fn units(&mut self, side: Option<&str>) -> Result<(), CmdError> {
        let w = self.host.state.world.borrow();
        if let Some(s) = side {
            w.side_index(s).map_err(|e| CmdError::Text(e.to_string()))?;
        }
        let rows: Vec<[String; 7]> = w
            .units
            .iter()
            .filter(|u| side.is_none_or(|s| &*u.side == s))
            .map(|u| {
                let pos = match u.pos {
                    Position::Off if u.strength == 0 => "eliminated".to_string(),
                    p => p.to_string(),
                };
                let props: Vec<String> = u.props.iter().map(|(k, v)| format!("{k}={v}")).collect();
                [
                    u.id.to_string(),
                    u.side.to_string(),
                    u.kind.to_string(),
                    format!("{}/{}", u.strength, u.max_strength),
                    pos,
                    u.leader.as_deref().unwrap_or("").to_string(),
                    props.join(" "),
                ]
            })
            .collect();
        drop(w);
        if rows.is_empty() {
            self.say("(no units)");
            return Ok(());
        }
        let header = ["id", "side", "type", "strength", "at", "leader", "props"];
        let mut widths = header.map(str::len);
        for r in &rows {
            for (i, c) in r.iter().enumerate() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::from(" ");
            for (i, c) in cells.iter().enumerate() {
                let _ = write!(s, " {:<w$}", c, w = widths[i]);
            }
            s.trim_end().to_string()
        };
        let mut out = String::new();
        let head = line(&header.map(String::from));
        if self.color {
            let _ = writeln!(out, "\x1b[1m{head}\x1b[0m");
        } else {
            let _ = writeln!(out, "{head}");
        }
        for r in &rows {
            let _ = writeln!(out, "{}", line(r));
        }
        self.say(&out);
        Ok(())
    }

    fn log(&mut self, args: &[String]) -> Result<(), CmdError> {
        let n = match args.first() {
            None => 20,
            Some(a) => a.parse::<usize>().map_err(|_| Self::usage("log"))?,
        };
        let w = self.host.state.world.borrow();
        let total = w.log.events.len();
        if total == 0 {
            drop(w);
            self.say("(no events yet)");
            return Ok(());
        }
        let mut out = String::new();
        let first = total.saturating_sub(n);
        if first > 0 {
            let _ = writeln!(out, "  … {first} earlier event{}", if first == 1 { "" } else { "s" });
        }
        for (i, e) in w.log.events.iter().enumerate().skip(first) {
            let _ = writeln!(out, "  {:>4}  {e}", i + 1);
        }
        drop(w);
        self.say(&out);
        Ok(())
    }

    fn load(&mut self, cmd: &Command, args: &[String]) -> Result<(), CmdError> {
        let [file] = args else { return Err(Self::usage(cmd.name)) };
        let path = resolve_scenario(file).ok_or_else(|| {
            CmdError::Text(format!(
                "no scenario file '{file}' (looked in {}, with and without .yaml)",
                crate::paths::looked_in()
            ))
        })?;
        let before = self.snapshot(&format!(":{} {file}", cmd.name));
        let name_before = std::mem::take(&mut self.scenario_name);
        match load_scenario(self, &path, &ScenarioOverrides::default()) {
            Ok(()) => {
                self.record(before);
                let summary = {
                    let w = self.host.state.world.borrow();
                    summary(&w)
                };
                let rs = self.host.state.ruleset.borrow().as_ref().map(|r| r.name.clone()).unwrap_or_default();
                let verb = if cmd.name == "open" { "opened" } else { "loaded" };
                let msg = format!(
                    "{verb} {} ({}) · ruleset {rs} · seed {}\n{summary}",
                    self.scenario_name,
                    crate::lua::display_path(&path),
                    self.seed.map_or("-".to_string(), |s| s.to_string())
                );
                self.say(&msg);
                Ok(())
            }
            Err(e) => {
                self.scenario_name = name_before;
                Err(CmdError::Script(e))
            }
        }
    }

    fn ruleset(&mut self, args: &[String]) -> Result<(), CmdError> {
        let (name, variant) = match args {
            [n] => (n, None),
            [n, v] => (n, Some(v)),
            _ => return Err(Self::usage("ruleset")),
        };
        let mut rs = Ruleset::load(name).map_err(|e| CmdError::Script(ScriptError::plain_diag(e)))?;
        if let Some(v) = variant {
            rs.apply_variant(v).map_err(|e| CmdError::Text(e.to_string()))?;
        }
        let before = self.snapshot(&format!(":ruleset {}", args.join(" ")));
        let r = self.host.transaction(|h| h.load_ruleset(rs));
        self.flush_lua_output();
        r.map_err(CmdError::Script)?;
        self.record(before);
        self.rewatch();
        let rs = self.host.state.ruleset.borrow().clone();
        if let Some(rs) = rs {
            let v = rs.variant.as_ref().map(|v| format!(" (variant {v})")).unwrap_or_default();
            self.say(&format!(
                "ruleset {}{v} loaded: modules {}; the battlefield is unchanged",
                rs.name,
                rs.modules.join(", ")
            ));
        }
        Ok(())
    }

    fn set(&mut self, args: &[String]) -> Result<(), CmdError> {
        let rs = self.host.state.ruleset.borrow().clone();
        let Some(rs) = rs else { return Err(CmdError::Text("no ruleset is loaded".into())) };
        if args.is_empty() {
            let width = self.width.clamp(40, 120);
            let mut out = String::new();
            if let Some(v) = &rs.variant {
                let _ = writeln!(out, "variant: {v}");
            }
            for (module, defs) in &rs.params {
                for (name, def) in defs {
                    let key = format!("{module}.{name}");
                    let value = rs.value(&key).map(|v| v.to_string()).unwrap_or_default();
                    let range = match (def.min, def.max) {
                        (Some(a), Some(b)) => format!(" {a}..{b}"),
                        (Some(a), None) => format!(" >= {a}"),
                        (None, Some(b)) => format!(" <= {b}"),
                        _ => String::new(),
                    };
                    let changed = if Some(&def.default) != rs.value(&key) {
                        format!(", default {}", def.default)
                    } else {
                        String::new()
                    };
                    let _ = writeln!(out, "  {key} = {value}   ({}{range}{changed})", def.ty);
                    for line in wrap(&def.doc, width.saturating_sub(6).max(30)) {
                        let _ = writeln!(out, "      {line}");
                    }
                }
            }
            if rs.params.is_empty() {
                out.push_str("(this ruleset has no params)\n");
            }
            self.say(&out);
            return Ok(());
        }
        let assignment = args.join("");
        let before = self.snapshot(&format!(":set {assignment}"));
        self.host.set_param(&assignment).map_err(CmdError::Script)?;
        self.record(before);
        let key = assignment.split_once('=').map_or("", |(k, _)| k.trim()).to_string();
        let now = self.host.state.ruleset.borrow().as_ref().and_then(|r| r.value(&key).cloned());
        self.say(&format!("{key} = {}", now.map_or("?".to_string(), |v| v.to_string())));
        Ok(())
    }

    fn seed_cmd(&mut self, args: &[String]) -> Result<(), CmdError> {
        if args.is_empty() {
            // `:seed` alone: the current seed.
            let text = match self.seed {
                Some(s) => format!("the dice were last seeded with {s}; `:seed N` reseeds them"),
                None => "the dice have not been seeded; `:seed N` seeds them".to_string(),
            };
            self.say(&text);
            return Ok(());
        }
        let [n] = args else { return Err(Self::usage("seed")) };
        let seed: u64 = crate::analysis::cli::parse_seed(n).map_err(CmdError::Text)?;
        let before = self.snapshot(&format!(":seed {seed}"));
        self.host.state.world.borrow_mut().dice.seed(seed);
        self.seed = Some(seed);
        self.transcript.push(format!("dice.seed({seed})"));
        self.record(before);
        self.say(&format!("dice seeded with {seed}"));
        Ok(())
    }

    fn force(&mut self, args: &[String]) -> Result<(), CmdError> {
        let Some((kind, faces)) = args.split_first() else {
            // `:force` alone: what is queued.
            let left = self.host.state.world.borrow().dice.unused_forced();
            let text = if left.is_empty() {
                "no forced dice queued".to_string()
            } else {
                let mut t = String::from("forced dice queued (used by the next rolls of each kind):");
                for (k, v) in &left {
                    t.push_str(&format!("\n  {k}: {}", v.join(" ")));
                }
                t
            };
            self.say(&text);
            return Ok(());
        };
        let clear_kind = match (kind.as_str(), faces) {
            ("clear", []) => Some(None),
            (k, [c]) if c == "clear" => Some(Some(k.to_string())),
            _ => None,
        };
        if let Some(which) = clear_kind {
            let before = self.snapshot(&format!(":force {}", args.join(" ")));
            {
                let mut w = self.host.state.world.borrow_mut();
                match &which {
                    None => w.dice.clear_forced(),
                    Some(k) => {
                        let i = w.dice.kind_index(k).map_err(|e| CmdError::Text(e.to_string()))?;
                        w.dice.clear_forced_kind(i);
                    }
                }
            }
            self.record(before);
            self.say(&match which {
                None => "forced dice cleared".to_string(),
                Some(k) => format!("forced {k} dice cleared"),
            });
            return Ok(());
        }
        if faces.is_empty() {
            return Err(Self::usage("force"));
        }
        let before = self.snapshot(&format!(":force {}", args.join(" ")));
        {
            let mut w = self.host.state.world.borrow_mut();
            let k = w.dice.kind_index(kind).map_err(|e| CmdError::Text(e.to_string()))?;
            let die = w.dice.kind(k).clone();
            let mut idx = Vec::new();
            for f in faces {
                let i = die.value_index_str(f).ok_or_else(|| {
                    CmdError::Text(format!("die '{kind}' has no face '{f}' (faces: {})", die.describe_values()))
                })?;
                idx.push(i as u32);
            }
            w.dice.force(k, &idx);
        }
        self.record(before);
        let lits: Vec<String> =
            faces.iter().map(|f| if f.parse::<f64>().is_ok() { f.clone() } else { super::save::lua_str(f) }).collect();
        self.transcript.push(format!("dice.force({}, {{ {} }})", super::save::lua_str(kind), lits.join(", ")));
        let queued = self.host.state.world.borrow().dice.unused_forced();
        let q = queued.iter().find(|(k, _)| k == kind).map(|(_, v)| v.join(" ")).unwrap_or_default();
        self.say(&format!("the next {kind} rolls come up: {q}"));
        Ok(())
    }

    fn undo_redo(&mut self, undo: bool) -> Result<(), CmdError> {
        let Some(snap) = (if undo { self.undo.pop() } else { self.redo.pop() }) else {
            return Err(CmdError::Text(if undo { "nothing to undo".into() } else { "nothing to redo".into() }));
        };
        let label = snap.label.clone();
        let current = self.snapshot(&label);
        if let Err(e) = self.restore(snap) {
            return Err(CmdError::Script(e));
        }
        if undo {
            self.redo.push(current);
        } else {
            self.undo.push(current);
        }
        let summary = {
            let w = self.host.state.world.borrow();
            summary(&w)
        };
        self.say(&format!("{} {label}\n{summary}", if undo { "undid:" } else { "redid:" }));
        Ok(())
    }

    /// `:sim EXPR [--trials N]` and `:exact EXPR`: the odds of an expression
    /// run as a trial from the current battlefield, which it leaves alone.
    ///
    /// The battlefield is written as a scenario (as `:save` does) and the
    /// expression wrapped in a trial script, both in a temporary folder; the
    /// result (a number, a boolean, or a table whose number and boolean
    /// fields become the metrics) is reported as `sandtable sim`/`exact` do.
    /// Globals defined at the prompt are not part of the battlefield and are
    /// not seen by the trial.
    fn odds(&mut self, exact: bool, rest: &str) -> Result<(), CmdError> {
        let mut expr = rest.trim().to_string();
        let mut trials: u64 = 10_000;
        if let Some(i) = expr.rfind("--trials") {
            let n = expr[i + "--trials".len()..].trim();
            trials = n.parse().map_err(|_| CmdError::Text(format!("--trials wants a whole number, got '{n}'")))?;
            expr.truncate(i);
        }
        let expr = expr.trim();
        if expr.is_empty() {
            return Err(Self::usage(if exact { "exact" } else { "sim" }));
        }
        static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("sandtable-odds-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| CmdError::Text(format!("cannot make {}: {e}", dir.display())))?;
        let scenario = dir.join("battlefield.yaml");
        let script = dir.join("trial.lua");
        let yaml = { self.battlefield_yaml("battlefield", &scenario) };
        let trial = TRIAL_TEMPLATE.replace("KIND", if exact { "exact" } else { "sim" }).replace("EXPR", expr);
        let written = std::fs::write(&scenario, yaml).and_then(|_| std::fs::write(&script, trial));
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(CmdError::Text(format!("cannot write the trial: {e}")));
        }
        let limits = self.host.state.limits.get();
        let setup = crate::analysis::Setup {
            script: script.clone(),
            scenario: Some(scenario.clone()),
            time_ms: Some(limits.time_ms),
            ..Default::default()
        };
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let seed = self.seed.unwrap_or(1);
        let report = if exact {
            let cfg = crate::analysis::exact::ExactConfig {
                setup,
                vs: None,
                seed,
                threads,
                max_leaves: crate::analysis::exact::DEFAULT_MAX_LEAVES,
                progress: false,
            };
            match crate::analysis::exact::run(&cfg) {
                Ok(crate::analysis::exact::ExactOutcome::Done { result, .. }) => {
                    Ok(crate::analysis::report::exact_text(&result))
                }
                Ok(_) => Err("too many outcomes to enumerate: use :sim instead".to_string()),
                Err(e) => Err(e.render(self.color)),
            }
        } else {
            let cfg = crate::analysis::sim::SimConfig {
                setup,
                vs: None,
                trials,
                seed,
                threads,
                shard: None,
                progress: false,
            };
            match crate::analysis::sim::run(&cfg) {
                Ok(run) => Ok(crate::analysis::report::sim_text(&run.result)),
                Err(e) => Err(e.render(self.color)),
            }
        };
        let _ = std::fs::remove_dir_all(&dir);
        // The report names the temporary script: name the expression instead.
        match report {
            Ok(text) => {
                let text = text.replace(&script.display().to_string(), expr);
                self.say(&text);
                Ok(())
            }
            Err(t) => Err(CmdError::Text(
                t.replace(&script.display().to_string(), &format!(":{} input", if exact { "exact" } else { "sim" })),
            )),
        }
    }

    /// `:transcript FILE`: the session so far as a spec that replays it.
    fn write_transcript(&mut self, args: &[String]) -> Result<(), CmdError> {
        let [file] = args else { return Err(Self::usage("transcript")) };
        let path = PathBuf::from(file);
        let mut s = String::new();
        let _ = writeln!(s, "-- A REPL session written by :transcript: `sandtable test {file}` replays it.");
        let _ = writeln!(s, "-- Each input that succeeded, in order, with the dice forced (:force), the");
        let _ = writeln!(s, "-- decisions answered (answers{{...}}) and the plain values it showed as");
        let _ = writeln!(s, "-- expectations. Commands other than :force and :seed are not replayed.");
        let _ = writeln!(s, "describe(\"REPL session\", function()");
        let _ = writeln!(s, "  it(\"replays what was seen\", function()");
        if self.transcript.is_empty() {
            let _ = writeln!(s, "    -- (nothing yet: no scenario was loaded)");
        }
        for l in &self.transcript {
            for line in l.lines() {
                let _ = writeln!(s, "    {line}");
            }
        }
        let _ = writeln!(s, "  end)");
        let _ = writeln!(s, "end)");
        std::fs::write(&path, s).map_err(|e| CmdError::Text(format!("cannot write {}: {e}", path.display())))?;
        self.say(&format!("wrote the session as a spec to {file}; `sandtable test {file}` replays it"));
        Ok(())
    }

    /// The battlefield as scenario YAML (what `:save` writes and `:sim` runs on).
    fn battlefield_yaml(&self, default_name: &str, target: &Path) -> String {
        let w = self.host.state.world.borrow();
        let rs = self.host.state.ruleset.borrow();
        let source = self.host.state.scenario.borrow().clone();
        let info = SaveInfo {
            name: if self.scenario_name.is_empty() { default_name } else { &self.scenario_name },
            ruleset: rs.as_ref(),
            seed: self.seed,
            source: source.as_deref(),
            target,
        };
        scenario_yaml(&w, &info)
    }

    fn save(&mut self, args: &[String]) -> Result<(), CmdError> {
        let [file] = args else { return Err(Self::usage("save")) };
        let path = PathBuf::from(file);
        let text = { self.battlefield_yaml("saved battlefield", &path) };
        std::fs::write(&path, text).map_err(|e| CmdError::Text(format!("cannot write {}: {e}", path.display())))?;
        let n = self.host.state.world.borrow().units.len();
        self.say(&format!(
            "saved the battlefield ({n} units) to {}; :open {} loads it",
            path.display(),
            path.display()
        ));
        Ok(())
    }
}

/// The trial script `:sim`/`:exact` write around the expression.
const TRIAL_TEMPLATE: &str = r#"-- :KIND from the REPL
local function metrics(v)
  if type(v) ~= "table" then return { value = v } end
  local m = {}
  for k, x in pairs(v) do
    if type(k) == "string" and (type(x) == "number" or type(x) == "boolean") then m[k] = x end
  end
  return m
end
function trial()
  return metrics((
EXPR
  ))
end
"#;

/// Why a command failed: a short line, or a full diagnostic.
pub(super) enum CmdError {
    Text(String),
    Script(ScriptError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_columns_wrap() {
        let text = columns(
            &[("short".into(), "one two three four five six"), ("a much longer first column".into(), "doc")],
            40,
        );
        assert_eq!(text, "  short  one two three four five six\n  a much longer first column\n         doc\n");
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
    }

    #[test]
    fn args_split_with_quotes() {
        assert_eq!(split_args(" a  'b c' \"\" d").unwrap(), ["a", "b c", "", "d"]);
        assert!(split_args("'open").is_err());
    }

    #[test]
    fn declared_locals_are_found() {
        let d =
            declared_names("local a, b = 1 for i, v in pairs(t) do end function f(x, y) end local function g() end");
        for n in ["a", "b", "i", "v", "x", "y", "g"] {
            assert!(d.contains(&n.to_string()), "{n} in {d:?}");
        }
    }

    #[test]
    fn hexes_from_text() {
        let w = World::default();
        assert_eq!(parse_hex(&w, "3,4"), Ok(Hex::new(3, 4)));
        assert_eq!(parse_hex(&w, "(3,-4)"), Ok(Hex::new(3, -4)));
        assert_eq!(parse_hex(&w, "hex(1, 2)"), Ok(Hex::new(1, 2)));
        assert!(parse_hex(&w, "nowhere").is_err());
    }
}
