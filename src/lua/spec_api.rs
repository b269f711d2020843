//! Spec files: `describe(name, fn)`, `it(name, fn)`, `expect(v):to_be(x)`,
//! `expect_error(fn, text)`, plus `scenario(path)` to set up a battlefield.
//!
//! Each `it` runs on a copy of the world as it stood before it, with its own
//! time budget; every decision needs a queued answer (or a policy for its
//! id), and forced dice or answers left unused at its end fail it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use std::rc::Rc;

use mlua::{Function, IntoLuaMulti, Lua, MultiValue, Value};

use super::api::Api;
use super::{call_with_traceback, keys, DecisionMode, ScenarioOverrides, ScriptError, State};

/// One `it` case.
#[derive(Debug)]
pub struct CaseResult {
    pub name: String,
    pub error: Option<ScriptError>,
    /// Its place among the file's `it` calls (0: the first), skipped ones
    /// counted: what [`HostOptions::cases`](super::HostOptions::cases) names.
    pub index: Option<usize>,
    /// With coverage on, what the case ran: (chunk, line, times), the
    /// module lines whose counts grew while it ran.
    pub hits: Vec<(String, u32, u64)>,
    /// With [`HostOptions::track_data`](super::HostOptions::track_data),
    /// the ruleset's data the case read ([`State::data_reads`]).
    pub reads: std::collections::BTreeSet<String>,
    /// How long its function ran.
    pub took: Duration,
}

/// The cases of one spec file.
#[derive(Debug, Default)]
pub struct SpecReport {
    pub cases: Vec<CaseResult>,
    /// `it` calls so far, run or skipped.
    pub seen: usize,
}

impl SpecReport {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.error.is_none()).count()
    }
    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|c| c.error.is_some()).count()
    }
}

/// Scenario overrides from the command line, applied by `scenario(...)` in scripts.
pub struct Overrides(pub ScenarioOverrides);

const EXPECT: &str = r#"
local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "table" then
    local parts, n = {}, 0
    for k, x in pairs(v) do
      n += 1
      if n > 12 then table.insert(parts, "..."); break end
      if type(k) == "number" then table.insert(parts, tostring(x)) else table.insert(parts, tostring(k) .. "=" .. tostring(x)) end
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(v)
end
local function deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do if not deep_equal(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
local Expect = {}
Expect.__index = Expect
function Expect:to_be(x)
  if self.v ~= x then error("expected " .. show(x) .. ", got " .. show(self.v), 2) end
  return self
end
function Expect:to_equal(x)
  if not deep_equal(self.v, x) then error("expected " .. show(x) .. ", got " .. show(self.v), 2) end
  return self
end
function Expect:to_be_close(x, eps)
  eps = eps or 1e-9
  if type(self.v) ~= "number" or math.abs(self.v - x) > eps then
    error("expected " .. show(x) .. " (within " .. eps .. "), got " .. show(self.v), 2)
  end
  return self
end
function Expect:to_be_truthy()
  if not self.v then error("expected a true value, got " .. show(self.v), 2) end
  return self
end
function Expect:to_be_falsy()
  if self.v then error("expected false or nil, got " .. show(self.v), 2) end
  return self
end
function Expect:to_be_nil()
  if self.v ~= nil then error("expected nil, got " .. show(self.v), 2) end
  return self
end
function Expect:to_contain(x)
  if type(self.v) == "string" then
    if not string.find(self.v, x, 1, true) then error("expected " .. show(self.v) .. " to contain " .. show(x), 2) end
    return self
  end
  for _, v in ipairs(self.v) do if v == x then return self end end
  error("expected " .. show(self.v) .. " to contain " .. show(x), 2)
end
local function expect(v) return setmetatable({ v = v }, Expect) end
local function expect_error(f, text)
  local ok, err = pcall(f)
  if ok then error("expected an error" .. (text and (" containing " .. show(text)) or "") .. ", but it succeeded", 2) end
  local msg = tostring(err)
  if text and not string.find(msg, text, 1, true) then
    error("expected an error containing " .. show(text) .. ", got " .. show(msg), 2)
  end
  return msg
end
return expect, expect_error
"#;

/// The `spec` area: the globals spec files use.
pub fn install(api: &mut Api) -> mlua::Result<()> {
    let (expect, expect_error): (Function, Function) = super::load_text(api.lua, EXPECT, "=expect")?.call(())?;
    api.value(
        "expect(v):to_be(x)",
        "also to_equal, to_be_close, to_be_truthy, to_be_falsy, to_be_nil, to_contain",
        Value::Function(expect),
    )?;
    api.value("expect_error(fn, text?)", "fn must fail (with text in its message)", Value::Function(expect_error))?;

    api.function("describe(name, fn)", "group spec cases", describe)?;

    api.function("it(name, fn)", "define a spec case: it runs on a copy of the world", it)?;

    api.function(
        "scenario(path, opts?)",
        "load a scenario file ({variant=, set={...}, seed=} adds overrides)",
        scenario,
    )?;
    api.function(
        "same_paths{board=, full=, quiet=, trials=, seed=, decisions=, fields=}",
        "a rule's quiet (fast) path must leave the same battlefield and record numbers as its full path, on random boards with seeded dice and decisions",
        crate::spec::same_paths::same_paths,
    )?;
    api.function(
        "exact_odds(fn, opts?)",
        "each metric fn returns, its exact mean over every outcome of the dice fn looks at (as `exact` enumerates them), on copies of the world; also the fractions, distributions and leaves",
        crate::spec::exact_odds::exact_odds,
    )?;
    Ok(())
}

/// `describe(name, fn)`: group spec cases.
fn describe(lua: &Lua, st: &Rc<State>, (name, f): (String, Function)) -> mlua::Result<impl IntoLuaMulti> {
    st.spec_path.borrow_mut().push(name.clone());
    let r = call_with_traceback(lua, &f, MultiValue::new());
    let path = st.spec_path.borrow().join(" > ");
    st.spec_path.borrow_mut().pop();
    if let Err(e) = r {
        st.spec.borrow_mut().cases.push(CaseResult {
            name: format!("{path} (outside any `it`)"),
            error: Some(ScriptError::from_lua(&e)),
            index: None,
            hits: Vec::new(),
            reads: Default::default(),
            took: Duration::ZERO,
        });
    }
    Ok(())
}

/// `it(name, fn)`: define a spec case: it runs on a copy of the world.
fn it(lua: &Lua, st: &Rc<State>, (name, f): (String, Function)) -> mlua::Result<impl IntoLuaMulti> {
    let full = {
        let mut p = st.spec_path.borrow().clone();
        p.push(name);
        p.join(" > ")
    };
    if st.spec_path.borrow().last().is_some_and(|l| l.starts_with("\u{0}it:")) {
        return Err(mlua::Error::runtime("`it` cannot be nested inside another `it`"));
    }
    let index = {
        let mut spec = st.spec.borrow_mut();
        spec.seen += 1;
        spec.seen - 1
    };
    // A mutation run needs only the first failure of a file, and only the
    // cases that run the mutated line.
    if st.options.fail_fast && st.spec.borrow().failed() > 0 {
        return Ok(false);
    }
    if st.options.cases.as_ref().is_some_and(|only| !only.contains(&index)) {
        return Ok(true);
    }
    let before = st.world.borrow().clone();
    // A `scenario(path, {variant=, set=})` inside the case changes the
    // ruleset's params: put them back afterwards, with the world.
    let before_rs = st.ruleset.borrow().clone();
    let before_scenario = st.scenario.borrow().clone();
    // So are subscriptions (`on`) and policies made inside it.
    let before_handlers = copy_registry(lua, keys::HANDLERS, true)?;
    let before_policies = copy_registry(lua, keys::POLICIES, false)?;
    let before_subscribed = st.subscribed.get();
    // A (re)load replaces these tables rather than changing them.
    let before_loaded: Value = lua.named_registry_value(keys::LOADED)?;
    let before_los_rule: Value = lua.named_registry_value(keys::LOS_RULE)?;
    let mode = st.decision_mode.replace(DecisionMode::Strict);
    let saved_deadline = st.guard.deadline.get();
    st.guard.deadline.set(Some(Instant::now() + Duration::from_millis(case_ms(st, index))));
    st.guard.tripped.set(None);
    lua.set_named_registry_value(keys::ANSWERS, lua.create_table()?)?;
    st.world.borrow_mut().dice.clear_forced();
    st.spec_path.borrow_mut().push(format!("\u{0}it:{full}"));
    let counts_before = st.options.coverage.then(|| line_counts(st));
    // The data read outside the case stay aside; what the case reads is its own.
    let reads_outside = st.data_reads.borrow_mut().as_mut().map(std::mem::take);
    let case_started = Instant::now();
    let r = call_with_traceback(lua, &f, MultiValue::new());
    let took = case_started.elapsed();
    let hits = counts_before.map(|before| lines_run(st, &before)).unwrap_or_default();
    // Reloading the ruleset below reads its data for the cases after this
    // one: that counts as read outside any case.
    let reads = match reads_outside {
        Some(outside) => st.data_reads.borrow_mut().replace(outside).unwrap_or_default(),
        None => Default::default(),
    };
    st.spec_path.borrow_mut().pop();
    let tripped = st.guard.tripped.take();
    let mut error = match (r, tripped) {
        (Ok(_), _) => None,
        // Kept a `TimeLimit`: a mutation run tells a loop that never ends
        // from a failing case by it.
        (Err(_), Some(t)) => Some(tripped_case(t, st, index)),
        (Err(e), None) => Some(ScriptError::from_lua(&e)),
    };
    if error.is_none() {
        let left = leftovers(lua, st)?;
        if !left.is_empty() {
            error = Some(ScriptError::plain(left.join("; ")));
        }
    }
    lua.set_named_registry_value(keys::ANSWERS, lua.create_table()?)?;
    let key = |rs: &Option<crate::ruleset::Ruleset>| {
        rs.as_ref().map(|r| (r.dir.clone(), r.values.clone(), r.variant.clone()))
    };
    let changed = key(&st.ruleset.borrow()) != key(&before_rs);
    match (changed, before_rs) {
        (true, Some(rs)) => {
            // Reloading the ruleset runs its modules again: their own
            // subscriptions and policies come back with them.
            if let Err(e) = super::load_ruleset_into(lua, st, rs) {
                error.get_or_insert(e);
            }
        }
        (changed, _) => {
            // The case loaded a ruleset into a file without one: take it out
            // again, or the next case's `scenario(...)` of the same ruleset
            // would keep it as it stands, without the subscriptions and
            // policies put back below.
            if changed {
                super::load::unload_ruleset_into(lua, st)?;
                lua.set_named_registry_value(keys::LOADED, before_loaded)?;
            }
            super::world::set_handlers(lua, before_handlers)?;
            lua.set_named_registry_value(keys::POLICIES, before_policies)?;
            lua.set_named_registry_value(keys::LOS_RULE, before_los_rule)?;
            st.subscribed.set(before_subscribed);
        }
    }
    *st.scenario.borrow_mut() = before_scenario;
    *st.world.borrow_mut() = before;
    st.decision_mode.set(mode);
    st.guard.deadline.set(saved_deadline.map(|_| Instant::now() + Duration::from_millis(st.limits.get().time_ms)));
    let passed = error.is_none();
    st.spec.borrow_mut().cases.push(CaseResult { name: full, error, index: Some(index), hits, reads, took });
    Ok(passed)
}

/// The time budget of case `index`: its own ([`HostOptions::case_time_ms`](super::HostOptions::case_time_ms)),
/// else the limits'.
fn case_ms(st: &State, index: usize) -> u64 {
    st.options.case_time_ms.as_ref().and_then(|b| b.get(&index).copied()).unwrap_or(st.limits.get().time_ms)
}

/// The error of case `index` that tripped the guard: a `TimeLimit` names
/// the case's own budget.
fn tripped_case(t: super::Trip, st: &State, index: usize) -> ScriptError {
    match super::trip_error(t, st) {
        ScriptError::TimeLimit { .. } => ScriptError::TimeLimit { ms: case_ms(st, index) },
        e => e,
    }
}

/// Forced dice and queued answers left over (a case that leaves any fails).
pub(crate) fn leftovers(lua: &Lua, st: &State) -> mlua::Result<Vec<String>> {
    let mut left: Vec<String> = st
        .world
        .borrow()
        .dice
        .unused_forced()
        .into_iter()
        .map(|(k, v)| format!("forced {k} results never rolled: {}", v.join(" ")))
        .collect();
    if let Some(q) = lua.named_registry_value::<Option<mlua::Table>>(keys::ANSWERS)? {
        if q.raw_len() > 0 {
            let items: Vec<String> = q.sequence_values::<Value>().flatten().map(|v| super::display_value(&v)).collect();
            left.push(format!("answers never used: {}", items.join(", ")));
        }
    }
    Ok(left)
}

/// Every loaded module chunk's hits by line (with coverage on), in the
/// order of `State::chunks`.
fn line_counts(st: &State) -> Vec<std::collections::HashMap<u32, u64>> {
    st.chunks
        .borrow()
        .iter()
        .map(|(_, f)| {
            let mut lines = std::collections::HashMap::new();
            f.coverage(|info| {
                for (line, &h) in info.hits.iter().enumerate() {
                    // Lines without a statement read -1.
                    if let Ok(h @ 1..) = u64::try_from(h) {
                        *lines.entry(line as u32).or_default() += h;
                    }
                }
            });
            lines
        })
        .collect()
}

/// The (chunk, line, times) whose hits grew since `before`: what a case ran.
fn lines_run(st: &State, before: &[std::collections::HashMap<u32, u64>]) -> Vec<(String, u32, u64)> {
    let after = line_counts(st);
    let chunks = st.chunks.borrow();
    let mut out = Vec::new();
    for (i, lines) in after.iter().enumerate() {
        for (&line, &h) in lines {
            let was = before.get(i).and_then(|b| b.get(&line)).copied().unwrap_or(0);
            if h > was {
                out.push((chunks[i].0.clone(), line, h - was));
            }
        }
    }
    out
}

/// A copy of a registry table (one level deeper with `nested`: the
/// subscriptions are lists per event), to put back after a case.
pub(crate) fn copy_registry(lua: &Lua, key: &str, nested: bool) -> mlua::Result<mlua::Table> {
    match lua.named_registry_value::<Option<mlua::Table>>(key)? {
        Some(t) => copy_table(lua, &t, nested),
        None => lua.create_table(),
    }
}

/// A copy of `t` (one level deeper with `nested`).
pub(crate) fn copy_table(lua: &Lua, t: &mlua::Table, nested: bool) -> mlua::Result<mlua::Table> {
    let out = lua.create_table()?;
    for pair in t.pairs::<Value, Value>() {
        let (k, v) = pair?;
        match v {
            Value::Table(list) if nested => {
                let copy = lua.create_table()?;
                for item in list.pairs::<Value, Value>() {
                    let (i, f) = item?;
                    copy.raw_set(i, f)?;
                }
                out.raw_set(k, copy)?;
            }
            other => out.raw_set(k, other)?,
        }
    }
    Ok(out)
}

/// `scenario(path, opts?)`: load a scenario file ({variant=, set={...}, seed=} adds overrides).
fn scenario(lua: &Lua, st: &Rc<State>, (path, opts): (String, Option<mlua::Table>)) -> mlua::Result<impl IntoLuaMulti> {
    let p = resolve_data_path(st, &path).ok_or_else(|| {
        let beside = st.script_dir.borrow().join(&path);
        let folder = crate::paths::candidates(Path::new(&path)).into_iter().any(|c| c.is_dir());
        mlua::Error::runtime(if beside.is_dir() {
            format!("scenario('{path}'): '{path}' is a folder ({}), not a scenario file", beside.display())
        } else if folder {
            format!("scenario('{path}'): {}", crate::paths::not_found(Path::new(&path), "scenario file"))
        } else {
            format!("scenario('{path}'): no such file (looked beside the script, in {})", crate::paths::looked_in())
        })
    })?;
    let mut overrides = lua.app_data_ref::<Overrides>().map(|o| o.0.clone()).unwrap_or_default();
    // scenario(path, {variant=, set={...}, seed=}) adds to the command line's overrides.
    if let Some(o) = opts {
        if let Some(v) = o.get::<Option<String>>("variant")? {
            overrides.variant = Some(v);
        }
        if let Some(seed) = o.get::<Option<u64>>("seed")? {
            overrides.seed = Some(seed);
        }
        if let Some(set) = o.get::<Option<mlua::Table>>("set")? {
            for pair in set.pairs::<String, Value>() {
                let (k, v) = pair?;
                let text = match &v {
                    Value::String(s) => s.to_str()?.to_string(),
                    other => super::display_value(other),
                };
                overrides.set.push(format!("{k}={text}"));
            }
        }
    }
    // Raised as itself, so that a located error (a YAML line) is shown once.
    super::load_scenario_into(lua, st, &p, &overrides).map_err(mlua::Error::external)
}

/// Finds a data file named in a script: as given, beside the script, under
/// `scripts/`, or under the project folder.
pub fn resolve_data_path(st: &State, path: &str) -> Option<PathBuf> {
    use crate::layers::files;
    let p = PathBuf::from(path);
    if p.is_absolute() || files::is_bundled(&p) {
        return files::is_file(&p).then_some(p);
    }
    let beside = st.script_dir.borrow().join(&p);
    if files::is_file(&beside) {
        return Some(files::lexical(&beside));
    }
    crate::paths::find_file(&p)
}
