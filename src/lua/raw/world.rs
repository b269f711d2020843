//! The world's fast paths (see `lua::fast`): the calls a rule makes for
//! every hex it resolves. Each handles the common case and leaves everything
//! else, errors included, to the full function.

use std::ffi::CStr;
use std::rc::Rc;

use mlua::{ffi, Function, Lua, Table};

use super::fast::{self, fast_fn, Out};
use crate::battlefield::Edge;
use crate::lua::world::{UnitRef, UNIT_FIELDS};
use crate::lua::State;
use crate::unit::{Position, Prop};

fast_fn!(fast_unit_at, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    match w.unit_at(h) {
        None => Some(Out::Nil),
        Some(i) => fast::push_unit(l, st, &w, i),
    }
});

// `world:at(h, token...)`: the unit, its side, the terrain, then one boolean
// per token named (at most `MAX_BOOLS` names, all strings).
fast_fn!(fast_at, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let n_bools = usize::try_from(l.top() - 2).ok()?;
    if n_bools > fast::MAX_BOOLS {
        return None;
    }
    let w = st.world.try_borrow().ok()?;
    let mut bools = [false; fast::MAX_BOOLS];
    for (k, b) in bools.iter_mut().enumerate().take(n_bools) {
        *b = w.has_token(h, fast::str_arg(l, 3 + k as std::os::raw::c_int)?);
    }
    // The values go straight onto the stack (a C function has 20 free
    // slots; at most 3 + MAX_BOOLS are pushed), names from the kept strings.
    let raw = l.raw();
    let unit = w.unit_at(h);
    // SAFETY: pushes within the frame's free slots; upvalue 4 is the names
    // table `push_name` needs (a frame of a function made by `make`).
    unsafe {
        match unit {
            None => {
                super::stack::raw::push_nil(raw);
                super::stack::raw::push_nil(raw);
            }
            Some(i) => {
                fast::push_unit(l, st, &w, i)?;
                fast::push_name_ref(raw, st, &w.units[i].side);
            }
        }
        match w.terrain(h) {
            Some(t) => fast::push_name_ref(raw, st, t),
            None => super::stack::raw::push_nil(raw),
        }
        for &b in &bools[..n_bools] {
            super::stack::raw::push_bool(raw, b);
        }
    }
    Some(Out::Pushed(3 + n_bools as std::os::raw::c_int))
});

// `world:units{side=, type=, hex=, all=}`: a filter table without metatable
// whose `side` and `type` are strings or nil, `hex` a hex or nil and `all` a
// boolean or nil (anything else is the full function's), and every matching
// unit's handle cached.
fast_fn!(fast_units, |l, st| {
    let (mut side, mut kind, mut all, mut at) = (None, None, false, None);
    match l.type_of(2) {
        ffi::LUA_TNONE | ffi::LUA_TNIL => {}
        ffi::LUA_TTABLE => {
            // SAFETY: argument 2 is a table; the four fields are read raw
            // (no metamethod; a key's string is made on the first call
            // only, no borrow held) into slots 3..=6 above it when it is the
            // last argument, within the frame's room.
            unsafe {
                let raw = l.raw();
                if l.top() != 2 || ffi::lua_getmetatable(raw, 2) != 0 {
                    return None;
                }
                // The keys are pushed as kept strings: `lua_rawgetfield`
                // hashes its C text into a Lua string on every read.
                let wants = [ffi::LUA_TSTRING, ffi::LUA_TSTRING, ffi::LUA_TBOOLEAN, ffi::LUA_TVECTOR];
                let fits = UNITS_KEYS.with(|keys| {
                    keys.iter().zip(wants).all(|(key, want)| {
                        fast::push_name_ref(raw, st, key);
                        let t = ffi::lua_rawget(raw, 2);
                        t == ffi::LUA_TNIL || t == want
                    })
                });
                if !fits {
                    return None;
                }
            }
            // The strings stay on the stack (slots 3 and 4) while the call
            // runs; text that is not UTF-8 is the full function's error.
            let text = |i| if l.type_of(i) == ffi::LUA_TSTRING { fast::str_arg(l, i).map(Some) } else { Some(None) };
            side = text(3)?;
            kind = text(4)?;
            all = l.type_of(5) == ffi::LUA_TBOOLEAN && {
                // SAFETY: slot 5 holds a boolean.
                unsafe { ffi::lua_toboolean(l.raw(), 5) != 0 }
            };
            // A hex that is not one (fractional coordinates) is the full function's error.
            if l.type_of(6) == ffi::LUA_TVECTOR {
                at = Some(fast::hex_arg(l, 6)?);
            }
        }
        _ => return None,
    }
    let w = st.world.try_borrow().ok()?;
    let mut found = Vec::new();
    for (i, u) in w.units.iter().enumerate() {
        if (all || u.alive())
            && side.is_none_or(|s| crate::battlefield::same_name(&u.side, s))
            && kind.is_none_or(|t| crate::battlefield::same_name(&u.kind, t))
            && at.is_none_or(|h| u.hex() == Some(h))
        {
            // Only units whose handle is cached: the full function makes the others.
            fast::cached_unit(st, &w, i)?;
            found.push(i);
        }
    }
    Some(Out::Units(found))
});

thread_local! {
    /// The keys of `world:units`' filter, in the order of its slots 3..=6,
    /// as shared names (see `fast::push_name_ref`).
    static UNITS_KEYS: [Rc<str>; 4] = ["side", "type", "all", "hex"].map(Rc::from);
}

fast_fn!(fast_has_token, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let t = fast::str_arg(l, 3)?;
    let w = st.world.try_borrow().ok()?;
    Some(Out::Bool(w.has_token(h, t)))
});

fast_fn!(fast_add_token, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let t = fast::str_arg(l, 3)?;
    // A token the ruleset declares, on the map (else the full function's error).
    if !st.ruleset.try_borrow().ok()?.as_ref().is_none_or(|rs| rs.tokens.iter().any(|x| x == t)) {
        return None;
    }
    let mut w = st.world.try_borrow_mut().ok()?;
    if !w.on_map(h) {
        return None;
    }
    w.add_token(h, t);
    Some(Out::Pushed(0))
});

fast_fn!(fast_remove_token, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let t = fast::str_arg(l, 3)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    Some(Out::Bool(w.remove_token(h, t)))
});

fast_fn!(fast_on_map, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    Some(Out::Bool(w.on_map(h)))
});

fast_fn!(fast_terrain, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    Some(w.terrain(h).map_or(Out::Nil, |t| Out::Name(t.clone())))
});

// Names are pushed by reference (no `Rc` clone): see `fast::push_name_ref`.
fast_fn!(fast_opponent, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    let other = w.opponent_of(side)?;
    // SAFETY: one value, within the frame's free slots; upvalue 4 is the names table.
    unsafe { fast::push_name_ref(l.raw(), st, other) };
    Some(Out::Pushed(1))
});

fast_fn!(fast_baseline, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    match w.sides[w.find_side(side)?].baseline {
        None => Some(Out::Nil),
        // SAFETY: as in `fast_opponent`.
        Some(b) => EDGES.with(|e| unsafe {
            fast::push_name_ref(l.raw(), st, &e[edge_slot(b)]);
            Some(Out::Pushed(1))
        }),
    }
});

thread_local! {
    /// The four baseline names as shared names, so that `push_name` finds
    /// them cached instead of making a Lua string on every call.
    static EDGES: [Rc<str>; 4] = [Edge::Top, Edge::Bottom, Edge::Left, Edge::Right].map(|e| Rc::from(e.name()));
}

/// Where a map edge's name is in `EDGES`.
fn edge_slot(e: Edge) -> usize {
    match e {
        Edge::Top => 0,
        Edge::Bottom => 1,
        Edge::Left => 2,
        Edge::Right => 3,
    }
}

// `world:pool(side, name, ...)`: one value per name (at most 8 names).
fast_fn!(fast_pool, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let pool = fast::str_arg(l, 3)?;
    let w = st.world.try_borrow().ok()?;
    let i = w.find_side(side)?;
    let first = w.sides[i].pool(pool) as f64;
    let more = l.top() - 3;
    if more <= 0 {
        return Some(Out::Num(first));
    }
    if more > 7 {
        return None;
    }
    // Every name read before anything is pushed.
    let mut values = [first; 8];
    for (k, v) in values.iter_mut().enumerate().take(more as usize + 1).skip(1) {
        *v = w.sides[i].pool(fast::str_arg(l, 3 + k as std::os::raw::c_int)?) as f64;
    }
    for &x in &values[..=more as usize] {
        // SAFETY: at most 8 values, within a C function's 20 free slots.
        unsafe { super::stack::raw::push_number(l.raw(), x) };
    }
    Some(Out::Pushed(more + 1))
});

fast_fn!(fast_add_pool, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let pool = fast::str_arg(l, 3)?;
    let change = fast::whole_arg(l, 4, -(1 << 53), 1 << 53)?;
    let reason = fast::opt_str_arg(l, 5)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    // Fails (on an unknown side) before changing anything.
    Some(Out::Num(w.add_pool(side, pool, change, reason).ok()? as f64))
});

fast_fn!(fast_hit, |l, st| {
    let n = fast::whole_arg(l, 3, 0, i32::MAX as i64)?;
    let reason = fast::opt_str_arg(l, 4)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    let i = fast::unit_arg(l, st, &w, 2)?;
    let taken = w.hit(i, n as i32, reason);
    // SAFETY: two values, within a C function's free slots.
    unsafe {
        super::stack::raw::push_number(l.raw(), taken as f64);
        super::stack::raw::push_bool(l.raw(), w.units[i].alive());
    }
    Some(Out::Pushed(2))
});

// `world:retreat(unit, hex)`: one step, with nobody subscribed to moves.
fast_fn!(fast_retreat, |l, st| {
    if st.subscribed.get() {
        return None;
    }
    let to = fast::hex_arg(l, 3)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    let i = fast::unit_arg(l, st, &w, 2)?;
    w.check_path(i, &[to]).ok()?;
    // As `walk`: a unit no longer alive stops (false); a step that fails changes nothing.
    let moved = w.units[i].alive();
    if moved {
        w.step(i, to, true).ok()?;
    }
    Some(Out::Bool(moved))
});

// A unit handle's field read; fields other than these go to the full `__index`.
fast_fn!(fast_unit_index, |l, st| {
    let key = fast::str_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    let i = fast::unit_arg(l, st, &w, 1)?;
    let unit = &w.units[i];
    // Sorted by length first: a ruleset property (the commonest key after
    // the few fields) is known for one after one or two comparisons, not
    // after trying every field name. `same_name` reads whole words: a
    // `match` on the text calls memcmp for each name it tries.
    let is = |name: &str| crate::battlefield::same_name(key, name);
    let field = match key.len() {
        // Kept as a Lua string like the other names (ids are table keys in
        // most rules: a new string each read hashed its text every time).
        2 if is("id") => return Some(fast::name_out(l, st, &unit.id)),
        3 if is("hex") => Some(unit.hex().map_or(Out::Nil, Out::Hex)),
        3 if is("pos") => Some(match unit.pos {
            // Read-only, as the full function makes it; kept per slot.
            Position::Table { at, .. } => return Some(fast::pos_out(l, st, i, at)),
            Position::Hex(h) => Out::Hex(h),
            Position::Off => Out::Nil,
        }),
        // The methods (`get`, `set`) are the full function's.
        3 if is("get") || is("set") => return None,
        4 if is("side") => return Some(fast::name_out(l, st, &unit.side)),
        4 if is("type") => return Some(fast::name_out(l, st, &unit.kind)),
        5 if is("alive") => Some(Out::Bool(unit.alive())),
        6 if is("facing") => Some(match unit.pos {
            Position::Table { facing, .. } => Out::Num(facing),
            _ => Out::Nil,
        }),
        8 if is("strength") => Some(Out::Num(unit.strength as f64)),
        // The other fields are the full function's.
        5 if is("props") => return None,
        6 if is("leader") => return None,
        12 if is("max_strength") => return None,
        _ => None,
    };
    // Anything else is a ruleset property (`u.overwatch_spent`), nil when the unit has none.
    Some(field.unwrap_or_else(|| match unit.prop(key) {
        Some(Prop::Bool(b)) => Out::Bool(*b),
        Some(Prop::Num(x)) => Out::Num(*x),
        Some(Prop::Str(s)) => Out::Text(s.clone()),
        None => Out::Nil,
    }))
});

// Two unit handles compared (`c.unit == target`): Luau calls `__eq` only
// for two different handles (the same one is equal without a call). Cached
// handles of units now in their slots are equal when their ids are, as the
// full `__eq` says; any other pair is the full function's.
fast_fn!(fast_unit_eq, |l, st| {
    let w = st.world.try_borrow().ok()?;
    let a = fast::unit_arg(l, st, &w, 1)?;
    let b = fast::unit_arg(l, st, &w, 2)?;
    Some(Out::Bool(a == b || w.units[a].id == w.units[b].id))
});

// A unit handle's property write (`u.moves_used = 2`): nil, a boolean, a
// finite number or UTF-8 text under a name that is not a field. The fields
// (settable or read-only), other values and every error are the full
// `__newindex`'s.
fast_fn!(fast_unit_newindex, |l, st| {
    let key = fast::str_arg(l, 2)?;
    if UNIT_FIELDS.iter().any(|n| crate::battlefield::same_name(key, n)) {
        return None;
    }
    let value = match l.type_of(3) {
        ffi::LUA_TNIL => None,
        // SAFETY: slot 3 holds a boolean.
        ffi::LUA_TBOOLEAN => Some(Prop::Bool(unsafe { ffi::lua_toboolean(l.raw(), 3) } != 0)),
        ffi::LUA_TNUMBER => Some(Prop::Num(fast::num_arg(l, 3).filter(|x| x.is_finite())?)),
        ffi::LUA_TSTRING => Some(Prop::Str(fast::str_arg(l, 3)?.into())),
        _ => return None,
    };
    let mut w = st.world.try_borrow_mut().ok()?;
    let i = fast::unit_arg(l, st, &w, 1)?;
    w.units[i].set_prop(key, value);
    Some(Out::Pushed(0))
});

// `world:current_side()`: a name, or nil before any side has the turn.
fast_fn!(fast_current_side, |l, st| {
    if l.top() != 1 {
        return None;
    }
    let w = st.world.try_borrow().ok()?;
    Some(w.current_side.clone().map_or(Out::Nil, Out::Name))
});

// `world:turn()`.
fast_fn!(fast_turn, |l, st| {
    if l.top() != 1 {
        return None;
    }
    Some(Out::Num(st.world.try_borrow().ok()?.turn as f64))
});

/// The world's fast paths, the calls rules make most first (`install`
/// places these names first in the `world` table).
const FAST: &[(&CStr, ffi::lua_CFunction)] = &[
    (c"has_token", fast_has_token),
    (c"units", fast_units),
    (c"at", fast_at),
    (c"unit_at", fast_unit_at),
    (c"pool", fast_pool),
    (c"add_pool", fast_add_pool),
    (c"terrain", fast_terrain),
    (c"on_map", fast_on_map),
    (c"baseline", fast_baseline),
    (c"opponent", fast_opponent),
    (c"current_side", fast_current_side),
    (c"turn", fast_turn),
    (c"hit", fast_hit),
    (c"retreat", fast_retreat),
    (c"remove_token", fast_remove_token),
    (c"add_token", fast_add_token),
];

/// The names of the world's fast paths, hottest first.
pub fn names() -> impl Iterator<Item = &'static str> {
    FAST.iter().map(|(name, _)| name.to_str().expect("ASCII name"))
}

/// Replaces the world's hot calls, and a unit handle's `__index`, `__eq`
/// and `__newindex`, with their fast paths.
pub fn install(lua: &Lua, st: &Rc<State>, world: &Table) -> mlua::Result<()> {
    for (name, f) in FAST {
        fast::install(lua, st, world, name, *f)?;
    }
    // The unit metatable's `__index`, `__eq` and `__newindex`: reached through any handle.
    if st.options.no_fast_paths {
        return Ok(());
    }
    let probe = lua.create_userdata(UnitRef { idx: usize::MAX, id: Rc::from(""), st: st.clone() })?;
    replace_metamethod(lua, st, &probe, c"__index", fast_unit_index)?;
    replace_metamethod(lua, st, &probe, c"__eq", fast_unit_eq)?;
    replace_metamethod(lua, st, &probe, c"__newindex", fast_unit_newindex)
}

/// Replaces the metamethod `name` of `probe`'s metatable (the one every unit
/// handle shares: the full one mlua made from `UnitRef::add_methods`) with
/// the fast function `f`, which falls back to it.
fn replace_metamethod(
    lua: &Lua,
    st: &Rc<State>,
    probe: &mlua::AnyUserData,
    name: &'static CStr,
    f: ffi::lua_CFunction,
) -> mlua::Result<()> {
    // SAFETY: reads the metamethod from the probe handle's metatable.
    let full: Function = unsafe {
        lua.exec_raw((probe,), |l| {
            ffi::lua_getmetatable(l, 1);
            ffi::lua_rawgetfield(l, -1, name.as_ptr());
            ffi::lua_replace(l, 1);
            ffi::lua_settop(l, 1);
        })?
    };
    let fast = fast::make(lua, st, full, name, f)?;
    // SAFETY: sets the same metatable's field to the fast function.
    unsafe {
        lua.exec_raw::<()>((probe, fast), |l| {
            ffi::lua_getmetatable(l, 1);
            ffi::lua_insert(l, 2);
            ffi::lua_rawsetfield(l, 2, name.as_ptr());
            ffi::lua_settop(l, 0);
        })
    }
}
