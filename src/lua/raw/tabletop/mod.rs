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
//! lifetime and `lua_rawgetfield`/`lua_rawsetfield` find them instead of
//! making them. That lets a fast path read fields of its argument tables
//! without allocating (it must not raise).
//!
//! The fast paths follow `fast`'s rule: the common valid case only (plain
//! tables without metatables, numbers that are numbers, cached unit
//! handles of tabletop units); anything else goes, arguments unchanged, to
//! the full function in `tabletop_api`, which owns every error message.

use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::c_int;
use std::rc::Rc;

use mlua::{ffi, Lua, Table};

use super::fast::{self, fast_fn, Frame, Out};
use crate::battlefield::World;
use crate::lua::tabletop_api::{check_angle, check_base, check_bearing, check_path, check_point, Shape};
use crate::lua::State;
use crate::tabletop::{self, Arc, Base, Path, Point, Segment, UnitShape};
use crate::unit::Position;

mod answer;
mod memo;
pub use answer::{crossings_table, frozen_table, push, table, AreaRow, Geo};
use answer::{KEYS, PINNED_KEYS};
pub use memo::{push_keep, Keep, Memo};
use memo::{Call, Key};

// ---- reading arguments without allocating (fast paths) ----

/// True when argument `i` is a table without a metatable (so a raw read
/// answers what an indexed read would).
fn plain_table(f: Frame<'_>, i: c_int) -> bool {
    let l = f.raw();
    // SAFETY: `i` is one of the call's first arguments or a slot this module
    // pushed (an acceptable index); `lua_getmetatable` pushes only when it
    // finds one, and that is popped.
    unsafe {
        if ffi::lua_type(l, i) != ffi::LUA_TTABLE {
            return false;
        }
        if ffi::lua_getmetatable(l, i) != 0 {
            ffi::lua_pop(l, 1);
            return false;
        }
    }
    true
}

/// A field of the plain table at `i`: `Ok(None)` when nil, `Ok(Some(x))`
/// for a number, `Err(())` for anything else.
fn num_field(f: Frame<'_>, i: c_int, k: &CStr) -> Result<Option<f64>, ()> {
    let l = f.raw();
    // SAFETY: a table at an acceptable index `i` (not relative to the top);
    // the key is pinned, so the lookup allocates nothing; one value is
    // pushed and popped.
    unsafe {
        let t = ffi::lua_rawgetfield(l, i, k.as_ptr());
        let out = match t {
            ffi::LUA_TNIL => Ok(None),
            ffi::LUA_TNUMBER => Ok(Some(ffi::lua_tonumberx(l, -1, std::ptr::null_mut()))),
            _ => Err(()),
        };
        ffi::lua_pop(l, 1);
        out
    }
}

/// A finite number field that must be there.
fn finite_field(f: Frame<'_>, i: c_int, k: &CStr) -> Option<f64> {
    num_field(f, i, k).ok()?.filter(|x| x.is_finite())
}

/// True when field `k` of the plain table at `i` is nil.
fn nil_field(f: Frame<'_>, i: c_int, k: &CStr) -> bool {
    let l = f.raw();
    // SAFETY: as for `num_field`.
    unsafe {
        let t = ffi::lua_rawgetfield(l, i, k.as_ptr());
        ffi::lua_pop(l, 1);
        t == ffi::LUA_TNIL
    }
}

/// A point table `{x=, y=}` at `i` (finite numbers, within the table's reach).
fn point_at(f: Frame<'_>, i: c_int) -> Option<Point> {
    if !plain_table(f, i) {
        return None;
    }
    check_point(Point::new(finite_field(f, i, c"x")?, finite_field(f, i, c"y")?)).ok()
}

/// A point table held in field `k` of the plain table at `i`.
fn point_field(f: Frame<'_>, i: c_int, k: &CStr) -> Option<Point> {
    let l = f.raw();
    // SAFETY: as for `num_field`; the pushed value is read at an absolute
    // index and popped on every path.
    unsafe {
        ffi::lua_rawgetfield(l, i, k.as_ptr());
        let at = ffi::lua_gettop(l);
        let p = point_at(f, at);
        ffi::lua_pop(l, 1);
        p
    }
}

/// A base table `{x=, y=, facing=?, width=, depth=}` at `i`, placed by its
/// centre (`front=` and `centre=` go to the full function).
fn base_at(f: Frame<'_>, i: c_int) -> Option<Base> {
    let width = finite_field(f, i, c"width")?;
    let depth = finite_field(f, i, c"depth")?;
    if !(width >= 0.0 && depth >= 0.0) {
        return None;
    }
    let facing = num_field(f, i, c"facing").ok()?.unwrap_or(0.0);
    if !facing.is_finite() || !nil_field(f, i, c"front") || !nil_field(f, i, c"centre") {
        return None;
    }
    let centre = Point::new(finite_field(f, i, c"x")?, finite_field(f, i, c"y")?);
    let b = Base::new(centre, facing, width, depth);
    check_base(&b).ok()?;
    Some(b)
}

/// Argument `i` as a point, a base or a tabletop unit, as
/// `tabletop_api::shape` reads it. With `strict`, a unit must have bases.
fn shape_arg(f: Frame<'_>, st: &State, w: &World, i: c_int, strict: bool) -> Option<Shape> {
    if let Some(b) = kept_base(f, st, w, i) {
        return Some(Shape::base(b));
    }
    if plain_table(f, i) {
        if nil_field(f, i, c"width") {
            return point_at(f, i).map(Shape::Point);
        }
        return Some(Shape::base(base_at(f, i)?));
    }
    let idx = fast::unit_arg(f, st, w, i)?;
    let Position::Table { at, .. } = w.units[idx].pos else {
        return None;
    };
    match w.unit_shape(idx) {
        Ok(shape) => Some(Shape::Bases(shape)),
        Err(_) if !strict => Some(Shape::Point(at)),
        Err(_) => None,
    }
}

/// Argument `i`'s centre, as `shape_arg(..).centre()` without building a
/// shape for a base table.
fn centre_arg(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Point> {
    if let Some(b) = kept_base(f, st, w, i) {
        return Some(b.centre);
    }
    if plain_table(f, i) && !nil_field(f, i, c"width") {
        return Some(base_at(f, i)?.centre);
    }
    Some(shape_arg(f, st, w, i, false)?.centre())
}

/// Argument `i`'s base when it is a base table of a kept answer (frozen, so
/// its fields still hold that base): no field to read.
fn kept_base(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Base> {
    // SAFETY: `i` is one of the call's first arguments (an acceptable index).
    let address = unsafe {
        if ffi::lua_type(f.raw(), i) != ffi::LUA_TTABLE {
            return None;
        }
        ffi::lua_topointer(f.raw(), i) as usize
    };
    st.tabletop_memo.try_borrow().ok()?.base_at(w, address)
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
    if plain_table(f, i) {
        return if nil_field(f, i, c"width") { None } else { Some(Bases::Base(base_at(f, i)?)) };
    }
    let idx = fast::unit_arg(f, st, w, i)?;
    if !matches!(w.units[idx].pos, Position::Table { .. }) {
        return None;
    }
    w.unit_shape(idx).ok().map(Bases::Unit)
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

/// Argument `i` as bases (a base table or a tabletop unit with bases).
fn bases_arg(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<Rc<UnitShape>> {
    match shape_arg(f, st, w, i, true)? {
        Shape::Bases(s) => Some(s),
        Shape::Point(_) => None,
    }
}

/// An arc table `{left=, right=, bearing=, angle=}` at `i`.
fn arc_at(f: Frame<'_>, i: c_int) -> Option<Arc> {
    if !plain_table(f, i) {
        return None;
    }
    let left = point_field(f, i, c"left")?;
    let right = point_field(f, i, c"right")?;
    let bearing = check_bearing("", num_field(f, i, c"bearing").ok()??).ok()?;
    let angle = check_angle(num_field(f, i, c"angle").ok()??).ok()?;
    Some(Arc { left, right, bearing: tabletop::normalise(bearing), angle })
}

/// A path table at `i`: `{kind="line"?, from=, to=}` or `{kind="zone", from=, bearing=, width=, length=}`.
fn path_at(f: Frame<'_>, i: c_int) -> Option<Path> {
    if !plain_table(f, i) {
        return None;
    }
    let l = f.raw();
    // SAFETY: as for `num_field`; a string's bytes are compared while it is
    // on the stack, then it is popped.
    let zone = unsafe {
        let t = ffi::lua_rawgetfield(l, i, c"kind".as_ptr());
        let kind = match t {
            ffi::LUA_TNIL => Some(false),
            ffi::LUA_TSTRING => {
                let mut len = 0usize;
                let p = ffi::lua_tolstring(l, -1, &mut len) as *const u8;
                match std::slice::from_raw_parts(p, len) {
                    b"line" => Some(false),
                    b"zone" => Some(true),
                    _ => None,
                }
            }
            _ => None,
        };
        ffi::lua_pop(l, 1);
        kind?
    };
    let from = point_field(f, i, c"from")?;
    if !zone {
        return Some(Path::Line(Segment::new(from, point_field(f, i, c"to")?)));
    }
    let bearing = num_field(f, i, c"bearing").ok()??;
    let width = num_field(f, i, c"width").ok()??;
    let length = num_field(f, i, c"length").ok()??;
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
    if !plain_table(f, i) {
        return None;
    }
    // SAFETY: as for `num_field`; the value is read at its absolute index
    // and popped on every path.
    unsafe {
        let t = ffi::lua_rawgetfield(l, i, c"exclude".as_ptr());
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
    let a = shape_arg(l, st, &w, 1, false)?;
    let b = shape_arg(l, st, &w, 2, false)?;
    Some(Out::Num(a.distance(&b)))
});

tabletop_fn!(fast_edges, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let footprint = match unit_or_base(l, st, &w, 1)? {
        Bases::Unit(s) => s.footprint,
        Bases::Base(b) => b,
    };
    kept(l, st, &w, Key::base(Call::Edges, &footprint), None, || Geo::Edges(footprint))
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

tabletop_fn!(fast_base, |l, _st| {
    if !plain_table(l, 1) {
        return None;
    }
    geo(Geo::Base(base_at(l, 1)?))
});

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
    let arc = arc_at(l, 1)?;
    let w = st.world.try_borrow().ok()?;
    Some(Out::Num(arc.area_fraction_of(&bases_arg(l, st, &w, 2)?.bases)))
});

tabletop_fn!(fast_through, |l, st| {
    let path = path_at(l, 1)?;
    let w = st.world.try_borrow().ok()?;
    let exclude = exclude_arg(l, st, &w, 2)?.map(|i| w.units[i].id.clone());
    let found = crate::lua::tabletop_api::through_rows(&w, &path, exclude.as_deref());
    if found.len() > MAX_CROSSINGS {
        return None;
    }
    // Each crossing's cached handle, in order (a table read each: no
    // allocation); a unit without one goes to the full function, which makes it.
    for c in &found {
        fast::push_unit(l, st, &w, c.key)?;
    }
    geo(Geo::Crossings(found.iter().map(|c| (c.base, c.from, c.to, c.amount)).collect()))
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
    lua.set_named_registry_value(PINNED_KEYS, pinned)?;
    for (name, f) in FAST {
        fast::install(lua, st, tabletop, name, *f)?;
    }
    Ok(())
}
