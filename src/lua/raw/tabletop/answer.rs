//! Tabletop answers built on the Lua stack (see the parent module's notes):
//! one [`Geo`] value per answer, pushed with `lua_createtable` (sized up
//! front) and `lua_rawset`, each key's pinned string pushed straight onto
//! the stack (`push_key`) rather than made again from its text.

use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::c_int;
use std::rc::Rc;

use mlua::{ffi, Lua, Table};

use super::super::stack;
use crate::lua::State;
use crate::tabletop::{self, Arc, Base, Edge, Path, Point, Segment, UnitShape};

/// Declares [`K`], the keys the pushers and readers use, and [`KEYS`],
/// their strings in the same order.
macro_rules! keys {
    ($($k:ident = $s:literal),* $(,)?) => {
        /// A key of [`KEYS`], by name (`K::X as usize` is its place).
        #[derive(Clone, Copy, Debug)]
        pub enum K { $($k),* }

        /// Every key string the pushers and readers use (pinned by `install`).
        pub(super) const KEYS: &[&CStr] = &[$($s),*];
    };
}

keys! {
    X = c"x",
    Y = c"y",
    Facing = c"facing",
    Width = c"width",
    Depth = c"depth",
    A = c"a",
    B = c"b",
    Front = c"front",
    Right = c"right",
    Rear = c"rear",
    Left = c"left",
    Centre = c"centre",
    Bearing = c"bearing",
    Angle = c"angle",
    Kind = c"kind",
    Level = c"level",
    Cover = c"cover",
    Name = c"name",
    Fraction = c"fraction",
    From = c"from",
    To = c"to",
    Unit = c"unit",
    Base = c"base",
    Amount = c"amount",
    Length = c"length",
    Line = c"line",
    Zone = c"zone",
    Exclude = c"exclude",
    Id = c"id",
}

/// How many keys [`KEYS`] has (`State::tabletop_keys` holds one address each).
pub const KEY_COUNT: usize = KEYS.len();

/// What the pushers need of the state (`State::tabletop_keys`): where each
/// key's pinned string keeps its bytes (0 for one not pinned, pushed
/// through the API then), and the kept template of each [`Form`].
pub struct Keys {
    pub strings: [Cell<usize>; KEY_COUNT],
    pub forms: [Cell<Template>; FORMS.len()],
}

impl Default for Keys {
    fn default() -> Self {
        Keys { strings: std::array::from_fn(|_| Cell::new(0)), forms: Default::default() }
    }
}

/// The answer tables made by cloning a kept template (`lua_clonetable`,
/// one copy of its nodes) and writing the numbers into the copy's nodes in
/// place, instead of setting each key (`lua_rawset` finds the key's node and
/// links it in, about 150 instructions a key). The template is built by the
/// same pushes with every number 0, so the copy's nodes are laid out as a
/// table built key by key would be (the same `pairs` order, and the same
/// room for keys a script adds).
#[derive(Clone, Copy, Debug)]
pub enum Form {
    /// `{x=, y=}`.
    Point,
    /// `{x=, y=, facing=, width=, depth=}`.
    Base,
    /// `{left=, right=, bearing=, angle=}`.
    Arc,
    /// `{kind="line", from=, to=}`.
    Line,
    /// `{kind="zone", from=, bearing=, width=, length=}`.
    Zone,
    /// `through`'s row: `{unit=, base=, from=, to=, amount=}`.
    Crossing,
}

/// Every [`Form`], in order, with its keys in the order they are set.
const FORMS: [(Form, &[K]); 6] = [
    (Form::Point, &[K::X, K::Y]),
    (Form::Base, &[K::X, K::Y, K::Facing, K::Width, K::Depth]),
    (Form::Arc, &[K::Left, K::Right, K::Bearing, K::Angle]),
    (Form::Line, &[K::Kind, K::From, K::To]),
    (Form::Zone, &[K::Kind, K::From, K::Bearing, K::Width, K::Length]),
    (Form::Crossing, &[K::Unit, K::Base, K::From, K::To, K::Amount]),
];

/// A kept template: its table's address (0: none kept) and the node of
/// each of its form's keys, in the form's order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Template {
    table: usize,
    nodes: [u8; 5],
}

/// The registry name of the table that keeps the templates alive.
pub(super) const KEPT_FORMS: &str = "sandtable.tabletop_forms";

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
    /// `tabletop.edge_towards`: two values, the edge's name and its segment.
    EdgeTowards(Edge, Segment),
    /// `tabletop.through`: (base number, from, to, amount) per crossing,
    /// with the crossing's unit handle already on the stack, one per row in
    /// order, just below where the answer goes (they are replaced by it).
    Crossings(Vec<(usize, f64, f64, f64)>),
}

/// Makes the Lua table for `g` (one protected call for the whole answer).
pub fn table(lua: &Lua, g: &Geo) -> mlua::Result<Table> {
    let keys = host_keys(lua);
    // SAFETY: a protected call on a live state; `push` pushes exactly one
    // value and checks the stack space it needs first.
    unsafe {
        lua.exec_raw::<Table>((), |l| {
            push(l, &keys, g);
        })
    }
}

/// The host state's key addresses and templates (none, keys pushed
/// through the API and tables built key by key, for a Lua state without one).
fn host_keys(lua: &Lua) -> Keys {
    let Some(st) = lua.app_data_ref::<Rc<State>>() else {
        return Keys::default();
    };
    let kept = &st.tabletop_keys;
    Keys {
        strings: std::array::from_fn(|k| Cell::new(kept.strings[k].get())),
        forms: std::array::from_fn(|f| Cell::new(kept.forms[f].get())),
    }
}

/// Builds and keeps every form's template (`install`, once the key strings
/// are pinned and noted in `keys`), in a table the registry holds.
pub(super) fn keep_forms(lua: &Lua, keys: &Keys) -> mlua::Result<()> {
    let kept = lua.create_table()?;
    for (f, (form, order)) in FORMS.iter().enumerate() {
        // SAFETY: a protected call; `push_form_keys` pushes one table, which
        // is returned; the nodes are read from it while it is on the stack.
        let template: Table = unsafe {
            lua.exec_raw((), |l| {
                push_form_keys(l, keys, *form);
                let mut t = Template { table: ffi::lua_topointer(l, -1) as usize, nodes: [0; 5] };
                if let Some(table) = stack::in_place_table(l, ffi::lua_gettop(l)) {
                    for (n, k) in t.nodes.iter_mut().zip(order.iter()) {
                        let at = keys.strings[*k as usize].get();
                        match (at != 0).then(|| table.node_of(at)).flatten().and_then(|i| u8::try_from(i).ok()) {
                            Some(i) => *n = i,
                            None => t.table = 0,
                        }
                    }
                } else {
                    t.table = 0;
                }
                keys.forms[f].set(t);
            })?
        };
        kept.raw_push(template)?;
    }
    lua.set_named_registry_value(KEPT_FORMS, kept)
}

/// Pushes a table of form `f` built key by key, every number 0 (and `kind`
/// its text): a template, or an answer when no template is kept.
///
/// # Safety
/// As for [`push`].
unsafe fn push_form_keys(l: *mut ffi::lua_State, keys: &Keys, f: Form) {
    let (_, order) = FORMS[f as usize];
    // The room the answers were always made with: a base's has one more,
    // for the `id` a unit's bases carry.
    let room = if matches!(f, Form::Base) { 6 } else { order.len() };
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, 0, room as c_int);
        for &k in order {
            match (f, k) {
                (Form::Line, K::Kind) => set_str(l, keys, k, "line"),
                (Form::Zone, K::Kind) => set_str(l, keys, k, "zone"),
                _ => set_num(l, keys, k, 0.0),
            }
        }
    }
}

/// A new table of some [`Form`] on top of the stack, every number 0 until
/// written with [`Fresh::num`] (its other fields are set by key).
#[derive(Clone, Copy)]
struct Fresh {
    /// The copy of the template, written in place; `None` for a table
    /// built key by key (no template kept, or Luau's layout not trusted).
    copy: Option<stack::InPlace>,
    nodes: [u8; 5],
    form: Form,
}

impl Fresh {
    /// Sets the form's `i`th key to the number `x`.
    ///
    /// # Safety
    /// The table is alive and not frozen (the newest answer, on the stack);
    /// for a table built key by key, as for [`set_num`] with it on top.
    unsafe fn num(self, l: *mut ffi::lua_State, keys: &Keys, i: usize, x: f64) {
        // SAFETY: the caller's contract; a copy's node holds the template's 0.
        unsafe {
            match self.copy {
                Some(t) => t.set_node_number(self.nodes[i] as usize, x),
                None => set_num(l, keys, FORMS[self.form as usize].1[i], x),
            }
        }
    }
}

/// Pushes a new table of form `f`: a copy of its template when one is kept
/// and Luau's layout is trusted, else built key by key.
///
/// # Safety
/// As for [`push`].
unsafe fn push_form(l: *mut ffi::lua_State, keys: &Keys, f: Form) -> Fresh {
    let t = keys.forms[f as usize].get();
    // SAFETY: the caller's contract; the template is kept alive by the
    // registry's table of forms, and no script can reach it.
    unsafe {
        if t.table != 0 && stack::push_kept_table(l, t.table) {
            ffi::lua_clonetable(l, -1);
            ffi::lua_replace(l, -2);
            if let Some(copy) = stack::in_place_table(l, ffi::lua_gettop(l)) {
                return Fresh { copy: Some(copy), nodes: t.nodes, form: f };
            }
            ffi::lua_pop(l, 1);
        }
        push_form_keys(l, keys, f);
        Fresh { copy: None, nodes: t.nodes, form: f }
    }
}

/// Makes the Lua table for `g`, frozen (read-only, and every table inside
/// it): the answers `memo` keeps, and the same answers from the full
/// functions, so that a script sees the same whichever made them.
pub fn frozen_table(lua: &Lua, g: &Geo) -> mlua::Result<Table> {
    let keys = host_keys(lua);
    // SAFETY: as for `table`; `freeze` keeps the answer on top.
    unsafe {
        lua.exec_raw::<Table>((), |l| {
            push(l, &keys, g);
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
    let keys = host_keys(lua);
    // SAFETY: a protected call with the handles as its only arguments, as
    // `Geo::Crossings` wants them; `push` leaves the answer alone on the stack.
    unsafe {
        lua.exec_raw::<Table>(mlua::Variadic::from_iter(handles), |l| {
            push(l, &keys, &g);
        })
    }
}

/// Pushes the table for `g` (and, for `EdgeTowards`, the name before it);
/// returns how many values it pushed.
///
/// # Safety
/// `l` is a live state where raising an error is allowed (a protected call,
/// or a fast function after its borrows ended).
pub unsafe fn push(l: *mut ffi::lua_State, keys: &Keys, g: &Geo) -> c_int {
    // SAFETY: the caller's contract; the nesting is at most four deep (a
    // key and a table at each level, and a value), and the stack check
    // makes room for it.
    unsafe {
        ffi::luaL_checkstack(l, 8, std::ptr::null());
        match g {
            Geo::Point(p) => push_point(l, keys, *p),
            Geo::Base(b) => push_base(l, keys, b),
            Geo::Segment(s) => push_segment(l, keys, *s),
            Geo::EdgeTowards(e, s) => {
                push_key(l, keys, edge_key(*e));
                push_segment(l, keys, *s);
                return 2;
            }
            Geo::Edges(b) => {
                ffi::lua_createtable(l, 0, 4);
                for e in Edge::ALL {
                    push_key(l, keys, edge_key(e));
                    push_segment(l, keys, b.edge(e));
                    ffi::lua_rawset(l, -3);
                }
            }
            Geo::Bases(list, ids) => push_bases(l, keys, list, ids),
            Geo::Shape(s) => push_bases(l, keys, &s.bases, &s.ids),
            Geo::Arc(a) => {
                let t = push_form(l, keys, Form::Arc);
                t.num(l, keys, 2, a.bearing);
                t.num(l, keys, 3, a.angle);
                set_point(l, keys, K::Left, a.left);
                set_point(l, keys, K::Right, a.right);
            }
            Geo::Path(Path::Line(s)) => {
                push_form(l, keys, Form::Line);
                set_point(l, keys, K::From, s.a);
                set_point(l, keys, K::To, s.b);
            }
            Geo::Path(Path::Zone { from, bearing, width, length }) => {
                let t = push_form(l, keys, Form::Zone);
                t.num(l, keys, 2, *bearing);
                t.num(l, keys, 3, *width);
                t.num(l, keys, 4, *length);
                set_point(l, keys, K::From, *from);
            }
            Geo::Crossings(rows) => {
                let n = rows.len() as c_int;
                let first = ffi::lua_gettop(l) - n + 1;
                ffi::lua_createtable(l, n, 0);
                for (i, &(base, from, to, amount)) in rows.iter().enumerate() {
                    let t = push_form(l, keys, Form::Crossing);
                    t.num(l, keys, 1, (base + 1) as f64);
                    t.num(l, keys, 2, from);
                    t.num(l, keys, 3, to);
                    t.num(l, keys, 4, amount);
                    // The handle, a collectable value, through the API (its barrier).
                    push_key(l, keys, K::Unit);
                    ffi::lua_pushvalue(l, first + i as c_int);
                    ffi::lua_rawset(l, -3);
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
                    push_area(l, keys, r);
                    ffi::lua_rawseti(l, -2, i as ffi::lua_Integer + 1);
                }
            }
        }
        1
    }
}

fn edge_key(e: Edge) -> K {
    match e {
        Edge::Front => K::Front,
        Edge::Right => K::Right,
        Edge::Rear => K::Rear,
        Edge::Left => K::Left,
    }
}

/// Pushes key `k`: its pinned string straight onto the stack, or, when the
/// direct stack access is off, through the API (which hashes the text).
///
/// # Safety
/// A live state with a free slot, where raising is allowed.
unsafe fn push_key(l: *mut ffi::lua_State, keys: &Keys, k: K) {
    let data = keys.strings[k as usize].get();
    // SAFETY: the caller's contract; `data` is where a string pinned by
    // `install` keeps its bytes (the registry keeps it alive and reachable).
    unsafe {
        if data == 0 || !stack::push_kept_string(l, data) {
            ffi::lua_pushstring(l, KEYS[k as usize].as_ptr());
        }
    }
}

/// Sets `t[k] = v` on the table on top.
///
/// # Safety
/// A table on top and a free slot.
unsafe fn set_num(l: *mut ffi::lua_State, keys: &Keys, k: K, v: f64) {
    // SAFETY: the caller's contract.
    unsafe {
        push_key(l, keys, k);
        ffi::lua_pushnumber(l, v);
        ffi::lua_rawset(l, -3);
    }
}

/// Sets `t[k] = s` on the table on top.
///
/// # Safety
/// As for [`set_num`] (a table on top and two free slots), where raising is allowed (the string is new).
unsafe fn set_str(l: *mut ffi::lua_State, keys: &Keys, k: K, s: &str) {
    // SAFETY: the caller's contract.
    unsafe {
        push_key(l, keys, k);
        ffi::lua_pushlstring(l, s.as_ptr().cast(), s.len());
        ffi::lua_rawset(l, -3);
    }
}

/// Sets `t[k] = {x = p.x, y = p.y}` on the table on top.
///
/// # Safety
/// As for [`push`], with four free slots.
unsafe fn set_point(l: *mut ffi::lua_State, keys: &Keys, k: K, p: Point) {
    // SAFETY: the caller's contract.
    unsafe {
        push_key(l, keys, k);
        push_point(l, keys, p);
        ffi::lua_rawset(l, -3);
    }
}

/// # Safety
/// As for [`push`], with three free slots.
unsafe fn push_point(l: *mut ffi::lua_State, keys: &Keys, p: Point) {
    // SAFETY: the caller's contract.
    unsafe {
        let t = push_form(l, keys, Form::Point);
        t.num(l, keys, 0, p.x);
        t.num(l, keys, 1, p.y);
    }
}

/// # Safety
/// As for [`push`], with three free slots.
unsafe fn push_base(l: *mut ffi::lua_State, keys: &Keys, b: &Base) {
    // SAFETY: the caller's contract.
    unsafe {
        let t = push_form(l, keys, Form::Base);
        for (i, x) in [b.centre.x, b.centre.y, b.facing, b.width, b.depth].into_iter().enumerate() {
            t.num(l, keys, i, x);
        }
    }
}

/// # Safety
/// As for [`push`], with four free slots.
unsafe fn push_bases(l: *mut ffi::lua_State, keys: &Keys, list: &[Base], ids: &[u16]) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, list.len() as c_int, 0);
        for (i, b) in list.iter().enumerate() {
            push_base(l, keys, b);
            if let Some(id) = ids.get(i) {
                set_num(l, keys, K::Id, *id as f64);
            }
            ffi::lua_rawseti(l, -2, i as ffi::lua_Integer + 1);
        }
    }
}

/// # Safety
/// As for [`push`], with five free slots.
unsafe fn push_segment(l: *mut ffi::lua_State, keys: &Keys, s: Segment) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, 0, 2);
        set_point(l, keys, K::A, s.a);
        set_point(l, keys, K::B, s.b);
    }
}

/// # Safety
/// As for [`push`], with three free slots.
unsafe fn push_area(l: *mut ffi::lua_State, keys: &Keys, r: &AreaRow) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_createtable(l, 0, 7);
        set_str(l, keys, K::Kind, &r.kind);
        set_num(l, keys, K::Level, r.level as f64);
        if let Some(c) = &r.cover {
            set_str(l, keys, K::Cover, c);
        }
        if let Some(n) = &r.name {
            set_str(l, keys, K::Name, n);
        }
        if let Some(f) = r.fraction {
            set_num(l, keys, K::Fraction, f);
        }
        if let Some((from, to, amount)) = r.span {
            set_num(l, keys, K::From, from);
            set_num(l, keys, K::To, to);
            set_num(l, keys, K::Amount, amount);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_are_listed_in_their_order_with_room_for_their_numbers() {
        for (i, (form, order)) in FORMS.iter().enumerate() {
            assert_eq!(*form as usize, i, "{form:?}");
            assert!(order.len() <= Template::default().nodes.len(), "{form:?}");
        }
    }
}
