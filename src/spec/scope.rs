//! What `sandtable test --coverage` and `--mutate` measure: the one place
//! that picks the files (and, with `--changed`, the lines).
//!
//! A ruleset's code is every `.lua` file in its folder outside `spec/` (the
//! modules it lists and those they or its scripts `require`, such as
//! viktory's `policies.lua`), every `lib/` module one of them requires, and
//! every `lib/` module its specs load; its data is its `ruleset.yaml`. A file
//! no spec loads still counts, at 0%.
//! A variant (a ruleset that `extends:` another) measures only its own
//! folder's files and its own `ruleset.yaml` (the designer's change); with
//! `--with-base`, the files of the rulesets it extends and the `lib/`
//! modules too (a base's file the variant replaces is not loaded, and not
//! counted).
//! Spec files and the helpers beside them are test code and never count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::layers::files;

/// The files measured, and the lines a mutation run keeps.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// The ruleset's folder.
    pub dir: PathBuf,
    /// Lua files measured, canonical.
    pub lua: Vec<PathBuf>,
    /// The manifests measured, canonical: the ruleset's own, then (a
    /// variant with `--with-base`) those of the rulesets it extends.
    pub manifests: Vec<PathBuf>,
    /// The `lib/` folders whose modules count when a spec loads them (none
    /// for a variant without `--with-base`).
    pub lib: Vec<PathBuf>,
    /// With `--changed`: the lines changed in each file (canonical path ->
    /// lines, 1-based); a file absent here has no changed line.
    pub changed: Option<BTreeMap<PathBuf, BTreeSet<u32>>>,
    /// The revision `--changed` compares with, for messages.
    pub since: Option<String>,
}

impl Scope {
    /// The scope of the ruleset in folder `dir`; `with_base` takes in a
    /// variant's bases and the `lib/` modules (see the module doc).
    pub fn of_ruleset(dir: &Path, with_base: bool) -> Result<Scope, String> {
        if !files::is_dir(dir) {
            return Err(format!("{}: no such folder", dir.display()));
        }
        let dir = files::canonical(dir);
        let rs = crate::ruleset::Ruleset::load(&dir.display().to_string()).map_err(|e| e.to_string())?;
        let whole = rs.base().is_none() || with_base;
        let chain: Vec<PathBuf> = if whole { rs.dirs().map(files::canonical).collect() } else { vec![dir.clone()] };
        let mut lua: Vec<PathBuf> = Vec::new();
        let mut own_names: BTreeSet<PathBuf> = BTreeSet::new();
        for d in &chain {
            let mut here = Vec::new();
            lua_files(d, d, &mut here);
            for f in here {
                // A variant's file replaces its base's of the same name.
                let rel = f.strip_prefix(d).map(Path::to_path_buf).unwrap_or_default();
                if own_names.insert(rel) {
                    lua.push(f);
                }
            }
        }
        let lib = if whole { rs.lib_dirs() } else { Vec::new() };
        // lib/ modules the ruleset's own files require, and those they require.
        let mut todo = lua.clone();
        while let Some(f) = todo.pop() {
            let Ok(src) = files::read_to_string(&f) else { continue };
            for name in required(&src) {
                let Some(rest) = name.replace('.', "/").strip_prefix("lib/").map(str::to_string) else { continue };
                let file = format!("{rest}.lua");
                let Some(p) = lib.iter().map(|l| l.join(&file)).find(|p| files::is_file(p)) else { continue };
                let p = files::canonical(&p);
                if !lua.contains(&p) {
                    lua.push(p.clone());
                    todo.push(p);
                }
            }
        }
        lua.sort();
        let manifests = chain.iter().map(|d| d.join("ruleset.yaml")).collect();
        Ok(Scope { manifests, dir, lua, lib, changed: None, since: None })
    }

    /// The ruleset's own manifest.
    pub fn manifest(&self) -> &Path {
        &self.manifests[0]
    }

    /// Whether a module a spec loaded is measured (`key` as coverage names
    /// it): one of [`Scope::lua`], or a `lib/` module (a spec may drive a
    /// shared module the ruleset's own files do not require).
    pub fn measures(&self, key: &str) -> bool {
        let p = files::canonical(Path::new(key));
        self.lua.contains(&p) || self.lib.iter().any(|l| p.starts_with(l))
    }

    /// Adds the measured modules the specs loaded (by coverage's names).
    pub fn add_loaded<'a>(&mut self, keys: impl Iterator<Item = &'a String>) {
        for key in keys {
            let p = files::canonical(Path::new(key));
            if self.measures(key) && !self.lua.contains(&p) {
                self.lua.push(p);
            }
        }
        self.lua.sort();
    }

    /// Whether a mutant on `line` of `file` is kept (always, without `--changed`).
    pub fn keeps(&self, file: &Path, line: u32) -> bool {
        match &self.changed {
            None => true,
            Some(c) => c.get(file).is_some_and(|lines| lines.contains(&line)),
        }
    }

    /// Limits the scope to the lines changed since git revision `rev`
    /// (committed or not; a file git does not track is new, every line of it).
    pub fn changed_since(mut self, rev: &str) -> Result<Scope, String> {
        let git_in = |dir: &Path, args: &[&str]| -> Result<String, String> {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(args)
                .output()
                .map_err(|e| format!("--changed runs git, which could not start: {e}"))?;
            if out.status.success() {
                Ok(String::from_utf8_lossy(&out.stdout).into_owned())
            } else {
                Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
            }
        };
        let top = git_in(&self.dir, &["rev-parse", "--show-toplevel"]).map_err(|e| {
            format!(
                "--changed compares with a git revision, but {} is not inside a git repository (git: {e})",
                crate::lua::display_path(&self.dir)
            )
        })?;
        let top = PathBuf::from(top.trim()).canonicalize().map_err(|e| format!("git's top folder: {e}"))?;
        // Paths below are relative to the repository's top folder.
        let git = |args: &[&str]| git_in(&top, args);
        git(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
            .map_err(|_| format!("--changed {rev}: git knows no revision '{rev}'"))?;
        let mut measured: Vec<PathBuf> = self.lua.clone();
        measured.extend(self.manifests.iter().cloned());
        let mut changed = BTreeMap::new();
        for f in measured {
            let rel = f.strip_prefix(&top).map_err(|_| {
                format!("--changed: {} is outside the git repository at {}", f.display(), top.display())
            })?;
            let rel = rel.to_string_lossy().to_string();
            let tracked = git(&["ls-files", "--error-unmatch", "--", &rel]).is_ok();
            let lines: BTreeSet<u32> = if tracked {
                let diff = git(&["diff", "--no-color", "--no-ext-diff", "-U0", rev, "--", &rel])?;
                added_lines(&diff)
            } else {
                let n = std::fs::read_to_string(&f).map(|s| s.lines().count()).unwrap_or(0);
                (1..=n as u32).collect()
            };
            if !lines.is_empty() {
                changed.insert(f, lines);
            }
        }
        self.changed = Some(changed);
        self.since = Some(rev.to_string());
        Ok(self)
    }
}

/// The `.lua` files of a ruleset's folder, outside `spec/` (specs and their helpers).
fn lua_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for p in files::list(dir) {
        if files::is_dir(&p) {
            if dir == root && p.file_name().is_some_and(|n| n == "spec") {
                continue;
            }
            lua_files(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "lua" || x == "luau") {
            out.push(files::canonical(&p));
        }
    }
}

/// The module names a source passes to `require` as a literal string.
fn required(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(at) = rest.find("require") {
        rest = &rest[at + "require".len()..];
        let args = rest.trim_start().trim_start_matches('(').trim_start();
        let Some(q) = args.chars().next().filter(|c| *c == '"' || *c == '\'') else { continue };
        if let Some(end) = args[1..].find(q) {
            out.push(args[1..1 + end].to_string());
        }
    }
    out
}

/// The new-side lines of a unified diff with no context (`git diff -U0`).
fn added_lines(diff: &str) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for l in diff.lines() {
        let Some(hunk) = l.strip_prefix("@@ ") else { continue };
        let Some(new) = hunk.split_whitespace().find(|w| w.starts_with('+')) else { continue };
        let mut parts = new[1..].split(',');
        let start: u32 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let count: u32 = parts.next().map_or(1, |s| s.parse().unwrap_or(0));
        out.extend(start..start + count);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_lines_read_hunk_headers() {
        let diff = "diff --git a/x b/x\n@@ -3 +3 @@\n-a\n+b\n@@ -10,0 +11,2 @@\n+c\n+d\n@@ -20,2 +22,0 @@\n-e\n-f\n";
        assert_eq!(added_lines(diff).into_iter().collect::<Vec<_>>(), vec![3, 11, 12]);
    }

    #[test]
    fn required_names_are_found() {
        assert_eq!(required("local cc = require(\"lib/cc\")\nlocal r = require 'rules'\n"), vec!["lib/cc", "rules"]);
    }
}
