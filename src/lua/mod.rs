//! The Lua host: one sandboxed Luau state bound to one world.
//!
//! Rust owns all state; scripts hold values (hexes) and handles (units, rolls)
//! and act on the world through the API modules registered here, one module
//! per API area (`hex`, `dice`, `world`, `decide`, `tabletop`, `spec`).
//!
//! Safety: Luau sandbox mode (library tables read-only), no `io`, `os` only
//! for clocks, `debug` only for tracebacks, no bytecode loading, `require`
//! only inside the ruleset's folder and `rulesets/lib/`. Every top-level call
//! runs under a time budget (checked from Luau's interrupt, which fires even
//! inside `pcall`, coroutines and pattern matching) and a memory limit.

pub mod api;
mod args;
mod decide_api;
mod dice_api;
mod error;
pub(crate) mod fast;
mod hex_api;
pub mod keys;
pub mod raw;
mod rules_api;
mod spec_api;
mod tabletop_api;
pub mod world;

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mlua::{Function, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};

pub use decide_api::{Asker, DecisionRequest};
pub use dice_api::LuaRoll;
pub use error::{render_error, ScriptError};
pub use hex_api::{hex_from_value, hex_value};
pub use spec_api::SpecReport;
pub use world::UnitRef;

use crate::battlefield::World;
use crate::ruleset::{Limits, Ruleset};
use crate::scenario::Scenario;

/// Where `print` output goes.
pub enum Output {
    Stdout,
    Buffer(Vec<u8>),
}

/// The budget guard shared with the interrupt callback.
pub struct Guard {
    deadline: Cell<Option<Instant>>,
    ticks: Cell<u32>,
    tripped: Cell<Option<Trip>>,
    /// Set from another thread (Ctrl-C) to stop the running script.
    pub cancel: Arc<AtomicBool>,
}

impl Guard {
    /// Moves the running call's deadline later by `by`: time a person spends
    /// answering a decision is not the script's time.
    pub fn extend_deadline(&self, by: Duration) {
        if let Some(d) = self.deadline.get() {
            self.deadline.set(Some(d + by));
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Trip {
    Time,
    Cancel,
}

/// How decisions are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionMode {
    /// Queued answers, else policies and defaults (`run`, `sim`, `exact`).
    Auto,
    /// Every decision needs a queued answer, and every answer must be used (specs).
    Strict,
}

/// Everything the API closures share.
pub struct State {
    pub world: RefCell<World>,
    pub ruleset: RefCell<Option<Ruleset>>,
    pub limits: Cell<Limits>,
    pub guard: Guard,
    pub output: RefCell<Output>,
    output_written: Cell<usize>,
    pub decision_mode: Cell<DecisionMode>,
    pub asker: RefCell<Option<Box<dyn Asker>>>,
    /// The scenario file the world came from (for reloads and `:load`).
    pub scenario: RefCell<Option<PathBuf>>,
    /// Folder of the script being run, for relative `scenario(...)` paths.
    pub script_dir: RefCell<PathBuf>,
    /// Spec results of the current file.
    pub spec: RefCell<SpecReport>,
    /// Nesting of `describe` names.
    pub spec_path: RefCell<Vec<String>>,
    pub options: HostOptions,
    /// One Lua handle per unit slot, handed out again (see `world::unit_handle`).
    pub unit_handles: RefCell<Vec<Option<UnitHandle>>>,
    /// The slot of each cached handle by its userdata's address (for `fast`).
    pub unit_handle_slots: RefCell<rustc_hash::FxHashMap<usize, usize>>,
    /// Lua strings of the names the world hands out (sides, unit types,
    /// terrain): made once, because pushing a new string from Rust costs more
    /// than the rest of a small call.
    names: RefCell<rustc_hash::FxHashMap<Box<str>, mlua::LuaString>>,
    /// False while no script has called `on` since the ruleset was (re)loaded:
    /// moves then skip building event arguments nobody would receive.
    pub subscribed: Cell<bool>,
    /// Names the fast paths keep as Lua strings (see `fast::push_name`).
    pub name_slots: RefCell<Vec<Rc<str>>>,
    /// Calls a fast path handed to its full function (tests check that
    /// simulation's hot calls stay on the fast paths).
    pub fast_misses: Cell<u64>,
}

/// A cached unit handle and the id it was made for.
pub type UnitHandle = (Rc<str>, mlua::AnyUserData);

/// Most output one top-level call may print.
pub const OUTPUT_LIMIT: usize = 1 << 20;

impl State {
    /// Runs `f` with the world borrowed mutably; API closures never call Lua while holding it.
    pub fn with_world<R>(&self, f: impl FnOnce(&mut World) -> R) -> mlua::Result<R> {
        let mut w = self
            .world
            .try_borrow_mut()
            .map_err(|_| mlua::Error::runtime("the world is busy (a rule called back into the API mid-update)"))?;
        Ok(f(&mut w))
    }

    /// The Lua string for a name, made once and reused.
    pub fn name(&self, lua: &Lua, name: &str) -> mlua::Result<mlua::LuaString> {
        if let Some(s) = self.names.borrow().get(name) {
            return Ok(s.clone());
        }
        let s = lua.create_string(name)?;
        let mut names = self.names.borrow_mut();
        // Names are few; a script minting endless new ones only loses the cache.
        if names.len() > 4096 {
            names.clear();
        }
        names.insert(name.into(), s.clone());
        Ok(s)
    }

    pub fn write_output(&self, text: &str) -> mlua::Result<()> {
        let written = self.output_written.get() + text.len();
        if written > OUTPUT_LIMIT {
            return Err(mlua::Error::runtime(format!(
                "output limit: a command may print at most {} KiB",
                OUTPUT_LIMIT / 1024
            )));
        }
        self.output_written.set(written);
        match &mut *self.output.borrow_mut() {
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes()).map_err(mlua::Error::external)?;
            }
            Output::Buffer(b) => b.extend_from_slice(text.as_bytes()),
        }
        Ok(())
    }
}

/// Options for a new host.
#[derive(Clone, Debug, Default)]
pub struct HostOptions {
    /// Overrides the ruleset's limits.
    pub time_ms: Option<u64>,
    pub memory_mb: Option<u64>,
    /// Capture `print` instead of writing to stdout.
    pub capture_output: bool,
    /// Turn the native code generator off (for comparisons).
    pub no_jit: bool,
    /// Leave out the API's fast paths (`fast`), so that every call takes the
    /// full function: for tests that compare the two, and for measuring them.
    pub no_fast_paths: bool,
}

/// A Luau state with the sandtable API, bound to a world.
pub struct Host {
    pub lua: Lua,
    pub state: Rc<State>,
}

impl Host {
    /// A host with an empty default world and no ruleset.
    pub fn new(options: HostOptions) -> mlua::Result<Host> {
        let libs = StdLib::COROUTINE
            | StdLib::TABLE
            | StdLib::STRING
            | StdLib::UTF8
            | StdLib::BIT
            | StdLib::MATH
            | StdLib::BUFFER
            | StdLib::VECTOR
            | StdLib::OS
            | StdLib::DEBUG;
        let lua = Lua::new_with(libs, LuaOptions::new())?;
        lua.enable_jit(!options.no_jit);
        set_compiler(&lua, &[]);
        let limits = Limits {
            time_ms: options.time_ms.unwrap_or(Limits::default().time_ms),
            memory_mb: options.memory_mb.unwrap_or(Limits::default().memory_mb),
        };
        let state = Rc::new(State {
            world: RefCell::new(World::default()),
            ruleset: RefCell::new(None),
            limits: Cell::new(limits),
            guard: Guard {
                deadline: Cell::new(None),
                ticks: Cell::new(0),
                tripped: Cell::new(None),
                cancel: Arc::new(AtomicBool::new(false)),
            },
            output: RefCell::new(if options.capture_output { Output::Buffer(Vec::new()) } else { Output::Stdout }),
            output_written: Cell::new(0),
            decision_mode: Cell::new(DecisionMode::Auto),
            asker: RefCell::new(None),
            scenario: RefCell::new(None),
            script_dir: RefCell::new(PathBuf::from(".")),
            spec: RefCell::new(SpecReport::default()),
            spec_path: RefCell::new(Vec::new()),
            options: options.clone(),
            unit_handles: RefCell::new(Vec::new()),
            unit_handle_slots: RefCell::new(rustc_hash::FxHashMap::default()),
            names: RefCell::new(rustc_hash::FxHashMap::default()),
            subscribed: Cell::new(false),
            name_slots: RefCell::new(Vec::new()),
            fast_misses: Cell::new(0),
        });
        lua.set_app_data(state.clone());
        let host = Host { lua, state };
        host.install()?;
        Ok(host)
    }

    fn install(&self) -> mlua::Result<()> {
        let lua = &self.lua;
        let g = lua.globals();
        // Trim the libraries to what a rule needs.
        let os: Table = g.get("os")?;
        let safe_os = lua.create_table()?;
        for f in ["clock", "time", "date", "difftime"] {
            safe_os.set(f, os.get::<Value>(f)?)?;
        }
        g.set("os", safe_os)?;
        let debug: Table = g.get("debug")?;
        let safe_debug = lua.create_table()?;
        safe_debug.set("traceback", debug.get::<Value>("traceback")?)?;
        g.set("debug", safe_debug)?;
        for name in ["loadstring", "getfenv", "setfenv", "newproxy", "gcinfo"] {
            g.raw_set(name, Value::Nil)?;
        }
        let cg = lua.create_function(|lua, opt: Option<String>| match opt.as_deref() {
            None | Some("count") => Ok(lua.used_memory() as f64 / 1024.0),
            Some(other) => {
                Err(mlua::Error::runtime(format!("collectgarbage('{other}') is not available in the sandbox")))
            }
        })?;
        g.set("collectgarbage", cg)?;

        let state = self.state.clone();
        let print = lua.create_function(move |lua, args: MultiValue| {
            let tostring: Function = lua.globals().get("tostring")?;
            let mut line = String::new();
            for (i, v) in args.iter().enumerate() {
                if i > 0 {
                    line.push('\t');
                }
                match v {
                    Value::String(s) => line.push_str(&s.to_string_lossy()),
                    other => line.push_str(&tostring.call::<mlua::LuaString>(other.clone())?.to_string_lossy()),
                }
            }
            line.push('\n');
            state.write_output(&line)
        })?;
        g.set("print", print)?;

        let entries = api::install_areas(lua, &self.state)?;
        self.install_require()?;
        self.install_params()?;

        // Guard the API against being replaced.
        let protected = lua.create_table()?;
        for n in api::global_names(&entries) {
            protected.set(n, true)?;
        }
        let globals = lua.globals();
        let raw_rawset: Function = globals.get("rawset")?;
        let guarded_rawset = {
            let protected = protected.clone();
            let globals = globals.clone();
            lua.create_function(move |_, (t, k, v): (Table, Value, Value)| {
                if t == globals {
                    if let Value::String(s) = &k {
                        if protected.get::<bool>(s.clone()).unwrap_or(false) {
                            return Err(mlua::Error::runtime(format!(
                                "'{}' is part of the sandtable API and cannot be replaced",
                                s.to_string_lossy()
                            )));
                        }
                    }
                }
                raw_rawset.call::<Table>((t, k, v))
            })?
        };
        globals.set("rawset", guarded_rawset)?;
        lua.sandbox(true)?;
        // After sandboxing, globals() is the script-writable proxy whose metatable
        // reads through to the read-only base; add the assignment guard to it.
        let proxy = lua.globals();
        if let Some(base_mt) = proxy.metatable() {
            // Luau's sandbox makes that metatable read-only; give the proxy a new one.
            let base: Value = base_mt.raw_get("__index")?;
            let mt = lua.create_table()?;
            mt.set("__index", base)?;
            let protected = protected.clone();
            let newindex = lua.create_function(move |_, (t, k, v): (Table, Value, Value)| {
                if let Value::String(s) = &k {
                    if protected.get::<bool>(s.clone()).unwrap_or(false) {
                        return Err(mlua::Error::runtime(format!(
                            "'{}' is part of the sandtable API and cannot be replaced",
                            s.to_string_lossy()
                        )));
                    }
                }
                t.raw_set(k, v)
            })?;
            mt.set("__newindex", newindex)?;
            mt.set("__metatable", "the global table's metatable is locked")?;
            mt.set_readonly(true);
            proxy.set_metatable(Some(mt))?;
        }
        self.install_interrupt();
        self.apply_limits();
        Ok(())
    }

    fn install_interrupt(&self) {
        let state = self.state.clone();
        self.lua.set_interrupt(move |_| {
            let g = &state.guard;
            if g.tripped.get().is_some() {
                return Err(mlua::Error::runtime(trip_message(g.tripped.get(), &state)));
            }
            if g.cancel.load(Ordering::Relaxed) {
                g.tripped.set(Some(Trip::Cancel));
                return Err(mlua::Error::runtime(trip_message(g.tripped.get(), &state)));
            }
            let t = g.ticks.get().wrapping_add(1);
            g.ticks.set(t);
            if t.is_multiple_of(256) {
                if let Some(deadline) = g.deadline.get() {
                    if Instant::now() > deadline {
                        g.tripped.set(Some(Trip::Time));
                        return Err(mlua::Error::runtime(trip_message(g.tripped.get(), &state)));
                    }
                }
            }
            Ok(VmState::Continue)
        });
    }

    fn apply_limits(&self) {
        apply_limits(&self.lua, &self.state);
    }

    /// Sets the time and memory budget.
    pub fn set_limits(&self, limits: Limits) {
        self.state.limits.set(limits);
        self.apply_limits();
    }

    /// Runs `f` as one top-level call: under the time budget, with the output
    /// budget reset, and with a clear error if the budget trips.
    pub fn guarded<R>(&self, f: impl FnOnce(&Lua) -> mlua::Result<R>) -> mlua::Result<R> {
        let g = &self.state.guard;
        let ms = self.state.limits.get().time_ms;
        g.deadline.set(Some(Instant::now() + Duration::from_millis(ms)));
        g.tripped.set(None);
        g.cancel.store(false, Ordering::Relaxed);
        self.state.output_written.set(0);
        let r = f(&self.lua);
        let tripped = g.tripped.take();
        g.deadline.set(None);
        if r.is_err() {
            // Luau does not collect on a failed allocation: after a memory bomb the
            // garbage is still there, so collect it now or the next command fails too.
            let _ = self.lua.gc_collect();
        }
        match (r, tripped) {
            (Ok(v), _) => Ok(v),
            (Err(_), Some(t)) => Err(mlua::Error::external(trip_error(t, &self.state))),
            (Err(e), None) => Err(e),
        }
    }

    /// Runs `f` as a transaction: if it fails, the world is put back exactly as it was.
    pub fn transaction<R>(&self, f: impl FnOnce(&Host) -> Result<R, ScriptError>) -> Result<R, ScriptError> {
        let before = self.state.world.borrow().clone();
        let r = f(self);
        if r.is_err() {
            *self.state.world.borrow_mut() = before;
        }
        r
    }

    /// Compiles and runs a chunk of source under the budget.
    pub fn exec(&self, source: &str, chunk_name: &str) -> Result<MultiValue, ScriptError> {
        let name = chunk_name.to_string();
        self.guarded(|lua| {
            let f = lua.load(source).set_name(format!("@{name}")).into_function()?;
            call_with_traceback(lua, &f, MultiValue::new())
        })
        .map_err(|e| ScriptError::from_lua_with(&e, Some((chunk_name, source))))
    }

    /// Runs a script file; relative `scenario(...)` paths resolve beside it.
    pub fn exec_file(&self, path: &Path) -> Result<MultiValue, ScriptError> {
        let path = &crate::paths::file_or_given(path);
        let source = std::fs::read_to_string(path)
            .map_err(|e| ScriptError::plain(format!("cannot read script {}: {e}", path.display())))?;
        *self.state.script_dir.borrow_mut() = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.exec(&source, &display_path(path))
    }

    /// Calls a global function by name under the budget (used for `trial`).
    pub fn call_global(&self, name: &str) -> Result<Value, ScriptError> {
        self.guarded(|lua| {
            let f: Function = lua
                .globals()
                .get::<Option<Function>>(name)?
                .ok_or_else(|| mlua::Error::runtime(format!("the script defines no global function `{name}`")))?;
            f.call::<Value>(())
        })
        .map_err(|e| ScriptError::from_lua(&e))
    }

    /// Loads a ruleset: dice, params, and its Lua modules (each becomes a global of its name).
    pub fn load_ruleset(&self, rs: Ruleset) -> Result<(), ScriptError> {
        self.guarded(|lua| Ok(load_ruleset_into(lua, &self.state, rs))).map_err(|e| ScriptError::from_lua(&e))?
    }

    /// Re-runs the ruleset's scripts against the same world (after an edit).
    /// The ruleset's YAML is read again too, keeping the params set so far.
    pub fn reload(&self) -> Result<(), ScriptError> {
        self.guarded(|lua| Ok(reload_into(lua, &self.state))).map_err(|e| ScriptError::from_lua(&e))?
    }

    /// Loads a scenario (and its ruleset, unless overridden), replacing the world.
    /// On any error nothing changes.
    pub fn load_scenario(&self, path: &Path, overrides: &ScenarioOverrides) -> Result<(), ScriptError> {
        self.lua.set_app_data(spec_api::Overrides(overrides.clone()));
        self.guarded(|lua| Ok(load_scenario_into(lua, &self.state, path, overrides)))
            .map_err(|e| ScriptError::from_lua(&e))?
    }

    /// Remembers command-line overrides so that `scenario(...)` in scripts applies them too.
    pub fn set_overrides(&self, overrides: &ScenarioOverrides) {
        self.lua.set_app_data(spec_api::Overrides(overrides.clone()));
    }

    /// A copy of the world (for undo, trials, transactions).
    pub fn snapshot(&self) -> World {
        self.state.world.borrow().clone()
    }

    pub fn restore(&self, world: World) {
        *self.state.world.borrow_mut() = world;
    }

    /// Takes what `print` wrote, when output is captured.
    pub fn take_output(&self) -> String {
        match &mut *self.state.output.borrow_mut() {
            Output::Buffer(b) => String::from_utf8_lossy(&std::mem::take(b)).to_string(),
            Output::Stdout => String::new(),
        }
    }

    pub fn set_decision_mode(&self, mode: DecisionMode) {
        self.state.decision_mode.set(mode);
    }

    /// Installs the person-facing decision source (the REPL).
    pub fn set_asker(&self, asker: Option<Box<dyn Asker>>) {
        *self.state.asker.borrow_mut() = asker;
    }

    /// Forced dice and queued answers left over (a spec that leaves any fails).
    pub fn leftovers(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .state
            .world
            .borrow()
            .dice
            .unused_forced()
            .into_iter()
            .map(|(k, v)| format!("forced {k} results never rolled: {}", v.join(" ")))
            .collect();
        if let Ok(q) = self.lua.named_registry_value::<Table>(keys::ANSWERS) {
            let n = q.raw_len();
            if n > 0 {
                let items: Vec<String> = q.sequence_values::<Value>().flatten().map(|v| display_value(&v)).collect();
                out.push(format!("answers never used: {}", items.join(", ")));
            }
        }
        out
    }

    /// Clears forced dice and queued answers.
    pub fn clear_queues(&self) {
        self.state.world.borrow_mut().dice.clear_forced();
        if let Ok(t) = self.lua.create_table() {
            let _ = self.lua.set_named_registry_value(keys::ANSWERS, t);
        }
    }

    fn install_require(&self) -> mlua::Result<()> {
        let lua = &self.lua;
        lua.set_named_registry_value(keys::LOADED, lua.create_table()?)?;
        let state = self.state.clone();
        let require = lua.create_function(move |lua, name: String| {
            let path = resolve_module(&state, &name)?;
            let key = display_path(&path);
            let loaded: Table = lua.named_registry_value(keys::LOADED)?;
            match loaded.get::<Value>(key.as_str())? {
                Value::Boolean(false) => {
                    return Err(mlua::Error::runtime(format!(
                        "require('{name}'): a module requires itself (cycle through {key})"
                    )))
                }
                Value::Nil => {}
                v => return Ok(v),
            }
            let src = std::fs::read_to_string(&path)
                .map_err(|e| mlua::Error::runtime(format!("require('{name}'): cannot read {key}: {e}")))?;
            loaded.set(key.as_str(), false)?;
            let f = lua.load(src).set_name(format!("@{key}")).into_function()?;
            let v: Value = match f.call::<Value>(()) {
                Ok(v) => v,
                Err(e) => {
                    loaded.set(key.as_str(), Value::Nil)?;
                    return Err(e);
                }
            };
            let v = if v.is_nil() { Value::Boolean(true) } else { v };
            loaded.set(key.as_str(), v.clone())?;
            Ok(v)
        })?;
        lua.globals().set("require", require)
    }

    fn install_params(&self) -> mlua::Result<()> {
        let lua = &self.lua;
        let params = lua.create_table()?;
        lua.set_named_registry_value(keys::PARAMS, params.clone())?;
        lua.globals().set("params", params)?;
        lua.set_named_registry_value(keys::LOS_RULE, Value::Nil)?;
        let rt = lua.create_table()?;
        lua.set_named_registry_value(keys::RULESET, rt.clone())?;
        lua.globals().set("ruleset", rt)?;
        Ok(())
    }

    /// Applies `module.param=value` to the loaded ruleset and the Lua `params` table.
    pub fn set_param(&self, assignment: &str) -> Result<(), ScriptError> {
        let mut rs = self.state.ruleset.borrow().clone().ok_or_else(|| ScriptError::plain("no ruleset is loaded"))?;
        rs.set_param(assignment).map_err(|e| ScriptError::plain(e.to_string()))?;
        refresh_params(&self.lua, &rs).map_err(|e| ScriptError::from_lua(&e))?;
        *self.state.ruleset.borrow_mut() = Some(rs);
        Ok(())
    }
}

/// Command-line overrides applied when a scenario loads.
#[derive(Clone, Debug, Default)]
pub struct ScenarioOverrides {
    pub ruleset: Option<String>,
    pub variant: Option<String>,
    pub seed: Option<u64>,
    pub set: Vec<String>,
}

fn apply_limits(lua: &Lua, st: &State) {
    let mb = st.limits.get().memory_mb;
    let _ = lua.set_memory_limit((mb as usize).saturating_mul(1 << 20));
}

/// Installs a ruleset into a state: limits, dice, params, scripts.
pub fn load_ruleset_into(lua: &Lua, st: &State, rs: Ruleset) -> Result<(), ScriptError> {
    st.limits.set(Limits {
        time_ms: st.options.time_ms.unwrap_or(rs.limits.time_ms),
        memory_mb: st.options.memory_mb.unwrap_or(rs.limits.memory_mb),
    });
    apply_limits(lua, st);
    {
        let mut w = st.world.borrow_mut();
        for k in &rs.dice {
            w.dice.define(k.clone());
        }
        w.stacking = rs.stacking;
    }
    let previous = st.ruleset.replace(Some(rs));
    let r = run_ruleset_scripts(lua, st, previous.as_ref()).map_err(|e| ScriptError::from_lua(&e));
    if r.is_err() {
        *st.ruleset.borrow_mut() = previous;
    }
    r
}

/// Re-reads the ruleset's YAML (keeping param values set so far) and re-runs its scripts.
pub fn reload_into(lua: &Lua, st: &State) -> Result<(), ScriptError> {
    let Some(old) = st.ruleset.borrow().clone() else {
        return Ok(());
    };
    let file = old.dir.join("ruleset.yaml");
    let src = std::fs::read_to_string(&file)
        .map_err(|e| ScriptError::plain(format!("cannot read {}: {e}", display_path(&file))))?;
    let mut rs = Ruleset::parse(&file, &src).map_err(|e| match e {
        crate::ruleset::RulesetError::Located(l) => ScriptError::Located(l),
        other => ScriptError::plain_diag(other),
    })?;
    // Keep what was set by hand (--set, :set, a variant); edited defaults take effect.
    for (module, values) in &old.values {
        for (name, v) in values {
            let old_default = old.params.get(module).and_then(|m| m.get(name)).map(|d| &d.default);
            let new_def = rs.params.get(module).and_then(|m| m.get(name));
            if old_default != Some(v) && new_def.is_some_and(|d| d.check(v).is_ok()) {
                rs.values.entry(module.clone()).or_default().insert(name.clone(), v.clone());
            }
        }
    }
    rs.variant = old.variant.clone();
    let before = st.ruleset.replace(Some(rs.clone()));
    {
        let mut w = st.world.borrow_mut();
        for k in &rs.dice {
            w.dice.define(k.clone());
        }
        w.stacking = rs.stacking;
    }
    let r = run_ruleset_scripts(lua, st, before.as_ref()).map_err(|e| ScriptError::from_lua(&e));
    if r.is_err() {
        // The previous scripts are still in place; keep the previous data too.
        *st.ruleset.borrow_mut() = before;
    }
    r
}

/// Configures the Luau compiler. In the sandbox Luau resolves global chains
/// such as `params.mod.x` or `module.fire` once, when a chunk loads; globals that
/// change during a session (params after `--set`, modules after a reload) must
/// be named mutable so every access looks them up.
fn set_compiler(lua: &Lua, modules: &[String]) {
    let mut mutable: Vec<String> = vec!["params".into(), "ruleset".into()];
    mutable.extend(modules.iter().cloned());
    lua.set_compiler(mlua::chunk::Compiler::new().set_optimization_level(2).set_mutable_globals(mutable));
}

/// Publishes the ruleset's data to Lua: `params` and the `ruleset` table.
fn publish_ruleset(lua: &Lua, rs: &Ruleset) -> mlua::Result<()> {
    refresh_params(lua, rs)?;
    let rt: Table = lua.named_registry_value(keys::RULESET)?;
    rt.set_readonly(false);
    rt.set("name", rs.name.as_str())?;
    rt.set("title", rs.title.as_str())?;
    rt.set("dir", display_path(&rs.dir))?;
    rt.set("terrain", json_to_lua(lua, &serde_json::Value::Object(rs.terrain.clone()))?)?;
    rt.set("unit_types", json_to_lua(lua, &serde_json::Value::Object(rs.unit_types.clone()))?)?;
    rt.set("charts", json_to_lua(lua, &rs.charts)?)?;
    rt.set("tokens", lua.create_sequence_from(rs.tokens.iter().map(String::as_str))?)?;
    rt.set("variant", rs.variant.clone())?;
    rt.set_readonly(true);
    Ok(())
}

/// Registry entries the scripts fill in (subscriptions, policies, loaded
/// modules, the LOS rule): started afresh on a (re)load, put back if it fails.
const SCRIPT_REGISTRY: [&str; 4] = [keys::HANDLERS, keys::POLICIES, keys::LOADED, keys::LOS_RULE];

/// Runs the ruleset's modules. All or nothing: if one fails, the previous
/// modules, subscriptions and policies stay in place and the session goes on
/// with them.
fn run_ruleset_scripts(lua: &Lua, st: &State, previous: Option<&Ruleset>) -> mlua::Result<()> {
    let Some(rs) = st.ruleset.borrow().clone() else {
        return Ok(());
    };
    let saved: Vec<Value> =
        SCRIPT_REGISTRY.iter().map(|k| lua.named_registry_value::<Value>(k)).collect::<mlua::Result<_>>()?;
    set_compiler(lua, &rs.modules);
    let was_subscribed = st.subscribed.replace(false);
    let run = || -> mlua::Result<Vec<(String, Value)>> {
        publish_ruleset(lua, &rs)?;
        for k in SCRIPT_REGISTRY {
            if k == keys::LOS_RULE {
                lua.set_named_registry_value(k, Value::Nil)?;
            } else {
                lua.set_named_registry_value(k, lua.create_table()?)?;
            }
        }
        let require: Function = lua.globals().get("require")?;
        let mut modules = Vec::new();
        for m in &rs.modules {
            modules.push((m.clone(), require.call::<Value>(m.as_str())?));
        }
        Ok(modules)
    };
    match run() {
        Ok(modules) => {
            let g = lua.globals();
            for (name, module) in modules {
                install_module(&g, &name, module)?;
            }
            Ok(())
        }
        Err(e) => {
            for (k, v) in SCRIPT_REGISTRY.iter().zip(saved) {
                lua.set_named_registry_value(k, v)?;
            }
            st.subscribed.set(was_subscribed);
            if let Some(prev) = previous {
                publish_ruleset(lua, prev)?;
            }
            Err(e)
        }
    }
}

/// Makes a module's table the global of its name. On a reload the new contents
/// go into the existing table: code loaded earlier (a spec, a function typed at
/// the REPL) may hold that table through Luau's import cache, and must see the
/// edited functions.
fn install_module(g: &Table, name: &str, module: Value) -> mlua::Result<()> {
    if let (Value::Table(old), Value::Table(new)) = (g.raw_get::<Value>(name)?, &module) {
        if !old.is_readonly() && old != *new {
            old.clear()?;
            for pair in new.pairs::<Value, Value>() {
                let (k, v) = pair?;
                old.raw_set(k, v)?;
            }
            old.set_metatable(new.metatable())?;
            return Ok(());
        }
    }
    g.raw_set(name, module)
}

/// Loads a scenario file into a state; on any error nothing changes.
pub fn load_scenario_into(
    lua: &Lua,
    st: &State,
    path: &Path,
    overrides: &ScenarioOverrides,
) -> Result<(), ScriptError> {
    let Some(path) = crate::paths::find_file(path) else {
        return Err(ScriptError::plain(format!(
            "no scenario file '{}' (looked in {}, with and without .yaml)",
            path.display(),
            crate::paths::looked_in()
        )));
    };
    let path = path.as_path();
    let sc = Scenario::load(path).map_err(ScriptError::Located)?;
    let rs_name = overrides.ruleset.clone().unwrap_or_else(|| sc.ruleset.clone());
    let base = if overrides.ruleset.is_none() { path.parent() } else { None };
    let mut rs = crate::ruleset::Ruleset::load_from(&rs_name, base).map_err(|e| match e {
        crate::ruleset::RulesetError::NotFound { .. } if overrides.ruleset.is_none() => {
            ScriptError::Located(sc.ruleset_error(e.to_string()))
        }
        crate::ruleset::RulesetError::Located(l) => ScriptError::Located(l),
        other => ScriptError::plain_diag(other),
    })?;
    if let Some(v) = overrides.variant.clone().or_else(|| sc.variant.clone()) {
        rs.apply_variant(&v).map_err(|e| {
            if overrides.variant.is_none() {
                ScriptError::Located(sc.variant_error(e.to_string()))
            } else {
                ScriptError::plain(e.to_string())
            }
        })?;
    }
    sc.apply_params(&mut rs).map_err(ScriptError::Located)?;
    for s in &overrides.set {
        rs.set_param(s).map_err(|e| ScriptError::plain(e.to_string()))?;
    }
    let mut world = sc.build(&rs).map_err(ScriptError::Located)?;
    if let Some(seed) = overrides.seed {
        world.dice.seed(seed);
    }
    let same_ruleset = st.ruleset.borrow().as_ref().map(|r| (r.dir.clone(), r.values.clone()))
        == Some((rs.dir.clone(), rs.values.clone()));
    let recording = st.world.borrow().log.recording;
    world.log.recording = recording;
    let before_world = st.world.replace(world);
    let before_rs = st.ruleset.borrow().clone();
    let before_scenario = st.scenario.replace(Some(path.to_path_buf()));
    let r = if same_ruleset { Ok(()) } else { load_ruleset_into(lua, st, rs) };
    if r.is_err() {
        *st.world.borrow_mut() = before_world;
        *st.ruleset.borrow_mut() = before_rs;
        *st.scenario.borrow_mut() = before_scenario;
    }
    r
}

fn refresh_params(lua: &Lua, rs: &Ruleset) -> mlua::Result<()> {
    let params: Table = lua.named_registry_value(keys::PARAMS)?;
    params.set_readonly(false);
    params.clear()?;
    for (module, values) in &rs.values {
        let t = lua.create_table()?;
        for (k, v) in values {
            t.set(k.as_str(), json_to_lua(lua, v)?)?;
        }
        t.set_readonly(true);
        params.set(module.as_str(), t)?;
    }
    params.set_readonly(true);
    Ok(())
}

/// `require` names are `module` (the ruleset's folder) or `lib/module` (the shared
/// folder); dots may stand for slashes; nothing may climb out.
fn resolve_module(state: &State, name: &str) -> mlua::Result<PathBuf> {
    let bad = |why: &str| mlua::Error::runtime(format!("require('{name}'): {why}"));
    let rel = name.replace('.', "/");
    if rel.is_empty() || rel.starts_with('/') || rel.split('/').any(|p| p.is_empty() || p == "..") {
        return Err(bad("module names are like 'combat' or 'lib/cc_dice'; no absolute paths or '..'"));
    }
    if !rel.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/' || c == '-') {
        return Err(bad("module names may use letters, digits, '_', '-' and '/' only"));
    }
    let rs_dir = state.ruleset.borrow().as_ref().map(|r| r.dir.clone());
    let lib_dir = rs_dir
        .as_ref()
        .and_then(|d| d.parent().map(|p| p.join("lib")))
        .unwrap_or_else(|| crate::ruleset::project_root().join("rulesets").join("lib"));
    let candidate = if let Some(rest) = rel.strip_prefix("lib/") {
        lib_dir.join(format!("{rest}.lua"))
    } else {
        let dir = rs_dir.ok_or_else(|| bad("no ruleset is loaded, so only lib/ modules can be required"))?;
        dir.join(format!("{rel}.lua"))
    };
    if !candidate.is_file() {
        return Err(bad(&format!("no file {}", display_path(&candidate))));
    }
    Ok(candidate)
}

/// A path as shown in messages: relative to the current folder when under it.
pub fn display_path(p: &Path) -> String {
    if let Ok(cwd) = std::env::current_dir() {
        if let Ok(rel) = p.strip_prefix(&cwd) {
            return rel.display().to_string();
        }
    }
    p.display().to_string()
}

fn trip_message(trip: Option<Trip>, state: &State) -> String {
    trip_error(trip.unwrap_or(Trip::Time), state).to_string()
}

/// The error a tripped guard gives: matchable, and its message written once
/// (in `ScriptError`'s `Display`).
fn trip_error(trip: Trip, state: &State) -> ScriptError {
    match trip {
        Trip::Cancel => ScriptError::Interrupted,
        Trip::Time => ScriptError::TimeLimit { ms: state.limits.get().time_ms },
    }
}

/// Calls `f` so that a Lua error carries a traceback. The error value is
/// turned into a message in Rust, without running a script's `__tostring`
/// (an error object's metamethods are hostile territory).
pub fn call_with_traceback(lua: &Lua, f: &Function, args: MultiValue) -> mlua::Result<MultiValue> {
    let runner: Function = match lua.named_registry_value::<Option<Function>>(keys::TBCALL)? {
        Some(r) => r,
        None => {
            let r: Function = lua
                .load(
                    r#"
return function(f, ...)
  local tb
  local res = table.pack(xpcall(f, function(e)
    tb = debug.traceback(nil, 2)
    return e
  end, ...))
  if res[1] then return true, table.unpack(res, 2, res.n) end
  return false, res[2], tb
end
"#,
                )
                .set_name("=sandtable")
                .call(())?;
            lua.set_named_registry_value(keys::TBCALL, r.clone())?;
            r
        }
    };
    let mut all = MultiValue::new();
    all.push_back(Value::Function(f.clone()));
    all.extend(args);
    let mut out: MultiValue = runner.call(all)?;
    let ok = matches!(out.pop_front(), Some(Value::Boolean(true)));
    if ok {
        return Ok(out);
    }
    let err = out.pop_front().unwrap_or(Value::Nil);
    let tb = match out.pop_front() {
        Some(Value::String(s)) => trim_traceback(&s.to_string_lossy()),
        _ => String::new(),
    };
    Err(match err {
        Value::Error(e) => match *e {
            mlua::Error::CallbackError { cause, .. } => mlua::Error::CallbackError { traceback: tb, cause },
            mlua::Error::RuntimeError(m) => mlua::Error::RuntimeError(format!("{m}\n{tb}")),
            other => other,
        },
        Value::String(s) => {
            let m = s.to_string_lossy();
            if m == "not enough memory" {
                mlua::Error::MemoryError(m.to_string())
            } else {
                mlua::Error::RuntimeError(format!("{m}\n{tb}"))
            }
        }
        other => mlua::Error::RuntimeError(format!("error object: {}\n{tb}", display_value(&other))),
    })
}

/// Keeps a traceback readable: drops our own runner frames and caps its length
/// (runaway recursion makes thousands of frames).
pub fn trim_traceback(tb: &str) -> String {
    const KEEP: usize = 12;
    let lines: Vec<&str> = tb
        .lines()
        .filter(|l| !l.contains("sandtable:") && !l.contains("in function 'xpcall'") && !l.trim().is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    if !lines.first().is_some_and(|l| l.starts_with("stack traceback")) {
        out.push("stack traceback:".into());
    }
    if lines.len() > KEEP + 2 {
        out.extend(lines[..KEEP].iter().map(|l| l.to_string()));
        out.push(format!("\t... ({} more frames)", lines.len() - KEEP - 1));
        out.push(lines[lines.len() - 1].to_string());
    } else {
        out.extend(lines.iter().map(|l| l.to_string()));
    }
    out.join("\n")
}

/// A short readable form of a Lua value, without running user metamethods.
pub fn display_value(v: &Value) -> String {
    match v {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => format_number(*n),
        Value::String(s) => format!("{:?}", s.to_string_lossy()),
        Value::Vector(v) => format!("({},{})", format_number(v.x() as f64), format_number(v.y() as f64)),
        Value::Table(_) => "table".into(),
        Value::Function(_) => "function".into(),
        Value::UserData(ud) => {
            if let Ok(u) = ud.borrow::<world::UnitRef>() {
                format!("unit {}", u.id)
            } else {
                "userdata".into()
            }
        }
        other => other.type_name().to_string(),
    }
}

/// Numbers print without a trailing `.0` when whole.
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Converts YAML/JSON data to Lua tables (null becomes nil).
pub fn json_to_lua(lua: &Lua, v: &serde_json::Value) -> mlua::Result<Value> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => Value::Nil,
        J::Bool(b) => Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i as _),
            None => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => Value::String(lua.create_string(s)?),
        J::Array(a) => {
            let t = lua.create_table_with_capacity(a.len(), 0)?;
            for x in a {
                t.raw_push(json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
        J::Object(o) => {
            let t = lua.create_table_with_capacity(0, o.len())?;
            for (k, x) in o {
                t.raw_set(k.as_str(), json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}
