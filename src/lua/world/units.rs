//! Units: handles, fields and props, and the `world` calls that find, add,
//! move, hit and remove units.
//!
//! Units are handles: an id resolved on every call, never a Rust reference,
//! so a handle stays valid across undo and reports a clear error once its
//! unit is gone.

use std::rc::Rc;

use mlua::{AnyUserData, FromLua, IntoLuaMulti, Lua, MetaMethod, Table, UserData, UserDataMethods, Value};

use super::super::api::Api;
use super::super::hex_api::{hex_from_value, hex_value, HexArg};
use super::super::raw::args::Name;
use super::super::raw::fast;
use super::super::{keys, State};
use super::events::emit_with;
use crate::battlefield::World;
use crate::hex::Hex;
use crate::tabletop::Point;
use crate::unit::{Position, Prop, Unit};

/// A Lua handle on a unit.
#[derive(Clone)]
pub struct UnitRef {
    pub idx: usize,
    pub id: Rc<str>,
    /// The host's state, so a field read needs no lookup of it.
    pub(crate) st: Rc<State>,
}

impl UnitRef {
    /// The unit's current index, looked up again if the world changed under the handle.
    pub fn resolve(&self, w: &World) -> mlua::Result<usize> {
        if let Some(u) = w.units.get(self.idx) {
            if Rc::ptr_eq(&u.id, &self.id) || u.id == self.id {
                return Ok(self.idx);
            }
        }
        w.unit_index(&self.id).map_err(|_| mlua::Error::runtime(format!("unit '{}' no longer exists", self.id)))
    }
}

fn state(lua: &Lua) -> mlua::Result<Rc<State>> {
    lua.app_data_ref::<Rc<State>>().map(|s| s.clone()).ok_or_else(|| mlua::Error::runtime("sandtable state missing"))
}

fn with_unit<R>(_: &Lua, u: &UnitRef, f: impl FnOnce(&mut World, usize) -> mlua::Result<R>) -> mlua::Result<R> {
    u.st.with_world(|w| {
        let i = u.resolve(w)?;
        f(w, i)
    })?
}

pub fn prop_to_lua(lua: &Lua, p: &Prop) -> mlua::Result<Value> {
    Ok(match p {
        Prop::Bool(b) => Value::Boolean(*b),
        Prop::Num(n) => Value::Number(*n),
        Prop::Str(s) => Value::String(lua.create_string(s.as_bytes())?),
    })
}

pub fn prop_from_lua(v: &Value, name: &str) -> mlua::Result<Option<Prop>> {
    Ok(match v {
        Value::Nil => None,
        Value::Boolean(b) => Some(Prop::Bool(*b)),
        Value::Integer(i) => Some(Prop::Num(*i as f64)),
        Value::Number(n) if n.is_finite() => Some(Prop::Num(*n)),
        Value::Number(n) => {
            return Err(mlua::Error::runtime(format!("unit property '{name}' must be a finite number, not {n}")))
        }
        Value::String(s) => Some(Prop::Str(s.to_str()?.as_ref().into())),
        other => {
            return Err(mlua::Error::runtime(format!(
                "unit property '{name}' must be nil, true/false, a number or text, not {}",
                other.type_name()
            )))
        }
    })
}

/// `u.pos` of a tabletop unit: read-only (the fast path hands out one kept
/// table per unit while it stands still, which no script may change).
fn point_table(lua: &Lua, p: Point) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("x", p.x)?;
    t.set("y", p.y)?;
    t.set_readonly(true);
    Ok(t)
}

/// Reads `{x=, y=}` (or `{x, y}`) as a tabletop point.
pub fn point_from_value(v: &Value) -> mlua::Result<Point> {
    let Value::Table(t) = v else {
        return Err(mlua::Error::runtime(format!("expected a point {{x=, y=}} in cm, got {}", v.type_name())));
    };
    let x: Option<f64> = t.get("x").ok().flatten().or_else(|| t.get(1).ok().flatten());
    let y: Option<f64> = t.get("y").ok().flatten().or_else(|| t.get(2).ok().flatten());
    match (x, y) {
        (Some(x), Some(y)) if x.is_finite() && y.is_finite() => Ok(Point::new(x, y)),
        (Some(x), Some(y)) => {
            Err(mlua::Error::runtime(format!("a point's x and y must be finite numbers, got ({x}, {y})")))
        }
        _ => Err(mlua::Error::runtime("expected a point {x=, y=} in cm")),
    }
}

/// A facing in degrees, refused unless finite (NaN or infinity cannot be
/// saved, drawn or compared).
fn finite_facing(f: Option<f64>) -> mlua::Result<f64> {
    match f {
        None => Ok(0.0),
        Some(f) if f.is_finite() => Ok(f),
        Some(f) => Err(mlua::Error::runtime(format!("facing must be a finite number of degrees, got {f}"))),
    }
}

/// The fields of a unit handle (any other key is a ruleset property).
pub const UNIT_FIELDS: &[&str] =
    &["id", "side", "type", "strength", "max_strength", "leader", "hex", "pos", "facing", "alive", "props"];

/// Reads a unit field, or a free property for any other key.
fn unit_get(lua: &Lua, u: &UnitRef, key: &str) -> mlua::Result<Value> {
    let st = &u.st;
    let field = with_unit(lua, u, |w, i| {
        let unit = &w.units[i];
        Ok(match key {
            "strength" => Field::Int(unit.strength),
            "alive" => Field::Bool(unit.alive()),
            "hex" => Field::Val(unit.hex().map_or(Value::Nil, hex_value)),
            "side" => Field::Name(unit.side.clone()),
            "type" => Field::Name(unit.kind.clone()),
            "id" => Field::Name(unit.id.clone()),
            "max_strength" => Field::Int(unit.max_strength),
            "leader" => unit.leader.clone().map_or(Field::Val(Value::Nil), Field::Name),
            "pos" => Field::Pos(unit.pos),
            "facing" => Field::Val(match unit.pos {
                Position::Table { facing, .. } => Value::Number(facing),
                _ => Value::Nil,
            }),
            "props" => Field::Props(unit.props.clone()),
            _ => Field::Prop(unit.prop(key).cloned()),
        })
    })?;
    match field {
        Field::Int(n) => Ok(Value::Integer(n as _)),
        Field::Bool(b) => Ok(Value::Boolean(b)),
        Field::Val(v) => Ok(v),
        Field::Name(n) => Ok(Value::String(st.name(lua, &n)?)),
        Field::Pos(Position::Table { at, .. }) => Ok(Value::Table(point_table(lua, at)?)),
        Field::Pos(Position::Hex(h)) => Ok(hex_value(h)),
        Field::Pos(Position::Off) => Ok(Value::Nil),
        Field::Props(props) => {
            let t = lua.create_table()?;
            for (k, v) in &props {
                t.set(&**k, prop_to_lua(lua, v)?)?;
            }
            Ok(Value::Table(t))
        }
        Field::Prop(Some(p)) => prop_to_lua(lua, &p),
        Field::Prop(None) => match key {
            // Methods, served from the same lookup so that a field read is one call.
            "get" | "set" => Ok(Value::Function(lua.named_registry_value(if key == "get" {
                keys::UNIT_GET
            } else {
                keys::UNIT_SET
            })?)),
            _ => Ok(Value::Nil),
        },
    }
}

/// What a unit field read found, taken out of the world borrow before making Lua values.
enum Field {
    Int(i32),
    Bool(bool),
    Val(Value),
    Name(Rc<str>),
    Pos(Position),
    Props(Vec<(Rc<str>, Prop)>),
    Prop(Option<Prop>),
}

/// Writes a settable field (strength, leader, facing) or a free property.
fn unit_set(lua: &Lua, u: &UnitRef, key: &str, v: Value) -> mlua::Result<()> {
    match key {
        "strength" => {
            let v = match v {
                Value::Integer(i) => i as f64,
                Value::Number(n) => n,
                other => {
                    return Err(mlua::Error::runtime(format!("strength must be a number, not {}", other.type_name())))
                }
            };
            with_unit(lua, u, |w, i| {
                let max = w.units[i].max_strength;
                if v.fract() != 0.0 || v < 0.0 || v > max as f64 {
                    return Err(mlua::Error::runtime(format!(
                        "strength must be a whole number from 0 to {max}, got {v}"
                    )));
                }
                let reason = if v == 0.0 { "strength set to 0" } else { "strength set" };
                w.set_strength(i, v as i32, reason).map_err(mlua::Error::external)
            })
        }
        "leader" => {
            let leader = match v {
                Value::Nil => None,
                Value::String(s) => Some(Rc::from(&*s.to_str()?)),
                other => {
                    return Err(mlua::Error::runtime(format!("leader must be text or nil, not {}", other.type_name())))
                }
            };
            with_unit(lua, u, |w, i| {
                w.units[i].leader = leader;
                Ok(())
            })
        }
        "facing" => {
            let f = match v {
                Value::Integer(i) => i as f64,
                Value::Number(n) => n,
                other => {
                    return Err(mlua::Error::runtime(format!("facing must be a number, not {}", other.type_name())))
                }
            };
            let f = finite_facing(Some(f))?;
            with_unit(lua, u, |w, i| match &mut w.units[i].pos {
                Position::Table { facing, .. } => {
                    *facing = crate::tabletop::normalise(f);
                    Ok(())
                }
                _ => Err(mlua::Error::runtime("only tabletop units have a facing")),
            })
        }
        _ if UNIT_FIELDS.contains(&key) => Err(mlua::Error::runtime(format!(
            "unit field '{key}' is read-only here (use world:move, world:place or world:hit)"
        ))),
        _ => {
            let p = prop_from_lua(&v, key)?;
            with_unit(lua, u, |w, i| {
                w.units[i].set_prop(key, p);
                Ok(())
            })
        }
    }
}

// One `__index` and one `__newindex` in Rust: mlua's separate field getters
// went through an extra lookup layer that made `u.side` cost three world calls.
impl UserData for UnitRef {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method(MetaMethod::Index, |lua, u, key: Name| unit_get(lua, u, &key));
        methods.add_meta_method(MetaMethod::NewIndex, |lua, u, (key, v): (Name, Value)| unit_set(lua, u, &key, v));
        methods.add_meta_method(MetaMethod::ToString, |lua, u, ()| {
            match with_unit(lua, u, |w, i| Ok(w.units[i].to_string())) {
                Ok(s) => Ok(s),
                Err(_) => Ok(format!("{} (gone)", u.id)),
            }
        });
        methods.add_meta_method(MetaMethod::Eq, |_, a, b: AnyUserData| {
            Ok(b.borrow::<UnitRef>().map(|b| b.id == a.id).unwrap_or(false))
        });
    }
}

/// A unit argument: a handle or an id.
pub struct UnitArg(pub UnitRef);

impl FromLua for UnitArg {
    fn from_lua(v: Value, lua: &Lua) -> mlua::Result<Self> {
        match v {
            Value::UserData(ud) => {
                let u = ud.borrow::<UnitRef>().map_err(|_| mlua::Error::runtime("expected a unit"))?;
                Ok(UnitArg(u.clone()))
            }
            Value::String(s) => {
                let id = s.to_str()?.to_string();
                let st = state(lua)?;
                let idx = st.with_world(|w| w.unit_index(&id))?.map_err(mlua::Error::external)?;
                let rid = st.world.borrow().units[idx].id.clone();
                Ok(UnitArg(UnitRef { idx, id: rid, st }))
            }
            other => Err(mlua::Error::runtime(format!("expected a unit or a unit id, got {}", other.type_name()))),
        }
    }
}

/// The Lua handle of unit `idx`. Handles are made once per unit and handed out
/// again: making a userdata (and collecting it later) was the largest cost of
/// `world:unit_at` in simulation.
pub fn unit_handle(lua: &Lua, st: &Rc<State>, idx: usize, id: Rc<str>) -> mlua::Result<AnyUserData> {
    if let Some(Some((cached_id, ud))) = st.unit_handles.borrow().get(idx) {
        if Rc::ptr_eq(cached_id, &id) {
            return Ok(ud.clone());
        }
    }
    let ud = lua.create_userdata(UnitRef { idx, id: id.clone(), st: st.clone() })?;
    // The fast paths push handles from this table and know them by address (see `fast`).
    fast::handle_table(lua)?.raw_set(idx + 1, &ud)?;
    let mut by_address = st.unit_handle_slots.borrow_mut();
    if let Some(Some((_, old))) = st.unit_handles.borrow().get(idx) {
        let old = old.to_pointer() as usize;
        by_address.remove(&old);
        fast::forget_handle(st, old);
    }
    by_address.insert(ud.to_pointer() as usize, idx);
    let mut cache = st.unit_handles.borrow_mut();
    if cache.len() <= idx {
        cache.resize(idx + 1, None);
    }
    cache[idx] = Some((id, ud.clone()));
    Ok(ud)
}

/// The handle of an optional unit found inside a world borrow.
fn handle_of(lua: &Lua, st: &Rc<State>, found: Option<(usize, Rc<str>)>) -> mlua::Result<Option<AnyUserData>> {
    found.map(|(i, id)| unit_handle(lua, st, i, id)).transpose()
}

fn path_from_value(v: &Value) -> mlua::Result<Vec<Hex>> {
    match v {
        Value::Vector(_) => Ok(vec![hex_from_value(v)?]),
        Value::Table(t) => t.sequence_values::<Value>().map(|h| hex_from_value(&h?)).collect(),
        other => Err(mlua::Error::runtime(format!("a path is a hex or a list of hexes, got {}", other.type_name()))),
    }
}

/// Walks a unit along a path step by step, letting `leaves`/`enters` handlers
/// react after each step. Returns false if a handler stopped the unit (it was
/// eliminated or moved) before the end of the path.
fn walk(lua: &Lua, st: &State, u: &UnitRef, path: Vec<Hex>, retreat: bool) -> mlua::Result<bool> {
    // Check the whole path first so that a bad path changes nothing.
    st.with_world(|w| -> mlua::Result<()> {
        let i = u.resolve(w)?;
        w.check_path(i, &path).map_err(mlua::Error::external)
    })??;
    for h in path {
        let (from, stopped) = st.with_world(|w| -> mlua::Result<(Hex, bool)> {
            let i = u.resolve(w)?;
            if !w.units[i].alive() {
                return Ok((h, true));
            }
            Ok((w.step(i, h, retreat).map_err(mlua::Error::external)?, false))
        })??;
        if stopped {
            return Ok(false);
        }
        if !st.subscribed.get() {
            continue;
        }
        let ud = unit_handle(lua, &u.st, u.idx, u.id.clone())?;
        emit_with(lua, st, "leaves", (&ud, hex_value(from), hex_value(h)))?;
        emit_with(lua, st, "enters", (&ud, hex_value(h), hex_value(from)))?;
        let still_there = st.with_world(|w| -> mlua::Result<bool> {
            let i = u.resolve(w)?;
            Ok(w.units[i].alive() && w.units[i].hex() == Some(h))
        })??;
        if !still_there {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `world:unit(id)`: the unit with that id, or nil.
pub fn unit(l: &Lua, st: &Rc<State>, id: Name) -> mlua::Result<impl IntoLuaMulti> {
    let found = st.with_world(|w| w.unit_index(&id).ok().map(|i| (i, w.units[i].id.clone())))?;
    handle_of(l, st, found)
}

/// `world:units{side=, type=, hex=, all=}`: units on the battlefield (all=true adds the eliminated),
/// in the world's order; `hex=` keeps those on that hex (a stack).
pub fn units(l: &Lua, st: &Rc<State>, filter: Option<Table>) -> mlua::Result<impl IntoLuaMulti> {
    let side: Option<String> = filter.as_ref().map(|f| f.get("side")).transpose()?.flatten();
    let ty: Option<String> = filter.as_ref().map(|f| f.get("type")).transpose()?.flatten();
    let at: Option<HexArg> = filter.as_ref().map(|f| f.get("hex")).transpose()?.flatten();
    let all: bool = filter.as_ref().map(|f| f.get::<Option<bool>>("all")).transpose()?.flatten().unwrap_or(false);
    let refs = st.with_world(|w| {
        (0..w.units.len())
            .filter(|&i| {
                let u = &w.units[i];
                (all || u.alive())
                    && side.as_deref().is_none_or(|s| &*u.side == s)
                    && ty.as_deref().is_none_or(|t| &*u.kind == t)
                    && at.as_ref().is_none_or(|h| u.hex() == Some(h.0))
            })
            .map(|i| (i, w.units[i].id.clone()))
            .collect::<Vec<_>>()
    })?;
    let handles = refs.into_iter().map(|(i, id)| unit_handle(l, st, i, id)).collect::<mlua::Result<Vec<_>>>()?;
    crate::lua::raw::sequence::sequence(l, handles)
}

/// `world:unit_at(h)`: the unit on hex h, or nil.
pub fn unit_at(l: &Lua, st: &Rc<State>, h: HexArg) -> mlua::Result<impl IntoLuaMulti> {
    let found = st.with_world(|w| w.unit_at(h.0).map(|i| (i, w.units[i].id.clone())))?;
    handle_of(l, st, found)
}

/// `world:add_unit{id=, side=, type=, hex=, strength=}`: put a new unit on the battlefield.
pub fn add_unit(l: &Lua, st: &Rc<State>, spec: Table) -> mlua::Result<impl IntoLuaMulti> {
    st.check_memory(l)?;
    let id: String = spec.get("id")?;
    let side: String = spec.get("side")?;
    let kind: String = spec.get("type")?;
    let max: Option<i32> = spec.get("max_strength")?;
    let strength: Option<i32> = spec.get("strength")?;
    st.note_read("unit_types");
    let type_strength = st
        .ruleset
        .borrow()
        .as_ref()
        .and_then(|r| r.unit_types.get(&kind).and_then(|t| t.get("strength")).and_then(serde_json::Value::as_i64))
        .map(|v| v as i32);
    let max = max.or(type_strength).or(strength).ok_or_else(|| {
        mlua::Error::runtime(format!("world:add_unit: unit '{id}' needs a strength (type '{kind}' has no default)"))
    })?;
    let strength = strength.unwrap_or(max);
    if let Some(rs) = st.ruleset.borrow().as_ref() {
        if !rs.unit_types.contains_key(&kind) {
            return Err(mlua::Error::runtime(format!(
                "world:add_unit: unknown unit type '{kind}' (types: {})",
                rs.unit_types.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    let pos = match (spec.get::<Value>("hex")?, spec.get::<Value>("at")?) {
        (Value::Nil, Value::Nil) => Position::Off,
        (h, Value::Nil) => Position::Hex(hex_from_value(&h)?),
        (Value::Nil, p) => {
            Position::Table { at: point_from_value(&p)?, facing: finite_facing(spec.get::<Option<f64>>("facing")?)? }
        }
        _ => return Err(mlua::Error::runtime("world:add_unit: give `hex` or `at`, not both")),
    };
    let mut props = Vec::new();
    if let Some(pt) = spec.get::<Option<Table>>("props")? {
        for pair in pt.pairs::<String, Value>() {
            let (k, v) = pair?;
            if let Some(p) = prop_from_lua(&v, &k)? {
                props.push((Rc::from(k.as_str()), p));
            }
        }
    }
    let unit = Unit {
        id: id.as_str().into(),
        side: side.as_str().into(),
        kind: kind.as_str().into(),
        strength,
        max_strength: max,
        leader: spec.get::<Option<String>>("leader")?.map(|s| Rc::from(s.as_str())),
        pos,
        props,
        bases: Vec::new(),
    };
    let added = st.with_world(|w| {
        w.side_index(&side).map_err(mlua::Error::external)?;
        if !(1..=max).contains(&strength) {
            return Err(mlua::Error::runtime(format!("world:add_unit: strength {strength} must be from 1 to {max}")));
        }
        let i = w.add_unit(unit).map_err(mlua::Error::external)?;
        Ok((i, w.units[i].id.clone()))
    })??;
    unit_handle(l, st, added.0, added.1)
}

/// `world:move(u, path)`: move along a hex or a list of hexes (a tabletop
/// unit: along legs to points, see [`super::legs`]); fires leaves/enters.
pub fn move_unit(l: &Lua, st: &Rc<State>, (u, path): (UnitArg, Value)) -> mlua::Result<impl IntoLuaMulti> {
    if super::legs::on_table(st, &u.0)? {
        return super::legs::walk(l, st, &u.0, &path, false);
    }
    walk(l, st, &u.0, path_from_value(&path)?, false)
}

/// `world:retreat(u, path)`: like move, logged as a retreat.
pub fn retreat(l: &Lua, st: &Rc<State>, (u, path): (UnitArg, Value)) -> mlua::Result<impl IntoLuaMulti> {
    if super::legs::on_table(st, &u.0)? {
        return super::legs::walk(l, st, &u.0, &path, true);
    }
    walk(l, st, &u.0, path_from_value(&path)?, true)
}

/// `world:place(u, h)`: put a unit on a hex (nil takes it off); no adjacency check.
pub fn place(_l: &Lua, st: &Rc<State>, (u, to): (UnitArg, Value)) -> mlua::Result<impl IntoLuaMulti> {
    let pos = match &to {
        Value::Nil => Position::Off,
        Value::Vector(_) => Position::Hex(hex_from_value(&to)?),
        Value::Table(t) => {
            let facing = finite_facing(t.get::<Option<f64>>("facing")?)?;
            Position::Table { at: point_from_value(&to)?, facing }
        }
        other => {
            return Err(mlua::Error::runtime(format!(
                "world:place: expected a hex, a point or nil, got {}",
                other.type_name()
            )))
        }
    };
    st.with_world(|w| {
        let i = u.0.resolve(w)?;
        w.place(i, pos).map_err(mlua::Error::external)
    })?
}

/// `world:hit(u, n | {id, ...}, reason?)`: remove n figures (on a tabletop
/// the highest-numbered bases), or the named bases of a tabletop unit;
/// returns figures removed and whether the unit is alive; 0 left eliminates.
pub fn hit(
    _l: &Lua,
    st: &Rc<State>,
    (u, n, reason): (UnitArg, Value, Option<Name>),
) -> mlua::Result<impl IntoLuaMulti> {
    let reason = reason.as_deref().unwrap_or("");
    let n = match n {
        Value::Integer(i) => i as f64,
        Value::Number(n) => n,
        Value::Table(t) => {
            let ids = base_ids(&t, "world:hit")?;
            return st.with_world(|w| {
                let i = u.0.resolve(w)?;
                let taken =
                    w.remove_bases(i, &ids, reason).map_err(|e| mlua::Error::runtime(format!("world:hit: {e}")))?;
                Ok((taken, w.units[i].alive()))
            })?;
        }
        other => {
            return Err(mlua::Error::runtime(format!(
                "world:hit: give a number of hits or a list of base ids, not {}",
                other.type_name()
            )))
        }
    };
    if n.fract() != 0.0 || n < 0.0 {
        return Err(mlua::Error::runtime(format!("world:hit: hits must be a whole number from 0, got {n}")));
    }
    st.with_world(|w| {
        let i = u.0.resolve(w)?;
        let taken = w.hit(i, n as i32, reason);
        Ok((taken, w.units[i].alive()))
    })?
}

/// A list of base ids `{1, 3}` (whole numbers from 1).
pub fn base_ids(t: &Table, call: &str) -> mlua::Result<Vec<u16>> {
    let mut ids = Vec::new();
    for v in t.clone().sequence_values::<Value>() {
        let id = match v? {
            Value::Integer(i) => i as f64,
            Value::Number(n) => n,
            other => {
                return Err(mlua::Error::runtime(format!("{call}: a base id is a number, not {}", other.type_name())))
            }
        };
        if id.fract() != 0.0 || !(1.0..=crate::tabletop::MAX_BASES as f64).contains(&id) {
            return Err(mlua::Error::runtime(format!(
                "{call}: a base id is a whole number from 1 to {}, not {id}",
                crate::tabletop::MAX_BASES
            )));
        }
        ids.push(id as u16);
    }
    Ok(ids)
}

/// `world:eliminate(u, reason?)`: take a unit off the battlefield.
pub fn eliminate(_l: &Lua, st: &Rc<State>, (u, reason): (UnitArg, Option<Name>)) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| {
        let i = u.0.resolve(w)?;
        w.eliminate(i, reason.as_deref().unwrap_or(""));
        Ok(())
    })?
}

/// The `unit` area: what a unit handle answers (see `unit_get`), and
/// `u:get`/`u:set`, which its `__index` hands out.
pub fn install_handle(api: &mut Api) -> mlua::Result<()> {
    let lua = api.lua;
    lua.set_named_registry_value(
        keys::UNIT_GET,
        lua.create_function(|lua, (u, name): (UnitArg, Name)| unit_get(lua, &u.0, &name))?,
    )?;
    lua.set_named_registry_value(
        keys::UNIT_SET,
        lua.create_function(|lua, (u, name, v): (UnitArg, Name, Value)| unit_set(lua, &u.0, &name, v))?,
    )?;
    api.member("u.id  u.side  u.type", "who the unit is");
    api.member("u.strength  u.max_strength", "figures left and at full strength (strength is writable)");
    api.member("u.hex  u.pos  u.facing  u.alive", "where it stands (hex maps: hex; tabletops: pos and facing)");
    api.member("u.leader", "the attached leader's name, or nil (writable)");
    api.member("u.props", "a copy of its ruleset properties");
    api.member("u:get(name)  u:set(name, v)", "read or write one property (also u.morale = 2)");
    Ok(())
}
