//! Mutation testing of a ruleset (`sandtable test --mutate`): would its specs
//! notice if a rule were written slightly wrong?
//!
//! A mutant is the ruleset with one small change: an operator of its Lua
//! flipped (`<` to `<=`, `==` to `~=`, `+` to `-`, `and` to `or`, ...), a
//! number one higher or lower, `true` and `false` swapped, a `not` or a guard
//! clause's `return` removed, or a param's value one step away. The specs run
//! against each mutant in a fresh host; a mutant is *killed* when some spec
//! fails and *survives* when all pass. Every survivor is a change to the rules
//! that no spec would notice: a spec to write, or a change that means the same
//! thing (an equivalent mutant).
//!
//! The ruleset's files are never written: a mutant's module source reaches the
//! host through [`HostOptions::sources`]. Mutants run in parallel, one thread
//! per core, each with a time budget (a mutant that loops forever is killed
//! when the budget runs out). Spec files that ran the mutated line (by the
//! coverage of a first, clean run) are the ones run: a spec file that never
//! runs the statement a change sits in cannot notice it. A mutant on a line no
//! spec runs survives without running ("not run").

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::coverage::{self, Coverage};
use crate::lua::lexer::{self, Kind, Token};
use crate::lua::{HostOptions, ScenarioOverrides};
use crate::ruleset::{ParamType, Ruleset};

/// One change to the ruleset.
#[derive(Clone, Debug, PartialEq)]
pub struct Mutant {
    /// The file as shown (`rulesets/great_war/reserve_artillery.lua`).
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// What changed, e.g. "`<` -> `<=`".
    pub change: String,
    pub what: What,
}

/// How the mutant is applied.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// A module's whole mutated source, by its canonical path.
    Source { path: PathBuf, source: String },
    /// A param override `module.param=value`.
    Param(String),
}

/// What happened to a mutant.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A spec failed: the spec file that noticed.
    Killed(String),
    /// The mutant ran past its time budget (e.g. a loop that never ends).
    TimedOut,
    /// Every spec passed.
    Survived,
    /// No spec runs the mutated line, so it survives without a run.
    NotRun,
}

impl Outcome {
    pub fn killed(&self) -> bool {
        matches!(self, Outcome::Killed(_) | Outcome::TimedOut)
    }
}

/// A mutant generated from Lua source (before it is tied to a file).
#[derive(Clone, Debug, PartialEq)]
pub struct LuaMutant {
    pub line: u32,
    pub col: u32,
    pub change: String,
    pub source: String,
}

/// True when a token ends an operand, so a `-` or `+` after it is binary.
fn ends_operand(src: &str, t: &Token) -> bool {
    let s = &src[t.start..t.end];
    match t.kind {
        Kind::Number | Kind::Ident | Kind::String => true,
        Kind::Keyword => matches!(s, "true" | "false" | "nil"),
        Kind::Punct => matches!(s, ")" | "]" | "}"),
        _ => false,
    }
}

/// Every single-change mutant of a Luau source, in source order. Mutants that
/// no longer compile are left out by [`compiling`], not here.
pub fn lua_mutants(src: &str) -> Vec<LuaMutant> {
    let toks: Vec<Token> =
        lexer::tokens(src).into_iter().filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment)).collect();
    let text = |t: &Token| &src[t.start..t.end];
    let mut out = Vec::new();
    let mut push = |start: usize, end: usize, with: &str, change: String| {
        let before = &src[..start];
        let line = before.matches('\n').count() as u32 + 1;
        let col = (start - before.rfind('\n').map_or(0, |p| p + 1)) as u32 + 1;
        let source = format!("{before}{with}{}", &src[end..]);
        out.push(LuaMutant { line, col, change, source });
    };
    let quiet = note_arguments(src, &toks);
    let mut i = 0;
    while i < toks.len() {
        if quiet[i] {
            i += 1;
            continue;
        }
        let t = toks[i];
        let s = text(&t);
        // The next token when it touches this one (`<` `=` is `<=`).
        let next = toks.get(i + 1).filter(|n| n.start == t.end && n.kind == Kind::Punct).map(text);
        let binary = i > 0 && ends_operand(src, &toks[i - 1]);
        match t.kind {
            Kind::Punct => {
                let two = |to: &str| (t.start, t.end + 1, to.to_string());
                let one = |to: &str| (t.start, t.end, to.to_string());
                let (m, width) = match (s, next) {
                    ("=", Some("=")) => (Some(two("~=")), 2),
                    ("~", Some("=")) => (Some(two("==")), 2),
                    ("<", Some("=")) => (Some(two("<")), 2),
                    (">", Some("=")) => (Some(two(">")), 2),
                    ("<", _) => (Some(one("<=")), 1),
                    (">", _) => (Some(one(">=")), 1),
                    ("+", _) if binary => (Some(one("-")), 1),
                    ("-", Some(">")) => (None, 2), // a function type's arrow
                    ("-", _) if binary => (Some(one("+")), 1),
                    ("*", _) if binary => (Some(one("/")), 1),
                    ("/", Some("/")) => (Some(two("/")), 2),
                    ("/", _) if binary => (Some(one("*")), 1),
                    ("=", _) | ("~", _) => (None, 1),
                    _ => (None, 1),
                };
                if let Some((a, b, to)) = m {
                    let from = &src[a..b];
                    push(a, b, &to, format!("`{from}` -> `{to}`"));
                }
                i += width;
                continue;
            }
            Kind::Number if !is_error_level(src, &toks, i) => {
                if let Ok(n) = s.parse::<i64>() {
                    push(t.start, t.end, &(n + 1).to_string(), format!("`{n}` -> `{}`", n + 1));
                    if n > 0 {
                        push(t.start, t.end, &(n - 1).to_string(), format!("`{n}` -> `{}`", n - 1));
                    }
                }
            }
            Kind::Keyword => match s {
                "true" => push(t.start, t.end, "false", "`true` -> `false`".into()),
                "false" => push(t.start, t.end, "true", "`false` -> `true`".into()),
                "and" => push(t.start, t.end, "or", "`and` -> `or`".into()),
                "or" => push(t.start, t.end, "and", "`or` -> `and`".into()),
                "not" => {
                    let end = toks.get(i + 1).map_or(t.end, |n| n.start);
                    push(t.start, end, "", "`not` removed".into());
                }
                "return" if i > 0 && matches!(text(&toks[i - 1]), "then" | "else") => {
                    if let Some(end) = block_end(src, &toks, i + 1) {
                        push(t.start, toks[end].start, "", "early `return` removed".into());
                    }
                }
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    out
}

/// Marks the tokens inside the arguments of a `world:note(...)` call: a note
/// is text for the log that no rule reads, so a change there is not a change
/// to the rules (its mutants would be equivalent by construction).
fn note_arguments(src: &str, toks: &[Token]) -> Vec<bool> {
    let text = |j: usize| &src[toks[j].start..toks[j].end];
    let mut out = vec![false; toks.len()];
    let mut i = 0;
    while i + 2 < toks.len() {
        if text(i) == ":" && text(i + 1) == "note" && text(i + 2) == "(" {
            let mut depth = 0usize;
            let mut j = i + 2;
            while j < toks.len() {
                match text(j) {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                out[j] = true;
                j += 1;
            }
            i = j;
        }
        i += 1;
    }
    out
}

/// True for the level argument of `error(msg, 2)` or `rules.violation(msg, 2)`:
/// it only picks which line an error message names, not what the rule does.
fn is_error_level(src: &str, toks: &[Token], i: usize) -> bool {
    let text = |j: usize| &src[toks[j].start..toks[j].end];
    if i < 2 || toks.get(i + 1).is_none_or(|_| text(i + 1) != ")") || text(i - 1) != "," {
        return false;
    }
    // Back to the call's opening parenthesis.
    let mut depth = 0usize;
    let mut j = i;
    while j > 0 {
        j -= 1;
        match text(j) {
            ")" | "]" | "}" => depth += 1,
            "(" | "[" | "{" if depth > 0 => depth -= 1,
            "(" => return j > 0 && matches!(text(j - 1), "error" | "violation"),
            "[" | "{" => return false,
            _ => {}
        }
    }
    false
}

/// The index of the `end` that closes the block a statement starting at
/// `from` sits in (nested blocks skipped).
fn block_end(src: &str, toks: &[Token], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(from) {
        if t.kind != Kind::Keyword {
            continue;
        }
        match &src[t.start..t.end] {
            "function" | "if" | "do" | "repeat" => depth += 1,
            "until" if depth > 0 => depth -= 1,
            "end" | "else" | "elseif" | "until" if depth == 0 => {
                return (&src[t.start..t.end] == "end" || &src[t.start..t.end] == "else").then_some(j)
            }
            "end" => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The mutants that still compile (a mutant that cannot load would be killed
/// by every spec and teach nothing).
pub fn compiling(mutants: Vec<LuaMutant>) -> Vec<LuaMutant> {
    let lua = mlua::Lua::new();
    lua.set_compiler(mlua::chunk::Compiler::new());
    mutants.into_iter().filter(|m| lua.load(m.source.as_str()).into_function().is_ok()).collect()
}

/// Mutants of the params' values (the defaults, after any variant and `--set`):
/// integers and numbers one step each way (within their range), switches
/// flipped, choices changed to each other choice.
pub fn param_mutants(rs: &Ruleset, yaml: &str, file: &str) -> Vec<Mutant> {
    let mut out = Vec::new();
    for (module, defs) in &rs.params {
        for (name, def) in defs {
            let key = format!("{module}.{name}");
            let current = rs.value(&key).cloned().unwrap_or_else(|| def.default.clone());
            let mut values: Vec<String> = Vec::new();
            match (&def.ty, &current) {
                (ParamType::Int | ParamType::Number, serde_json::Value::Number(n)) => {
                    let n = n.as_f64().unwrap_or_default();
                    for v in [n - 1.0, n + 1.0] {
                        let in_range = def.min.is_none_or(|m| v >= m) && def.max.is_none_or(|m| v <= m);
                        if in_range {
                            values.push(crate::lua::format_number(v));
                        }
                    }
                }
                (ParamType::Bool, serde_json::Value::Bool(b)) => values.push((!b).to_string()),
                (ParamType::Choice(choices), serde_json::Value::String(s)) => {
                    values.extend(choices.iter().filter(|c| *c != s).cloned());
                }
                _ => {}
            }
            let line = param_line(yaml, module, name);
            let shown = match &current {
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            for v in values {
                out.push(Mutant {
                    file: file.to_string(),
                    line,
                    col: 1,
                    change: format!("param {key}: {shown} -> {v}"),
                    what: What::Param(format!("{key}={v}")),
                });
            }
        }
    }
    out
}

/// The line of `params: module: name:` in the ruleset's YAML (0 if not found).
fn param_line(yaml: &str, module: &str, name: &str) -> u32 {
    let lines: Vec<&str> = yaml.lines().collect();
    let Some(params) = lines.iter().position(|l| l.trim_end() == "params:") else { return 0 };
    let module_key = format!("{module}:");
    let Some(m) = lines.iter().skip(params).position(|l| l.trim() == module_key).map(|p| p + params) else {
        return 0;
    };
    let name_key = format!("{name}:");
    lines
        .iter()
        .enumerate()
        .skip(m + 1)
        .find(|(_, l)| l.trim_start().starts_with(&name_key))
        .map_or(0, |(i, _)| i as u32 + 1)
}

/// Settings of a mutation run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Worker threads (default: every core).
    pub jobs: usize,
    /// Most time one mutant may take over all its spec files (default: four
    /// times the clean run of every spec file, plus a second).
    pub budget: Option<Duration>,
}

impl Default for Settings {
    fn default() -> Self {
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        Settings { jobs, budget: None }
    }
}

/// The result of a mutation run.
pub struct Report {
    pub results: Vec<(Mutant, Outcome)>,
    /// Coverage of the clean run the mutants were placed by.
    pub coverage: Coverage,
    pub elapsed: Duration,
    pub jobs: usize,
}

impl Report {
    pub fn killed(&self) -> usize {
        self.results.iter().filter(|r| r.1.killed()).count()
    }

    /// Killed mutants over all mutants, in percent.
    pub fn score(&self) -> f64 {
        if self.results.is_empty() {
            100.0
        } else {
            100.0 * self.killed() as f64 / self.results.len() as f64
        }
    }

    /// The summary `sandtable test --mutate` prints.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let lua = self.results.iter().filter(|r| matches!(r.0.what, What::Source { .. })).count();
        let params = self.results.len() - lua;
        let timed_out = self.results.iter().filter(|r| r.1 == Outcome::TimedOut).count();
        let not_run = self.results.iter().filter(|r| r.1 == Outcome::NotRun).count();
        let survivors: Vec<&(Mutant, Outcome)> = self.results.iter().filter(|r| !r.1.killed()).collect();
        let _ = writeln!(
            out,
            "mutants: {} ({lua} of the Lua, {params} of the params) in {:.1} s on {} thread{}",
            self.results.len(),
            self.elapsed.as_secs_f64(),
            self.jobs,
            if self.jobs == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            out,
            "killed {} ({timed_out} by the time budget), survived {} ({not_run} on lines no spec runs): score {:.1}%",
            self.killed(),
            survivors.len(),
            self.score()
        );
        let run: Vec<&&(Mutant, Outcome)> = survivors.iter().filter(|r| r.1 != Outcome::NotRun).collect();
        if !run.is_empty() {
            let _ = writeln!(out, "surviving mutants (every spec that runs the line passes):");
            for (m, _) in run {
                let _ = writeln!(out, "  {}:{}:{}  {}", m.file, m.line, m.col, m.change);
            }
        }
        let uncovered: Vec<&&(Mutant, Outcome)> = survivors.iter().filter(|r| r.1 == Outcome::NotRun).collect();
        if !uncovered.is_empty() {
            let _ = writeln!(out, "not covered (no spec runs the line; counted as surviving):");
            for (m, _) in uncovered {
                let _ = writeln!(out, "  {}:{}:{}  {}", m.file, m.line, m.col, m.change);
            }
        }
        out
    }
}

/// Runs every spec file against every mutant of the ruleset the files belong to.
pub fn run(
    files: &[PathBuf],
    options: &HostOptions,
    overrides: &ScenarioOverrides,
    settings: &Settings,
) -> Result<Report, String> {
    let started = Instant::now();
    let dirs: Vec<PathBuf> = files.iter().filter_map(|f| super::ruleset_of(f)).collect();
    let Some(dir) = dirs.first().cloned() else {
        return Err("--mutate needs the specs of a ruleset (a folder with ruleset.yaml): give its folder".into());
    };
    if dirs.iter().any(|d| *d != dir) || dirs.len() != files.len() {
        return Err("--mutate works on one ruleset at a time: give one ruleset's folder or its spec files".into());
    }
    // The clean run: every spec must pass, and its coverage places the mutants.
    let runs = coverage::run_files(files, options, overrides);
    if let Some(r) = runs.iter().find(|r| r.failed > 0) {
        return Err(format!(
            "{} fails without any mutant; mutation testing needs passing specs (run `sandtable test` first)",
            crate::lua::display_path(&r.path)
        ));
    }
    let cov = coverage::total(&runs);
    let clean: Duration = runs.iter().map(|r| r.took).sum();
    let budget = settings.budget.unwrap_or(clean * 4 + Duration::from_secs(1));
    let hits: Vec<_> = runs.iter().map(|r| r.lines_hit()).collect();

    let mut mutants = Vec::new();
    for key in cov.files.keys() {
        let path = Path::new(key).canonicalize().map_err(|e| format!("{key}: {e}"))?;
        let src = std::fs::read_to_string(&path).map_err(|e| format!("{key}: {e}"))?;
        for m in compiling(lua_mutants(&src)) {
            mutants.push(Mutant {
                file: key.clone(),
                line: m.line,
                col: m.col,
                change: m.change,
                what: What::Source { path: path.clone(), source: m.source },
            });
        }
    }
    let mut rs = Ruleset::load(&dir.display().to_string()).map_err(|e| e.to_string())?;
    if let Some(v) = &overrides.variant {
        rs.apply_variant(v).map_err(|e| e.to_string())?;
    }
    for s in &overrides.set {
        rs.set_param(s).map_err(|e| e.to_string())?;
    }
    let yaml_path = dir.join("ruleset.yaml");
    let yaml = std::fs::read_to_string(&yaml_path).map_err(|e| format!("{}: {e}", yaml_path.display()))?;
    mutants.extend(param_mutants(&rs, &yaml, &crate::lua::display_path(&yaml_path)));

    // The spec files that run each mutant's statement, or none when no spec does.
    let plans: Vec<Option<Vec<usize>>> = mutants
        .iter()
        .map(|m| match &m.what {
            What::Param(_) => Some((0..files.len()).collect()),
            What::Source { .. } => {
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
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= mutants.len() {
                    break;
                }
                let outcome = match &plans[i] {
                    None => Outcome::NotRun,
                    Some(plan) => {
                        let mut order = plan.clone();
                        order.sort_by_key(|&f| (std::cmp::Reverse(kills[f].load(Ordering::Relaxed)), runs[f].took));
                        let (outcome, by) = run_mutant(&mutants[i], files, &order, options, overrides, budget);
                        if let Some(f) = by {
                            kills[f].fetch_add(1, Ordering::Relaxed);
                        }
                        outcome
                    }
                };
                if let Ok(mut o) = outcomes.lock() {
                    o[i] = Some(outcome);
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().map_err(|_| "a mutation worker panicked".to_string())?;
    let results = mutants.into_iter().zip(outcomes).map(|(m, o)| (m, o.unwrap_or(Outcome::TimedOut))).collect();
    Ok(Report { results, coverage: cov, elapsed: started.elapsed(), jobs })
}

/// Runs the spec files in `order` against one mutant until one fails; the
/// outcome and the index of the file that killed it. Each file stops at its
/// first failing case, and the modules run without the native code generator
/// (a spec file is too short for compiling to native code to pay off).
fn run_mutant(
    m: &Mutant,
    files: &[PathBuf],
    order: &[usize],
    options: &HostOptions,
    overrides: &ScenarioOverrides,
    budget: Duration,
) -> (Outcome, Option<usize>) {
    let started = Instant::now();
    let mut options = HostOptions { capture_output: true, fail_fast: true, no_jit: true, ..options.clone() };
    let budget_ms = budget.as_millis() as u64;
    options.time_ms = Some(options.time_ms.map_or(budget_ms, |t| t.min(budget_ms)));
    let mut overrides = overrides.clone();
    match &m.what {
        What::Source { path, source } => {
            options.sources = Some(Arc::new(HashMap::from([(path.clone(), source.clone())])));
        }
        What::Param(set) => overrides.set.push(set.clone()),
    }
    for &i in order {
        if started.elapsed() > budget {
            return (Outcome::TimedOut, None);
        }
        let report = super::run_file(&files[i], &options, &overrides);
        if report.failed() > 0 {
            if started.elapsed() > budget {
                return (Outcome::TimedOut, Some(i));
            }
            return (Outcome::Killed(crate::lua::display_path(&files[i])), Some(i));
        }
    }
    (Outcome::Survived, None)
}

#[cfg(test)]
mod tests;
