//! The spec runner behind `sandtable test`: finds spec files, runs each in a
//! fresh host (with its ruleset loaded when it lives under `rulesets/<game>/`),
//! and reports every case. [`coverage`] measures which lines of the
//! ruleset's Lua the specs run; [`mutate`] measures whether they would notice
//! a change to it.

pub mod coverage;
pub mod mutate;
pub mod same_paths;

use std::path::{Path, PathBuf};

use crate::lua::{DecisionMode, Host, HostOptions, ScenarioOverrides, ScriptError};
use crate::ruleset::Ruleset;

/// Results of one spec file.
pub struct FileReport {
    pub path: PathBuf,
    /// (case name, error if it failed)
    pub cases: Vec<(String, Option<ScriptError>)>,
}

impl FileReport {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.1.is_none()).count()
    }
    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|c| c.1.is_some()).count()
    }
}

/// Spec files under the given paths (files, or folders searched for `*.lua`; a
/// ruleset folder means its `spec/`);
/// with none, every `rulesets/*/spec/**/*.lua` and `tests/**/*.lua` of the project.
/// Folders named `fixtures` or `support` are skipped.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    if paths.is_empty() {
        let root = crate::ruleset::project_root();
        if let Ok(rd) = std::fs::read_dir(root.join("rulesets")) {
            let mut games: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
            games.sort();
            for g in games {
                collect(&g.join("spec"), &mut out);
            }
        }
        collect(&root.join("tests"), &mut out);
        return Ok(out);
    }
    for given in paths {
        let Some(p) = crate::paths::find_any(given) else {
            return Err(format!(
                "{}: no such file or folder (looked in {})",
                given.display(),
                crate::paths::looked_in()
            ));
        };
        let p = &p;
        if p.is_file() {
            out.push(p.clone());
        } else if p.join("ruleset.yaml").is_file() {
            // A ruleset folder: its specs, not its modules.
            collect(&p.join("spec"), &mut out);
        } else if p.is_dir() {
            collect(p, &mut out);
        }
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
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

/// The ruleset folder a spec belongs to: the nearest parent with a `ruleset.yaml`.
pub fn ruleset_of(spec: &Path) -> Option<PathBuf> {
    let abs = spec.canonicalize().ok()?;
    abs.ancestors().skip(1).find(|d| d.join("ruleset.yaml").is_file()).map(Path::to_path_buf)
}

/// Whether a file is a spec: it calls `describe(` or `it(`. A file without
/// them (a trial or scenario script beside the specs) is not run and reports
/// no cases, so that the runner says so instead of counting it as a pass.
pub fn is_spec(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return true; // let the run report the read error
    };
    text.lines().map(|l| l.split("--").next().unwrap_or("")).any(|l| {
        l.contains("describe(")
            || l.contains("describe (")
            || l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '(')).any(|w| w.starts_with("it("))
    })
}

/// Runs one spec file in a fresh host.
pub fn run_file(path: &Path, options: &HostOptions, overrides: &ScenarioOverrides) -> FileReport {
    run_file_then(path, options, overrides, |_| {})
}

/// Runs one spec file in a fresh host, then hands the host to `after` (to
/// read coverage, say) before it is dropped.
pub fn run_file_then(
    path: &Path,
    options: &HostOptions,
    overrides: &ScenarioOverrides,
    after: impl FnOnce(&Host),
) -> FileReport {
    let mut report = FileReport { path: path.to_path_buf(), cases: Vec::new() };
    if !is_spec(path) {
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
    if let Some(dir) = ruleset_of(path) {
        let loaded = Ruleset::load(&dir.display().to_string()).map_err(ScriptError::plain_diag).and_then(|mut rs| {
            if let Some(v) = &overrides.variant {
                rs.apply_variant(v).map_err(ScriptError::plain_diag)?;
            }
            for s in &overrides.set {
                rs.set_param(s).map_err(ScriptError::plain_diag)?;
            }
            host.load_ruleset(rs)
        });
        if let Err(e) = loaded {
            report.cases.push(("(loading the ruleset)".into(), Some(e)));
            return report;
        }
    }
    let result = host.exec_file(path);
    let spec = std::mem::take(&mut *host.state.spec.borrow_mut());
    report.cases.extend(spec.cases.into_iter().map(|c| (c.name, c.error)));
    match result {
        Err(e) => report.cases.push(("(top level of the file)".into(), Some(e))),
        Ok(_) => {
            let left = host.leftovers();
            if !left.is_empty() {
                report.cases.push(("(top level of the file)".into(), Some(ScriptError::plain(left.join("; ")))));
            }
        }
    }
    after(&host);
    report
}
