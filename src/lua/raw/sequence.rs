//! Lists handed to scripts, built in one protected call.
//!
//! mlua's `Table::push` honours `__newindex` and `__len` and makes a
//! protected call per element; `create_sequence_from` makes one per element
//! too while a memory limit is set (ours always is). A list of twenty unit
//! handles cost some 25 000 instructions, a tenth of a viktory trial.
//! [`sequence`] pushes the values and builds the table in a single
//! protected call instead (one per [`CHUNK`] values for a long list).

use std::os::raw::c_int;

use mlua::{ffi, IntoLua, Lua, MultiValue, Table, Value};

/// Most values one protected call takes. Luau lets a stack grow only to
/// `LUAI_MAXCSTACK` (8 000) slots: a longer list (a 1000 x 1000 map's
/// million hexes) pushed at once failed with "out of Lua stack", so it is
/// filled a chunk at a time.
const CHUNK: usize = 4000;

/// A new table holding `values` at 1..=n.
pub fn sequence<T: IntoLua>(lua: &Lua, values: impl IntoIterator<Item = T>) -> mlua::Result<Table> {
    let mut args = values.into_iter().map(|v| v.into_lua(lua)).collect::<mlua::Result<MultiValue>>()?;
    let n = args.len();
    if n <= CHUNK {
        let n = n as c_int;
        // SAFETY: the callback's stack holds exactly the `n` values (slots
        // 1..=n); it makes the table with its array part sized, copies each value
        // into it (`lua_rawseti` on a table without metatable, within its array
        // part), and leaves only the table, which `exec_raw` returns.
        return unsafe {
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
        };
    }
    let table = lua.create_table_with_capacity(n, 0)?;
    let mut first = 0usize;
    while !args.is_empty() {
        let cut = args.len().min(CHUNK);
        let k = cut as c_int;
        let mut chunk = MultiValue::with_capacity(cut + 1);
        chunk.push_back(Value::Table(table.clone()));
        // From the front of the queue: each value moves once.
        chunk.extend(args.drain(..cut));
        let at = first as ffi::lua_Integer;
        // SAFETY: the callback's stack holds the table (slot 1, made above
        // with an array part of `n`, no metatable) and then `k` values
        // (slots 2..=k + 1); each goes into the table at `first + i`, within
        // that array part, and nothing is left on the stack.
        unsafe {
            lua.exec_raw::<()>(chunk, move |l| {
                for i in 1..=k {
                    ffi::lua_pushvalue(l, i + 1);
                    ffi::lua_rawseti(l, 1, at + i as ffi::lua_Integer);
                }
                ffi::lua_settop(l, 0);
            })?;
        }
        first += k as usize;
    }
    Ok(table)
}
