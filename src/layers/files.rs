//! Reading files the same way whether they sit on disk or in the binary.
//!
//! The bundled rulesets and scripts are built into the binary
//! (`include_dir`); they live under the virtual folder `(bundled)`, so
//! `(bundled)/rulesets/tricorne/ranged.lua` is a path like any other to the
//! code that finds, reads, shows and measures files: chunk names, error
//! locations, coverage and mutants name it so. Nothing on disk is named
//! `(bundled)`, and nothing under it can be written.
//!
//! Every reader of ruleset, scenario, script and spec files goes through
//! these functions instead of `std::fs`.

use std::borrow::Cow;
use std::io;
use std::path::{Component, Path, PathBuf};

use include_dir::{include_dir, Dir, DirEntry};

/// The first component of every bundled path.
pub const BUNDLED: &str = "(bundled)";

static RULESETS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/rulesets");
static SCRIPTS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/scripts");

/// The bundled layer's root folder: it holds `rulesets/` and `scripts/`.
pub fn bundled_root() -> PathBuf {
    PathBuf::from(BUNDLED)
}

/// Whether a path names something built into the binary.
pub fn is_bundled(p: &Path) -> bool {
    p.components().next().is_some_and(|c| c.as_os_str() == BUNDLED)
}

/// What a bundled path names.
enum Entry {
    /// `(bundled)` itself, holding `rulesets` and `scripts`.
    Root,
    Dir(&'static Dir<'static>),
    File(&'static [u8]),
}

/// The bundled entry at `p` (a path starting with `(bundled)`), if any.
fn bundled(p: &Path) -> Option<Entry> {
    let rel = lexical(p);
    let mut parts = rel.components().skip(1).map(|c| c.as_os_str().to_string_lossy().into_owned());
    let top = match parts.next() {
        None => return Some(Entry::Root),
        Some(t) => t,
    };
    let dir: &'static Dir<'static> = match top.as_str() {
        "rulesets" => &RULESETS,
        "scripts" => &SCRIPTS,
        _ => return None,
    };
    let inner: Vec<String> = parts.collect();
    if inner.is_empty() {
        return Some(Entry::Dir(dir));
    }
    // include_dir names entries by their path from the included folder, with `/`.
    match dir.get_entry(inner.join("/"))? {
        DirEntry::Dir(d) => Some(Entry::Dir(d)),
        DirEntry::File(f) => Some(Entry::File(f.contents())),
    }
}

/// The path with `.` and `..` resolved by name (no file system involved):
/// `a/b/../c` is `a/c`. A `..` that would climb above a relative path's
/// start is kept.
pub fn lexical(p: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// One name for a file however it was reached: the canonical path on disk
/// (symlinks and `..` resolved), the lexical form for a bundled path or a
/// path that does not exist.
pub fn canonical(p: &Path) -> PathBuf {
    if is_bundled(p) {
        return lexical(p);
    }
    p.canonicalize().unwrap_or_else(|_| lexical(p))
}

fn not_found(p: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("{} is not among the bundled files", p.display()))
}

/// A file's bytes.
pub fn read(p: &Path) -> io::Result<Cow<'static, [u8]>> {
    if is_bundled(p) {
        return match bundled(p) {
            Some(Entry::File(bytes)) => Ok(Cow::Borrowed(bytes)),
            Some(_) => Err(io::Error::new(io::ErrorKind::IsADirectory, "a folder, not a file")),
            None => Err(not_found(p)),
        };
    }
    crate::files::read_bytes(p, crate::files::TEXT_LIMIT).map(Cow::Owned)
}

/// A text file's contents: on disk, text of at most
/// [`crate::files::TEXT_LIMIT`] bytes ([`crate::files::read_text`]).
pub fn read_to_string(p: &Path) -> io::Result<Cow<'static, str>> {
    if !is_bundled(p) {
        return crate::files::read_text(p, crate::files::TEXT_LIMIT).map(Cow::Owned);
    }
    match read(p)? {
        Cow::Borrowed(b) => std::str::from_utf8(b)
            .map(Cow::Borrowed)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string())),
        Cow::Owned(b) => {
            String::from_utf8(b).map(Cow::Owned).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
        }
    }
}

/// Whether `p` is a file (on disk or bundled).
pub fn is_file(p: &Path) -> bool {
    if is_bundled(p) {
        return matches!(bundled(p), Some(Entry::File(_)));
    }
    p.is_file()
}

/// Whether `p` is a folder (on disk or bundled).
pub fn is_dir(p: &Path) -> bool {
    if is_bundled(p) {
        return matches!(bundled(p), Some(Entry::Dir(_) | Entry::Root));
    }
    p.is_dir()
}

/// Whether anything is at `p`.
pub fn exists(p: &Path) -> bool {
    is_file(p) || is_dir(p)
}

/// The entries of a folder, as paths under `dir`, sorted; empty when it is
/// not a folder.
pub fn list(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = if is_bundled(dir) {
        match bundled(dir) {
            Some(Entry::Root) => vec![dir.join("rulesets"), dir.join("scripts")],
            Some(Entry::Dir(d)) => {
                d.entries().iter().filter_map(|e| e.path().file_name().map(|n| dir.join(n))).collect()
            }
            _ => Vec::new(),
        }
    } else {
        std::fs::read_dir(dir).map(|rd| rd.flatten().map(|e| e.path()).collect()).unwrap_or_default()
    };
    out.sort();
    out
}

/// Every file under `dir`, at any depth, sorted.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in list(dir) {
        if is_dir(&p) {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Whether two folders hold the same files with the same contents.
pub fn same_tree(a: &Path, b: &Path) -> bool {
    let (fa, fb) = (walk(a), walk(b));
    if fa.len() != fb.len() {
        return false;
    }
    fa.iter().zip(&fb).all(|(x, y)| {
        x.strip_prefix(a).ok() == y.strip_prefix(b).ok() && matches!((read(x), read(y)), (Ok(p), Ok(q)) if p == q)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_files_read_like_files_on_disk() {
        let yaml = Path::new("(bundled)/rulesets/great_war/ruleset.yaml");
        assert!(is_bundled(yaml) && is_file(yaml) && !is_dir(yaml));
        assert!(read_to_string(yaml).unwrap().contains("name: great_war"));
        assert!(is_dir(Path::new("(bundled)/rulesets/great_war/spec")));
        assert!(is_file(Path::new("(bundled)/scripts/great_war/bombardment.yaml")));
        assert!(is_file(Path::new("(bundled)/rulesets/great_war/spec/../ruleset.yaml")));
        assert!(!exists(Path::new("(bundled)/rulesets/no_such")));
        assert!(!exists(Path::new("(bundled)/elsewhere")));
        let listed = list(Path::new("(bundled)/rulesets"));
        assert!(listed.contains(&PathBuf::from("(bundled)/rulesets/lib")), "{listed:?}");
        assert_eq!(list(&bundled_root()).len(), 2);
        assert!(walk(Path::new("(bundled)/rulesets/lib")).iter().any(|p| p.ends_with("cc.lua")));
    }

    #[test]
    fn the_bundled_rulesets_are_the_repository_s() {
        let disk = Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets/great_war");
        assert!(same_tree(&disk, Path::new("(bundled)/rulesets/great_war")));
        assert!(!same_tree(&disk, Path::new("(bundled)/rulesets/tricorne")));
    }

    #[test]
    fn lexical_resolves_dots_by_name() {
        assert_eq!(lexical(Path::new("a/b/../c/./d")), PathBuf::from("a/c/d"));
        assert_eq!(lexical(Path::new("../a/..")), PathBuf::from(".."));
        assert_eq!(lexical(Path::new("/x/../..")), PathBuf::from("/"));
        assert_eq!(lexical(Path::new("a/..")), PathBuf::from("."));
    }
}
