//! `tabletop` arcs (of fire, enfilade), lines and zones, and the bases they
//! pass through.

use super::*;
use crate::lua::world::unit_handle;
use mlua::FromLua;

// ---- arcs ----

/// `tabletop.arc(from, bearing, angle) -> arc`: an arc opening from a point.
fn arc(lua: &Lua, (from, bearing, angle): (Value, f64, f64)) -> mlua::Result<Table> {
    let bearing = check_bearing("the bearing", bearing).map_err(err)?;
    arc_table(lua, &Arc::from_point(point_or_unit(lua, &from)?, bearing, checked_angle(angle)?))
}

/// `tabletop.arc_of_fire(base_or_unit, angle) -> arc`: the arc opening from
/// the front edge, its rays leaving the outer front corners.
fn arc_of_fire(lua: &Lua, (v, angle): (Value, f64)) -> mlua::Result<Table> {
    let b = shape(lua, &v, true)?.footprint("arc_of_fire")?;
    arc_table(lua, &Arc::of_fire(&b, checked_angle(angle)?.min(179.0)))
}

/// `tabletop.edge_arc(base_or_unit, edge, angle) -> arc`: the arc opening
/// from one edge (`front`, `right`, `rear`, `left`), e.g. a target's
/// enfilade arc from the edge that faces the battery.
fn edge_arc(lua: &Lua, (v, edge, angle): (Value, String, f64)) -> mlua::Result<Table> {
    let b = shape(lua, &v, true)?.footprint("edge_arc")?;
    arc_table(lua, &Arc::from_edge(&b, edge_arg(&edge)?, checked_angle(angle)?.min(179.0)))
}

/// `tabletop.arc_contains(arc, p) -> boolean`
fn arc_contains(lua: &Lua, (a, p): (Table, Value)) -> mlua::Result<bool> {
    Ok(arc_from(&a)?.contains(point_or_unit(lua, &p)?))
}

/// `tabletop.segment_in_arc(arc, a, b) -> fraction`: how much of the segment
/// a..b lies inside the arc (0..1).
fn segment_in_arc(lua: &Lua, (a, p, q): (Table, Value, Value)) -> mlua::Result<f64> {
    Ok(arc_from(&a)?.segment_fraction(Segment::new(point_or_unit(lua, &p)?, point_or_unit(lua, &q)?)))
}

/// `tabletop.frontage_in_arc(arc, base_or_unit) -> fraction`: how much of
/// the front edge (a unit's whole frontage) lies inside the arc (0..1).
fn frontage_in_arc(lua: &Lua, (a, v): (Table, Value)) -> mlua::Result<f64> {
    Ok(arc_from(&a)?.frontage_fraction(&shape(lua, &v, true)?.footprint("frontage_in_arc")?))
}

/// `tabletop.area_in_arc(arc, base_or_unit) -> fraction`: how much of the
/// bases' area lies inside the arc (0..1).
fn area_in_arc(lua: &Lua, (a, v): (Table, Value)) -> mlua::Result<f64> {
    let arc = arc_from(&a)?;
    let Shape::Bases(s) = shape(lua, &v, true)? else {
        return Err(err("tabletop.area_in_arc: expected a base or a tabletop unit"));
    };
    Ok(arc.area_fraction_of(&s.bases))
}

// ---- lines and zones ----

/// `tabletop.centre_line(battery, bearing, range) -> path`: the line from the
/// middle of the front edge along `bearing` (the centre of fire).
fn centre_line(lua: &Lua, (v, bearing, range): (Value, f64, f64)) -> mlua::Result<Table> {
    let (bearing, range) = line_args(bearing, range)?;
    path_table(lua, &Path::centre_line(&shape(lua, &v, true)?.footprint("centre_line")?, bearing, range))
}

/// A centre line's or frontage zone's bearing and range.
fn line_args(bearing: f64, range: f64) -> mlua::Result<(f64, f64)> {
    Ok((check_bearing("the bearing", bearing).map_err(err)?, check_length("the range", range).map_err(err)?))
}

/// `tabletop.frontage_zone(battery, bearing, range) -> path`: the strip as
/// wide as the battery from its front edge along `bearing`.
fn frontage_zone(lua: &Lua, (v, bearing, range): (Value, f64, f64)) -> mlua::Result<Table> {
    let (bearing, range) = line_args(bearing, range)?;
    path_table(lua, &Path::frontage_zone(&shape(lua, &v, true)?.footprint("frontage_zone")?, bearing, range))
}

/// `tabletop.through(path, {exclude=unit}?) -> {{unit=, base=, from=, to=, amount=}}`:
/// the bases of the tabletop units (with a base size) that the path passes
/// through, nearest its start first. `base` counts from 1; `from`/`to` are
/// the distances along the path where it enters and leaves the base;
/// `amount` is the length inside (line) or the fraction of the base inside
/// (zone).
fn through(lua: &Lua, (p, opts): (Table, Option<Table>)) -> mlua::Result<Table> {
    let path = path_from(&p)?;
    let exclude = match opts.as_ref().map(|o| o.get::<Value>("exclude")).transpose()? {
        None | Some(Value::Nil) => None,
        // A unit, or its id.
        Some(u) => Some(UnitArg::from_lua(u, lua)?.0.id.clone()),
    };
    let st = state(lua)?;
    let found = st.with_world(|w| {
        through_rows(&path, &through_candidates(w, exclude.as_deref()))
            .into_iter()
            .map(|c| (w.units[c.key].id.clone(), c))
            .collect::<Vec<_>>()
    })?;
    let mut handles = Vec::with_capacity(found.len());
    for (id, c) in &found {
        handles.push(unit_handle(lua, &st, c.key, id.clone())?);
    }
    let rows: Vec<_> = found.iter().map(|(_, c)| (c.base, c.from, c.to, c.amount)).collect();
    crate::lua::raw::tabletop::crossings_table(lua, handles, rows)
}

/// This room's calls in the `tabletop` area.
pub(super) fn install(api: &mut Api) -> mlua::Result<()> {
    api.function("tabletop.arc(from, bearing, angle)", "an arc opening from a point", |lua, _, args| arc(lua, args))?;
    api.function("tabletop.arc_of_fire(b, angle)", "the arc from a base's outer front corners", |lua, _, args| {
        arc_of_fire(lua, args)
    })?;
    api.function(
        "tabletop.edge_arc(b, edge, angle)",
        "the arc opening from one edge (an enfilade arc)",
        |lua, _, args| edge_arc(lua, args),
    )?;
    api.function("tabletop.arc_contains(arc, p)", "true when p lies in the arc", |lua, _, args| {
        arc_contains(lua, args)
    })?;
    api.function(
        "tabletop.segment_in_arc(arc, a, b)",
        "the fraction of segment a..b inside the arc",
        |lua, _, args| segment_in_arc(lua, args),
    )?;
    api.function(
        "tabletop.frontage_in_arc(arc, b)",
        "the fraction of a base's or unit's frontage inside the arc",
        |lua, _, args| frontage_in_arc(lua, args),
    )?;
    api.function(
        "tabletop.area_in_arc(arc, b)",
        "the fraction of a base's or unit's area inside the arc",
        |lua, _, args| area_in_arc(lua, args),
    )?;
    api.function(
        "tabletop.centre_line(b, bearing, range)",
        "a battery's centre of fire as a line path",
        |lua, _, args| centre_line(lua, args),
    )?;
    api.function(
        "tabletop.frontage_zone(b, bearing, range)",
        "a battery's frontage zone as a zone path",
        |lua, _, args| frontage_zone(lua, args),
    )?;
    api.function(
        "tabletop.through(path, {exclude=}?)",
        "the unit bases a line or zone passes through, nearest first",
        |lua, _, args| through(lua, args),
    )?;
    Ok(())
}
