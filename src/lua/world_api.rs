//! `world`: units, terrain, tokens, sides and pools, sections, moves with
//! `enters`/`leaves` events, line of sight; plus `on`, `off` and `emit`.
//!
//! Units are handles: an id resolved on every call, never a Rust reference,
//! so a handle stays valid across undo and reports a clear error once its
//! unit is gone.

use std::ffi::CStr;
use std::rc::Rc;

use mlua::{ffi, AnyUserData, FromLua, Function, Lua, MetaMethod, MultiValue, Table, UserData, UserDataMethods, Value};

use super::args::{Name, Skip};
use super::fast::{self, fast_fn, Out};
use super::hex_api::{hex_from_value, hex_value, HexArg};
use super::State;
use crate::battlefield::{Map, World};
use crate::hex::{self, Hex};
use crate::tabletop::Point;
use crate::unit::{Position, Prop, Unit};

/// A Lua handle on a unit.
#[derive(Clone)]
pub struct UnitRef {
    pub idx: usize,
    pub id: Rc<str>,
    /// The host's state, so a field read needs no lookup of it.
    st: Rc<State>,
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
        Value::Number(n) => Some(Prop::Num(*n)),
        Value::String(s) => Some(Prop::Str(s.to_str()?.as_ref().into())),
        other => {
            return Err(mlua::Error::runtime(format!(
                "unit property '{name}' must be nil, true/false, a number or text, not {}",
                other.type_name()
            )))
        }
    })
}

fn point_table(lua: &Lua, p: Point) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("x", p.x)?;
    t.set("y", p.y)?;
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
        (Some(x), Some(y)) => Ok(Point::new(x, y)),
        _ => Err(mlua::Error::runtime("expected a point {x=, y=} in cm")),
    }
}

const UNIT_FIELDS: &[&str] =
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
            "get" | "set" => Ok(Value::Function(lua.named_registry_value(&format!("sandtable.unit_{key}"))?)),
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
                if v == 0.0 {
                    w.eliminate(i, "strength set to 0");
                } else {
                    w.units[i].strength = v as i32;
                }
                Ok(())
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
        by_address.remove(&(old.to_pointer() as usize));
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

/// Whether any script subscribed to events (see `State::subscribed`).
fn subscribed(lua: &Lua) -> bool {
    lua.app_data_ref::<Rc<State>>().is_none_or(|s| s.subscribed.get())
}

/// Calls every handler subscribed to `event` with `args`; the world is not borrowed meanwhile.
pub fn emit(lua: &Lua, event: &str, args: MultiValue) -> mlua::Result<()> {
    if !subscribed(lua) {
        return Ok(());
    }
    let handlers: Table = lua.named_registry_value("sandtable.handlers")?;
    let Some(list) = handlers.get::<Option<Table>>(event)? else {
        return Ok(());
    };
    // In subscription order.
    let mut fns: Vec<(i64, Function)> = list.pairs::<i64, Function>().filter_map(|p| p.ok()).collect();
    fns.sort_by_key(|(id, _)| *id);
    for (_, f) in fns {
        f.call::<()>(args.clone())?;
    }
    Ok(())
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
        let leaves = MultiValue::from_iter([Value::UserData(ud.clone()), hex_value(from), hex_value(h)]);
        emit(lua, "leaves", leaves)?;
        let enters = MultiValue::from_iter([Value::UserData(ud), hex_value(h), hex_value(from)]);
        emit(lua, "enters", enters)?;
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

/// The ruleset's data rule for what blocks line of sight.
fn data_obstructed(
    w: &World,
    rule: &crate::ruleset::LosRule,
    terrain: &serde_json::Map<String, serde_json::Value>,
    h: Hex,
) -> bool {
    if !w.on_map(h) {
        return rule.edge_blocks;
    }
    if rule.units_block && w.unit_at(h).is_some() {
        return true;
    }
    if let Some(t) = w.terrain(h) {
        if let Some(info) = terrain.get(&**t) {
            if info.get(&rule.terrain_flag).and_then(serde_json::Value::as_bool) == Some(true) {
                return true;
            }
        }
    }
    false
}

macro_rules! wfn {
    ($lua:expr, $tbl:expr, $name:expr, $st:ident, |$l:ident, $args:tt : $ty:ty| $body:expr) => {{
        let $st = $st.clone();
        $tbl.set($name, $lua.create_function(move |$l, (_, $args): (Skip, $ty)| $body)?)?;
    }};
}

pub fn register(lua: &Lua, state: &Rc<State>) -> mlua::Result<()> {
    lua.set_named_registry_value("sandtable.handlers", lua.create_table()?)?;
    // u:get(name) and u:set(name, value), handed out by the unit's __index.
    lua.set_named_registry_value(
        "sandtable.unit_get",
        lua.create_function(|lua, (u, name): (UnitArg, Name)| unit_get(lua, &u.0, &name))?,
    )?;
    lua.set_named_registry_value(
        "sandtable.unit_set",
        lua.create_function(|lua, (u, name, v): (UnitArg, Name, Value)| unit_set(lua, &u.0, &name, v))?,
    )?;
    // Luau's JIT looks a method up at the slot it predicted from the name's
    // hash; a name that collided with another went to a different slot and
    // took the slow lookup on every call. A table with room to spare, and the
    // names rules call most placed first (the later `set` keeps their slots),
    // keeps the hot names where they are predicted.
    let world = lua.create_table_with_capacity(0, 256)?;
    for (name, _) in FAST {
        world.raw_set(name.to_str().expect("ASCII name"), false)?;
    }
    let st = state.clone();

    wfn!(lua, world, "unit", st, |l, id: Name| {
        let found = st.with_world(|w| w.unit_index(&id).ok().map(|i| (i, w.units[i].id.clone())))?;
        handle_of(l, &st, found)
    });
    wfn!(lua, world, "units", st, |l, filter: Option<Table>| {
        let side: Option<String> = filter.as_ref().map(|f| f.get("side")).transpose()?.flatten();
        let ty: Option<String> = filter.as_ref().map(|f| f.get("type")).transpose()?.flatten();
        let all: bool = filter.as_ref().map(|f| f.get::<Option<bool>>("all")).transpose()?.flatten().unwrap_or(false);
        let refs = st.with_world(|w| {
            (0..w.units.len())
                .filter(|&i| {
                    let u = &w.units[i];
                    (all || u.alive())
                        && side.as_deref().is_none_or(|s| &*u.side == s)
                        && ty.as_deref().is_none_or(|t| &*u.kind == t)
                })
                .map(|i| (i, w.units[i].id.clone()))
                .collect::<Vec<_>>()
        })?;
        let t = l.create_table()?;
        for (i, id) in refs {
            t.push(unit_handle(l, &st, i, id)?)?;
        }
        Ok(t)
    });
    wfn!(lua, world, "unit_at", st, |l, h: HexArg| {
        let found = st.with_world(|w| w.unit_at(h.0).map(|i| (i, w.units[i].id.clone())))?;
        handle_of(l, &st, found)
    });
    wfn!(lua, world, "add_unit", st, |l, spec: Table| {
        let id: String = spec.get("id")?;
        let side: String = spec.get("side")?;
        let kind: String = spec.get("type")?;
        let max: Option<i32> = spec.get("max_strength")?;
        let strength: Option<i32> = spec.get("strength")?;
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
                Position::Table { at: point_from_value(&p)?, facing: spec.get::<Option<f64>>("facing")?.unwrap_or(0.0) }
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
        };
        let added = st.with_world(|w| {
            w.side_index(&side).map_err(mlua::Error::external)?;
            if !(1..=max).contains(&strength) {
                return Err(mlua::Error::runtime(format!(
                    "world:add_unit: strength {strength} must be from 1 to {max}"
                )));
            }
            let i = w.add_unit(unit).map_err(mlua::Error::external)?;
            Ok((i, w.units[i].id.clone()))
        })??;
        unit_handle(l, &st, added.0, added.1)
    });
    wfn!(lua, world, "move", st, |l, (u, path): (UnitArg, Value)| {
        walk(l, &st, &u.0, path_from_value(&path)?, false)
    });
    wfn!(lua, world, "retreat", st, |l, (u, path): (UnitArg, Value)| walk(l, &st, &u.0, path_from_value(&path)?, true));
    wfn!(lua, world, "place", st, |_l, (u, to): (UnitArg, Value)| {
        let pos = match &to {
            Value::Nil => Position::Off,
            Value::Vector(_) => Position::Hex(hex_from_value(&to)?),
            Value::Table(t) => {
                let facing = t.get::<Option<f64>>("facing")?.unwrap_or(0.0);
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
    });
    wfn!(lua, world, "hit", st, |_l, (u, n, reason): (UnitArg, f64, Option<Name>)| {
        if n.fract() != 0.0 || n < 0.0 {
            return Err(mlua::Error::runtime(format!("world:hit: hits must be a whole number from 0, got {n}")));
        }
        st.with_world(|w| {
            let i = u.0.resolve(w)?;
            Ok(w.hit(i, n as i32, reason.as_deref().unwrap_or("")))
        })?
    });
    wfn!(lua, world, "eliminate", st, |_l, (u, reason): (UnitArg, Option<Name>)| {
        st.with_world(|w| {
            let i = u.0.resolve(w)?;
            w.eliminate(i, reason.as_deref().unwrap_or(""));
            Ok(())
        })?
    });
    wfn!(lua, world, "terrain", st, |l, h: HexArg| {
        let t = st.with_world(|w| w.terrain(h.0).cloned())?;
        t.map(|t| st.name(l, &t)).transpose()
    });
    wfn!(lua, world, "set_terrain", st, |_l, (h, t): (HexArg, Option<Name>)| {
        if let (Some(t), Some(rs)) = (&t, st.ruleset.borrow().as_ref()) {
            if !rs.terrain.contains_key(&**t) {
                return Err(mlua::Error::runtime(format!(
                    "unknown terrain '{t}' (terrain: {})",
                    rs.terrain.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
        }
        st.with_world(|w| {
            if !w.on_map(h.0) {
                return Err(mlua::Error::runtime(format!("hex {} is not on the map", h.0)));
            }
            w.set_terrain(h.0, t.as_deref());
            Ok(())
        })?
    });
    wfn!(lua, world, "terrain_info", st, |l, h: HexArg| {
        let t = st.with_world(|w| w.terrain(h.0).map(|t| t.to_string()))?;
        let info = t.and_then(|t| st.ruleset.borrow().as_ref().and_then(|r| r.terrain.get(&t).cloned()));
        match info {
            Some(v) => super::json_to_lua(l, &v),
            None => Ok(Value::Table(l.create_table()?)),
        }
    });
    wfn!(lua, world, "tokens", st, |l, h: HexArg| {
        let toks = st.with_world(|w| w.tokens(h.0).map(|t| t.to_string()).collect::<Vec<_>>())?;
        l.create_sequence_from(toks)
    });
    wfn!(lua, world, "has_token", st, |_l, (h, t): (HexArg, Name)| st.with_world(|w| w.has_token(h.0, &t)));
    wfn!(lua, world, "add_token", st, |_l, (h, t): (HexArg, Name)| {
        if let Some(rs) = st.ruleset.borrow().as_ref() {
            if !rs.tokens.iter().any(|x| *x == *t) {
                return Err(mlua::Error::runtime(format!("unknown token '{t}' (tokens: {})", rs.tokens.join(", "))));
            }
        }
        st.with_world(|w| {
            if !w.on_map(h.0) {
                return Err(mlua::Error::runtime(format!("hex {} is not on the map", h.0)));
            }
            w.add_token(h.0, &t);
            Ok(())
        })?
    });
    wfn!(lua, world, "remove_token", st, |_l, (h, t): (HexArg, Name)| st.with_world(|w| w.remove_token(h.0, &t)));
    wfn!(lua, world, "on_map", st, |_l, h: HexArg| st.with_world(|w| w.on_map(h.0)));
    wfn!(lua, world, "hexes", st, |l, _none: ()| {
        let hs = st.with_world(|w| w.hexes())?;
        l.create_sequence_from(hs.into_iter().map(hex_value))
    });
    wfn!(lua, world, "sections", st, |l, h: HexArg| {
        let s = st.with_world(|w| w.sections_of(h.0).iter().map(|s| s.to_string()).collect::<Vec<_>>())?;
        l.create_sequence_from(s)
    });
    wfn!(lua, world, "in_section", st, |_l, (h, s): (HexArg, Name)| {
        st.with_world(|w| {
            if !w.sections.iter().any(|x| *x.name == *s) {
                return Err(mlua::Error::runtime(format!(
                    "no section named '{s}' (sections: {})",
                    w.sections.iter().map(|x| x.name.to_string()).collect::<Vec<_>>().join(", ")
                )));
            }
            Ok(w.in_section(h.0, &s))
        })?
    });
    wfn!(lua, world, "sides", st, |l, _none: ()| {
        let names = st.with_world(|w| w.sides.iter().map(|s| s.name.to_string()).collect::<Vec<_>>())?;
        l.create_sequence_from(names)
    });
    wfn!(lua, world, "opponent", st, |l, side: Name| {
        let other = st.with_world(|w| w.opponent(&side).map_err(mlua::Error::external))??;
        st.name(l, &other)
    });
    wfn!(lua, world, "baseline", st, |l, side: Name| {
        let edge =
            st.with_world(|w| w.side(&side).map(|s| s.baseline.map(|b| b.name())).map_err(mlua::Error::external))??;
        edge.map(|e| st.name(l, e)).transpose()
    });
    wfn!(lua, world, "pool", st, |_l, (side, pool): (Name, Name)| {
        st.with_world(|w| w.pool(&side, &pool).map_err(mlua::Error::external))?
    });
    wfn!(lua, world, "add_pool", st, |_l, (side, pool, change, reason): (Name, Name, i64, Option<Name>)| {
        st.with_world(|w| {
            w.add_pool(&side, &pool, change, reason.as_deref().unwrap_or("")).map_err(mlua::Error::external)
        })?
    });
    wfn!(lua, world, "set_pool", st, |_l, (side, pool, value): (Name, Name, i64)| {
        st.with_world(|w| w.set_pool(&side, &pool, value).map_err(mlua::Error::external))?
    });
    wfn!(lua, world, "current_side", st, |l, _none: ()| {
        let side = st.with_world(|w| w.current_side.clone())?;
        side.map(|s| st.name(l, &s)).transpose()
    });
    wfn!(lua, world, "set_current_side", st, |_l, side: Name| {
        st.with_world(|w| {
            let i = w.side_index(&side).map_err(mlua::Error::external)?;
            w.current_side = Some(w.sides[i].name.clone());
            Ok(())
        })?
    });
    wfn!(lua, world, "turn", st, |_l, _none: ()| st.with_world(|w| w.turn));
    wfn!(lua, world, "set_turn", st, |_l, t: u32| st.with_world(|w| w.turn = t));
    wfn!(lua, world, "note", st, |_l, text: Name| st.with_world(|w| w.note(text.to_string())));
    wfn!(lua, world, "log", st, |l, n: Option<usize>| {
        let lines = st.with_world(|w| w.log.tail(n.unwrap_or(20)).iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
        l.create_sequence_from(lines)
    });
    wfn!(lua, world, "events", st, |l, n: Option<usize>| {
        let events = st.with_world(|w| w.log.tail(n.unwrap_or(usize::MAX)).to_vec())?;
        let t = l.create_table()?;
        for e in events {
            let v = super::json_to_lua(l, &serde_json::to_value(&e).map_err(mlua::Error::external)?)?;
            t.push(v)?;
        }
        Ok(t)
    });
    wfn!(lua, world, "map", st, |l, _none: ()| {
        let map = st.with_world(|w| w.map.clone())?;
        let t = l.create_table()?;
        match map {
            Map::Hex { cols, rows, offset } => {
                t.set("kind", "hex")?;
                t.set("cols", cols)?;
                t.set("rows", rows)?;
                t.set("offset", offset.name())?;
            }
            Map::Table { width, height } => {
                t.set("kind", "table")?;
                t.set("width", width)?;
                t.set("height", height)?;
            }
        }
        Ok(t)
    });
    wfn!(lua, world, "mark", st, |_l, (h, label): (HexArg, Name)| {
        st.with_world(|w| w.marks.push((h.0, Rc::from(&*label))))
    });
    wfn!(lua, world, "clear_marks", st, |_l, _none: ()| st.with_world(|w| w.marks.clear()));
    wfn!(lua, world, "marks", st, |l, _none: ()| {
        let marks = st.with_world(|w| w.marks.clone())?;
        let t = l.create_table()?;
        for (h, label) in marks {
            let m = l.create_table()?;
            m.set("hex", hex_value(h))?;
            m.set("label", &*label)?;
            t.push(m)?;
        }
        Ok(t)
    });
    wfn!(lua, world, "set_los_rule", st, |l, f: Option<Function>| {
        let _ = &st;
        l.set_named_registry_value("sandtable.los_rule", f)
    });
    wfn!(lua, world, "obstructed", st, |l, h: HexArg| {
        if let Some(f) = l.named_registry_value::<Option<Function>>("sandtable.los_rule")? {
            return f.call::<bool>(hex_value(h.0));
        }
        let rs = st.ruleset.borrow().clone();
        let rule = rs.as_ref().map(|r| r.los.clone()).unwrap_or_default();
        let empty = serde_json::Map::new();
        let terrain = rs.as_ref().map_or(&empty, |r| &r.terrain);
        st.with_world(|w| data_obstructed(w, &rule, terrain, h.0))
    });
    wfn!(lua, world, "los", st, |l, (a, b): (HexArg, HexArg)| {
        let custom = l.named_registry_value::<Option<Function>>("sandtable.los_rule")?;
        let result = if let Some(f) = custom {
            let mut failure = None;
            let r = hex::los(a.0, b.0, |h| {
                if failure.is_some() {
                    return false;
                }
                f.call::<bool>(hex_value(h)).unwrap_or_else(|e| {
                    failure = Some(e);
                    false
                })
            });
            if let Some(e) = failure {
                return Err(e);
            }
            r
        } else {
            let rs = st.ruleset.borrow().clone();
            let rule = rs.as_ref().map(|r| r.los.clone()).unwrap_or_default();
            let empty = serde_json::Map::new();
            let terrain = rs.as_ref().map_or(&empty, |r| &r.terrain);
            st.with_world(|w| hex::los(a.0, b.0, |h| data_obstructed(w, &rule, terrain, h)))?
        };
        Ok((result.clear, result.blocker.map(HexArg)))
    });
    install_fast(lua, state, &world)?;
    world.set_readonly(true);
    lua.globals().set("world", world)?;

    // Subscriptions.
    lua.set_named_registry_value("sandtable.next_handler", 1)?;
    lua.globals().set(
        "on",
        lua.create_function(|lua, (event, f): (String, Function)| {
            let handlers: Table = lua.named_registry_value("sandtable.handlers")?;
            let list = match handlers.get::<Option<Table>>(event.as_str())? {
                Some(t) => t,
                None => {
                    let t = lua.create_table()?;
                    handlers.set(event.as_str(), t.clone())?;
                    t
                }
            };
            self::state(lua)?.subscribed.set(true);
            let id: i64 = lua.named_registry_value("sandtable.next_handler")?;
            lua.set_named_registry_value("sandtable.next_handler", id + 1)?;
            list.set(id, f)?;
            Ok(id)
        })?,
    )?;
    lua.globals().set(
        "off",
        lua.create_function(|lua, id: i64| {
            let handlers: Table = lua.named_registry_value("sandtable.handlers")?;
            let mut found = false;
            for pair in handlers.pairs::<Value, Table>() {
                let (_, list) = pair?;
                if list.contains_key(id)? {
                    list.set(id, Value::Nil)?;
                    found = true;
                }
            }
            Ok(found)
        })?,
    )?;
    lua.globals()
        .set("emit", lua.create_function(|lua, (event, args): (String, MultiValue)| emit(lua, &event, args))?)?;
    Ok(())
}

// Fast paths (see `fast`): the calls a rule makes for every hex it resolves.
// Each handles the common case and leaves everything else, errors included,
// to the full function above.

fast_fn!(fast_unit_at, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    match w.unit_at(h) {
        None => Some(Out::Nil),
        Some(i) => fast::push_unit(l, st, &w, i),
    }
});

fast_fn!(fast_has_token, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let t = fast::str_arg(l, 3)?;
    let w = st.world.try_borrow().ok()?;
    Some(Out::Bool(w.has_token(h, t)))
});

fast_fn!(fast_add_token, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let t = fast::str_arg(l, 3)?;
    // A token the ruleset declares, on the map (else the full function's error).
    if !st.ruleset.try_borrow().ok()?.as_ref().is_none_or(|rs| rs.tokens.iter().any(|x| x == t)) {
        return None;
    }
    let mut w = st.world.try_borrow_mut().ok()?;
    if !w.on_map(h) {
        return None;
    }
    w.add_token(h, t);
    Some(Out::Pushed(0))
});

fast_fn!(fast_remove_token, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let t = fast::str_arg(l, 3)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    Some(Out::Bool(w.remove_token(h, t)))
});

fast_fn!(fast_on_map, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    Some(Out::Bool(w.on_map(h)))
});

fast_fn!(fast_terrain, |l, st| {
    let h = fast::hex_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    Some(w.terrain(h).map_or(Out::Nil, |t| Out::Name(t.clone())))
});

fast_fn!(fast_opponent, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    Some(Out::Name(w.opponent(side).ok()?))
});

fast_fn!(fast_baseline, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    Some(w.side(side).ok()?.baseline.map_or(Out::Nil, |b| Out::Str(b.name())))
});

fast_fn!(fast_pool, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let pool = fast::str_arg(l, 3)?;
    let w = st.world.try_borrow().ok()?;
    Some(Out::Num(w.pool(side, pool).ok()? as f64))
});

fast_fn!(fast_add_pool, |l, st| {
    let side = fast::str_arg(l, 2)?;
    let pool = fast::str_arg(l, 3)?;
    let change = fast::whole_arg(l, 4, -(1 << 53), 1 << 53)?;
    let reason = fast::opt_str_arg(l, 5)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    // Fails (on an unknown side) before changing anything.
    Some(Out::Num(w.add_pool(side, pool, change, reason).ok()? as f64))
});

fast_fn!(fast_hit, |l, st| {
    let n = fast::whole_arg(l, 3, 0, i32::MAX as i64)?;
    let reason = fast::opt_str_arg(l, 4)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    let i = fast::unit_arg(l, st, &w, 2)?;
    Some(Out::Num(w.hit(i, n as i32, reason) as f64))
});

// `world:retreat(unit, hex)`: one step, with nobody subscribed to moves.
fast_fn!(fast_retreat, |l, st| {
    if st.subscribed.get() {
        return None;
    }
    let to = fast::hex_arg(l, 3)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    let i = fast::unit_arg(l, st, &w, 2)?;
    w.check_path(i, &[to]).ok()?;
    // As `walk`: a unit no longer alive stops (false); a step that fails changes nothing.
    let moved = w.units[i].alive();
    if moved {
        w.step(i, to, true).ok()?;
    }
    Some(Out::Bool(moved))
});

// A unit handle's field read; fields other than these go to the full `__index`.
fast_fn!(fast_unit_index, |l, st| {
    let key = fast::str_arg(l, 2)?;
    let w = st.world.try_borrow().ok()?;
    let i = fast::unit_arg(l, st, &w, 1)?;
    let unit = &w.units[i];
    Some(match key {
        "side" => Out::Name(unit.side.clone()),
        "alive" => Out::Bool(unit.alive()),
        "strength" => Out::Num(unit.strength as f64),
        "hex" => unit.hex().map_or(Out::Nil, Out::Hex),
        "type" => Out::Name(unit.kind.clone()),
        "id" => Out::Text(unit.id.clone()),
        _ => return None,
    })
});

/// The world's fast paths, the calls rules make most first (`register`
/// places these names first in the `world` table).
const FAST: &[(&CStr, ffi::lua_CFunction)] = &[
    (c"has_token", fast_has_token),
    (c"unit_at", fast_unit_at),
    (c"pool", fast_pool),
    (c"add_pool", fast_add_pool),
    (c"terrain", fast_terrain),
    (c"on_map", fast_on_map),
    (c"baseline", fast_baseline),
    (c"opponent", fast_opponent),
    (c"hit", fast_hit),
    (c"retreat", fast_retreat),
    (c"remove_token", fast_remove_token),
    (c"add_token", fast_add_token),
];

fn install_fast(lua: &Lua, st: &Rc<State>, world: &Table) -> mlua::Result<()> {
    for (name, f) in FAST {
        fast::install(lua, st, world, name, *f)?;
    }
    // The unit metatable's `__index`: reached through any handle.
    if st.options.no_fast_paths {
        return Ok(());
    }
    let probe = lua.create_userdata(UnitRef { idx: usize::MAX, id: Rc::from(""), st: st.clone() })?;
    // SAFETY: reads the `__index` of the probe handle's metatable: the full
    // field read mlua made from `UnitRef::add_methods`.
    let full: Function = unsafe {
        lua.exec_raw((&probe,), |l| {
            ffi::lua_getmetatable(l, 1);
            ffi::lua_rawgetfield(l, -1, c"__index".as_ptr());
            ffi::lua_replace(l, 1);
            ffi::lua_settop(l, 1);
        })?
    };
    let fast_index = fast::make(lua, st, full, c"__index", fast_unit_index)?;
    // SAFETY: sets the same metatable's `__index` to the fast one.
    unsafe {
        lua.exec_raw::<()>((&probe, fast_index), |l| {
            ffi::lua_getmetatable(l, 1);
            ffi::lua_insert(l, 2);
            ffi::lua_rawsetfield(l, 2, c"__index".as_ptr());
            ffi::lua_settop(l, 0);
        })
    }
}
