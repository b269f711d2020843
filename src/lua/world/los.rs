//! Line of sight by the ruleset's rule: its data (`los:` in ruleset.yaml) or
//! a Lua obstruction test (`world:set_los_rule`).

use std::rc::Rc;

use mlua::{Function, IntoLuaMulti, Lua};

use super::super::hex_api::{hex_value, HexArg};
use super::super::{keys, State};
use crate::battlefield::World;
use crate::hex::{self, Hex};

/// The ruleset's data rule for what blocks line of sight.
fn data_obstructed(
    w: &World,
    rule: &crate::ruleset::LosRule,
    terrain: &serde_json::Map<String, serde_json::Value>,
    h: Hex,
) -> bool {
    if !w.on_map(h) {
        return rule.edge_blocks;
    }
    if rule.units_block && w.unit_at(h).is_some() {
        return true;
    }
    if let Some(t) = w.terrain(h) {
        if let Some(info) = terrain.get(&**t) {
            if info.get(&rule.terrain_flag).and_then(serde_json::Value::as_bool) == Some(true) {
                return true;
            }
        }
    }
    false
}

/// `world:set_los_rule(fn)`: replace the obstruction test with fn(h) (nil restores the data rule).
pub fn set_los_rule(l: &Lua, st: &Rc<State>, f: Option<Function>) -> mlua::Result<impl IntoLuaMulti> {
    let _ = &st;
    l.set_named_registry_value(keys::LOS_RULE, f)
}

/// Runs `f` over the world and the ruleset's data rule, borrowed, not copied
/// (a copy of the ruleset cost far more than the line itself).
fn with_data_rule<R>(
    st: &State,
    f: impl FnOnce(&World, &crate::ruleset::LosRule, &serde_json::Map<String, serde_json::Value>) -> R,
) -> mlua::Result<R> {
    st.note_read("terrain");
    let rs = st.ruleset.borrow();
    let default_rule = crate::ruleset::LosRule::default();
    let empty = serde_json::Map::new();
    let (rule, terrain) = rs.as_ref().map_or((&default_rule, &empty), |r| (&r.los, &r.terrain));
    st.with_world(|w| f(w, rule, terrain))
}

/// `world:obstructed(h)`: true when h blocks line of sight by the ruleset's rule.
pub fn obstructed(l: &Lua, st: &Rc<State>, h: HexArg) -> mlua::Result<impl IntoLuaMulti> {
    if let Some(f) = l.named_registry_value::<Option<Function>>(keys::LOS_RULE)? {
        return f.call::<bool>(hex_value(h.0));
    }
    with_data_rule(st, |w, rule, terrain| data_obstructed(w, rule, terrain, h.0))
}

/// `world:los(a, b)`: clear, blocker: line of sight by the ruleset's rule.
pub fn los(l: &Lua, st: &Rc<State>, (a, b): (HexArg, HexArg)) -> mlua::Result<impl IntoLuaMulti> {
    super::super::hex_api::los_work(l, st, a.0, b.0)?;
    let custom = l.named_registry_value::<Option<Function>>(keys::LOS_RULE)?;
    let result = if let Some(f) = custom {
        let mut failure = None;
        let r = hex::los(a.0, b.0, |h| {
            if failure.is_some() {
                return false;
            }
            f.call::<bool>(hex_value(h)).unwrap_or_else(|e| {
                failure = Some(e);
                false
            })
        });
        if let Some(e) = failure {
            return Err(e);
        }
        r
    } else {
        with_data_rule(st, |w, rule, terrain| hex::los(a.0, b.0, |h| data_obstructed(w, rule, terrain, h)))?
    };
    Ok((result.clear, result.blocker.map(HexArg)))
}
