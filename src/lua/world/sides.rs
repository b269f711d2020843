//! Sides: their names, baselines and pools, whose turn it is.

use std::rc::Rc;

use mlua::{IntoLuaMulti, Lua};

use super::super::raw::args::Name;
use super::super::State;

/// `world:sides()`: the side names.
pub fn sides(l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
    let names = st.with_world(|w| w.sides.iter().map(|s| s.name.to_string()).collect::<Vec<_>>())?;
    // Each name's Lua string is made once (`State::name`).
    let names = names.iter().map(|n| st.name(l, n)).collect::<mlua::Result<Vec<_>>>()?;
    crate::lua::raw::sequence::sequence(l, names)
}

/// `world:opponent(side)`: the other side.
pub fn opponent(l: &Lua, st: &Rc<State>, side: Name) -> mlua::Result<impl IntoLuaMulti> {
    let other = st.with_world(|w| w.opponent(&side).map_err(mlua::Error::external))??;
    st.name(l, &other)
}

/// `world:baseline(side)`: the edge a side starts from (top, bottom, left, right).
pub fn baseline(l: &Lua, st: &Rc<State>, side: Name) -> mlua::Result<impl IntoLuaMulti> {
    let edge =
        st.with_world(|w| w.side(&side).map(|s| s.baseline.map(|b| b.name())).map_err(mlua::Error::external))??;
    edge.map(|e| st.name(l, e)).transpose()
}

/// A pool's number as a whole number, in our words (NaN, infinities and
/// fractions are refused: a pool counts tokens).
fn whole(n: f64, what: &str) -> mlua::Result<i64> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53: every whole number below it is exact
    if n.is_finite() && n.fract() == 0.0 && n.abs() <= LIMIT {
        Ok(n as i64)
    } else {
        let shown = if n.is_nan() { "NaN".to_string() } else { crate::lua::format_number(n) };
        Err(mlua::Error::runtime(format!("{what} must be a whole, finite number, not {shown}")))
    }
}

/// `world:pool(side, name)`: a side's pool: hq, medals, reserve artillery, ....
pub fn pool(
    _l: &Lua,
    st: &Rc<State>,
    (side, pool, more): (Name, Name, mlua::Variadic<Name>),
) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| {
        let mut values = vec![w.pool(&side, &pool).map_err(mlua::Error::external)?];
        for name in more.iter() {
            values.push(w.pool(&side, name).map_err(mlua::Error::external)?);
        }
        Ok::<_, mlua::Error>(mlua::Variadic::from_iter(values))
    })?
}

/// `world:add_pool(side, name, n, reason?)`: change a pool (never below 0); returns the new value.
pub fn add_pool(
    _l: &Lua,
    st: &Rc<State>,
    (side, pool, change, reason): (Name, Name, f64, Option<Name>),
) -> mlua::Result<impl IntoLuaMulti> {
    let change = whole(change, "the change")?;
    st.with_world(|w| w.add_pool(&side, &pool, change, reason.as_deref().unwrap_or("")).map_err(mlua::Error::external))?
}

/// `world:set_pool(side, name, n)`: set a pool.
pub fn set_pool(_l: &Lua, st: &Rc<State>, (side, pool, value): (Name, Name, f64)) -> mlua::Result<impl IntoLuaMulti> {
    let value = whole(value, "a pool")?;
    st.with_world(|w| w.set_pool(&side, &pool, value).map_err(mlua::Error::external))?
}

/// `world:current_side()`: whose turn it is.
pub fn current_side(l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
    let side = st.with_world(|w| w.current_side.clone())?;
    side.map(|s| st.name(l, &s)).transpose()
}

/// `world:set_current_side(side)`: hand the turn to a side.
pub fn set_current_side(_l: &Lua, st: &Rc<State>, side: Name) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| {
        let i = w.side_index(&side).map_err(mlua::Error::external)?;
        w.current_side = Some(w.sides[i].name.clone());
        Ok(())
    })?
}

/// `world:turn()`: the turn number.
pub fn turn(_l: &Lua, st: &Rc<State>, _none: ()) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| w.turn)
}

/// `world:set_turn(n)`: set the turn number.
pub fn set_turn(_l: &Lua, st: &Rc<State>, t: u32) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| w.turn = t)
}
