//! `tabletop`: geometry in centimetres for miniatures rules (the pure maths is
//! in `crate::tabletop`).
//!
//! Values as Lua sees them:
//! - a point is `{x=, y=}`;
//! - a base is `{x=, y=, facing=, width=, depth=}` (x, y its centre, so a
//!   base also works as a point);
//! - wherever a base is expected a tabletop unit also works: its bases, or
//!   its footprint (the rectangle around them) where one rectangle is needed;
//!   where a point is expected a unit gives its centre;
//! - an arc is `{left=, right=, bearing=, angle=}` (it opens along `bearing`
//!   from the segment left..right, or from a point when they are the same);
//! - a path is `{kind="line", from=, to=}` or
//!   `{kind="zone", from=, bearing=, width=, length=}`.
//!
//! One small handler per Lua call; [`register`] at the bottom installs them.

use super::api::Api;
use std::rc::Rc;

use mlua::{Lua, Table, Value};

use super::state::MAX_MARK_POINTS;
use super::world::{point_from_value, unit_handle, UnitArg, UnitRef};
use super::State;
use crate::battlefield::{Map, World};
use crate::tabletop::{self, Arc, Base, Edge, Path, Point, Segment, TableMark};
use crate::unit::Position;

fn state(lua: &Lua) -> mlua::Result<Rc<State>> {
    lua.app_data_ref::<Rc<State>>().map(|s| s.clone()).ok_or_else(|| mlua::Error::runtime("sandtable state missing"))
}

fn err(msg: impl Into<String>) -> mlua::Error {
    mlua::Error::runtime(msg.into())
}

/// Something on the table: a point, or bases (a unit's, or one base).
enum Shape {
    Point(Point),
    Bases { bases: Vec<Base>, footprint: Base },
}

impl Shape {
    fn centre(&self) -> Point {
        match self {
            Shape::Point(p) => *p,
            Shape::Bases { footprint, .. } => footprint.centre,
        }
    }

    fn footprint(&self, call: &str) -> mlua::Result<Base> {
        match self {
            Shape::Bases { footprint, .. } => Ok(*footprint),
            Shape::Point(_) => Err(err(format!("tabletop.{call}: expected a base or a tabletop unit, got a point"))),
        }
    }
}

/// A unit's bases and footprint, or why it has none and where it stands.
type UnitShape = Result<(Vec<Base>, Base), (String, Point)>;

/// A unit's bases and footprint, or (for a unit whose type has no base
/// size) the error and its centre.
fn unit_shape(lua: &Lua, u: &UnitRef) -> mlua::Result<UnitShape> {
    let st = state(lua)?;
    st.with_world(|w| {
        let i = u.resolve(w)?;
        let unit = &w.units[i];
        let Position::Table { at, .. } = unit.pos else {
            return Err(err(format!("unit '{}' is not on the tabletop", unit.id)));
        };
        Ok(w.board.tabletop.unit_bases(unit).map_err(|e| (e, at)))
    })?
}

fn base_from_table(t: &Table) -> mlua::Result<Base> {
    let width: f64 = t.get("width")?;
    let depth: f64 = t.get("depth")?;
    let facing: f64 = t.get::<Option<f64>>("facing")?.unwrap_or(0.0);
    if !(width >= 0.0 && depth >= 0.0 && width.is_finite() && depth.is_finite()) {
        return Err(err("a base needs a width and a depth of 0 or more (cm)"));
    }
    if !facing.is_finite() {
        return Err(err(format!("a base's facing must be a finite number of degrees, got {facing}")));
    }
    if let Some(front) = t.get::<Option<Value>>("front")? {
        return Ok(Base::from_front(point_from_value(&front)?, facing, width, depth));
    }
    let centre = match t.get::<Option<Value>>("centre")? {
        Some(c) => point_from_value(&c)?,
        None => point_from_value(&Value::Table(t.clone()))?,
    };
    Ok(Base::new(centre, facing, width, depth))
}

/// Reads a point, a base table or a unit. With `strict`, a unit without a
/// base size is an error; otherwise it counts as its centre point.
fn shape(lua: &Lua, v: &Value, strict: bool) -> mlua::Result<Shape> {
    match v {
        Value::UserData(ud) => {
            let u = ud.borrow::<UnitRef>().map_err(|_| err("expected a point, a base or a unit"))?;
            match unit_shape(lua, &u)? {
                Ok((bases, footprint)) => Ok(Shape::Bases { bases, footprint }),
                Err((e, _)) if strict => Err(err(e)),
                Err((_, at)) => Ok(Shape::Point(at)),
            }
        }
        Value::Table(t) if t.contains_key("width")? => {
            let b = base_from_table(t)?;
            Ok(Shape::Bases { bases: vec![b], footprint: b })
        }
        _ => Ok(Shape::Point(point_from_value(v)?)),
    }
}

fn point_or_unit(lua: &Lua, v: &Value) -> mlua::Result<Point> {
    Ok(shape(lua, v, false)?.centre())
}

fn point(lua: &Lua, p: Point) -> mlua::Result<Table> {
    let t = lua.create_table_with_capacity(0, 2)?;
    t.set("x", p.x)?;
    t.set("y", p.y)?;
    Ok(t)
}

fn base_table(lua: &Lua, b: &Base) -> mlua::Result<Table> {
    let t = lua.create_table_with_capacity(0, 5)?;
    t.set("x", b.centre.x)?;
    t.set("y", b.centre.y)?;
    t.set("facing", b.facing)?;
    t.set("width", b.width)?;
    t.set("depth", b.depth)?;
    Ok(t)
}

fn segment_table(lua: &Lua, s: Segment) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("a", point(lua, s.a)?)?;
    t.set("b", point(lua, s.b)?)?;
    Ok(t)
}

fn arc_table(lua: &Lua, a: &Arc) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("left", point(lua, a.left)?)?;
    t.set("right", point(lua, a.right)?)?;
    t.set("bearing", a.bearing)?;
    t.set("angle", a.angle)?;
    Ok(t)
}

fn arc_from(v: &Table) -> mlua::Result<Arc> {
    let left = point_from_value(&v.get::<Value>("left")?)?;
    let right = point_from_value(&v.get::<Value>("right")?)?;
    let bearing: f64 = v.get("bearing")?;
    let angle = checked_angle(v.get("angle")?)?;
    Ok(Arc { left, right, bearing: tabletop::normalise(bearing), angle })
}

fn checked_angle(angle: f64) -> mlua::Result<f64> {
    if !(angle > 0.0 && angle <= 360.0) {
        return Err(err(format!("an arc's angle must be more than 0 and at most 360 degrees, got {angle}")));
    }
    Ok(angle)
}

fn path_table(lua: &Lua, p: &Path) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    match *p {
        Path::Line(s) => {
            t.set("kind", "line")?;
            t.set("from", point(lua, s.a)?)?;
            t.set("to", point(lua, s.b)?)?;
        }
        Path::Zone { from, bearing, width, length } => {
            t.set("kind", "zone")?;
            t.set("from", point(lua, from)?)?;
            t.set("bearing", bearing)?;
            t.set("width", width)?;
            t.set("length", length)?;
        }
    }
    Ok(t)
}

fn path_from(t: &Table) -> mlua::Result<Path> {
    let kind: String = t.get::<Option<String>>("kind")?.unwrap_or_else(|| "line".into());
    let from = point_from_value(&t.get::<Value>("from")?)?;
    match kind.as_str() {
        "line" => Ok(Path::Line(Segment::new(from, point_from_value(&t.get::<Value>("to")?)?))),
        "zone" => Ok(Path::Zone { from, bearing: t.get("bearing")?, width: t.get("width")?, length: t.get("length")? }),
        other => Err(err(format!("a path's kind is \"line\" or \"zone\", not \"{other}\""))),
    }
}

fn edge_arg(name: &str) -> mlua::Result<Edge> {
    Edge::parse(name).ok_or_else(|| err(format!("unknown edge '{name}' (front, right, rear or left)")))
}

/// The table's diagonal (how far an arc needs to reach to be drawn).
fn table_reach(w: &World) -> f64 {
    match w.map {
        Map::Table { width, height } => width.hypot(height),
        Map::Hex { .. } => 1000.0,
    }
}

// ---- measurement ----

/// `tabletop.point(x, y) -> {x=, y=}`
fn point_new(lua: &Lua, (x, y): (f64, f64)) -> mlua::Result<Table> {
    point(lua, Point::new(x, y))
}

/// `tabletop.distance(a, b) -> cm`: between two points; when either is a base
/// or a unit with a base size, between the closest points of their bases.
fn distance(lua: &Lua, (a, b): (Value, Value)) -> mlua::Result<f64> {
    let (a, b) = (shape(lua, &a, false)?, shape(lua, &b, false)?);
    Ok(match (&a, &b) {
        (Shape::Point(p), Shape::Point(q)) => p.distance(*q),
        (Shape::Point(p), Shape::Bases { bases, .. }) | (Shape::Bases { bases, .. }, Shape::Point(p)) => {
            bases.iter().map(|x| x.distance_to(*p)).fold(f64::INFINITY, f64::min)
        }
        (Shape::Bases { bases: ba, .. }, Shape::Bases { bases: bb, .. }) => {
            ba.iter().flat_map(|x| bb.iter().map(move |y| x.distance(y))).fold(f64::INFINITY, f64::min)
        }
    })
}

/// `tabletop.closest_points(a, b) -> pa, pb`: the closest pair of points of
/// two bases or units (or points).
fn closest_points(lua: &Lua, (a, b): (Value, Value)) -> mlua::Result<(Table, Table)> {
    let (a, b) = (shape(lua, &a, false)?, shape(lua, &b, false)?);
    let as_bases = |s: &Shape| match s {
        Shape::Point(p) => vec![Base::new(*p, 0.0, 0.0, 0.0)],
        Shape::Bases { bases, .. } => bases.clone(),
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
fn travel(lua: &Lua, (a, bearing, dist): (Value, f64, f64)) -> mlua::Result<Table> {
    point(lua, point_or_unit(lua, &a)?.travel(bearing, dist))
}

/// `tabletop.angle_between(a, b) -> degrees`: the smallest angle between two bearings.
fn angle_between(_: &Lua, (a, b): (f64, f64)) -> mlua::Result<f64> {
    Ok(tabletop::angle_between(a, b))
}

/// `tabletop.in_arc(from, facing, arc, to) -> boolean`: `to` within `arc`
/// degrees centred on `facing` as seen from the point `from`.
fn in_arc(lua: &Lua, (from, facing, arc, to): (Value, f64, f64, Value)) -> mlua::Result<bool> {
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

/// `tabletop.bases(unit) -> {base}`: a unit's bases, front rank first, left to right.
fn bases(lua: &Lua, u: Value) -> mlua::Result<Table> {
    let Shape::Bases { bases, .. } = shape(lua, &u, true)? else {
        return Err(err("tabletop.bases: expected a tabletop unit or a base"));
    };
    let t = lua.create_table()?;
    for b in &bases {
        t.push(base_table(lua, b)?)?;
    }
    Ok(t)
}

/// `tabletop.footprint(unit) -> base`: the rectangle around a unit's bases.
fn footprint(lua: &Lua, u: Value) -> mlua::Result<Table> {
    base_table(lua, &shape(lua, &u, true)?.footprint("footprint")?)
}

/// `tabletop.edges(base_or_unit) -> {front=, right=, rear=, left=}`: each
/// edge as `{a=, b=}`, left to right as seen looking out through it.
fn edges(lua: &Lua, v: Value) -> mlua::Result<Table> {
    let b = shape(lua, &v, true)?.footprint("edges")?;
    let t = lua.create_table()?;
    for e in Edge::ALL {
        t.set(e.name(), segment_table(lua, b.edge(e))?)?;
    }
    Ok(t)
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
        Ok(())
    })?
}

// ---- arcs ----

/// `tabletop.arc(from, bearing, angle) -> arc`: an arc opening from a point.
fn arc(lua: &Lua, (from, bearing, angle): (Value, f64, f64)) -> mlua::Result<Table> {
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
    let Shape::Bases { bases, .. } = shape(lua, &v, true)? else {
        return Err(err("tabletop.area_in_arc: expected a base or a tabletop unit"));
    };
    let total: f64 = bases.iter().map(Base::area).sum();
    if total <= 0.0 {
        return Ok(0.0);
    }
    Ok(bases.iter().map(|b| arc.area_fraction(b) * b.area()).sum::<f64>() / total)
}

// ---- lines and zones ----

/// `tabletop.centre_line(battery, bearing, range) -> path`: the line from the
/// middle of the front edge along `bearing` (the centre of fire).
fn centre_line(lua: &Lua, (v, bearing, range): (Value, f64, f64)) -> mlua::Result<Table> {
    path_table(lua, &Path::centre_line(&shape(lua, &v, true)?.footprint("centre_line")?, bearing, range))
}

/// `tabletop.frontage_zone(battery, bearing, range) -> path`: the strip as
/// wide as the battery from its front edge along `bearing`.
fn frontage_zone(lua: &Lua, (v, bearing, range): (Value, f64, f64)) -> mlua::Result<Table> {
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
        Some(Value::UserData(ud)) => Some(ud.borrow::<UnitRef>()?.id.clone()),
        _ => None,
    };
    let st = state(lua)?;
    let (found, ids) = st.with_world(|w| {
        let mut all = Vec::new();
        for (i, u) in w.units.iter().enumerate() {
            if !u.alive() || exclude.as_deref() == Some(&*u.id) {
                continue;
            }
            if let Ok((bases, _)) = w.board.tabletop.unit_bases(u) {
                all.extend(bases.into_iter().enumerate().map(|(n, b)| (i, n, b)));
            }
        }
        let ids: Vec<Rc<str>> = w.units.iter().map(|u| u.id.clone()).collect();
        (tabletop::crossings(&path, &all), ids)
    })?;
    let out = lua.create_table()?;
    for c in found {
        let t = lua.create_table()?;
        t.set("unit", unit_handle(lua, &st, c.key, ids[c.key].clone())?)?;
        t.set("base", c.base + 1)?;
        t.set("from", c.from)?;
        t.set("to", c.to)?;
        t.set("amount", c.amount)?;
        out.push(t)?;
    }
    Ok(out)
}

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

/// `tabletop.areas_crossed(path) -> {{kind=, level=, cover=, name=, from=, to=}}`:
/// the terrain areas a line or zone passes through, nearest its start first
/// (`from`/`to`: the distances along the path where it enters and leaves).
fn areas_crossed(lua: &Lua, p: Table) -> mlua::Result<Table> {
    let path = path_from(&p)?;
    let mut found = state(lua)?.with_world(|w| {
        w.board
            .tabletop
            .areas
            .iter()
            .filter_map(|a| path.meets_polygon(&a.polygon()).map(|(from, to, _)| (a.clone(), from, to)))
            .collect::<Vec<_>>()
    })?;
    found.sort_by(|a, b| a.1.total_cmp(&b.1));
    let t = lua.create_table()?;
    for (a, from, to) in &found {
        let e = area_table(lua, a)?;
        e.set("points", Value::Nil)?;
        e.set("from", *from)?;
        e.set("to", *to)?;
        t.push(e)?;
    }
    Ok(t)
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
    let Shape::Bases { bases, .. } = shape(lua, &v, true)? else {
        return Err(err("tabletop.cover: expected a base or a tabletop unit"));
    };
    let total: f64 = bases.iter().map(Base::area).sum::<f64>().max(1e-12);
    let found = state(lua)?.with_world(|w| {
        let layout = &w.board.tabletop;
        let mut acc = vec![0.0; layout.areas.len()];
        for b in &bases {
            for (i, f) in layout.overlaps(b) {
                acc[i] += f * b.area() / total;
            }
        }
        acc.iter()
            .enumerate()
            .filter(|(_, f)| **f > 1e-9)
            .map(|(i, f)| (layout.areas[i].clone(), *f))
            .collect::<Vec<_>>()
    })?;
    let t = lua.create_table()?;
    for (a, f) in &found {
        let e = area_table(lua, a)?;
        e.set("fraction", f.min(1.0))?;
        e.set("points", Value::Nil)?;
        t.push(e)?;
    }
    Ok(t)
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

/// Installs the global `tabletop`.
/// The `tabletop` area.
pub fn install(api: &mut Api) -> mlua::Result<()> {
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
    api.function("tabletop.bases(u)", "a unit's bases, front rank first, left to right", |lua, _, args| {
        bases(lua, args)
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
        "change a unit's formation (its type's formations)",
        |lua, _, args| set_formation(lua, args),
    )?;
    install_arcs_and_terrain(api)
}

/// The second half of the `tabletop` area: arcs, lines and zones, terrain, marks.
fn install_arcs_and_terrain(api: &mut Api) -> mlua::Result<()> {
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
