//! Mutation testing of a ruleset (`sandtable test --mutate`): would its specs
//! notice if a rule were written slightly wrong, or a number of its data
//! were off?
//!
//! A mutant is the ruleset with one small change: to its Lua ([`lua`]: an
//! operator flipped, a number one off, a statement removed, ...) or to its
//! data ([`data`]: a number of a table one off, a die face made another, a
//! chart cell shifted, a param one step away). The specs run against each
//! mutant in a fresh host; a mutant is *killed* when some spec fails and
//! *survives* when all pass. Every survivor is a change to the rules that no
//! spec would notice: a spec to write, or a change that means the same rule
//! in every legal game (an equivalent mutant, to be explained).
//!
//! The ruleset's files are never written: a mutant's text reaches the host
//! through [`HostOptions::sources`]. Mutants run in parallel, one thread per
//! core. A Lua mutant runs only the spec files whose clean run executed the
//! statement it changes (by coverage); one on a line no spec runs survives
//! without running ("not covered"). A data mutant runs every spec file. Spec
//! files that have killed the most mutants so far run first. Which files and
//! lines are mutated is the [`Scope`]'s call (`--changed` keeps the lines
//! changed since a git revision).
//!
//! Each spec file of a mutant runs under a time budget (ten times its clean
//! run, at least a second, or `--mutant-budget`). A mutant that runs past it
//! (a loop that never ends) counts as killed only when the clean run of that
//! file took at most a quarter of the budget; otherwise the timeout says
//! nothing about the mutant, only about the machine's load, and the mutant
//! is reported apart and counted as surviving.

pub mod data;
pub mod lua;
mod report;

pub use report::Report;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::coverage;
use super::scope::Scope;
use super::SpecFile;
use crate::layers::files;
use crate::lua::{HostOptions, ScenarioOverrides, ScriptError};
use crate::ruleset::{Part, Ruleset};

/// What a mutant changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A rule's Lua.
    Code,
    /// Only the text of a message (an error, a prompt, a print).
    Message,
    /// The ruleset's data: ruleset.yaml's tables and params.
    Data,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Code => "code",
            Kind::Message => "message-only",
            Kind::Data => "data",
        }
    }
}

/// One change to the ruleset.
#[derive(Clone, Debug, PartialEq)]
pub struct Mutant {
    /// The file as shown (`rulesets/great_war/reserve_artillery.lua`).
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// What changed, e.g. "`<` -> `<=`".
    pub change: String,
    pub kind: Kind,
    /// The changed line as it reads in the mutant.
    pub shown: String,
    pub what: What,
}

/// How the mutant is applied.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// A file's text (a module or the manifest) with bytes `start..end`
    /// replaced by `with`; `path` is canonical.
    Edit { path: PathBuf, start: usize, end: usize, with: String },
    /// A param override `module.param=value`.
    Param(String),
}

/// What happened to a mutant.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A spec failed: the spec file that noticed.
    Killed(String),
    /// A spec file ran past its budget although its clean run took at most
    /// a quarter of it (a loop that never ends): killed.
    TimedOut(String),
    /// A spec file ran past its budget, but its clean run took more than a
    /// quarter of it: the timeout may be the machine's load, so it kills
    /// nothing (counted as surviving; raise `--mutant-budget`).
    Undecided(String),
    /// Every spec passed.
    Survived,
    /// No spec runs the mutated line, so it survives without a run.
    NotRun,
}

impl Outcome {
    pub fn killed(&self) -> bool {
        matches!(self, Outcome::Killed(_) | Outcome::TimedOut(_))
    }
}

/// Settings of a mutation run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Worker threads (default: every core).
    pub jobs: usize,
    /// Most time one spec file may take under a mutant (default: ten times
    /// its clean run, at least a second).
    pub budget: Option<Duration>,
    /// Mutate only the lines changed since this git revision.
    pub changed: Option<String>,
    /// A variant: mutate the files of the rulesets it extends and the
    /// `lib/` modules too, not only its own ([`Scope::of_ruleset`]).
    pub with_base: bool,
}

impl Default for Settings {
    fn default() -> Self {
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        Settings { jobs, budget: None, changed: None, with_base: false }
    }
}

/// The line of an edit of `src`'s bytes `start..end` to `with`, as it reads
/// after the edit (a removed statement: the statement, marked), on one line.
fn shown_line(src: &str, start: usize, end: usize, with: &str) -> String {
    let a = src[..start].rfind('\n').map_or(0, |p| p + 1);
    let b = src[end..].find('\n').map_or(src.len(), |p| end + p);
    let text = if with.trim().is_empty() && end > start {
        format!("(removed) {}", &src[start..end])
    } else {
        format!("{}{}{}", &src[a..start], with, &src[end..b])
    };
    let one = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 100 {
        format!("{}...", one.chars().take(97).collect::<String>())
    } else {
        one
    }
}

/// Every mutant of the scope's files, those on changed lines only with `--changed`.
fn mutants_of(scope: &Scope, rs: &Ruleset) -> Result<Vec<Mutant>, String> {
    let mut out = Vec::new();
    for path in &scope.lua {
        let src = files::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = crate::lua::display_path(path);
        for m in lua::lua_mutants(&src) {
            if !scope.keeps(path, m.line) {
                continue;
            }
            out.push(Mutant {
                file: file.clone(),
                line: m.line,
                col: m.col,
                shown: shown_line(&src, m.start, m.end, &m.with),
                change: m.change,
                kind: if m.reach == lua::Reach::Message { Kind::Message } else { Kind::Code },
                what: What::Edit { path: path.clone(), start: m.start, end: m.end, with: m.with },
            });
        }
    }
    for (layer, yaml_path) in scope.manifests.iter().enumerate() {
        manifest_mutants(scope, rs, layer, yaml_path, &mut out)?;
    }
    Ok(out)
}

/// The data and param mutants of manifest `yaml_path`, layer `layer` of the
/// ruleset's chain of `extends:` (0: its own).
fn manifest_mutants(
    scope: &Scope,
    rs: &Ruleset,
    layer: usize,
    yaml_path: &Path,
    out: &mut Vec<Mutant>,
) -> Result<(), String> {
    let yaml = files::read_to_string(yaml_path).map_err(|e| format!("{}: {e}", yaml_path.display()))?;
    let file = crate::lua::display_path(yaml_path);
    for m in data::data_mutants(yaml_path, &yaml) {
        if scope.keeps(yaml_path, m.line) {
            out.push(Mutant {
                file: file.clone(),
                line: m.line,
                col: m.col,
                shown: shown_line(&yaml, m.start, m.end, &m.with),
                change: m.change,
                kind: Kind::Data,
                what: What::Edit { path: yaml_path.to_path_buf(), start: m.start, end: m.end, with: m.with },
            });
        }
    }
    // Each param's mutants sit on the line of the ruleset.yaml that gave its
    // value: in a chain of `extends:`, those of layer `layer` only.
    let mut mine = rs.clone();
    if rs.base().is_some() {
        for (module, defs) in &mut mine.params {
            defs.retain(|name, _| rs.written_by(Part::Param, &format!("{module}.{name}")) == Some(layer));
        }
    }
    for m in data::param_mutants(&mine, &yaml) {
        if scope.keeps(yaml_path, m.line) {
            let shown = yaml.lines().nth(m.line.saturating_sub(1) as usize).unwrap_or("").trim().to_string();
            out.push(Mutant {
                file: file.clone(),
                line: m.line,
                col: 1,
                shown: format!("{shown} (--set {})", m.set),
                change: m.change,
                kind: Kind::Data,
                what: What::Param(m.set),
            });
        }
    }
    Ok(())
}

/// Runs every spec file against every mutant of the ruleset they run against.
pub fn run(
    files: &[SpecFile],
    options: &HostOptions,
    overrides: &ScenarioOverrides,
    settings: &Settings,
) -> Result<Report, String> {
    let started = Instant::now();
    let Some(mut scope) = coverage::scope_of(files, settings.with_base)? else {
        return Err("--mutate needs the specs of a ruleset (a folder with ruleset.yaml): give its folder".into());
    };
    if let Some(rev) = &settings.changed {
        // Checked before the clean run, so that a bad revision fails at once.
        scope.clone().changed_since(rev)?;
    }
    // The clean run: every spec must pass, and its coverage places the mutants.
    let runs = coverage::run_files(files, Some(&scope), options, overrides);
    if let Some(r) = runs.iter().find(|r| r.failed > 0) {
        return Err(format!(
            "{} fails without any mutant; mutation testing needs passing specs (run `sandtable test` first)",
            crate::lua::display_path(&r.path)
        ));
    }
    let cov = coverage::total(&runs, Some(&scope));
    scope.add_loaded(cov.files.keys());
    if let Some(rev) = &settings.changed {
        scope = scope.changed_since(rev)?;
    }
    let budgets: Vec<Duration> =
        runs.iter().map(|r| settings.budget.unwrap_or_else(|| (r.took * 10).max(Duration::from_secs(1)))).collect();
    let hits: Vec<_> = runs.iter().map(|r| r.lines_hit()).collect();

    let mut rs = Ruleset::load(&scope.dir.display().to_string()).map_err(|e| e.to_string())?;
    if let Some(v) = &overrides.variant {
        rs.apply_variant(v).map_err(|e| e.to_string())?;
    }
    for s in &overrides.set {
        rs.set_param(s).map_err(|e| e.to_string())?;
    }
    let mutants = mutants_of(&scope, &rs)?;
    let sources: HashMap<PathBuf, Arc<str>> = scope
        .lua
        .iter()
        .chain(&scope.manifests)
        .filter_map(|p| Some((p.clone(), Arc::from(files::read_to_string(p).ok()?.as_ref()))))
        .collect();

    // The spec files that run each mutant's statement (every file for data),
    // or none when no spec does.
    let plans: Vec<Option<Vec<usize>>> = mutants
        .iter()
        .map(|m| match (&m.what, m.kind) {
            (What::Param(_), _) | (_, Kind::Data) => Some((0..files.len()).collect()),
            (What::Edit { .. }, _) => {
                let line = cov.files.get(&m.file).and_then(|f| f.statement_of(m.line))?;
                let key = (m.file.clone(), line);
                let first: Vec<usize> = (0..files.len()).filter(|&i| hits[i].contains(&key)).collect();
                (!first.is_empty()).then_some(first)
            }
        })
        .collect();

    // Spec files that have killed the most mutants so far run first (most
    // mutants die on the first file that runs them); among equals, the quickest.
    let kills: Vec<AtomicUsize> = files.iter().map(|_| AtomicUsize::new(0)).collect();
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; mutants.len()]);
    let jobs = settings.jobs.max(1);
    let clean: Vec<Duration> = runs.iter().map(|r| r.took).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= mutants.len() {
                    break;
                }
                let m = &mutants[i];
                // A Lua mutant that no longer compiles is left out (None).
                let text = match &m.what {
                    What::Edit { path, start, end, with } => sources.get(path).map(|src| {
                        let t = format!("{}{}{}", &src[..*start], with, &src[*end..]);
                        (path.clone(), t)
                    }),
                    What::Param(_) => None,
                };
                let compiles = match (&text, m.kind) {
                    (Some((_, t)), Kind::Code | Kind::Message) => lua::compiles(t),
                    _ => true,
                };
                let outcome = if !compiles {
                    None
                } else {
                    Some(match &plans[i] {
                        None => Outcome::NotRun,
                        Some(plan) => {
                            let mut order = plan.clone();
                            order.sort_by_key(|&f| (std::cmp::Reverse(kills[f].load(Ordering::Relaxed)), clean[f]));
                            let run = Run { files, options, overrides, budgets: &budgets, clean: &clean };
                            let (outcome, by) = run.mutant(m, text, &order);
                            if let Some(f) = by {
                                kills[f].fetch_add(1, Ordering::Relaxed);
                            }
                            outcome
                        }
                    })
                };
                if let Ok(mut o) = outcomes.lock() {
                    o[i] = outcome;
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().map_err(|_| "a mutation worker panicked".to_string())?;
    let results = mutants.into_iter().zip(outcomes).filter_map(|(m, o)| Some((m, o?))).collect();
    Ok(Report { results, coverage: cov, elapsed: started.elapsed(), jobs, since: scope.since.clone() })
}

/// What every mutant's run shares.
struct Run<'a> {
    files: &'a [SpecFile],
    options: &'a HostOptions,
    overrides: &'a ScenarioOverrides,
    budgets: &'a [Duration],
    clean: &'a [Duration],
}

impl Run<'_> {
    /// Runs the spec files in `order` against one mutant until one fails; the
    /// outcome and the index of the file that killed it. Each file stops at
    /// its first failing case, and the modules run without the native code
    /// generator (a spec file is too short for native code to pay off).
    fn mutant(&self, m: &Mutant, text: Option<(PathBuf, String)>, order: &[usize]) -> (Outcome, Option<usize>) {
        let mut options = HostOptions { capture_output: true, fail_fast: true, no_jit: true, ..self.options.clone() };
        let mut overrides = self.overrides.clone();
        if let Some((path, t)) = text {
            options.sources = Some(Arc::new(HashMap::from([(path, t)])));
        }
        if let What::Param(set) = &m.what {
            overrides.set.push(set.clone());
        }
        for &i in order {
            let budget = self.budgets[i];
            let ms = budget.as_millis().max(1) as u64;
            options.time_ms = Some(self.options.time_ms.map_or(ms, |t| t.min(ms)));
            let report = super::run_spec(&self.files[i], &options, &overrides, |_| {});
            if report.failed() > 0 {
                let shown = crate::lua::display_path(&self.files[i].path);
                let timed_out = report.cases.iter().any(|(_, e)| matches!(e, Some(ScriptError::TimeLimit { .. })));
                if timed_out {
                    // Well inside the budget: the clean run took at most a quarter of it.
                    if self.clean[i] * 4 <= budget {
                        return (Outcome::TimedOut(shown), Some(i));
                    }
                    return (Outcome::Undecided(shown), None);
                }
                return (Outcome::Killed(shown), Some(i));
            }
        }
        (Outcome::Survived, None)
    }
}

#[cfg(test)]
mod tests;
