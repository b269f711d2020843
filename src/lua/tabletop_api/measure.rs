//! `tabletop` measurement (points, distances, bearings) and bases (edges,
//! footprints, formations).

use super::*;
use crate::lua::world::UnitArg;

// ---- measurement ----

/// `tabletop.point(x, y) -> {x=, y=}`
fn point_new(lua: &Lua, (x, y): (f64, f64)) -> mlua::Result<Table> {
    point(lua, check_point(Point::new(x, y)).map_err(err)?)
}

/// `tabletop.distance(a, b) -> cm`: between two points; when either is a base
/// or a unit with a base size, between the closest points of their bases.
fn distance(lua: &Lua, (a, b): (Value, Value)) -> mlua::Result<f64> {
    Ok(shape(lua, &a, false)?.distance(&shape(lua, &b, false)?))
}

/// `tabletop.closest_points(a, b) -> pa, pb`: the closest pair of points of
/// two bases or units (or points).
fn closest_points(lua: &Lua, (a, b): (Value, Value)) -> mlua::Result<(Table, Table)> {
    let (a, b) = (shape(lua, &a, false)?, shape(lua, &b, false)?);
    let as_bases = |s: &Shape| match s {
        Shape::Point(p) => vec![Base::new(*p, 0.0, 0.0, 0.0)],
        Shape::Bases(s) => s.bases.clone(),
    };
    let (ba, bb) = (as_bases(&a), as_bases(&b));
    let mut best = (f64::INFINITY, a.centre(), b.centre());
    for x in &ba {
        for y in &bb {
            let (p, q) = x.closest_points(y);
            if p.distance(q) < best.0 {
                best = (p.distance(q), p, q);
            }
        }
    }
    Ok((point(lua, best.1)?, point(lua, best.2)?))
}

/// `tabletop.bearing(a, b) -> degrees`: clockwise from east, a to b (centres).
fn bearing(lua: &Lua, (a, b): (Value, Value)) -> mlua::Result<f64> {
    Ok(point_or_unit(lua, &a)?.bearing(point_or_unit(lua, &b)?))
}

/// `tabletop.travel(a, bearing, cm) -> point`
/// `cm` may be negative (backwards along the bearing).
fn travel(lua: &Lua, (a, bearing, dist): (Value, f64, f64)) -> mlua::Result<Table> {
    let bearing = check_bearing("the bearing", bearing).map_err(err)?;
    // NaN fails every comparison: refuse it by name.
    if dist.is_nan() || dist.abs() > tabletop::MAX_CM {
        return Err(err(format!(
            "the distance must be from -{0} to {0} cm (back or forth along the bearing), got {1}",
            tabletop::MAX_CM,
            shown(dist)
        )));
    }
    point(lua, point_or_unit(lua, &a)?.travel(bearing, dist))
}

/// `tabletop.angle_between(a, b) -> degrees`: the smallest angle between two bearings.
fn angle_between(_: &Lua, (a, b): (f64, f64)) -> mlua::Result<f64> {
    let a = check_bearing("the first bearing", a).map_err(err)?;
    let b = check_bearing("the second bearing", b).map_err(err)?;
    Ok(tabletop::angle_between(a, b))
}

/// `tabletop.in_arc(from, facing, arc, to) -> boolean`: `to` within `arc`
/// degrees centred on `facing` as seen from the point `from`.
fn in_arc(lua: &Lua, (from, facing, arc, to): (Value, f64, f64, Value)) -> mlua::Result<bool> {
    let facing = check_bearing("the facing", facing).map_err(err)?;
    let arc = check_angle(arc).map_err(err)?;
    Ok(tabletop::in_arc(point_or_unit(lua, &from)?, facing, arc, point_or_unit(lua, &to)?))
}

/// `tabletop.in_rect(p, {centre=, width=, depth=, facing=}) -> boolean`
fn in_rect(lua: &Lua, (p, rect): (Value, Table)) -> mlua::Result<bool> {
    let b = base_from_table(&rect)?;
    Ok(b.contains(point_or_unit(lua, &p)?))
}

// ---- bases ----

/// `tabletop.base{x=, y= | centre= | front=, facing=, width=, depth=} -> base`:
/// a base from its centre or the midpoint of its front edge.
fn base(lua: &Lua, spec: Table) -> mlua::Result<Table> {
    base_table(lua, &base_from_table(&spec)?)
}

/// `tabletop.bases(unit | id) -> {base}`: a unit's bases in place order
/// (front rank first, left to right), each with its `id`.
fn bases(lua: &Lua, u: Value) -> mlua::Result<Table> {
    let Shape::Bases(s) = shape(lua, &u, true)? else {
        return Err(err("tabletop.bases: expected a tabletop unit or a base"));
    };
    // A unit (or its id) gives its bases' ids; a base table none.
    frozen_table(lua, &Geo::Shape(s))
}

/// `tabletop.trace(u, label, ids?) -> n`: remembers where the unit's bases
/// (or the bases named) stand now, under `label`; returns how many.
fn trace(lua: &Lua, (u, label, ids): (UnitArg, String, Option<Table>)) -> mlua::Result<usize> {
    let ids = ids.map(|t| crate::lua::world::base_ids(&t, "tabletop.trace")).transpose()?;
    let st = state(lua)?;
    st.check_text(&label, "the label")?;
    st.check_memory(lua)?;
    st.with_world(|w| {
        let i = u.0.resolve(w)?;
        w.trace(i, &label, ids.as_deref()).map_err(|e| err(format!("tabletop.trace: {e}")))
    })?
}

/// `tabletop.traces(label?, u?) -> {{unit=, label=, bases={base}}}`: the
/// traces kept, oldest first (those with the label, of the unit); each base
/// with its `id`.
fn traces(lua: &Lua, (label, u): (Option<String>, Option<UnitArg>)) -> mlua::Result<Table> {
    let st = state(lua)?;
    let found = st.with_world(|w| {
        let unit = u.as_ref().map(|u| u.0.resolve(w).map(|i| w.units[i].id.clone())).transpose()?;
        Ok::<_, mlua::Error>(
            w.traces
                .iter()
                .filter(|t| label.as_deref().is_none_or(|l| &*t.label == l))
                .filter(|t| unit.as_ref().is_none_or(|id| *id == t.unit))
                .map(|t| (w.unit_index(&t.unit).ok(), t.clone()))
                .collect::<Vec<_>>(),
        )
    })??;
    let out = lua.create_table_with_capacity(found.len(), 0)?;
    for (idx, t) in found {
        let row = lua.create_table_with_capacity(0, 3)?;
        match idx {
            Some(i) => row.set("unit", crate::lua::world::unit_handle(lua, &st, i, t.unit.clone())?)?,
            None => row.set("unit", &*t.unit)?,
        }
        row.set("label", &*t.label)?;
        let (ids, bases): (Vec<u16>, Vec<Base>) = t.bases.iter().copied().unzip();
        row.set("bases", geo_table(lua, &Geo::Bases(bases, ids))?)?;
        out.push(row)?;
    }
    Ok(out)
}

/// `tabletop.clear_traces(label?)`: forgets the traces with the label (all
/// of them without one).
fn clear_traces(lua: &Lua, label: Option<String>) -> mlua::Result<()> {
    state(lua)?.with_world(|w| w.clear_traces(label.as_deref()))
}

/// `tabletop.footprint(unit) -> base`: the rectangle around a unit's bases.
fn footprint(lua: &Lua, u: Value) -> mlua::Result<Table> {
    base_table(lua, &shape(lua, &u, true)?.footprint("footprint")?)
}

/// `tabletop.edges(base_or_unit) -> {front=, right=, rear=, left=}`: each
/// edge as `{a=, b=}`, left to right as seen looking out through it.
fn edges(lua: &Lua, v: Value) -> mlua::Result<Table> {
    frozen_table(lua, &Geo::Edges(shape(lua, &v, true)?.footprint("edges")?))
}

/// `tabletop.edge_towards(base_or_unit, other) -> name, {a=, b=}`: the edge
/// of the first that faces the second (`front`, `right`, `rear` or `left`).
fn edge_towards(lua: &Lua, (v, other): (Value, Value)) -> mlua::Result<(String, Table)> {
    let b = shape(lua, &v, true)?.footprint("edge_towards")?;
    let e = b.edge_towards(point_or_unit(lua, &other)?);
    Ok((e.name().to_string(), segment_table(lua, b.edge(e))?))
}

/// `tabletop.set_formation(unit, name)`: checks the formation against the
/// unit type's and sets the unit's `formation` property.
fn set_formation(lua: &Lua, (u, name): (UnitArg, String)) -> mlua::Result<()> {
    let st = state(lua)?;
    st.with_world(|w| {
        let i = u.0.resolve(w)?;
        let kind = w.units[i].kind.clone();
        let spec = w.board.tabletop.bases.get(&kind).ok_or_else(|| {
            err(format!("tabletop.set_formation: unit type '{kind}' has no base size and no formations"))
        })?;
        if spec.files(Some(&name)).is_none() {
            return Err(err(format!(
                "tabletop.set_formation: unit type '{kind}' has no formation '{name}' (formations: {})",
                spec.formations.iter().map(|f| &*f.0).collect::<Vec<_>>().join(", ")
            )));
        }
        w.units[i].set_prop("formation", Some(crate::unit::Prop::Str(name.as_str().into())));
        w.close_up(i);
        Ok(())
    })?
}

/// This room's calls in the `tabletop` area.
pub(super) fn install(api: &mut Api) -> mlua::Result<()> {
    api.function("tabletop.point(x, y)", "a point {x=, y=} in cm", |lua, _, args| point_new(lua, args))?;
    api.function(
        "tabletop.distance(a, b)",
        "cm between points, or between the closest points of bases/units",
        |lua, _, args| distance(lua, args),
    )?;
    api.function(
        "tabletop.closest_points(a, b)",
        "the closest pair of points of two bases or units",
        |lua, _, args| closest_points(lua, args),
    )?;
    api.function("tabletop.bearing(a, b)", "degrees clockwise from east, a to b", |lua, _, args| bearing(lua, args))?;
    api.function("tabletop.travel(a, bearing, cm)", "the point cm away along a bearing", |lua, _, args| {
        travel(lua, args)
    })?;
    api.function("tabletop.angle_between(a, b)", "smallest angle between two bearings", |lua, _, args| {
        angle_between(lua, args)
    })?;
    api.function("tabletop.in_arc(from, facing, arc, to)", "true when to lies within the arc", |lua, _, args| {
        in_arc(lua, args)
    })?;
    api.function(
        "tabletop.in_rect(p, {centre=, width=, depth=, facing=})",
        "true when p lies in the rectangle",
        |lua, _, args| in_rect(lua, args),
    )?;
    api.function(
        "tabletop.base{x=, y= | front=, facing=, width=, depth=}",
        "a base (an oriented rectangle)",
        |lua, _, args| base(lua, args),
    )?;
    api.function(
        "tabletop.bases(u)",
        "a unit's bases with their ids, front rank first, left to right",
        |lua, _, args| bases(lua, args),
    )?;
    api.function(
        "tabletop.trace(u, label, ids?)",
        "remember where the unit's bases (or those named) stand now",
        |lua, _, args| trace(lua, args),
    )?;
    api.function("tabletop.traces(label?, u?)", "the traces kept, oldest first", |lua, _, args| traces(lua, args))?;
    api.function("tabletop.clear_traces(label?)", "forget the traces (with that label)", |lua, _, args| {
        clear_traces(lua, args)
    })?;
    api.function("tabletop.footprint(u)", "the rectangle around a unit's bases", |lua, _, args| footprint(lua, args))?;
    api.function("tabletop.edges(b)", "front, right, rear and left edges as {a=, b=}", |lua, _, args| {
        edges(lua, args)
    })?;
    api.function(
        "tabletop.edge_towards(b, other)",
        "the edge of b that faces other, and its segment",
        |lua, _, args| edge_towards(lua, args),
    )?;
    api.function(
        "tabletop.set_formation(u, name)",
        "change a unit's formation (its type's formations); its bases close up",
        |lua, _, args| set_formation(lua, args),
    )?;
    Ok(())
}
