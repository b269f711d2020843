//! Loading compiled chunks with their imports resolved against a chosen
//! table (see `lua::load::compile_chunk`).
//!
//! When a chunk loads in the sandbox, Luau looks up the globals it reads
//! (`math.max`, `world`, `x`) in the loading thread's global table and keeps
//! what it finds for good. A script's own globals change later, so they must
//! not be kept: the chunk is loaded on a fresh thread whose global table is
//! the `imports` view, which answers only names that never change (the
//! sandbox's libraries and API areas, and ruleset modules, whose tables are
//! refilled in place on a reload). The chunk's functions still read and
//! write the scripts' global table, its environment.

use std::ffi::CStr;

use mlua::{ffi, Function, Lua, Table};

use crate::lua::chunk::Bytecode;

/// Loads `bytecode` (compiled from source text, see `lua::chunk`) as a function of
/// environment `env`, resolving its imports in `imports` (to native code
/// afterwards, if wanted, with [`compile_native`]).
pub fn load(lua: &Lua, bytecode: &Bytecode, name: &CStr, imports: &Table, env: &Table) -> mlua::Result<Function> {
    let bytecode = bytecode.as_bytes();
    // SAFETY: a protected call (exec_raw) with `imports` at 1 and `env` at 2.
    // The new thread's stack is used for two values (its initial room is
    // LUA_MINSTACK); `lua_replace` on LUA_GLOBALSINDEX takes a table (it is
    // one) and sets the thread's globals. `luau_load` reads `bytecode`
    // (alive for the call) and pushes the function or an error message; an
    // error is raised on the protected state, which returns it as `Err`.
    // The bytes are Luau's compiler's own output, never a user's.
    // Only the function is left on the stack for `exec_raw` to return.
    unsafe {
        lua.exec_raw::<Function>((imports, env), |l| {
            ffi::lua_checkstack(l, 2);
            let t = ffi::lua_newthread(l);
            ffi::lua_pushvalue(l, 1);
            ffi::lua_xmove(l, t, 1);
            ffi::lua_replace(t, ffi::LUA_GLOBALSINDEX);
            ffi::lua_pushvalue(l, 2);
            ffi::lua_xmove(l, t, 1);
            let status = ffi::luau_load(t, name.as_ptr(), bytecode.as_ptr().cast(), bytecode.len(), -1);
            ffi::lua_xmove(t, l, 1);
            if status != ffi::LUA_OK {
                ffi::lua_error(l);
            }
            ffi::lua_replace(l, 1);
            ffi::lua_settop(l, 1);
        })
    }
}

/// Compiles the Luau function `f`, just loaded, to native code, as mlua's own
/// loader does when its JIT is on.
pub fn compile_native(lua: &Lua, f: &Function) -> mlua::Result<()> {
    // SAFETY: a protected call with the function at 1; codegen reads it in place.
    unsafe {
        lua.exec_raw::<()>(f, |l| {
            if ffi::luau_codegen_supported() != 0 {
                ffi::luau_codegen_compile(l, 1);
            }
            ffi::lua_settop(l, 0);
        })
    }
}

/// Marks `t` as a safe environment: Luau resolves imports at load time only
/// from a thread whose global table is one.
pub fn set_safeenv(lua: &Lua, t: &Table) -> mlua::Result<()> {
    // SAFETY: a protected call with the table at 1.
    unsafe {
        lua.exec_raw::<()>(t, |l| {
            ffi::lua_setsafeenv(l, 1, 1);
            ffi::lua_settop(l, 0);
        })
    }
}
