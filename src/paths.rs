//! The one rule that turns a path on the command line, in the REPL or in a
//! script into a file: scenarios, scripts, spec paths and rulesets all resolve
//! the same way, from any folder.
//!
//! 1. the path as given (relative to the current folder);
//! 2. then in each layer of the search path ([`crate::layers`]: the project
//!    folder, the `$SANDTABLE_PATH` folders, the bundled files), in order:
//!    the path under the layer's folder, under its `scripts/` (so
//!    `great_war/bombardment.yaml` names `scripts/great_war/bombardment.yaml`)
//!    and under its `rulesets/` (so `great_war` names a ruleset's folder).
//!
//! At each step a name without an extension also tries `NAME.yaml`.
//! Scripts (`scenario("...")`, `require`) try the script's own folder first.

use std::path::{Path, PathBuf};

use crate::layers::{self, files};

/// The folders tried, in order, after the path as given (for error messages).
pub fn looked_in() -> String {
    format!("the current folder, then {} (each folder itself, its scripts/ and its rulesets/)", layers::looked_in())
}

/// Candidates for `arg` in lookup order (see the module doc).
pub fn candidates(arg: &Path) -> Vec<PathBuf> {
    let with_ext = |p: &Path| -> Option<PathBuf> { p.extension().is_none().then(|| p.with_extension("yaml")) };
    let mut bases = vec![arg.to_path_buf()];
    if arg.is_relative() && !files::is_bundled(arg) {
        for layer in layers::layers() {
            bases.push(layer.root.join(arg));
            bases.push(layer.root.join("scripts").join(arg));
            bases.push(layer.root.join("rulesets").join(arg));
        }
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
    candidates(arg).into_iter().find(|c| files::is_file(c))
}

/// Finds a file or a folder (spec paths, which may be folders) by the lookup rule.
pub fn find_any(arg: &Path) -> Option<PathBuf> {
    candidates(arg).into_iter().find(|c| files::exists(c))
}

/// Why `arg` names no file of the kind `what` (e.g. "scenario file"): it
/// names a folder (a ruleset's folder says so), or nothing at all.
pub fn not_found(arg: &Path, what: &str) -> String {
    match candidates(arg).into_iter().find(|c| files::is_dir(c)) {
        Some(dir) if files::is_file(&dir.join("ruleset.yaml")) => {
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
        assert!(find_any(Path::new("rulesets/great_war")).is_some_and(|p| files::is_dir(&p)));
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

    #[test]
    fn the_bundled_layer_is_searched_and_named() {
        let c = candidates(Path::new("tricorne/prestonpans"));
        assert!(c.contains(&PathBuf::from("(bundled)/scripts/tricorne/prestonpans.yaml")), "{c:?}");
        assert!(files::is_file(&file_or_given(Path::new("(bundled)/scripts/tricorne/prestonpans.yaml"))));
        assert!(looked_in().contains("the bundled files"));
    }
}
