//! `tabletop`: measurement in centimetres for miniatures rules. Points are
//! tables `{x=, y=}`; wherever a point is expected a tabletop unit also works
//! (its base centre).

use mlua::{Lua, Table, Value};

use super::api::Api;
use super::world::{point_from_value, UnitRef};
use crate::table::{self, Point, Rect};
use crate::unit::Position;

fn point_or_unit(lua: &Lua, v: &Value) -> mlua::Result<Point> {
    if let Value::UserData(ud) = v {
        if let Ok(u) = ud.borrow::<UnitRef>() {
            let st = lua
                .app_data_ref::<std::rc::Rc<super::State>>()
                .map(|s| s.clone())
                .ok_or_else(|| mlua::Error::runtime("sandtable state missing"))?;
            let pos = st.with_world(|w| u.resolve(w).map(|i| w.units[i].pos))??;
            return match pos {
                Position::Table { at, .. } => Ok(at),
                _ => Err(mlua::Error::runtime(format!("unit '{}' is not on a tabletop", u.id))),
            };
        }
    }
    point_from_value(v)
}

fn point(lua: &Lua, p: Point) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("x", p.x)?;
    t.set("y", p.y)?;
    Ok(t)
}

/// The `tabletop` area.
pub fn install(api: &mut Api) -> mlua::Result<()> {
    api.function("tabletop.point(x, y)", "a point {x=, y=} in cm", |lua, _, (x, y): (f64, f64)| {
        point(lua, Point::new(x, y))
    })?;
    api.function(
        "tabletop.distance(a, b)",
        "cm between two points or tabletop units",
        |lua, _, (a, b): (Value, Value)| Ok(point_or_unit(lua, &a)?.distance(point_or_unit(lua, &b)?)),
    )?;
    api.function("tabletop.bearing(a, b)", "degrees clockwise from east, a to b", |lua, _, (a, b): (Value, Value)| {
        Ok(point_or_unit(lua, &a)?.bearing(point_or_unit(lua, &b)?))
    })?;
    api.function(
        "tabletop.travel(a, bearing, cm)",
        "the point cm away along a bearing",
        |lua, _, (a, bearing, dist): (Value, f64, f64)| point(lua, point_or_unit(lua, &a)?.travel(bearing, dist)),
    )?;
    api.function("tabletop.angle_between(a, b)", "smallest angle between two bearings", |_, _, (a, b): (f64, f64)| {
        Ok(table::angle_between(a, b))
    })?;
    api.function(
        "tabletop.in_arc(from, facing, arc, to)",
        "true when to lies within the arc",
        |lua, _, (from, facing, arc, to): (Value, f64, f64, Value)| {
            Ok(table::in_arc(point_or_unit(lua, &from)?, facing, arc, point_or_unit(lua, &to)?))
        },
    )?;
    api.function(
        "tabletop.in_rect(p, {centre=, width=, depth=, facing=})",
        "true when p lies in the rectangle",
        |lua, _, (p, rect): (Value, Table)| {
            let centre = point_or_unit(lua, &rect.get::<Value>("centre")?)?;
            let r = Rect {
                centre,
                width: rect.get("width")?,
                depth: rect.get("depth")?,
                facing: rect.get::<Option<f64>>("facing")?.unwrap_or(0.0),
            };
            Ok(r.contains(point_or_unit(lua, &p)?))
        },
    )?;
    Ok(())
}
