//! What the API functions share: the host `State` (the world, the
//! ruleset, budgets, output, decision mode, caches) and the host options.
use super::*;

/// Where `print` output goes.
pub enum Output {
    Stdout,
    Buffer(Vec<u8>),
}

/// The budget guard shared with the interrupt callback.
pub struct Guard {
    pub(super) deadline: Cell<Option<Instant>>,
    pub(super) ticks: Cell<u32>,
    pub(super) tripped: Cell<Option<Trip>>,
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
pub(super) enum Trip {
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
    pub(super) output_written: Cell<usize>,
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
    pub(super) names: RefCell<rustc_hash::FxHashMap<Box<str>, mlua::LuaString>>,
    /// False while no script has called `on` since the ruleset was (re)loaded:
    /// moves then skip building event arguments nobody would receive.
    pub subscribed: Cell<bool>,
    /// Names the fast paths keep as Lua strings (see `fast::push_name`).
    pub name_slots: RefCell<Vec<Rc<str>>>,
    /// Calls a fast path handed to its full function (tests check that
    /// simulation's hot calls stay on the fast paths).
    pub fast_misses: Cell<u64>,
    /// Module chunks `require` loaded, by display path (kept only with
    /// [`HostOptions::coverage`]).
    pub chunks: RefCell<Vec<(String, Function)>>,
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
    /// Compile with Luau's statement coverage and keep every module `require`
    /// loads, so `sandtable test --coverage` can read their line hits.
    pub coverage: bool,
    /// Module sources to use instead of the files, by canonical path: how
    /// `sandtable test --mutate` runs a mutant without writing to the ruleset.
    pub sources: Option<std::sync::Arc<std::collections::HashMap<PathBuf, String>>>,
    /// Specs: once a case of the file has failed, skip the rest (a mutation
    /// run needs only the first failure).
    pub fail_fast: bool,
}
