//! Moves on a tabletop: `world:move(u, point or {point, ...})` walks a
//! tabletop unit leg by leg (each leg a straight line to a point, then an
//! optional new facing), firing `leaves` and `enters` after each leg so that
//! reaction rules (passing fire, opportunity fire) see every leg. A point
//! with only a new `facing` at the unit's own position is a turn in place.

use mlua::{Lua, MultiValue, Table, Value};

use super::super::State;
use super::events::emit;
use super::units::{point_from_value, unit_handle, UnitRef};
use crate::tabletop::Point;
use crate::unit::Position;

/// True when the unit stands on the tabletop (its moves are legs, not hexes).
pub fn on_table(st: &State, u: &UnitRef) -> mlua::Result<bool> {
    st.with_world(|w| -> mlua::Result<bool> {
        let i = u.resolve(w)?;
        Ok(matches!(w.units[i].pos, Position::Table { .. }))
    })?
}

/// Reads the legs of a move: one point `{x=, y=, facing=?}` or a list of
/// them. A leg without `facing` keeps the facing of the leg before it.
fn legs_from_value(v: &Value, mut facing: f64) -> mlua::Result<Vec<(Point, f64)>> {
    let Value::Table(t) = v else {
        return Err(mlua::Error::runtime(format!(
            "a tabletop move is a point {{x=, y=, facing=?}} or a list of them, got {}",
            v.type_name()
        )));
    };
    let list: Vec<Table> = if matches!(t.get::<Value>(1)?, Value::Table(_)) {
        t.sequence_values::<Table>().collect::<mlua::Result<_>>()?
    } else {
        vec![t.clone()]
    };
    let mut legs = Vec::with_capacity(list.len());
    for leg in list {
        let at = point_from_value(&Value::Table(leg.clone()))?;
        if let Some(f) = leg.get::<Option<f64>>("facing")? {
            facing = f;
        }
        legs.push((at, facing));
    }
    Ok(legs)
}

/// A leg's end as Lua sees it in `enters`/`leaves`: `{x=, y=, facing=}`.
fn leg_table(lua: &Lua, p: Point, facing: f64) -> mlua::Result<Table> {
    let t = lua.create_table_with_capacity(0, 3)?;
    t.set("x", p.x)?;
    t.set("y", p.y)?;
    t.set("facing", facing)?;
    Ok(t)
}

/// Walks a tabletop unit along its legs; handlers of `leaves(unit, from,
/// to)` and `enters(unit, to, from)` run after each leg. Returns false if a
/// handler stopped the unit (it was eliminated or placed elsewhere) before
/// the last leg. A bad leg anywhere moves nothing.
pub fn walk(lua: &Lua, st: &State, u: &UnitRef, path: &Value, retreat: bool) -> mlua::Result<bool> {
    let facing = st.with_world(|w| -> mlua::Result<f64> {
        let i = u.resolve(w)?;
        Ok(match w.units[i].pos {
            Position::Table { facing, .. } => facing,
            _ => 0.0,
        })
    })??;
    let legs = legs_from_value(path, facing)?;
    st.with_world(|w| -> mlua::Result<()> {
        let i = u.resolve(w)?;
        w.check_legs(i, &legs).map_err(mlua::Error::external)
    })??;
    for (to, facing) in legs {
        let step = st.with_world(|w| -> mlua::Result<Option<(Point, f64, Position)>> {
            let i = u.resolve(w)?;
            if !w.units[i].alive() {
                return Ok(None);
            }
            let (from, was) = w.leg(i, to, facing, retreat).map_err(mlua::Error::external)?;
            Ok(Some((from, was, w.units[i].pos)))
        })??;
        let Some((from, was, now)) = step else {
            return Ok(false);
        };
        if !st.subscribed.get() {
            continue;
        }
        let Position::Table { facing: now_facing, .. } = now else {
            return Ok(false);
        };
        let ud = unit_handle(lua, &u.st, u.idx, u.id.clone())?;
        let (a, b) = (leg_table(lua, from, was)?, leg_table(lua, to, now_facing)?);
        let leaves =
            MultiValue::from_iter([Value::UserData(ud.clone()), Value::Table(a.clone()), Value::Table(b.clone())]);
        emit(lua, "leaves", leaves)?;
        emit(lua, "enters", MultiValue::from_iter([Value::UserData(ud), Value::Table(b), Value::Table(a)]))?;
        let still_there = st.with_world(|w| -> mlua::Result<bool> {
            let i = u.resolve(w)?;
            Ok(w.units[i].alive() && w.units[i].pos == now)
        })??;
        if !still_there {
            return Ok(false);
        }
    }
    Ok(true)
}
