//! A variant's run of its base's specs (`sandtable test VARIANT
//! --with-base-specs`): the designer's "what did my change touch" report.
//!
//! Each spec file of the rulesets the variant extends runs with the variant
//! standing in for them ([`StandIn`]: wherever the spec or its scenarios
//! would load the base, the variant loads). A case that fails runs again on
//! the base itself: if it passes there, the variant changed what it checks.

use std::path::{Path, PathBuf};

use crate::lua::{HostOptions, ScenarioOverrides, ScriptError, StandIn};
use crate::ruleset::Ruleset;

/// What became of one base case run against the variant.
pub enum BaseCase {
    /// It passes with the variant too.
    Passes,
    /// It fails with the variant and passes on the base: the variant changed it.
    Changed(ScriptError),
    /// It fails on the base as well (not the variant's doing).
    FailsOnBase(ScriptError),
}

/// The results of one base spec file.
pub struct BaseFile {
    pub path: PathBuf,
    /// The ruleset the file belongs to (a base of the variant).
    pub base: String,
    pub cases: Vec<(String, BaseCase)>,
}

/// The variant the spec files belong to, for `--with-base-specs`: every
/// file must sit in the folder of one ruleset that extends another.
pub fn variant_of(files: &[super::SpecFile]) -> Result<Ruleset, String> {
    let dirs: Vec<PathBuf> = files.iter().filter_map(|f| f.ruleset.clone()).collect();
    let Some(dir) = dirs.first() else {
        return Err(
            "--with-base-specs needs the specs of a variant (a ruleset with `extends:`): give its folder or name"
                .into(),
        );
    };
    if dirs.len() != files.len() || dirs.iter().any(|d| d != dir) {
        return Err("--with-base-specs works on one variant at a time: give one variant's folder or name".into());
    }
    let rs = Ruleset::load(&dir.display().to_string()).map_err(|e| e.to_string())?;
    if rs.base().is_none() {
        return Err(format!(
            "--with-base-specs: {} extends no ruleset (its ruleset.yaml has no `extends:`), so it has no base specs",
            rs.name
        ));
    }
    Ok(rs)
}

/// The spec files of every ruleset `rs` extends, nearest base first.
pub fn base_spec_files(rs: &Ruleset) -> Vec<(String, Vec<PathBuf>)> {
    rs.chain
        .iter()
        .skip(1)
        .map(|l| {
            let mut files = Vec::new();
            super::collect(&l.dir.join("spec"), &mut files);
            (l.name.clone(), files)
        })
        .collect()
}

/// Runs one base spec file against the variant `rs`, and its failing cases
/// again on the base.
pub fn run_base_file(
    rs: &Ruleset,
    base: &str,
    path: &Path,
    options: &HostOptions,
    overrides: &ScenarioOverrides,
) -> BaseFile {
    let with_variant = ScenarioOverrides { stand_in: Some(StandIn::for_variant(rs)), ..overrides.clone() };
    let report = super::run_file(path, options, &with_variant);
    let failed = report.cases.iter().any(|(_, e)| e.is_some());
    let on_base = failed.then(|| super::run_file(path, options, overrides));
    let cases = report
        .cases
        .into_iter()
        .map(|(name, err)| {
            let outcome = match err {
                None => BaseCase::Passes,
                Some(e) => {
                    let passes_on_base =
                        on_base.as_ref().is_some_and(|b| b.cases.iter().any(|(n, be)| *n == name && be.is_none()));
                    if passes_on_base {
                        BaseCase::Changed(e)
                    } else {
                        BaseCase::FailsOnBase(e)
                    }
                }
            };
            (name, outcome)
        })
        .collect();
    BaseFile { path: path.to_path_buf(), base: base.to_string(), cases }
}
