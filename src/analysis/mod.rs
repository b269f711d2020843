//! Analysis: Monte Carlo (`sim`), exact enumeration (`exact`), variant
//! comparison on common random numbers, and merging of sharded runs.
//!
//! A *trial script* is a Lua file defining a global `function trial()` that
//! returns a number, a boolean (0/1), or a table of named numbers and
//! booleans (the *metrics*). Its top level runs once per worker (it may load a
//! scenario with `scenario(...)` or get one from `--scenario`); the world as it
//! stands afterwards is the *template*, and every trial starts from a fresh
//! copy of it.
//!
//! Seeds: trial `i` of a run with seed `S` rolls from
//! `DiceBox::seed(trial_seed(S, i))` where `trial_seed(S, i) = splitmix64(S) ^ i`
//! (and `DiceBox::seed` spreads that over the PCG-64 state with SplitMix64
//! again). So a trial's dice depend only on `(S, i)`: any thread count, any
//! shard split, gives the same trials and the same result.
//!
//! See `docs/analysis.md` for the user's guide.

pub mod cli;
pub mod exact;
pub mod explain;
pub mod merge;
pub mod plot;
pub mod report;
pub mod sim;
pub mod stats;
pub mod sweep;

use std::fmt;
use std::path::PathBuf;

use mlua::{Function, Value};

use crate::battlefield::World;
use crate::dice::splitmix64;
use crate::lua::raw::trial;
use crate::lua::{render_error, DecisionMode, Host, HostOptions, ScenarioOverrides, ScriptError};
use crate::ruleset::Ruleset;

/// The dice seed of trial `i` in a run seeded with `seed`.
#[inline]
pub fn trial_seed(seed: u64, i: u64) -> u64 {
    splitmix64(seed) ^ i
}

/// Where a trial's world comes from: the script and the setup around it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Setup {
    pub script: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<String>,
    /// The trial script's `args` (`--arg name=value`), in order: a later
    /// one of the same name wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Per-trial time budget in ms (default: the ruleset's, else 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// Run Luau without its native code generator (for comparisons).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_jit: bool,
    /// Leave out the API's fast paths (for comparisons).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_fast_paths: bool,
}

impl Setup {
    /// The second variant of a comparison: this setup plus more `--set`s and
    /// perhaps another variant (see also `script` and `scenario`, which
    /// `--vs-script` and `--vs-scenario` replace).
    pub fn with_changes(&self, set: &[String], variant: Option<&str>) -> Setup {
        let mut s = self.clone();
        s.set.extend(set.iter().cloned());
        if let Some(v) = variant {
            s.variant = Some(v.to_string());
        }
        s
    }

    /// A short description: the script's file name, then `--scenario`,
    /// `--variant` and `--set`s when given.
    pub fn describe_changes(&self) -> String {
        let mut parts = vec![self
            .script
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.script.display().to_string())];
        if let Some(sc) = &self.scenario {
            parts.push(format!("--scenario {}", sc.display()));
        }
        if let Some(v) = &self.variant {
            parts.push(format!("--variant {v}"));
        }
        for s in &self.set {
            parts.push(format!("--set {s}"));
        }
        for a in &self.args {
            parts.push(format!("--arg {a}"));
        }
        parts.join(" ")
    }

    /// The overrides a scenario loaded for this setup gets.
    fn overrides(&self, seed: u64) -> ScenarioOverrides {
        ScenarioOverrides {
            ruleset: self.ruleset.clone(),
            variant: self.variant.clone(),
            seed: Some(seed),
            set: self.set.clone(),
            ..ScenarioOverrides::default()
        }
    }
}

/// Splits `name=value` of `--arg`, checking the name (a Lua name, so that
/// `args.name` reads it).
pub fn split_arg(a: &str) -> Result<(&str, &str), String> {
    let (name, value) =
        a.split_once('=').ok_or_else(|| format!("--arg wants NAME=VALUE (e.g. --arg angle=30), got '{a}'"))?;
    let name = name.trim();
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(format!("--arg {a}: '{name}' is not a name a script can read as args.{name} (letters, digits, _)"));
    }
    Ok((name, value.trim()))
}

/// An `--arg` value as Lua reads it: a number when it reads as one,
/// `true`/`false`, else the text.
fn arg_value(lua: &mlua::Lua, text: &str) -> mlua::Result<Value> {
    Ok(match text {
        "true" => Value::Boolean(true),
        "false" => Value::Boolean(false),
        _ => match text.parse::<f64>() {
            Ok(x) if x.is_finite() && !text.starts_with(['+', '.']) && !text.ends_with('.') => Value::Number(x),
            _ => Value::String(lua.create_string(text)?),
        },
    })
}

/// Sets the global `args` (read-only) from `--arg`s.
fn set_args(lua: &mlua::Lua, args: &[String]) -> Result<(), AnalysisError> {
    let make = || -> mlua::Result<mlua::Table> {
        let t = lua.create_table()?;
        for a in args {
            let (name, value) = split_arg(a).map_err(mlua::Error::runtime)?;
            t.raw_set(name, arg_value(lua, value)?)?;
        }
        t.set_readonly(true);
        Ok(t)
    };
    let t = make().map_err(|e| AnalysisError::plain(e.to_string()))?;
    lua.globals().raw_set("args", t).map_err(|e| AnalysisError::plain(e.to_string()))
}

/// Something that stopped an analysis run.
#[derive(Debug)]
pub struct AnalysisError {
    /// What was being done (e.g. `trial 17 (dice seed 0x...)`).
    pub context: String,
    pub error: ScriptError,
}

impl AnalysisError {
    pub fn plain(msg: impl Into<String>) -> AnalysisError {
        AnalysisError { context: String::new(), error: ScriptError::plain(msg) }
    }

    fn script(context: impl Into<String>, error: ScriptError) -> AnalysisError {
        AnalysisError { context: context.into(), error }
    }

    /// The error placed in `what` (`the --vs variant (...)`, `the point
    /// angle=30`), ahead of the context it had.
    pub(crate) fn within(mut self, what: &str) -> AnalysisError {
        self.context = if self.context.is_empty() { what.to_string() } else { format!("{what}, {}", self.context) };
        self
    }

    /// The error as shown to a person.
    pub fn render(&self, color: bool) -> String {
        let body = render_error(&self.error, color);
        if self.context.is_empty() {
            body
        } else {
            format!("in {}:\n{body}", self.context)
        }
    }
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.context.is_empty() {
            write!(f, "{}", self.error)
        } else {
            write!(f, "in {}: {}", self.context, self.error)
        }
    }
}

impl std::error::Error for AnalysisError {}

/// The error [`Worker::run_block`] returns for a failure its block expected
/// ([`Block::failure_expected`]): the block knows why, and reads nothing else.
const EXPECTED_FAILURE: &str = "the trial failed as the block expected";

/// Most metrics a trial may return: each keeps its own distribution, and a
/// report of thousands is no report.
pub const MAX_METRICS: usize = 1000;

/// Metric names by slot, in the order first seen, with an index by name (so
/// reading a trial's metrics is linear in their number). Derefs to the names.
#[derive(Debug, Default)]
pub struct MetricNames {
    list: Vec<String>,
    index: rustc_hash::FxHashMap<Box<[u8]>, usize>,
    /// For the trial reader (`lua::raw::trial`): by slot, where the bytes of
    /// the Lua string that named the metric start (0: none yet). The reader
    /// keeps those strings alive in its Lua state's registry, so an address
    /// names one text for as long as that state lives; `keys_of` says which
    /// state (the address of its main thread).
    pub keys: Vec<usize>,
    pub keys_of: usize,
}

impl MetricNames {
    /// The slot of a name, if it has one.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// Gives a new name the next slot; `None` past [`MAX_METRICS`].
    pub fn add(&mut self, name: &str) -> Option<usize> {
        if self.list.len() >= MAX_METRICS {
            return None;
        }
        self.index.insert(name.as_bytes().into(), self.list.len());
        self.list.push(name.to_string());
        Some(self.list.len() - 1)
    }
}

impl std::ops::Deref for MetricNames {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.list
    }
}

/// One Lua state set up to run trials: the host, the `trial` function, the
/// template world, and the metric names seen so far.
pub struct Worker {
    /// Keeps the trials' time budget; declared before `host` so that it is
    /// dropped first (its thread writes into the host's Lua state).
    dog: trial::Watchdog,
    pub host: Host,
    trial: Function,
    pub template: World,
    /// Metric names by slot, in the order first seen.
    pub names: MetricNames,
    /// The last trial's values by slot (NaN where a metric was absent).
    pub values: Vec<f64>,
    /// Anything the script's top level printed.
    pub top_output: String,
    /// The files the run read, with a hash of each one's content (see [`sources`]).
    pub sources: std::collections::BTreeMap<String, String>,
    /// Where the top level started (see [`Worker::enter`]).
    start: crate::lua::Checkpoint,
    /// The trial script as found, and its text (read once).
    script: (PathBuf, String),
    /// Seed of the top level's dice.
    seed: u64,
}

/// A 64-bit FNV-1a hash of `bytes`, as 16 hex digits: enough to tell that a
/// file changed between two runs (not a defence against forgery).
pub fn content_hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The files a world came from, by name, with their content hashes: the
/// script (a trial script; none at the REPL), the scenario (given or loaded by the script), and the
/// ruleset's `ruleset.yaml` and every Lua module it loaded (its own and
/// `lib/` ones). Ruleset files are named from the rulesets folder
/// (`great_war/ruleset.yaml`, `lib/cc.lua`), so runs from different working
/// folders compare. `merge` refuses shards whose files differ.
pub fn sources(host: &Host, script: Option<&std::path::Path>) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let mut add = |name: String, path: &std::path::Path| {
        let hash = crate::layers::files::read(path).map_or_else(|e| format!("unreadable ({e})"), |b| content_hash(&b));
        out.insert(name, hash);
    };
    if let Some(script) = script {
        add(script.display().to_string(), script);
    }
    if let Some(sc) = host.state.scenario.borrow().as_ref() {
        add(crate::lua::display_path(sc), sc);
    }
    let rs_dir = host.state.ruleset.borrow().as_ref().map(|r| r.dir.clone());
    if let Some(dir) = rs_dir {
        let root = dir.parent().map(crate::layers::files::canonical);
        let name = |p: &std::path::Path| {
            let c = crate::layers::files::canonical(p);
            match root.as_ref().and_then(|r| c.strip_prefix(r).ok()) {
                Some(rel) => rel.display().to_string(),
                None => c.display().to_string(),
            }
        };
        let yaml = dir.join("ruleset.yaml");
        add(name(&yaml), &yaml);
        if let Ok(loaded) = host.lua.named_registry_value::<mlua::Table>(crate::lua::keys::LOADED) {
            for (key, _) in loaded.pairs::<String, Value>().flatten() {
                let p = PathBuf::from(&key);
                add(name(&p), &p);
            }
        }
    }
    out
}

impl Worker {
    /// Builds a host for `setup`, runs the script's top level and keeps the
    /// world it leaves as the template. `seed` seeds the dice of the top level.
    pub fn new(setup: &Setup, seed: u64) -> Result<Worker, AnalysisError> {
        let ctx = |what: &str| format!("{what} of {}", setup.script.display());
        let host = Host::new(HostOptions {
            time_ms: setup.time_ms,
            memory_mb: setup.memory_mb,
            capture_output: true,
            no_jit: setup.no_jit,
            no_fast_paths: setup.no_fast_paths,
            ..HostOptions::default()
        })
        .map_err(|e| AnalysisError::script("starting Luau", ScriptError::from_lua(&e)))?;
        host.set_decision_mode(DecisionMode::Auto);
        // Trials make short-lived garbage and keep little: let the heap grow to
        // four times the live data before collecting (Luau's default is 2x).
        host.lua.gc_set_mode(mlua::state::GcMode::Incremental(mlua::state::GcIncParams::default().goal(400)));
        let overrides = setup.overrides(seed);
        host.set_overrides(&overrides);
        host.state.world.borrow_mut().log.recording = false;
        if let Some(path) = &setup.scenario {
            host.load_scenario(path, &overrides).map_err(|e| AnalysisError::script("loading the scenario", e))?;
        } else if let Some(name) = &setup.ruleset {
            let bad = |e: crate::ruleset::RulesetError| AnalysisError::script("loading the ruleset", e.into());
            let mut rs = Ruleset::load(name).map_err(bad)?;
            if let Some(v) = &setup.variant {
                rs.apply_variant(v).map_err(bad)?;
            }
            for s in &setup.set {
                rs.set_param(s).map_err(bad)?;
            }
            host.load_ruleset(rs).map_err(|e| AnalysisError::script("loading the ruleset", e))?;
        }
        host.state.world.borrow_mut().dice.seed(seed);
        set_args(&host.lua, &setup.args)?;
        let start = host.checkpoint().map_err(|e| AnalysisError::script("starting the top level", e))?;
        let path = crate::paths::file_or_given(&setup.script);
        let source = Host::read_script(&path).map_err(|e| AnalysisError::script(ctx("the top level"), e))?;
        host.exec_script(&path, &source).map_err(|e| AnalysisError::script(ctx("the top level"), e))?;
        let top_output = host.take_output();
        let dog = trial::install_interrupt(&host.lua)
            .map_err(|e| AnalysisError::plain(format!("could not start the trial watchdog thread: {e}")))?;
        if (!setup.set.is_empty() || setup.variant.is_some()) && host.state.ruleset.borrow().is_none() {
            return Err(AnalysisError::plain(
                "--set and --variant need a ruleset: give --ruleset or --scenario, or load a scenario in the script",
            ));
        }
        let trial = trial_function(&host, setup)?;
        let template = template(&host);
        let sources = sources(&host, Some(&setup.script));
        Ok(Worker {
            dog,
            host,
            trial,
            template,
            names: MetricNames::default(),
            values: Vec::new(),
            top_output,
            sources,
            start,
            script: (path, source),
            seed,
        })
    }

    /// Moves this worker to another point of a sweep: `setup` is the
    /// worker's own with other `--set`s and `--arg`s. The params change as
    /// `:set` changes them (rules read `params` when they run), then the
    /// top level runs again from where it first started (the world,
    /// subscriptions and policies as they were), with `args` and the dice
    /// seed as a fresh worker's, so the new template is the one a run of
    /// that point alone starts from; the ruleset's modules are not loaded
    /// again.
    pub fn enter(&mut self, setup: &Setup) -> Result<(), AnalysisError> {
        let ctx = |what: &str| format!("{what} of {}", setup.script.display());
        for s in &setup.set {
            self.host.set_param(s).map_err(|e| AnalysisError::script(format!("--set {s}"), e))?;
        }
        self.host.set_overrides(&setup.overrides(self.seed));
        set_args(&self.host.lua, &setup.args)?;
        self.host.rewind(&self.start).map_err(|e| AnalysisError::script(ctx("the top level"), e))?;
        self.host.state.world.borrow_mut().dice.seed(self.seed);
        let (path, source) = &self.script;
        self.host.exec_script(path, source).map_err(|e| AnalysisError::script(ctx("the top level"), e))?;
        let _ = self.host.take_output();
        self.trial = trial_function(&self.host, setup)?;
        self.template = template(&self.host);
        Ok(())
    }

    /// Puts the template world back before a trial.
    #[inline]
    fn reset_world(&self) {
        let mut w = self.host.state.world.borrow_mut();
        w.reset_from(&self.template);
    }

    /// Runs one trial with the dice seeded by `dice_seed`, leaving its metric
    /// values in `self.values`.
    pub fn run_seeded(&mut self, dice_seed: u64) -> Result<(), ScriptError> {
        self.reset_world();
        self.host.state.world.borrow_mut().dice.seed(dice_seed);
        self.call_trial()
    }

    /// Runs the trials `block` sets up, one after another, until it says
    /// stop or one fails: most of them inside one protected call
    /// ([`trial::run_batch`]), the metrics of each read straight off the Lua
    /// stack. A result that reader declines is read by the safe reader
    /// here, which writes the error if there is one; otherwise the block
    /// goes on with the next trial.
    ///
    /// `Err` is the error of the failing trial, the last one `block.before`
    /// set up, as [`Worker::call_trial`] would give it (no traceback: see
    /// [`Worker::explain_failure`]).
    pub fn run_block(&mut self, block: &mut dyn Block) -> Result<(), ScriptError> {
        loop {
            let end = {
                let Worker { dog, host, trial, template, names, values, .. } = self;
                let mut trials = BlockTrials { state: &host.state, template, block: &mut *block };
                trial::run_batch(&host.lua, dog, trial, names, values, &mut trials)
            };
            match end {
                trial::BatchEnd::Finished => return Ok(()),
                trial::BatchEnd::Hot => {
                    crate::lua::compile_deferred(&self.host.lua).map_err(|e| ScriptError::from_lua(&e))?
                }
                trial::BatchEnd::Declined(v) => {
                    self.read_metrics(v)?;
                    let more = block.after(&mut self.host.state.world.borrow_mut(), &self.names, &self.values);
                    if !more {
                        return Ok(());
                    }
                }
                trial::BatchEnd::Failed { error, tripped } => {
                    if !tripped && block.failure_expected(&self.host.state.world.borrow()) {
                        return Err(ScriptError::plain(EXPECTED_FAILURE));
                    }
                    return Err(self.trial_error(&error, tripped));
                }
            }
        }
    }

    /// The error of a trial that raised `error` (`tripped`: it ran out of time).
    fn trial_error(&self, error: &mlua::Error, tripped: bool) -> ScriptError {
        if tripped {
            ScriptError::TimeLimit { ms: self.host.state.limits.get().time_ms }
        } else {
            ScriptError::from_lua(error)
        }
    }

    /// Calls `trial()` on the world as it stands and reads its metrics, under
    /// the per-trial time budget (the bare interrupt of [`trial`]).
    ///
    /// The metrics are read straight off the Lua stack
    /// ([`trial::call_and_read`]); when that reader declines a result,
    /// the safe reader (`read_metrics`) reads it again and says what is wrong
    /// with it.
    pub fn call_trial(&mut self) -> Result<(), ScriptError> {
        let ms = self.host.state.limits.get().time_ms;
        values_unset(&mut self.values);
        self.dog.start(ms);
        let r = trial::call_and_read(&self.host.lua, &self.trial, &mut self.names, &mut self.values);
        let tripped = self.dog.stop();
        match r {
            Ok(None) => Ok(()),
            Ok(Some(declined)) => self.read_metrics(declined),
            Err(e) => Err(self.trial_error(&e, tripped)),
        }
    }

    /// Starts a batch of trials: resets the host's per-call budgets (the
    /// output limit) and drops what earlier trials printed.
    pub fn start_batch(&self) {
        let _ = self.host.guarded(|_| Ok(()));
        let _ = self.host.take_output();
    }

    /// Re-runs a failed trial with a traceback, for the error report
    /// (`first` is the error it gave; a time-out is not run again).
    pub fn explain_failure(&mut self, dice_seed: u64, first: ScriptError) -> ScriptError {
        if matches!(first, ScriptError::TimeLimit { .. }) {
            return first;
        }
        self.reset_world();
        self.host.state.world.borrow_mut().dice.seed(dice_seed);
        let f = self.trial.clone();
        self.dog.start(self.host.state.limits.get().time_ms);
        let r = crate::lua::call_with_traceback(&self.host.lua, &f, mlua::MultiValue::new());
        self.dog.stop();
        match r {
            Err(e) => ScriptError::from_lua(&e),
            Ok(v) => match self.read_metrics(v.into_iter().next().unwrap_or(Value::Nil)) {
                Err(e) => e,
                Ok(()) => first,
            },
        }
    }

    /// Reads a trial's result as metrics (see [`read_metrics`]).
    fn read_metrics(&mut self, v: Value) -> Result<(), ScriptError> {
        read_metrics(&mut self.names, &mut self.values, v, "trial()")
    }
}

/// The slot of metric `name`, given one if it is new (its value NaN until set).
fn slot(names: &mut MetricNames, values: &mut Vec<f64>, name: &[u8], who: &str) -> Result<usize, ScriptError> {
    if let Some(i) = names.find(name) {
        return Ok(i);
    }
    let s = std::str::from_utf8(name)
        .map_err(|_| ScriptError::plain(format!("{who} returned a metric whose name is not UTF-8")))?
        .to_string();
    if s.is_empty() {
        return Err(ScriptError::plain(format!("{who} returned a metric with an empty name")));
    }
    let i = names.add(&s).ok_or_else(|| {
        ScriptError::plain(format!(
            "{who} returned more than {MAX_METRICS} metrics (the next was '{s}'); return the ones to report"
        ))
    })?;
    values.push(f64::NAN);
    Ok(i)
}

fn put(names: &mut MetricNames, values: &mut Vec<f64>, name: &[u8], v: &Value, who: &str) -> Result<(), ScriptError> {
    let x = match v {
        Value::Integer(i) => *i as f64,
        Value::Number(x) => *x,
        Value::Boolean(b) => f64::from(u8::from(*b)),
        Value::Nil => return Ok(()),
        // Inside trials a roll is a light userdata handle (lua::raw::roll).
        Value::LightUserData(_) => {
            return Err(ScriptError::plain(format!(
                "{who} returned a roll for metric '{}'; metrics are numbers or booleans: \
                 return what you read from it (r:count(face), r.total)",
                String::from_utf8_lossy(name)
            )))
        }
        other => {
            return Err(ScriptError::plain(format!(
                "{who} returned {} for metric '{}'; metrics are numbers or booleans",
                other.type_name(),
                String::from_utf8_lossy(name)
            )))
        }
    };
    if !x.is_finite() || x.abs() > stats::MAX_ABS_VALUE {
        return Err(ScriptError::plain(format!(
            "{who} returned {x} for metric '{}'; metrics are finite numbers within ±1e12",
            String::from_utf8_lossy(name)
        )));
    }
    let i = slot(names, values, name, who)?;
    values[i] = x;
    Ok(())
}

/// Reads what `who` (a trial, `exact_odds`'s function) returned as metrics
/// into `values` by slot (NaN where absent): the safe reader, and the one
/// place that says what is wrong with a result that is not a set of metrics.
pub fn read_metrics(names: &mut MetricNames, values: &mut Vec<f64>, v: Value, who: &str) -> Result<(), ScriptError> {
    values_unset(values);
    match v {
        Value::Table(t) => {
            for pair in t.pairs::<Value, Value>() {
                let (k, v) = pair.map_err(|e| ScriptError::from_lua(&e))?;
                match k {
                    Value::String(s) => {
                        let name = s.as_bytes();
                        put(names, values, &name, &v, who)?;
                    }
                    other => {
                        let kind = other.type_name();
                        let a = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
                        return Err(ScriptError::plain(format!(
                            "{who} returned a table with {a} {kind} key; name each metric, e.g. return {{ hits = h, crater = c }}"
                        )));
                    }
                }
            }
            Ok(())
        }
        Value::Nil => Err(ScriptError::plain(format!(
            "{who} returned nothing; return a number, a boolean or a table of named numbers"
        ))),
        other => put(names, values, b"value", &other, who),
    }
}

use trial::values_unset;

/// The script's global `trial` function.
fn trial_function(host: &Host, setup: &Setup) -> Result<Function, AnalysisError> {
    match host.lua.globals().get::<Value>("trial") {
        Ok(Value::Function(f)) => Ok(f),
        _ => Err(AnalysisError::plain(format!(
            "{} defines no global `function trial()`; a trial script returns a number or a table of named numbers from trial()",
            setup.script.display()
        ))),
    }
}

/// The world as the top level left it, without its log: every trial starts from it.
fn template(host: &Host) -> World {
    let mut template = host.snapshot();
    template.log.recording = false;
    template.log.events.clear();
    template
}

/// A block of trials for [`Worker::run_block`]: what happens around each
/// trial. Neither method may call Lua (both run inside the block's protected
/// call, between two trials).
pub trait Block {
    /// Sets up the next trial on `world` (reset it from `template`, seed or
    /// enumerate the dice); false when the block is over.
    fn before(&mut self, world: &mut World, template: &World) -> bool;
    /// Takes the metrics of the trial just run (by slot of `names`; NaN where
    /// a metric was absent); false ends the block.
    fn after(&mut self, world: &mut World, names: &MetricNames, values: &[f64]) -> bool;
    /// Whether the trial that just failed failed as the block expects, so
    /// that its error is not worth describing (an execution `exact
    /// --epsilon` cut off: finding its error's script line and reading that
    /// file cost more than the execution itself).
    fn failure_expected(&self, _world: &World) -> bool {
        false
    }
}

/// Trials `next..end` of a seeded run, set up one by one: the world reset
/// from the template and the dice seeded with [`trial_seed`] — the
/// [`Block::before`] of `sim` and of its `--vs` variant.
pub struct Seeded {
    pub seed: u64,
    /// The next trial to set up (after a failure, the failed one is `next - 1`).
    pub next: u64,
    pub end: u64,
}

impl Seeded {
    /// Sets up the next trial on `world`; false when there is none left.
    #[inline]
    pub fn before(&mut self, world: &mut World, template: &World) -> bool {
        if self.next >= self.end {
            return false;
        }
        world.reset_from(template);
        world.dice.seed(trial_seed(self.seed, self.next));
        self.next += 1;
        true
    }
}

/// A [`Block`] over a worker's world, as [`trial::run_batch`] drives it.
struct BlockTrials<'a> {
    state: &'a crate::lua::State,
    template: &'a World,
    block: &'a mut dyn Block,
}

impl trial::Trials for BlockTrials<'_> {
    #[inline]
    fn before(&mut self) -> Option<u64> {
        let more = self.block.before(&mut self.state.world.borrow_mut(), self.template);
        more.then(|| self.state.limits.get().time_ms)
    }

    #[inline]
    fn after(&mut self, names: &MetricNames, values: &[f64]) -> bool {
        self.block.after(&mut self.state.world.borrow_mut(), names, values)
    }
}

/// What the progress bar shows while workers run: its template, and a function
/// giving (position, length, message) now.
pub(crate) type Progress<'a> = (&'a str, &'a dyn Fn() -> (u64, u64, String));

/// Most worker threads a run starts, whatever `--threads` asks for.
pub const MAX_THREADS: usize = 256;

/// Runs `work` on up to `threads` OS threads (at most [`MAX_THREADS`]) and
/// collects what each returns. Workers share their work through counters,
/// so when the system refuses more threads the run goes on with those it
/// started (it fails only when it can start none). The calling thread shows
/// a progress bar once the run has taken a second.
pub(crate) fn run_workers<T: Send>(
    threads: usize,
    started: std::time::Instant,
    work: impl Fn() -> T + Sync,
    progress: Option<Progress<'_>>,
) -> Result<Vec<T>, AnalysisError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;
    let finished = AtomicUsize::new(0);
    let joined = std::thread::scope(|s| {
        let main = std::thread::current();
        let (finished, work) = (&finished, &work);
        let mut handles = Vec::new();
        let mut refused = None;
        for _ in 0..threads.clamp(1, MAX_THREADS) {
            let main = main.clone();
            let spawned = std::thread::Builder::new().spawn_scoped(s, move || {
                let out = work();
                finished.fetch_add(1, Ordering::Release);
                main.unpark();
                out
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        if handles.is_empty() {
            return Err(refused);
        }
        let started_threads = handles.len();
        let mut bar: Option<indicatif::ProgressBar> = None;
        while finished.load(Ordering::Acquire) < started_threads {
            std::thread::park_timeout(Duration::from_millis(100));
            let Some((template, now)) = &progress else { continue };
            let (pos, len, msg) = now();
            match &bar {
                None if started.elapsed() > Duration::from_secs(1) => {
                    let pb = indicatif::ProgressBar::new(len.max(1))
                        .with_position(pos.min(len))
                        .with_message(msg)
                        .with_elapsed(started.elapsed());
                    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                        pb.set_style(style);
                    }
                    bar = Some(pb);
                }
                None => {}
                Some(pb) => {
                    pb.set_length(len.max(1));
                    pb.set_position(pos.min(len));
                    pb.set_message(msg);
                }
            }
        }
        if let Some(pb) = bar {
            pb.finish_and_clear();
        }
        Ok(handles.into_iter().map(|h| h.join()).collect::<Result<Vec<_>, _>>())
    });
    match joined {
        Ok(Ok(outs)) => Ok(outs),
        // A panic is a bug in sandtable, not in the script: never drop a worker's share silently.
        Ok(Err(_)) => Err(AnalysisError::plain(
            "internal error: a worker thread panicked (please report it with the command line)",
        )),
        Err(e) => Err(AnalysisError::plain(format!(
            "cannot start a worker thread: {}",
            e.map_or_else(|| "no reason given".to_string(), |e| e.to_string())
        ))),
    }
}
