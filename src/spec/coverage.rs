//! Line coverage of a ruleset's Lua under its specs (`sandtable test --coverage`).
//!
//! Each spec file runs in a host compiled with Luau's statement coverage; after
//! the file, every module `require` loaded reports its hits per line and per
//! function, and the counts of all files are summed. Only modules count (the
//! ruleset's own and the `lib/` ones it loads), not the spec files themselves.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::scope::Scope;
use super::SpecFile;
use crate::lua::{Host, HostOptions, ScenarioOverrides};

/// Hits of one module file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileHits {
    /// Every line with a statement -> times it ran.
    pub lines: BTreeMap<u32, u64>,
    /// Functions by (line defined, name) -> their statement lines and hits.
    pub functions: BTreeMap<(u32, String), BTreeMap<u32, u64>>,
}

impl FileHits {
    /// (lines run, lines with a statement).
    pub fn counts(&self) -> (usize, usize) {
        (self.lines.values().filter(|&&h| h > 0).count(), self.lines.len())
    }

    /// Adds the hits of one function of a chunk (Luau's coverage walk).
    fn add(&mut self, info: &mlua::function::CoverageInfo) {
        let name = match (&info.function, info.depth) {
            (_, 0) => "(module top level)".to_string(),
            (Some(n), _) if !n.is_empty() => n.clone(),
            _ => "(anonymous function)".to_string(),
        };
        let func = self.functions.entry((info.line_defined.max(0) as u32, name)).or_default();
        for (line, &h) in info.hits.iter().enumerate() {
            // Lines without a statement read -1.
            if let Ok(h) = u64::try_from(h) {
                *self.lines.entry(line as u32).or_default() += h;
                *func.entry(line as u32).or_default() += h;
            }
        }
    }

    /// The nearest statement line at or before `line`: the statement a token
    /// on `line` most likely belongs to.
    pub fn statement_of(&self, line: u32) -> Option<u32> {
        self.lines.range(..=line).next_back().map(|(l, _)| *l)
    }
}

/// Coverage of every module, by the path shown in messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    pub files: BTreeMap<String, FileHits>,
}

impl Coverage {
    /// Reads the hits of every module the host loaded.
    pub fn of_host(host: &Host) -> Coverage {
        let mut cov = Coverage::default();
        for (key, f) in host.state.chunks.borrow().iter() {
            // One name per file, however the ruleset's folder was reached.
            let key = crate::lua::display_path(&crate::layers::files::canonical(Path::new(key)));
            let file = cov.files.entry(key).or_default();
            f.coverage(|info| file.add(&info));
        }
        cov
    }

    /// Keeps the files `scope` measures, and adds those no spec loaded, every
    /// statement line at 0 hits.
    pub fn within(mut self, scope: &Scope) -> Coverage {
        self.files.retain(|key, _| scope.measures(key));
        for path in &scope.lua {
            self.files.entry(crate::lua::display_path(path)).or_insert_with(|| unloaded(path));
        }
        self
    }

    /// Adds another run's hits to these.
    pub fn merge(&mut self, other: &Coverage) {
        for (key, f) in &other.files {
            let mine = self.files.entry(key.clone()).or_default();
            for (l, h) in &f.lines {
                *mine.lines.entry(*l).or_default() += h;
            }
            for (k, lines) in &f.functions {
                let func = mine.functions.entry(k.clone()).or_default();
                for (l, h) in lines {
                    *func.entry(*l).or_default() += h;
                }
            }
        }
    }

    /// Lines with a statement that no spec ran, as (file, line).
    pub fn missed(&self) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        for (key, f) in &self.files {
            out.extend(f.lines.iter().filter(|(_, &h)| h == 0).map(|(l, _)| (key.clone(), *l)));
        }
        out
    }

    /// (lines run, lines with a statement) over every file.
    pub fn totals(&self) -> (usize, usize) {
        self.files.values().map(FileHits::counts).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// The short table `sandtable test --coverage` prints: per file, then
    /// its functions that are not fully covered, then the missed lines.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let pct = |hit: usize, all: usize| if all == 0 { 100.0 } else { 100.0 * hit as f64 / all as f64 };
        let _ = writeln!(out, "{:<44} {:>7} {:>7}", "coverage (statement lines)", "run", "%");
        for (key, f) in &self.files {
            let (hit, all) = f.counts();
            let _ = writeln!(out, "{key:<44} {:>7} {:>6.1}%", format!("{hit}/{all}"), pct(hit, all));
            for ((line, name), lines) in &f.functions {
                let hit = lines.values().filter(|&&h| h > 0).count();
                if hit < lines.len() {
                    let label = format!("  {name} (line {line})");
                    let _ = writeln!(
                        out,
                        "{label:<44} {:>7} {:>6.1}%",
                        format!("{hit}/{}", lines.len()),
                        pct(hit, lines.len())
                    );
                }
            }
        }
        let (hit, all) = self.totals();
        let _ = writeln!(out, "{:<44} {:>7} {:>6.1}%", "total", format!("{hit}/{all}"), pct(hit, all));
        let missed = self.missed();
        if !missed.is_empty() {
            let _ = writeln!(out, "lines no spec runs:");
            let mut by_file: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
            for (f, l) in &missed {
                by_file.entry(f.as_str()).or_default().push(*l);
            }
            for (f, lines) in by_file {
                let _ = writeln!(out, "  {f}:{}", ranges(&lines));
            }
        }
        out
    }

    /// The coverage as an lcov tracefile (for editors and CI).
    pub fn lcov(&self) -> String {
        let mut out = String::new();
        for (key, f) in &self.files {
            let _ = writeln!(out, "TN:sandtable\nSF:{key}");
            for ((line, name), lines) in &f.functions {
                let _ = writeln!(out, "FN:{line},{name}");
                let calls = lines.values().copied().max().unwrap_or(0);
                let _ = writeln!(out, "FNDA:{calls},{name}");
            }
            let fns_hit = f.functions.values().filter(|l| l.values().any(|&h| h > 0)).count();
            let _ = writeln!(out, "FNF:{}\nFNH:{fns_hit}", f.functions.len());
            for (l, h) in &f.lines {
                let _ = writeln!(out, "DA:{l},{h}");
            }
            let (hit, all) = f.counts();
            let _ = writeln!(out, "LF:{all}\nLH:{hit}\nend_of_record");
        }
        out
    }
}

/// The statement lines and functions of a file no spec loaded, all at 0
/// hits: the file is compiled with coverage and loaded (as text, never as
/// bytecode: see `lua::chunk`), never run.
fn unloaded(path: &Path) -> FileHits {
    use crate::lua::chunk;
    let mut file = FileHits::default();
    let Ok(src) = chunk::read_source(path) else { return file };
    let lua = mlua::Lua::new();
    lua.enable_jit(false);
    let compiler = mlua::chunk::Compiler::new().set_optimization_level(1).set_coverage_level(1);
    let name = format!("@{}", path.display());
    let Ok(f) = chunk::compile(&compiler, &src, &name).and_then(|b| chunk::load(&lua, &b, &name)) else {
        return file;
    };
    // Never run: every statement line reads 0 hits.
    f.coverage(|info| file.add(&info));
    file
}

/// Checks where `--coverage-out` writes: through [`crate::files::writable`],
/// a new file or an lcov file (one an earlier run wrote), never one of the
/// files the run reads (`read`: spec files, modules, manifests), even an
/// empty one. Errors read as the rest of "cannot write the lcov file PATH: ...".
pub fn lcov_target(path: &Path, read: &[std::path::PathBuf]) -> Result<(), String> {
    use std::io::Read as _;
    let target = crate::files::writable(path).map_err(|e| e.to_string())?;
    let Ok(real) = target.canonicalize() else { return Ok(()) };
    if let Some(input) = read.iter().find(|p| p.canonicalize().is_ok_and(|p| p == real)) {
        return Err(format!(
            "it is {}, a file this run reads: choose another name for the lcov file",
            crate::lua::display_path(input)
        ));
    }
    let mut head = Vec::new();
    let opened = crate::files::open_regular(&real).and_then(|f| f.take(3).read_to_end(&mut head));
    match opened {
        Ok(_) if head.is_empty() || head.starts_with(b"TN:") || head.starts_with(b"SF:") => Ok(()),
        Ok(_) => Err(
            "it holds something other than lcov coverage, left as it is: --coverage-out writes a new file or over an lcov file"
                .to_string(),
        ),
        Err(e) => Err(e.to_string()),
    }
}

/// `3-5,9,12-13` from sorted line numbers.
pub fn ranges(lines: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j + 1 < lines.len() && lines[j + 1] == lines[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { lines[i].to_string() } else { format!("{}-{}", lines[i], lines[j]) });
        i = j + 1;
    }
    parts.join(",")
}

/// What one spec file ran: its case results' pass/fail counts and the module
/// lines it hit, in all and case by case.
pub struct FileRun {
    pub path: PathBuf,
    pub passed: usize,
    pub failed: usize,
    pub coverage: Coverage,
    /// How long the file took (with coverage on).
    pub took: std::time::Duration,
    /// What each case took (by its place), and all the file ran outside
    /// its cases (the host, the ruleset, the file's top level), with
    /// coverage on: a mutation run's time budgets.
    pub case_took: std::collections::HashMap<usize, std::time::Duration>,
    pub outside_took: std::time::Duration,
    /// Each case's place among the file's `it` calls and the (file, line)
    /// pairs it ran.
    pub cases: Vec<(usize, BTreeSet<(String, u32)>)>,
    /// The (file, line) pairs run outside any case (loading the ruleset,
    /// the file's top level, a `describe` body): a change there can reach
    /// every case of the file.
    pub outside: BTreeSet<(String, u32)>,
    /// With [`HostOptions::track_data`], the ruleset's data each case read
    /// (by its place) and what the file read outside its cases.
    pub case_reads: Vec<(usize, BTreeSet<String>)>,
    pub outside_reads: BTreeSet<String>,
}

/// Runs each spec file with coverage on and returns what each ran, within
/// `scope` when one is given (else every module a spec loaded).
pub fn run_files(
    files: &[SpecFile],
    scope: Option<&Scope>,
    options: &HostOptions,
    overrides: &ScenarioOverrides,
) -> Vec<FileRun> {
    let options = HostOptions { coverage: true, ..options.clone() };
    files.iter().map(|f| run_one(f, None, scope, &options, overrides)).collect()
}

/// [`run_files`] with each file's text given (`texts`, in the order of
/// `files`): a mutation run reads its spec files once.
pub fn run_texts(
    files: &[SpecFile],
    texts: &[std::sync::Arc<str>],
    scope: Option<&Scope>,
    options: &HostOptions,
    overrides: &ScenarioOverrides,
) -> Vec<FileRun> {
    let options = HostOptions { coverage: true, ..options.clone() };
    files.iter().zip(texts).map(|(f, t)| run_one(f, Some(t), scope, &options, overrides)).collect()
}

fn run_one(
    spec: &SpecFile,
    source: Option<&str>,
    scope: Option<&Scope>,
    options: &HostOptions,
    overrides: &ScenarioOverrides,
) -> FileRun {
    let started = std::time::Instant::now();
    let mut coverage = Coverage::default();
    let mut report =
        super::run_spec_source(spec, source, options, overrides, |host| coverage = Coverage::of_host(host));
    if let Some(scope) = scope {
        coverage.files.retain(|key, _| scope.measures(key));
    }
    let took = started.elapsed();
    // Each case's hits, by the names `of_host` gives; what the cases do not
    // account for of a line's hits ran outside them.
    let mut keys: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut in_cases: std::collections::HashMap<(String, u32), u64> = std::collections::HashMap::new();
    let mut cases = Vec::new();
    for (index, hits) in std::mem::take(&mut report.case_hits) {
        let mut lines = BTreeSet::new();
        for (chunk, line, h) in hits {
            let key = keys
                .entry(chunk)
                .or_insert_with_key(|c| crate::lua::display_path(&crate::layers::files::canonical(Path::new(c))))
                .clone();
            if coverage.files.contains_key(&key) {
                *in_cases.entry((key.clone(), line)).or_default() += h;
                lines.insert((key, line));
            }
        }
        cases.push((index, lines));
    }
    let mut outside = BTreeSet::new();
    for (key, f) in &coverage.files {
        for (&line, &h) in &f.lines {
            let k = (key.clone(), line);
            if h > in_cases.get(&k).copied().unwrap_or(0) {
                outside.insert(k);
            }
        }
    }
    let outside_took = took.saturating_sub(report.cases_took);
    FileRun {
        case_took: report.case_took.iter().copied().collect(),
        outside_took,
        path: spec.path.clone(),
        passed: report.passed(),
        failed: report.failed(),
        coverage,
        took,
        cases,
        outside,
        case_reads: std::mem::take(&mut report.case_reads),
        outside_reads: std::mem::take(&mut report.outside_reads),
    }
}

/// The sum of every file's coverage, with the files of `scope` no spec loaded at 0%.
pub fn total(runs: &[FileRun], scope: Option<&Scope>) -> Coverage {
    let mut all = Coverage::default();
    for r in runs {
        all.merge(&r.coverage);
    }
    match scope {
        Some(s) => all.within(s),
        None => all,
    }
}

/// The scope of the ruleset the spec files run against: their one ruleset
/// (an error naming them when they run against several), or none;
/// `with_base` as in [`Scope::of_ruleset`].
pub fn scope_of(files: &[SpecFile], with_base: bool) -> Result<Option<Scope>, String> {
    let mut dirs: Vec<&PathBuf> = files.iter().filter_map(|f| f.ruleset.as_ref()).collect();
    dirs.sort();
    dirs.dedup();
    match dirs.as_slice() {
        [] => Ok(None),
        [one] => Scope::of_ruleset(one, with_base).map(Some),
        many => Err(format!(
            "these specs belong to {} rulesets ({}): measure one ruleset at a time",
            many.len(),
            many.iter().map(|d| crate::lua::display_path(d)).collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_join_runs_of_lines() {
        assert_eq!(ranges(&[3, 4, 5, 9, 12, 13]), "3-5,9,12-13");
        assert_eq!(ranges(&[]), "");
    }
}
