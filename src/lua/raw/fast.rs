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
//! from one implementation. A fast path's body never raises an error and never
//! calls back into Lua; it reads and changes the world exactly as the full
//! function would. (One answer calls Lua after the body has returned, as
//! the full function would: a decision's policy, `Out::Policy`.)
//!
//! Bodies see the call's stack as a [`Frame`], whose readers are safe: a
//! `Frame` exists only inside [`run`], for a C function made by [`make`], so
//! its state is valid, its upvalues are set, and indices up to
//! `LUA_MINSTACK` are acceptable. `run` goes on only when Luau's layout is
//! trusted (`stack::direct`; otherwise the full function answers every
//! call), so everything under it reads and pushes with `stack::raw`,
//! unchecked. Strings read from a frame borrow the Lua stack for the
//! frame's lifetime, which ends when the call returns.
//!
//! Adding a fast path (for any ruleset's hot call): write its body with
//! `fast_fn!` in this module's folder, add it to its area's list (e.g.
//! `raw::world::FAST`), and give `tests/fixtures/fast_paths.lua` a probe
//! that calls it with good and bad arguments: `tests/core.rs` runs that
//! script with and without fast paths and requires the same output and
//! world, and fails for a fast path no probe calls.
//!
//! Upvalues of every fast function: 1 the host `State` (a light userdata; the
//! state lives as long as the Lua state, which holds it as app data; the main
//! thread also keeps it as its thread data, which is quicker to read), 2 the
//! full function, 3 the unit handle table (`handle_table`), 4 the names
//! table (`push_name`).

use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use mlua::{ffi, Function, Lua, Table};

use crate::battlefield::World;
use crate::hex::Hex;
use crate::lua::{keys, State};

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
    Roll(super::roll::NewRoll),
    /// A tabletop answer, built as tables (`raw::tabletop`).
    Geo(super::tabletop::Geo),
    /// A list of the cached handles of these units (`world:units`).
    Units(Vec<usize>),
    /// A unit's `pos` on the tabletop, to make read-only and keep for
    /// unit slot `usize` (see [`pos_out`]).
    Pos(usize, crate::tabletop::Point),
    /// A tabletop answer to build, freeze and keep (`raw::tabletop::memo`).
    Keep(Box<super::tabletop::Keep>),
    /// A decision's policy to call, set up on the stack with its arguments
    /// (`raw::decide`); the `n` options as offered are in the slots from
    /// `offered`.
    Policy {
        offered: c_int,
        n: c_int,
    },
}

/// Most token booleans `world:at`'s fast path answers (with the three values
/// before them, well within the `LUA_MINSTACK` slots a C function has).
pub const MAX_BOOLS: usize = 8;

/// The stack of one fast-function call (see the module doc).
#[derive(Clone, Copy)]
pub struct Frame<'call> {
    l: *mut ffi::lua_State,
    top: c_int,
    _call: PhantomData<&'call ()>,
}

impl Frame<'_> {
    /// The raw state, for a body's own stack work (in an `unsafe` block that
    /// keeps within `LUA_MINSTACK` slots).
    pub fn raw(self) -> *mut ffi::lua_State {
        self.l
    }

    /// How many arguments the call has.
    pub fn top(self) -> c_int {
        self.top
    }

    /// Whether `i` is a slot this frame may read: 1 up to `LUA_MINSTACK`
    /// (readers give nothing for a slot past the top). The readers use
    /// `lua::raw::stack`, which takes positive indices only.
    fn readable(self, i: c_int) -> bool {
        (1..=ffi::LUA_MINSTACK).contains(&i)
    }

    /// `lua_type` of a readable index (`LUA_TNONE` for any other).
    pub fn type_of(self, i: c_int) -> c_int {
        if !self.readable(i) {
            return ffi::LUA_TNONE;
        }
        // SAFETY: a readable index of a live frame.
        unsafe { super::stack::raw::type_of(self.l, i) }
    }
}

/// The body of a fast function: what to return, or `None` to hand the call
/// to the full function.
pub type Body = for<'call> fn(l: Frame<'call>, st: &State) -> Option<Out>;

/// Runs `body`, falling back to the full function when it declines or panics.
///
/// # Safety
/// `l` is the state of a call to a C function made by [`make`] (so its
/// upvalues are the ones the module doc lists).
#[inline(always)]
pub unsafe fn run(l: *mut ffi::lua_State, body: Body) -> c_int {
    // SAFETY: the caller's contract: a live state inside a call of a closure
    // made by `make`, whose upvalue 1 (and the main thread's data) is the
    // host `State`, alive as long as the Lua state.
    unsafe {
        // The state is the main thread's data (set by `make`); a coroutine's
        // thread has none, and reads the upvalue.
        // Every read and push below assumes Luau's layout: without it, the
        // full function answers every call (not counted as a miss: no call
        // can take a fast path then, and `tests/rolls.rs` fails).
        if !super::stack::direct() {
            return full(l);
        }
        let mut st = super::stack::raw::thread_data(l) as *const State;
        if st.is_null() {
            st = ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) as *const State;
        }
        let st = &*st;
        let top = super::stack::raw::top(l);
        let frame = Frame { l, top, _call: PhantomData };
        let r = catch_unwind(AssertUnwindSafe(|| body(frame, st)));
        // The commonest answers without a call to `push` (a fast function
        // has pushed nothing before, and has room for 20). These variants
        // own nothing: `forget` spares a call to `Out`'s drop glue, which is
        // not inlined here (and `r` is matched in place, not moved: `Out`
        // is large).
        match r {
            Ok(Some(Out::Pushed(n))) => {
                std::mem::forget(r);
                n
            }
            Ok(Some(Out::Num(x))) => {
                std::mem::forget(r);
                super::stack::raw::push_number(l, x);
                1
            }
            Ok(Some(Out::Bool(b))) => {
                std::mem::forget(r);
                super::stack::raw::push_bool(l, b);
                1
            }
            Ok(Some(Out::Nil)) => {
                std::mem::forget(r);
                super::stack::raw::push_nil(l);
                1
            }
            Ok(Some(Out::Hex(h))) => {
                std::mem::forget(r);
                super::stack::raw::push_vector(l, [h.q as f32, h.r as f32, h.s() as f32]);
                1
            }
            Ok(Some(out)) => push(l, st, out),
            _ => {
                st.fast_misses.set(st.fast_misses.get() + 1);
                ffi::lua_settop(l, top);
                full(l)
            }
        }
    }
}

/// Calls the full function with this call's arguments and returns what it returns.
/// Its errors propagate as the full function raised them; no Rust value is
/// alive in this frame meanwhile.
///
/// # Safety
/// As for [`run`]: upvalue 2 is the full function.
#[cold]
#[inline(never)]
unsafe fn full(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the caller's contract; the arguments are on the stack as the call left them.
    unsafe {
        let nargs = ffi::lua_gettop(l);
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(2));
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, nargs, ffi::LUA_MULTRET);
        ffi::lua_gettop(l)
    }
}

/// Pushes what a body returned.
///
/// # Safety
/// As for [`run`], after the body's borrows have ended.
unsafe fn push(l: *mut ffi::lua_State, st: &State, out: Out) -> c_int {
    // SAFETY: the caller's contract; each case pushes one value (a C function
    // has `LUA_MINSTACK` free slots).
    unsafe { push_out(l, st, out) }
}

/// The body of [`push`].
///
/// # Safety
/// As for [`push`].
unsafe fn push_out(l: *mut ffi::lua_State, st: &State, out: Out) -> c_int {
    // SAFETY: as for `push`.
    unsafe {
        match out {
            Out::Nil => super::stack::raw::push_nil(l),
            Out::Bool(b) => super::stack::raw::push_bool(l, b),
            Out::Num(n) => super::stack::raw::push_number(l, n),
            Out::Name(name) => push_name(l, st, name),
            Out::Str(s) => push_str(l, s),
            Out::Text(s) => push_str(l, &s),
            Out::Hex(h) => super::stack::raw::push_vector(l, [h.q as f32, h.r as f32, h.s() as f32]),
            Out::Pushed(n) => return n,
            Out::Roll(r) => super::roll::push_new(l, &r),
            Out::Geo(g) => return super::tabletop::push(l, &st.tabletop_keys, &g),
            Out::Keep(k) => super::tabletop::push_keep(l, &st.tabletop_keys, &st.tabletop_memo, *k),
            Out::Policy { offered, n } => return super::decide::call_policy(l, offered, n),
            Out::Pos(idx, at) => {
                // A read-only point, kept in the handle table at `-(slot + 1)`.
                super::tabletop::push(l, &st.tabletop_keys, &super::tabletop::Geo::Point(at));
                ffi::lua_setreadonly(l, -1, 1);
                ffi::lua_pushvalue(l, -1);
                ffi::lua_rawseti(l, ffi::lua_upvalueindex(3), kept_pos_key(idx));
                // Recorded only once kept (the calls above may raise a memory error).
                let mut kept = st.kept_pos.borrow_mut();
                if kept.len() <= idx {
                    kept.resize(idx + 1, None);
                }
                kept[idx] = Some(point_bits(at));
            }
            Out::Units(found) => {
                ffi::lua_createtable(l, found.len() as c_int, 0);
                for (k, &i) in found.iter().enumerate() {
                    // Checked by `cached_unit` in the body: a handle, no allocation.
                    ffi::lua_rawgeti(l, ffi::lua_upvalueindex(3), i as ffi::lua_Integer + 1);
                    ffi::lua_rawseti(l, -2, k as ffi::lua_Integer + 1);
                }
            }
        }
    }
    1
}

/// Most names `push_name` keeps as Lua strings.
pub const MAX_NAMES: usize = 256;

/// Entries of the cache in front of the kept names (`State::name_cache`).
pub const NAME_CACHE: usize = 64;

/// Pushes a world name. The first time, it makes the Lua string and keeps it
/// in slot k of the names table (upvalue 4), and the name's `Rc` in
/// `State::name_slots[k]` with the address of the string's bytes; holding
/// the `Rc` keeps its address unique, so later pushes find the slot by
/// address and write the kept string straight onto the stack instead of
/// hashing the text into a new Lua string.
///
/// # Safety
/// As for [`run`]: upvalue 4 is the names table.
unsafe fn push_name(l: *mut ffi::lua_State, st: &State, name: Rc<str>) {
    // SAFETY: the caller's contract.
    unsafe { push_name_ref(l, st, &name) }
}

/// [`push_name`] for a name the caller holds by reference (cloned only the
/// first time, to be kept).
///
/// # Safety
/// As for [`push_name`]: inside a fast path's call, where Luau's layout is
/// trusted (see [`run`]); at most two values are pushed.
pub unsafe fn push_name_ref(l: *mut ffi::lua_State, st: &State, name: &Rc<str>) {
    let (address, cached) = name_cache_entry(st, name);
    let (a, data) = cached.get();
    if a == address {
        // SAFETY: the caller's contract; `data` is the kept string's bytes.
        unsafe { super::stack::raw::push_kept_string(l, data) };
        return;
    }
    // SAFETY: the caller's contract.
    unsafe {
        let found = st.name_slots.borrow().iter().position(|(s, _)| Rc::ptr_eq(s, name));
        if let Some(k) = found {
            // The kept string straight onto the stack: the names table keeps it alive.
            let data = st.name_slots.borrow()[k].1;
            if data != 0 {
                super::stack::raw::push_kept_string(l, data);
                cached.set((address, data));
                return;
            }
            // Slots were filled with `false` when the table was made: no allocation.
            if ffi::lua_rawgeti(l, ffi::lua_upvalueindex(4), k as ffi::lua_Integer + 1) == ffi::LUA_TSTRING {
                return;
            }
            ffi::lua_pop(l, 1);
        }
        push_str(l, name);
        let mut slots = st.name_slots.borrow_mut();
        if found.is_none() && slots.len() < MAX_NAMES {
            let data = super::stack::raw::string_ptr(l, ffi::lua_gettop(l));
            ffi::lua_pushvalue(l, -1);
            // An existing array slot: setting it does not allocate.
            ffi::lua_rawseti(l, ffi::lua_upvalueindex(4), slots.len() as ffi::lua_Integer + 1);
            slots.push((name.clone(), data));
        }
    }
}

/// A name's address and its entry in the cache in front of the kept names.
/// A name kept before is found there by its address: `name_slots` holds its
/// `Rc`, so no other name can have that address, and entries are never removed.
#[inline(always)]
fn name_cache_entry<'s>(st: &'s State, name: &Rc<str>) -> (usize, &'s std::cell::Cell<(usize, usize)>) {
    let address = Rc::as_ptr(name) as *const u8 as usize;
    // (Fibonacci hashing: names allocated one after another land apart.)
    (address, &st.name_cache[(address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) % NAME_CACHE])
}

/// A world name as a fast path's answer: pushed at once when it is in the
/// cache of kept names (a write to the stack, which allocates nothing, so
/// the body may still hold its borrows), else `Out::Name` for `run` to push
/// after the body.
#[inline(always)]
pub fn name_out(f: Frame<'_>, st: &State, name: &Rc<str>) -> Out {
    let (address, cached) = name_cache_entry(st, name);
    let (a, data) = cached.get();
    if a != address {
        return Out::Name(name.clone());
    }
    // SAFETY: a frame of a fast call (the layout holds, see `run`) with
    // nothing pushed yet, so room for one value; `data` is a kept string's bytes.
    unsafe { super::stack::raw::push_kept_string(f.l, data) };
    Out::Pushed(1)
}

/// Declares `unsafe extern "C-unwind" fn $name` running `$body` under [`run`].
macro_rules! fast_fn {
    ($name:ident, |$l:ident, $st:ident| $body:block) => {
        /// A fast path (see `lua::raw::fast`).
        ///
        /// # Safety
        /// Called by Luau only, as a C function made by `fast::make`.
        pub(crate) unsafe extern "C-unwind" fn $name(l: *mut mlua::ffi::lua_State) -> std::os::raw::c_int {
            fn body(
                $l: $crate::lua::raw::fast::Frame<'_>,
                $st: &$crate::lua::State,
            ) -> Option<$crate::lua::raw::fast::Out> {
                $body
            }
            // SAFETY: installed by `fast::install`, which sets the upvalues `run` reads.
            unsafe { $crate::lua::raw::fast::run(l, body) }
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
/// each unit slot (see `world::unit_handle`), and `[-(slot + 1)]` = the
/// read-only point last answered for that slot's `u.pos` (see [`pos_out`]).
pub fn handle_table(lua: &Lua) -> mlua::Result<Table> {
    registry_table(lua, keys::UNIT_HANDLE_TABLE, 0)
}

/// The Lua strings of `push_name`, slots 1..=MAX_NAMES made up front.
fn name_table(lua: &Lua) -> mlua::Result<Table> {
    registry_table(lua, keys::NAME_TABLE, MAX_NAMES)
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
pub fn hex_arg(f: Frame<'_>, i: c_int) -> Option<Hex> {
    if !f.readable(i) {
        return None;
    }
    // SAFETY: a readable index of a live frame.
    let [q, r, _] = unsafe { super::stack::raw::vector(f.l, i)? };
    Some(Hex::new(whole_f32(q)?, whole_f32(r)?))
}

/// `x` as a whole number. (A cast round trip: `fract` is a libm call here.)
fn whole_f32(x: f32) -> Option<i32> {
    let i = x as i32;
    (i as f32 == x).then_some(i)
}

/// A number argument that is a whole number within `lo..=hi`.
pub fn whole_arg(f: Frame<'_>, i: c_int, lo: i64, hi: i64) -> Option<i64> {
    let x = num_arg(f, i)?;
    let n = x as i64;
    (n as f64 == x && (lo..=hi).contains(&n)).then_some(n)
}

/// A string argument, borrowed from the Lua stack for the frame's lifetime.
#[inline(always)]
pub fn str_arg<'call>(f: Frame<'call>, i: c_int) -> Option<&'call str> {
    ascii_or_utf8(string_bytes(f, i)?)
}

/// A string argument's bytes (`None` for any other type: unlike
/// `lua_tolstring`, `lua_tolstringatom` converts no number, and it is one C
/// call instead of a type check and a read).
#[inline(always)]
pub fn string_bytes<'call>(f: Frame<'call>, i: c_int) -> Option<&'call [u8]> {
    if !f.readable(i) {
        return None;
    }
    // SAFETY: a readable index of a live frame; null for anything but a
    // string, whose bytes stay on the stack, unchanged, until the call
    // returns, which the frame's lifetime bounds.
    unsafe {
        let (p, len) = super::stack::raw::string_bytes(f.l, i)?;
        Some(std::slice::from_raw_parts(p, len))
    }
}

/// `b` as text. Names and reasons are short and ASCII: a byte check (no
/// call) covers them; the general UTF-8 check is for the rest.
#[inline]
pub fn ascii_or_utf8(b: &[u8]) -> Option<&str> {
    if short_ascii(b) {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(b) });
    }
    std::str::from_utf8(b).ok()
}

/// Whether `b` is ASCII, answered in a few whole-word reads for the short
/// texts API calls take (names, reasons): `is_ascii` checks a short text's
/// last bytes one at a time, which cost about half of reading a string
/// argument. Words may overlap: a byte read twice is still one byte.
#[inline]
fn short_ascii(b: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = b.len();
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let half = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    match n {
        0 => true,
        1..=3 => (b[0] | b[n / 2] | b[n - 1]) < 0x80,
        4..=7 => (half(0) | half(n - 4)) & HIGH as u32 == 0,
        8..=32 => {
            let mut any = word(n - 8);
            let mut i = 0;
            while i + 8 < n {
                any |= word(i);
                i += 8;
            }
            any & HIGH == 0
        }
        _ => b.is_ascii(),
    }
}

/// An optional string argument (a reason): `Some("")` when nil or absent.
pub fn opt_str_arg<'call>(f: Frame<'call>, i: c_int) -> Option<&'call str> {
    if !f.readable(i) {
        return None;
    }
    if f.type_of(i) <= ffi::LUA_TNIL {
        return Some("");
    }
    str_arg(f, i)
}

/// A number argument.
pub fn num_arg(f: Frame<'_>, i: c_int) -> Option<f64> {
    if !f.readable(i) {
        return None;
    }
    // SAFETY: a readable index of a live frame.
    unsafe { super::stack::raw::number(f.l, i) }
}

/// A unit handle argument, resolved to its slot in `w.units`: only handles
/// cached in the handle table whose unit is still in its slot.
#[inline]
pub fn unit_arg(f: Frame<'_>, st: &State, w: &World, i: c_int) -> Option<usize> {
    if !f.readable(i) {
        return None;
    }
    // The userdata's bytes, read from its slot (0 for any other value).
    // Cached handles stay alive, so no other userdata can have their address.
    // SAFETY: a readable index of a live frame, inside `run` (the layout holds).
    let address = unsafe { super::stack::raw::userdata(f.l, i) };
    // Found by address in the cache: one read and two comparisons instead of
    // the map behind two `RefCell`s. The entry holds while its handle is the
    // one cached for the slot, which holds the id's `Rc`: a unit there whose
    // id has that address has that `Rc`.
    let (a, idx, id) = st.unit_handle_cache[handle_cache_slot(address)].get();
    if a == address && a != 0 && w.units.get(idx).is_some_and(|u| id_address(&u.id) == id) {
        return Some(idx);
    }
    unit_arg_by_map(st, w, address)
}

/// [`unit_arg`] through the map of cached handles, filling the cache.
#[cold]
#[inline(never)]
fn unit_arg_by_map(st: &State, w: &World, address: usize) -> Option<usize> {
    let idx = *st.unit_handle_slots.borrow().get(&address)?;
    let handles = st.unit_handles.borrow();
    let (id, _) = handles.get(idx)?.as_ref()?;
    let unit = w.units.get(idx)?;
    if Rc::ptr_eq(&unit.id, id) {
        st.unit_handle_cache[handle_cache_slot(address)].set((address, idx, id_address(id)));
        return Some(idx);
    }
    // (A unit put back with an equal id that is not the same `Rc`: not cached.)
    (unit.id == *id).then_some(idx)
}

/// Entries of the cache in front of the handles' map (`State::unit_handle_cache`).
pub const HANDLE_CACHE: usize = 64;

/// The cache entry for a handle's address (Fibonacci hashing, as for names).
#[inline(always)]
fn handle_cache_slot(address: usize) -> usize {
    (address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) % HANDLE_CACHE
}

/// Where an id's text is: equal for two ids only when they are the same `Rc`.
#[inline(always)]
fn id_address(id: &Rc<str>) -> usize {
    Rc::as_ptr(id) as *const u8 as usize
}

/// Drops the cache entry of a handle no longer cached for its slot
/// (`world::unit_handle`, replacing it), so that `unit_arg` does not find it.
pub fn forget_handle(st: &State, address: usize) {
    let cached = &st.unit_handle_cache[handle_cache_slot(address)];
    if cached.get().0 == address {
        cached.set((0, 0, 0));
    }
}

/// A tabletop unit's `u.pos` as a fast path's answer: the read-only point
/// kept for its slot when the unit still stands there (a table read, no
/// allocation: a fire reads `pos` dozens of times, each read made a new
/// table), else `Out::Pos` to make and keep one after the body. A kept
/// point cannot change, and is handed out only while its slot's unit is at
/// exactly that point, so a read never sees an old place.
pub fn pos_out(f: Frame<'_>, st: &State, idx: usize, at: crate::tabletop::Point) -> Out {
    if st.kept_pos.try_borrow().ok().and_then(|k| k.get(idx).copied()) == Some(Some(point_bits(at))) {
        // SAFETY: upvalue 3 of a frame's function is the handle table; a read
        // pushes one value without allocating (popped again if not a table).
        unsafe {
            if ffi::lua_rawgeti(f.l, ffi::lua_upvalueindex(3), kept_pos_key(idx)) == ffi::LUA_TTABLE {
                return Out::Pushed(1);
            }
            ffi::lua_pop(f.l, 1);
        }
    }
    Out::Pos(idx, at)
}

/// Where the handle table keeps slot `idx`'s `pos` point.
fn kept_pos_key(idx: usize) -> ffi::lua_Integer {
    -(idx as ffi::lua_Integer) - 1
}

/// A point's exact bits (a kept `pos` is handed out for exactly its point).
fn point_bits(p: crate::tabletop::Point) -> [u64; 2] {
    [p.x.to_bits(), p.y.to_bits()]
}

/// Pushes the cached handle of unit `idx`, if there is one for the unit now
/// in that slot (a table read: no allocation).
pub fn push_unit(f: Frame<'_>, st: &State, w: &World, idx: usize) -> Option<Out> {
    let handles = st.unit_handles.borrow();
    let (id, _) = handles.get(idx)?.as_ref()?;
    if !Rc::ptr_eq(&w.units[idx].id, id) {
        return None;
    }
    // SAFETY: upvalue 3 of a frame's function is the handle table; one value is pushed.
    unsafe {
        if ffi::lua_rawgeti(f.l, ffi::lua_upvalueindex(3), idx as ffi::lua_Integer + 1) != ffi::LUA_TUSERDATA {
            ffi::lua_pop(f.l, 1);
            return None;
        }
    }
    Some(Out::Pushed(1))
}

/// `Some` when unit `idx` has a cached handle in the handle table (as
/// `push_unit` would push), checked without pushing anything: the handle
/// table holds a slot's handle from before `unit_handles` records it
/// (`world::unit_handle` sets the table first, and nothing else writes a
/// slot's entry), so the record alone answers.
pub fn cached_unit(st: &State, w: &World, idx: usize) -> Option<()> {
    let handles = st.unit_handles.borrow();
    let (id, _) = handles.get(idx)?.as_ref()?;
    Rc::ptr_eq(&w.units[idx].id, id).then_some(())
}

/// Pushes a string.
///
/// # Safety
/// `l` is a live state with room for one more value.
pub unsafe fn push_str(l: *mut ffi::lua_State, s: &str) {
    // SAFETY: the caller's contract.
    unsafe {
        ffi::lua_pushlstring(l, s.as_ptr() as *const _, s.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ascii_is_is_ascii_at_every_length_and_place() {
        // One byte at or above 0x80, at every place of every length up to 40,
        // and no such byte: the word reads must see each byte.
        for n in 0..=40usize {
            let text: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(short_ascii(&text), "ASCII of length {n}");
            for at in 0..n {
                for high in [0x80u8, 0xC3, 0xFF] {
                    let mut t = text.clone();
                    t[at] = high;
                    assert_eq!(short_ascii(&t), t.is_ascii(), "length {n}, byte {high:#x} at {at}");
                    assert!(!short_ascii(&t));
                }
            }
        }
    }

    #[test]
    fn ascii_or_utf8_takes_utf8_and_refuses_the_rest() {
        assert_eq!(ascii_or_utf8(b"allies"), Some("allies"));
        assert_eq!(ascii_or_utf8("tranchée".as_bytes()), Some("tranchée"));
        assert_eq!(ascii_or_utf8(b"bad \xFF byte"), None);
        assert_eq!(ascii_or_utf8(b""), Some(""));
    }
}
