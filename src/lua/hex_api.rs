//! `hex`: hexes as Luau values.
//!
//! A hex is a Luau `vector` (q, r, s) with a shared metatable: it costs no
//! allocation, compares by value with `==`, works as a table key by value,
//! and supports `+ - *` natively. Fields `q r s` and the methods are served by
//! the metatable; the maths itself lives in Rust (`crate::hex`).

use mlua::{Function, Lua, MultiValue, Table, Value, Vector};

use super::api::{Api, Returns};
use super::raw::{self, fast};
use super::State;

use crate::hex::{self, Hex, OffsetKind};

/// The Lua value of a hex.
pub fn hex_value(h: Hex) -> Value {
    Value::Vector(Vector::new(h.q as f32, h.r as f32, h.s() as f32))
}

/// Reads a hex from a Lua value, with a clear error for anything else.
pub fn hex_from_value(v: &Value) -> mlua::Result<Hex> {
    match v {
        Value::Vector(v) => {
            let (q, r) = (v.x(), v.y());
            if q.fract() != 0.0 || r.fract() != 0.0 {
                return Err(mlua::Error::runtime(format!("({q},{r}) is not a hex: coordinates must be whole numbers")));
            }
            checked(q as f64, r as f64)
        }
        other => Err(mlua::Error::runtime(format!("expected a hex (made with hex(q, r)), got {}", other.type_name()))),
    }
}

/// A `FromLua` wrapper so API functions can take hexes as arguments.
pub struct HexArg(pub Hex);

impl mlua::IntoLua for HexArg {
    fn into_lua(self, _: &Lua) -> mlua::Result<Value> {
        Ok(hex_value(self.0))
    }
}

fn hex_list(lua: &Lua, hexes: impl IntoIterator<Item = Hex>) -> mlua::Result<Table> {
    crate::lua::raw::sequence::sequence(lua, hexes.into_iter().map(hex_value))
}

/// The hex `(q, r)` when its coordinates are whole and within
/// [`Hex::MAX_COORD`] (where Luau's floats hold them exactly).
fn checked(q: f64, r: f64) -> mlua::Result<Hex> {
    let m = f64::from(Hex::MAX_COORD);
    let fits = |x: f64| x.fract() == 0.0 && x.abs() <= m;
    if !(fits(q) && fits(r) && fits(q + r)) {
        return Err(mlua::Error::runtime(not_a_hex(q, r)));
    }
    Ok(Hex::new(q as i32, r as i32))
}

fn not_a_hex(q: f64, r: f64) -> String {
    let m = Hex::MAX_COORD;
    format!("({q},{r}) is not a hex: q, r and s = -q-r must be whole numbers from -{m} to {m}")
}

/// Checks a hex a call made (from hexes in range) before Luau sees it.
fn made(h: Hex) -> mlua::Result<HexArg> {
    checked(f64::from(h.q), f64::from(h.r)).map(HexArg)
}

/// Bytes of one hex in a returned list (its Luau table slot and the Rust
/// list it came from), and the time to make it, for [`State::check_work`]
/// (measured: `hex.line` over a million hexes takes about 0.3 s).
pub const HEX_BYTES: u64 = 32;
pub const HEX_NS: u64 = 250;
/// The same for one hex along a line of sight (the candidate hexes around
/// the line, sorted, and the crossings; measured: 0.08 s for 100 000).
const LOS_HEX_BYTES: u64 = 160;
const LOS_HEX_NS: u64 = 1000;
/// The same for one entry of `hex.crossed` (a table each; 0.6 s for 100 000).
const CROSSED_BYTES: u64 = 400;
const CROSSED_NS: u64 = 6000;

/// A radius, checked against the budgets for the `count` hexes it makes.
fn radius(lua: &Lua, st: &State, n: f64, count: impl Fn(u32) -> u64) -> mlua::Result<u32> {
    let r = whole(n, "radius")?.max(0).unsigned_abs();
    st.check_work(lua, count(r), "hexes", HEX_BYTES, HEX_NS)?;
    Ok(r)
}

/// Checks a line of sight from `a` to `b` against the budgets.
pub fn los_work(lua: &Lua, st: &State, a: Hex, b: Hex) -> mlua::Result<()> {
    let n = u64::from(a.distance(b).unsigned_abs()) + 1;
    st.check_work(lua, n, "hexes along the line", LOS_HEX_BYTES, LOS_HEX_NS)
}

fn crossed_work(lua: &Lua, st: &State, a: Hex, b: Hex) -> mlua::Result<()> {
    let n = u64::from(a.distance(b).unsigned_abs()) * 3 + 1;
    st.check_work(lua, n, "crossings", CROSSED_BYTES, CROSSED_NS)
}

fn whole(n: f64, what: &str) -> mlua::Result<i32> {
    if n.fract() != 0.0 || n.abs() > 1e9 {
        return Err(mlua::Error::runtime(format!("{what} must be a whole number from -1e9 to 1e9, got {n}")));
    }
    Ok(n as i32)
}

fn direction(n: f64) -> mlua::Result<u8> {
    if n.fract() != 0.0 || !(1.0..=6.0).contains(&n) {
        return Err(mlua::Error::runtime(format!(
            "direction must be 1..6 (1 east, then clockwise: 2 south-east ... 6 north-east), got {n}"
        )));
    }
    Ok(n as u8)
}

fn offset_kind(kind: Option<String>) -> mlua::Result<OffsetKind> {
    match kind {
        None => Ok(OffsetKind::OddR),
        Some(k) => k.parse().map_err(mlua::Error::runtime),
    }
}

/// The `hex value` area: the methods of every hex, served by the vector
/// metatable (field and method lookup runs in Luau: no call into Rust for `h.q`).
pub fn install_methods(api: &mut Api) -> mlua::Result<()> {
    api.member("h.q  h.r  h.s", "axial coordinates (s = -q - r)");
    api.function("h:distance(other)", "hexes between h and other", |_, _, (a, b): (HexArg, HexArg)| {
        Ok(a.0.distance(b.0))
    })?;
    api.function("h:neighbor(d)", "the adjacent hex in direction d (1..6)", |_, _, (a, d): (HexArg, f64)| {
        made(a.0.neighbor(direction(d)?).expect("checked direction"))
    })?
    .returns(Returns::Hex);
    api.function("h:neighbors()", "the six adjacent hexes, directions 1..6", |lua, _, a: HexArg| {
        hex_list(lua, a.0.neighbors())
    })?;
    api.function("h:ring(n)", "hexes exactly n away", |lua, st, (a, n): (HexArg, f64)| {
        let r = radius(lua, st, n, |r| u64::from(r).saturating_mul(6).max(1))?;
        hex_list(lua, a.0.ring(r))
    })?;
    api.function("h:within(n)", "hexes at most n away, h included", |lua, st, (a, n): (HexArg, f64)| {
        let r = radius(lua, st, n, Hex::within_count)?;
        hex_list(lua, a.0.within(r))
    })?;
    api.function("h:rotate_left()", "h turned 60 degrees anticlockwise about (0,0)", |_, _, a: HexArg| {
        Ok(HexArg(a.0.rotate_left()))
    })?
    .returns(Returns::Hex);
    api.function("h:rotate_right()", "h turned 60 degrees clockwise about (0,0)", |_, _, a: HexArg| {
        Ok(HexArg(a.0.rotate_right()))
    })?
    .returns(Returns::Hex);
    api.function(
        "h:rotate_around(centre, steps)",
        "h turned steps x 60 degrees clockwise about centre",
        |_, _, (a, c, steps): (HexArg, HexArg, f64)| made(a.0.rotate_around(c.0, whole(steps, "steps")?)),
    )?
    .returns(Returns::Hex);
    api.function(
        "h:direction_to(other)",
        "the direction 1..6 other lies along, or nil",
        |_, _, (a, b): (HexArg, HexArg)| Ok(a.0.direction_to(b.0)),
    )?;
    api.function(
        "h:to_offset(kind?)",
        "col, row: the printed labels of h (odd-r by default)",
        |_, _, (a, kind): (HexArg, Option<String>)| Ok(a.0.to_offset(offset_kind(kind)?)),
    )?;
    let methods = api.table().clone();
    methods.set_readonly(true);

    let mt: Table = super::load_text(
        api.lua,
        r#"
local methods = ...
local mt = {}
mt.__index = function(h, k)
  if k == "q" then return h.x elseif k == "r" then return h.y elseif k == "s" then return h.z end
  local m = methods[k]
  if m == nil then error("a hex has no field or method '" .. tostring(k) .. "'", 2) end
  return m
end
mt.__tostring = function(h) return "(" .. h.x .. "," .. h.y .. ")" end
mt.__lt = function(a, b) return a.y < b.y or (a.y == b.y and a.x < b.x) end
mt.__le = function(a, b) return a.y < b.y or (a.y == b.y and a.x <= b.x) end
mt.__metatable = "hex"
return mt
"#,
        "=hex",
    )?
    .call(methods)?;
    mt.set_readonly(true);
    api.lua.set_type_metatable::<Vector>(Some(mt));
    Ok(())
}

/// The `hex` area: the global `hex` (callable: `hex(q, r)`) and its functions.
pub fn install(api: &mut Api) -> mlua::Result<()> {
    api.member("hex(q, r)", "the hex at axial (q, r); hexes compare with ==, add with + -, scale with *")
        .returns(Returns::Hex);
    api.function(
        "hex.line(a, b)",
        "hexes from a to b inclusive, centre to centre",
        |lua, st, (a, b): (HexArg, HexArg)| {
            let n = u64::from(a.0.distance(b.0).unsigned_abs()) + 1;
            st.check_work(lua, n, "hexes", HEX_BYTES, HEX_NS)?;
            hex_list(lua, Hex::line(a.0, b.0))
        },
    )?;
    api.function("hex.round(fq, fr)", "the hex holding fractional axial coordinates", |_, _, (q, r): (f64, f64)| {
        let m = f64::from(Hex::MAX_COORD);
        if !(q.abs() <= m && r.abs() <= m) {
            return Err(mlua::Error::runtime(format!("({q},{r}) is off the grid: coordinates run from -{m} to {m}")));
        }
        made(Hex::round(q, r))
    })?
    .returns(Returns::Hex);
    api.function(
        "hex.from_offset(col, row, kind?)",
        "the hex at printed column/row (kind odd-r, even-r, odd-q, even-q)",
        |_, _, (col, row, kind): (f64, f64, Option<String>)| {
            made(Hex::from_offset(whole(col, "column")?, whole(row, "row")?, offset_kind(kind)?))
        },
    )?
    .returns(Returns::Hex);
    api.function(
        "hex.direction(d)",
        "the unit step of direction d (1 east, clockwise to 6 north-east)",
        |_, _, d: f64| Ok(HexArg(Hex::direction(direction(d)?).expect("checked direction"))),
    )?
    .returns(Returns::Hex);
    api.function("hex.is_hex(v)", "true when v is a hex", |_, _, v: Value| {
        Ok(matches!(v, Value::Vector(_)) && hex_from_value(&v).is_ok())
    })?;
    fast::install(api.lua, api.st, api.table(), c"is_hex", raw::hex::is_hex)?;
    api.function(
        "hex.los(a, b, obstructed)",
        "clear, blocker: line of sight with your own obstruction test",
        |lua, st, (a, b, obstructed): (HexArg, HexArg, Function)| {
            los_work(lua, st, a.0, b.0)?;
            let mut failure = None;
            let result = hex::los(a.0, b.0, |h| {
                if failure.is_some() {
                    return false;
                }
                match obstructed.call::<Value>(hex_value(h)) {
                    Ok(v) => !matches!(v, Value::Nil | Value::Boolean(false)),
                    Err(e) => {
                        failure = Some(e);
                        false
                    }
                }
            });
            if let Some(e) = failure {
                return Err(e);
            }
            let mut out = MultiValue::new();
            out.push_back(Value::Boolean(result.clear));
            out.push_back(result.blocker.map_or(Value::Nil, hex_value));
            Ok(out)
        },
    )?;
    api.function(
        "hex.crossed(a, b)",
        "the hexes the line a-b crosses, each {hex=, how=interior|left|right}",
        |lua, st, (a, b): (HexArg, HexArg)| {
            crossed_work(lua, st, a.0, b.0)?;
            let mut entries = Vec::new();
            for (h, how) in hex::los_hexes(a.0, b.0) {
                let e = lua.create_table()?;
                e.set("hex", hex_value(h))?;
                let how = match how {
                    hex::Crossing::Interior => "interior",
                    hex::Crossing::Left => "left",
                    hex::Crossing::Right => "right",
                };
                e.set("how", how)?;
                entries.push(e);
            }
            crate::lua::raw::sequence::sequence(lua, entries)
        },
    )?;
    let call_mt = api.lua.create_table()?;
    call_mt.set(
        "__call",
        api.lua.create_function(|_, (_, q, r): (Value, f64, f64)| {
            checked(q, r).map(HexArg).map_err(|_| mlua::Error::runtime(format!("hex(q, r): {}", not_a_hex(q, r))))
        })?,
    )?;
    call_mt.set("__metatable", "hex")?;
    api.table().set_metatable(Some(call_mt))?;
    Ok(())
}
