//! `tabletop` terrain areas (cover, levels) and the marks drawn on the maps.

use super::*;
use crate::tabletop::TableMark;

// ---- terrain ----

fn area_table(lua: &Lua, a: &tabletop::Area) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("kind", &*a.kind)?;
    t.set("level", a.level)?;
    t.set("cover", a.cover.as_deref())?;
    t.set("name", a.name.as_deref())?;
    let pts = lua.create_table()?;
    for p in &a.points {
        pts.push(point(lua, *p)?)?;
    }
    t.set("points", pts)?;
    Ok(t)
}

/// `tabletop.areas(p?) -> {area}`: the terrain areas (those containing `p`
/// when given), each `{kind=, level=, cover=, name=, points=}`.
fn areas(lua: &Lua, p: Option<Value>) -> mlua::Result<Table> {
    let at = p.map(|p| point_or_unit(lua, &p)).transpose()?;
    let list = state(lua)?.with_world(|w| {
        w.board.tabletop.areas.iter().filter(|a| at.is_none_or(|p| a.contains(p))).cloned().collect::<Vec<_>>()
    })?;
    let t = lua.create_table()?;
    for a in &list {
        t.push(area_table(lua, a)?)?;
    }
    Ok(t)
}

/// `tabletop.areas_crossed(path) -> {{kind=, level=, cover=, name=, from=, to=, amount=}}`:
/// the terrain areas a line or zone passes through, nearest its start first
/// (`from`/`to`: the distances along the path where it enters and leaves;
/// `amount`: the length of line, or the area of zone, inside it).
fn areas_crossed(lua: &Lua, p: Table) -> mlua::Result<Table> {
    let path = path_from(&p)?;
    let found = state(lua)?.with_world(|w| areas_crossed_rows(w, &path))?;
    geo_table(lua, &Geo::Areas(found))
}

/// `tabletop.level(p) -> level`: the elevation level at a point (a unit: at
/// its centre); 0 off every area.
fn level(lua: &Lua, p: Value) -> mlua::Result<i32> {
    let p = point_or_unit(lua, &p)?;
    state(lua)?.with_world(|w| w.board.tabletop.level_at(p))
}

/// `tabletop.cover(base_or_unit) -> {{kind=, cover=, level=, name=, fraction=}}`:
/// every terrain area overlapping the bases, with the fraction of their
/// area inside it (a unit: of all its bases together).
fn cover(lua: &Lua, v: Value) -> mlua::Result<Table> {
    let Shape::Bases(s) = shape(lua, &v, true)? else {
        return Err(err("tabletop.cover: expected a base or a tabletop unit"));
    };
    let rows = state(lua)?.with_world(|w| cover_rows(w, &s.bases))?;
    frozen_table(lua, &Geo::Areas(rows))
}

// ---- marks ----

/// `tabletop.mark(shape, label)`: draws an arc, a path, a base or unit, or a
/// list of points on the tabletop maps (`:map`, `:map --svg`).
fn mark(lua: &Lua, (v, label): (Value, String)) -> mlua::Result<()> {
    let st = state(lua)?;
    let reach = st.with_world(|w| table_reach(w))?;
    let (points, closed) = match &v {
        Value::Table(t) if t.contains_key("bearing")? && t.contains_key("left")? => {
            (tabletop::ring_points_of(&arc_from(t)?.polygon(reach)), true)
        }
        Value::Table(t) if t.contains_key("kind")? => {
            let p = path_from(t)?;
            (p.outline(), matches!(p, Path::Zone { .. }))
        }
        Value::Table(t) if t.contains_key(1)? => {
            let mut pts = Vec::new();
            for item in t.sequence_values::<Value>() {
                pts.push(point_from_value(&item?)?);
            }
            let closed = pts.len() > 2;
            (pts, closed)
        }
        other => (shape(lua, other, true)?.footprint("mark")?.corners().to_vec(), true),
    };
    if points.len() > MAX_MARK_POINTS {
        return Err(err(format!("{} points; a mark may have at most {MAX_MARK_POINTS}", points.len())));
    }
    st.check_text(&label, "the label")?;
    if !st.recording() {
        return Ok(()); // nobody reads marks in sim and exact trials
    }
    st.check_memory(lua)?;
    st.with_world(|w| w.table_marks.push(TableMark { label: label.as_str().into(), points, closed }))
}

/// `tabletop.clear_marks()`: removes every tabletop mark.
fn clear_marks(lua: &Lua, _: ()) -> mlua::Result<()> {
    state(lua)?.with_world(|w| w.table_marks.clear())
}

/// `tabletop.marks() -> {{label=, points=, closed=}}`
fn marks(lua: &Lua, _: ()) -> mlua::Result<Table> {
    let list = state(lua)?.with_world(|w| w.table_marks.clone())?;
    let t = lua.create_table()?;
    for m in &list {
        let e = lua.create_table()?;
        e.set("label", &*m.label)?;
        e.set("closed", m.closed)?;
        let pts = lua.create_table()?;
        for p in &m.points {
            pts.push(point(lua, *p)?)?;
        }
        e.set("points", pts)?;
        t.push(e)?;
    }
    Ok(t)
}

/// This room's calls in the `tabletop` area.
pub(super) fn install(api: &mut Api) -> mlua::Result<()> {
    api.function("tabletop.areas(p?)", "terrain areas (those at p)", |lua, _, args| areas(lua, args))?;
    api.function(
        "tabletop.areas_crossed(path)",
        "terrain areas a line or zone passes through, nearest first",
        |lua, _, args| areas_crossed(lua, args),
    )?;
    api.function("tabletop.level(p)", "the elevation level at a point or unit", |lua, _, args| level(lua, args))?;
    api.function(
        "tabletop.cover(b)",
        "terrain areas over a base or unit, with the fraction inside each",
        |lua, _, args| cover(lua, args),
    )?;
    api.function(
        "tabletop.mark(shape, label)",
        "draw an arc, path, base or outline on the tabletop maps",
        |lua, _, args| mark(lua, args),
    )?;
    api.function("tabletop.clear_marks()", "remove the tabletop marks", |lua, _, args| clear_marks(lua, args))?;
    api.function("tabletop.marks()", "the tabletop marks", |lua, _, args| marks(lua, args))?;
    Ok(())
}
