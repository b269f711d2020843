//! The layered search path: where rulesets, scenarios, scripts, `lib/`
//! modules and specs are found.
//!
//! Three layers, searched in order, each a folder holding `rulesets/<name>/`
//! and `scripts/`:
//!
//! 1. the **project** folder: `--project DIR`, else `$SANDTABLE_PROJECT`,
//!    else the nearest folder at or above the current one that holds a
//!    `sandtable.toml` (a designer's own rulesets and scenarios);
//! 2. each folder on **`$SANDTABLE_PATH`** (`:`-separated, like `PATH`:
//!    rulesets shared between projects);
//! 3. the **bundled** rulesets and scripts, built into the binary
//!    ([`files::BUNDLED`]), so the binary alone is enough.
//!
//! A name is taken from the first layer that has it: a user's folder adds
//! to the bundled rulesets and never hides the others, and a user's ruleset
//! of the same name as a bundled one *shadows* it (and says so, unless the
//! two are the same files, as in the sandtable repository itself).

pub mod files;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The file that marks a project folder.
pub const MARKER: &str = "sandtable.toml";
/// Names the project folder (instead of looking for [`MARKER`]).
pub const PROJECT_ENV: &str = "SANDTABLE_PROJECT";
/// Folders of shared rulesets, between the project and the bundled ones.
pub const PATH_ENV: &str = "SANDTABLE_PATH";

/// Which layer something comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// The project folder.
    Project,
    /// A folder on `$SANDTABLE_PATH`.
    SearchPath,
    /// Built into the binary.
    Bundled,
    /// Named by its path, outside every layer.
    Folder,
}

impl Origin {
    /// The word people read: `project`, `SANDTABLE_PATH`, `bundled`, `folder`.
    pub fn word(self) -> &'static str {
        match self {
            Origin::Project => "project",
            Origin::SearchPath => "SANDTABLE_PATH",
            Origin::Bundled => "bundled",
            Origin::Folder => "folder",
        }
    }
}

/// One layer of the search path.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub origin: Origin,
    /// The folder holding `rulesets/` and `scripts/` (`(bundled)` for the bundled layer).
    pub root: PathBuf,
}

impl Layer {
    /// `project /home/me/game`, `SANDTABLE_PATH /opt/rules`, `bundled`.
    pub fn describe(&self) -> String {
        match self.origin {
            Origin::Bundled => "bundled".into(),
            o => format!("{} {}", o.word(), self.root.display()),
        }
    }
}

static PROJECT_OPTION: OnceLock<PathBuf> = OnceLock::new();

/// Names the project folder for the rest of the process (`--project DIR`).
pub fn set_project(dir: PathBuf) {
    let _ = PROJECT_OPTION.set(dir);
}

/// Where the project folder came from, for messages.
pub fn project_source() -> &'static str {
    if PROJECT_OPTION.get().is_some() {
        "--project"
    } else if std::env::var_os(PROJECT_ENV).is_some_and(|v| !v.is_empty()) {
        "$SANDTABLE_PROJECT"
    } else {
        MARKER
    }
}

/// The project folder, if there is one (see the module doc).
pub fn project() -> Option<PathBuf> {
    if let Some(p) = PROJECT_OPTION.get() {
        return Some(absolute(p));
    }
    if let Some(p) = std::env::var_os(PROJECT_ENV).filter(|v| !v.is_empty()) {
        return Some(absolute(Path::new(&p)));
    }
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors().find(|d| d.join(MARKER).is_file()).map(Path::to_path_buf)
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The folders on `$SANDTABLE_PATH`, as given (those that are not folders
/// included: [`layers`] skips them, `sandtable rulesets` names them).
pub fn search_path() -> Vec<PathBuf> {
    std::env::var_os(PATH_ENV)
        .map(|v| std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect())
        .unwrap_or_default()
}

/// The layers in search order: the project (if any), the `$SANDTABLE_PATH`
/// folders that exist, the bundled files. A folder named twice is searched once.
pub fn layers() -> Vec<Layer> {
    let mut out: Vec<Layer> = Vec::new();
    let mut push = |origin, root: PathBuf| {
        let same = |l: &Layer| files::canonical(&l.root) == files::canonical(&root);
        if !out.iter().any(same) {
            out.push(Layer { origin, root });
        }
    };
    if let Some(p) = project().filter(|p| p.is_dir()) {
        push(Origin::Project, p);
    }
    for p in search_path() {
        if p.is_dir() {
            push(Origin::SearchPath, absolute(&p));
        }
    }
    push(Origin::Bundled, files::bundled_root());
    out
}

/// The layer whose folder holds `path`, if any.
pub fn layer_of(path: &Path) -> Option<Layer> {
    if files::is_bundled(path) {
        return Some(Layer { origin: Origin::Bundled, root: files::bundled_root() });
    }
    let path = files::canonical(path);
    layers().into_iter().find(|l| !files::is_bundled(&l.root) && path.starts_with(files::canonical(&l.root)))
}

/// Where a file or folder comes from, for people: `bundled`, `project`,
/// `SANDTABLE_PATH /opt/rules`, or `folder` outside every layer.
pub fn origin_of(path: &Path) -> (Origin, String) {
    match layer_of(path) {
        Some(l) if l.origin == Origin::SearchPath => (l.origin, l.describe()),
        Some(l) => (l.origin, l.origin.word().to_string()),
        None => (Origin::Folder, Origin::Folder.word().to_string()),
    }
}

/// The layers as one phrase for error messages: "the project /x, then
/// SANDTABLE_PATH /y, then the bundled files".
pub fn looked_in() -> String {
    layers()
        .iter()
        .map(|l| match l.origin {
            Origin::Bundled => "the bundled files".to_string(),
            _ => format!("the {}", l.describe()),
        })
        .collect::<Vec<_>>()
        .join(", then ")
}

/// Notes for the person (a ruleset that shadows another): each is given
/// once per process; the CLI prints them on stderr, the REPL with its own
/// output.
static NOTES: Mutex<(Vec<String>, BTreeSet<String>)> = Mutex::new((Vec::new(), BTreeSet::new()));

/// Leaves a note for the person, unless it was given already.
pub fn note(text: String) {
    if let Ok(mut n) = NOTES.lock() {
        if n.1.insert(text.clone()) {
            n.0.push(text);
        }
    }
}

/// The notes not yet shown.
pub fn take_notes() -> Vec<String> {
    NOTES.lock().map(|mut n| std::mem::take(&mut n.0)).unwrap_or_default()
}

/// Prints the notes not yet shown on stderr, as `note: ...`.
pub fn print_notes() {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    for n in take_notes() {
        let _ = writeln!(err, "note: {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_layer_comes_last_and_always() {
        let ls = layers();
        assert_eq!(ls.last().map(|l| l.origin), Some(Origin::Bundled));
        assert_eq!(origin_of(Path::new("(bundled)/rulesets/lib/cc.lua")).0, Origin::Bundled);
    }

    #[test]
    fn the_repository_is_a_project() {
        // cargo runs tests in the package's folder, which has a sandtable.toml.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os(PROJECT_ENV).is_none() {
            assert_eq!(project().map(|p| files::canonical(&p)), Some(files::canonical(root)));
            assert_eq!(origin_of(&root.join("rulesets/great_war")).0, Origin::Project);
        }
        assert_eq!(origin_of(Path::new("/")).0, Origin::Folder);
    }
}
