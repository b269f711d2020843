//! `sandtable rulesets`: every ruleset of the search path, layer by layer,
//! with its title and where it comes from.

use std::fmt::Write as _;

use super::{all, Ruleset};
use crate::layers::{self, Origin};
use crate::lua::display_path;

/// A folder as people read it: relative to the current one, `.` for itself.
fn shown(p: &std::path::Path) -> String {
    let s = display_path(p);
    if s.is_empty() {
        ".".into()
    } else {
        s
    }
}

/// The listing `sandtable rulesets` prints.
pub fn text() -> String {
    let listed = all();
    let mut out = String::new();
    let _ = writeln!(out, "Rulesets in search order (a name is taken from the first layer that has it):");
    let width = listed.iter().map(|l| l.name.len()).max().unwrap_or(0).max(8);
    for layer in layers::layers() {
        let head = match layer.origin {
            Origin::Project => format!("project {} ({})", shown(&layer.root), layers::project_source()),
            Origin::SearchPath => format!("{} {}", layers::PATH_ENV, shown(&layer.root)),
            _ => format!("bundled (built into sandtable {})", env!("CARGO_PKG_VERSION")),
        };
        let _ = writeln!(out, "{head}:");
        let mine: Vec<_> = listed.iter().filter(|l| l.layer == layer).collect();
        if mine.is_empty() {
            let _ = writeln!(out, "  (none: rulesets go in {})", shown(&layer.root.join("rulesets")));
        }
        for l in mine {
            let title = match Ruleset::load(&l.dir.display().to_string()) {
                Ok(rs) => match rs.base() {
                    Some(b) => format!("{}  [extends {}, {}]", rs.title, b.name, b.origin.word()),
                    None => rs.title,
                },
                Err(e) => format!("(does not load: {})", e.to_string().lines().next().unwrap_or("")),
            };
            let _ = write!(out, "  {:<width$}  {title}", l.name);
            if let Some(by) = &l.shadowed_by {
                let _ = write!(out, "  [shadowed by {}]", shown(by));
            } else if let Some(same) = &l.same_as {
                let _ = write!(out, "  [the same files as {}]", shown(same));
            } else if let Some(hidden) = listed.iter().find(|o| o.shadowed_by.as_ref() == Some(&l.dir)) {
                let _ = write!(out, "  [shadows the {} one]", hidden.layer.origin.word());
            }
            let _ = writeln!(out);
        }
    }
    if layers::project().is_none() {
        let _ = writeln!(
            out,
            "(no project folder: a folder with a {} in it or above the current one is one; see docs/variants.md)",
            layers::MARKER
        );
    }
    for p in layers::search_path().iter().filter(|p| !p.is_dir()) {
        let _ = writeln!(out, "(${} names {}, which is not a folder: skipped)", layers::PATH_ENV, p.display());
    }
    out
}
