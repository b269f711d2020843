//! Loading rulesets and scenarios into a host: params, limits, compiler
//! settings, module scripts, and reloads that are all or nothing.
use super::*;

impl Host {
    pub(super) fn install_params(&self) -> mlua::Result<()> {
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
    /// Runs a base's specs against a variant: wherever one of these
    /// rulesets would load, the variant loads instead.
    pub stand_in: Option<StandIn>,
}

/// A variant standing in for the rulesets it extends (`sandtable test
/// VARIANT --with-base-specs`).
#[derive(Clone, Debug, PartialEq)]
pub struct StandIn {
    /// The folders of the rulesets replaced (canonical).
    pub bases: Vec<PathBuf>,
    /// The variant's folder.
    pub variant: PathBuf,
}

impl StandIn {
    /// A variant standing in for every ruleset it extends.
    pub fn for_variant(rs: &Ruleset) -> StandIn {
        StandIn { bases: rs.chain.iter().skip(1).map(|l| l.dir.clone()).collect(), variant: rs.dir.clone() }
    }

    /// The ruleset to load in place of the one in `dir`, if it stands in for it.
    pub fn replacing(&self, dir: &Path) -> Option<&Path> {
        let dir = crate::layers::files::canonical(dir);
        self.bases.contains(&dir).then_some(self.variant.as_path())
    }
}

/// Loads the ruleset `name` names from a file in folder `base`, or the
/// variant standing in for it; manifests from `sources` when they are there
/// ([`Ruleset::load_with`]).
pub fn load_named(
    name: &str,
    base: Option<&Path>,
    overrides: &ScenarioOverrides,
    sources: Option<&crate::ruleset::Sources>,
) -> Result<Ruleset, RulesetError> {
    if let Some(stand_in) = &overrides.stand_in {
        let found = crate::ruleset::locate(name, base, None)?;
        if let Some(v) = found.file.parent().and_then(|d| stand_in.replacing(d)) {
            return Ruleset::load_with(&v.display().to_string(), None, sources);
        }
    }
    Ruleset::load_with(name, base, sources)
}

/// Rulesets and scenarios parsed once and shared by the hosts of a run
/// whose files and `sources` do not change under it ([`HostOptions::parsed`]):
/// a mutation run starts a host for every spec file of every mutant, and
/// each loads the same ruleset and scenarios, whose YAML took longer to
/// parse than most spec cases run. Hosts with the same share reuse what one
/// of them parsed on the same thread (a ruleset holds `Rc`s); errors are
/// not kept. Rulesets and scenarios are shared apart: a data mutant
/// changes the ruleset's manifest, never a scenario ([`ParseShare::own_ruleset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseShare {
    rulesets: u64,
    scenarios: u64,
}

fn next_share() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl ParseShare {
    /// A share of its own.
    pub fn new() -> ParseShare {
        ParseShare { rulesets: next_share(), scenarios: next_share() }
    }

    /// This share's scenarios with rulesets of its own: for a host whose
    /// `sources` change a manifest but no scenario.
    pub fn own_ruleset(self) -> ParseShare {
        ParseShare { rulesets: next_share(), ..self }
    }

    /// [`load_named`], parsed once per name and folder.
    pub fn ruleset(
        self,
        name: &str,
        base: Option<&Path>,
        overrides: &ScenarioOverrides,
        sources: Option<&crate::ruleset::Sources>,
    ) -> Result<Ruleset, RulesetError> {
        let key = (self.rulesets, name.to_string(), base.map(Path::to_path_buf));
        if let Some(rs) = PARSED_RULESETS.with_borrow(|m| m.get(&key).cloned()) {
            return Ok(rs);
        }
        let rs = load_named(name, base, overrides, sources)?;
        PARSED_RULESETS.with_borrow_mut(|m| {
            // A share per data mutant: keep the thread's memory bounded.
            if m.len() >= PARSED_KEPT {
                m.clear();
            }
            m.insert(key, rs.clone());
        });
        Ok(rs)
    }

    /// [`Scenario::load`], parsed once per file.
    pub fn scenario(self, path: &Path) -> Result<Rc<Scenario>, Box<crate::error::LocatedError>> {
        let key = (self.scenarios, path.to_path_buf());
        if let Some(sc) = PARSED_SCENARIOS.with_borrow(|m| m.get(&key).cloned()) {
            return Ok(sc);
        }
        let sc = Rc::new(Scenario::load(path)?);
        PARSED_SCENARIOS.with_borrow_mut(|m| {
            if m.len() >= PARSED_KEPT {
                m.clear();
            }
            m.insert(key, sc.clone());
        });
        Ok(sc)
    }
}

impl Default for ParseShare {
    fn default() -> Self {
        ParseShare::new()
    }
}

/// Parses kept per thread, at most.
const PARSED_KEPT: usize = 64;

type RulesetKey = (u64, String, Option<PathBuf>);

thread_local! {
    static PARSED_RULESETS: RefCell<std::collections::HashMap<RulesetKey, Ruleset>> = RefCell::default();
    static PARSED_SCENARIOS: RefCell<std::collections::HashMap<(u64, PathBuf), Rc<Scenario>>> =
        RefCell::default();
}

pub(super) fn apply_limits(lua: &Lua, st: &State) {
    let mb = st.limits.get().memory_mb;
    let _ = lua.set_memory_limit((mb as usize).saturating_mul(1 << 20));
}

/// Installs a ruleset into a state: limits, dice, params, scripts.
pub fn load_ruleset_into(lua: &Lua, st: &State, rs: Ruleset) -> Result<(), ScriptError> {
    if let Some(n) = rs.shadow_note() {
        crate::layers::note(n);
    }
    let load = RulesetLoad {
        name: rs.name.clone(),
        dir: rs.dir.clone(),
        origin: rs.origin,
        scenario: st.scenario.borrow().clone(),
    };
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
    } else {
        st.loads.borrow_mut().push(load);
    }
    r
}

/// Takes the loaded ruleset out of a state, back to a host with none: its
/// modules' globals, `params`, the `ruleset` table, the compiler's module
/// names and the limits (the scripts' registry entries, subscriptions and
/// policies, are the caller's to put back). A spec case that loaded a
/// ruleset into a spec file without one ends with this, so that the next
/// case loads it afresh, subscriptions and all.
pub(super) fn unload_ruleset_into(lua: &Lua, st: &State) -> mlua::Result<()> {
    let Some(rs) = st.ruleset.replace(None) else {
        return Ok(());
    };
    let g = lua.globals();
    for m in &rs.modules {
        g.raw_set(m.as_str(), Value::Nil)?;
    }
    for key in [keys::PARAMS, keys::RULESET] {
        let t: Table = lua.named_registry_value(key)?;
        t.set_readonly(false);
        t.clear()?;
        // The data a tracking host kept behind `__index` go too.
        t.set_metatable(None)?;
    }
    set_compiler(lua, &[], st.options.coverage, !st.options.no_jit);
    st.limits.set(Limits {
        time_ms: st.options.time_ms.unwrap_or(Limits::default().time_ms),
        memory_mb: st.options.memory_mb.unwrap_or(Limits::default().memory_mb),
    });
    apply_limits(lua, st);
    Ok(())
}

/// Re-reads the ruleset's YAML (keeping param values set so far) and re-runs its scripts.
pub fn reload_into(lua: &Lua, st: &State) -> Result<(), ScriptError> {
    let Some(old) = st.ruleset.borrow().clone() else {
        return Ok(());
    };
    let file = old.dir.join("ruleset.yaml");
    let src = crate::layers::files::read_to_string(&file)
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
    rs.shadows = old.shadows.clone();
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
/// With `coverage`, Luau records statement hits (at optimization level 1, so
/// no function is inlined away from its own lines).
/// `native`: whether chunks get native code once they run hot (see [`hot_after`]).
pub(super) fn set_compiler(lua: &Lua, modules: &[String], coverage: bool, native: bool) {
    let mut c = lua.remove_app_data::<Compiling>().unwrap_or_default();
    c.modules = modules.to_vec();
    c.coverage = coverage;
    c.native = native;
    lua.set_app_data(c);
}

/// How long a top-level call, or a worker's trials together, run before the
/// chunks loaded so far get native code. Luau's code generator costs about
/// 20 ms for a big ruleset (110 M instructions for republique's modules) and
/// gains 5–15% on a trial, so it pays only for runs of a second or so:
/// compiling once a run has gone on this long bounds what a short run
/// (a spec, `sim --trials 1`, a REPL command) pays to nothing and what a long
/// run loses to the few hundred milliseconds before it (the rent-or-buy
/// rule).
///
/// `SANDTABLE_NATIVE_AFTER_MS` sets it (in ms): under valgrind, which runs
/// the program some fifty times slower, scale it by as much so that the
/// generator starts after as much work as it would outside (see
/// docs/PERFORMANCE.md).
pub fn hot_after() -> Duration {
    static AFTER: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *AFTER.get_or_init(|| {
        let ms = std::env::var("SANDTABLE_NATIVE_AFTER_MS").ok().and_then(|v| v.trim().parse().ok());
        Duration::from_millis(ms.unwrap_or(200))
    })
}

/// Gives `f` (a chunk just loaded as `name`) native code now if the
/// session already runs hot, else keeps it for [`compile_deferred`] in place
/// of a chunk loaded before under the same name: a ruleset reloaded (by
/// `:reload`, or by each spec case that sets a param) runs its modules
/// again, and only their newest copy is worth native code. Kept all, the
/// copies would be held alive, and compiled together by the call that runs
/// hot, against that call's time budget.
fn want_native(lua: &Lua, name: &str, f: &Function) -> mlua::Result<()> {
    let hot = match lua.app_data_mut::<Compiling>() {
        Some(mut c) if c.native => {
            if !c.hot {
                c.deferred.retain(|(n, _)| n != name);
                c.deferred.push((name.to_string(), f.clone()));
            }
            c.hot
        }
        _ => false,
    };
    if hot {
        compile_native_untimed(lua, std::slice::from_ref(f))?;
    }
    Ok(())
}

/// Generates native code for every chunk loaded so far (functions already
/// running finish in the interpreter; their next calls run native), and
/// for every chunk loaded from now on as it loads. Called when the session
/// runs hot ([`hot_after`]).
pub fn compile_deferred(lua: &Lua) -> mlua::Result<()> {
    let deferred = match lua.app_data_mut::<Compiling>() {
        Some(mut c) if c.native => {
            c.hot = true;
            std::mem::take(&mut c.deferred)
        }
        _ => return Ok(()),
    };
    let deferred: Vec<Function> = deferred.into_iter().map(|(_, f)| f).collect();
    compile_native_untimed(lua, &deferred)
}

/// Generates native code for `fs` off the running call's time budget: the
/// call's deadline moves later by the time the generator took (tens of
/// milliseconds for a big ruleset, more on a loaded machine), which is the
/// host's choice and not the script's time.
fn compile_native_untimed(lua: &Lua, fs: &[Function]) -> mlua::Result<()> {
    let started = Instant::now();
    let r = fs.iter().try_for_each(|f| raw::load::compile_native(lua, f));
    if let Some(st) = lua.app_data_ref::<Rc<State>>() {
        st.guard.extend_deadline(started.elapsed());
    }
    r
}

fn compiler(coverage: bool) -> mlua::chunk::Compiler {
    if coverage {
        mlua::chunk::Compiler::new().set_optimization_level(1).set_coverage_level(1)
    } else {
        mlua::chunk::Compiler::new().set_optimization_level(2)
    }
}

/// How a session compiles and loads chunks (app data of its Lua state).
#[derive(Default)]
struct Compiling {
    /// The loaded ruleset's modules.
    modules: Vec<String>,
    coverage: bool,
    /// Whether Luau's native code generator compiles what loads, once the
    /// session runs hot ([`hot_after`]).
    native: bool,
    /// The session has run hot: chunks get native code as they load.
    hot: bool,
    /// Chunks loaded before the session ran hot, by name, waiting for
    /// native code (the newest of each name: see [`want_native`]).
    deferred: Vec<(String, Function)>,
    /// What a loading chunk's imports resolve against (see [`install_loader`]).
    imports: Option<Table>,
    /// The globals the imports view could not answer while a chunk loaded.
    unresolved: Vec<String>,
}

/// Sets up [`compile_chunk`] once the sandbox is in place: `base` is the
/// read-only table of the sandbox's own globals, `globals` the scripts'
/// global table that reads through to it.
///
/// The imports view answers, while a chunk loads, the globals that never
/// change: the sandbox's own (unless a script has set a global of that
/// name) and the ruleset's modules (a reload refills a module's table in
/// place). Anything else, such as a global a script set, is looked up at
/// each access (see [`compile_chunk`]).
pub(super) fn install_loader(lua: &Lua, base: &Table, globals: &Table) -> mlua::Result<()> {
    let (base, globals) = (base.clone(), globals.clone());
    let index = lua.create_function(move |lua, (_, k): (Value, mlua::LuaString)| {
        let module =
            lua.app_data_ref::<Compiling>().is_some_and(|c| c.modules.iter().any(|m| m.as_bytes() == &*k.as_bytes()));
        if module {
            return globals.raw_get::<Value>(k);
        }
        let found = if globals.raw_get::<Value>(&k)?.is_nil() { base.raw_get::<Value>(&k)? } else { Value::Nil };
        if found.is_nil() {
            if let Some(mut c) = lua.app_data_mut::<Compiling>() {
                let name = k.to_string_lossy();
                if !c.unresolved.contains(&name) {
                    c.unresolved.push(name);
                }
            }
        }
        Ok(found)
    })?;
    let imports = lua.create_table()?;
    let mt = lua.create_table()?;
    mt.raw_set("__index", index)?;
    imports.set_metatable(Some(mt))?;
    raw::load::set_safeenv(lua, &imports)?;
    let mut c = lua.remove_app_data::<Compiling>().unwrap_or_default();
    c.imports = Some(imports);
    lua.set_app_data(c);
    Ok(())
}

/// Compiles and loads a chunk of a script's or a ruleset's source.
///
/// Luau keeps, for good, the value each global a chunk reads had when the
/// chunk loaded. Loaded the plain way, a function typed at the REPL would go
/// on reading a global's old value after the global changed; here only the
/// globals that never change are kept (see [`install_loader`]).
///
/// A chain such as `reserve_artillery.fire` whose first name the imports
/// view cannot answer (a script's own global, or the module of a ruleset the
/// script has yet to load) is left for Luau to resolve, link by link through
/// its slow import path, at every access. Such a chunk is compiled again
/// with those names mutable: Luau then resolves only the name that way and
/// reads its fields as it reads any table's (about 110 instructions less per
/// access of a two-link chain).
///
/// The source is always compiled as text ([`chunk`]): a chunk that starts
/// with a control byte is a syntax error, never bytecode.
pub fn compile_chunk(lua: &Lua, source: &str, name: &str) -> mlua::Result<Function> {
    let Some((coverage, modules, imports)) = lua.app_data_ref::<Compiling>().and_then(|c| {
        let imports = c.imports.clone()?;
        Some((c.coverage, c.modules.clone(), imports))
    }) else {
        return load_text(lua, source, name);
    };
    let Ok(c_name) = std::ffi::CString::new(name) else {
        return load_text(lua, source, name);
    };
    let mut mutable = mutable_globals(&modules);
    let bytecode = compile_cached(coverage, &mutable, source, name)?;
    let globals = lua.globals();
    let loaded = raw::load::load(lua, &bytecode, &c_name, &imports, &globals);
    let unresolved = lua.app_data_mut::<Compiling>().map(|mut c| std::mem::take(&mut c.unresolved)).unwrap_or_default();
    let mut f = loaded?;
    if !unresolved.is_empty() {
        mutable.extend(unresolved);
        let bytecode = compile_cached(coverage, &mutable, source, name)?;
        f = raw::load::load(lua, &bytecode, &c_name, &imports, &globals)?;
        // The same names again: nothing more to gain.
        if let Some(mut c) = lua.app_data_mut::<Compiling>() {
            c.unresolved.clear();
        }
    }
    want_native(lua, name, &f)?;
    Ok(f)
}

/// Luau bytecode of a source, compiled once per process for each source,
/// coverage setting and list of mutable globals. Every spec file runs in a
/// fresh host that loads the same modules, and a mutation run starts
/// thousands of hosts: each compiles only the one module its mutant changed.
/// A syntax error names the chunk `name` (errors are not kept).
fn compile_cached(coverage: bool, mutable: &[String], source: &str, name: &str) -> mlua::Result<chunk::Bytecode> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    type Key = (bool, Vec<String>, String);
    static CACHE: Mutex<Option<HashMap<Key, chunk::Bytecode>>> = Mutex::new(None);
    /// Sources kept at most (a REPL session that edits a module many times
    /// starts the cache afresh rather than keep every version).
    const KEPT: usize = 256;
    let key: Key = (coverage, mutable.to_vec(), source.to_string());
    if let Some(b) = CACHE.lock().ok().and_then(|c| c.as_ref()?.get(&key).cloned()) {
        return Ok(b);
    }
    let bytecode = chunk::compile(&compiler(coverage).set_mutable_globals(mutable.to_vec()), source, name)?;
    if let Ok(mut c) = CACHE.lock() {
        let map = c.get_or_insert_with(HashMap::new);
        if map.len() >= KEPT {
            map.clear();
        }
        map.insert(key, bytecode.clone());
    }
    Ok(bytecode)
}

/// Compiles source text with the session's compiler settings and loads it
/// the plain way (imports resolved in the globals as it loads): for the
/// host's own Lua, and for chunks loaded before the sandbox is in place.
/// Never bytecode (see [`chunk`]).
pub fn load_text(lua: &Lua, source: &str, name: &str) -> mlua::Result<Function> {
    let compiler = match lua.app_data_ref::<Compiling>() {
        Some(c) => compiler(c.coverage).set_mutable_globals(mutable_globals(&c.modules)),
        None => mlua::chunk::Compiler::new(),
    };
    let f = chunk::load(lua, &chunk::compile(&compiler, source, name)?, name)?;
    want_native(lua, name, &f)?;
    Ok(f)
}

fn mutable_globals(modules: &[String]) -> Vec<String> {
    let mut mutable: Vec<String> = vec!["params".into(), "ruleset".into()];
    mutable.extend(modules.iter().cloned());
    mutable
}

/// Publishes the ruleset's data to Lua: `params` and the `ruleset` table.
pub(super) fn publish_ruleset(lua: &Lua, rs: &Ruleset) -> mlua::Result<()> {
    refresh_params(lua, rs)?;
    let rt: Table = lua.named_registry_value(keys::RULESET)?;
    rt.set_readonly(false);
    rt.set("name", rs.name.as_str())?;
    rt.set("title", rs.title.as_str())?;
    rt.set("dir", display_path(&rs.dir))?;
    let data = lua.create_table()?;
    data.set("terrain", json_to_lua(lua, &serde_json::Value::Object(rs.terrain.clone()))?)?;
    data.set("unit_types", json_to_lua(lua, &serde_json::Value::Object(rs.unit_types.clone()))?)?;
    data.set("charts", json_to_lua(lua, &rs.charts)?)?;
    publish_data(lua, &rt, data, "")?;
    rt.set("tokens", lua.create_sequence_from(rs.tokens.iter().map(String::as_str))?)?;
    rt.set("variant", rs.variant.clone())?;
    rt.set_readonly(true);
    Ok(())
}

/// Registry entries the scripts fill in (subscriptions, policies, loaded
/// modules, the LOS rule): started afresh on a (re)load, put back if it fails.
pub(super) const SCRIPT_REGISTRY: [&str; 4] = [keys::HANDLERS, keys::POLICIES, keys::LOADED, keys::LOS_RULE];

/// Runs the ruleset's modules. All or nothing: if one fails, the previous
/// modules, subscriptions and policies stay in place and the session goes on
/// with them.
pub(super) fn run_ruleset_scripts(lua: &Lua, st: &State, previous: Option<&Ruleset>) -> mlua::Result<()> {
    let Some(rs) = st.ruleset.borrow().clone() else {
        return Ok(());
    };
    let saved: Vec<Value> =
        SCRIPT_REGISTRY.iter().map(|k| lua.named_registry_value::<Value>(k)).collect::<mlua::Result<_>>()?;
    set_compiler(lua, &rs.modules, st.options.coverage, !st.options.no_jit);
    let was_subscribed = st.subscribed.replace(false);
    let run = || -> mlua::Result<Vec<(String, Value)>> {
        publish_ruleset(lua, &rs)?;
        for k in SCRIPT_REGISTRY {
            if k == keys::LOS_RULE {
                lua.set_named_registry_value(k, Value::Nil)?;
            } else if k == keys::HANDLERS {
                super::world::set_handlers(lua, lua.create_table()?)?;
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
            st.handler_lists.borrow_mut().clear(); // lists read from the failed load's table
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
pub(super) fn install_module(g: &Table, name: &str, module: Value) -> mlua::Result<()> {
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
        return Err(ScriptError::plain(crate::paths::not_found(path, "scenario file")));
    };
    let path = path.as_path();
    let parsed = st.options.parsed;
    let sc = match parsed {
        Some(p) => p.scenario(path),
        None => Scenario::load(path).map(Rc::new),
    }
    .map_err(ScriptError::Located)?;
    let rs_name = overrides.ruleset.clone().unwrap_or_else(|| sc.ruleset.clone());
    let base = if overrides.ruleset.is_none() { path.parent() } else { None };
    let sources = st.options.sources.as_deref();
    let rs = match parsed {
        Some(p) => p.ruleset(&rs_name, base, overrides, sources),
        None => load_named(&rs_name, base, overrides, sources),
    };
    let mut rs = rs.map_err(|e| match e {
        crate::ruleset::RulesetError::NotFound { .. } | crate::ruleset::RulesetError::NoRulesetAt { .. }
            if overrides.ruleset.is_none() =>
        {
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
    // Building the world reads the ruleset's tables in Rust (types' strengths
    // and bases, terrain, cover classes): a mutation run tracks that too.
    for datum in ["terrain", "unit_types", "charts"] {
        st.note_read(datum);
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

pub(super) fn refresh_params(lua: &Lua, rs: &Ruleset) -> mlua::Result<()> {
    let params: Table = lua.named_registry_value(keys::PARAMS)?;
    params.set_readonly(false);
    params.clear()?;
    let modules = lua.create_table()?;
    for (module, values) in &rs.values {
        let t = lua.create_table()?;
        for (k, v) in values {
            t.set(k.as_str(), json_to_lua(lua, v)?)?;
        }
        t.set_readonly(true);
        modules.set(module.as_str(), t)?;
    }
    publish_data(lua, &params, modules, "params.")?;
    params.set_readonly(true);
    Ok(())
}

/// Puts the entries of `data` into `target` (writable at the call). With
/// [`HostOptions::track_data`](super::HostOptions::track_data) they stay
/// out of it instead, behind an `__index` that notes each read as
/// `prefix` + key ([`State::note_read`]): a mutation run learns which spec
/// cases read which data. Only the clean run of `--mutate` tracks.
fn publish_data(lua: &Lua, target: &Table, data: Table, prefix: &'static str) -> mlua::Result<()> {
    let tracking = lua.app_data_ref::<Rc<State>>().is_some_and(|st| st.options.track_data);
    if !tracking {
        for pair in data.pairs::<Value, Value>() {
            let (k, v) = pair?;
            target.set(k, v)?;
        }
        return Ok(());
    }
    let index = lua.create_function(move |lua, (_, key): (Value, Value)| {
        let v: Value = data.raw_get(&key)?;
        if let (false, Value::String(k)) = (v.is_nil(), &key) {
            if let Some(st) = lua.app_data_ref::<Rc<State>>() {
                st.note_read(&format!("{prefix}{}", k.to_string_lossy()));
            }
        }
        Ok(v)
    })?;
    let meta = lua.create_table()?;
    meta.set("__index", index)?;
    target.set_metatable(Some(meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the chunks waiting for native code, oldest first.
    fn deferred(lua: &Lua) -> Vec<String> {
        lua.app_data_ref::<Compiling>().map(|c| c.deferred.iter().map(|(n, _)| n.clone()).collect()).unwrap_or_default()
    }

    const SUM: &str = "local n = 0 for i = 1, 10 do n = n + i end return n";

    #[test]
    fn hosts_of_one_parse_share_parse_a_scenario_and_ruleset_once() {
        let path = crate::paths::find_file(Path::new("scripts/great_war/bombardment.yaml")).expect("bundled");
        let (a, b) = (ParseShare::new(), ParseShare::new());
        let first = a.scenario(&path).expect("parses");
        assert!(Rc::ptr_eq(&first, &a.scenario(&path).expect("parses")), "the same share parses once");
        assert!(!Rc::ptr_eq(&first, &b.scenario(&path).expect("parses")), "another share parses its own");
        let o = ScenarioOverrides::default();
        let rs = a.ruleset("great_war", None, &o, None).expect("loads");
        assert_eq!(rs.dir, Ruleset::load("great_war").expect("loads").dir);
        // A data mutant's manifest reaches only the share it was given.
        let yaml = crate::layers::files::canonical(&rs.dir.join("ruleset.yaml"));
        let text = crate::layers::files::read_to_string(&yaml).expect("reads").replacen("title:", "title: Mutated", 1);
        let sources: crate::ruleset::Sources = std::collections::HashMap::from([(yaml, text)]);
        let mutated = b.ruleset("great_war", None, &o, Some(&sources)).expect("loads");
        assert!(mutated.title.starts_with("Mutated"), "{}", mutated.title);
        assert_eq!(a.ruleset("great_war", None, &o, Some(&sources)).expect("loads").title, rs.title);
    }

    #[test]
    fn a_chunk_loaded_again_takes_the_place_of_its_old_copy_until_the_session_runs_hot() {
        let host = Host::new(HostOptions::default()).unwrap();
        let lua = &host.lua;
        let before = deferred(lua).len();
        // A module run again by each reload of its ruleset, and a REPL line.
        for i in 0..3 {
            compile_chunk(lua, &format!("return {i}"), "@rules/fire.lua").unwrap();
        }
        compile_chunk(lua, "return 1", "@repl#1").unwrap();
        let f = compile_chunk(lua, SUM, "@rules/fire.lua").unwrap();
        load_text(lua, "return 3", "@repl#1").unwrap();
        let names = deferred(lua);
        assert_eq!(names.len(), before + 2, "one copy of each name waits, not every load: {names:?}");
        assert_eq!(names[before..], ["@rules/fire.lua", "@repl#1"]);
        compile_deferred(lua).unwrap();
        assert!(deferred(lua).is_empty());
        assert_eq!(f.call::<i64>(()).unwrap(), 55, "the newest copy runs, with native code");
        // Hot: later chunks get native code as they load, and are not kept.
        compile_chunk(lua, "return 2", "@rules/fire.lua").unwrap();
        assert!(deferred(lua).is_empty());
    }

    #[test]
    fn generating_native_code_moves_the_running_call_deadline_by_its_time() {
        let host = Host::new(HostOptions::default()).unwrap();
        let (lua, guard) = (&host.lua, &host.state.guard);
        // A call whose budget runs out now: the generator's time must not
        // use it up (under CI load it took longer than a spec's budget).
        let deadline = Instant::now();
        guard.deadline.set(Some(deadline));
        compile_chunk(lua, SUM, "@rules/fire.lua").unwrap();
        let started = Instant::now();
        compile_deferred(lua).unwrap();
        let took = started.elapsed();
        let moved = guard.deadline.get().unwrap() - deadline;
        assert!(moved > Duration::ZERO && moved <= took, "moved {moved:?} for a compile of {took:?}");
        // Once hot, a chunk gets native code as it loads: off the budget too.
        let deadline = guard.deadline.get().unwrap();
        compile_chunk(lua, SUM, "@rules/melee.lua").unwrap();
        assert!(guard.deadline.get().unwrap() > deadline);
        // Between calls there is no deadline to move.
        guard.deadline.set(None);
        compile_chunk(lua, SUM, "@rules/fire.lua").unwrap();
        assert_eq!(guard.deadline.get(), None);
    }
}
