//! The world: the board (map, terrain, tokens, sections), the sides and their
//! pools, the units, the dice, whose turn it is, and the event log.
//!
//! It is plain Rust data and clones cheaply (shared, rarely-changed parts sit
//! behind `Rc` and are copied on write), which is how transactions, undo and
//! per-trial copies for simulation work.

mod board;
mod shapes;
#[cfg(test)]
mod tests;

pub use board::{same_bytes, same_name, Board, Edge, Map, Section, Side, Tokens};
pub use shapes::ShapeCache;

use std::rc::Rc;

use crate::dice::DiceBox;
use crate::hex::Hex;
use crate::log::{Event, EventLog};
use crate::tabletop::{Point, Trace};
use crate::unit::{Position, Unit};

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
    /// Shapes a rule draws on a tabletop (an arc of fire, a frontage zone):
    /// the tabletop's marks.
    pub table_marks: Vec<crate::tabletop::TableMark>,
    /// Where units' bases stood at moments rules chose to remember
    /// (`tabletop.trace`), in the order they were taken. Rule state, unlike
    /// the marks: rules read it back.
    pub traces: Vec<Trace>,
    /// Each tabletop unit's bases as last laid out (a cache, no part of
    /// the state: see `shapes`).
    pub shapes: ShapeCache,
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
            table_marks: Vec::new(),
            traces: Vec::new(),
            shapes: ShapeCache::default(),
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
        self.log.push_with(|| Event::Token { hex: h, token: token.into(), placed: true });
    }

    /// Removes one token of that name; returns whether there was one.
    pub fn remove_token(&mut self, h: Hex, token: &str) -> bool {
        if !self.tokens.remove(h, token) {
            return false;
        }
        self.log.push_with(|| Event::Token { hex: h, token: token.into(), placed: false });
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

    /// The index of side `name`, if there is one (no error built: for hot paths).
    pub fn find_side(&self, name: &str) -> Option<usize> {
        self.sides.iter().position(|s| same_name(&s.name, name))
    }

    pub fn side_index(&self, name: &str) -> Result<usize, WorldError> {
        self.find_side(name).ok_or_else(|| {
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
        self.opponent_of(name).cloned().ok_or_else(|| WorldError::Invalid(format!("side '{name}' has no opponent")))
    }

    /// [`World::opponent`] without errors: the first other side's name, or
    /// `None` for an unknown side or one with no opponent.
    pub fn opponent_of(&self, name: &str) -> Option<&Rc<str>> {
        self.find_side(name)?;
        self.sides.iter().find(|s| !same_name(&s.name, name)).map(|s| &s.name)
    }

    pub fn pool(&self, side: &str, pool: &str) -> Result<i64, WorldError> {
        Ok(self.side(side)?.pool(pool))
    }

    /// Changes a pool by `change` (clamped at zero) and logs it; returns the new value.
    pub fn add_pool(&mut self, side: &str, pool: &str, change: i64, reason: &str) -> Result<i64, WorldError> {
        let i = self.side_index(side)?;
        let value = self.sides[i].add_to_pool(pool, change);
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
        if self.on_tabletop() && unit.max_strength > crate::tabletop::MAX_BASES {
            return Err(WorldError::Invalid(format!(
                "unit '{}': a tabletop unit has at most {} bases, not {}",
                unit.id,
                crate::tabletop::MAX_BASES,
                unit.max_strength
            )));
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

    /// True for a tabletop, where units are bases with ids.
    pub fn on_tabletop(&self) -> bool {
        matches!(self.map, Map::Table { .. })
    }

    /// Removes `hits` figures (never below zero); returns figures actually
    /// removed. A unit that loses its last figure leaves the battlefield.
    /// On a tabletop the unit's highest-numbered bases go, and the others
    /// stay where they stand (a rule that chooses names them:
    /// [`World::remove_bases`]).
    pub fn hit(&mut self, idx: usize, hits: i32, reason: &str) -> i32 {
        let table = self.on_tabletop();
        let u = &mut self.units[idx];
        let taken = hits.clamp(0, u.strength.max(0));
        if table && taken > 0 {
            let ids = u.last_bases(taken as usize);
            u.remove_bases(&ids).expect("the unit's own bases");
        } else {
            u.strength -= taken;
        }
        let (id, strength) = (u.id.clone(), u.strength);
        self.log.push_with(|| Event::Hit { unit: id.to_string(), hits: taken, strength, reason: reason.into() });
        if strength == 0 && taken > 0 {
            self.eliminate(idx, reason);
        }
        taken
    }

    /// Removes a tabletop unit's named bases (a loss the rule chooses); the
    /// others stay where they stand. Returns how many went; a unit left
    /// with none leaves the battlefield. A base the unit does not have, or
    /// one named twice, is an error that changes nothing.
    pub fn remove_bases(&mut self, idx: usize, ids: &[u16], reason: &str) -> Result<i32, WorldError> {
        if !self.on_tabletop() {
            return Err(WorldError::Invalid("bases have ids only on a tabletop".into()));
        }
        let u = &mut self.units[idx];
        u.remove_bases(ids).map_err(WorldError::Invalid)?;
        let (id, strength, taken) = (u.id.clone(), u.strength, ids.len() as i32);
        self.log.push_with(|| Event::Hit { unit: id.to_string(), hits: taken, strength, reason: reason.into() });
        if strength == 0 && taken > 0 {
            self.eliminate(idx, reason);
        }
        Ok(taken)
    }

    /// Sets a unit's strength (0 eliminates). On a tabletop a lower strength
    /// removes the highest-numbered bases, a higher one adds bases with the
    /// lowest free ids, into empty places first.
    pub fn set_strength(&mut self, idx: usize, strength: i32, reason: &str) -> Result<(), WorldError> {
        let table = self.on_tabletop();
        let u = &mut self.units[idx];
        if !(0..=u.max_strength).contains(&strength) {
            return Err(WorldError::Invalid(format!(
                "strength must be a whole number from 0 to {}, got {strength}",
                u.max_strength
            )));
        }
        if strength == 0 {
            self.eliminate(idx, reason);
            return Ok(());
        }
        let now = u.strength.max(0);
        if !table {
            u.strength = strength;
        } else if strength < now {
            let ids = u.last_bases((now - strength) as usize);
            u.remove_bases(&ids).expect("the unit's own bases");
        } else {
            u.add_bases((strength - now) as usize);
        }
        Ok(())
    }

    /// A tabletop unit closes up: its bases fill the first places of its
    /// formation block, keeping their ids (a formation change does this).
    pub fn close_up(&mut self, idx: usize) {
        self.units[idx].close_up();
    }

    /// Remembers where a tabletop unit's bases stand now (all, or those
    /// named), under `label`; returns how many bases the trace holds.
    pub fn trace(&mut self, idx: usize, label: &str, ids: Option<&[u16]>) -> Result<usize, WorldError> {
        let u = &self.units[idx];
        let bases = self.board.tabletop.placed_bases(u, ids).map_err(WorldError::Invalid)?;
        let n = bases.len();
        self.traces.push(Trace { label: label.into(), unit: u.id.clone(), bases: bases.into() });
        Ok(n)
    }

    /// Forgets the traces with this label (every trace when `None`).
    pub fn clear_traces(&mut self, label: Option<&str>) {
        match label {
            Some(l) => self.traces.retain(|t| &*t.label != l),
            None => self.traces.clear(),
        }
    }

    /// Takes a unit off the battlefield.
    pub fn eliminate(&mut self, idx: usize, reason: &str) {
        let u = &mut self.units[idx];
        u.strength = 0;
        u.bases.clear();
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
            let (unit, from, to) = (id.to_string(), Position::Hex(from), Position::Hex(to));
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

    /// Checks that a tabletop unit could make the legs of a move (each leg a
    /// straight line to a point on the table, then a facing), without
    /// changing anything.
    pub fn check_legs(&self, idx: usize, legs: &[(Point, f64)]) -> Result<(), WorldError> {
        let u = &self.units[idx];
        for &(to, facing) in legs {
            let bad = |why: String| WorldError::BadMove { unit: u.id.to_string(), to: to.to_string(), why };
            if !matches!(u.pos, Position::Table { .. }) {
                return Err(bad("it is not on the tabletop".into()));
            }
            if !(to.x.is_finite() && to.y.is_finite() && facing.is_finite()) {
                return Err(bad("a leg needs finite coordinates and facing".into()));
            }
            if let Map::Table { width, height } = self.map {
                if to.x < 0.0 || to.y < 0.0 || to.x > width || to.y > height {
                    return Err(bad(format!("that point is off the {width} x {height} cm table")));
                }
            }
        }
        Ok(())
    }

    /// Moves a tabletop unit one leg: straight to `to`, then turned to
    /// `facing` (degrees). The Lua host walks a move leg by leg so that
    /// `enters`/`leaves` subscribers see each; `retreat` only changes the
    /// event name. Returns where the unit stood and how it faced.
    pub fn leg(&mut self, idx: usize, to: Point, facing: f64, retreat: bool) -> Result<(Point, f64), WorldError> {
        self.check_legs(idx, &[(to, facing)])?;
        let Position::Table { at, facing: was } = self.units[idx].pos else {
            return Err(WorldError::BadMove {
                unit: self.units[idx].id.to_string(),
                to: to.to_string(),
                why: "it is not on the tabletop".into(),
            });
        };
        let new = Position::Table { at: to, facing: crate::tabletop::normalise(facing) };
        let old = self.units[idx].pos;
        self.units[idx].pos = new;
        let id = self.units[idx].id.clone();
        self.log.push_with(|| {
            let (unit, from, to) = (id.to_string(), old, new);
            if retreat {
                Event::Retreat { unit, from, to }
            } else {
                Event::Move { unit, from, to }
            }
        });
        Ok((at, was))
    }

    /// Places a unit anywhere (setup and editing, not a move: no adjacency check).
    pub fn place(&mut self, idx: usize, pos: Position) -> Result<(), WorldError> {
        match pos {
            Position::Hex(h) => {
                if !self.on_map(h) {
                    return Err(WorldError::OffMap(h));
                }
                if let Some(other) = self.occupant(h, Some(idx)) {
                    return Err(WorldError::Invalid(format!("hex {h} already holds unit '{}'", self.units[other].id)));
                }
            }
            Position::Table { at, .. } if !self.on_table(at) => {
                return Err(WorldError::Invalid(match self.map {
                    Map::Table { width, height } => {
                        format!("point {at} is off the table (x from 0 to {width}, y from 0 to {height} cm)")
                    }
                    Map::Hex { .. } => format!("point {at}: this battlefield is a hex map, so a unit goes on a hex"),
                }));
            }
            Position::Table { .. } | Position::Off => {}
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
        let World {
            map,
            board,
            tokens,
            sections,
            sides,
            units,
            current_side,
            turn,
            dice,
            log,
            marks,
            stacking,
            table_marks,
            traces,
            shapes: _,
        } = self;
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
            && *table_marks == other.table_marks
            && *traces == other.traces
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
        let World {
            map,
            board,
            tokens,
            sections,
            sides,
            units,
            current_side,
            turn,
            dice,
            log,
            marks,
            stacking,
            table_marks,
            traces,
            shapes: _,
        } = template;
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
        // Trials rarely log, mark or draw: skip the copies when both are empty.
        if !(self.log.events.is_empty() && log.events.is_empty()) {
            self.log.events.clear();
            self.log.events.extend(log.events.iter().cloned());
        }
        self.log.recording = log.recording;
        if !(self.marks.is_empty() && marks.is_empty()) {
            self.marks.clone_from(marks);
        }
        self.stacking = *stacking;
        if !(self.table_marks.is_empty() && table_marks.is_empty()) {
            self.table_marks.clone_from(table_marks);
        }
        if !(self.traces.is_empty() && traces.is_empty()) {
            self.traces.clone_from(traces);
        }
    }
}
