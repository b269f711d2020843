//! Finding a ruleset: the folders searched for `rulesets/<name>/` and the
//! error that lists the rulesets there are.

use std::path::{Path, PathBuf};

use super::RulesetError;

/// Folders searched for `rulesets/`: `$SANDTABLE_HOME`, the current folder and
/// its parents, then the folder this binary was built from.
pub fn search_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Ok(home) = std::env::var("SANDTABLE_HOME") {
        roots.push(PathBuf::from(home));
    }
    if let Ok(cwd) = std::env::current_dir() {
        roots.extend(cwd.ancestors().map(Path::to_path_buf));
    }
    roots.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    roots
}

/// The project folder: the first search root holding a `rulesets/` folder.
pub fn project_root() -> PathBuf {
    search_roots().into_iter().find(|r| r.join("rulesets").is_dir()).unwrap_or_else(|| PathBuf::from("."))
}

/// Finds `rulesets/<name>/ruleset.yaml`; `name` may also be a path to a folder or file.
pub fn find(name: &str) -> Result<PathBuf, RulesetError> {
    find_from(name, None)
}

/// Like [`find`], trying first a path relative to `base` (a scenario's folder).
pub fn find_from(name: &str, base: Option<&Path>) -> Result<PathBuf, RulesetError> {
    if let Some(base) = base {
        let p = base.join(name);
        if p.join("ruleset.yaml").is_file() && name.contains(['.', '/']) {
            return Ok(p.join("ruleset.yaml"));
        }
    }
    let direct = Path::new(name);
    if direct.is_file() {
        return Ok(direct.to_path_buf());
    }
    if direct.join("ruleset.yaml").is_file() {
        return Ok(direct.join("ruleset.yaml"));
    }
    let roots = search_roots();
    for root in &roots {
        let p = root.join("rulesets").join(name).join("ruleset.yaml");
        if p.is_file() {
            return Ok(p);
        }
    }
    let mut known: Vec<String> = Vec::new();
    for root in &roots {
        if let Ok(rd) = std::fs::read_dir(root.join("rulesets")) {
            for e in rd.flatten() {
                if e.path().join("ruleset.yaml").is_file() {
                    let n = e.file_name().to_string_lossy().to_string();
                    if !known.contains(&n) {
                        known.push(n);
                    }
                }
            }
        }
    }
    Err(RulesetError::NotFound {
        name: name.into(),
        looked: "rulesets/ under the current folder, its parents and $SANDTABLE_HOME".into(),
        known: if known.is_empty() { "none".into() } else { known.join(", ") },
    })
}
