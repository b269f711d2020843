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
    static KEYS: [Rc<str>; 9] = [
        "side",
        "prompt",
        "id",
        "options",
        "default",
        keys::ANSWERS,
        keys::POLICIES,
        keys::TBCALL,
        keys::POLICY_ANSWERED,
    ]
    .map(Rc::from);
}
const SIDE: usize = 0;
const PROMPT: usize = 1;
const ID: usize = 2;
const OPTIONS: usize = 3;
const DEFAULT: usize = 4;
const ANSWERS: usize = 5;
const POLICIES: usize = 6;
const TBCALL: usize = 7;
const POLICY_ANSWERED: usize = 8;

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

// `decide` under simulation (see `fast`): no answers queued, nobody to ask
// and the log off, so the decision's policy chooses, or without one the
// default is the choice. Everything else (and every error) is the full
// function's. A policy is called after the body (`call_policy`), through
// the traceback runner as the full function calls it.
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
        // The policy's slot, when the decision has one.
        let mut policy = None;
        match field(l, st, 1, ID) {
            ffi::LUA_TNIL => {}
            ffi::LUA_TSTRING => {
                let id = ffi::lua_gettop(l);
                if field(l, st, ffi::LUA_REGISTRYINDEX, POLICIES) != ffi::LUA_TTABLE {
                    return None;
                }
                ffi::lua_pushvalue(l, id);
                match ffi::lua_rawget(l, -2) {
                    ffi::LUA_TNIL => {}
                    ffi::LUA_TFUNCTION => policy = Some(ffi::lua_gettop(l)),
                    _ => return None,
                }
            }
            _ => return None,
        }
        if field(l, st, 1, OPTIONS) != ffi::LUA_TTABLE || ffi::lua_getmetatable(l, -1) != 0 {
            return None;
        }
        let options = ffi::lua_gettop(l);
        if let Some(policy) = policy {
            return policy_call(l, st, policy, options);
        }
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

/// Checks a decision with a policy as the full function would before calling
/// it (the default among the options), and sets up the call: the runner,
/// the policy, the options and the request on top of the stack.
///
/// # Safety
/// As for [`field`]: `policy` and `options` are slots of the frame holding
/// the policy and the options list (a table without metatable).
unsafe fn policy_call(l: *mut ffi::lua_State, st: &State, policy: c_int, options: c_int) -> Option<fast::Out> {
    // SAFETY: the caller's contract; at most five more values are pushed.
    unsafe {
        // Options that are tables or userdata may define their own equality,
        // which the full function's comparisons would call: theirs.
        let mut n = 0;
        loop {
            let t = ffi::lua_rawgeti(l, options, n + 1);
            ffi::lua_pop(l, 1);
            match t {
                ffi::LUA_TNIL => break,
                ffi::LUA_TTABLE | ffi::LUA_TUSERDATA => return None,
                _ => n += 1,
            }
        }
        if n == 0 {
            return None; // no options: the full function's error
        }
        // The options as offered, kept on the stack: the policy gets the list
        // itself and may edit it, and its choice is checked against what was
        // offered (the full function checks against its copy).
        let count = c_int::try_from(n).ok()?;
        if ffi::lua_checkstack(l, count.checked_add(8)?) == 0 {
            return None;
        }
        let offered = ffi::lua_gettop(l) + 1;
        for i in 1..=n {
            ffi::lua_rawgeti(l, options, i);
        }
        // A default must be one of the options (else the full function's error).
        if field(l, st, 1, DEFAULT) != ffi::LUA_TNIL {
            let default = ffi::lua_gettop(l);
            if !(1..=n).any(|i| {
                ffi::lua_rawgeti(l, options, i);
                let same = ffi::lua_rawequal(l, -1, default) != 0;
                ffi::lua_pop(l, 1);
                same
            }) {
                return None;
            }
        }
        if field(l, st, ffi::LUA_REGISTRYINDEX, TBCALL) != ffi::LUA_TFUNCTION
            || field(l, st, ffi::LUA_REGISTRYINDEX, POLICY_ANSWERED) != ffi::LUA_TFUNCTION
        {
            return None; // made by the first policy call (the full function's)
        }
        ffi::lua_insert(l, -2); // the runner on top, its arguments next
        ffi::lua_pushvalue(l, policy);
        ffi::lua_pushvalue(l, options);
        ffi::lua_pushvalue(l, 1);
        Some(fast::Out::Policy { offered, n: count })
    }
}

/// Calls the policy set up by [`policy_call`] and returns the option it
/// chose. A failed policy, or a choice that is not one of the options, goes
/// with the runner's results to the full function's end (`POLICY_ANSWERED`),
/// which raises the full function's error without calling the policy again.
///
/// # Safety
/// As for `fast::run`, after the body has set the stack up with
/// `policy_call` and dropped its borrows; the `n` options as offered are in
/// the slots from `offered`.
pub unsafe fn call_policy(l: *mut ffi::lua_State, offered: c_int, n: c_int) -> c_int {
    // SAFETY: the caller's contract: the stack holds, from the top down, the
    // request, the options, the policy, the runner and the `POLICY_ANSWERED`
    // function.
    unsafe {
        let base = ffi::lua_gettop(l) - 4;
        ffi::lua_call(l, 3, ffi::LUA_MULTRET);
        // The runner's results: `true, choice...` or `false, error, traceback`.
        let results = ffi::lua_gettop(l) - base;
        ffi::luaL_checkstack(l, 3, c"decide".as_ptr());
        if ffi::lua_toboolean(l, base + 1) != 0 && results >= 2 {
            let chosen = base + 2;
            if let Some(i) = (offered..offered + n).find(|&i| ffi::lua_rawequal(l, i, chosen) != 0) {
                ffi::lua_pushvalue(l, i);
                return 1;
            }
        }
        ffi::lua_pushvalue(l, 1);
        ffi::lua_insert(l, base + 1);
        ffi::lua_createtable(l, n, 0);
        for (k, i) in (offered..offered + n).enumerate() {
            ffi::lua_pushvalue(l, i);
            ffi::lua_rawseti(l, -2, k as ffi::lua_Integer + 1);
        }
        ffi::lua_insert(l, base + 2);
        ffi::lua_call(l, results + 2, 1);
        1
    }
}
