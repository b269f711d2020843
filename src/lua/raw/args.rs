//! Argument types for the API's hot paths, read straight off the Lua stack.
//!
//! mlua's general conversion makes a registry reference for every table or
//! string argument and drops it again after the call; on calls that take
//! 100-300 ns that was a large share. These types read what they need in
//! place: `Skip` ignores the `self` of `world:method(...)`, `Name` copies a
//! short string argument into an inline buffer, `HexArg` reads the vector.

use std::fmt;
use std::ops::Deref;
use std::os::raw::c_int;

use mlua::ffi;
use mlua::state::RawLua;
use mlua::{FromLua, Lua, Value};

/// An argument that is accepted and ignored (the `world` in `world:unit(...)`).
pub struct Skip;

impl FromLua for Skip {
    fn from_lua(_: Value, _: &Lua) -> mlua::Result<Self> {
        Ok(Skip)
    }

    unsafe fn from_stack(_: c_int, _: &RawLua) -> mlua::Result<Self> {
        Ok(Skip)
    }
}

/// A string argument (an id, a side, a token name).
///
/// Read from the stack it borrows the Lua string's bytes: an argument stays on
/// the Lua stack, alive and unchanged, until the Rust function returns, and a
/// `Name` is only ever an argument of our API functions, dropped before they
/// return. That saves a copy and a registry reference on every call.
pub struct Name(Text);

/// Where a `Name`'s text lives (private: only `from_stack` may borrow).
enum Text {
    Borrowed(*const u8, usize),
    Owned(String),
}

impl Name {
    fn check(b: &[u8]) -> mlua::Result<()> {
        if b.is_ascii() || std::str::from_utf8(b).is_ok() {
            Ok(())
        } else {
            Err(mlua::Error::runtime("expected UTF-8 text"))
        }
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        match &self.0 {
            // SAFETY: checked to be UTF-8 when made, and still on the Lua
            // stack (see the type's doc for the lifetime).
            Text::Borrowed(ptr, len) => unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(*ptr, *len))
            },
            Text::Owned(s) => s,
        }
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

/// The name of Lua type `t`.
///
/// # Safety
/// `state` is a live Lua state.
unsafe fn type_name(state: *mut ffi::lua_State, t: c_int) -> String {
    // SAFETY: the caller's contract; Luau's type names are static C strings.
    unsafe { std::ffi::CStr::from_ptr(ffi::lua_typename(state, t)).to_string_lossy().into_owned() }
}

fn type_error(expected: &str, got: &str) -> mlua::Error {
    mlua::Error::FromLuaConversionError { from: leak_type(got), to: expected.to_string(), message: None }
}

/// mlua wants a `&'static str` for the source type; Lua type names are few and static.
fn leak_type(t: &str) -> &'static str {
    match t {
        "nil" => "nil",
        "boolean" => "boolean",
        "number" => "number",
        "string" => "string",
        "table" => "table",
        "function" => "function",
        "userdata" => "userdata",
        "vector" => "vector",
        "thread" => "thread",
        "buffer" => "buffer",
        _ => "value",
    }
}

impl FromLua for Name {
    fn from_lua(v: Value, _: &Lua) -> mlua::Result<Self> {
        match v {
            Value::String(s) => Ok(Name(Text::Owned(s.to_str()?.to_string()))),
            other => Err(type_error("string", other.type_name())),
        }
    }

    unsafe fn from_stack(idx: c_int, lua: &RawLua) -> mlua::Result<Self> {
        let state = lua.state();
        // SAFETY: mlua's contract for `from_stack`: `idx` is a valid index of
        // the running call, whose arguments stay on the stack until it returns.
        unsafe {
            let t = ffi::lua_type(state, idx);
            // Numbers are taken as text, as Lua's own string functions do.
            if t != ffi::LUA_TSTRING && t != ffi::LUA_TNUMBER {
                return Err(type_error("string", &type_name(state, t)));
            }
            let mut len = 0usize;
            let ptr = ffi::lua_tolstring(state, idx, &mut len) as *const u8;
            Name::check(std::slice::from_raw_parts(ptr, len))?;
            Ok(Name(Text::Borrowed(ptr, len)))
        }
    }
}

impl FromLua for crate::lua::hex_api::HexArg {
    fn from_lua(v: Value, _: &Lua) -> mlua::Result<Self> {
        crate::lua::hex_api::hex_from_value(&v).map(crate::lua::hex_api::HexArg)
    }

    unsafe fn from_stack(idx: c_int, lua: &RawLua) -> mlua::Result<Self> {
        let state = lua.state();
        // SAFETY: mlua's contract for `from_stack`: `idx` is a valid index.
        let t = unsafe { ffi::lua_type(state, idx) };
        if t != ffi::LUA_TVECTOR {
            return Err(mlua::Error::runtime(format!(
                "expected a hex (made with hex(q, r)), got {}",
                // SAFETY: a live state.
                unsafe { type_name(state, t) }
            )));
        }
        // SAFETY: a vector at a valid index: three floats.
        let (q, r) = unsafe {
            let v = ffi::lua_tovector(state, idx);
            (*v, *v.add(1))
        };
        if q.fract() != 0.0 || r.fract() != 0.0 {
            return Err(mlua::Error::runtime(format!("({q},{r}) is not a hex: coordinates must be whole numbers")));
        }
        Ok(crate::lua::hex_api::HexArg(crate::hex::Hex::new(q as i32, r as i32)))
    }
}

/// Face counts returned as plain integers, pushed straight onto the Lua stack
/// (collecting them into a `MultiValue` first allocated on every roll).
pub struct Counts {
    pub counts: [u32; 16],
    pub len: usize,
    /// Kinds with more than 16 values (rare) use this instead.
    pub more: Vec<u32>,
}

impl Counts {
    /// Counts to return, in order.
    pub fn from_slice(values: &[u32]) -> Counts {
        let mut out = Counts { counts: [0; 16], len: values.len(), more: Vec::new() };
        if values.len() <= 16 {
            out.counts[..values.len()].copy_from_slice(values);
        } else {
            out.more = values.to_vec();
        }
        out
    }

    fn values(&self) -> &[u32] {
        if self.more.is_empty() {
            &self.counts[..self.len]
        } else {
            &self.more
        }
    }
}

impl mlua::IntoLuaMulti for Counts {
    fn into_lua_multi(self, _: &Lua) -> mlua::Result<mlua::MultiValue> {
        Ok(self.values().iter().map(|&c| Value::Integer(c as _)).collect())
    }

    unsafe fn push_into_stack_multi(self, lua: &RawLua) -> mlua::Result<c_int> {
        let state = lua.state();
        let values = self.values();
        // SAFETY: mlua's contract for `push_into_stack_multi`: a live state;
        // room for the values is checked first.
        unsafe {
            if ffi::lua_checkstack(state, values.len() as c_int + 1) == 0 {
                return Err(mlua::Error::StackError);
            }
            for &c in values {
                ffi::lua_pushinteger(state, c as _);
            }
        }
        Ok(values.len() as c_int)
    }
}
