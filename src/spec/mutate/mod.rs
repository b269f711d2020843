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
//! through [`HostOptions::sources`]. The mutants that leave the manifests
//! alone share one parse of the ruleset and scenarios
//! ([`HostOptions::parsed`]). Mutants run in parallel, one thread per
//! core. A Lua mutant runs only the spec cases whose clean run executed the
//! statement it changes (by coverage, case by case; every case of a file
//! that ran it outside any case); one on a line no spec runs survives
//! without running ("not covered"). A data mutant runs only the cases that
//! read its datum in the clean run (every case of a file that read it
//! outside any case): the clean run tracks, case by case, which of
//! `terrain`, `unit_types`, `charts` and each module's `params` the Lua
//! read (through the tables the host builds) and the Rust read on the
//! ruleset's behalf (a scenario's units and areas, a unit's strength, line
//! of sight's terrain); a mutant of another section (`dice`, `los`,
//! `stacking`), or of a datum no case read, runs every case. The plan says
//! which cases run; the order only how soon a killer is found, so a
//! survivor runs its whole plan. Up to four cases run first: those that
//! killed the last mutant of the same line, function (for data, table) and
//! file (datum), then the most frequent killers of each; then, in a file
//! that runs every case because the line (datum) is reached outside them,
//! the cases that reached it themselves; then the rest, the spec files that
//! killed most of the same function, file, and of all first (`Run::order`).
//! Spec files are read once, at the start. Which files and lines are
//! mutated is the [`Scope`]'s call (`--changed` keeps the lines changed
//! since a git revision).
//!
//! Each case of a mutant (and what its file runs outside the cases) runs
//! under its own time budget: ten times what it took in the clean run, at
//! least a second, or `--mutant-budget`. A mutant that runs past it (a loop
//! that never ends) counts as killed only when that clean time was at most
//! a quarter of the budget; otherwise the timeout says nothing about the
//! mutant, only about the machine's load, and the mutant is reported apart
//! and counted as surviving.

pub mod data;
pub mod lua;
mod report;

pub use report::Report;

use std::collections::{BTreeSet, HashMap};
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
    /// A data mutant: the datum it changes as the clean run tracks reads
    /// ([`TRACKED`] sections, `params.MODULE`); None for the Lua.
    pub datum: Option<String>,
}

/// The sections of ruleset.yaml whose reads the clean run tracks, by Lua
/// (`ruleset.terrain`, ...) and by Rust (a unit's strength, a scenario's
/// bases and areas, line of sight's terrain); params are tracked by module.
/// A mutant of any other section (`dice`, `los`, `stacking`) runs every case.
pub const TRACKED: &[&str] = &["terrain", "unit_types", "charts"];

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
    /// Most time one spec case may take under a mutant (default: ten times
    /// what the case took in the clean run, at least a second).
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
                datum: None,
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
                datum: Some(m.section),
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
            let module = m.set.split('.').next().unwrap_or_default();
            out.push(Mutant {
                datum: Some(format!("params.{module}")),
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
    let texts = read_specs(files)?;
    // The clean run: every spec must pass, and its coverage places the
    // mutants of the Lua, and the data each case reads those of the data.
    let clean_options = HostOptions { track_data: true, ..options.clone() };
    let runs = coverage::run_texts(files, &texts, Some(&scope), &clean_options, overrides);
    if let Some(r) = runs.iter().find(|r| r.failed > 0) {
        return Err(format!(
            "{} fails without any mutant; mutation testing needs passing specs (run `sandtable test` first)",
            crate::lua::display_path(&r.path)
        ));
    }
    let clean_took = started.elapsed();
    let cov = coverage::total(&runs, Some(&scope));
    scope.add_loaded(cov.files.keys());
    if let Some(rev) = &settings.changed {
        scope = scope.changed_since(rev)?;
    }
    // A budget per case (and for what a file runs outside its cases): a
    // mutant that loops for ever is stopped after ten times what that case
    // took clean, not ten times the file's slowest case.
    let budgets: Vec<Budgets> = runs.iter().map(|r| Budgets::of(r, settings.budget, options.time_ms)).collect();

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

    let reached = Reached::new(&runs);
    let plans: Vec<Option<Plan>> = mutants.iter().map(|m| plan_of(m, &reached, &runs, &cov)).collect();
    let sites: Vec<Sites> = mutants.iter().map(|m| Sites::of(m, &cov)).collect();
    let stats = Kills::new(&runs);
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; mutants.len()]);
    let spent: Mutex<Vec<Spent>> = Mutex::new(vec![Spent::default(); mutants.len()]);
    let jobs = settings.jobs.max(1);
    // The Lua and param mutants leave the manifests as they are: they share
    // the parsed ruleset and scenarios. A data mutant parses its own ruleset.
    let parsed = crate::lua::ParseShare::new();
    let run = Run {
        files,
        texts: &texts,
        options,
        overrides,
        budgets: &budgets,
        runs: &runs,
        reached: &reached,
        cov: &cov,
        stats: &stats,
        parsed,
    };
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= mutants.len() {
                    break;
                }
                let m = &mutants[i];
                // A Lua mutant that no longer compiles is left out (None).
                let text = mutated_text(m, &sources);
                let compiles = match (&text, m.kind) {
                    (Some((_, t)), Kind::Code | Kind::Message) => lua::compiles(t),
                    _ => true,
                };
                let mut cost = Spent::default();
                let outcome = if !compiles {
                    None
                } else {
                    Some(match &plans[i] {
                        None => Outcome::NotRun,
                        Some(plan) => {
                            let started = Instant::now();
                            let outcome = run.mutant(m, &sites[i], text, plan, &mut cost);
                            cost.busy = started.elapsed();
                            outcome
                        }
                    })
                };
                if let (Ok(mut o), Ok(mut s)) = (outcomes.lock(), spent.lock()) {
                    o[i] = outcome;
                    s[i] = cost;
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().map_err(|_| "a mutation worker panicked".to_string())?;
    let spent = spent.into_inner().map_err(|_| "a mutation worker panicked".to_string())?;
    if std::env::var_os("SANDTABLE_MUTATE_PROFILE").is_some() {
        eprint!("{}", profile(&mutants, &outcomes, &spent, clean_took, started.elapsed()));
    }
    let results = mutants.into_iter().zip(outcomes).filter_map(|(m, o)| Some((m, o?))).collect();
    Ok(Report { results, coverage: cov, elapsed: started.elapsed(), jobs, since: scope.since.clone() })
}

/// Each spec file's text, read once at the start: every run of the file uses it.
fn read_specs(files: &[SpecFile]) -> Result<Vec<Arc<str>>, String> {
    files
        .iter()
        .map(|f| {
            crate::lua::chunk::read_source(&crate::paths::file_or_given(&f.path))
                .map(|t| Arc::<str>::from(t.as_str()))
                .map_err(|e| format!("cannot read {}: {e}", crate::lua::display_path(&f.path)))
        })
        .collect()
}

/// The file a mutant edits, as it reads with the edit (None for a param).
fn mutated_text(m: &Mutant, sources: &HashMap<PathBuf, Arc<str>>) -> Option<(PathBuf, String)> {
    match &m.what {
        What::Edit { path, start, end, with } => {
            sources.get(path).map(|src| (path.clone(), format!("{}{}{}", &src[..*start], with, &src[*end..])))
        }
        What::Param(_) => None,
    }
}

/// What running one mutant cost: spec file runs (a host each), cases run,
/// the thread's time in all, and of it the time inside the cases.
#[derive(Clone, Debug, Default)]
struct Spent {
    runs: usize,
    cases: usize,
    busy: Duration,
    in_cases: Duration,
}

/// Where a run's time went, by kind of mutant and outcome
/// (`SANDTABLE_MUTATE_PROFILE=1`: docs/PERFORMANCE.md's breakdown).
fn profile(
    mutants: &[Mutant],
    outcomes: &[Option<Outcome>],
    spent: &[Spent],
    clean: Duration,
    all: Duration,
) -> String {
    use std::fmt::Write as _;
    let mut rows: std::collections::BTreeMap<(&str, &str), (usize, Spent)> = std::collections::BTreeMap::new();
    for ((m, o), s) in mutants.iter().zip(outcomes).zip(spent) {
        let what = match (m.kind, &m.what) {
            (Kind::Data, What::Param(_)) => "param",
            (k, _) => k.name(),
        };
        let end = match o {
            None => "not compiled",
            Some(Outcome::NotRun) => "not covered",
            Some(o) if o.killed() => "killed",
            Some(_) => "survived",
        };
        let row = rows.entry((what, end)).or_default();
        row.0 += 1;
        row.1.runs += s.runs;
        row.1.cases += s.cases;
        row.1.busy += s.busy;
        row.1.in_cases += s.in_cases;
    }
    let mut out = format!("profile: clean run {:.1} s, whole run {:.1} s\n", clean.as_secs_f64(), all.as_secs_f64());
    let _ = writeln!(
        out,
        "{:<14} {:<13} {:>7} {:>7} {:>8} {:>9} {:>9}",
        "kind", "outcome", "mutants", "runs", "cases", "busy s", "cases s"
    );
    for ((what, end), (n, s)) in rows {
        let _ = writeln!(
            out,
            "{what:<14} {end:<13} {n:>7} {:>7} {:>8} {:>9.1} {:>9.1}",
            s.runs,
            s.cases,
            s.busy.as_secs_f64(),
            s.in_cases.as_secs_f64()
        );
    }
    out
}

/// The cases of one spec file a mutant runs.
#[derive(Clone, Debug, PartialEq)]
enum Cases {
    /// Every case (the mutated line runs outside any case: loading the
    /// ruleset, say, so it can reach them all).
    All,
    /// These, by their place among the file's `it` calls.
    Only(BTreeSet<usize>),
}

/// The spec files a mutant runs, each with the cases that ran its statement
/// in the clean run.
type Plan = Vec<(usize, Cases)>;

/// Where each statement of the modules ran in the clean run: for each
/// (file, line), the spec files (by place) and their cases (None: outside
/// any case). Built once, so that placing a mutant is one look-up.
struct Reached(HashMap<(String, u32), Reach>);

/// The (spec file, case) pairs that ran one statement (None: outside any case).
type Reach = Vec<(usize, Option<usize>)>;

impl Reached {
    fn new(runs: &[coverage::FileRun]) -> Reached {
        let mut at: HashMap<(String, u32), Reach> = HashMap::new();
        for (i, r) in runs.iter().enumerate() {
            for key in &r.outside {
                at.entry(key.clone()).or_default().push((i, None));
            }
            for (c, lines) in &r.cases {
                for key in lines {
                    at.entry(key.clone()).or_default().push((i, Some(*c)));
                }
            }
        }
        Reached(at)
    }
}

/// The plan of mutant `m`. For Lua, the cases that ran its statement, or
/// every case of a file that ran it outside any case; None when nothing
/// ran it. For data, the cases that read its datum, or every case of a
/// file that read it outside any case; every case of every file when its
/// datum is not tracked, or when no case read it.
///
/// A case that never ran the statement (never read the datum) runs the
/// same under the mutant, as each case starts from the world and ruleset
/// as the file's top level left them; what it could still see is a
/// module's own Lua state (a table filled by an earlier case), which the
/// rulesets keep none of between cases.
fn plan_of(m: &Mutant, reached: &Reached, runs: &[coverage::FileRun], cov: &coverage::Coverage) -> Option<Plan> {
    if m.kind == Kind::Data {
        return Some(data_plan(m.datum.as_deref(), runs));
    }
    let line = cov.files.get(&m.file).and_then(|f| f.statement_of(m.line))?;
    let mut by_file: std::collections::BTreeMap<usize, Cases> = std::collections::BTreeMap::new();
    for &(f, case) in reached.0.get(&(m.file.clone(), line))? {
        match (case, by_file.entry(f).or_insert_with(|| Cases::Only(BTreeSet::new()))) {
            (None, cases) => *cases = Cases::All,
            (Some(c), Cases::Only(s)) => {
                s.insert(c);
            }
            (Some(_), Cases::All) => {}
        }
    }
    Some(by_file.into_iter().collect())
}

/// The plan of a data mutant of `datum` (see [`plan_of`]).
fn data_plan(datum: Option<&str>, runs: &[coverage::FileRun]) -> Plan {
    let every = || (0..runs.len()).map(|i| (i, Cases::All)).collect();
    let Some(datum) = datum.filter(|d| TRACKED.contains(d) || d.starts_with("params.")) else {
        return every();
    };
    let mut plan = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        if r.outside_reads.contains(datum) {
            plan.push((i, Cases::All));
            continue;
        }
        let only: BTreeSet<usize> =
            r.case_reads.iter().filter(|(_, reads)| reads.contains(datum)).map(|(c, _)| *c).collect();
        if !only.is_empty() {
            plan.push((i, Cases::Only(only)));
        }
    }
    // Read by no case: nothing could see it, but run it all rather than
    // report a survivor no spec ran.
    if plan.is_empty() {
        every()
    } else {
        plan
    }
}

/// The time budgets of one spec file's runs under a mutant.
struct Budgets {
    /// For what the file runs outside its cases (the host, the ruleset,
    /// its top level), and what that took clean.
    outside: Duration,
    outside_clean: Duration,
    /// Each case's, in milliseconds, by its place.
    cases: Arc<HashMap<usize, u64>>,
}

impl Budgets {
    /// Ten times what each part took in the clean run, at least a second;
    /// `fixed` (`--mutant-budget`) for every part; never more than the
    /// run's `--time-limit` (`limit`).
    fn of(run: &coverage::FileRun, fixed: Option<Duration>, limit: Option<u64>) -> Budgets {
        let budget = |clean: Duration| {
            let b = fixed.unwrap_or_else(|| (clean * 10).max(Duration::from_secs(1)));
            limit.map_or(b, |ms| b.min(Duration::from_millis(ms)))
        };
        let ms = |d: Duration| (d.as_millis() as u64).max(1);
        Budgets {
            outside: budget(run.outside_took),
            outside_clean: run.outside_took,
            cases: Arc::new(run.case_took.iter().map(|(c, took)| (*c, ms(budget(*took)))).collect()),
        }
    }
}

/// Where a mutant sits, from the narrowest to the widest: its line, the
/// function around it (for data, the table around the cell), and its
/// group (its file; for data, its file and datum). Mutants of one site
/// tend to die on the same case.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Site {
    Line(String, u32),
    Near(String, String),
    Group(String),
}

/// A mutant's three sites, narrowest first.
struct Sites([Site; 3]);

impl Sites {
    fn of(m: &Mutant, cov: &coverage::Coverage) -> Sites {
        let group = match &m.datum {
            Some(d) => format!("{}#{d}", m.file),
            None => m.file.clone(),
        };
        let near = match m.kind {
            // The table around the cell: `charts.fire_points.heavy[3]: 3 -> 4`
            // is near the other cells of `charts.fire_points.heavy`.
            Kind::Data => {
                let path = m.change.split(": ").next().unwrap_or_default();
                path.rfind(['.', '[']).map_or(path, |i| &path[..i]).to_string()
            }
            // The innermost function that holds the statement.
            Kind::Code | Kind::Message => cov
                .files
                .get(&m.file)
                .and_then(|f| {
                    let line = f.statement_of(m.line)?;
                    f.functions.iter().filter(|(_, lines)| lines.contains_key(&line)).map(|((at, _), _)| *at).max()
                })
                .map_or_else(String::new, |at| at.to_string()),
        };
        Sites([Site::Line(group.clone(), m.line), Site::Near(group.clone(), near), Site::Group(group)])
    }
}

/// How many cases a mutant tries before the rest of its plan: the first
/// alone, the others by spec file.
const GUESSES: usize = 4;

/// What the mutants of one site died on so far.
#[derive(Default)]
struct Seen {
    /// The case that killed the last of them.
    last: Option<(usize, usize)>,
    /// Kills by (spec file, case), and by spec file.
    cases: HashMap<(usize, usize), usize>,
    files: HashMap<usize, usize>,
}

/// Which spec files and cases have killed mutants so far, in all and by
/// site: mutants die mostly on the first case that runs them, so a good
/// first guess saves the rest.
struct Kills {
    by_file: Vec<AtomicUsize>,
    /// By file, then by the case's place.
    by_case: Vec<Vec<AtomicUsize>>,
    by_site: Mutex<HashMap<Site, Seen>>,
}

impl Kills {
    fn new(runs: &[coverage::FileRun]) -> Kills {
        Kills {
            by_file: runs.iter().map(|_| AtomicUsize::new(0)).collect(),
            by_case: runs
                .iter()
                .map(|r| {
                    let n = r.cases.iter().map(|(c, _)| c + 1).max().unwrap_or(0);
                    (0..n).map(|_| AtomicUsize::new(0)).collect()
                })
                .collect(),
            by_site: Mutex::new(HashMap::new()),
        }
    }

    fn record(&self, sites: &Sites, file: usize, case: Option<usize>) {
        self.by_file[file].fetch_add(1, Ordering::Relaxed);
        if let Some(n) = case.and_then(|c| self.by_case[file].get(c)) {
            n.fetch_add(1, Ordering::Relaxed);
        }
        if let Ok(mut by_site) = self.by_site.lock() {
            for site in &sites.0 {
                let seen = by_site.entry(site.clone()).or_default();
                *seen.files.entry(file).or_default() += 1;
                if let Some(c) = case {
                    seen.last = Some((file, c));
                    *seen.cases.entry((file, c)).or_default() += 1;
                }
            }
        }
    }

    /// The cases of `places` (by spec file, the cases it may run) to try
    /// first, most likely first: the ones that killed the last mutant of
    /// the same line, function (table) and file, then those that killed
    /// the most of the same function, of the same file, of any; at most
    /// [`GUESSES`].
    fn guesses(&self, sites: &Sites, places: &[(usize, BTreeSet<usize>)]) -> Vec<(usize, usize)> {
        let in_plan = |(f, c): (usize, usize)| places.iter().any(|(pf, s)| *pf == f && s.contains(&c));
        let mut out: Vec<(usize, usize)> = Vec::new();
        let add = |fc: (usize, usize), out: &mut Vec<(usize, usize)>| {
            if out.len() < GUESSES && in_plan(fc) && !out.contains(&fc) {
                out.push(fc);
            }
        };
        if let Ok(by_site) = self.by_site.lock() {
            let seen: Vec<&Seen> = sites.0.iter().filter_map(|s| by_site.get(s)).collect();
            for fc in seen.iter().filter_map(|s| s.last) {
                add(fc, &mut out);
            }
            // The near site's and the group's most frequent killers.
            for s in seen.iter().skip(1) {
                let mut ranked: Vec<(&(usize, usize), &usize)> = s.cases.iter().collect();
                ranked.sort_by_key(|(fc, n)| (std::cmp::Reverse(**n), **fc));
                for (fc, _) in ranked {
                    add(*fc, &mut out);
                }
            }
        }
        if out.len() < GUESSES {
            let mut ranked: Vec<((usize, usize), usize)> = Vec::new();
            for (f, cases) in places {
                for &c in cases {
                    let n = self.by_case[*f].get(c).map_or(0, |n| n.load(Ordering::Relaxed));
                    if n > 0 {
                        ranked.push(((*f, c), n));
                    }
                }
            }
            // Most kills first; among equals, the plan's order.
            ranked.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
            for (fc, _) in ranked {
                add(fc, &mut out);
            }
        }
        out
    }

    /// How likely spec file `f` kills a mutant of these sites: its kills of
    /// the same function (table), of the same group, of any mutant.
    fn rank(&self, sites: &Sites, f: usize) -> (usize, usize, usize) {
        let of = |by_site: &HashMap<Site, Seen>, s: &Site| {
            by_site.get(s).and_then(|seen| seen.files.get(&f).copied()).unwrap_or(0)
        };
        let (near, group) = self.by_site.lock().map(|b| (of(&b, &sites.0[1]), of(&b, &sites.0[2]))).unwrap_or_default();
        (near, group, self.by_file[f].load(Ordering::Relaxed))
    }
}

/// What every mutant's run shares.
struct Run<'a> {
    files: &'a [SpecFile],
    /// Each spec file's text, read once.
    texts: &'a [Arc<str>],
    options: &'a HostOptions,
    overrides: &'a ScenarioOverrides,
    budgets: &'a [Budgets],
    runs: &'a [coverage::FileRun],
    reached: &'a Reached,
    cov: &'a coverage::Coverage,
    stats: &'a Kills,
    /// The ruleset and scenarios as parsed for the mutants of the Lua.
    parsed: crate::lua::ParseShare,
}

impl Run<'_> {
    /// The places of every case of spec file `f`.
    fn every_case(&self, f: usize) -> BTreeSet<usize> {
        self.runs[f].cases.iter().map(|(c, _)| *c).collect()
    }

    /// The cases of spec file `f` that ran mutant `m`'s statement (read its
    /// datum) themselves, not only through what the file ran outside them.
    fn direct(&self, m: &Mutant, f: usize) -> BTreeSet<usize> {
        if m.kind == Kind::Data {
            let Some(d) = &m.datum else { return BTreeSet::new() };
            return self.runs[f].case_reads.iter().filter(|(_, r)| r.contains(d)).map(|(c, _)| *c).collect();
        }
        let line = self.cov.files.get(&m.file).and_then(|h| h.statement_of(m.line));
        line.and_then(|l| self.reached.0.get(&(m.file.clone(), l)))
            .map(|at| at.iter().filter(|(pf, _)| *pf == f).filter_map(|(_, c)| *c).collect())
            .unwrap_or_default()
    }

    /// The runs of one mutant, in order: (spec file, its cases).
    fn order(&self, m: &Mutant, sites: &Sites, plan: &Plan) -> Vec<(usize, Cases)> {
        let mut left: Vec<(usize, BTreeSet<usize>)> = plan
            .iter()
            .map(|(f, cases)| match cases {
                Cases::All => (*f, self.every_case(*f)),
                Cases::Only(s) => (*f, s.clone()),
            })
            .collect();
        let guesses = self.stats.guesses(sites, &left);
        for (gf, gc) in &guesses {
            for (f, s) in &mut left {
                if f == gf {
                    s.remove(gc);
                }
            }
        }
        let mut order: Vec<(usize, Cases)> = Vec::new();
        if let Some(&(f, c)) = guesses.first() {
            order.push((f, Cases::Only(BTreeSet::from([c]))));
        }
        for &(f, c) in guesses.iter().skip(1) {
            match order.iter_mut().skip(1).find(|(of, _)| *of == f) {
                Some((_, Cases::Only(s))) => {
                    s.insert(c);
                }
                _ => order.push((f, Cases::Only(BTreeSet::from([c])))),
            }
        }
        // The rest, the files likeliest to kill first; among equals the
        // quickest (what the cases to run took clean).
        let cost = |f: usize, s: &BTreeSet<usize>| {
            let r = &self.runs[f];
            s.iter().filter_map(|c| r.case_took.get(c)).sum::<Duration>() + r.outside_took
        };
        left.sort_by_key(|(f, s)| {
            let (near, group, any) = self.stats.rank(sites, *f);
            (std::cmp::Reverse(near), std::cmp::Reverse(group), std::cmp::Reverse(any), cost(*f, s))
        });
        // A file that runs every case because the statement (datum) is
        // reached outside them: first the cases that reached it themselves.
        for (f, s) in &mut left {
            if plan.iter().any(|(pf, c)| pf == f && *c == Cases::All) {
                let direct: BTreeSet<usize> = self.direct(m, *f).intersection(s).copied().collect();
                if !direct.is_empty() && direct.len() < s.len() {
                    s.retain(|c| !direct.contains(c));
                    order.push((*f, Cases::Only(direct)));
                }
            }
        }
        for (f, s) in left {
            if !s.is_empty() {
                order.push((f, Cases::Only(s)));
            }
        }
        order
    }

    /// Runs the cases of `plan` against one mutant until one fails: first
    /// the cases most likely to kill it ([`Kills::guesses`]), the first
    /// alone; then, where the plan runs every case of a file because the
    /// mutant's line (datum) is reached outside any case, the cases that
    /// ran it (read it) themselves; then the rest. Each pass goes file by
    /// file, the files most likely to kill first ([`Kills::rank`]; among
    /// equals, the quickest). Each file stops at its first failing case,
    /// and the modules run without the native code generator (a spec file
    /// is too short for native code to pay off).
    fn mutant(
        &self,
        m: &Mutant,
        sites: &Sites,
        text: Option<(PathBuf, String)>,
        plan: &Plan,
        cost: &mut Spent,
    ) -> Outcome {
        // A data mutant changes the manifest: its own parse of the ruleset,
        // the scenarios shared.
        let parsed = if m.kind == Kind::Data && matches!(m.what, What::Edit { .. }) {
            self.parsed.own_ruleset()
        } else {
            self.parsed
        };
        let mut options = HostOptions {
            capture_output: true,
            fail_fast: true,
            no_jit: true,
            parsed: Some(parsed),
            ..self.options.clone()
        };
        let mut overrides = self.overrides.clone();
        if let Some((path, t)) = text {
            options.sources = Some(Arc::new(HashMap::from([(path, t)])));
        }
        if let What::Param(set) = &m.what {
            overrides.set.push(set.clone());
        }
        for (i, cases) in self.order(m, sites, plan) {
            let budgets = &self.budgets[i];
            options.time_ms = Some((budgets.outside.as_millis() as u64).max(1));
            options.case_time_ms = Some(budgets.cases.clone());
            options.cases = match cases {
                Cases::All => None,
                Cases::Only(s) => Some(Arc::new(s)),
            };
            let report = super::run_spec_source(&self.files[i], Some(&self.texts[i]), &options, &overrides, |_| {});
            cost.runs += 1;
            cost.cases += report.cases.len();
            cost.in_cases += report.cases_took;
            if report.failed() > 0 {
                let shown = crate::lua::display_path(&self.files[i].path);
                // The run stops at its first failure: a case's (the first
                // failing one), or what the file runs outside its cases.
                let first = report.cases.iter().find_map(|(_, e)| e.as_ref());
                if matches!(first, Some(ScriptError::TimeLimit { .. })) {
                    let (clean, budget) = match report.first_failed {
                        Some(c) => (
                            self.runs[i].case_took.get(&c).copied().unwrap_or_default(),
                            Duration::from_millis(budgets.cases.get(&c).copied().unwrap_or(1)),
                        ),
                        None => (budgets.outside_clean, budgets.outside),
                    };
                    // Well inside the budget: the clean run took at most a quarter of it.
                    if clean * 4 <= budget {
                        self.stats.record(sites, i, report.first_failed);
                        return Outcome::TimedOut(shown);
                    }
                    return Outcome::Undecided(shown);
                }
                self.stats.record(sites, i, report.first_failed);
                return Outcome::Killed(shown);
            }
        }
        Outcome::Survived
    }
}

#[cfg(test)]
mod tests;
