//! The `decide` fast path.

use std::os::raw::c_int;
use std::rc::Rc;

use mlua::ffi;

use super::fast::{self, fast_fn};
use crate::lua::{keys, DecisionMode, State};

thread_local! {
    /// The keys `decide` reads, as shared names: `push_name_ref` pushes
    /// their kept Lua strings (where `lua_rawgetfield` hashes the text into
    /// a string on every read).
    static KEYS: [Rc<str>; 7] =
        ["side", "prompt", "id", "options", "default", keys::ANSWERS, keys::POLICIES].map(Rc::from);
}
const SIDE: usize = 0;
const PROMPT: usize = 1;
const ID: usize = 2;
const OPTIONS: usize = 3;
const DEFAULT: usize = 4;
const ANSWERS: usize = 5;
const POLICIES: usize = 6;

/// Reads `t[KEYS[k]]` without metamethods onto the stack; returns its type.
///
/// # Safety
/// `l` is the state of a fast path's call (see `fast::push_name_ref`) with
/// room for one more value, holding no borrow of `st`'s cells; `t` an
/// absolute index or `LUA_REGISTRYINDEX`.
unsafe fn field(l: *mut ffi::lua_State, st: &State, t: c_int, k: usize) -> c_int {
    // SAFETY: the caller's contract; the key replaces itself with the value.
    unsafe {
        KEYS.with(|keys| fast::push_name_ref(l, st, &keys[k]));
        ffi::lua_rawget(l, t)
    }
}

// `decide` under simulation (see `fast`): no answers queued, nobody to ask,
// no policy for this decision and the log off, so the default is the choice.
// Everything else (and every error) is the full function's.
fast_fn!(decide, |l, st| {
    let l = l.raw();
    // SAFETY: the frame's own stack: reads of argument 1 and of registry
    // tables, at most seven values pushed (a C function has `LUA_MINSTACK`).
    unsafe {
        if ffi::lua_type(l, 1) != ffi::LUA_TTABLE || ffi::lua_getmetatable(l, 1) != 0 {
            return None;
        }
        if st.decision_mode.get() == DecisionMode::Strict || st.asker.try_borrow().ok()?.is_some() {
            return None;
        }
        if st.world.try_borrow().ok()?.log.recording {
            return None;
        }
        if field(l, st, ffi::LUA_REGISTRYINDEX, ANSWERS) != ffi::LUA_TTABLE || ffi::lua_objlen(l, -1) > 0 {
            return None;
        }
        // Text fields must be what the full function reads as text; the
        // prompt may also be a function, which the default never calls.
        if field(l, st, 1, SIDE) > ffi::LUA_TNIL && ffi::lua_type(l, -1) != ffi::LUA_TSTRING {
            return None;
        }
        if !matches!(field(l, st, 1, PROMPT), ffi::LUA_TNIL | ffi::LUA_TSTRING | ffi::LUA_TFUNCTION) {
            return None;
        }
        match field(l, st, 1, ID) {
            ffi::LUA_TNIL => {}
            ffi::LUA_TSTRING => {
                let id = ffi::lua_gettop(l);
                if field(l, st, ffi::LUA_REGISTRYINDEX, POLICIES) != ffi::LUA_TTABLE {
                    return None;
                }
                ffi::lua_pushvalue(l, id);
                if ffi::lua_rawget(l, -2) != ffi::LUA_TNIL {
                    return None; // a policy decides
                }
            }
            _ => return None,
        }
        if field(l, st, 1, OPTIONS) != ffi::LUA_TTABLE || ffi::lua_getmetatable(l, -1) != 0 {
            return None;
        }
        let options = ffi::lua_gettop(l);
        if field(l, st, 1, DEFAULT) == ffi::LUA_TNIL {
            // No default: the first option (an empty list is the full function's error).
            return (ffi::lua_rawgeti(l, options, 1) != ffi::LUA_TNIL).then_some(fast::Out::Pushed(1));
        }
        let default = ffi::lua_gettop(l);
        // The first option equal to the default. Tables and userdata may define
        // their own equality, so meeting one first is left to the full function.
        let mut i = 1;
        loop {
            let t = ffi::lua_rawgeti(l, options, i);
            if t == ffi::LUA_TNIL {
                return None;
            }
            if ffi::lua_rawequal(l, -1, default) != 0 {
                return Some(fast::Out::Pushed(1));
            }
            if t == ffi::LUA_TTABLE || t == ffi::LUA_TUSERDATA {
                return None;
            }
            ffi::lua_pop(l, 1);
            i += 1;
        }
    }
});
