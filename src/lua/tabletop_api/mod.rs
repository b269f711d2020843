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
//! One small handler per Lua call, in rooms by concern: [`measure`] (points,
//! distances, bases, formations), [`arcs`] (arcs, lines and zones, what they
//! pass through), [`terrain`] (terrain areas, cover, levels, and the marks
//! drawn on the maps). This file holds what they share: reading and writing
//! points, bases, arcs and paths. [`install`] installs all three.

mod arcs;
mod measure;
mod terrain;

use super::api::Api;
use std::rc::Rc;

use mlua::{Lua, Table, Value};

use super::raw::tabletop::{table as geo_table, AreaRow, Geo};
use super::state::MAX_MARK_POINTS;
use super::world::{point_from_value, UnitRef};
use super::State;
use crate::battlefield::{Map, World};
use crate::tabletop::{self, Arc, Base, Edge, Path, Point, Segment};
use crate::unit::Position;

fn state(lua: &Lua) -> mlua::Result<Rc<State>> {
    lua.app_data_ref::<Rc<State>>().map(|s| s.clone()).ok_or_else(|| mlua::Error::runtime("sandtable state missing"))
}

fn err(msg: impl Into<String>) -> mlua::Error {
    mlua::Error::runtime(msg.into())
}

/// Something on the table: a point, or bases (a unit's, or one base).
pub(crate) enum Shape {
    Point(Point),
    Bases { bases: Vec<Base>, footprint: Base },
}

impl Shape {
    pub(crate) fn centre(&self) -> Point {
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

    /// `tabletop.distance`: between points, or between the closest points of bases.
    pub(crate) fn distance(&self, other: &Shape) -> f64 {
        match (self, other) {
            (Shape::Point(p), Shape::Point(q)) => p.distance(*q),
            (Shape::Point(p), Shape::Bases { bases, .. }) | (Shape::Bases { bases, .. }, Shape::Point(p)) => {
                bases.iter().map(|x| x.distance_to(*p)).fold(f64::INFINITY, f64::min)
            }
            (Shape::Bases { bases: ba, .. }, Shape::Bases { bases: bb, .. }) => {
                ba.iter().flat_map(|x| bb.iter().map(move |y| x.distance(y))).fold(f64::INFINITY, f64::min)
            }
        }
    }
}

/// `tabletop.through`'s crossings: the bases of the living tabletop units
/// (but `exclude`) that the path passes through, nearest first.
pub(crate) fn through_rows(w: &World, path: &Path, exclude: Option<&str>) -> Vec<tabletop::Crossing> {
    let mut all = Vec::new();
    for (i, u) in w.units.iter().enumerate() {
        if !u.alive() || exclude == Some(&*u.id) {
            continue;
        }
        if let Ok((bases, footprint)) = w.board.tabletop.unit_bases(u) {
            // A path that misses the footprint misses every base inside it.
            if path.meets(&footprint).is_some() {
                all.extend(bases.into_iter().enumerate().map(|(n, b)| (i, n, b)));
            }
        }
    }
    tabletop::crossings(path, &all)
}

/// `tabletop.cover`'s rows: every terrain area overlapping the bases, with
/// the fraction of their area inside it (of all the bases together).
pub(crate) fn cover_rows(w: &World, bases: &[Base]) -> Vec<AreaRow> {
    let layout = &w.board.tabletop;
    layout
        .cover(bases)
        .into_iter()
        .map(|(i, f)| AreaRow { fraction: Some(f.min(1.0)), ..AreaRow::new(&layout.areas[i]) })
        .collect()
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
    geo_table(lua, &Geo::Point(p))
}

fn base_table(lua: &Lua, b: &Base) -> mlua::Result<Table> {
    geo_table(lua, &Geo::Base(*b))
}

fn segment_table(lua: &Lua, s: Segment) -> mlua::Result<Table> {
    geo_table(lua, &Geo::Segment(s))
}

fn arc_table(lua: &Lua, a: &Arc) -> mlua::Result<Table> {
    geo_table(lua, &Geo::Arc(*a))
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
    geo_table(lua, &Geo::Path(*p))
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

/// Installs the global `tabletop` (the `tabletop` area).
pub fn install(api: &mut Api) -> mlua::Result<()> {
    measure::install(api)?;
    arcs::install(api)?;
    terrain::install(api)?;
    super::raw::tabletop::install(api.lua, api.st, api.table())
}
