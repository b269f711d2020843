//! Finding a ruleset by name or path through the layers of the search path
//! ([`crate::layers`]), and the error that lists the rulesets there are.
//!
//! A name is looked up, in order:
//! 1. as a path when it looks like one (`./mine`, `../..`, `rulesets/x`,
//!    `/abs`): relative to the scenario's folder when a scenario names it,
//!    else to the current folder;
//! 2. the ruleset the naming file sits in, when its folder has that name (a
//!    spec scenario inside `tricorne_carbine/` naming `tricorne_carbine`);
//! 3. `rulesets/<name>/` in each layer: project, `$SANDTABLE_PATH`, bundled;
//! 4. a folder of that name in the current folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::RulesetError;
use crate::layers::{self, files, Layer, Origin};

/// A ruleset found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// Its `ruleset.yaml`.
    pub file: PathBuf,
    pub origin: Origin,
    /// The folder of the ruleset of the same name in a later layer that this
    /// one hides, when their files differ.
    pub shadows: Option<PathBuf>,
}

/// Finds a ruleset's `ruleset.yaml` by name or path.
pub fn find(name: &str) -> Result<PathBuf, RulesetError> {
    find_from(name, None)
}

/// Like [`find`], for a name written in a file in folder `base` (a scenario's).
pub fn find_from(name: &str, base: Option<&Path>) -> Result<PathBuf, RulesetError> {
    locate(name, base, None).map(|f| f.file)
}

/// Whether a ruleset name is written as a path rather than a name.
fn path_like(name: &str) -> bool {
    name.starts_with('.') || name.contains(['/', '\\']) || Path::new(name).is_absolute()
}

/// Finds a ruleset (see the module doc); `skip` is a ruleset folder not to
/// take (a ruleset that extends one of its own name means the one it shadows).
pub fn locate(name: &str, base: Option<&Path>, skip: Option<&Path>) -> Result<Found, RulesetError> {
    let skip = skip.map(files::canonical);
    let usable = |dir: &Path| {
        files::is_file(&dir.join("ruleset.yaml")) && skip.as_ref().is_none_or(|s| files::canonical(dir) != *s)
    };
    if path_like(name) {
        let p = match base {
            Some(b) if !Path::new(name).is_absolute() && !files::is_bundled(Path::new(name)) => b.join(name),
            _ => PathBuf::from(name),
        };
        let file = if files::is_file(&p) { Some(p.clone()) } else { Some(p.join("ruleset.yaml")) };
        if let Some(file) = file.filter(|f| files::is_file(f)) {
            return Ok(found_at(&file));
        }
        let why = match base {
            Some(_) if !Path::new(name).is_absolute() => " (a relative path is taken from the naming file's folder)",
            _ => "",
        };
        return Err(RulesetError::NoRulesetAt {
            name: name.into(),
            path: crate::lua::display_path(&files::lexical(&p)),
            why: why.into(),
        });
    }
    if let Some(base) = base {
        let own = base.ancestors().find(|d| files::is_file(&d.join("ruleset.yaml")));
        if let Some(own) = own.filter(|d| d.file_name().is_some_and(|n| n == name) && usable(d)) {
            return Ok(found_at(&own.join("ruleset.yaml")));
        }
    }
    for layer in layers::layers() {
        let dir = layer.root.join("rulesets").join(name);
        if usable(&dir) {
            return Ok(found_at(&dir.join("ruleset.yaml")));
        }
    }
    let here = Path::new(name);
    if usable(here) {
        return Ok(found_at(&here.join("ruleset.yaml")));
    }
    Err(RulesetError::NotFound {
        name: name.into(),
        looked: format!("rulesets/ in {}, and the current folder", layers::looked_in()),
        known: known_names(),
    })
}

/// What is known of the ruleset whose `ruleset.yaml` is `file`: its layer,
/// and the ruleset it hides when it is `rulesets/<name>` of a layer and a
/// later layer has a different one of that name.
fn found_at(file: &Path) -> Found {
    let file = files::canonical(file);
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let all = layers::layers();
    let at = all.iter().position(|l| {
        files::canonical(&l.root.join("rulesets")) == dir.parent().map(files::canonical).unwrap_or_default()
    });
    let origin = layers::origin_of(&file).0;
    let shadows = match (at, dir.file_name()) {
        (Some(i), Some(name)) => all[i + 1..]
            .iter()
            .map(|l| l.root.join("rulesets").join(name))
            .find(|d| files::is_file(&d.join("ruleset.yaml")))
            .filter(|d| !same_files(&dir, d)),
        _ => None,
    };
    Found { file, origin, shadows }
}

/// Whether two ruleset folders hold the same files (remembered: a spec run
/// loads the same rulesets many times).
fn same_files(a: &Path, b: &Path) -> bool {
    static SEEN: Mutex<Option<HashMap<(PathBuf, PathBuf), bool>>> = Mutex::new(None);
    let key = (files::canonical(a), files::canonical(b));
    if let Some(v) = SEEN.lock().ok().and_then(|m| m.as_ref().and_then(|m| m.get(&key).copied())) {
        return v;
    }
    let v = files::same_tree(a, b);
    if let Ok(mut m) = SEEN.lock() {
        m.get_or_insert_with(HashMap::new).insert(key, v);
    }
    v
}

/// One ruleset of one layer, for `sandtable rulesets`.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    /// The folder's name (what `--ruleset NAME` takes).
    pub name: String,
    pub dir: PathBuf,
    pub layer: Layer,
    /// The folder of the earlier layer's ruleset of the same name that hides
    /// this one (with different files), if any.
    pub shadowed_by: Option<PathBuf>,
    /// The folder of an earlier layer's ruleset of the same name with the
    /// very same files (the sandtable repository's own, say), if any.
    pub same_as: Option<PathBuf>,
}

/// Every ruleset of every layer, layer by layer, by name within a layer.
pub fn all() -> Vec<Listed> {
    let mut out: Vec<Listed> = Vec::new();
    for layer in layers::layers() {
        for dir in files::list(&layer.root.join("rulesets")) {
            if !files::is_file(&dir.join("ruleset.yaml")) {
                continue;
            }
            let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else { continue };
            let first = out.iter().find(|l| l.name == name).map(|l| l.dir.clone());
            let (shadowed_by, same_as) = match first {
                Some(e) if same_files(&e, &dir) => (None, Some(e)),
                Some(e) => (Some(e), None),
                None => (None, None),
            };
            out.push(Listed { name, dir, layer: layer.clone(), shadowed_by, same_as });
        }
    }
    out
}

/// The names `--ruleset` and `ruleset:` accept, for messages.
fn known_names() -> String {
    let mut names: Vec<String> = all().into_iter().map(|l| l.name).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_find_the_first_layer_and_paths_their_folder() {
        let f = locate("great_war", None, None).unwrap();
        assert!(f.file.ends_with("great_war/ruleset.yaml"));
        // The repository's copy is the bundled one's files: no shadow note.
        assert_eq!(f.shadows, None);
        let bundled = locate("(bundled)/rulesets/tricorne", None, None).unwrap();
        assert_eq!(bundled.origin, Origin::Bundled);
        assert_eq!(bundled.file, PathBuf::from("(bundled)/rulesets/tricorne/ruleset.yaml"));
        // A scenario beside its ruleset names it `.`; `..` climbs from the scenario's folder.
        let spec = Path::new("(bundled)/rulesets/tricorne/spec");
        let up = locate("..", Some(spec), None).unwrap();
        assert_eq!(up.file, bundled.file);
        let e = locate("no_such_rules", None, None).unwrap_err().to_string();
        assert!(e.contains("no ruleset named 'no_such_rules'") && e.contains("tricorne"), "{e}");
        let e = locate("../nothing", Some(spec), None).unwrap_err().to_string();
        assert!(e.contains("(bundled)/rulesets/tricorne/nothing has no ruleset.yaml"), "{e}");
        assert!(e.contains("from the naming file's folder"), "{e}");
    }

    #[test]
    fn a_ruleset_that_skips_its_own_folder_finds_the_next_layer() {
        let own = locate("tricorne", None, None).unwrap();
        let dir = own.file.parent().unwrap().to_path_buf();
        let next = locate("tricorne", Some(&dir), Some(&dir)).unwrap();
        assert_eq!(next.origin, Origin::Bundled);
        assert!(all().iter().any(|l| l.name == "viktory"));
    }
}
