//! Tabletop answers kept between calls.
//!
//! `tabletop.bases`, `tabletop.edges` and `tabletop.cover` answer from
//! geometry alone: a unit's laid-out bases (`World::unit_shape`, kept by the
//! world until the unit moves, turns or loses bases), a base's numbers, and
//! the board's terrain. Their answers are frozen (read-only, nested tables
//! too) and kept here by what they were made from, so asking again pushes
//! the same table instead of building a new one. A base table inside a kept
//! answer is also known by its address: a later call that takes it as an
//! argument reads its base from here instead of from its fields (it is
//! frozen, so it still holds what it was made with).
//!
//! The keys hold everything an answer depends on: a unit's shape (an `Rc`
//! kept alive here, so its address names it alone), a base's numbers, and
//! the board (checked on every look-up: another board empties the memo).
//! The memo empties itself past [`MOST`] answers, releasing their registry
//! references.
//!
//! The pure measuring queries (`distance`, `area_in_arc`, `frontage_in_arc`,
//! `through`, `areas_crossed`) are kept too, as Rust values ([`Queries`]):
//! each call builds its own answer from the kept value. Their keys name
//! every argument by its numbers' bits or, for a unit, by its shape's
//! address (so a unit that moves, turns, re-forms or loses bases, whose
//! `World::unit_shape` is a new `Rc`, makes a new key); `through`'s key
//! also names every unit it could find (slot and shape), so a unit
//! eliminated, added or moved anywhere makes a new key too.

use std::os::raw::c_int;
use std::rc::{Rc, Weak};

use mlua::ffi;
use rustc_hash::FxHashMap;

use super::answer::{self, Geo};
use crate::battlefield::{Board, World};
use crate::tabletop::{Base, UnitShape};

/// Most answers kept at once (a designer's script that keeps moving units
/// makes new shapes: past this, the memo starts again).
const MOST: usize = 4096;

/// Which call an answer is for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Call {
    Bases,
    Edges,
    Cover,
}

/// What an answer was made from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Key {
    /// A unit's shape, by address (the `Rc` is kept in `Memo::shapes`).
    Shape(Call, usize),
    /// One base, by its numbers' bits.
    Base(Call, [u64; 5]),
}

impl Key {
    pub fn base(call: Call, b: &Base) -> Key {
        Key::Base(call, [b.centre.x, b.centre.y, b.facing, b.width, b.depth].map(f64::to_bits))
    }
}

/// The kept answers of one Lua state (`State::tabletop_memo`).
#[derive(Default)]
pub struct Memo {
    /// Each answer's registry reference.
    answers: FxHashMap<Key, c_int>,
    /// The shapes `Key::Shape` names.
    shapes: Vec<Rc<UnitShape>>,
    /// The base of each base table inside a kept answer, by its address.
    bases: FxHashMap<usize, Base>,
    /// The board the answers were made on.
    board: Weak<Board>,
    /// Pure queries' answers as Rust values (`Memo::query`).
    queries: Queries,
}

impl Memo {
    fn on(&self, w: &World) -> bool {
        std::ptr::eq(self.board.as_ptr(), Rc::as_ptr(&w.board))
    }

    /// The registry reference of the answer kept for `key`, if any.
    pub fn find(&self, w: &World, key: &Key) -> Option<c_int> {
        if !self.on(w) {
            return None;
        }
        self.answers.get(key).copied()
    }

    /// The base a kept base table holds (by the table's address).
    pub fn base_at(&self, w: &World, address: usize) -> Option<Base> {
        if !self.on(w) || address == 0 {
            return None;
        }
        self.bases.get(&address).copied()
    }
}

/// An answer to make, freeze and keep (`fast::Out::Keep`).
pub struct Keep {
    pub key: Key,
    pub geo: Geo,
    /// The shape a `Key::Shape` names.
    pub shape: Option<Rc<UnitShape>>,
    pub board: Weak<Board>,
}

/// Pushes the answer kept for `key` (a registry read: no allocation).
///
/// # Safety
/// A live state with a free slot; `r` is a reference the memo holds.
pub unsafe fn push_kept(l: *mut ffi::lua_State, r: c_int) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_rawgeti(l, ffi::LUA_REGISTRYINDEX, r as ffi::lua_Integer);
    }
}

/// Pushes a new answer, frozen, and keeps it in `memo`.
///
/// # Safety
/// As for `answer::push` (raising allowed: no borrow of `memo` is held
/// while Lua allocates).
pub unsafe fn push_keep(l: *mut ffi::lua_State, keys: &answer::Keys, memo: &std::cell::RefCell<Memo>, keep: Keep) {
    // SAFETY: the caller's contract; the answer stays on top throughout.
    unsafe {
        answer::push(l, keys, &keep.geo);
        answer::freeze(l, -1);
        // The base tables' addresses, read before taking the memo (no allocation).
        let mut rows = Vec::new();
        if let Geo::Shape(s) = &keep.geo {
            for (i, b) in s.bases.iter().enumerate() {
                ffi::lua_rawgeti(l, -1, i as ffi::lua_Integer + 1);
                rows.push((ffi::lua_topointer(l, -1) as usize, *b));
                ffi::lua_pop(l, 1);
            }
        }
        let r = ffi::lua_ref(l, -1);
        let mut m = memo.borrow_mut();
        if m.answers.len() >= MOST || !std::ptr::eq(m.board.as_ptr(), keep.board.as_ptr()) {
            for (_, old) in m.answers.drain() {
                ffi::lua_unref(l, old);
            }
            m.shapes.clear();
            m.bases.clear();
            m.board = keep.board;
        }
        if let Some(old) = m.answers.insert(keep.key, r) {
            ffi::lua_unref(l, old);
        }
        m.shapes.extend(keep.shape);
        m.bases.extend(rows);
    }
}

// ---- pure queries, answered again from their kept Rust values ----

/// Most query answers kept at once, and most shapes their keys keep alive
/// (a script that moves many units between `through` calls makes new
/// shapes for each): past either, the query memo starts again.
const MOST_QUERIES: usize = 8192;
const MOST_SHAPES: usize = 8192;

/// An argument of a kept query, named by everything its answer reads.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Arg {
    /// A point, by its numbers' bits.
    Point([u64; 2]),
    /// One base, by its numbers' bits.
    Base([u64; 5]),
    /// A unit's shape as the world keeps it, by address (the `Rc` is kept
    /// alive by the query memo, so no other shape can take the address).
    Shape(usize),
}

impl Arg {
    pub fn point(p: crate::tabletop::Point) -> Arg {
        Arg::Point([p.x.to_bits(), p.y.to_bits()])
    }

    pub fn base(b: &Base) -> Arg {
        Arg::Base([b.centre.x, b.centre.y, b.facing, b.width, b.depth].map(f64::to_bits))
    }
}

/// A path's numbers' bits (a line's two ends, or a zone's start, bearing,
/// width and length), and which it is.
pub fn path_bits(p: &crate::tabletop::Path) -> [u64; 6] {
    use crate::tabletop::Path;
    match *p {
        Path::Line(s) => [0, s.a.x.to_bits(), s.a.y.to_bits(), s.b.x.to_bits(), s.b.y.to_bits(), 0],
        Path::Zone { from, bearing, width, length } => {
            [1, from.x.to_bits(), from.y.to_bits(), bearing.to_bits(), width.to_bits(), length.to_bits()]
        }
    }
}

/// An arc's numbers' bits.
pub fn arc_bits(a: &crate::tabletop::Arc) -> [u64; 6] {
    [a.left.x, a.left.y, a.right.x, a.right.y, a.bearing, a.angle].map(f64::to_bits)
}

/// A pure tabletop query, by everything its answer depends on (the board's
/// terrain too: the memo empties itself on another board).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Query {
    Distance(Arg, Arg),
    AreaInArc([u64; 6], Arg),
    FrontageInArc([u64; 6], Arg),
    /// The path, and every unit it could pass through: (slot, shape) of each
    /// living tabletop unit with bases but the one excluded.
    Through([u64; 6], Vec<(usize, usize)>),
    AreasCrossed([u64; 6]),
}

/// A kept query's answer, as Rust values (each call builds its own tables
/// from it, so nothing a script does to an answer reaches the memo).
#[derive(Clone, Debug)]
pub enum Found {
    Num(f64),
    Crossings(Rc<[crate::tabletop::Crossing]>),
    Areas(Rc<[answer::AreaRow]>),
}

/// The kept query answers of one Lua state (`Memo::queries`).
#[derive(Default)]
pub struct Queries {
    found: FxHashMap<Query, Found>,
    /// The shapes `Arg::Shape` and `Query::Through` name, by address.
    shapes: FxHashMap<usize, Rc<UnitShape>>,
    board: Weak<Board>,
}

impl Memo {
    /// The answer kept for `q` on this world's board, if any.
    pub fn query(&self, w: &World, q: &Query) -> Option<Found> {
        let qs = &self.queries;
        if !std::ptr::eq(qs.board.as_ptr(), Rc::as_ptr(&w.board)) {
            return None;
        }
        qs.found.get(q).cloned()
    }

    /// Keeps `found` for `q`, and the shapes its key names alive.
    pub fn remember(&mut self, w: &World, q: Query, found: Found, shapes: impl IntoIterator<Item = Rc<UnitShape>>) {
        let qs = &mut self.queries;
        if qs.found.len() >= MOST_QUERIES
            || qs.shapes.len() >= MOST_SHAPES
            || !std::ptr::eq(qs.board.as_ptr(), Rc::as_ptr(&w.board))
        {
            qs.found.clear();
            qs.shapes.clear();
            qs.board = Rc::downgrade(&w.board);
        }
        for s in shapes {
            qs.shapes.entry(Rc::as_ptr(&s) as usize).or_insert(s);
        }
        qs.found.insert(q, found);
    }
}
