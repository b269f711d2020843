//! The world: the board (map, terrain, tokens, sections), the sides and their
//! pools, the units, the dice, whose turn it is, and the event log.
//!
//! It is plain Rust data and clones cheaply (shared, rarely-changed parts sit
//! behind `Rc` and are copied on write), which is how transactions, undo and
//! per-trial copies for simulation work.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::dice::DiceBox;
use crate::hex::{Hex, OffsetKind};
use crate::log::{Event, EventLog};
use crate::table::Point;
use crate::unit::{Position, Unit};

/// Whether two names are the same. Names are short (sides, pools, tokens, die
/// kinds), and the hot paths compare them many times per trial: a byte loop
/// the compiler inlines beats a call to `memcmp`.
#[inline]
pub fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && if a.len() <= 32 { a.iter().zip(b).all(|(x, y)| x == y) } else { a == b }
}

/// The playing surface.
#[derive(Clone, Debug, PartialEq)]
pub enum Map {
    /// A hex map of `cols` x `rows` in offset coordinates of `offset` kind
    /// (column 0..cols, row 0..rows).
    Hex { cols: i32, rows: i32, offset: OffsetKind },
    /// A tabletop, in centimetres.
    Table { width: f64, height: f64 },
}

impl Default for Map {
    fn default() -> Self {
        Map::Hex { cols: 13, rows: 9, offset: OffsetKind::OddR }
    }
}

/// Which edge of the map a side's baseline is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    Top,
    Bottom,
    Left,
    Right,
}

impl Edge {
    pub fn name(self) -> &'static str {
        match self {
            Edge::Top => "top",
            Edge::Bottom => "bottom",
            Edge::Left => "left",
            Edge::Right => "right",
        }
    }

    pub fn parse(s: &str) -> Option<Edge> {
        Some(match s {
            "top" => Edge::Top,
            "bottom" => Edge::Bottom,
            "left" => Edge::Left,
            "right" => Edge::Right,
            _ => return None,
        })
    }

    pub fn opposite(self) -> Edge {
        match self {
            Edge::Top => Edge::Bottom,
            Edge::Bottom => Edge::Top,
            Edge::Left => Edge::Right,
            Edge::Right => Edge::Left,
        }
    }
}

/// A side (army): its name, baseline and pools (HQ tokens, medals, reserve
/// artillery strength, ... as the ruleset names them).
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub name: Rc<str>,
    pub baseline: Option<Edge>,
    pub pools: Vec<(Rc<str>, i64)>,
}

impl Side {
    pub fn pool(&self, name: &str) -> i64 {
        self.pools.iter().find(|(k, _)| same_name(k, name)).map_or(0, |(_, v)| *v)
    }

    pub fn set_pool(&mut self, name: &str, value: i64) {
        match self.pools.iter_mut().find(|(k, _)| same_name(k, name)) {
            Some((_, v)) => *v = value,
            None => self.pools.push((name.into(), value)),
        }
    }
}

/// A named section of a hex map: a range of offset columns. Sections may
/// overlap; a hex in two ranges (on a section line) belongs to both.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: Rc<str>,
    pub first_col: i32,
    pub last_col: i32,
}

/// The board: terrain per hex. Set up once and rarely changed, so copies of
/// a world share it (see `World::board`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    pub terrain: BTreeMap<Hex, Rc<str>>,
}

/// Tokens on hexes (wire, shell craters, ...): a few, placed and removed by
/// many trials. A flat list sorted by hex (a hex's tokens in the order they
/// were placed) is copied into the next trial's world without allocating and
/// searched faster than a map.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tokens(Vec<(Hex, Rc<str>)>);

impl Tokens {
    /// The slice holding hex `h`'s tokens.
    fn run(&self, h: Hex) -> std::ops::Range<usize> {
        let start = self.0.partition_point(|(x, _)| *x < h);
        let len = self.0[start..].iter().take_while(|(x, _)| *x == h).count();
        start..start + len
    }

    /// The tokens on `h`, in the order they were placed.
    pub fn on(&self, h: Hex) -> impl Iterator<Item = &Rc<str>> {
        self.0[self.run(h)].iter().map(|(_, t)| t)
    }

    pub fn has(&self, h: Hex, token: &str) -> bool {
        self.on(h).any(|t| same_name(t, token))
    }

    pub fn add(&mut self, h: Hex, token: &str) {
        let end = self.run(h).end;
        self.0.insert(end, (h, token.into()));
    }

    /// Removes one token of that name; returns whether there was one.
    pub fn remove(&mut self, h: Hex, token: &str) -> bool {
        let run = self.run(h);
        match self.0[run.clone()].iter().position(|(_, t)| same_name(t, token)) {
            Some(i) => {
                self.0.remove(run.start + i);
                true
            }
            None => false,
        }
    }

    /// Every token with its hex, ordered by hex.
    pub fn iter(&self) -> impl Iterator<Item = (Hex, &Rc<str>)> {
        self.0.iter().map(|(h, t)| (*h, t))
    }

    /// Makes this list equal to `o`, reusing its allocation and sharing names.
    pub fn reset_from(&mut self, o: &Tokens) {
        if self.0.len() == o.0.len() && self.0.iter().zip(&o.0).all(|(a, b)| a.0 == b.0 && Rc::ptr_eq(&a.1, &b.1)) {
            return;
        }
        self.0.clone_from(&o.0);
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum WorldError {
    #[error("no unit with id '{0}'")]
    NoUnit(String),
    #[error("no side named '{0}' (sides: {1})")]
    NoSide(String, String),
    #[error("hex {0} is not on the map")]
    OffMap(Hex),
    #[error("{unit} cannot move to {to}: {why}")]
    BadMove { unit: String, to: String, why: String },
    #[error("a unit with id '{0}' already exists")]
    DuplicateUnit(String),
    #[error("{0}")]
    Invalid(String),
}

/// Everything a rule acts on.
#[derive(Clone, Debug)]
pub struct World {
    pub map: Map,
    /// Terrain; shared between copies until one of them changes it.
    pub board: Rc<Board>,
    pub tokens: Tokens,
    pub sections: Rc<Vec<Section>>,
    pub sides: Vec<Side>,
    pub units: Vec<Unit>,
    pub current_side: Option<Rc<str>>,
    pub turn: u32,
    pub dice: DiceBox,
    pub log: EventLog,
    /// Labels a rule puts on hexes for people to see (a template's numbers, a
    /// line of fire); maps draw them. They do not affect the rules.
    pub marks: Vec<(Hex, Rc<str>)>,
    /// Whether several units may share a hex (ruleset.yaml `stacking: true`,
    /// as in Viktory, where a hex holds a whole force). When false, a unit
    /// can be placed or moved only onto a hex no other living unit holds.
    pub stacking: bool,
}

impl Default for World {
    fn default() -> Self {
        World {
            map: Map::default(),
            board: Rc::new(Board::default()),
            tokens: Tokens::default(),
            sections: Rc::new(Vec::new()),
            sides: Vec::new(),
            units: Vec::new(),
            current_side: None,
            turn: 1,
            dice: DiceBox::new(0),
            log: EventLog::new(),
            marks: Vec::new(),
            stacking: false,
        }
    }
}

impl World {
    pub fn new(map: Map) -> World {
        World { map, ..World::default() }
    }

    // ---- map ----

    /// True when the hex is on a hex map (always false on a tabletop).
    pub fn on_map(&self, h: Hex) -> bool {
        match self.map {
            Map::Hex { cols, rows, offset } => {
                let (c, r) = h.to_offset(offset);
                (0..cols).contains(&c) && (0..rows).contains(&r)
            }
            Map::Table { .. } => false,
        }
    }

    /// Every hex on the map, row by row.
    pub fn hexes(&self) -> Vec<Hex> {
        match self.map {
            Map::Hex { cols, rows, offset } => {
                let mut out = Vec::with_capacity((cols * rows) as usize);
                for r in 0..rows {
                    for c in 0..cols {
                        out.push(Hex::from_offset(c, r, offset));
                    }
                }
                out
            }
            Map::Table { .. } => Vec::new(),
        }
    }

    /// True for a point on the tabletop.
    pub fn on_table(&self, p: Point) -> bool {
        match self.map {
            Map::Table { width, height } => (0.0..=width).contains(&p.x) && (0.0..=height).contains(&p.y),
            Map::Hex { .. } => false,
        }
    }

    pub fn terrain(&self, h: Hex) -> Option<&Rc<str>> {
        self.board.terrain.get(&h)
    }

    pub fn set_terrain(&mut self, h: Hex, terrain: Option<&str>) {
        let board = Rc::make_mut(&mut self.board);
        match terrain {
            Some(t) => {
                board.terrain.insert(h, t.into());
            }
            None => {
                board.terrain.remove(&h);
            }
        }
    }

    /// The tokens on `h`, in the order they were placed.
    pub fn tokens(&self, h: Hex) -> impl Iterator<Item = &Rc<str>> {
        self.tokens.on(h)
    }

    pub fn has_token(&self, h: Hex, token: &str) -> bool {
        self.tokens.has(h, token)
    }

    pub fn add_token(&mut self, h: Hex, token: &str) {
        self.tokens.add(h, token);
        self.log.push_with(|| Event::Token { hex: h.to_string(), token: token.into(), placed: true });
    }

    /// Removes one token of that name; returns whether there was one.
    pub fn remove_token(&mut self, h: Hex, token: &str) -> bool {
        if !self.tokens.remove(h, token) {
            return false;
        }
        self.log.push_with(|| Event::Token { hex: h.to_string(), token: token.into(), placed: false });
        true
    }

    /// The sections a hex belongs to (two on a section line).
    pub fn sections_of(&self, h: Hex) -> Vec<Rc<str>> {
        let Map::Hex { offset, .. } = self.map else {
            return Vec::new();
        };
        let (c, _) = h.to_offset(offset);
        self.sections.iter().filter(|s| (s.first_col..=s.last_col).contains(&c)).map(|s| s.name.clone()).collect()
    }

    pub fn in_section(&self, h: Hex, section: &str) -> bool {
        self.sections_of(h).iter().any(|s| &**s == section)
    }

    // ---- sides ----

    pub fn side_index(&self, name: &str) -> Result<usize, WorldError> {
        self.sides.iter().position(|s| same_name(&s.name, name)).ok_or_else(|| {
            WorldError::NoSide(
                name.into(),
                self.sides.iter().map(|s| s.name.to_string()).collect::<Vec<_>>().join(", "),
            )
        })
    }

    pub fn side(&self, name: &str) -> Result<&Side, WorldError> {
        Ok(&self.sides[self.side_index(name)?])
    }

    /// The other side, in a two-sided game.
    pub fn opponent(&self, name: &str) -> Result<Rc<str>, WorldError> {
        self.side_index(name)?;
        self.sides
            .iter()
            .find(|s| !same_name(&s.name, name))
            .map(|s| s.name.clone())
            .ok_or_else(|| WorldError::Invalid(format!("side '{name}' has no opponent")))
    }

    pub fn pool(&self, side: &str, pool: &str) -> Result<i64, WorldError> {
        Ok(self.side(side)?.pool(pool))
    }

    /// Changes a pool by `change` (clamped at zero) and logs it; returns the new value.
    pub fn add_pool(&mut self, side: &str, pool: &str, change: i64, reason: &str) -> Result<i64, WorldError> {
        let i = self.side_index(side)?;
        let value = (self.sides[i].pool(pool) + change).max(0);
        self.sides[i].set_pool(pool, value);
        self.log.push_with(|| Event::Pool {
            side: side.into(),
            pool: pool.into(),
            change,
            value,
            reason: reason.into(),
        });
        Ok(value)
    }

    pub fn set_pool(&mut self, side: &str, pool: &str, value: i64) -> Result<(), WorldError> {
        let i = self.side_index(side)?;
        let change = value - self.sides[i].pool(pool);
        self.sides[i].set_pool(pool, value);
        self.log.push_with(|| Event::Pool {
            side: side.into(),
            pool: pool.into(),
            change,
            value,
            reason: "set".into(),
        });
        Ok(())
    }

    // ---- units ----

    /// Index of a unit by id.
    pub fn unit_index(&self, id: &str) -> Result<usize, WorldError> {
        self.units.iter().position(|u| &*u.id == id).ok_or_else(|| WorldError::NoUnit(id.into()))
    }

    /// The living unit on a hex, if any.
    pub fn unit_at(&self, h: Hex) -> Option<usize> {
        self.units.iter().position(|u| u.pos == Position::Hex(h) && u.strength > 0)
    }

    /// The living unit, other than `except`, that keeps others off hex `h`:
    /// none when the world allows stacking.
    fn occupant(&self, h: Hex, except: Option<usize>) -> Option<usize> {
        if self.stacking {
            return None;
        }
        self.units
            .iter()
            .enumerate()
            .position(|(i, u)| Some(i) != except && u.pos == Position::Hex(h) && u.strength > 0)
    }

    pub fn add_unit(&mut self, unit: Unit) -> Result<usize, WorldError> {
        if self.units.iter().any(|u| u.id == unit.id) {
            return Err(WorldError::DuplicateUnit(unit.id.to_string()));
        }
        if let Position::Hex(h) = unit.pos {
            if !self.on_map(h) {
                return Err(WorldError::OffMap(h));
            }
            if let Some(other) = self.occupant(h, None) {
                return Err(WorldError::Invalid(format!("hex {h} already holds unit '{}'", self.units[other].id)));
            }
        }
        self.units.push(unit);
        Ok(self.units.len() - 1)
    }

    /// Removes `hits` figures (never below zero); returns figures actually
    /// removed. A unit that loses its last figure leaves the battlefield.
    pub fn hit(&mut self, idx: usize, hits: i32, reason: &str) -> i32 {
        let u = &mut self.units[idx];
        let taken = hits.clamp(0, u.strength.max(0));
        u.strength -= taken;
        let (id, strength) = (u.id.clone(), u.strength);
        self.log.push_with(|| Event::Hit { unit: id.to_string(), hits: taken, strength, reason: reason.into() });
        if strength == 0 && taken > 0 {
            self.eliminate(idx, reason);
        }
        taken
    }

    /// Takes a unit off the battlefield.
    pub fn eliminate(&mut self, idx: usize, reason: &str) {
        let u = &mut self.units[idx];
        u.strength = 0;
        u.pos = Position::Off;
        let id = u.id.clone();
        self.log.push_with(|| Event::Eliminate { unit: id.to_string(), reason: reason.into() });
    }

    /// Moves a unit one step to an adjacent free hex on the map; the caller
    /// (the Lua host) walks a path step by step so that `enters`/`leaves`
    /// subscribers see every hex. `retreat` only changes the event name.
    pub fn step(&mut self, idx: usize, to: Hex, retreat: bool) -> Result<Hex, WorldError> {
        let u = &self.units[idx];
        let bad = |why: &str| WorldError::BadMove { unit: u.id.to_string(), to: to.to_string(), why: why.into() };
        let Position::Hex(from) = u.pos else {
            return Err(bad("it is not on the hex map"));
        };
        if from.distance(to) != 1 {
            return Err(bad(&format!("{to} is not adjacent to {from}")));
        }
        if !self.on_map(to) {
            return Err(bad("that hex is off the map"));
        }
        if let Some(other) = self.occupant(to, Some(idx)) {
            return Err(bad(&format!("it is occupied by {}", self.units[other].id)));
        }
        self.units[idx].pos = Position::Hex(to);
        let id = self.units[idx].id.clone();
        self.log.push_with(|| {
            let (unit, from, to) = (id.to_string(), from.to_string(), to.to_string());
            if retreat {
                Event::Retreat { unit, from, to }
            } else {
                Event::Move { unit, from, to }
            }
        });
        Ok(from)
    }

    /// Checks that a unit could walk `path` step by step (each step adjacent, on
    /// the map and free), without changing anything.
    pub fn check_path(&self, idx: usize, path: &[Hex]) -> Result<(), WorldError> {
        let u = &self.units[idx];
        let Position::Hex(mut at) = u.pos else {
            let to = path.first().map_or(String::new(), |h| h.to_string());
            return Err(WorldError::BadMove { unit: u.id.to_string(), to, why: "it is not on the hex map".into() });
        };
        for &to in path {
            let bad = |why: String| WorldError::BadMove { unit: u.id.to_string(), to: to.to_string(), why };
            if at.distance(to) != 1 {
                return Err(bad(format!("{to} is not adjacent to {at}")));
            }
            if !self.on_map(to) {
                return Err(bad("that hex is off the map".into()));
            }
            if let Some(other) = self.occupant(to, Some(idx)) {
                return Err(bad(format!("it is occupied by {}", self.units[other].id)));
            }
            at = to;
        }
        Ok(())
    }

    /// Places a unit anywhere (setup and editing, not a move: no adjacency check).
    pub fn place(&mut self, idx: usize, pos: Position) -> Result<(), WorldError> {
        if let Position::Hex(h) = pos {
            if !self.on_map(h) {
                return Err(WorldError::OffMap(h));
            }
            if let Some(other) = self.occupant(h, Some(idx)) {
                return Err(WorldError::Invalid(format!("hex {h} already holds unit '{}'", self.units[other].id)));
            }
        }
        self.units[idx].pos = pos;
        Ok(())
    }

    pub fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        self.log.push_with(|| Event::Note { text });
    }

    // ---- copies: comparing and resetting ----

    /// Whether `self` and `other` differ in nothing a rule or a person could
    /// see. The REPL records a command for `:undo` only when this is false.
    ///
    /// Shared parts (`board`, `sections`) compare by pointer first, then by
    /// value. The event log compares by length (entries are only appended).
    /// The dice compare by their unused forced results, die kinds and
    /// generator state (the generator's `Debug` hides its state, so a seeded
    /// generator compares by value).
    ///
    /// Exhaustive on purpose, like [`World::reset_from`]: a new `World` field
    /// is a compile error here until it is compared.
    pub fn same_as(&self, other: &World) -> bool {
        use crate::dice::Source;
        let World { map, board, tokens, sections, sides, units, current_side, turn, dice, log, marks, stacking } = self;
        let same_dice = dice.unused_forced() == other.dice.unused_forced()
            && format!("{:?}", dice.kinds()) == format!("{:?}", other.dice.kinds())
            && match (dice.source(), other.dice.source()) {
                (Source::Random(x), Source::Random(y)) => x == y,
                (x, y) => format!("{x:?}") == format!("{y:?}"),
            };
        *map == other.map
            && (Rc::ptr_eq(board, &other.board) || board == &other.board)
            && *tokens == other.tokens
            && (Rc::ptr_eq(sections, &other.sections) || sections == &other.sections)
            && *sides == other.sides
            && *units == other.units
            && *current_side == other.current_side
            && *turn == other.turn
            && *marks == other.marks
            && *stacking == other.stacking
            && log.events.len() == other.log.events.len()
            && same_dice
    }

    /// Makes `self` equal to `template` (a fresh copy for the next trial of
    /// `sim` or branch of `exact`), reusing `self`'s allocations and keeping
    /// shared parts (`board`, `sections`, die kinds, token names) shared.
    /// The same as `*self = template.clone()`, but cheaper: a plain clone was
    /// a third of the time of a small trial. The event log becomes the
    /// template's (its entries and whether it records).
    ///
    /// Exhaustive on purpose, like [`World::same_as`]: a new `World` field is
    /// a compile error here until it is reset.
    pub fn reset_from(&mut self, template: &World) {
        let World { map, board, tokens, sections, sides, units, current_side, turn, dice, log, marks, stacking } =
            template;
        self.map.clone_from(map);
        if !Rc::ptr_eq(&self.board, board) {
            self.board = board.clone();
        }
        self.tokens.reset_from(tokens);
        if !Rc::ptr_eq(&self.sections, sections) {
            self.sections = sections.clone();
        }
        self.sides.clone_from(sides);
        self.units.clone_from(units);
        self.current_side.clone_from(current_side);
        self.turn = *turn;
        self.dice.reset_from(dice);
        self.log.events.clear();
        self.log.events.extend(log.events.iter().cloned());
        self.log.recording = log.recording;
        self.marks.clone_from(marks);
        self.stacking = *stacking;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(id: &str, h: Hex) -> Unit {
        Unit {
            id: id.into(),
            side: "allies".into(),
            kind: "infantry".into(),
            strength: 4,
            max_strength: 4,
            leader: None,
            pos: Position::Hex(h),
            props: Vec::new(),
        }
    }

    #[test]
    fn hits_clamp_and_eliminate() {
        let mut w = World::default();
        let i = w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
        assert_eq!(w.hit(i, 3, "test"), 3);
        assert_eq!(w.hit(i, 3, "test"), 1);
        assert_eq!(w.units[i].pos, Position::Off);
        assert!(w.unit_at(Hex::new(2, 2)).is_none());
    }

    #[test]
    fn stacking_lets_units_share_a_hex() {
        let mut w = World { stacking: true, ..World::default() };
        let a = w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
        let b = w.add_unit(unit("b", Hex::new(2, 2))).unwrap();
        w.add_unit(unit("c", Hex::new(3, 2))).unwrap();
        assert_eq!(w.check_path(a, &[Hex::new(3, 2), Hex::new(4, 2)]), Ok(()));
        assert_eq!(w.step(a, Hex::new(3, 2), false), Ok(Hex::new(2, 2)));
        assert_eq!(w.place(b, Position::Hex(Hex::new(3, 2))), Ok(()));
        // unit_at still answers with the first living unit on the hex
        assert_eq!(w.unit_at(Hex::new(3, 2)), Some(a));
        w.stacking = false;
        assert!(w.step(a, Hex::new(2, 2), false).is_ok());
        assert!(w.step(a, Hex::new(3, 2), false).is_err(), "without stacking the hex is occupied");
    }

    #[test]
    fn steps_must_be_adjacent_free_and_on_map() {
        let mut w = World::default();
        let a = w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
        w.add_unit(unit("b", Hex::new(3, 2))).unwrap();
        assert!(w.step(a, Hex::new(3, 2), false).is_err());
        assert!(w.step(a, Hex::new(4, 2), false).is_err());
        assert_eq!(w.step(a, Hex::new(2, 3), false), Ok(Hex::new(2, 2)));
        assert!(w.add_unit(unit("a", Hex::new(5, 5))).is_err());
    }

    #[test]
    fn copies_share_the_board_until_written() {
        let mut w = World::default();
        w.set_terrain(Hex::new(1, 1), Some("woods"));
        let mut copy = w.clone();
        assert!(Rc::ptr_eq(&w.board, &copy.board));
        copy.add_token(Hex::new(1, 1), "crater");
        assert!(!w.has_token(Hex::new(1, 1), "crater"));
        assert!(copy.has_token(Hex::new(1, 1), "crater"));
        copy.set_terrain(Hex::new(1, 1), None);
        assert!(!Rc::ptr_eq(&w.board, &copy.board));
        assert_eq!(w.terrain(Hex::new(1, 1)).map(|t| &**t), Some("woods"));
    }

    #[test]
    fn tokens_keep_their_hex_order_and_placing_order() {
        let mut t = Tokens::default();
        let (a, b, c) = (Hex::new(2, 1), Hex::new(0, 3), Hex::new(1, 1));
        t.add(a, "wire");
        t.add(b, "crater");
        t.add(a, "crater");
        t.add(c, "wire");
        t.add(a, "wire");
        assert_eq!(t.on(a).map(|x| &**x).collect::<Vec<_>>(), ["wire", "crater", "wire"]);
        assert!(t.has(b, "crater") && !t.has(b, "wire") && !t.has(Hex::new(9, 9), "wire"));
        let hexes: Vec<Hex> = t.iter().map(|(h, _)| h).collect();
        assert!(hexes.windows(2).all(|p| p[0] <= p[1]), "sorted by hex: {hexes:?}");
        assert!(t.remove(a, "wire"));
        assert_eq!(t.on(a).map(|x| &**x).collect::<Vec<_>>(), ["crater", "wire"]);
        assert!(!t.remove(b, "wire"));
        let mut u = Tokens::default();
        u.reset_from(&t);
        assert_eq!(u, t);
    }

    /// A world with something in every field, unlike the default.
    fn busy_world() -> World {
        let mut w = World {
            map: Map::Hex { cols: 8, rows: 6, offset: OffsetKind::EvenQ },
            sections: Rc::new(vec![Section { name: "left".into(), first_col: 0, last_col: 3 }]),
            current_side: Some("allies".into()),
            turn: 3,
            dice: DiceBox::new(7),
            ..World::default()
        };
        w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
        w.set_terrain(Hex::new(1, 1), Some("woods"));
        w.add_token(Hex::new(1, 1), "crater");
        w.marks.push((Hex::new(2, 2), "1".into()));
        w.note("set up");
        w
    }

    #[test]
    fn same_as_sees_every_field() {
        let w = busy_world();
        assert!(w.same_as(&w.clone()));
        assert!(World::default().same_as(&World::default()));
        // One change per field, each touching that field only.
        type Change = (&'static str, fn(&mut World));
        let changes: [Change; 12] = [
            ("map", |w| w.map = Map::Table { width: 10.0, height: 10.0 }),
            ("board", |w| w.set_terrain(Hex::new(3, 3), Some("hills"))),
            ("tokens", |w| w.tokens.add(Hex::new(2, 1), "wire")),
            ("sections", |w| w.sections = Rc::new(Vec::new())),
            ("sides", |w| w.sides.push(Side { name: "axis".into(), baseline: None, pools: Vec::new() })),
            ("units", |w| w.units[0].strength = 1),
            ("current_side", |w| w.current_side = None),
            ("turn", |w| w.turn += 1),
            ("dice", |w| w.dice.seed(8)),
            ("log", |w| w.note("more")),
            ("marks", |w| w.marks.clear()),
            ("stacking", |w| w.stacking = !w.stacking),
        ];
        for (field, change) in changes {
            let mut other = w.clone();
            change(&mut other);
            assert!(!w.same_as(&other), "a change to {field} went unseen");
            assert!(!other.same_as(&w), "a change to {field} went unseen (reversed)");
        }
        // A board copied on write but equal again is the same.
        let mut other = w.clone();
        other.set_terrain(Hex::new(3, 3), Some("hills"));
        other.set_terrain(Hex::new(3, 3), None);
        assert!(w.same_as(&other));
    }

    #[test]
    fn reset_from_equals_a_clone_and_keeps_shared_parts_shared() {
        let template = busy_world();
        let mut w = World::default();
        w.add_unit(unit("z", Hex::new(0, 0))).unwrap();
        w.marks.push((Hex::new(0, 0), "x".into()));
        w.log.recording = false;
        w.reset_from(&template);
        assert!(w.same_as(&template));
        assert!(Rc::ptr_eq(&w.board, &template.board));
        assert!(Rc::ptr_eq(&w.sections, &template.sections));
        assert_eq!(w.log.events.len(), template.log.events.len());
        assert_eq!(w.log.recording, template.log.recording);
        assert_eq!(w.units, template.units);
        // A trial that changes everything is undone by the next reset.
        w.hit(0, 1, "test");
        w.add_token(Hex::new(4, 4), "wire");
        w.dice.seed(1);
        w.set_terrain(Hex::new(1, 1), None);
        w.turn = 9;
        assert!(!w.same_as(&template));
        w.reset_from(&template);
        assert!(w.same_as(&template));
        assert!(Rc::ptr_eq(&w.board, &template.board));
    }

    #[test]
    fn section_lines_belong_to_both() {
        let w = World {
            sections: Rc::new(vec![
                Section { name: "left".into(), first_col: 0, last_col: 4 },
                Section { name: "centre".into(), first_col: 4, last_col: 8 },
            ]),
            ..World::default()
        };
        let h = Hex::from_offset(4, 3, OffsetKind::OddR);
        assert_eq!(w.sections_of(h).len(), 2);
    }
}
