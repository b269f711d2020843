//! The spec runner behind `sandtable test`: finds spec files, runs each in a
//! fresh host (with its ruleset loaded when it lives under `rulesets/<game>/`),
//! and reports every case. [`coverage`] measures which lines of the
//! ruleset's Lua the specs run; [`mutate`] measures whether they would notice
//! a change to it.

pub mod base;
pub mod coverage;
pub mod exact_odds;
pub mod mutate;
pub mod same_paths;
pub mod scope;

use std::path::{Path, PathBuf};

use crate::layers::files;
use crate::lua::{DecisionMode, Host, HostOptions, RulesetLoad, ScenarioOverrides, ScriptError};
use crate::ruleset::Ruleset;

/// (chunk, line, times it ran).
pub type LineHits = (String, u32, u64);

/// Results of one spec file.
pub struct FileReport {
    pub path: PathBuf,
    /// (case name, error if it failed)
    pub cases: Vec<(String, Option<ScriptError>)>,
    /// Warnings about the file (a spec that tests another ruleset than the one it sits in).
    pub notes: Vec<String>,
    /// With coverage on, what each case ran: its place among the file's
    /// `it` calls and the (chunk, line, times) it hit.
    pub case_hits: Vec<(usize, Vec<LineHits>)>,
    /// With [`HostOptions::track_data`], the ruleset's data each case read
    /// (by its place), and what was read outside any case (loading the
    /// ruleset, the file's top level): see [`crate::lua::State::data_reads`].
    pub case_reads: Vec<(usize, std::collections::BTreeSet<String>)>,
    pub outside_reads: std::collections::BTreeSet<String>,
    /// The place among the file's `it` calls of its first failing case.
    pub first_failed: Option<usize>,
    /// How long each case ran, by its place among the file's `it` calls.
    pub case_took: Vec<(usize, std::time::Duration)>,
    /// How long all its cases ran together.
    pub cases_took: std::time::Duration,
}

impl FileReport {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.1.is_none()).count()
    }
    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|c| c.1.is_some()).count()
    }
}

/// The folder whose specs a bare `sandtable test` runs: the project's, or
/// outside any project the bundled files.
pub fn default_root() -> PathBuf {
    crate::layers::project().unwrap_or_else(files::bundled_root)
}

/// Spec files under the given paths (files, or folders searched for `*.lua`; a
/// ruleset folder means its `spec/`; a bare name that is a ruleset's, its
/// `spec/`); with none, every `rulesets/*/spec/**/*.lua` and `tests/**/*.lua`
/// of [`default_root`]. Folders named `fixtures` or `support` are skipped.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    if paths.is_empty() {
        let root = default_root();
        for g in files::list(&root.join("rulesets")) {
            collect(&g.join("spec"), &mut out);
        }
        collect(&root.join("tests"), &mut out);
        return Ok(out);
    }
    for given in paths {
        // `sandtable test tricorne` means the ruleset, not scripts/tricorne.
        let name = given.to_str().filter(|n| !n.is_empty() && !n.contains(['/', '\\', '.']));
        let ruleset = name.filter(|_| !files::exists(given)).and_then(|n| crate::ruleset::find(n).ok());
        let found = match ruleset {
            Some(yaml) => yaml.parent().map(Path::to_path_buf),
            None => crate::paths::find_any(given),
        };
        let Some(p) = found else {
            return Err(format!(
                "{}: no such file, folder or ruleset (looked in {})",
                given.display(),
                crate::paths::looked_in()
            ));
        };
        let p = &p;
        if files::is_file(p) {
            out.push(p.clone());
        } else if files::is_file(&p.join("ruleset.yaml")) {
            // A ruleset folder: its specs, not its modules.
            collect(&p.join("spec"), &mut out);
        } else if files::is_dir(p) {
            collect(p, &mut out);
        }
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for p in files::list(dir) {
        if files::is_dir(&p) {
            // Fixture folders hold modules and data for tests, and support
            // folders modules that specs share (`require("spec/support/x")`):
            // neither holds specs.
            if p.file_name().is_some_and(|n| n == "fixtures" || n == "support") {
                continue;
            }
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "lua" || e == "luau") {
            out.push(p);
        }
    }
}

/// A spec file and the ruleset folder it runs against.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecFile {
    pub path: PathBuf,
    /// Its own ruleset ([`ruleset_of`]), or the one `--specs` scores it against.
    pub ruleset: Option<PathBuf>,
}

impl SpecFile {
    /// A spec file of its own ruleset (none outside a ruleset's folder).
    pub fn of(path: PathBuf) -> SpecFile {
        SpecFile { ruleset: ruleset_of(&path), path }
    }
}

/// The spec files `sandtable test PATHS --specs DIRS` runs: those under
/// `paths` with their own rulesets, then those under `specs`, each run
/// against the one ruleset `paths` name (a designer's own suite, or an
/// independent one, scoring the ruleset).
pub fn suite(paths: &[PathBuf], specs: &[PathBuf]) -> Result<Vec<SpecFile>, String> {
    let mut out: Vec<SpecFile> = discover(paths)?.into_iter().map(SpecFile::of).collect();
    if specs.is_empty() {
        return Ok(out);
    }
    let mut rulesets: Vec<PathBuf> = out.iter().filter_map(|f| f.ruleset.clone()).collect();
    for p in paths {
        if let Some(dir) = crate::paths::find_any(p).filter(|d| files::is_file(&d.join("ruleset.yaml"))) {
            rulesets.push(files::canonical(&dir));
        }
    }
    rulesets.sort();
    rulesets.dedup();
    let [ruleset] = rulesets.as_slice() else {
        return Err(format!(
            "--specs runs its specs against one ruleset: name it (e.g. `sandtable test rulesets/tricorne --specs {}`){}",
            specs[0].display(),
            if rulesets.is_empty() { String::new() } else { format!("; these paths name {}", rulesets.len()) }
        ));
    };
    for s in specs {
        let Some(dir) = crate::paths::find_any(s) else {
            return Err(format!(
                "--specs {}: no such file or folder (looked in {})",
                s.display(),
                crate::paths::looked_in()
            ));
        };
        let found = if files::is_file(&dir) { vec![dir] } else { discover(std::slice::from_ref(&dir))? };
        if found.is_empty() {
            return Err(format!("--specs {}: no spec files (*.lua) there", s.display()));
        }
        out.extend(found.into_iter().map(|path| SpecFile { path, ruleset: Some(ruleset.clone()) }));
    }
    Ok(out)
}

/// The ruleset folder a spec belongs to: the nearest parent with a `ruleset.yaml`.
pub fn ruleset_of(spec: &Path) -> Option<PathBuf> {
    let abs = files::canonical(spec);
    abs.ancestors().skip(1).find(|d| files::is_file(&d.join("ruleset.yaml"))).map(Path::to_path_buf)
}

/// Specs test what they sit in: the warnings for a spec inside ruleset
/// `own`'s folder that loaded other rulesets (`loads`, in order), one per
/// ruleset, naming both and the scenario that named the other.
fn other_rulesets(own: &RulesetLoad, loads: &[RulesetLoad]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<&Path> = Vec::new();
    // A ruleset inside the spec's own ruleset folder (a fixture the spec
    // carries, as great_war's spec/scenarios/bare) is loaded on purpose.
    for l in loads.iter().filter(|l| !l.dir.starts_with(&own.dir)) {
        if seen.contains(&l.dir.as_path()) {
            continue;
        }
        seen.push(&l.dir);
        let by = l
            .scenario
            .as_ref()
            .map(|s| format!(": scenario {} names it", crate::lua::display_path(s)))
            .unwrap_or_default();
        let which =
            if l.name == own.name { format!(" at {}", crate::lua::display_path(&l.dir)) } else { String::new() };
        out.push(format!(
            "this spec tests {} ({}{which}), not {}, the ruleset it sits in{by}. Name this ruleset in the \
             scenario (`ruleset: ..` in a scenario in this ruleset's folder), or, to run a base's specs against a \
             variant, `sandtable test VARIANT --with-base-specs`",
            l.name,
            l.origin.word(),
            own.name,
        ));
    }
    out
}

/// Whether a file is a spec: it calls `describe(` or `it(`. A file without
/// them (a trial or scenario script beside the specs) is not run and reports
/// no cases, so that the runner says so instead of counting it as a pass.
pub fn is_spec(path: &Path) -> bool {
    let Ok(text) = crate::lua::chunk::read_source(path) else {
        return true; // let the run report the read error
    };
    is_spec_text(&text)
}

/// [`is_spec`] of a file's text.
fn is_spec_text(text: &str) -> bool {
    text.lines().map(|l| l.split("--").next().unwrap_or("")).any(|l| {
        l.contains("describe(")
            || l.contains("describe (")
            || l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '(')).any(|w| w.starts_with("it("))
    })
}

/// Runs one spec file in a fresh host, with its own ruleset.
pub fn run_file(path: &Path, options: &HostOptions, overrides: &ScenarioOverrides) -> FileReport {
    run_spec(&SpecFile::of(path.to_path_buf()), options, overrides, |_| {})
}

/// Runs one spec file in a fresh host with its ruleset loaded, then hands
/// the host to `after` (to read coverage, say) before it is dropped.
pub fn run_spec(
    spec: &SpecFile,
    options: &HostOptions,
    overrides: &ScenarioOverrides,
    after: impl FnOnce(&Host),
) -> FileReport {
    run_spec_source(spec, None, options, overrides, after)
}

/// [`run_spec`] with the spec file's text given (`source`), read once by
/// a caller that runs the file many times; None reads the file.
pub fn run_spec_source(
    spec: &SpecFile,
    source: Option<&str>,
    options: &HostOptions,
    overrides: &ScenarioOverrides,
    after: impl FnOnce(&Host),
) -> FileReport {
    let path = spec.path.as_path();
    let mut report = FileReport {
        path: path.to_path_buf(),
        cases: Vec::new(),
        notes: Vec::new(),
        case_hits: Vec::new(),
        case_reads: Vec::new(),
        outside_reads: Default::default(),
        first_failed: None,
        case_took: Vec::new(),
        cases_took: std::time::Duration::ZERO,
    };
    if !source.map_or_else(|| is_spec(path), is_spec_text) {
        return report;
    }
    let host = match Host::new(HostOptions { capture_output: true, ..options.clone() }) {
        Ok(h) => h,
        Err(e) => {
            report.cases.push(("(starting Lua)".into(), Some(ScriptError::from_lua(&e))));
            return report;
        }
    };
    host.set_overrides(overrides);
    host.set_decision_mode(DecisionMode::Strict);
    if let Some(dir) = &spec.ruleset {
        // A variant standing in for the base whose spec this is.
        let dir = overrides.stand_in.as_ref().and_then(|s| s.replacing(dir)).unwrap_or(dir);
        let name = dir.display().to_string();
        let loaded = match options.parsed {
            Some(p) => p.ruleset(&name, None, &ScenarioOverrides::default(), options.sources.as_deref()),
            None => Ruleset::load_with(&name, None, options.sources.as_deref()),
        }
        .map_err(ScriptError::from)
        .and_then(|mut rs| {
            if let Some(v) = &overrides.variant {
                rs.apply_variant(v).map_err(ScriptError::from)?;
            }
            for s in &overrides.set {
                rs.set_param(s).map_err(ScriptError::from)?;
            }
            host.load_ruleset(rs)
        });
        if let Err(e) = loaded {
            report.cases.push(("(loading the ruleset)".into(), Some(e)));
            return report;
        }
    }
    // Specs test what they sit in: only a spec in a ruleset's own folder.
    let sits_in = spec.ruleset.is_some() && ruleset_of(path) == spec.ruleset;
    let own_load = host.state.loads.borrow().first().cloned().filter(|_| sits_in);
    let result = match source {
        Some(text) => host.exec_script(&crate::paths::file_or_given(path), text),
        None => host.exec_file(path),
    };
    if let Some(own) = own_load {
        report.notes.extend(other_rulesets(&own, &host.state.loads.borrow()));
    }
    let results = std::mem::take(&mut *host.state.spec.borrow_mut());
    for c in results.cases {
        report.cases_took += c.took;
        if let Some(i) = c.index {
            report.case_took.push((i, c.took));
            if c.error.is_some() && report.first_failed.is_none() {
                report.first_failed = Some(i);
            }
            if options.coverage {
                report.case_hits.push((i, c.hits));
            }
            if options.track_data {
                report.case_reads.push((i, c.reads));
            }
        }
        report.cases.push((c.name, c.error));
    }
    match result {
        Err(e) => report.cases.push(("(top level of the file)".into(), Some(e))),
        Ok(_) => {
            let left = host.leftovers();
            if !left.is_empty() {
                report.cases.push(("(top level of the file)".into(), Some(ScriptError::plain(left.join("; ")))));
            }
        }
    }
    report.outside_reads = host.state.data_reads.borrow_mut().take().unwrap_or_default();
    after(&host);
    report
}
