//! `world`: units, terrain, tokens, sides and pools, sections, moves with
//! `enters`/`leaves` events, line of sight. This file is the table of
//! contents: every `world` call, in one builder list; the handlers live in
//! the modules by concern.

pub mod events;
mod legs;
mod los;
mod map;
mod sides;
pub mod units;

pub use events::{emit, emit_with, set_handlers, HandlerLists};
pub use units::{base_ids, point_from_value, prop_from_lua, prop_to_lua, unit_handle, UnitArg, UnitRef, UNIT_FIELDS};

use super::api::{Api, Returns};
use super::raw;

/// The `world` area.
pub fn install(api: &mut Api) -> mlua::Result<()> {
    // Luau's JIT looks a method up at the slot it predicted from the name's
    // hash; a name that collided with another went to a different slot and
    // took the slow lookup on every call. A table with room to spare, and the
    // names rules call most placed first (the later `set` keeps their slots),
    // keeps the hot names where they are predicted.
    let world = api.lua.create_table_with_capacity(0, 256)?;
    for name in raw::world::names() {
        world.raw_set(name, false)?;
    }
    api.set_table(world);

    api.method("world:unit(id)", "the unit with that id, or nil", units::unit)?.returns(Returns::Unit);
    api.method(
        "world:units{side=, type=, all=}",
        "units on the battlefield (all=true adds the eliminated)",
        units::units,
    )?;
    api.method("world:unit_at(h)", "the unit on hex h, or nil", units::unit_at)?.returns(Returns::Unit);
    api.method(
        "world:at(h, token...)",
        "what is on h in one call: unit (or nil), its side, terrain (or nil), then true/false per token named",
        map::at,
    )?
    .returns(Returns::Unit);
    api.method(
        "world:add_unit{id=, side=, type=, hex=, strength=}",
        "put a new unit on the battlefield",
        units::add_unit,
    )?
    .returns(Returns::Unit);
    api.method(
        "world:move(u, path)",
        "move along a hex or a list of hexes (tabletop: points); fires leaves/enters",
        units::move_unit,
    )?;
    api.method("world:retreat(u, path)", "like move, logged as a retreat", units::retreat)?;
    api.method("world:place(u, h)", "put a unit on a hex (nil takes it off); no adjacency check", units::place)?;
    api.method(
        "world:hit(u, n, reason?)",
        "remove n figures (a tabletop unit: its highest-numbered bases, or n = {id, ...} names them); returns figures removed and whether the unit is still alive; 0 left eliminates",
        units::hit,
    )?;
    api.method("world:eliminate(u, reason?)", "take a unit off the battlefield", units::eliminate)?;
    api.method("world:terrain(h)", "the terrain name of h, or nil", map::terrain)?;
    api.method("world:set_terrain(h, name)", "change (or with nil clear) the terrain of h", map::set_terrain)?;
    api.method("world:terrain_info(h)", "the ruleset's data for the terrain of h", map::terrain_info)?;
    api.method("world:tokens(h)", "the tokens on h", map::tokens)?;
    api.method("world:has_token(h, token)", "true when h holds that token", map::has_token)?;
    api.method("world:add_token(h, token)", "place a token", map::add_token)?;
    api.method("world:remove_token(h, token)", "remove one token; true if there was one", map::remove_token)?;
    api.method("world:on_map(h)", "true when h is on the map", map::on_map)?;
    api.method("world:hexes()", "every hex of the map, row by row", map::hexes)?;
    api.method("world:sections(h)", "the sections h belongs to (two on a section line)", map::sections)?;
    api.method("world:in_section(h, name)", "true when h is in that section", map::in_section)?;
    api.method("world:sides()", "the side names", sides::sides)?;
    api.method("world:opponent(side)", "the other side", sides::opponent)?;
    api.method("world:baseline(side)", "the edge a side starts from (top, bottom, left, right)", sides::baseline)?;
    api.method(
        "world:pool(side, name, ...)",
        "a side's pool: hq, medals, reserve artillery, ...; one value per name given",
        sides::pool,
    )?;
    api.method(
        "world:add_pool(side, name, n, reason?)",
        "change a pool (never below 0); returns the new value",
        sides::add_pool,
    )?;
    api.method("world:set_pool(side, name, n)", "set a pool", sides::set_pool)?;
    api.method("world:current_side()", "whose turn it is", sides::current_side)?;
    api.method("world:set_current_side(side)", "hand the turn to a side", sides::set_current_side)?;
    api.method("world:turn()", "the turn number", sides::turn)?;
    api.method("world:set_turn(n)", "set the turn number", sides::set_turn)?;
    api.method("world:note(text)", "write a note into the event log", events::note)?;
    api.method("world:log(n?)", "the last n events as text (20 by default)", events::log)?;
    api.method("world:events(n?)", "the last n events as tables", events::events)?;
    api.method("world:map()", "the map: {kind=hex, cols=, rows=, offset=} or a tabletop's size", map::map)?;
    api.method("world:mark(h, label)", "label a hex for maps (a template, a line of fire)", map::mark)?;
    api.method("world:clear_marks()", "remove every mark", map::clear_marks)?;
    api.method("world:marks()", "the marks, each {hex=, label=}", map::marks)?;
    api.method(
        "world:recording()",
        "false while nobody reads the log or the marks (sim and exact trials): notes and marks are dropped",
        map::recording,
    )?;
    api.method(
        "world:set_los_rule(fn)",
        "replace the obstruction test with fn(h) (nil restores the data rule)",
        los::set_los_rule,
    )?;
    api.method("world:obstructed(h)", "true when h blocks line of sight by the ruleset's rule", los::obstructed)?;
    api.method("world:los(a, b)", "clear, blocker: line of sight by the ruleset's rule", los::los)?;

    raw::world::install(api.lua, api.st, api.table())
}
