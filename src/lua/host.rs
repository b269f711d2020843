//! The host: one Luau state bound to one world, and the top-level calls
//! that run under its budgets (`exec`, `call_global`, transactions).
use super::*;

/// A Luau state with the sandtable API, bound to a world.
pub struct Host {
    pub lua: Lua,
    pub state: Rc<State>,
}

/// See [`Host::checkpoint`].
pub struct Checkpoint {
    world: World,
    handlers: Table,
    policies: Table,
    subscribed: bool,
    scenario: Option<PathBuf>,
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
        // Native code is generated only once the session runs hot
        // (`load::hot_after`), never by mlua as a chunk loads.
        lua.enable_jit(false);
        raw::stack::check(&lua);
        set_compiler(&lua, &[], options.coverage, !options.no_jit);
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
                started: Cell::new(None),
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
            unit_handle_cache: std::array::from_fn(|_| Cell::new((0, 0, 0))),
            kept_pos: RefCell::new(Vec::new()),
            names: RefCell::new(rustc_hash::FxHashMap::default()),
            subscribed: Cell::new(false),
            name_slots: RefCell::new(Vec::new()),
            name_cache: std::array::from_fn(|_| Cell::new((0, 0))),
            fast_misses: Cell::new(0),
            traceback_runner: Default::default(),
            handler_lists: Default::default(),
            tabletop_memo: Default::default(),
            tabletop_keys: Default::default(),
            rolls: Default::default(),
            chunks: RefCell::new(Vec::new()),
            loads: RefCell::new(Vec::new()),
            data_reads: RefCell::new(options.track_data.then(Default::default)),
        });
        lua.set_app_data(state.clone());
        let host = Host { lua, state };
        host.install()?;
        Ok(host)
    }

    pub(super) fn apply_limits(&self) {
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
        let now = Instant::now();
        g.deadline.set(Some(now + Duration::from_millis(ms)));
        g.started.set(Some(now));
        g.tripped.set(None);
        g.cancel.store(false, Ordering::Relaxed);
        self.state.output_written.set(0);
        let r = f(&self.lua);
        let tripped = g.tripped.take();
        g.deadline.set(None);
        g.started.set(None);
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
            let f = compile_chunk(lua, source, &format!("@{name}"))?;
            call_with_traceback(lua, &f, MultiValue::new())
        })
        .map_err(|e| ScriptError::from_lua_with(&e, Some((chunk_name, source))))
    }

    /// Runs a script file; relative `scenario(...)` paths resolve beside it.
    pub fn exec_file(&self, path: &Path) -> Result<MultiValue, ScriptError> {
        let path = &crate::paths::file_or_given(path);
        let source = Self::read_script(path)?;
        self.exec_script(path, &source)
    }

    /// The text of a script file (`path` as [`crate::paths::file_or_given`] gives it).
    pub fn read_script(path: &Path) -> Result<String, ScriptError> {
        chunk::read_source(path).map_err(|e| ScriptError::plain(format!("cannot read script {}: {e}", path.display())))
    }

    /// Runs `source`, the text of the script file `path` (read once, run
    /// again: a sweep's top level at each point).
    pub fn exec_script(&self, path: &Path, source: &str) -> Result<MultiValue, ScriptError> {
        *self.state.script_dir.borrow_mut() = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.exec(source, &display_path(path))
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

    /// Where a script starts from, to run it again from the same start: the
    /// world, the subscriptions and policies, the scenario (a sweep runs a
    /// trial script's top level again at each point, on the same state).
    pub fn checkpoint(&self) -> Result<Checkpoint, ScriptError> {
        let copy = || -> mlua::Result<(Table, Table)> {
            Ok((
                spec_api::copy_registry(&self.lua, keys::HANDLERS, true)?,
                spec_api::copy_registry(&self.lua, keys::POLICIES, false)?,
            ))
        };
        let (handlers, policies) = copy().map_err(|e| ScriptError::from_lua(&e))?;
        Ok(Checkpoint {
            world: self.snapshot(),
            handlers,
            policies,
            subscribed: self.state.subscribed.get(),
            scenario: self.state.scenario.borrow().clone(),
        })
    }

    /// Puts back what [`Host::checkpoint`] took (it can be put back again).
    /// The ruleset and its params stay as they are.
    pub fn rewind(&self, c: &Checkpoint) -> Result<(), ScriptError> {
        let put = || -> mlua::Result<()> {
            super::world::set_handlers(&self.lua, spec_api::copy_table(&self.lua, &c.handlers, true)?)?;
            self.lua.set_named_registry_value(keys::POLICIES, spec_api::copy_table(&self.lua, &c.policies, false)?)
        };
        put().map_err(|e| ScriptError::from_lua(&e))?;
        self.state.subscribed.set(c.subscribed);
        self.state.world.borrow_mut().reset_from(&c.world);
        self.state.scenario.replace(c.scenario.clone());
        Ok(())
    }

    /// Takes what `print` wrote, when output is captured.
    pub fn take_output(&self) -> String {
        match &mut *self.state.output.borrow_mut() {
            Output::Buffer(b) => String::from_utf8_lossy(&std::mem::take(b)).to_string(),
            Output::Stdout | Output::Tee(_) => String::new(),
        }
    }

    /// Keeps a copy of what `print` writes to standard output (or stops);
    /// captured output is kept anyway.
    pub fn copy_output(&self, on: bool) {
        let mut out = self.state.output.borrow_mut();
        match (&*out, on) {
            (Output::Stdout, true) => *out = Output::Tee(Vec::new()),
            (Output::Tee(_), false) => *out = Output::Stdout,
            _ => {}
        }
    }

    /// Takes the copy of what `print` wrote since the last call (see [`Host::copy_output`]).
    pub fn take_copy(&self) -> String {
        match &mut *self.state.output.borrow_mut() {
            Output::Tee(b) => String::from_utf8_lossy(&std::mem::take(b)).to_string(),
            Output::Stdout | Output::Buffer(_) => String::new(),
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
        super::spec_api::leftovers(&self.lua, &self.state).unwrap_or_default()
    }

    /// Clears forced dice and queued answers.
    pub fn clear_queues(&self) {
        self.state.world.borrow_mut().dice.clear_forced();
        if let Ok(t) = self.lua.create_table() {
            let _ = self.lua.set_named_registry_value(keys::ANSWERS, t);
        }
    }
}
