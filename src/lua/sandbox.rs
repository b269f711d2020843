//! The sandbox: trimmed libraries, `print`, the API areas, the guard that
//! keeps scripts from replacing the API, and the interrupt that enforces
//! the time budget (it fires even inside `pcall`, coroutines and patterns).
use super::*;

/// Every global of a fresh host: Luau's libraries and functions as the
/// sandbox keeps them, and the sandtable API (with `params` and `ruleset`).
static GLOBALS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// The globals every script may rely on, sorted (the same for every host). A
/// ruleset module becomes the global of its name, so none may take one of
/// these (`Ruleset::parse` refuses it).
pub fn sandbox_globals() -> &'static [String] {
    if GLOBALS.get().is_none() {
        // No host made yet in this process: making one fills the list.
        let _ = Host::new(HostOptions::default());
    }
    GLOBALS.get().map_or(&[], Vec::as_slice)
}

/// Fills [`GLOBALS`] once, from the first host made: the API's names and
/// the sandbox's base table `base`.
fn record_globals(entries: &[api::ApiEntry], base: &Table) -> mlua::Result<()> {
    if GLOBALS.get().is_some() {
        return Ok(());
    }
    let mut names: Vec<String> = api::global_names(entries).into_iter().map(String::from).collect();
    for pair in base.pairs::<Value, Value>() {
        if let (Value::String(k), _) = pair? {
            names.push(k.to_string_lossy());
        }
    }
    names.sort_unstable();
    names.dedup();
    let _ = GLOBALS.set(names);
    Ok(())
}

impl Host {
    pub(super) fn install(&self) -> mlua::Result<()> {
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
            if let Value::Table(t) = &base {
                super::load::install_loader(lua, t, &proxy)?;
                record_globals(&entries, t)?;
            }
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

    pub(super) fn install_interrupt(&self) {
        let state = self.state.clone();
        self.lua.set_interrupt(move |lua| {
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
                let now = Instant::now();
                if let Some(deadline) = g.deadline.get() {
                    if now > deadline {
                        g.tripped.set(Some(Trip::Time));
                        return Err(mlua::Error::runtime(trip_message(g.tripped.get(), &state)));
                    }
                }
                // A long call: its chunks get native code from here on (the
                // generator's time moves the deadline: it is not the script's).
                if g.started.get().is_some_and(|s| now.duration_since(s) >= super::hot_after()) {
                    g.started.set(None);
                    super::compile_deferred(lua)?;
                }
                // What the script made the host keep (logged rolls, marks)
                // counts against the memory limit too.
                state.check_memory(lua)?;
            }
            Ok(VmState::Continue)
        });
    }
}
