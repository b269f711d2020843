//! Lists handed to scripts, built in one protected call.
//!
//! mlua's `Table::push` honours `__newindex` and `__len` and makes a
//! protected call per element; `create_sequence_from` makes one per element
//! too while a memory limit is set (ours always is). A list of twenty unit
//! handles cost some 25 000 instructions, a tenth of a viktory trial.
//! [`sequence`] pushes the values and builds the table in a single
//! protected call instead.

use std::os::raw::c_int;

use mlua::{ffi, IntoLua, Lua, MultiValue, Table};

/// A new table holding `values` at 1..=n.
pub fn sequence<T: IntoLua>(lua: &Lua, values: impl IntoIterator<Item = T>) -> mlua::Result<Table> {
    let args = values.into_iter().map(|v| v.into_lua(lua)).collect::<mlua::Result<MultiValue>>()?;
    let n = args.len() as c_int;
    // SAFETY: the callback's stack holds exactly the `n` values (slots
    // 1..=n); it makes the table with its array part sized, copies each value
    // into it (`lua_rawseti` on a table without metatable, within its array
    // part), and leaves only the table, which `exec_raw` returns.
    unsafe {
        lua.exec_raw::<Table>(args, move |l| {
            ffi::lua_createtable(l, n, 0);
            for i in 1..=n {
                ffi::lua_pushvalue(l, i);
                ffi::lua_rawseti(l, -2, i as ffi::lua_Integer);
            }
            // With values, the table (at n + 1) replaces the first and the rest go.
            if n > 0 {
                ffi::lua_replace(l, 1);
                ffi::lua_settop(l, 1);
            }
        })
    }
}
