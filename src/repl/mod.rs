//! The REPL: the designer's workbench.
//!
//! `sandtable` (or `sandtable repl`) opens a line editor on a live
//! battlefield. Each input is Luau run against the world (tried as an
//! expression first, so results print) or a `:command`. Every input is a
//! transaction: an error, a time or memory overrun, or Ctrl-C leaves the
//! battlefield exactly as it was, and the session goes on. Inputs that
//! change the battlefield are remembered for `:undo`/`:redo`; the ruleset's
//! files are watched and reloaded (keeping the board) when they change.
//!
//! With standard input not a terminal, the same session reads lines,
//! continuing unfinished chunks, prints results on stdout and errors on
//! stderr, and exits at the end of input: status 0 when every input
//! succeeded, 1 when any failed (the session still runs them all), 2 when
//! the battlefield could not be set up.
//!
//! The parts: `api` (the command and Lua API list that `:help` prints),
//! `eval` (compiling input), `complete` and
//! `helper` (completion, hints, colours, multi-line input), `ask`
//! (decisions), `save` (`:save` as scenario YAML), `journal` (the session
//! journal and `--resume`), `watch` (file watching),
//! `commands` (the `:commands`), `run` (setting up and running a session),
//! `live` (`:view`, the live board in a browser).

mod api;
mod ask;
mod commands;
mod complete;
mod eval;
mod helper;
pub mod journal;
mod live;
pub(crate) use crate::lua::lexer;
mod rules_help;
mod run;
mod save;
mod watch;

use std::cell::{Cell, RefCell};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use mlua::{MultiValue, Value};
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{CompletionType, Config, Editor, ExternalPrinter as _};

pub use crate::lua::pretty::{pretty, pretty_all, Limits};
pub use api::{catalogue, ApiEntry, Command, Returns, AREAS, COMMANDS, KEYS};
pub use commands::summary;
pub use eval::is_incomplete;
pub use live::view_only;
pub(crate) use run::load_scenario;
pub use run::{history_path, resolve_scenario, run, run_piped, setup};
pub use save::{scenario_yaml, SaveInfo};

use crate::battlefield::World;
use crate::lua::{call_with_traceback, render_error, Host, HostOptions, ScenarioOverrides, ScriptError};
use crate::ruleset::Ruleset;
use crate::scenario::Scenario;

/// Where the REPL starts when no scenario or ruleset is given, found by the
/// one path rule (`crate::paths`): the project's, else the bundled one, so
/// any working folder will do.
pub const DEFAULT_SCENARIO: &str = "scripts/great_war/bombardment.yaml";

/// The prompt.
pub const PROMPT: &str = "sandtable> ";

/// How many commands `:undo` can go back.
const UNDO_DEPTH: usize = 200;

/// What the REPL starts with (the `repl` subcommand's options).
#[derive(Clone, Debug, Default)]
pub struct ReplOptions {
    pub scenario: Option<PathBuf>,
    pub ruleset: Option<String>,
    pub variant: Option<String>,
    pub seed: Option<u64>,
    pub set: Vec<String>,
    pub time_ms: Option<u64>,
    pub memory_mb: Option<u64>,
    /// History file (else `$SANDTABLE_HISTORY`, else the platform's state folder).
    pub history: Option<PathBuf>,
    /// The session journal (else one per session in `journals/` beside the
    /// history file, for interactive sessions); see [`journal`].
    pub journal: Option<PathBuf>,
    /// Replay the last journal that did not end cleanly, then go on.
    pub resume: bool,
}

/// The battlefield before a command, to go back to.
struct Snapshot {
    world: World,
    ruleset: Option<Ruleset>,
    scenario: Option<PathBuf>,
    seed: Option<u64>,
    label: String,
}

fn same_ruleset(a: Option<&Ruleset>, b: Option<&Ruleset>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.dir == b.dir && a.values == b.values && a.variant == b.variant,
        _ => false,
    }
}

/// The one handler Ctrl-C has while scripts run: it sets the running
/// session's cancel flag (Luau's interrupt then stops the script).
static CANCEL: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);

fn install_ctrl_c(flag: Arc<AtomicBool>) {
    if let Ok(mut c) = CANCEL.lock() {
        *c = Some(flag);
    }
    // A second session in the same process keeps the first handler, which reads CANCEL.
    let _ = ctrlc::set_handler(|| {
        if let Ok(c) = CANCEL.lock() {
            if let Some(f) = c.as_ref() {
                f.store(true, Ordering::Relaxed);
            }
        }
    });
}

/// A line printer the file watcher may call from its thread.
type SharedPrinter = Arc<Mutex<Box<dyn FnMut(String) + Send>>>;

/// One REPL session: the host, its undo history and what it prints to.
pub struct Session {
    pub host: Host,
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    /// Every input compiled so far, by chunk name, to show the line an error points at.
    chunks: Vec<(String, String)>,
    /// The seed the dice were last seeded with (shown, and saved by `:save`).
    pub seed: Option<u64>,
    /// ANSI colours in maps, results and errors.
    pub color: bool,
    /// Columns available for maps and wrapped values.
    pub width: usize,
    /// Reading from a person (seeds are random when none is given) or a pipe.
    pub interactive: bool,
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    watcher: Option<watch::RulesetWatcher>,
    printer: Option<SharedPrinter>,
    /// Set by `:quit`.
    pub quit: bool,
    /// Inputs that failed.
    pub failures: usize,
    /// The scenario's name, for the banner, `:save` and SVG titles.
    pub scenario_name: String,
    /// The session as spec lines, for `:transcript` (inputs that succeeded,
    /// forced dice, answers, the results seen as expectations).
    pub transcript: Vec<String>,
    /// The live board (`:view`), shared with the decision asker.
    live: live::SharedLive,
}

impl Session {
    /// A session over a host; output goes to `out` and errors to `err`.
    pub fn new(host: Host, out: Box<dyn Write>, err: Box<dyn Write>, interactive: bool) -> Session {
        Session {
            host,
            undo: Vec::new(),
            redo: Vec::new(),
            chunks: Vec::new(),
            seed: None,
            color: false,
            width: 100,
            interactive,
            out,
            err,
            watcher: None,
            printer: None,
            quit: false,
            failures: 0,
            scenario_name: String::new(),
            transcript: Vec::new(),
            live: live::SharedLive::default(),
        }
    }

    /// Installs the person-facing decision source (the REPL's asker), so
    /// that a live board shows each decision too.
    pub fn set_asker(&mut self, inner: Option<Box<dyn crate::lua::Asker>>) {
        let asker = inner.map(|inner| {
            Box::new(live::LiveAsker { inner, live: self.live.clone(), state: self.host.state.clone() })
                as Box<dyn crate::lua::Asker>
        });
        self.host.set_asker(asker);
    }

    /// Records a Lua input that succeeded (with the decisions it asked and
    /// the value it showed) for `:transcript`.
    fn transcribe_input(&mut self, src: &str, values: &[Value]) {
        let answers = ask::take_answers();
        if !answers.is_empty() {
            self.transcript.push(format!("answers{{ {} }}", answers.join(", ")));
        }
        let src = src.trim_end();
        if values.is_empty() || src.trim_start().starts_with("return") {
            self.transcript.push(src.to_string());
            return;
        }
        self.transcript.push(format!("_ = {src}"));
        if let [v] = values {
            let lit = match v {
                Value::Boolean(b) => Some(b.to_string()),
                Value::Integer(i) => Some(i.to_string()),
                Value::Number(x) if x.is_finite() => Some(format!("{x:?}")),
                Value::String(s) => s.to_str().ok().map(|s| save::lua_str(&s)),
                _ => None,
            };
            match lit {
                Some(l) => self.transcript.push(format!("expect(_):to_be({l})")),
                None => {
                    let shown = {
                        let world = self.host.state.world.borrow();
                        pretty_all(&self.host.lua, Some(&world), values, &Limits::default())
                    };
                    let first = shown.lines().next().unwrap_or("").to_string();
                    self.transcript.push(format!("-- showed: {first}"));
                }
            }
        }
    }

    fn say(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        if !text.ends_with('\n') {
            let _ = self.out.write_all(b"\n");
        }
        let _ = self.out.flush();
    }

    fn complain(&mut self, e: &ScriptError) {
        let _ = self.out.flush();
        if let Some(note) = ask::abandoned(e) {
            // Ctrl-C at a decision: the person chose to stop; no error report.
            self.say(&note);
            return;
        }
        let text = render_error(e, self.color);
        let _ = self.err.write_all(text.as_bytes());
        let _ = self.err.flush();
    }

    /// Prints a warning (one line on stderr): something worth knowing that did not fail.
    fn warn(&mut self, text: &str) {
        let _ = self.out.flush();
        let line = if self.color { format!("\x1b[33mwarning:\x1b[0m {text}\n") } else { format!("warning: {text}\n") };
        let _ = self.err.write_all(line.as_bytes());
        let _ = self.err.flush();
    }

    /// Warns when a Lua input used some of the forced dice but left others
    /// queued: they would silently feed a later, unrelated roll (specs fail
    /// on the same thing). An input that only queues dice (`dice.force`) is
    /// not warned about.
    fn warn_unused_forced(&mut self, before: &[(String, Vec<String>)]) {
        let left = self.host.state.world.borrow().dice.unused_forced();
        if left.is_empty() || before.is_empty() || left.as_slice() == before {
            return;
        }
        let grew = left.iter().map(|(_, v)| v.len()).sum::<usize>() >= before.iter().map(|(_, v)| v.len()).sum();
        if grew {
            return;
        }
        let list: Vec<String> = left.iter().map(|(k, v)| format!("{k} {}", v.join(" "))).collect();
        self.warn(&format!(
            "forced dice still queued after this input: {} (they feed the next rolls of that kind; `:force clear` drops them)",
            list.join("; ")
        ));
    }

    /// Prints a short error (a mistyped command) on stderr, in the same
    /// style as every other error.
    fn complain_text(&mut self, text: &str) {
        self.complain(&ScriptError::plain(text));
    }

    /// Moves what Lua printed (when captured) to the session's output.
    fn flush_lua_output(&mut self) {
        let printed = self.host.take_output();
        if !printed.is_empty() {
            let _ = self.out.write_all(printed.as_bytes());
            self.live_printed(&printed);
        }
        let _ = self.out.flush();
    }

    fn snapshot(&self, label: &str) -> Snapshot {
        Snapshot {
            world: self.host.snapshot(),
            ruleset: self.host.state.ruleset.borrow().clone(),
            scenario: self.host.state.scenario.borrow().clone(),
            seed: self.seed,
            label: {
                let first = label.trim().lines().next().unwrap_or("");
                let short: String = first.chars().take(60).collect();
                if short.len() < label.trim().len() {
                    format!("{short}…")
                } else {
                    short
                }
            },
        }
    }

    /// Remembers `before` for `:undo` when the command changed the battlefield or the ruleset.
    fn record(&mut self, before: Snapshot) {
        let changed = !before.world.same_as(&self.host.state.world.borrow())
            || !same_ruleset(before.ruleset.as_ref(), self.host.state.ruleset.borrow().as_ref());
        if changed {
            self.undo.push(before);
            if self.undo.len() > UNDO_DEPTH {
                self.undo.remove(0);
            }
            self.redo.clear();
        }
    }

    /// Puts a snapshot back (its ruleset too, re-running the scripts when it differs).
    fn restore(&mut self, snap: Snapshot) -> Result<(), ScriptError> {
        let current = self.host.state.ruleset.borrow().clone();
        if !same_ruleset(snap.ruleset.as_ref(), current.as_ref()) {
            match snap.ruleset.clone() {
                Some(rs) => self.host.load_ruleset(rs)?,
                None => *self.host.state.ruleset.borrow_mut() = None,
            }
            self.rewatch();
        }
        self.host.restore(snap.world);
        *self.host.state.scenario.borrow_mut() = snap.scenario;
        self.seed = snap.seed;
        Ok(())
    }

    /// Runs one complete input: a `:command` or Luau. Returns whether it succeeded.
    pub fn handle(&mut self, input: &str) -> bool {
        self.handle_at(input, None)
    }

    /// Like [`Session::handle`], for input that started on line `line` of a pipe.
    pub fn handle_at(&mut self, input: &str, line: Option<usize>) -> bool {
        if input.trim().is_empty() {
            return true;
        }
        self.live_before(input);
        let ok =
            if input.trim_start().starts_with(':') { self.command(input.trim()) } else { self.eval_lua(input, line) };
        if !ok {
            self.failures += 1;
        }
        self.live_after(Some(ok));
        self.show_notes();
        ok
    }

    /// Shows the search path's notes not yet shown (a ruleset that shadows
    /// another of its name), one line each on the error stream.
    pub fn show_notes(&mut self) {
        for n in crate::layers::take_notes() {
            let _ = self.out.flush();
            let line = if self.color { format!("\x1b[36mnote:\x1b[0m {n}\n") } else { format!("note: {n}\n") };
            let _ = self.err.write_all(line.as_bytes());
            let _ = self.err.flush();
        }
    }

    /// Evaluates Luau as one transaction and prints its results.
    /// `line` is the input line it started on, when reading a pipe.
    pub fn eval_lua(&mut self, src: &str, line: Option<usize>) -> bool {
        let name = match line {
            Some(l) => format!("stdin#{l}"),
            None => format!("repl#{}", self.chunks.len() + 1),
        };
        self.chunks.push((name.clone(), src.to_string()));
        let func = match eval::compile(&self.host.lua, src, &name) {
            Ok(f) => f,
            Err(e) => {
                let err = script_error(&self.host, &self.chunks, &e, src);
                self.complain(&err);
                return false;
            }
        };
        let before = self.snapshot(src);
        let forced_before = self.host.state.world.borrow().dice.unused_forced();
        let chunks = &self.chunks;
        let result = self.host.transaction(|h| {
            h.guarded(|lua| call_with_traceback(lua, &func, MultiValue::new()))
                .map_err(|e| script_error(h, chunks, &e, src))
        });
        self.flush_lua_output();
        match result {
            Ok(values) => {
                let values: Vec<Value> = values.into_iter().collect();
                self.transcribe_input(src, &values);
                if let Some(first) = values.first() {
                    // The last result, as `_` (as in Python): `print(_)`, `_.crater`.
                    let _ = self.host.lua.globals().raw_set("_", first.clone());
                }
                if !values.is_empty() {
                    let limits = Limits { width: self.width.clamp(40, 120), ..Limits::default() };
                    let text = {
                        let world = self.host.state.world.borrow();
                        pretty_all(&self.host.lua, Some(&world), &values, &limits)
                    };
                    self.say(&text);
                    self.live_result(&text, &values);
                    if let [Value::Table(t)] = values.as_slice() {
                        let own_text = t
                            .metatable()
                            .is_some_and(|mt| !matches!(mt.raw_get::<Value>("__tostring"), Ok(Value::Nil) | Err(_)));
                        if own_text {
                            let note = "-- the ruleset gives this value its own summary: print(_) shows it";
                            let note = if self.color { format!("\x1b[90m{note}\x1b[0m") } else { note.to_string() };
                            self.say(&note);
                        }
                    }
                }
                self.record(before);
                self.warn_unused_forced(&forced_before);
                true
            }
            Err(e) => {
                // A failed input changed nothing: its answers are not replayed.
                let _ = ask::take_answers();
                self.complain(&e);
                false
            }
        }
    }

    /// Reloads the ruleset if its files changed since the last input.
    pub fn poll_reload(&mut self) {
        let Some(changed) = self.watcher.as_ref().and_then(|w| w.changed()) else { return };
        let what = watch::names(&changed);
        self.reload(Some(&what));
        self.live_after(None);
    }

    /// Re-runs the ruleset's scripts against the same battlefield.
    fn reload(&mut self, because: Option<&str>) -> bool {
        if self.host.state.ruleset.borrow().is_none() {
            self.complain_text("no ruleset is loaded; :ruleset NAME or :load SCENARIO loads one");
            return false;
        }
        let r = self.reload_scripts();
        match r {
            Ok(()) => {
                // The name as reloaded: an edit may have renamed the ruleset.
                let name = self.host.state.ruleset.borrow().as_ref().map(|r| r.name.clone()).unwrap_or_default();
                let why = because.map(|w| format!(" after a change to {w}")).unwrap_or_default();
                let msg = format!("reloaded ruleset {name}{why}; the battlefield is unchanged");
                let msg = if self.color { format!("\x1b[36m{msg}\x1b[0m") } else { msg };
                self.say(&msg);
                true
            }
            Err(e) => {
                self.complain(&e);
                self.complain_text("the reload failed; the previous scripts stay in place");
                false
            }
        }
    }

    /// Re-runs the ruleset's scripts as one transaction. Dice queued with
    /// `:force` stay queued (redefining a die kind would drop them).
    fn reload_scripts(&mut self) -> Result<(), ScriptError> {
        let forced = self.host.state.world.borrow().dice.unused_forced();
        let r = self.host.transaction(|h| h.reload());
        self.flush_lua_output();
        if r.is_ok() {
            let mut w = self.host.state.world.borrow_mut();
            for (kind, faces) in forced {
                let Ok(k) = w.dice.kind_index(&kind) else { continue };
                let idx: Vec<u32> =
                    faces.iter().filter_map(|f| w.dice.kind(k).value_index_str(f)).map(|i| i as u32).collect();
                let already = w.dice.unused_forced().into_iter().any(|(n, _)| n == kind);
                if !already {
                    w.dice.force(k, &idx);
                }
            }
        }
        r
    }

    /// Watches the current ruleset's folder, those of the rulesets it extends,
    /// and `lib/` (interactive sessions only).
    fn rewatch(&mut self) {
        if !self.interactive {
            return;
        }
        let dirs: Vec<PathBuf> = match self.host.state.ruleset.borrow().as_ref() {
            None => Vec::new(),
            // Bundled files cannot change: only folders on disk are watched.
            Some(rs) => rs
                .dirs()
                .map(std::path::Path::to_path_buf)
                .chain(rs.lib_dirs())
                .filter(|d| !crate::layers::files::is_bundled(d))
                .collect(),
        };
        if self
            .watcher
            .as_ref()
            .is_some_and(|w| w.dirs.iter().zip(&dirs).all(|(a, b)| a == b) && w.dirs.len() == dirs.len())
        {
            return;
        }
        self.watcher = None;
        if dirs.is_empty() {
            return;
        }
        let notify: Option<watch::Notify> = self.printer.clone().map(|p| {
            Box::new(move |line: String| {
                if let Ok(mut print) = p.lock() {
                    (*print)(line);
                }
            }) as watch::Notify
        });
        match watch::RulesetWatcher::new(&dirs, notify) {
            Ok(w) => self.watcher = Some(w),
            Err(e) => self.complain_text(&format!(
                "cannot watch the ruleset's files for changes ({e}); use :reload after editing"
            )),
        }
    }

    /// The lines a session opens with: where you are and what to type.
    pub fn banner(&self) -> String {
        let world = self.host.state.world.borrow();
        let rs = self.host.state.ruleset.borrow();
        let mut out = String::new();
        let bold = |s: &str| if self.color { format!("\x1b[1m{s}\x1b[0m") } else { s.to_string() };
        let mut head = format!("sandtable {}", env!("CARGO_PKG_VERSION"));
        if !self.scenario_name.is_empty() {
            head.push_str(&format!(" · {}", bold(&self.scenario_name)));
        }
        match rs.as_ref() {
            Some(r) => {
                head.push_str(&format!(" · ruleset {}", r.name));
                if let Some(v) = &r.variant {
                    head.push_str(&format!(" ({v})"));
                }
            }
            None => head.push_str(" · no ruleset"),
        }
        if let Some(seed) = self.seed {
            head.push_str(&format!(" · seed {seed}"));
        }
        out.push_str(&head);
        out.push('\n');
        out.push_str(&format!("{}\n", commands::summary(&world)));
        out.push_str(
            "Lua acts on the battlefield · :map draws it · :help for commands and the API · _ is the last result\n",
        );
        if let Some(ex) = example_call(&self.host, rs.as_ref(), &world) {
            out.push_str(&format!("Try: {ex}\n"));
        }
        out
    }
}

/// What to try on an empty battlefield with a ruleset loaded (the ruleset's
/// own calls need its units): open a scenario of that ruleset, or list them.
fn empty_map_hint(rs: &Ruleset) -> String {
    let of_ruleset = |file: &String| {
        let Some(path) = crate::paths::find_file(Path::new(file)) else { return false };
        let Ok(text) = crate::layers::files::read_to_string(&path) else { return false };
        text.lines().any(|l| {
            l.strip_prefix("ruleset:").is_some_and(|v| {
                let v = v.split('#').next().unwrap_or("").trim().trim_matches(['"', '\'']);
                v == rs.name || v.trim_end_matches('/').ends_with(&format!("/{}", rs.name))
            })
        })
    };
    match helper::scenario_files().into_iter().find(of_ruleset) {
        Some(f) => format!(
            ":load {}   (the map is empty: this opens a scenario of ruleset {}; :load alone lists them all)",
            f.strip_suffix(".yaml").unwrap_or(&f),
            rs.name
        ),
        None => ":load   (the map is empty: this lists the scenarios to open; or place units with world:add_unit{...})"
            .to_string(),
    }
}

/// An example call for the banner, from what the ruleset exposes: a module's
/// `example` string field, else the first line under an `-- At a prompt:`
/// comment in a module's file, else a roll of one of the ruleset's dice. On
/// an empty battlefield (a ruleset opened without a scenario), how to open
/// one of its scenarios instead.
fn example_call(host: &Host, rs: Option<&Ruleset>, world: &World) -> Option<String> {
    let rs = rs?;
    if world.units.is_empty() {
        return Some(empty_map_hint(rs));
    }
    for m in &rs.modules {
        if let Some(Value::Table(t)) = complete::global(&host.lua, m) {
            if let Ok(Value::String(s)) = t.raw_get::<Value>("example") {
                return Some(s.to_string_lossy().to_string());
            }
        }
    }
    for m in &rs.modules {
        let Ok(src) = crate::layers::files::read_to_string(&rs.dir.join(format!("{m}.lua"))) else { continue };
        let mut lines = src.lines().take_while(|l| l.trim_start().starts_with("--"));
        if lines.any(|l| l.trim_start_matches('-').trim().eq_ignore_ascii_case("at a prompt:")) {
            if let Some(code) = lines.next() {
                let code = code.trim_start_matches('-').trim();
                if !code.is_empty() {
                    return Some(code.to_string());
                }
            }
        }
    }
    let die = rs.dice.first()?;
    let side = world.sides.first().map(|s| format!("  ·  world:units{{side=\"{}\"}}", s.name)).unwrap_or_default();
    Some(format!("dice.roll(3, \"{}\"){side}", die.name))
}

/// Turns an mlua error from REPL input into a located error: the line it
/// points at is shown from the input it came from (an earlier one, when a
/// function defined then failed now); a traceback that only walks through
/// the prompt's own input is dropped; a likely typo gets a suggestion.
fn script_error(host: &Host, chunks: &[(String, String)], e: &mlua::Error, src: &str) -> ScriptError {
    let text = e.to_string();
    let chunk = first_chunk_name(&text).and_then(|name| chunks.iter().rev().find(|(n, _)| *n == name));
    let mut err = ScriptError::from_lua_with(e, chunk.map(|(n, s)| (n.as_str(), s.as_str())));
    let hint = commands::suggest(&host.lua, &host.state, src, &err.message());
    let Some(help) = err.help_mut() else { return err };
    if help.as_deref().is_some_and(|h| h.contains("traceback") && !h.contains(".lua:") && !h.contains(".luau:")) {
        *help = None;
    }
    if let Some(hint) = hint {
        *help = Some(match help.take() {
            Some(h) => format!("{hint}\n{h}"),
            None => hint,
        });
    }
    err
}

/// The first `repl#N` or `stdin#N` chunk name in an error's text.
fn first_chunk_name(text: &str) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for prefix in ["repl#", "stdin#"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(prefix).map(|i| i + from) {
            let digits: String = text[i + prefix.len()..].chars().take_while(char::is_ascii_digit).collect();
            if !digits.is_empty() && text[i + prefix.len() + digits.len()..].starts_with(':') {
                if best.as_ref().is_none_or(|(b, _)| i < *b) {
                    best = Some((i, format!("{prefix}{digits}")));
                }
                break;
            }
            from = i + prefix.len();
        }
    }
    best.map(|(_, n)| n)
}

#[cfg(test)]
pub(crate) mod tests;
