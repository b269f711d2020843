//! Tabletop answers built on the Lua stack (see the parent module's notes):
//! one [`Geo`] value per answer, pushed with `lua_createtable` (sized up
//! front) and `lua_rawsetfield` on keys pinned by `install`.

use std::ffi::CStr;
use std::os::raw::c_int;
use std::rc::Rc;

use mlua::{ffi, Lua, Table};

use crate::tabletop::{self, Arc, Base, Edge, Path, Point, Segment, UnitShape};

/// Every key string the pushers and readers use (pinned by [`install`]).
pub(super) const KEYS: &[&CStr] = &[
    c"x",
    c"y",
    c"facing",
    c"width",
    c"depth",
    c"a",
    c"b",
    c"front",
    c"right",
    c"rear",
    c"left",
    c"centre",
    c"bearing",
    c"angle",
    c"kind",
    c"level",
    c"cover",
    c"name",
    c"fraction",
    c"from",
    c"to",
    c"unit",
    c"base",
    c"amount",
    c"length",
    c"line",
    c"zone",
    c"exclude",
    c"id",
];

/// The registry name of the table that pins [`KEYS`].
pub(super) const PINNED_KEYS: &str = "sandtable.tabletop_keys";

/// A terrain area's row in an answer (`tabletop.cover`, `areas_crossed`).
#[derive(Clone, Debug)]
pub struct AreaRow {
    pub kind: Rc<str>,
    pub level: i32,
    pub cover: Option<Rc<str>>,
    pub name: Option<Rc<str>>,
    /// `fraction=` (cover).
    pub fraction: Option<f64>,
    /// `from=`, `to=`, `amount=` (areas crossed: where the path enters and
    /// leaves, and the length of line or the area of zone inside).
    pub span: Option<(f64, f64, f64)>,
}

impl AreaRow {
    pub fn new(a: &tabletop::Area) -> AreaRow {
        AreaRow {
            kind: a.kind.clone(),
            level: a.level,
            cover: a.cover.clone(),
            name: a.name.clone(),
            fraction: None,
            span: None,
        }
    }
}

/// One answer of a tabletop call, as Lua sees it.
pub enum Geo {
    Point(Point),
    Base(Base),
    Segment(Segment),
    /// `{front=, right=, rear=, left=}`, each `{a=, b=}`.
    Edges(Base),
    /// Bases, and their ids when they are a unit's (empty: none).
    Bases(Vec<Base>, Vec<u16>),
    /// A unit's bases as the world keeps them (or one base), as `Bases`.
    Shape(Rc<UnitShape>),
    Arc(Arc),
    Path(Path),
    Areas(Vec<AreaRow>),
    /// `tabletop.through`: (base number, from, to, amount) per crossing,
    /// with the crossing's unit handle already on the stack, one per row in
    /// order, just below where the answer goes (they are replaced by it).
    Crossings(Vec<(usize, f64, f64, f64)>),
}

/// Makes the Lua table for `g` (one protected call for the whole answer).
pub fn table(lua: &Lua, g: &Geo) -> mlua::Result<Table> {
    // SAFETY: a protected call on a live state; `push` pushes exactly one
    // value and checks the stack space it needs first.
    unsafe { lua.exec_raw::<Table>((), |l| push(l, g)) }
}

/// Makes the Lua table for `g`, frozen (read-only, and every table inside
/// it): the answers `memo` keeps, and the same answers from the full
/// functions, so that a script sees the same whichever made them.
pub fn frozen_table(lua: &Lua, g: &Geo) -> mlua::Result<Table> {
    // SAFETY: as for `table`; `freeze` keeps the answer on top.
    unsafe {
        lua.exec_raw::<Table>((), |l| {
            push(l, g);
            freeze(l, -1);
        })
    }
}

/// Makes the table at `idx` read-only, and every table inside it.
///
/// # Safety
/// A table at `idx`, where raising is allowed (the stack may grow).
pub unsafe fn freeze(l: *mut ffi::lua_State, idx: c_int) {
    // SAFETY: the caller's contract; `lua_next` walks the table, each
    // value popped before the next step, and answers nest at most four deep.
    unsafe {
        let idx = ffi::lua_absindex(l, idx);
        ffi::luaL_checkstack(l, 3, std::ptr::null());
        ffi::lua_setreadonly(l, idx, 1);
        ffi::lua_pushnil(l);
        while ffi::lua_next(l, idx) != 0 {
            if ffi::lua_type(l, -1) == ffi::LUA_TTABLE && ffi::lua_getreadonly(l, -1) == 0 {
                freeze(l, -1);
            }
            ffi::lua_pop(l, 1);
        }
    }
}

/// `tabletop.through`'s answer: `rows[i]` is (base number, from, to,
/// amount) for `handles[i]`.
pub fn crossings_table(
    lua: &Lua,
    handles: Vec<mlua::AnyUserData>,
    rows: Vec<(usize, f64, f64, f64)>,
) -> mlua::Result<Table> {
    let g = Geo::Crossings(rows);
    // SAFETY: a protected call with the handles as its only arguments, as
    // `Geo::Crossings` wants them; `push` leaves the answer alone on the stack.
    unsafe { lua.exec_raw::<Table>(mlua::Variadic::from_iter(handles), |l| push(l, &g)) }
}

/// Pushes the table for `g`.
///
/// # Safety
/// `l` is a live state where raising an error is allowed (a protected call,
/// or a fast function after its borrows ended).
pub unsafe fn push(l: *mut ffi::lua_State, g: &Geo) {
    // SAFETY: the caller's contract; the nesting is at most four deep, and
    // the stack check makes room for it.
    unsafe {
        ffi::luaL_checkstack(l, 6, std::ptr::null());
        match g {
            Geo::Point(p) => push_point(l, *p),
            Geo::Base(b) => push_base(l, b),
            Geo::Segment(s) => push_segment(l, *s),
            Geo::Edges(b) => {
                ffi::lua_createtable(l, 0, 4);
                for e in Edge::ALL {
                    push_segment(l, b.edge(e));
                    ffi::lua_rawsetfield(l, -2, key(e));
                }
            }
            Geo::Bases(list, ids) => push_bases(l, list, ids),
            Geo::Shape(s) => push_bases(l, &s.bases, &s.ids),
            Geo::Arc(a) => {
                ffi::lua_createtable(l, 0, 4);
                push_point(l, a.left);
                ffi::lua_rawsetfield(l, -2, c"left".as_ptr());
                push_point(l, a.right);
                ffi::lua_rawsetfield(l, -2, c"right".as_ptr());
                set_num(l, c"bearing", a.bearing);
                set_num(l, c"angle", a.angle);
            }
            Geo::Path(Path::Line(s)) => {
                ffi::lua_createtable(l, 0, 3);
                set_str(l, c"kind", "line");
                push_point(l, s.a);
                ffi::lua_rawsetfield(l, -2, c"from".as_ptr());
                push_point(l, s.b);
                ffi::lua_rawsetfield(l, -2, c"to".as_ptr());
            }
            Geo::Path(Path::Zone { from, bearing, width, length }) => {
                ffi::lua_createtable(l, 0, 5);
                set_str(l, c"kind", "zone");
                push_point(l, *from);
                ffi::lua_rawsetfield(l, -2, c"from".as_ptr());
                set_num(l, c"bearing", *bearing);
                set_num(l, c"width", *width);
                set_num(l, c"length", *length);
            }
            Geo::Crossings(rows) => {
                let n = rows.len() as c_int;
                let first = ffi::lua_gettop(l) - n + 1;
                ffi::lua_createtable(l, n, 0);
                for (i, &(base, from, to, amount)) in rows.iter().enumerate() {
                    ffi::lua_createtable(l, 0, 5);
                    ffi::lua_pushvalue(l, first + i as c_int);
                    ffi::lua_rawsetfield(l, -2, c"unit".as_ptr());
                    set_num(l, c"base", (base + 1) as f64);
                    set_num(l, c"from", from);
                    set_num(l, c"to", to);
                    set_num(l, c"amount", amount);
                    ffi::lua_rawseti(l, -2, i as ffi::lua_Integer + 1);
                }
                // The answer alone: the handles it was built from go.
                if n > 0 {
                    ffi::lua_replace(l, first);
                    ffi::lua_settop(l, first);
                }
            }
            Geo::Areas(rows) => {
                ffi::lua_createtable(l, rows.len() as c_int, 0);
                for (i, r) in rows.iter().enumerate() {
                    push_area(l, r);
                    ffi::lua_rawseti(l, -2, i as ffi::lua_Integer + 1);
                }
            }
        }
    }
}

fn key(e: Edge) -> *const std::os::raw::c_char {
    match e {
        Edge::Front => c"front".as_ptr(),
        Edge::Right => c"right".as_ptr(),
        Edge::Rear => c"rear".as_ptr(),
        Edge::Left => c"left".as_ptr(),
    }
}

/// Sets `t[k] = v` on the table on top.
///
/// # Safety
/// A table on top and a free slot.
unsafe fn set_num(l: *mut ffi::lua_State, k: &CStr, v: f64) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_pushnumber(l, v);
        ffi::lua_rawsetfield(l, -2, k.as_ptr());
    }
}

/// Sets `t[k] = s` on the table on top.
///
/// # Safety
/// As for [`set_num`], where raising is allowed (the string is new).
unsafe fn set_str(l: *mut ffi::lua_State, k: &CStr, s: &str) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_pushlstring(l, s.as_ptr().cast(), s.len());
        ffi::lua_rawsetfield(l, -2, k.as_ptr());
    }
}

/// # Safety
/// As for [`push`], with two free slots.
unsafe fn push_point(l: *mut ffi::lua_State, p: Point) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, 0, 2);
        set_num(l, c"x", p.x);
        set_num(l, c"y", p.y);
    }
}

/// # Safety
/// As for [`push`], with two free slots.
unsafe fn push_base(l: *mut ffi::lua_State, b: &Base) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, 0, 6);
        set_num(l, c"x", b.centre.x);
        set_num(l, c"y", b.centre.y);
        set_num(l, c"facing", b.facing);
        set_num(l, c"width", b.width);
        set_num(l, c"depth", b.depth);
    }
}

/// # Safety
/// As for [`push`], with three free slots.
unsafe fn push_bases(l: *mut ffi::lua_State, list: &[Base], ids: &[u16]) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, list.len() as c_int, 0);
        for (i, b) in list.iter().enumerate() {
            push_base(l, b);
            if let Some(id) = ids.get(i) {
                set_num(l, c"id", *id as f64);
            }
            ffi::lua_rawseti(l, -2, i as ffi::lua_Integer + 1);
        }
    }
}

/// # Safety
/// As for [`push`], with three free slots.
unsafe fn push_segment(l: *mut ffi::lua_State, s: Segment) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, 0, 2);
        push_point(l, s.a);
        ffi::lua_rawsetfield(l, -2, c"a".as_ptr());
        push_point(l, s.b);
        ffi::lua_rawsetfield(l, -2, c"b".as_ptr());
    }
}

/// # Safety
/// As for [`push`], with two free slots.
unsafe fn push_area(l: *mut ffi::lua_State, r: &AreaRow) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, 0, 7);
        set_str(l, c"kind", &r.kind);
        set_num(l, c"level", r.level as f64);
        if let Some(c) = &r.cover {
            set_str(l, c"cover", c);
        }
        if let Some(n) = &r.name {
            set_str(l, c"name", n);
        }
        if let Some(f) = r.fraction {
            set_num(l, c"fraction", f);
        }
        if let Some((from, to, amount)) = r.span {
            set_num(l, c"from", from);
            set_num(l, c"to", to);
            set_num(l, c"amount", amount);
        }
    }
}
