//! A C function's arguments read, and its plain results (numbers, booleans,
//! nil, vectors, light userdata) pushed, straight on Luau's stack.
//!
//! Each Luau API call (`lua_type`, `lua_tonumberx`, `lua_tostringatom`,
//! `lua_pushnumber`, ...) costs 15-35 instructions, mostly its own prologue
//! and index checks, where the read itself is two loads. The hottest calls of
//! a trial (`r:count`, `dice.roll`, the world fast paths) read two or three
//! arguments each, millions of times a second.
//!
//! These readers use Luau's layout directly: a value slot (`TValue`, in
//! `VM/src/lobject.h`) is 16 bytes, the value first, its type tag at byte 12,
//! a light userdata's tag at byte 8; a string's bytes start 24 bytes into its
//! `TString`, its length at byte 20; a table (`LuaTable`) keeps its hash
//! part's size as a power of two at byte 6, its array part's length at byte
//! 8, the two parts at bytes 24 and 32 and whether it is frozen at byte 4,
//! each hash node a value slot then its key's (the key's type in the low
//! four bits of the tag, the offset to the next node of its chain in the
//! upper 28), its metatable at byte 16, and
//! a string's hash (which picks its first node) is 16 bytes into its
//! `TString`; a full userdata's bytes start 16 bytes into its `Udata`;
//! `lua_State`
//! (`VM/src/lstate.h`) begins with 8 bytes of header, then `top` and `base`,
//! and keeps the method name of a `NAMECALL` at byte 112 and the thread's
//! data pointer at byte 128.
//! That layout has not changed in years, but nothing promises it, so it is
//! trusted only once [`check`] has compared it with the API's own answers in
//! the running process (for values of every kind read here; the `namecall`
//! field on the first method call, see [`namecall`]); until then, and if it
//! ever differs, every function here calls the API instead. `tests/rolls.rs` fails if the check
//! does not pass, so a Luau upgrade that moves these fields is noticed rather
//! than silently slower, and compares `sim` output with the environment
//! variable `SANDTABLE_NO_DIRECT_STACK` set (which turns the direct readers
//! off) and without.

use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use mlua::{ffi, Lua};

/// Luau's value slot (`TValue`), as [`check`] confirms it.
#[repr(C)]
struct Slot {
    value: u64,
    extra: i32,
    tt: i32,
}

/// The head of Luau's `lua_State`: 8 bytes of header and flags, then the
/// first free slot and the current function's first argument.
#[repr(C)]
struct Head {
    _header: u64,
    top: *mut Slot,
    base: *mut Slot,
}

/// Where a string's bytes start in its `TString`, and where its length is.
const STRING_DATA: usize = 24;
const STRING_LEN: usize = 20;
/// Where a full userdata's bytes start in its `Udata` (what
/// `lua_touserdata` answers).
const USERDATA_DATA: usize = 16;
/// Where a string's hash is in its `TString` (a table's hash part is
/// indexed by its low bits).
const STRING_HASH: usize = 16;

/// Where `lua_State` keeps the name of the method a `NAMECALL` is calling
/// (a `TString*`) and the thread's data pointer (`lua_getthreaddata`).
const NAMECALL_AT: usize = 112;
const THREAD_DATA_AT: usize = 128;

/// Whether the `namecall` field was found where [`NAMECALL_AT`] says, by the
/// first call of [`namecall`] (it can only be compared inside a method call):
/// 0 not yet known, 1 yes, 2 no.
static NAMECALL_DIRECT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Set once [`check`] has confirmed the layout.
static DIRECT: AtomicBool = AtomicBool::new(false);
static CHECKED: Once = Once::new();

/// Confirms the layout (once per process) with values pushed through the API.
pub fn check(lua: &Lua) {
    CHECKED.call_once(|| {
        if std::env::var_os("SANDTABLE_NO_DIRECT_STACK").is_some() {
            return;
        }
        // SAFETY: pushes values through the API on the callback's own frame
        // and reads them back both ways; it reads the head of `lua_State` as
        // integers, and dereferences the slots it names only once they agree
        // with `lua_gettop` before and after a push.
        let ok = unsafe { lua.exec_raw::<bool>((), |l| ffi::lua_pushboolean(l, layout_holds(l) as c_int)) };
        DIRECT.store(ok.unwrap_or(false), Ordering::Relaxed);
    });
}

/// Whether the direct readers are in use (the layout check passed).
pub fn direct() -> bool {
    DIRECT.load(Ordering::Relaxed)
}

/// The check itself. It pushes at most 11 values; a C function's frame has
/// room for `LUA_MINSTACK` (20).
///
/// # Safety
/// `l` is the running state of a C function that has pushed nothing yet.
unsafe fn layout_holds(l: *mut ffi::lua_State) -> bool {
    // SAFETY: the function's contract; see `check`.
    unsafe {
        let head = l as *const Head;
        let words = |h: *const Head| {
            let w = h as *const usize;
            (w.add(1).read_unaligned(), w.add(2).read_unaligned())
        };
        let n0 = ffi::lua_gettop(l);
        let (top0, base0) = words(head);
        if top0.wrapping_sub(base0) != n0 as usize * 16 {
            return false;
        }
        ffi::lua_pushnumber(l, 2.5);
        let (top1, base1) = words(head);
        if top1 != top0 + 16 || base1 != base0 {
            return false;
        }
        let probe = 0x5a5a_0000_usize as *mut c_void;
        ffi::lua_pushlightuserdatatagged(l, probe, 3);
        ffi::lua_pushstring(l, c"sandtable".as_ptr());
        ffi::lua_pushvector(l, 1.0, -2.0, 3.0);
        ffi::lua_pushboolean(l, 1);
        ffi::lua_pushnil(l);
        let n = ffi::lua_gettop(l);
        let mut ok = words(head).0 == top0 + 16 * (n - n0) as usize;
        for i in n0 + 1..=n {
            ok &= raw::slot(l, i).is_some_and(|s| s.tt == ffi::lua_type(l, i));
        }
        ok = ok
            && raw::number(l, n0 + 1) == Some(2.5)
            && raw::light(l, n0 + 2, 3) == probe as usize
            && raw::light(l, n0 + 2, 4) == 0
            && raw::light(l, n0 + 1, 3) == 0
            && raw::string_ptr(l, n0 + 3) == ffi::lua_tostringatom(l, n0 + 3, std::ptr::null_mut()) as usize
            && raw::string_bytes(l, n0 + 3).is_some_and(|(p, len)| {
                let mut api_len = 0;
                let api = ffi::lua_tolstring(l, n0 + 3, &mut api_len) as *const u8;
                p == api && len == api_len && len == 9
            })
            && raw::vector(l, n0 + 4).is_some_and(|v| v == [1.0, -2.0, 3.0])
            && raw::string_ptr(l, n0 + 4) == 0
            && raw::number(l, n0 + 3).is_none()
            && raw::boolean(l, n0 + 5) == Some(true)
            && raw::boolean(l, n0 + 1).is_none()
            && raw::slot(l, n + 1).is_none();
        if !ok {
            ffi::lua_settop(l, n0);
            return false;
        }
        // The thread's data pointer, set for the check and put back.
        let data = ffi::lua_getthreaddata(l);
        ffi::lua_setthreaddata(l, probe);
        ok = ((l as *const u8).add(THREAD_DATA_AT) as *const usize).read_unaligned() == probe as usize;
        ffi::lua_setthreaddata(l, data);
        if !ok {
            ffi::lua_settop(l, n0);
            return false;
        }
        // Pushes, checked against the API's reads.
        raw::push_number(l, -7.25);
        raw::push_light(l, probe as usize, 5);
        raw::push_bool(l, true);
        raw::push_bool(l, false);
        raw::push_nil(l);
        raw::push_vector(l, [4.0, -5.0, 1.0]);
        let v = ffi::lua_tovector(l, n + 6);
        ok = !v.is_null() && [*v, *v.add(1), *v.add(2)] == [4.0, -5.0, 1.0];
        ffi::lua_pop(l, 1);
        ok = ok
            && ffi::lua_gettop(l) == n + 5
            && ffi::lua_tonumberx(l, n + 1, std::ptr::null_mut()) == -7.25
            && ffi::lua_tolightuserdatatagged(l, n + 2, 5) == probe
            && ffi::lua_type(l, n + 3) == ffi::LUA_TBOOLEAN
            && ffi::lua_toboolean(l, n + 3) == 1
            && ffi::lua_type(l, n + 4) == ffi::LUA_TBOOLEAN
            && ffi::lua_toboolean(l, n + 4) == 0
            && ffi::lua_type(l, n + 5) == ffi::LUA_TNIL;
        raw::pop_to(l, n + 1);
        ok &= ffi::lua_gettop(l) == n + 1;
        ffi::lua_settop(l, n0);
        ok && userdata_found_in_place(l) && table_layout_holds(l)
    }
}

/// The userdata part of the check: a full userdata's bytes read from its
/// slot must be where `lua_touserdata` says, and other values have none.
///
/// # Safety
/// As for [`layout_holds`], whose other checks have passed.
unsafe fn userdata_found_in_place(l: *mut ffi::lua_State) -> bool {
    // SAFETY: the function's contract; two values are pushed and popped.
    unsafe {
        let n0 = ffi::lua_gettop(l);
        let data = ffi::lua_newuserdata(l, 8) as usize;
        ffi::lua_pushlightuserdata(l, data as *mut c_void);
        let ok = data != 0
            && raw::userdata(l, n0 + 1) == data
            && raw::userdata(l, n0 + 2) == 0
            && raw::userdata(l, n0 + 3) == 0
            && raw::string_ptr(l, n0 + 1) == 0;
        ffi::lua_settop(l, n0);
        ok
    }
}

/// The table part of the check: a table of one array entry and three named
/// ones, walked in place, must give what `lua_rawiter` gives.
///
/// # Safety
/// As for [`layout_holds`], whose other checks have passed.
unsafe fn table_layout_holds(l: *mut ffi::lua_State) -> bool {
    // SAFETY: the function's contract; the table is made here and changes
    // only through the API, before it is read.
    unsafe {
        let n0 = ffi::lua_gettop(l);
        ffi::lua_createtable(l, 1, 3);
        let t = n0 + 1;
        ffi::lua_pushboolean(l, 1);
        ffi::lua_rawseti(l, t, 1);
        for (k, v) in [(c"alpha", 2.5), (c"beta", -1.0), (c"gamma", 0.0)] {
            ffi::lua_pushnumber(l, v);
            ffi::lua_rawsetfield(l, t, k.as_ptr());
        }
        ffi::lua_pushboolean(l, 0);
        ffi::lua_rawsetfield(l, t, c"beta".as_ptr());
        // What the API sees, in its order: (string key's bytes address or 0, key, value).
        let mut api: Vec<(usize, String, Plain)> = Vec::new();
        let mut at = 0;
        loop {
            at = ffi::lua_rawiter(l, t, at);
            if at < 0 {
                break;
            }
            let (addr, key) = if ffi::lua_type(l, -2) == ffi::LUA_TSTRING {
                let p = ffi::lua_tostringatom(l, -2, std::ptr::null_mut());
                (p as usize, std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned())
            } else {
                (0, ffi::lua_tonumberx(l, -2, std::ptr::null_mut()).to_string())
            };
            let value = match ffi::lua_type(l, -1) {
                ffi::LUA_TNUMBER => Plain::Num(ffi::lua_tonumberx(l, -1, std::ptr::null_mut())),
                ffi::LUA_TBOOLEAN => Plain::Bool(ffi::lua_toboolean(l, -1) != 0),
                _ => Plain::Other,
            };
            api.push((addr, key, value));
            ffi::lua_pop(l, 2);
        }
        let mut walked: Vec<(usize, String, Plain)> = Vec::new();
        let whole = raw::table_entries(l, t, |e| {
            let (addr, key) = match e.key {
                Some((addr, bytes)) => (addr, String::from_utf8_lossy(bytes).into_owned()),
                None => (0, "1".to_string()),
            };
            walked.push((addr, key, e.value));
            true
        });
        ffi::lua_settop(l, n0);
        whole == Some(true) && api.len() == 4 && api == walked && fields_found_in_place(l)
    }
}

/// The last part of the check: fields read in place by their key string
/// (`TableRef::field`) must be what `lua_rawgetfield` reads, in a table of
/// twenty named values (so nodes share chains) with one removed, and for a
/// key it lacks; numbers written in place (`TableRef::set_node_number`)
/// must be what the API reads; the table pushed by its address
/// (`push_kept_table`) must be the same; a table of two keys alone must be
/// read as that pair (`TableRef::only_pair`), one of three not; and its
/// metatable must be seen once it has one.
///
/// # Safety
/// As for [`table_layout_holds`].
unsafe fn fields_found_in_place(l: *mut ffi::lua_State) -> bool {
    // SAFETY: the function's contract; the table is made here and changes
    // only through the API; at most three values are pushed above it.
    unsafe {
        let n0 = ffi::lua_gettop(l);
        ffi::lua_createtable(l, 0, 0);
        let t = n0 + 1;
        let names: Vec<std::ffi::CString> =
            (0..20).map(|i| std::ffi::CString::new(format!("key{i}")).expect("no NUL")).collect();
        for (i, k) in names.iter().enumerate() {
            if i == 3 {
                ffi::lua_createtable(l, 0, 0);
            } else {
                ffi::lua_pushnumber(l, i as f64 + 0.5);
            }
            ffi::lua_rawsetfield(l, t, k.as_ptr());
        }
        ffi::lua_pushnil(l);
        ffi::lua_rawsetfield(l, t, names[7].as_ptr());
        let Some(tbl) = raw::table(l, t) else {
            ffi::lua_settop(l, n0);
            return false;
        };
        let mut ok = !tbl.has_metatable();
        for k in names.iter().map(|k| k.as_c_str()).chain([c"absent"]) {
            ffi::lua_pushstring(l, k.as_ptr());
            let key = raw::string_ptr(l, t + 1);
            let api = ffi::lua_rawgetfield(l, t, k.as_ptr());
            let v = tbl.field(key);
            ok &= key != 0
                && v.kind() == api
                && v.number() == (api == ffi::LUA_TNUMBER).then(|| ffi::lua_tonumberx(l, t + 2, std::ptr::null_mut()))
                && v.table().is_some() == (api == ffi::LUA_TTABLE);
            ffi::lua_settop(l, t);
        }
        ok &= tbl.address() == ffi::lua_topointer(l, t) as usize && !tbl.frozen();
        // A number written in place is what the API reads; the table pushed
        // by its address is the same table.
        for (i, k) in names.iter().enumerate().filter(|(i, _)| *i != 3 && *i != 7) {
            ffi::lua_pushstring(l, k.as_ptr());
            let key = raw::string_ptr(l, t + 1);
            ffi::lua_settop(l, t);
            let Some(n) = tbl.node_of(key) else {
                ffi::lua_settop(l, n0);
                return false;
            };
            tbl.set_node_number(n, -(i as f64));
            ok &= ffi::lua_rawgetfield(l, t, k.as_ptr()) == ffi::LUA_TNUMBER
                && ffi::lua_tonumberx(l, t + 1, std::ptr::null_mut()) == -(i as f64);
            ffi::lua_settop(l, t);
        }
        ffi::lua_pushstring(l, c"absent".as_ptr());
        ok &= tbl.node_of(raw::string_ptr(l, t + 1)).is_none();
        ffi::lua_settop(l, t);
        raw::push_kept_table(l, tbl.address());
        ok &= ffi::lua_rawequal(l, t, t + 1) != 0;
        ffi::lua_settop(l, t);
        // A table of two keys alone is read as a pair, either way round; a
        // third key, or a table of more room, is not.
        ffi::lua_pushstring(l, names[0].as_ptr());
        ffi::lua_pushstring(l, names[1].as_ptr());
        let (a, b) = (raw::string_ptr(l, t + 1), raw::string_ptr(l, t + 2));
        ok &= tbl.only_pair(a, b).is_none();
        for third in [false, true] {
            ffi::lua_createtable(l, 0, 2);
            ffi::lua_pushnumber(l, 1.5);
            ffi::lua_rawsetfield(l, t + 3, names[1].as_ptr());
            ffi::lua_pushnumber(l, -2.5);
            ffi::lua_rawsetfield(l, t + 3, names[0].as_ptr());
            if third {
                ffi::lua_pushboolean(l, 1);
                ffi::lua_rawsetfield(l, t + 3, names[2].as_ptr());
            }
            let pair = raw::table(l, t + 3).and_then(|p| p.only_pair(a, b));
            ok &= match pair {
                Some((x, y)) => !third && x.number() == Some(-2.5) && y.number() == Some(1.5),
                None => third,
            };
            ffi::lua_settop(l, t + 2);
        }
        ffi::lua_settop(l, t);
        ffi::lua_setreadonly(l, t, 1);
        ok &= tbl.frozen();
        ffi::lua_setreadonly(l, t, 0);
        ok &= !tbl.frozen();
        ffi::lua_createtable(l, 0, 0);
        ffi::lua_setmetatable(l, t);
        ok &= tbl.has_metatable();
        ffi::lua_settop(l, n0);
        ok
    }
}

/// A value read in place from a table: the kinds a metric may be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Plain {
    Num(f64),
    Bool(bool),
    /// Any other kind of value.
    Other,
}

/// An entry of a table, read in place.
pub struct Entry<'t> {
    /// For a string key: where its bytes start (as [`string_ptr`] answers:
    /// one address per text while the string lives, as Luau keeps one
    /// string per text) and the bytes. `None` for any other key.
    pub key: Option<(usize, &'t [u8])>,
    pub value: Plain,
}

/// Calls `f` with each entry of the table at stack index `i` whose value is
/// not nil, in `lua_rawiter`'s order (array part, then hash part), until `f`
/// returns false; returns whether every call returned true. `None` when the
/// direct readers are off or the value is not a table: walk it with
/// `lua_rawiter` then, a call that pushes two values per entry.
///
/// # Safety
/// `l` is the running state of a C function or protected call and `i` a
/// positive index of its frame; nothing may change the table while `f` runs.
pub unsafe fn table_entries(l: *mut ffi::lua_State, i: c_int, f: impl FnMut(Entry<'_>) -> bool) -> Option<bool> {
    if !direct() {
        return None;
    }
    // SAFETY: the function's contract; the layout holds.
    unsafe { raw::table_entries(l, i, f) }
}

/// The accessors, with the layout assumed (each public function below calls
/// its namesake once [`direct`] says the layout holds, the API otherwise).
/// Code that has itself found [`direct`] true may call them straight: the
/// fast paths do (`fast::run` hands every call to the full function when
/// the layout is not trusted), which spares a check at every read and push.
pub mod raw {
    use super::*;

    /// `lua_type` of argument `i`, `LUA_TNONE` past the last.
    ///
    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn type_of(l: *mut ffi::lua_State, i: c_int) -> c_int {
        // SAFETY: the function's contract.
        unsafe { slot(l, i).map_or(ffi::LUA_TNONE, |s| s.tt) }
    }

    /// The thread's data pointer (`lua_getthreaddata`).
    ///
    /// # Safety
    /// `l` is a live state, and the layout holds.
    #[inline(always)]
    pub unsafe fn thread_data(l: *mut ffi::lua_State) -> *mut c_void {
        // SAFETY: the function's contract; the field's place was checked.
        unsafe { ((l as *const u8).add(THREAD_DATA_AT) as *const *mut c_void).read() }
    }

    /// Argument `i` (1-based) of the running C function; `None` past the last.
    ///
    /// # Safety
    /// `l` is the running state of a C function, `i >= 1`, and the layout
    /// holds (or this is the check finding out, see `layout_holds`).
    #[inline(always)]
    pub(super) unsafe fn slot<'a>(l: *mut ffi::lua_State, i: c_int) -> Option<&'a Slot> {
        // SAFETY: the function's contract: a slot below `top` is a live slot
        // of this frame.
        unsafe {
            let head = &*(l as *const Head);
            let p = head.base.wrapping_add(i as usize - 1);
            (p < head.top).then(|| &*p)
        }
    }

    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn number(l: *mut ffi::lua_State, i: c_int) -> Option<f64> {
        // SAFETY: the function's contract.
        let s = unsafe { slot(l, i)? };
        (s.tt == ffi::LUA_TNUMBER).then(|| f64::from_bits(s.value))
    }

    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn boolean(l: *mut ffi::lua_State, i: c_int) -> Option<bool> {
        // SAFETY: the function's contract.
        let s = unsafe { slot(l, i)? };
        (s.tt == ffi::LUA_TBOOLEAN).then_some(s.value as u32 != 0)
    }

    /// # Safety
    /// `l` is the running state of a C function, and the layout holds.
    #[inline(always)]
    pub unsafe fn top(l: *mut ffi::lua_State) -> c_int {
        // SAFETY: the function's contract: `top` and `base` bound this
        // frame's values, as `lua_gettop` reads them.
        unsafe {
            let head = &*(l as *const Head);
            head.top.offset_from(head.base) as c_int
        }
    }

    /// # Safety
    /// `l` is the running state of a C function and `i` at most its
    /// number of values, and the layout holds.
    #[inline(always)]
    pub unsafe fn pop_to(l: *mut ffi::lua_State, i: c_int) {
        // SAFETY: the function's contract: lowering `top` to a slot of this
        // frame drops values, as `lua_settop` does.
        unsafe {
            let head = &mut *(l as *mut Head);
            head.top = head.base.add(i as usize);
        }
    }

    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn light(l: *mut ffi::lua_State, i: c_int, tag: c_int) -> usize {
        // SAFETY: the function's contract.
        match unsafe { slot(l, i) } {
            Some(s) if s.tt == ffi::LUA_TLIGHTUSERDATA && s.extra == tag => s.value as usize,
            _ => 0,
        }
    }

    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn string_ptr(l: *mut ffi::lua_State, i: c_int) -> usize {
        // SAFETY: the function's contract.
        match unsafe { slot(l, i) } {
            Some(s) if s.tt == ffi::LUA_TSTRING => s.value as usize + STRING_DATA,
            _ => 0,
        }
    }

    /// Where a full userdata argument's bytes start (`lua_touserdata`), 0
    /// for any other value (a light userdata included).
    ///
    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn userdata(l: *mut ffi::lua_State, i: c_int) -> usize {
        // SAFETY: the function's contract.
        match unsafe { slot(l, i) } {
            Some(s) if s.tt == ffi::LUA_TUSERDATA => s.value as usize + USERDATA_DATA,
            _ => 0,
        }
    }

    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn string_bytes(l: *mut ffi::lua_State, i: c_int) -> Option<(*const u8, usize)> {
        // SAFETY: the function's contract; a string slot's value is its `TString`.
        unsafe {
            let s = slot(l, i)?;
            if s.tt != ffi::LUA_TSTRING {
                return None;
            }
            let ts = s.value as *const u8;
            Some((ts.add(STRING_DATA), (ts.add(STRING_LEN) as *const u32).read() as usize))
        }
    }

    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn vector(l: *mut ffi::lua_State, i: c_int) -> Option<[f32; 3]> {
        // SAFETY: the function's contract; a vector's components are the
        // value's two floats and the extra word.
        let s = unsafe { slot(l, i)? };
        if s.tt != ffi::LUA_TVECTOR {
            return None;
        }
        let lo = s.value;
        Some([f32::from_bits(lo as u32), f32::from_bits((lo >> 32) as u32), f32::from_bits(s.extra as u32)])
    }

    /// The head of Luau's `LuaTable`, as the check confirms it.
    #[repr(C)]
    struct TableHead {
        _header: [u8; 4],
        readonly: u8,
        _safeenv: u8,
        lsizenode: u8,
        _nodemask8: u8,
        sizearray: c_int,
        _boundary: c_int,
        metatable: *const c_void,
        array: *const Slot,
        node: *const Node,
    }

    /// A hash node: the value, then the key (its type in the tag's low 4 bits).
    #[repr(C)]
    struct Node {
        value: Slot,
        key: Slot,
    }

    fn plain(s: &Slot) -> Plain {
        match s.tt {
            ffi::LUA_TNUMBER => Plain::Num(f64::from_bits(s.value)),
            ffi::LUA_TBOOLEAN => Plain::Bool(s.value as u32 != 0),
            _ => Plain::Other,
        }
    }

    /// # Safety
    /// As for [`super::table_entries`], with the layout holding (or this is
    /// the check finding out).
    #[inline(always)]
    pub(super) unsafe fn table_entries(
        l: *mut ffi::lua_State,
        i: c_int,
        mut f: impl FnMut(Entry<'_>) -> bool,
    ) -> Option<bool> {
        // SAFETY: the function's contract: a table slot's value is its
        // `LuaTable`, whose parts hold `sizearray` and 2^lsizenode slots.
        unsafe {
            let s = slot(l, i)?;
            if s.tt != ffi::LUA_TTABLE {
                return None;
            }
            let t = &*(s.value as *const TableHead);
            if t.sizearray > 0 {
                for v in std::slice::from_raw_parts(t.array, t.sizearray as usize) {
                    if v.tt != ffi::LUA_TNIL && !f(Entry { key: None, value: plain(v) }) {
                        return Some(false);
                    }
                }
            }
            for n in std::slice::from_raw_parts(t.node, 1usize << t.lsizenode) {
                if n.value.tt == ffi::LUA_TNIL {
                    continue;
                }
                let key = ((n.key.tt & 0xF) == ffi::LUA_TSTRING).then(|| {
                    let ts = n.key.value as *const u8;
                    let len = (ts.add(STRING_LEN) as *const u32).read() as usize;
                    (ts as usize + STRING_DATA, std::slice::from_raw_parts(ts.add(STRING_DATA), len))
                });
                if !f(Entry { key, value: plain(&n.value) }) {
                    return Some(false);
                }
            }
            Some(true)
        }
    }

    /// A table read in place (its `LuaTable`), as [`table`] finds it.
    #[derive(Clone, Copy)]
    pub struct TableRef(*const TableHead);

    /// A value read in place from a table (its slot copied).
    #[derive(Clone, Copy)]
    pub struct Value {
        bits: u64,
        tt: c_int,
    }

    /// The value of a missing field.
    const NIL: Value = Value { bits: 0, tt: ffi::LUA_TNIL };

    impl Value {
        /// Its `lua_type`.
        pub fn kind(self) -> c_int {
            self.tt
        }

        pub fn number(self) -> Option<f64> {
            (self.tt == ffi::LUA_TNUMBER).then(|| f64::from_bits(self.bits))
        }

        pub fn table(self) -> Option<TableRef> {
            (self.tt == ffi::LUA_TTABLE).then_some(TableRef(self.bits as *const TableHead))
        }

        /// For a string, where its bytes start (as [`string_ptr`] answers:
        /// Luau keeps one string per text, so equal texts give one address).
        pub fn string_ptr(self) -> Option<usize> {
            (self.tt == ffi::LUA_TSTRING).then_some(self.bits as usize + STRING_DATA)
        }
    }

    /// Argument `i` as a table.
    ///
    /// # Safety
    /// As for [`slot`].
    #[inline(always)]
    pub unsafe fn table(l: *mut ffi::lua_State, i: c_int) -> Option<TableRef> {
        // SAFETY: the function's contract.
        let s = unsafe { slot(l, i)? };
        (s.tt == ffi::LUA_TTABLE).then_some(TableRef(s.value as *const TableHead))
    }

    impl TableRef {
        /// Where the table is: what `lua_topointer` answers for it.
        pub fn address(self) -> usize {
            self.0 as usize
        }

        /// Whether the table is frozen (`lua_getreadonly`).
        ///
        /// # Safety
        /// As for [`TableRef::has_metatable`].
        #[inline(always)]
        pub unsafe fn frozen(self) -> bool {
            // SAFETY: the function's contract.
            unsafe { (*self.0).readonly != 0 }
        }

        /// Whether the table has a metatable (`lua_getmetatable`).
        ///
        /// # Safety
        /// The table is alive (held by a live frame's value, or by a table
        /// such a value holds, unchanged since it was read).
        #[inline(always)]
        pub unsafe fn has_metatable(self) -> bool {
            // SAFETY: the function's contract.
            unsafe { !(*self.0).metatable.is_null() }
        }

        /// `rawget(t, key)` for a string key given by where its bytes start
        /// (`string_ptr`), found as `luaH_getstr` finds it: from the node the
        /// string's hash picks, along the chain of `next` offsets (the key
        /// tag's upper 28 bits). Nil when absent.
        ///
        /// # Safety
        /// As for [`TableRef::has_metatable`]; `key` is a live string's.
        #[inline(always)]
        pub unsafe fn field(self, key: usize) -> Value {
            // SAFETY: the function's contract: the hash part holds
            // 2^lsizenode nodes and every chain offset stays inside it.
            unsafe {
                let t = &*self.0;
                let ts = (key - STRING_DATA) as u64;
                let hash = ((key - STRING_DATA + STRING_HASH) as *const u32).read() as usize;
                let mut n = t.node.add(hash & ((1usize << t.lsizenode) - 1));
                loop {
                    let k = &(*n).key;
                    if (k.tt & 0xF) == ffi::LUA_TSTRING && k.value == ts {
                        return Value { bits: (*n).value.value, tt: (*n).value.tt };
                    }
                    let next = k.tt >> 4;
                    if next == 0 {
                        return NIL;
                    }
                    n = n.offset(next as isize);
                }
            }
        }
    }

    impl TableRef {
        /// Which node of the hash part holds string key `key` (as
        /// [`TableRef::field`] finds it), if any.
        ///
        /// # Safety
        /// As for [`TableRef::field`].
        pub unsafe fn node_of(self, key: usize) -> Option<usize> {
            // SAFETY: the function's contract, as in `field`.
            unsafe {
                let t = &*self.0;
                let ts = (key - STRING_DATA) as u64;
                let hash = ((key - STRING_DATA + STRING_HASH) as *const u32).read() as usize;
                let mut at = hash & ((1usize << t.lsizenode) - 1);
                loop {
                    let k = &(*t.node.add(at)).key;
                    if (k.tt & 0xF) == ffi::LUA_TSTRING && k.value == ts {
                        return Some(at);
                    }
                    let next = k.tt >> 4;
                    if next == 0 {
                        return None;
                    }
                    at = at.wrapping_add_signed(next as isize);
                }
            }
        }

        /// The values of string keys `a` and `b` (given as for
        /// [`TableRef::field`]) when they are the table's only keys: no
        /// array part, and a hash part of two nodes holding these two keys
        /// (either way round), so that no other key can be there. `None`
        /// for any other table (read it field by field).
        ///
        /// # Safety
        /// As for [`TableRef::field`].
        #[inline(always)]
        pub unsafe fn only_pair(self, a: usize, b: usize) -> Option<(Value, Value)> {
            // SAFETY: the function's contract: a hash part of 2^1 nodes.
            unsafe {
                let t = &*self.0;
                if t.sizearray != 0 || t.lsizenode != 1 {
                    return None;
                }
                let (n0, n1) = (&*t.node, &*t.node.add(1));
                let is = |n: &Node, k: usize| {
                    (n.key.tt & 0xF) == ffi::LUA_TSTRING && n.key.value == (k - STRING_DATA) as u64
                };
                let value = |n: &Node| Value { bits: n.value.value, tt: n.value.tt };
                if is(n0, a) && is(n1, b) {
                    Some((value(n0), value(n1)))
                } else if is(n0, b) && is(n1, a) {
                    Some((value(n1), value(n0)))
                } else {
                    None
                }
            }
        }

        /// Sets the value of node `n` to the number `x`, in place: what
        /// `lua_rawset` does for the key there, without finding it. A
        /// number is not collectable, so no barrier is owed.
        ///
        /// # Safety
        /// As for [`TableRef::field`]; the table is not frozen, and `n` is
        /// a node of its hash part that holds a number.
        #[inline(always)]
        pub unsafe fn set_node_number(self, n: usize, x: f64) {
            // SAFETY: the function's contract.
            unsafe {
                let node = (*self.0).node.add(n) as *mut Node;
                (*node).value.value = x.to_bits();
            }
        }
    }

    /// Pushes a table kept alive elsewhere, given its address (as
    /// [`TableRef::address`] answers).
    ///
    /// # Safety
    /// As for [`push_kept_string`]: the table stays reachable from a rooted
    /// table while it may be on the stack.
    #[inline(always)]
    pub unsafe fn push_kept_table(l: *mut ffi::lua_State, address: usize) {
        // SAFETY: the function's contract.
        unsafe { push(l, Slot { value: address as u64, extra: 0, tt: ffi::LUA_TTABLE }) }
    }

    /// # Safety
    /// `l` is the running state of a C function with room for one more
    /// value, and the layout holds.
    #[inline(always)]
    pub unsafe fn push_number(l: *mut ffi::lua_State, x: f64) {
        // SAFETY: the function's contract: `top` is a free slot of this frame.
        unsafe { push(l, Slot { value: x.to_bits(), extra: 0, tt: ffi::LUA_TNUMBER }) }
    }

    /// # Safety
    /// As for [`push_number`].
    #[inline(always)]
    pub unsafe fn push_light(l: *mut ffi::lua_State, p: usize, tag: c_int) {
        // SAFETY: the function's contract.
        unsafe { push(l, Slot { value: p as u64, extra: tag, tt: ffi::LUA_TLIGHTUSERDATA }) }
    }

    /// # Safety
    /// As for [`push_number`].
    #[inline(always)]
    pub unsafe fn push_bool(l: *mut ffi::lua_State, b: bool) {
        // SAFETY: the function's contract.
        unsafe { push(l, Slot { value: b as u64, extra: 0, tt: ffi::LUA_TBOOLEAN }) }
    }

    /// # Safety
    /// As for [`push_number`].
    #[inline(always)]
    pub unsafe fn push_nil(l: *mut ffi::lua_State) {
        // SAFETY: the function's contract.
        unsafe { push(l, Slot { value: 0, extra: 0, tt: ffi::LUA_TNIL }) }
    }

    /// # Safety
    /// As for [`push_number`].
    #[inline(always)]
    pub unsafe fn push_vector(l: *mut ffi::lua_State, v: [f32; 3]) {
        let value = u64::from(v[0].to_bits()) | u64::from(v[1].to_bits()) << 32;
        // SAFETY: the function's contract.
        unsafe { push(l, Slot { value, extra: v[2].to_bits() as i32, tt: ffi::LUA_TVECTOR }) }
    }

    /// # Safety
    /// As for [`push_number`]; `s` holds no collectable object.
    #[inline(always)]
    pub unsafe fn push_kept_string(l: *mut ffi::lua_State, data: usize) {
        // SAFETY: the function's contract; `data` is where a live string's
        // bytes start, STRING_DATA past its `TString`.
        unsafe { push(l, Slot { value: (data - STRING_DATA) as u64, extra: 0, tt: ffi::LUA_TSTRING }) }
    }

    /// # Safety
    /// As for [`push_number`].
    #[inline(always)]
    unsafe fn push(l: *mut ffi::lua_State, s: Slot) {
        // SAFETY: the function's contract.
        unsafe {
            let head = &mut *(l as *mut Head);
            head.top.write(s);
            head.top = head.top.add(1);
        }
    }
}

/// Pushes a string kept alive elsewhere, given where its bytes start (as
/// [`string_ptr`] answers), without the API: false (nothing pushed) when
/// the direct readers are off, for the caller to push it through the API.
///
/// Luau's API puts a thread barrier before pushing a collectable value,
/// because a black thread is not traversed again in the same cycle. This
/// push skips it, which is sound only for a string that stays reachable from
/// a rooted table (the fast paths' names table) for as long as it may be on
/// the stack: the collector marks it through that table in every cycle.
///
/// # Safety
/// `l` is a live state with room for one more value, and `data` is
/// `string_ptr` of a string that is kept as said above.
#[inline(always)]
pub unsafe fn push_kept_string(l: *mut ffi::lua_State, data: usize) -> bool {
    if !direct() {
        return false;
    }
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe { raw::push_kept_string(l, data) };
    true
}

/// A table read and written in place (see [`in_place_table`]).
pub type InPlace = raw::TableRef;

/// The table at positive index `i`, to read and write in place: `None`
/// when the direct readers are off or the value is not a table.
///
/// # Safety
/// `l` is a live state and `i` a positive index of its current frame.
#[inline(always)]
pub unsafe fn in_place_table(l: *mut ffi::lua_State, i: c_int) -> Option<InPlace> {
    if !direct() {
        return None;
    }
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe { raw::table(l, i) }
}

/// Pushes a table kept alive elsewhere, given its address, without the
/// API: false (nothing pushed) when the direct readers are off. As for
/// [`push_kept_string`], the thread barrier is skipped, which is sound only
/// for a table that stays reachable from a rooted table for as long as it
/// may be on the stack.
///
/// # Safety
/// `l` is a live state with room for one more value; `address` is where
/// such a table is (`lua_topointer`).
#[inline(always)]
pub unsafe fn push_kept_table(l: *mut ffi::lua_State, address: usize) -> bool {
    if !direct() {
        return false;
    }
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe { raw::push_kept_table(l, address) };
    true
}

/// `lua_getthreaddata(l)`.
///
/// # Safety
/// `l` is a live state.
#[inline(always)]
pub unsafe fn thread_data(l: *mut ffi::lua_State) -> *mut c_void {
    // SAFETY: the function's contract; the field's place was checked.
    unsafe {
        if direct() {
            raw::thread_data(l)
        } else {
            ffi::lua_getthreaddata(l)
        }
    }
}

/// `lua_namecallatom(l, NULL)`: the bytes of the method name a `NAMECALL`
/// is calling (null when none). Its place in `lua_State` is compared with
/// the API's answer on the first call (only a method call has one to
/// compare), and read directly from then on if they agree.
///
/// # Safety
/// `l` is the running state of a C function.
#[inline(always)]
pub unsafe fn namecall(l: *mut ffi::lua_State) -> *const u8 {
    // SAFETY: the function's contract; the field is read as an integer until
    // it has been found equal to the API's answer.
    unsafe {
        let field = || ((l as *const u8).add(NAMECALL_AT) as *const usize).read_unaligned();
        match NAMECALL_DIRECT.load(Ordering::Relaxed) {
            1 => {
                let s = field();
                if s == 0 {
                    std::ptr::null()
                } else {
                    (s + STRING_DATA) as *const u8
                }
            }
            0 if direct() => {
                let api = ffi::lua_namecallatom(l, std::ptr::null_mut()) as *const u8;
                let s = field();
                let same = !api.is_null() && s != 0 && s + STRING_DATA == api as usize;
                NAMECALL_DIRECT.store(if same { 1 } else { 2 }, Ordering::Relaxed);
                api
            }
            _ => ffi::lua_namecallatom(l, std::ptr::null_mut()) as *const u8,
        }
    }
}

/// `lua_type(l, i)` for an argument (`i >= 1`).
///
/// # Safety
/// `l` is the running state of a C function; `i >= 1`.
#[inline(always)]
pub unsafe fn type_of(l: *mut ffi::lua_State, i: c_int) -> c_int {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::type_of(l, i)
        } else {
            ffi::lua_type(l, i)
        }
    }
}

/// A number argument (`i >= 1`), not converting strings.
///
/// # Safety
/// `l` is the running state of a C function; `i >= 1`.
#[inline(always)]
pub unsafe fn number(l: *mut ffi::lua_State, i: c_int) -> Option<f64> {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            return raw::number(l, i);
        }
        (ffi::lua_type(l, i) == ffi::LUA_TNUMBER).then(|| ffi::lua_tonumberx(l, i, std::ptr::null_mut()))
    }
}

/// A boolean argument (`i >= 1`).
///
/// # Safety
/// `l` is the running state of a C function; `i >= 1`.
#[inline(always)]
pub unsafe fn boolean(l: *mut ffi::lua_State, i: c_int) -> Option<bool> {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            return raw::boolean(l, i);
        }
        (ffi::lua_type(l, i) == ffi::LUA_TBOOLEAN).then(|| ffi::lua_toboolean(l, i) != 0)
    }
}

/// `lua_gettop(l)`: how many values the running C function's frame holds.
///
/// # Safety
/// `l` is the running state of a C function.
#[inline(always)]
pub unsafe fn top(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::top(l)
        } else {
            ffi::lua_gettop(l)
        }
    }
}

/// `lua_settop(l, i)` for `0 <= i <=` the number of values on the stack
/// (a pop).
///
/// # Safety
/// `l` is the running state of a C function with at least `i >= 0` values.
#[inline(always)]
pub unsafe fn pop_to(l: *mut ffi::lua_State, i: c_int) {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::pop_to(l, i)
        } else {
            ffi::lua_settop(l, i)
        }
    }
}

/// `lua_tolightuserdatatagged(l, i, tag)` as an address (0 when not one).
///
/// # Safety
/// `l` is the running state of a C function; `i >= 1`.
#[inline(always)]
pub unsafe fn light(l: *mut ffi::lua_State, i: c_int, tag: c_int) -> usize {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::light(l, i, tag)
        } else {
            ffi::lua_tolightuserdatatagged(l, i, tag) as usize
        }
    }
}

/// The address of a string argument's bytes (0 when not a string): what
/// `lua_tostringatom` returns. Luau interns strings, so equal addresses mean
/// equal strings while both are alive.
///
/// # Safety
/// `l` is the running state of a C function; `i >= 1`.
#[inline(always)]
pub unsafe fn string_ptr(l: *mut ffi::lua_State, i: c_int) -> usize {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::string_ptr(l, i)
        } else {
            ffi::lua_tostringatom(l, i, std::ptr::null_mut()) as usize
        }
    }
}

/// A string argument's bytes and length, without converting numbers.
///
/// # Safety
/// `l` is the running state of a C function; `i >= 1`. The bytes live as
/// long as the argument stays on the stack.
#[inline(always)]
pub unsafe fn string_bytes(l: *mut ffi::lua_State, i: c_int) -> Option<(*const u8, usize)> {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            return raw::string_bytes(l, i);
        }
        let mut len = 0usize;
        let p = ffi::lua_tolstringatom(l, i, &mut len, std::ptr::null_mut()) as *const u8;
        (!p.is_null()).then_some((p, len))
    }
}

/// A vector argument's three components.
///
/// # Safety
/// `l` is the running state of a C function; `i >= 1`.
#[inline(always)]
pub unsafe fn vector(l: *mut ffi::lua_State, i: c_int) -> Option<[f32; 3]> {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            return raw::vector(l, i);
        }
        let v = ffi::lua_tovector(l, i);
        (!v.is_null()).then(|| [*v, *v.add(1), *v.add(2)])
    }
}

/// `lua_pushnumber`, for a C function that has pushed fewer than
/// `LUA_MINSTACK` values (the room its frame is given).
///
/// # Safety
/// `l` is the running state of a C function with room for one more value.
#[inline(always)]
pub unsafe fn push_number(l: *mut ffi::lua_State, x: f64) {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::push_number(l, x)
        } else {
            ffi::lua_pushnumber(l, x)
        }
    }
}

/// `lua_pushboolean`, as [`push_number`].
///
/// # Safety
/// As for [`push_number`].
#[inline(always)]
pub unsafe fn push_bool(l: *mut ffi::lua_State, b: bool) {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::push_bool(l, b)
        } else {
            ffi::lua_pushboolean(l, b as c_int)
        }
    }
}

/// `lua_pushnil`, as [`push_number`].
///
/// # Safety
/// As for [`push_number`].
#[inline(always)]
pub unsafe fn push_nil(l: *mut ffi::lua_State) {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::push_nil(l)
        } else {
            ffi::lua_pushnil(l)
        }
    }
}

/// `lua_pushvector`, as [`push_number`].
///
/// # Safety
/// As for [`push_number`].
#[inline(always)]
pub unsafe fn push_vector(l: *mut ffi::lua_State, v: [f32; 3]) {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::push_vector(l, v)
        } else {
            ffi::lua_pushvector(l, v[0], v[1], v[2])
        }
    }
}

/// `lua_pushlightuserdatatagged`, as [`push_number`].
///
/// # Safety
/// As for [`push_number`].
#[inline(always)]
pub unsafe fn push_light(l: *mut ffi::lua_State, p: usize, tag: c_int) {
    // SAFETY: the function's contract; `raw` only once the layout holds.
    unsafe {
        if direct() {
            raw::push_light(l, p, tag)
        } else {
            ffi::lua_pushlightuserdatatagged(l, p as *mut c_void, tag)
        }
    }
}
