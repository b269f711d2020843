//! The board: terrain, tokens, sections and marks.

use std::rc::Rc;

use mlua::{IntoLuaMulti, Lua, MultiValue, Value, Variadic};

use super::super::hex_api::{hex_value, HexArg, HEX_BYTES, HEX_NS};
use super::super::raw::args::Name;
use super::super::State;
use crate::battlefield::Map;

/// `world:terrain(h)`: the terrain name of h, or nil.
pub fn terrain(l: &Lua, st: &Rc<State>, h: HexArg) -> mlua::Result<impl IntoLuaMulti> {
    let t = st.with_world(|w| w.terrain(h.0).cloned())?;
    t.map(|t| st.name(l, &t)).transpose()
}

/// `world:set_terrain(h, name)`: change (or with nil clear) the terrain of h.
pub fn set_terrain(_l: &Lua, st: &Rc<State>, (h, t): (HexArg, Option<Name>)) -> mlua::Result<impl IntoLuaMulti> {
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
}

/// `world:terrain_info(h)`: the ruleset's data for the terrain of h.
pub fn terrain_info(l: &Lua, st: &Rc<State>, h: HexArg) -> mlua::Result<impl IntoLuaMulti> {
    let t = st.with_world(|w| w.terrain(h.0).map(|t| t.to_string()))?;
    st.note_read("terrain");
    let info = t.and_then(|t| st.ruleset.borrow().as_ref().and_then(|r| r.terrain.get(&t).cloned()));
    match info {
        Some(v) => super::super::json_to_lua(l, &v),
        None => Ok(Value::Table(l.create_table()?)),
    }
}

/// `world:tokens(h)`: the tokens on h.
pub fn tokens(l: &Lua, st: &Rc<State>, h: HexArg) -> mlua::Result<impl IntoLuaMulti> {
    let toks = st.with_world(|w| w.tokens(h.0).map(|t| t.to_string()).collect::<Vec<_>>())?;
    let toks = toks.iter().map(|t| st.name(l, t)).collect::<mlua::Result<Vec<_>>>()?;
    crate::lua::raw::sequence::sequence(l, toks)
}

/// `world:at(h, token...)`: what is on hex h in one call: the unit there (or
/// nil), its side, the terrain name (or nil), then for each token named,
/// whether h holds it. A hex off the map holds nothing.
pub fn at(l: &Lua, st: &Rc<State>, (h, tokens): (HexArg, Variadic<Name>)) -> mlua::Result<impl IntoLuaMulti> {
    let (found, terrain, held) = st.with_world(|w| {
        let found = w.unit_at(h.0).map(|i| (i, w.units[i].id.clone(), w.units[i].side.clone()));
        let held: Vec<bool> = tokens.iter().map(|t| w.has_token(h.0, t)).collect();
        (found, w.terrain(h.0).cloned(), held)
    })?;
    let mut out = MultiValue::with_capacity(3 + held.len());
    match found {
        Some((i, id, side)) => {
            out.push_back(Value::UserData(super::units::unit_handle(l, st, i, id)?));
            out.push_back(Value::String(st.name(l, &side)?));
        }
        None => {
            out.push_back(Value::Nil);
            out.push_back(Value::Nil);
        }
    }
    out.push_back(match terrain {
        Some(t) => Value::String(st.name(l, &t)?),
        None => Value::Nil,
    });
    out.extend(held.into_iter().map(Value::Boolean));
    Ok(out)
}

/// `world:has_token(h, token)`: true when h holds that token.
pub fn has_token(_l: &Lua, st: &Rc<State>, (h, t): (HexArg, Name)) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| w.has_token(h.0, &t))
}

/// `world:add_token(h, token)`: place a token.
pub fn add_token(_l: &Lua, st: &Rc<State>, (h, t): (HexArg, Name)) -> mlua::Result<impl IntoLuaMulti> {
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
}

/// `world:remove_token(h, token)`: remove one token; true if there was one.
pub fn remove_token(_l: &Lua, st: &Rc<State>, (h, t): (HexArg, Name)) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| w.remove_token(h.0, &t))
}

/// `world:on_map(h)`: true when h is on the map.
pub fn on_map(_l: &Lua, st: &Rc<State>, h: HexArg) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| w.on_map(h.0))
}

/// `world:hexes()`: every hex of the map, row by row.
pub fn hexes(l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
    let n = st.with_world(|w| match w.map {
        Map::Hex { cols, rows, .. } => u64::from(cols.unsigned_abs()) * u64::from(rows.unsigned_abs()),
        Map::Table { .. } => 0,
    })?;
    st.check_work(l, n, "hexes", HEX_BYTES, HEX_NS)?;
    let hs = st.with_world(|w| w.hexes())?;
    crate::lua::raw::sequence::sequence(l, hs.into_iter().map(hex_value))
}

/// `world:sections(h)`: the sections h belongs to (two on a section line).
pub fn sections(l: &Lua, st: &Rc<State>, h: HexArg) -> mlua::Result<impl IntoLuaMulti> {
    let s = st.with_world(|w| w.sections_of(h.0).iter().map(|s| s.to_string()).collect::<Vec<_>>())?;
    let s = s.iter().map(|n| st.name(l, n)).collect::<mlua::Result<Vec<_>>>()?;
    crate::lua::raw::sequence::sequence(l, s)
}

/// `world:in_section(h, name)`: true when h is in that section.
pub fn in_section(_l: &Lua, st: &Rc<State>, (h, s): (HexArg, Name)) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| {
        if !w.sections.iter().any(|x| *x.name == *s) {
            return Err(mlua::Error::runtime(format!(
                "no section named '{s}' (sections: {})",
                w.sections.iter().map(|x| x.name.to_string()).collect::<Vec<_>>().join(", ")
            )));
        }
        Ok(w.in_section(h.0, &s))
    })?
}

/// `world:map()`: the map: {kind=hex, cols=, rows=, offset=} or a tabletop's size.
pub fn map(l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
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
}

/// `world:mark(h, label)`: label a hex for maps (a template, a line of fire).
/// Checked, then dropped while the world is not recording (see [`recording`]).
pub fn mark(l: &Lua, st: &Rc<State>, (h, label): (HexArg, Name)) -> mlua::Result<impl IntoLuaMulti> {
    st.check_text(&label, "the label")?;
    if !st.recording() {
        return Ok(());
    }
    st.check_memory(l)?;
    st.with_world(|w| w.marks.push((h.0, Rc::from(&*label))))
}

/// `world:clear_marks()`: remove every mark.
pub fn clear_marks(_l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| w.marks.clear())
}

/// `world:recording()`: whether the world keeps its records for someone to
/// read: the event log and the marks. `sim` and `exact` trials (but not
/// `--explain`) run with it off, when nobody reads them: notes and marks
/// are then dropped, and a rule may skip building them.
pub fn recording(_l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
    Ok(st.recording())
}

/// `world:marks()`: the marks, each {hex=, label=}.
pub fn marks(l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
    let marks = st.with_world(|w| w.marks.clone())?;
    let mut entries = Vec::new();
    for (h, label) in marks {
        let m = l.create_table()?;
        m.set("hex", hex_value(h))?;
        m.set("label", &*label)?;
        entries.push(m);
    }
    crate::lua::raw::sequence::sequence(l, entries)
}
