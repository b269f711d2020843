//! Pictures of the battlefield: a terminal hex map (`terminal`) and an SVG
//! map (`svg`).
//!
//! Both draw the same things from a [`World`]: terrain, units (side, type and
//! strength), stacks, tokens, section lines, the printed row/column labels,
//! and the marks rules leave on hexes (a targeting template, a line of
//! fire). The short names and colours they share live here so that the two
//! pictures and their legends always agree. What a piece means for the
//! picture (a leader, a carried unit) comes from the ruleset's `draw:`
//! section ([`Draw`]). `place` measures text and keeps the SVG's labels
//! apart.

pub mod place;
pub mod svg;
pub mod terminal;

pub use crate::ruleset::Draw;

use std::collections::BTreeSet;

use crate::battlefield::{Map, World};
use crate::hex::{Hex, OffsetKind};
use crate::unit::{Position, Unit};

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

/// Each side's pools (HQ tokens, medals, battery strength, victory banners:
/// whatever the scenario and the rules keep per side), in the order the world
/// lists the sides; sides without pools are left out.
pub fn side_pools(world: &World) -> Vec<(String, Vec<(String, i64)>)> {
    world
        .sides
        .iter()
        .filter(|s| !s.pools.is_empty())
        .map(|s| (s.name.to_string(), s.pools.iter().map(|(k, v)| (k.to_string(), *v)).collect()))
        .collect()
}

/// One side's pools as text: `hq 6, medals 0, reserve_artillery 4`.
pub fn pools_text(pools: &[(String, i64)]) -> String {
    pools.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
}

/// Units on the battlefield that stand on a hex, by hex.
pub fn unit_on(world: &World, h: Hex) -> Option<&crate::unit::Unit> {
    world.units.iter().find(|u| u.alive() && u.pos == Position::Hex(h))
}

/// The units by where they are, looked up once for a whole picture (a map
/// of 40 000 hexes and 20 000 units is drawn without searching the units
/// for each hex): the stack on each hex, the one drawn on top first (one
/// unit, without `stacking: true`), and each carrier's cargo.
pub struct Pieces<'a> {
    stacks: rustc_hash::FxHashMap<Hex, Vec<&'a Unit>>,
    cargo: rustc_hash::FxHashMap<&'a str, Vec<&'a Unit>>,
}

impl<'a> Pieces<'a> {
    pub fn of(world: &'a World, draw: &Draw) -> Pieces<'a> {
        let mut stacks: rustc_hash::FxHashMap<Hex, Vec<&Unit>> = rustc_hash::FxHashMap::default();
        let mut cargo: rustc_hash::FxHashMap<&str, Vec<&Unit>> = rustc_hash::FxHashMap::default();
        let ids: rustc_hash::FxHashMap<&str, &Unit> = world.units.iter().map(|u| (&*u.id, u)).collect();
        for u in &world.units {
            match (u.alive(), u.pos) {
                (true, Position::Hex(h)) => stacks.entry(h).or_default().push(u),
                (false, Position::Off) if u.strength > 0 => {
                    let carrier = draw.carrier.as_deref().and_then(|p| u.props.iter().find(|(k, _)| &**k == p));
                    if let Some((_, id)) = carrier {
                        if let Some(c) = ids.get(&*id.to_string()).filter(|c| c.id != u.id) {
                            cargo.entry(&*c.id).or_default().push(u);
                        }
                    }
                }
                _ => {}
            }
        }
        Pieces { stacks, cargo }
    }

    /// The living units on a hex, top first.
    pub fn stack(&self, h: Hex) -> &[&'a Unit] {
        self.stacks.get(&h).map_or(&[], Vec::as_slice)
    }

    /// The units a unit carries.
    pub fn cargo(&self, carrier: &Unit) -> &[&'a Unit] {
        self.cargo.get(&*carrier.id).map_or(&[], Vec::as_slice)
    }

    /// The most units any hex holds.
    pub fn tallest(&self) -> usize {
        self.stacks.values().map(Vec::len).max().unwrap_or(0)
    }

    /// Whether any unit is carried.
    pub fn any_cargo(&self) -> bool {
        !self.cargo.is_empty()
    }
}

/// Whether the ruleset draws this unit as a leader (`draw: { leaders: [...] }`).
pub fn is_leader(draw: &Draw, u: &Unit) -> bool {
    draw.leaders.iter().any(|l| **l == *u.kind)
}

/// The unit carrying `u`: `u` is off the map and its carrier prop
/// (`draw: { carrier: aboard }`) names a unit that is not itself `u`.
pub fn carrier_of<'a>(world: &'a World, draw: &Draw, u: &Unit) -> Option<&'a Unit> {
    let prop = draw.carrier.as_deref()?;
    if u.pos != Position::Off || u.strength <= 0 {
        return None;
    }
    let id = u.props.iter().find(|(k, _)| &**k == prop).map(|(_, v)| v.to_string())?;
    world.units.iter().find(|c| *c.id == *id && c.id != u.id)
}

/// Where a unit not on the battlefield is, for the lists under the maps:
/// `eliminated`, `aboard c_frig at (2,6)`, or `off the board`.
pub fn off_map_note(world: &World, draw: &Draw, u: &Unit) -> String {
    if u.strength <= 0 {
        return "eliminated".into();
    }
    match carrier_of(world, draw, u) {
        Some(c) if c.pos != Position::Off => format!("aboard {} at {}", c.id, short_pos(c.pos)),
        Some(c) => format!("aboard {}", c.id),
        None => "off the board".into(),
    }
}

/// A position in few characters: `(2,6)`, or `(52, 66)` on a tabletop.
fn short_pos(p: Position) -> String {
    match p {
        Position::Hex(h) => h.to_string(),
        Position::Table { at, .. } => {
            format!("({}, {})", crate::lua::format_number(at.x), crate::lua::format_number(at.y))
        }
        Position::Off => "off".into(),
    }
}

/// The short form of a mark drawn on the map: its first word, at most three
/// characters (`W` for "W a_art ready", `6` for "6"); the legend spells out
/// the whole label.
pub fn mark_key(label: &str) -> String {
    let first = label.split_whitespace().next().unwrap_or("");
    let key: String = first.chars().take(3).collect();
    if key.is_empty() {
        "*".into()
    } else {
        key
    }
}

/// Compass names of the six hex directions, in `Hex::DIRECTIONS` order
/// (1 = east, clockwise on screen).
pub const DIRECTION_NAMES: [&str; 6] = ["E", "SE", "SW", "W", "NW", "NE"];

/// Where `to` lies from `from`: `NE` for a neighbour, `3 hexes NE` (the
/// nearest of the six directions) for a farther hex, `here` for the same hex.
pub fn direction_from(from: Hex, to: Hex) -> String {
    let Some(d) = from.direction_to(to) else { return "here".into() };
    let name = DIRECTION_NAMES[usize::from(d - 1)];
    match from.distance(to) {
        1 => name.to_string(),
        n => format!("{n} hexes {name}"),
    }
}

/// What is on a hex, briefly: its terrain, the units there (id, side, type,
/// strength) and its tokens: `woods, c1 (central infantry 4/4), wire`;
/// `open` when there is nothing; `off the map` for a hex outside it.
pub fn hex_contents(world: &World, h: Hex) -> String {
    if !world.on_map(h) {
        return "off the map".into();
    }
    let here: Vec<&Unit> = world.units.iter().filter(|u| u.alive() && u.pos == Position::Hex(h)).collect();
    contents_of(world, h, &here)
}

/// What is on a hex on the map, given the units there (see [`hex_contents`]).
pub fn contents_of(world: &World, h: Hex, here: &[&Unit]) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = world.terrain(h) {
        parts.push(t.to_string());
    }
    for u in here {
        parts.push(format!("{} ({} {} {}/{})", u.id, u.side, u.kind, u.strength, u.max_strength));
    }
    parts.extend(world.tokens(h).map(|t| t.to_string()));
    if parts.is_empty() {
        "open".into()
    } else {
        parts.join(", ")
    }
}

/// Where a decision about hexes starts from, read from its prompt: the first
/// hex written in it (`retreat a1 from (3,4) to`), else the hex of the first
/// unit whose id it names (`move a1 to`).
pub fn prompt_origin(world: &World, prompt: &str) -> Option<Hex> {
    let bytes = prompt.as_bytes();
    for (i, _) in prompt.match_indices('(') {
        let rest = &prompt[i + 1..];
        if let Some(end) = rest.find(')') {
            if let Some((q, r)) = rest[..end].split_once(',') {
                if let (Ok(q), Ok(r)) = (q.trim().parse::<i32>(), r.trim().parse::<i32>()) {
                    return Some(Hex::new(q, r));
                }
            }
        }
    }
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut start = None;
    for i in 0..=bytes.len() {
        let inside = i < bytes.len() && is_word(bytes[i]);
        match (start, inside) {
            (None, true) => start = Some(i),
            (Some(a), false) => {
                start = None;
                if let Ok(u) = world.unit_index(&prompt[a..i]) {
                    if let Some(h) = world.units[u].hex() {
                        return Some(h);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Notes for the options of a decision whose options are (some of them)
/// hexes: for each hex, its direction from the origin (when known) and what
/// is there; an empty note for an option that is not a hex.
pub fn hex_option_notes(world: &World, origin: Option<Hex>, options: &[Option<Hex>]) -> Vec<String> {
    options
        .iter()
        .map(|o| match o {
            None => String::new(),
            Some(h) => match origin {
                Some(from) => format!("{}: {}", direction_from(from, *h), hex_contents(world, *h)),
                None => hex_contents(world, *h),
            },
        })
        .collect()
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
    fn pools_of_each_side() {
        use crate::battlefield::Side;
        let mut w = World::new(Map::Hex { cols: 2, rows: 2, offset: OffsetKind::OddR });
        w.sides = vec![
            Side { name: "allies".into(), baseline: None, pools: vec![("hq".into(), 6), ("medals".into(), 1)] },
            Side { name: "neutral".into(), baseline: None, pools: vec![] },
        ];
        let p = side_pools(&w);
        assert_eq!(p.len(), 1, "a side without pools is left out: {p:?}");
        assert_eq!(p[0].0, "allies");
        assert_eq!(pools_text(&p[0].1), "hq 6, medals 1");
    }

    #[test]
    fn hex_options_say_where_and_what() {
        use crate::unit::Unit;
        let mut w = World::new(Map::Hex { cols: 6, rows: 6, offset: OffsetKind::OddR });
        w.set_terrain(Hex::new(2, 1), Some("woods"));
        w.add_token(Hex::new(2, 1), "wire");
        w.add_unit(Unit {
            id: "a1".into(),
            side: "allies".into(),
            kind: "infantry".into(),
            strength: 3,
            max_strength: 4,
            leader: None,
            pos: Position::Hex(Hex::new(2, 2)),
            props: vec![],
            bases: Vec::new(),
        })
        .unwrap();
        let from = Hex::new(2, 2);
        let names: Vec<String> = Hex::DIRECTIONS.iter().map(|d| direction_from(from, from + *d)).collect();
        assert_eq!(names, ["E", "SE", "SW", "W", "NW", "NE"]);
        assert_eq!(direction_from(from, from + Hex::new(2, -2)), "2 hexes NE");
        assert_eq!(direction_from(from, from), "here");
        assert_eq!(hex_contents(&w, Hex::new(2, 1)), "woods, wire");
        assert_eq!(hex_contents(&w, Hex::new(2, 2)), "a1 (allies infantry 3/4)");
        assert_eq!(hex_contents(&w, Hex::new(3, 3)), "open");
        assert_eq!(prompt_origin(&w, "retreat x from (4,1) to"), Some(Hex::new(4, 1)));
        assert_eq!(prompt_origin(&w, "move a1 to"), Some(Hex::new(2, 2)));
        assert_eq!(prompt_origin(&w, "pick a card"), None);
        let notes = hex_option_notes(&w, Some(from), &[Some(Hex::new(2, 1)), None, Some(Hex::new(1, 2))]);
        assert_eq!(notes, ["NW: woods, wire", "", "W: open"]);
    }

    #[test]
    fn terrain_colours_are_stable() {
        assert_eq!(terrain_colour("woods").1, 22);
        assert_eq!(terrain_colour("Lake"), terrain_colour("lake"));
        assert_eq!(terrain_colour("swamp_of_doom"), terrain_colour("swamp_of_doom"));
    }
}
