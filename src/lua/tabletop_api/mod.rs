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

/// Installs the global `tabletop` (the `tabletop` area).
pub fn install(api: &mut Api) -> mlua::Result<()> {
    measure::install(api)?;
    arcs::install(api)?;
    terrain::install(api)
}
