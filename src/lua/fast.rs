//! Fast paths for the API calls a rule makes on every shot.
//!
//! A call through mlua's general callback costs 40-150 ns before it does any
//! work (argument conversion, error and panic wrapping, registry references
//! for the values it hands back). Simulation makes tens of these calls per
//! trial, so the hottest ones also exist as plain Luau C functions.
//!
//! Each fast function handles only the common, valid case: arguments of the
//! expected types, the world free to borrow, nothing to log. For anything
//! else it hands the call, arguments unchanged, to the full mlua function it
//! replaced (kept as an upvalue), so errors, messages and edge cases come
//! from one implementation. A fast path never raises an error and never calls
//! back into Lua; it reads and changes the world exactly as the full function
//! would.
//!
//! Upvalues of every fast function: 1 the host `State` (a light userdata; the
//! state lives as long as the Lua state, which holds it as app data; the main
//! thread also keeps it as its thread data, which is quicker to read), 2 the
//! full function, 3 the unit handle table (`handle_table`), 4 the names
//! table (`push_name`).

use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use mlua::{ffi, Function, Lua, Table};

use super::State;
use crate::battlefield::World;
use crate::hex::Hex;

/// What a fast function returns.
///
/// `run` pushes it after the body has returned and dropped every borrow it
/// took: pushing a string may allocate, and a failed allocation raises a Lua
/// error, which must not leave a `RefCell` borrowed (it would skip the guard's
/// destructor). Values in `Pushed` were pushed without allocating (numbers,
/// or values read from a table).
pub enum Out {
    Nil,
    Bool(bool),
    Num(f64),
    /// A name from the world (a side, a unit type, a terrain): cached as a Lua string.
    Name(Rc<str>),
    /// Other text from the world (a unit id): a new Lua string each time.
    Text(Rc<str>),
    Str(&'static str),
    Hex(Hex),
    /// This many values already on the stack.
    Pushed(c_int),
    /// A new roll object (`dice.roll`).
    Roll(super::dice_api::NewRoll),
}

/// The body of a fast function: what to return, or `None` to hand the call
/// to the full function.
pub type Body = unsafe fn(l: *mut ffi::lua_State, st: &State) -> Option<Out>;

/// Runs `body`, falling back to the full function when it declines or panics.
#[inline(always)]
pub unsafe fn run(l: *mut ffi::lua_State, body: Body) -> c_int {
    // The state is the main thread's data (set by `make`); a coroutine's thread
    // has none, and reads the upvalue.
    let mut st = ffi::lua_getthreaddata(l) as *const State;
    if st.is_null() {
        st = ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) as *const State;
    }
    let st = &*st;
    let top = ffi::lua_gettop(l);
    match catch_unwind(AssertUnwindSafe(|| body(l, st))) {
        Ok(Some(out)) => push(l, st, out),
        _ => {
            st.fast_misses.set(st.fast_misses.get() + 1);
            ffi::lua_settop(l, top);
            full(l)
        }
    }
}

/// Calls the full function with this call's arguments and returns what it returns.
/// Its errors propagate as the full function raised them; no Rust value is
/// alive in this frame meanwhile.
#[cold]
#[inline(never)]
unsafe fn full(l: *mut ffi::lua_State) -> c_int {
    let nargs = ffi::lua_gettop(l);
    ffi::lua_pushvalue(l, ffi::lua_upvalueindex(2));
    ffi::lua_insert(l, 1);
    ffi::lua_call(l, nargs, ffi::LUA_MULTRET);
    ffi::lua_gettop(l)
}

unsafe fn push(l: *mut ffi::lua_State, st: &State, out: Out) -> c_int {
    match out {
        Out::Nil => ffi::lua_pushnil(l),
        Out::Bool(b) => ffi::lua_pushboolean(l, b as c_int),
        Out::Num(n) => ffi::lua_pushnumber(l, n),
        Out::Name(name) => push_name(l, st, name),
        Out::Str(s) => push_str(l, s),
        Out::Text(s) => push_str(l, &s),
        Out::Hex(h) => ffi::lua_pushvector(l, h.q as f32, h.r as f32, h.s() as f32),
        Out::Pushed(n) => return n,
        Out::Roll(r) => super::dice_api::push_new_roll(l, &r),
    }
    1
}

/// Most names `push_name` keeps as Lua strings.
pub const MAX_NAMES: usize = 256;

/// Pushes a world name. The first time, it makes the Lua string and keeps it
/// in slot k of the names table (upvalue 4), and the name's `Rc` in
/// `State::name_slots[k]`; holding the `Rc` keeps its address unique, so later
/// pushes find the slot by address instead of hashing the text into a new
/// Lua string.
unsafe fn push_name(l: *mut ffi::lua_State, st: &State, name: Rc<str>) {
    let slot = st.name_slots.borrow().iter().position(|s| Rc::ptr_eq(s, &name));
    if let Some(k) = slot {
        // Slots were filled with `false` when the table was made: no allocation.
        if ffi::lua_rawgeti(l, ffi::lua_upvalueindex(4), k as ffi::lua_Integer + 1) == ffi::LUA_TSTRING {
            return;
        }
        ffi::lua_pop(l, 1);
    }
    push_str(l, &name);
    let mut slots = st.name_slots.borrow_mut();
    if slot.is_none() && slots.len() < MAX_NAMES {
        ffi::lua_pushvalue(l, -1);
        // An existing array slot: setting it does not allocate.
        ffi::lua_rawseti(l, ffi::lua_upvalueindex(4), slots.len() as ffi::lua_Integer + 1);
        slots.push(name);
    }
}

/// Declares `unsafe extern "C-unwind" fn $name` running `$body` under [`run`].
macro_rules! fast_fn {
    ($name:ident, |$l:ident, $st:ident| $body:block) => {
        unsafe extern "C-unwind" fn $name(l: *mut mlua::ffi::lua_State) -> std::os::raw::c_int {
            #[allow(unused_unsafe)]
            unsafe fn body($l: *mut mlua::ffi::lua_State, $st: &$crate::lua::State) -> Option<$crate::lua::fast::Out> {
                unsafe { $body }
            }
            // SAFETY: installed by `fast::install`, which sets the upvalues `run` reads.
            unsafe { $crate::lua::fast::run(l, body) }
        }
    };
}
pub(crate) use fast_fn;

/// Replaces `tbl[name]` (a full mlua function) with the fast function `f`,
/// which falls back to it.
pub fn install(lua: &Lua, st: &Rc<State>, tbl: &Table, name: &'static CStr, f: ffi::lua_CFunction) -> mlua::Result<()> {
    if st.options.no_fast_paths {
        return Ok(());
    }
    let key = name.to_str().expect("ASCII name");
    let slow: Function = tbl.raw_get(key)?;
    let fast = make(lua, st, slow, name, f)?;
    tbl.raw_set(key, fast)
}

/// A fast function falling back to `slow`. `name` names it in tracebacks
/// (Luau keeps the pointer, hence `'static`).
pub fn make(
    lua: &Lua,
    st: &Rc<State>,
    slow: Function,
    name: &'static CStr,
    f: ffi::lua_CFunction,
) -> mlua::Result<Function> {
    let (handles, names) = (handle_table(lua)?, name_table(lua)?);
    let ptr = Rc::as_ptr(st) as *mut c_void;
    // SAFETY: pushes a C closure over the four upvalues described above; the
    // stack holds exactly the three arguments when the closure is made.
    unsafe {
        lua.exec_raw::<Function>((slow, handles, names), move |l| {
            // Nothing else uses a thread's data pointer (mlua keeps its own elsewhere).
            ffi::lua_setthreaddata(l, ptr);
            ffi::lua_pushlightuserdata(l, ptr);
            ffi::lua_insert(l, 1);
            ffi::lua_pushcclosurek(l, f, name.as_ptr(), 4, None);
        })
    }
}

/// The table of unit handles: `[slot + 1] = handle` for the handle cached at
/// each unit slot (see `world_api::unit_handle`).
pub fn handle_table(lua: &Lua) -> mlua::Result<Table> {
    registry_table(lua, "sandtable.unit_handle_table", 0)
}

/// The Lua strings of `push_name`, slots 1..=MAX_NAMES made up front.
fn name_table(lua: &Lua) -> mlua::Result<Table> {
    registry_table(lua, "sandtable.name_table", MAX_NAMES)
}

fn registry_table(lua: &Lua, key: &str, slots: usize) -> mlua::Result<Table> {
    if let Some(t) = lua.named_registry_value::<Option<Table>>(key)? {
        return Ok(t);
    }
    let t = lua.create_table_with_capacity(slots, 0)?;
    for i in 1..=slots {
        t.raw_set(i, false)?;
    }
    lua.set_named_registry_value(key, &t)?;
    Ok(t)
}

// Argument readers: `None` means "not the common case, use the full function".

/// A hex argument: a vector with whole coordinates.
pub unsafe fn hex_arg(l: *mut ffi::lua_State, i: c_int) -> Option<Hex> {
    let v = ffi::lua_tovector(l, i); // null for anything but a vector
    if v.is_null() {
        return None;
    }
    Some(Hex::new(whole_f32(*v)?, whole_f32(*v.add(1))?))
}

/// `x` as a whole number. (A cast round trip: `fract` is a libm call here.)
fn whole_f32(x: f32) -> Option<i32> {
    let i = x as i32;
    (i as f32 == x).then_some(i)
}

/// A number argument that is a whole number within `lo..=hi`.
pub unsafe fn whole_arg(l: *mut ffi::lua_State, i: c_int, lo: i64, hi: i64) -> Option<i64> {
    let x = num_arg(l, i)?;
    let n = x as i64;
    (n as f64 == x && (lo..=hi).contains(&n)).then_some(n)
}

/// A string argument, borrowed from the Lua stack for the length of the call.
pub unsafe fn str_arg<'a>(l: *mut ffi::lua_State, i: c_int) -> Option<&'a str> {
    if ffi::lua_type(l, i) != ffi::LUA_TSTRING {
        return None;
    }
    let mut len = 0usize;
    let p = ffi::lua_tolstring(l, i, &mut len) as *const u8;
    let b = std::slice::from_raw_parts(p, len);
    // Names are short and ASCII; the general check is for the rest.
    if b.is_ascii() {
        Some(std::str::from_utf8_unchecked(b))
    } else {
        std::str::from_utf8(b).ok()
    }
}

/// An optional string argument (a reason): `Some("")` when nil or absent.
pub unsafe fn opt_str_arg<'a>(l: *mut ffi::lua_State, i: c_int) -> Option<&'a str> {
    if ffi::lua_type(l, i) <= ffi::LUA_TNIL {
        return Some("");
    }
    str_arg(l, i)
}

/// A number argument.
pub unsafe fn num_arg(l: *mut ffi::lua_State, i: c_int) -> Option<f64> {
    if ffi::lua_type(l, i) != ffi::LUA_TNUMBER {
        return None;
    }
    Some(ffi::lua_tonumberx(l, i, std::ptr::null_mut()))
}

/// A unit handle argument, resolved to its slot in `w.units`: only handles
/// cached in the handle table whose unit is still in its slot.
pub unsafe fn unit_arg(l: *mut ffi::lua_State, st: &State, w: &World, i: c_int) -> Option<usize> {
    // Null for anything but a userdata (or a light userdata, which scripts
    // cannot make). Cached handles stay alive, so no other userdata can have
    // their address.
    let address = ffi::lua_touserdata(l, i) as usize;
    let idx = *st.unit_handle_slots.borrow().get(&address)?;
    let handles = st.unit_handles.borrow();
    let (id, _) = handles.get(idx)?.as_ref()?;
    let unit = w.units.get(idx)?;
    (Rc::ptr_eq(&unit.id, id) || unit.id == *id).then_some(idx)
}

/// Pushes the cached handle of unit `idx`, if there is one for the unit now
/// in that slot (a table read: no allocation).
pub unsafe fn push_unit(l: *mut ffi::lua_State, st: &State, w: &World, idx: usize) -> Option<Out> {
    let handles = st.unit_handles.borrow();
    let (id, _) = handles.get(idx)?.as_ref()?;
    if !Rc::ptr_eq(&w.units[idx].id, id) {
        return None;
    }
    if ffi::lua_rawgeti(l, ffi::lua_upvalueindex(3), idx as ffi::lua_Integer + 1) != ffi::LUA_TUSERDATA {
        ffi::lua_pop(l, 1);
        return None;
    }
    Some(Out::Pushed(1))
}

pub unsafe fn push_str(l: *mut ffi::lua_State, s: &str) {
    ffi::lua_pushlstring(l, s.as_ptr() as *const _, s.len());
}
