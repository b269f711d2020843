//! The `decide` fast path.

use std::ffi::CStr;
use std::os::raw::c_int;

use mlua::ffi;

use super::fast::{self, fast_fn};
use crate::lua::{keys, DecisionMode};

/// Reads `t[k]` without metamethods onto the stack; returns its type.
///
/// # Safety
/// `l` is a live state with room for one more value; `t` an acceptable index.
unsafe fn field(l: *mut ffi::lua_State, t: c_int, k: &CStr) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { ffi::lua_rawgetfield(l, t, k.as_ptr()) }
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
        if field(l, ffi::LUA_REGISTRYINDEX, keys::ANSWERS_C) != ffi::LUA_TTABLE || ffi::lua_objlen(l, -1) > 0 {
            return None;
        }
        // Text fields must be what the full function reads as text; the
        // prompt may also be a function, which the default never calls.
        if field(l, 1, c"side") > ffi::LUA_TNIL && ffi::lua_type(l, -1) != ffi::LUA_TSTRING {
            return None;
        }
        if !matches!(field(l, 1, c"prompt"), ffi::LUA_TNIL | ffi::LUA_TSTRING | ffi::LUA_TFUNCTION) {
            return None;
        }
        match field(l, 1, c"id") {
            ffi::LUA_TNIL => {}
            ffi::LUA_TSTRING => {
                let id = ffi::lua_gettop(l);
                if field(l, ffi::LUA_REGISTRYINDEX, keys::POLICIES_C) != ffi::LUA_TTABLE {
                    return None;
                }
                ffi::lua_pushvalue(l, id);
                if ffi::lua_rawget(l, -2) != ffi::LUA_TNIL {
                    return None; // a policy decides
                }
            }
            _ => return None,
        }
        if field(l, 1, c"options") != ffi::LUA_TTABLE || ffi::lua_getmetatable(l, -1) != 0 {
            return None;
        }
        let options = ffi::lua_gettop(l);
        if field(l, 1, c"default") == ffi::LUA_TNIL {
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
