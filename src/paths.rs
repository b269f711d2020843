//! The one rule that turns a path on the command line, in the REPL or in a
//! script into a file: scenarios, scripts, spec paths and rulesets all resolve
//! the same way, from any folder.
//!
//! 1. the path as given (relative to the current folder);
//! 2. the same path under the project folder ([`crate::ruleset::project_root`]);
//! 3. under the project's `scripts/` folder (so `great_war/bombardment.yaml`
//!    names `scripts/great_war/bombardment.yaml`);
//! 4. under the project's `rulesets/` folder (so `great_war` names a ruleset).
//!
//! At each step a name without an extension also tries `NAME.yaml`.
//! Scripts (`scenario("...")`, `require`) try the script's own folder first.

use std::path::{Path, PathBuf};

/// The folders tried, in order, after the path as given (for error messages).
pub fn looked_in() -> String {
    let root = crate::ruleset::project_root();
    format!(
        "the current folder, {}, {} and {}",
        root.display(),
        root.join("scripts").display(),
        root.join("rulesets").display()
    )
}

/// Candidates for `arg` in lookup order (see the module doc).
pub fn candidates(arg: &Path) -> Vec<PathBuf> {
    let with_ext = |p: &Path| -> Option<PathBuf> { p.extension().is_none().then(|| p.with_extension("yaml")) };
    let mut bases = vec![arg.to_path_buf()];
    if arg.is_relative() {
        let root = crate::ruleset::project_root();
        bases.push(root.join(arg));
        bases.push(root.join("scripts").join(arg));
        bases.push(root.join("rulesets").join(arg));
    }
    let mut out = Vec::new();
    for b in bases {
        let ext = with_ext(&b);
        out.push(b);
        out.extend(ext);
    }
    out
}

/// Finds a file (scenario, script, spec file) by the lookup rule.
pub fn find_file(arg: &Path) -> Option<PathBuf> {
    candidates(arg).into_iter().find(|c| c.is_file())
}

/// Finds a file or a folder (spec paths, which may be folders) by the lookup rule.
pub fn find_any(arg: &Path) -> Option<PathBuf> {
    candidates(arg).into_iter().find(|c| c.exists())
}

/// Why `arg` names no file of the kind `what` (e.g. "scenario file"): it
/// names a folder (a ruleset's folder says so), or nothing at all.
pub fn not_found(arg: &Path, what: &str) -> String {
    match candidates(arg).into_iter().find(|c| c.is_dir()) {
        Some(dir) if dir.join("ruleset.yaml").is_file() => {
            format!("'{}' is a ruleset's folder ({}), not a {what}", arg.display(), dir.display())
        }
        Some(dir) => format!("'{}' is a folder ({}), not a {what}", arg.display(), dir.display()),
        None => format!("no {what} '{}' (looked in {}, with and without .yaml)", arg.display(), looked_in()),
    }
}

/// [`find_file`], or the path unchanged when nothing matches (so the caller's
/// own "cannot read" error names what the user typed).
pub fn file_or_given(arg: &Path) -> PathBuf {
    find_file(arg).unwrap_or_else(|| arg.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_project_files_from_anywhere() {
        // Absolute or not, a scenario under scripts/ is found by its short name.
        assert!(find_file(Path::new("great_war/bombardment.yaml")).is_some());
        assert!(find_file(Path::new("great_war/bombardment")).is_some());
        assert!(find_file(Path::new("scripts/great_war/bombardment.yaml")).is_some());
        assert!(find_any(Path::new("rulesets/great_war")).is_some_and(|p| p.is_dir()));
        assert!(find_file(Path::new("no/such/file.yaml")).is_none());
    }

    #[test]
    fn a_folder_is_named_as_a_folder() {
        let m = not_found(Path::new("scripts/great_war"), "scenario file");
        assert!(m.starts_with("'scripts/great_war' is a folder ("), "{m}");
        assert!(m.ends_with("not a scenario file"), "{m}");
        let m = not_found(Path::new("rulesets/great_war"), "scenario file");
        assert!(m.contains("is a ruleset's folder"), "{m}");
        let m = not_found(Path::new("no/such/file"), "scenario file");
        assert!(m.starts_with("no scenario file 'no/such/file' (looked in "), "{m}");
    }
}
