//! The `tabletop` area's result tables, built on the Lua stack, and its fast
//! paths.
//!
//! A geometry call answers with small tables (a point `{x=, y=}`, a base, a
//! unit's edges: thirteen tables). Built through mlua's `Table` API every
//! table and every field set is a protected call and every key a new
//! registry-held string: `tabletop.edges` cost about 125 000 instructions.
//! Here a whole answer is one [`Geo`] value, pushed with `lua_createtable`
//! (sized up front) and `lua_rawsetfield`: the full functions push it in one
//! protected call ([`table`]), the fast paths after their borrows end
//! (`fast::Out::Geo`).
//!
//! Keys never allocate: [`install`] keeps every key string this module uses
//! (`KEYS`) in a registry table, so they stay interned for the state's
//! lifetime, and notes where each keeps its bytes: answers push the pinned
//! string itself as a key (`answer::push_key`), and the
//! fast paths read their argument tables in place (`stack::raw::TableRef`):
//! a field is found by the address of its pinned key string
//! (`State::tabletop_keys`), as Luau's own `luaH_getstr` finds it, where
//! `lua_rawgetfield` would hash the key's text into a string first (about
//! 450 instructions a field, a third of a `tabletop.bearing` between two
//! points). Nothing allocates, so nothing can raise.
//!
//! The fast paths follow `fast`'s rule: the common valid case only (plain
//! tables without metatables, numbers that are numbers, cached unit
//! handles of tabletop units); anything else goes, arguments unchanged, to
//! the full function in `tabletop_api`, which owns every error message.

use std::cell::Cell;
use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::rc::Rc;

use mlua::{ffi, Lua, Table};

use super::fast::{self, fast_fn, Frame, Out};
use super::stack::{
    self,
    raw::{TableRef, Value},
};
use crate::battlefield::World;
use crate::lua::tabletop_api::{check_angle, check_base, check_bearing, check_length, check_path, check_point, Shape};
use crate::lua::State;
use crate::tabletop::{self, Arc, Base, Path, Point, Segment, UnitShape};
use crate::unit::Position;

mod answer;
mod memo;
pub use answer::{crossings_table, frozen_table, push, table, AreaRow, Geo, Keys, KEY_COUNT};
use answer::{K, KEYS, PINNED_KEYS};
use memo::{arc_bits, path_bits, Arg, Call, Found, Key, Query};
pub use memo::{push_keep, Keep, Memo};

// ---- reading arguments without allocating (fast paths) ----

/// A plain table (no metatable, so a raw read answers what an indexed read
/// would), read in place: its fields are found by the address of their
/// pinned key string (`State::tabletop_keys`), with no API call and no
/// hashing of the key's text.
#[derive(Clone, Copy)]
struct Plain<'call> {
    t: TableRef,
    _call: PhantomData<&'call ()>,
}

/// Argument `i` as a plain table.
fn plain_table<'call>(f: Frame<'call>, i: c_int) -> Option<Plain<'call>> {
    if i < 1 {
        return None;
    }
    // SAFETY: a positive index of a live frame, inside `fast::run` (which
    // goes on only when Luau's layout is trusted).
    Plain::new(unsafe { stack::raw::table(f.raw(), i)? })
}

impl<'call> Plain<'call> {
    /// `t` when it has no metatable. `t` is an argument of the frame or a
    /// table one holds: nothing runs Lua during a fast path, so it lives,
    /// unchanged, until the call returns.
    fn new(t: TableRef) -> Option<Self> {
        // SAFETY: as said above.
        (!unsafe { t.has_metatable() }).then_some(Plain { t, _call: PhantomData })
    }

    /// Field `k` (`None` before the key strings are pinned).
    fn get(self, st: &State, k: K) -> Option<Value> {
        let key = key_ptr(st, k);
        if key == 0 {
            return None;
        }
        // SAFETY: see `new`; the key string is pinned by `install`.
        Some(unsafe { self.t.field(key) })
    }

    /// A number field: `Ok(None)` when nil, `Ok(Some(x))` for a number,
    /// `Err(())` for anything else.
    fn num(self, st: &State, k: K) -> Result<Option<f64>, ()> {
        let v = self.get(st, k).ok_or(())?;
        match v.kind() {
            ffi::LUA_TNIL => Ok(None),
            ffi::LUA_TNUMBER => Ok(v.number()),
            _ => Err(()),
        }
    }

    /// A finite number field that must be there.
    fn finite(self, st: &State, k: K) -> Option<f64> {
        self.num(st, k).ok()?.filter(|x| x.is_finite())
    }

    /// Whether field `k` is nil.
    fn is_nil(self, st: &State, k: K) -> Option<bool> {
        Some(self.get(st, k)?.kind() == ffi::LUA_TNIL)
    }

    /// A point `{x=, y=}` (finite numbers, within the table's reach).
    fn point(self, st: &State) -> Option<Point> {
        in_reach(Point::new(self.finite(st, K::X)?, self.finite(st, K::Y)?))
    }

    /// A table of `x` and `y` alone, read in one look at its two nodes (the
    /// commonest point, `{x=, y=}` made by a rule): no `width` can be
    /// there, so it is a point. `None` for any other table, or numbers a
    /// point cannot have (read field by field then, as before).
    fn bare_point(self, st: &State) -> Option<Point> {
        let (x, y) = (key_ptr(st, K::X), key_ptr(st, K::Y));
        if x == 0 || y == 0 {
            return None;
        }
        // SAFETY: see `new`; the key strings are pinned by `install`.
        let (x, y) = unsafe { self.t.only_pair(x, y)? };
        in_reach(Point::new(x.number()?, y.number()?))
    }

    /// A point table held in field `k`.
    fn point_field(self, st: &State, k: K) -> Option<Point> {
        Plain::new(self.get(st, k)?.table()?)?.point(st)
    }

    /// A base `{x=, y=, facing=?, width=, depth=}`, placed by its centre
    /// (`front=` and `centre=` go to the full function).
    fn base(self, st: &State) -> Option<Base> {
        let width = self.finite(st, K::Width)?;
        let depth = self.finite(st, K::Depth)?;
        if !(width >= 0.0 && depth >= 0.0) {
            return None;
        }
        let facing = self.num(st, K::Facing).ok()?.unwrap_or(0.0);
        if !facing.is_finite() || !self.is_nil(st, K::Front)? || !self.is_nil(st, K::Centre)? {
            return None;
        }
        let b = Base::new(self.point_unchecked(st)?, facing, width, depth);
        check_base(&b).ok()?;
        Some(b)
    }

    /// `x=`, `y=` as finite numbers (a base's centre: `check_base` checks
    /// its reach).
    fn point_unchecked(self, st: &State) -> Option<Point> {
        Some(Point::new(self.finite(st, K::X)?, self.finite(st, K::Y)?))
    }
}

/// `p` when it is a point a call may take: `check_point`'s test (finite
/// numbers within `MAX_CM` of the corner; NaN fails both comparisons)
/// without its message.
#[inline(always)]
fn in_reach(p: Point) -> Option<Point> {
    (p.x.abs() <= tabletop::MAX_CM && p.y.abs() <= tabletop::MAX_CM).then_some(p)
}

/// Where key `k`'s pinned string keeps its bytes (0 before `install`).
fn key_ptr(st: &State, k: K) -> usize {
    st.tabletop_keys.strings[k as usize].get()
}

/// An argument as `tabletop_api::shape` reads it (a point, one base, or a
/// tabletop unit's bases), not yet made into a [`Shape`]: a kept query
/// names it by its [`Arg`] and, answered from the memo, never needs one.
enum Given {
    Point(Point),
    Base(Base),
    Unit(Rc<UnitShape>),
}

impl Given {
    fn key(&self) -> Arg {
        match self {
            Given::Point(p) => Arg::point(*p),
            Given::Base(b) => Arg::base(b),
            Given::Unit(s) => Arg::Shape(Rc::as_ptr(s) as usize),
        }
    }

    fn shape(self) -> Shape {
        match self {
            Given::Point(p) => Shape::Point(p),
            Given::Base(b) => Shape::base(b),
            Given::Unit(s) => Shape::Bases(s),
        }
    }

    /// The unit's shape a key names (to keep it alive with the answer).
    fn unit(&self) -> Option<Rc<UnitShape>> {
        match self {
            Given::Unit(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// Argument `i` as a point, a base or a tabletop unit, as
/// `tabletop_api::shape` reads it. With `strict`, a unit must have bases.
fn given_arg(f: Frame<'_>, st: &State, w: &World, i: c_int, strict: bool) -> Option<Given> {
    if let Some(b) = kept_base(f, st, w, i) {
        return Some(Given::Base(b));
    }
    if let Some(t) = plain_table(f, i) {
        if let Some(p) = t.bare_point(st) {
            return Some(Given::Point(p));
        }
        if t.is_nil(st, K::Width)? {
            return t.point(st).map(Given::Point);
        }
        return Some(Given::Base(t.base(st)?));
    }
    let idx = fast::unit_arg(f, st, w, i)?;
    let Position::Table { at, .. } = w.units[idx].pos else {
        return None;
    };
    match w.unit_shape(idx) {
        Ok(shape) => Some(Given::Unit(shape)),
        Err(_) if !strict => Some(Given::Point(at)),
        Err(_) => None,
    }
}

/// Argument `i` as a point, a base or a tabletop unit, as
/// `tabletop_api::shape` reads it. With `strict`, a unit must have bases.
fn shape_arg(f: Frame<'_>, st: &State, w: &World, i: c_int, strict: bool) -> Option<Shape> {
    given_arg(f, st, w, i, strict).map(Given::shape)
}

/// Argument `i`'s centre, as `shape_arg(..).centre()` without building a
/// shape for a base table.
fn centre_arg(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Point> {
    if let Some(b) = kept_base(f, st, w, i) {
        return Some(b.centre);
    }
    if let Some(t) = plain_table(f, i) {
        if let Some(p) = t.bare_point(st) {
            return Some(p);
        }
        if t.is_nil(st, K::Width)? {
            return t.point(st);
        }
        return Some(t.base(st)?.centre);
    }
    Some(shape_arg(f, st, w, i, false)?.centre())
}

/// Argument `i`'s base when it is a base table of a kept answer (frozen, so
/// its fields still hold that base): no field to read.
fn kept_base(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Base> {
    if i < 1 {
        return None;
    }
    // Read from the slot; kept answers are frozen, so any other table (a
    // point or a base a script made) is not looked up.
    // SAFETY: a positive index of a live frame, inside `fast::run` (which
    // goes on only when Luau's layout is trusted); the table is an argument,
    // alive until the call returns.
    let t = unsafe { stack::raw::table(f.raw(), i).filter(|t| t.frozen())? };
    st.tabletop_memo.try_borrow().ok()?.base_at(w, t.address())
}

/// Argument `i` as bases, told apart: a tabletop unit's shape or one base.
enum Bases {
    Unit(Rc<UnitShape>),
    Base(Base),
}

/// Argument `i` as a unit with bases or a base (as `bases_arg` takes it).
fn unit_or_base(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Bases> {
    if let Some(b) = kept_base(f, st, w, i) {
        return Some(Bases::Base(b));
    }
    if let Some(t) = plain_table(f, i) {
        return if t.is_nil(st, K::Width)? { None } else { Some(Bases::Base(t.base(st)?)) };
    }
    let idx = fast::unit_arg(f, st, w, i)?;
    if !matches!(w.units[idx].pos, Position::Table { .. }) {
        return None;
    }
    w.unit_shape(idx).ok().map(Bases::Unit)
}

/// Argument `i`'s footprint: a unit's (all its bases) or a base's own.
fn footprint_arg(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Base> {
    Some(match unit_or_base(f, st, w, i)? {
        Bases::Unit(s) => s.footprint,
        Bases::Base(b) => b,
    })
}

/// The answer kept for `key`, pushed; or, the first time, the answer to
/// make (from `geo`), freeze and keep.
fn kept(
    f: Frame<'_>,
    st: &State,
    w: &World,
    key: Key,
    shape: Option<Rc<UnitShape>>,
    geo: impl FnOnce() -> Geo,
) -> Option<Out> {
    if let Some(r) = st.tabletop_memo.try_borrow().ok()?.find(w, &key) {
        // SAFETY: a reference the memo holds; a registry read allocates nothing.
        unsafe { memo::push_kept(f.raw(), r) };
        return Some(Out::Pushed(1));
    }
    Some(Out::Keep(Box::new(Keep { key, geo: geo(), shape, board: Rc::downgrade(&w.board) })))
}

/// An arc table `{left=, right=, bearing=, angle=}` at `i`.
fn arc_at(f: Frame<'_>, st: &State, i: c_int) -> Option<Arc> {
    let t = plain_table(f, i)?;
    let left = t.point_field(st, K::Left)?;
    let right = t.point_field(st, K::Right)?;
    let bearing = check_bearing("", t.num(st, K::Bearing).ok()??).ok()?;
    let angle = check_angle(t.num(st, K::Angle).ok()??).ok()?;
    Some(Arc { left, right, bearing: tabletop::normalise(bearing), angle })
}

/// A path table at `i`: `{kind="line"?, from=, to=}` or `{kind="zone", from=, bearing=, width=, length=}`.
fn path_at(f: Frame<'_>, st: &State, i: c_int) -> Option<Path> {
    let t = plain_table(f, i)?;
    // Luau keeps one string per text: `kind` is "line" or "zone" exactly
    // when it is the pinned string.
    let kind = t.get(st, K::Kind)?;
    let zone = match kind.kind() {
        ffi::LUA_TNIL => false,
        _ => match kind.string_ptr()? {
            p if p == key_ptr(st, K::Line) => false,
            p if p == key_ptr(st, K::Zone) => true,
            _ => return None,
        },
    };
    let from = t.point_field(st, K::From)?;
    if !zone {
        return Some(Path::Line(Segment::new(from, t.point_field(st, K::To)?)));
    }
    let bearing = t.num(st, K::Bearing).ok()??;
    let width = t.num(st, K::Width).ok()??;
    let length = t.num(st, K::Length).ok()??;
    let zone = Path::Zone { from, bearing, width, length };
    check_path(&zone).ok()?;
    Some(zone)
}

/// `through`'s options at `i` (nil, absent, or `{exclude=unit?}`): the
/// excluded unit's slot, if any.
fn exclude_arg(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Option<usize>> {
    let l = f.raw();
    // SAFETY: `i` is one of the call's first arguments (an acceptable index).
    if unsafe { ffi::lua_type(l, i) } <= ffi::LUA_TNIL {
        return Some(None);
    }
    plain_table(f, i)?;
    // SAFETY: the key is pinned, so the lookup allocates nothing; the value
    // is read at its absolute index and popped on every path.
    unsafe {
        let t = ffi::lua_rawgetfield(l, i, KEYS[K::Exclude as usize].as_ptr());
        let at = ffi::lua_gettop(l);
        let out = match t {
            ffi::LUA_TNIL => Some(None),
            ffi::LUA_TUSERDATA => fast::unit_arg(f, st, w, at).map(Some),
            _ => None,
        };
        ffi::lua_pop(l, 1);
        out
    }
}

/// Most crossings a fast `through` answers (their handles wait on the stack).
const MAX_CROSSINGS: usize = 12;

fn geo(g: Geo) -> Option<Out> {
    Some(Out::Geo(g))
}

fn num(found: Found) -> Option<Out> {
    match found {
        Found::Num(x) => Some(Out::Num(x)),
        _ => None,
    }
}

/// The answer kept for `q`; or, the first time, `answer()`'s, kept with
/// the shapes its key names (alive, so their addresses name them alone).
fn asked(
    st: &State,
    w: &World,
    q: Query,
    shapes: impl IntoIterator<Item = Rc<UnitShape>>,
    answer: impl FnOnce() -> Found,
) -> Option<Found> {
    if let Some(found) = st.tabletop_memo.try_borrow().ok()?.query(w, &q) {
        return Some(found);
    }
    let found = answer();
    st.tabletop_memo.try_borrow_mut().ok()?.remember(w, q, found.clone(), shapes);
    Some(found)
}

thread_local! {
    /// Calls the tabletop fast paths handed to the full function, on this thread.
    static MISSES: Cell<u64> = const { Cell::new(0) };
}

/// How many tabletop calls this thread's fast paths handed to the full
/// functions (`State::fast_misses` counts every area's; this one only the
/// tabletop's, so a test can tell a ruleset's tabletop calls stay fast).
pub fn misses() -> u64 {
    MISSES.with(Cell::get)
}

/// `fast_fn!` for the tabletop: also counts the calls it declines in [`misses`].
macro_rules! tabletop_fn {
    ($name:ident, |$l:ident, $st:ident| $body:block) => {
        fast_fn!($name, |$l, $st| {
            #[allow(clippy::redundant_closure_call)]
            let out = (|| -> Option<Out> { $body })();
            if out.is_none() {
                MISSES.with(|m| m.set(m.get() + 1));
            }
            out
        });
    };
}

// ---- the fast paths ----

tabletop_fn!(fast_point, |l, _st| {
    let (x, y) = (fast::num_arg(l, 1)?, fast::num_arg(l, 2)?);
    geo(Geo::Point(check_point(Point::new(x, y)).ok()?))
});

tabletop_fn!(fast_angle_between, |l, _st| {
    let a = check_bearing("", fast::num_arg(l, 1)?).ok()?;
    let b = check_bearing("", fast::num_arg(l, 2)?).ok()?;
    Some(Out::Num(tabletop::angle_between(a, b)))
});

tabletop_fn!(fast_bearing, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let a = centre_arg(l, st, &w, 1)?;
    let b = centre_arg(l, st, &w, 2)?;
    Some(Out::Num(a.bearing(b)))
});

tabletop_fn!(fast_distance, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let a = given_arg(l, st, &w, 1, false)?;
    let b = given_arg(l, st, &w, 2, false)?;
    if let (Given::Point(p), Given::Point(q)) = (&a, &b) {
        return Some(Out::Num(p.distance(*q)));
    }
    let q = Query::Distance(a.key(), b.key());
    let shapes = [a.unit(), b.unit()].into_iter().flatten();
    num(asked(st, &w, q, shapes, || Found::Num(a.shape().distance(&b.shape())))?)
});

tabletop_fn!(fast_edges, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let footprint = footprint_arg(l, st, &w, 1)?;
    kept(l, st, &w, Key::base(Call::Edges, &footprint), None, || Geo::Edges(footprint))
});

tabletop_fn!(fast_footprint, |l, st| {
    let w = st.world.try_borrow().ok()?;
    geo(Geo::Base(footprint_arg(l, st, &w, 1)?))
});

tabletop_fn!(fast_edge_towards, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let b = footprint_arg(l, st, &w, 1)?;
    let e = b.edge_towards(centre_arg(l, st, &w, 2)?);
    geo(Geo::EdgeTowards(e, b.edge(e)))
});

tabletop_fn!(fast_bases, |l, st| {
    let w = st.world.try_borrow().ok()?;
    // A unit's bases carry their ids; a base table's none.
    match unit_or_base(l, st, &w, 1)? {
        Bases::Unit(s) => {
            let key = Key::Shape(Call::Bases, Rc::as_ptr(&s) as usize);
            kept(l, st, &w, key, Some(s.clone()), || Geo::Shape(s))
        }
        Bases::Base(b) => {
            kept(l, st, &w, Key::base(Call::Bases, &b), None, || Geo::Shape(Rc::new(UnitShape::single(b))))
        }
    }
});

tabletop_fn!(fast_base, |l, st| { geo(Geo::Base(plain_table(l, 1)?.base(st)?)) });

tabletop_fn!(fast_cover, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let rows = |bases: &[Base]| Geo::Areas(crate::lua::tabletop_api::cover_rows(&w, bases));
    match unit_or_base(l, st, &w, 1)? {
        Bases::Unit(s) => {
            let key = Key::Shape(Call::Cover, Rc::as_ptr(&s) as usize);
            kept(l, st, &w, key, Some(s.clone()), || rows(&s.bases))
        }
        Bases::Base(b) => kept(l, st, &w, Key::base(Call::Cover, &b), None, || rows(&[b])),
    }
});

tabletop_fn!(fast_area_in_arc, |l, st| {
    let arc = arc_at(l, st, 1)?;
    let w = st.world.try_borrow().ok()?;
    let bases = match given_arg(l, st, &w, 2, true)? {
        Given::Point(_) => return None,
        g => g,
    };
    let q = Query::AreaInArc(arc_bits(&arc), bases.key());
    let unit = bases.unit();
    num(asked(st, &w, q, unit, || {
        let Shape::Bases(s) = bases.shape() else { unreachable!("a point was declined above") };
        Found::Num(arc.area_fraction_of(&s.bases))
    })?)
});

tabletop_fn!(fast_frontage_in_arc, |l, st| {
    let arc = arc_at(l, st, 1)?;
    let w = st.world.try_borrow().ok()?;
    let b = footprint_arg(l, st, &w, 2)?;
    let q = Query::FrontageInArc(arc_bits(&arc), Arg::base(&b));
    num(asked(st, &w, q, None, || Found::Num(arc.frontage_fraction(&b)))?)
});

tabletop_fn!(fast_arc_of_fire, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let b = footprint_arg(l, st, &w, 1)?;
    let angle = check_angle(fast::num_arg(l, 2)?).ok()?;
    geo(Geo::Arc(Arc::of_fire(&b, angle.min(179.0))))
});

tabletop_fn!(fast_edge_arc, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let b = footprint_arg(l, st, &w, 1)?;
    let edge = tabletop::Edge::parse(fast::str_arg(l, 2)?)?;
    let angle = check_angle(fast::num_arg(l, 3)?).ok()?;
    geo(Geo::Arc(Arc::from_edge(&b, edge, angle.min(179.0))))
});

/// A centre line's or frontage zone's battery, bearing and range.
fn line_args(f: Frame<'_>, st: &State, w: &World) -> Option<(Base, f64, f64)> {
    let b = footprint_arg(f, st, w, 1)?;
    let bearing = check_bearing("", fast::num_arg(f, 2)?).ok()?;
    let range = check_length("", fast::num_arg(f, 3)?).ok()?;
    Some((b, bearing, range))
}

tabletop_fn!(fast_centre_line, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let (b, bearing, range) = line_args(l, st, &w)?;
    geo(Geo::Path(Path::centre_line(&b, bearing, range)))
});

tabletop_fn!(fast_frontage_zone, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let (b, bearing, range) = line_args(l, st, &w)?;
    geo(Geo::Path(Path::frontage_zone(&b, bearing, range)))
});

tabletop_fn!(fast_travel, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let from = centre_arg(l, st, &w, 1)?;
    let bearing = check_bearing("", fast::num_arg(l, 2)?).ok()?;
    let dist = fast::num_arg(l, 3)?;
    // NaN and far distances go to the full function, which names them.
    if dist.is_nan() || dist.abs() > tabletop::MAX_CM {
        return None;
    }
    geo(Geo::Point(from.travel(bearing, dist)))
});

tabletop_fn!(fast_level, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let at = centre_arg(l, st, &w, 1)?;
    Some(Out::Num(w.board.tabletop.level_at(at).into()))
});

tabletop_fn!(fast_through, |l, st| {
    let path = path_at(l, st, 1)?;
    let w = st.world.try_borrow().ok()?;
    let exclude = exclude_arg(l, st, &w, 2)?.map(|i| w.units[i].id.clone());
    let candidates = crate::lua::tabletop_api::through_candidates(&w, exclude.as_deref());
    let q = Query::Through(path_bits(&path), candidates.iter().map(|(i, s)| (*i, Rc::as_ptr(s) as usize)).collect());
    // The shapes to keep alive with a new answer (cloned only then).
    let shapes = candidates.iter().map(|(_, s)| s.clone());
    let Found::Crossings(found) = asked(st, &w, q, shapes, || {
        Found::Crossings(crate::lua::tabletop_api::through_rows(&path, &candidates).into())
    })?
    else {
        return None;
    };
    if found.len() > MAX_CROSSINGS {
        return None;
    }
    // Each crossing's cached handle, in order (a table read each: no
    // allocation); a unit without one goes to the full function, which makes it.
    for c in found.iter() {
        fast::push_unit(l, st, &w, c.key)?;
    }
    geo(Geo::Crossings(found.iter().map(|c| (c.base, c.from, c.to, c.amount)).collect()))
});

tabletop_fn!(fast_areas_crossed, |l, st| {
    let path = path_at(l, st, 1)?;
    let w = st.world.try_borrow().ok()?;
    let q = Query::AreasCrossed(path_bits(&path));
    let Found::Areas(rows) =
        asked(st, &w, q, None, || Found::Areas(crate::lua::tabletop_api::areas_crossed_rows(&w, &path).into()))?
    else {
        return None;
    };
    geo(Geo::Areas(rows.to_vec()))
});

/// The tabletop's fast paths, the calls rules make most first.
const FAST: &[(&CStr, ffi::lua_CFunction)] = &[
    (c"bearing", fast_bearing),
    (c"angle_between", fast_angle_between),
    (c"edges", fast_edges),
    (c"distance", fast_distance),
    (c"bases", fast_bases),
    (c"point", fast_point),
    (c"cover", fast_cover),
    (c"area_in_arc", fast_area_in_arc),
    (c"base", fast_base),
    (c"through", fast_through),
    (c"edge_towards", fast_edge_towards),
    (c"footprint", fast_footprint),
    (c"arc_of_fire", fast_arc_of_fire),
    (c"edge_arc", fast_edge_arc),
    (c"frontage_in_arc", fast_frontage_in_arc),
    (c"centre_line", fast_centre_line),
    (c"frontage_zone", fast_frontage_zone),
    (c"areas_crossed", fast_areas_crossed),
    (c"travel", fast_travel),
    (c"level", fast_level),
];

/// The names of the tabletop's fast paths (`tabletop.NAME`).
pub fn names() -> impl Iterator<Item = &'static str> {
    FAST.iter().map(|(name, _)| name.to_str().expect("ASCII name"))
}

/// Pins the key strings (always: the full functions' tables use them too)
/// and replaces the hot `tabletop` calls with their fast paths.
pub fn install(lua: &Lua, st: &Rc<State>, tabletop: &Table) -> mlua::Result<()> {
    let pinned = lua.create_table_with_capacity(KEYS.len(), 0)?;
    for k in KEYS {
        pinned.raw_push(k.to_str().expect("ASCII key"))?;
    }
    // Where each pinned key keeps its bytes, for the fast paths' field reads.
    // SAFETY: a protected call; the table's slots are strings, each read
    // onto the stack and popped.
    unsafe {
        lua.exec_raw::<()>((&pinned,), |l| {
            for (k, slot) in st.tabletop_keys.strings.iter().enumerate() {
                ffi::lua_rawgeti(l, 1, k as ffi::lua_Integer + 1);
                slot.set(stack::string_ptr(l, 2));
                ffi::lua_settop(l, 1);
            }
            ffi::lua_settop(l, 0);
        })?;
    }
    lua.set_named_registry_value(PINNED_KEYS, pinned)?;
    answer::keep_forms(lua, &st.tabletop_keys)?;
    for (name, f) in FAST {
        fast::install(lua, st, tabletop, name, *f)?;
    }
    Ok(())
}
