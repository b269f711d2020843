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

use mlua::{FromLua, Lua, Table, Value};

use super::format_number;
use super::raw::tabletop::{frozen_table, table as geo_table, AreaRow, Geo};
use super::state::MAX_MARK_POINTS;
use super::world::{point_from_value, UnitArg, UnitRef};
use super::State;
use crate::battlefield::{Map, World};
use crate::tabletop::{self, Arc, Base, Edge, Path, Point, Segment, UnitShape};
use crate::unit::Position;

fn state(lua: &Lua) -> mlua::Result<Rc<State>> {
    lua.app_data_ref::<Rc<State>>().map(|s| s.clone()).ok_or_else(|| mlua::Error::runtime("sandtable state missing"))
}

fn err(msg: impl Into<String>) -> mlua::Error {
    mlua::Error::runtime(msg.into())
}

// ---- what the calls take (the fast paths decline what these refuse) ----

/// A number as an error message shows it (`1e300`, not three hundred digits).
fn shown(v: f64) -> String {
    if v.abs() >= 1e15 && v.is_finite() {
        format!("{v:e}")
    } else {
        format_number(v)
    }
}

/// A bearing or facing in degrees: any finite number (NaN or infinity would
/// give NaN points, or arcs that hold nothing).
pub(crate) fn check_bearing(what: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{what} must be a finite number of degrees, got {}", shown(v)))
    }
}

/// A length (a range, a zone's width or length) in cm: from 0 to [`tabletop::MAX_CM`].
pub(crate) fn check_length(what: &str, v: f64) -> Result<f64, String> {
    if (0.0..=tabletop::MAX_CM).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{what} must be from 0 to {} cm, got {}", tabletop::MAX_CM, shown(v)))
    }
}

/// A point of finite numbers within [`tabletop::MAX_CM`] of the table's corner.
pub(crate) fn check_point(p: Point) -> Result<Point, String> {
    if !(p.x.is_finite() && p.y.is_finite()) {
        Err(format!("a point's x and y must be finite numbers, got ({}, {})", shown(p.x), shown(p.y)))
    } else if p.x.abs() <= tabletop::MAX_CM && p.y.abs() <= tabletop::MAX_CM {
        Ok(p)
    } else {
        Err(format!(
            "a point's x and y must lie within {} cm of the table's corner, got ({}, {})",
            tabletop::MAX_CM,
            shown(p.x),
            shown(p.y)
        ))
    }
}

/// An arc's angle: more than 0 and at most 360 degrees (an arc of 0 holds
/// nothing but its own line, and one of 720 is no arc).
pub(crate) fn check_angle(angle: f64) -> Result<f64, String> {
    if angle > 0.0 && angle <= 360.0 {
        Ok(angle)
    } else {
        Err(format!("an arc's angle must be more than 0 and at most 360 degrees, got {}", shown(angle)))
    }
}

/// A path's numbers: a zone's bearing, width and length (its points are
/// read as points).
pub(crate) fn check_path(p: &Path) -> Result<(), String> {
    if let Path::Zone { from, bearing, width, length } = *p {
        check_point(from)?;
        check_bearing("a zone's bearing", bearing)?;
        check_length("a zone's width", width)?;
        check_length("a zone's length", length)?;
    }
    Ok(())
}

/// A base's size and place.
pub(crate) fn check_base(b: &Base) -> Result<(), String> {
    check_length("a base's width", b.width)?;
    check_length("a base's depth", b.depth)?;
    check_point(b.centre)?;
    Ok(())
}

/// Something on the table: a point, or bases (a unit's, as the world keeps
/// them, or one base).
pub(crate) enum Shape {
    Point(Point),
    Bases(Rc<UnitShape>),
}

impl Shape {
    /// One base on its own.
    pub(crate) fn base(b: Base) -> Shape {
        Shape::Bases(Rc::new(UnitShape::single(b)))
    }

    pub(crate) fn centre(&self) -> Point {
        match self {
            Shape::Point(p) => *p,
            Shape::Bases(s) => s.footprint.centre,
        }
    }

    fn footprint(&self, call: &str) -> mlua::Result<Base> {
        match self {
            Shape::Bases(s) => Ok(s.footprint),
            Shape::Point(_) => Err(err(format!("tabletop.{call}: expected a base or a tabletop unit, got a point"))),
        }
    }

    /// `tabletop.distance`: between points, or between the closest points of bases.
    pub(crate) fn distance(&self, other: &Shape) -> f64 {
        match (self, other) {
            (Shape::Point(p), Shape::Point(q)) => p.distance(*q),
            (Shape::Point(p), Shape::Bases(s)) | (Shape::Bases(s), Shape::Point(p)) => {
                s.bases.iter().map(|x| x.distance_to(*p)).fold(f64::INFINITY, f64::min)
            }
            (Shape::Bases(a), Shape::Bases(b)) => {
                a.bases.iter().flat_map(|x| b.bases.iter().map(move |y| x.distance(y))).fold(f64::INFINITY, f64::min)
            }
        }
    }
}

/// The units `tabletop.through` could find: each living tabletop unit with
/// bases (but `exclude`), by slot, with its bases as they stand.
pub(crate) fn through_candidates(w: &World, exclude: Option<&str>) -> Vec<(usize, Rc<UnitShape>)> {
    w.units
        .iter()
        .enumerate()
        .filter(|(_, u)| u.alive() && exclude != Some(&*u.id) && matches!(u.pos, Position::Table { .. }))
        .filter_map(|(i, _)| Some((i, w.unit_shape(i).ok()?)))
        .collect()
}

/// `tabletop.through`'s crossings: the bases of the candidates (see
/// [`through_candidates`]) that the path passes through, nearest first.
pub(crate) fn through_rows(path: &Path, candidates: &[(usize, Rc<UnitShape>)]) -> Vec<tabletop::Crossing> {
    let reach = path.bbox();
    let mut all = Vec::new();
    for (i, shape) in candidates {
        // A path that misses the footprint (or, sooner told, its box)
        // misses every base inside it.
        if reach.meets(&shape.bbox) && path.meets(&shape.footprint).is_some() {
            all.extend(shape.bases.iter().enumerate().map(|(n, b)| (*i, n, *b)));
        }
    }
    tabletop::crossings(path, &all)
}

/// `tabletop.areas_crossed`'s rows: the terrain areas the path passes
/// through, nearest its start first.
pub(crate) fn areas_crossed_rows(w: &World, path: &Path) -> Vec<AreaRow> {
    let mut found: Vec<AreaRow> = w
        .board
        .tabletop
        .areas
        .iter()
        .filter_map(|a| {
            path.meets_polygon(&a.polygon())
                .map(|(from, to, amount)| AreaRow { span: Some((from, to, amount)), ..AreaRow::new(a) })
        })
        .collect();
    found.sort_by(|a, b| a.span.map(|s| s.0).unwrap_or(0.0).total_cmp(&b.span.map(|s| s.0).unwrap_or(0.0)));
    found
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

/// A unit's bases, or (for a unit whose type has no base size) the error
/// and its centre.
fn unit_shape(lua: &Lua, u: &UnitRef) -> mlua::Result<Result<Rc<UnitShape>, (String, Point)>> {
    let st = state(lua)?;
    st.with_world(|w| {
        let i = u.resolve(w)?;
        let unit = &w.units[i];
        let Position::Table { at, .. } = unit.pos else {
            return Err(err(format!("unit '{}' is not on the tabletop", unit.id)));
        };
        Ok(w.unit_shape(i).map_err(|e| (e, at)))
    })?
}

fn base_from_table(t: &Table) -> mlua::Result<Base> {
    let width: f64 = t.get("width")?;
    let depth: f64 = t.get("depth")?;
    let facing: f64 = t.get::<Option<f64>>("facing")?.unwrap_or(0.0);
    if !(width >= 0.0 && depth >= 0.0 && width.is_finite() && depth.is_finite()) {
        return Err(err("a base needs a width and a depth of 0 or more (cm)"));
    }
    check_bearing("a base's facing", facing).map_err(err)?;
    let b = match t.get::<Option<Value>>("front")? {
        Some(front) => Base::from_front(point_from_value(&front)?, facing, width, depth),
        None => {
            let centre = match t.get::<Option<Value>>("centre")? {
                Some(c) => point_from_value(&c)?,
                None => point_from_value(&Value::Table(t.clone()))?,
            };
            Base::new(centre, facing, width, depth)
        }
    };
    check_base(&b).map_err(err)?;
    Ok(b)
}

/// Reads a point, a base table or a unit. With `strict`, a unit without a
/// base size is an error; otherwise it counts as its centre point.
fn shape(lua: &Lua, v: &Value, strict: bool) -> mlua::Result<Shape> {
    let of_unit = |u: &UnitRef| -> mlua::Result<Shape> {
        match unit_shape(lua, u)? {
            Ok(shape) => Ok(Shape::Bases(shape)),
            Err((e, _)) if strict => Err(err(e)),
            Err((_, at)) => Ok(Shape::Point(at)),
        }
    };
    match v {
        Value::UserData(ud) => {
            of_unit(&*ud.borrow::<UnitRef>().map_err(|_| err("expected a point, a base or a unit"))?)
        }
        // A unit's id works wherever the unit does.
        Value::String(_) => of_unit(&UnitArg::from_lua(v.clone(), lua)?.0),
        Value::Table(t) if t.contains_key("width")? => Ok(Shape::base(base_from_table(t)?)),
        _ => Ok(Shape::Point(check_point(point_from_value(v)?).map_err(err)?)),
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
    let left = check_point(point_from_value(&v.get::<Value>("left")?)?).map_err(err)?;
    let right = check_point(point_from_value(&v.get::<Value>("right")?)?).map_err(err)?;
    let bearing = check_bearing("an arc's bearing", v.get("bearing")?).map_err(err)?;
    let angle = checked_angle(v.get("angle")?)?;
    Ok(Arc { left, right, bearing: tabletop::normalise(bearing), angle })
}

fn checked_angle(angle: f64) -> mlua::Result<f64> {
    check_angle(angle).map_err(err)
}

fn path_table(lua: &Lua, p: &Path) -> mlua::Result<Table> {
    geo_table(lua, &Geo::Path(*p))
}

fn path_from(t: &Table) -> mlua::Result<Path> {
    let kind: String = t.get::<Option<String>>("kind")?.unwrap_or_else(|| "line".into());
    let from = check_point(point_from_value(&t.get::<Value>("from")?)?).map_err(err)?;
    let path = match kind.as_str() {
        "line" => {
            let to = check_point(point_from_value(&t.get::<Value>("to")?)?).map_err(err)?;
            Path::Line(Segment::new(from, to))
        }
        "zone" => Path::Zone { from, bearing: t.get("bearing")?, width: t.get("width")?, length: t.get("length")? },
        other => return Err(err(format!("a path's kind is \"line\" or \"zone\", not \"{other}\""))),
    };
    check_path(&path).map_err(err)?;
    Ok(path)
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
