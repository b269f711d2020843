//! Pictures of the battlefield: a terminal hex map (`terminal`) and an SVG
//! map (`svg`).
//!
//! Both draw the same things from a [`World`]: terrain, units (side, type and
//! strength), tokens, section lines, the printed row/column labels, and the
//! marks rules leave on hexes (a targeting template, a line of fire). The
//! short names and colours they share live here so that the two pictures and
//! their legends always agree.

pub mod svg;
pub mod terminal;

use std::collections::BTreeSet;

use crate::battlefield::{Map, World};
use crate::hex::{Hex, OffsetKind};
use crate::unit::Position;

/// Short names for a list of distinct names, `len` characters each at most.
///
/// Multi-word names (`machine_gun`) use their initials (`mg`); single words
/// their first letters (`in` for `infantry`). When two names would collide,
/// the later one tries its first letter followed by each later letter, then
/// a digit, so every name gets a distinct abbreviation.
pub fn abbreviate(names: &[&str], len: usize) -> Vec<String> {
    let len = len.max(1);
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let letters: Vec<char> = name.chars().filter(|c| c.is_alphanumeric()).collect();
        let words: Vec<&str> = name.split(['_', ' ', '-']).filter(|w| !w.is_empty()).collect();
        let mut candidates: Vec<String> = Vec::new();
        if words.len() > 1 && len > 1 {
            candidates.push(words.iter().filter_map(|w| w.chars().next()).take(len).collect());
        }
        candidates.push(letters.iter().take(len).collect());
        if len == 1 {
            candidates.extend(letters.iter().map(|c| c.to_string()));
        } else if let Some(&first) = letters.first() {
            for &c in letters.iter().skip(1) {
                let mut s: String = std::iter::once(first).chain(std::iter::once(c)).take(len).collect();
                if len > 2 {
                    s.extend(letters.iter().skip(2).take(len - 2));
                }
                candidates.push(s);
            }
        }
        for d in 1..=9 {
            let mut s: String = letters.iter().take(len - 1).collect();
            s.push(char::from_digit(d, 10).unwrap_or('?'));
            candidates.push(s);
        }
        let pick = candidates
            .into_iter()
            .map(|c| c.to_lowercase())
            .find(|c| !c.is_empty() && !taken.contains(c))
            .unwrap_or_else(|| "?".repeat(len));
        taken.insert(pick.clone());
        out.push(pick);
    }
    out
}

/// Side letters: the first letter of each side's name, upper case, made distinct.
pub fn side_letters(world: &World) -> Vec<(String, char)> {
    let mut used = BTreeSet::new();
    world
        .sides
        .iter()
        .map(|s| {
            let name = s.name.to_string();
            let letter = name
                .chars()
                .filter(|c| c.is_alphabetic())
                .map(|c| c.to_ascii_uppercase())
                .chain('A'..='Z')
                .find(|c| !used.contains(c))
                .unwrap_or('?');
            used.insert(letter);
            (name, letter)
        })
        .collect()
}

/// The names in use on this world's board and units, each list sorted.
pub struct Names {
    pub terrain: Vec<String>,
    pub tokens: Vec<String>,
    pub unit_types: Vec<String>,
}

impl Names {
    pub fn of(world: &World) -> Names {
        let terrain: BTreeSet<String> = world.board.terrain.values().map(|t| t.to_string()).collect();
        let tokens: BTreeSet<String> = world.tokens.iter().map(|(_, t)| t.to_string()).collect();
        let unit_types: BTreeSet<String> =
            world.units.iter().filter(|u| u.alive()).map(|u| u.kind.to_string()).collect();
        Names {
            terrain: terrain.into_iter().collect(),
            tokens: tokens.into_iter().collect(),
            unit_types: unit_types.into_iter().collect(),
        }
    }
}

/// Looks up the abbreviation of `name` among `names`.
pub fn abbrev_of<'a>(names: &[String], abbrevs: &'a [String], name: &str) -> &'a str {
    names.iter().position(|n| n == name).and_then(|i| abbrevs.get(i)).map_or("?", String::as_str)
}

/// Colours of the sides, in the order the world lists them (SVG and ANSI 256).
pub const SIDE_SVG: [&str; 6] = ["#2f6fd6", "#c8372d", "#d98a1c", "#7d3fc2", "#1b998b", "#6b6b6b"];
pub const SIDE_ANSI: [u8; 6] = [39, 203, 214, 141, 43, 250];

/// The colour index of a side by name.
pub fn side_index(world: &World, side: &str) -> usize {
    world.sides.iter().position(|s| &*s.name == side).unwrap_or(world.sides.len()) % SIDE_SVG.len()
}

/// A terrain's colour: well-known names get their natural colour, others one
/// from a fixed palette chosen by the name, so a colour never changes between
/// runs. Returns (SVG fill, ANSI 256 background).
pub fn terrain_colour(name: &str) -> (&'static str, u8) {
    let n = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
    if has(&["wood", "forest", "jungle"]) {
        ("#4f8a3c", 22)
    } else if has(&["hill", "ridge", "mountain", "rough"]) {
        ("#b08a54", 94)
    } else if has(&["town", "village", "city", "building", "farm"]) {
        ("#9a9a9a", 240)
    } else if has(&["trench", "fort", "redoubt", "bunker"]) {
        ("#8c7a4a", 58)
    } else if has(&["lake", "river", "water", "marsh", "sea", "stream", "ford"]) {
        ("#5b8fd1", 25)
    } else if has(&["road", "field", "clear", "plain"]) {
        ("#d8cfa0", 143)
    } else {
        const SVG: [&str; 6] = ["#7a9e9f", "#a87ca0", "#9fa86b", "#c99a6e", "#6e8fc9", "#8f7560"];
        const ANSI: [u8; 6] = [66, 96, 101, 137, 67, 95];
        let h = name.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))) as usize % SVG.len();
        (SVG[h], ANSI[h])
    }
}

/// The offset kind of a hex map (odd-r for a tabletop, which has no hexes).
pub fn offset_kind(world: &World) -> OffsetKind {
    match world.map {
        Map::Hex { offset, .. } => offset,
        Map::Table { .. } => OffsetKind::OddR,
    }
}

/// Whether the bar between two horizontally adjacent hexes is a section line:
/// the two hexes belong to different sets of sections (a hex on a section
/// line belongs to two sections, so both of its bars are drawn as lines).
pub fn section_bar(world: &World, left: Hex, right: Hex) -> bool {
    if world.sections.is_empty() {
        return false;
    }
    world.sections_of(left) != world.sections_of(right)
}

/// Marks on a hex, joined (a hex may carry several labels).
pub fn marks_at(world: &World, h: Hex) -> Option<String> {
    let labels: Vec<&str> = world.marks.iter().filter(|(m, _)| *m == h).map(|(_, l)| &**l).collect();
    (!labels.is_empty()).then(|| labels.join(","))
}

/// Units on the battlefield that stand on a hex, by hex.
pub fn unit_on(world: &World, h: Hex) -> Option<&crate::unit::Unit> {
    world.units.iter().find(|u| u.alive() && u.pos == Position::Hex(h))
}

/// A line of sight to draw: its ends and what the ruleset said about it.
#[derive(Clone, Debug)]
pub struct LosLine {
    pub from: Hex,
    pub to: Hex,
    pub clear: bool,
    pub blocker: Option<Hex>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_are_distinct_and_readable() {
        let a = abbreviate(&["artillery", "infantry", "machine_gun", "mortar"], 2);
        assert_eq!(a, ["ar", "in", "mg", "mo"]);
        let b = abbreviate(&["hill", "hills", "hamlet"], 2);
        assert_eq!(b.len(), 3);
        assert_eq!(b.iter().collect::<BTreeSet<_>>().len(), 3, "{b:?}");
        let c = abbreviate(&["woods", "wire"], 1);
        assert_eq!(c, ["w", "i"]);
    }

    #[test]
    fn terrain_colours_are_stable() {
        assert_eq!(terrain_colour("woods").1, 22);
        assert_eq!(terrain_colour("Lake"), terrain_colour("lake"));
        assert_eq!(terrain_colour("swamp_of_doom"), terrain_colour("swamp_of_doom"));
    }
}
