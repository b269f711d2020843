//! Events: the log (`world:note`, `world:log`, `world:events`) and
//! subscriptions (`on`, `off`, `emit`), which reaction rules hook into.

use std::rc::Rc;

use mlua::{Function, IntoLuaMulti, Lua, MultiValue, Table, Value};

use super::super::api::Api;
use super::super::hex_api::hex_value;
use super::super::raw::args::Name;
use super::super::{keys, State};
use crate::log::{Event, Field};
use crate::unit::Position;

/// Each event's handlers in subscription order, as read from the handlers
/// table (`State::handler_lists`): a move emits on every step, and looking
/// the table up, reading and sorting the list each time cost more than the
/// dispatch. `on` and `off` empty it, and so does [`set_handlers`], the only
/// way to replace the table (a (re)load, a spec's isolation, a rewind); it
/// holds the table it read.
#[derive(Default)]
pub struct HandlerLists {
    table: Option<Table>,
    lists: rustc_hash::FxHashMap<Box<str>, Rc<[Function]>>,
    /// How many times the lists were emptied: it moves whenever a
    /// subscription comes or goes (`exact_odds` puts them back then).
    pub changes: u64,
}

impl HandlerLists {
    /// Forgets every list (a subscription came or went).
    pub fn clear(&mut self) {
        self.table = None;
        self.lists.clear();
        self.changes += 1;
    }
}

/// Replaces the handlers table (every event's subscriptions) and forgets
/// the lists read from the old one.
pub fn set_handlers(lua: &Lua, handlers: Table) -> mlua::Result<()> {
    lua.set_named_registry_value(keys::HANDLERS, handlers)?;
    if let Some(st) = lua.app_data_ref::<Rc<State>>() {
        st.handler_lists.borrow_mut().clear();
    }
    Ok(())
}

/// The handlers of `event` in `handlers`, in subscription order.
fn read_handlers(handlers: &Table, event: &str) -> mlua::Result<Rc<[Function]>> {
    let mut fns: Vec<(i64, Function)> = match handlers.get::<Option<Table>>(event)? {
        Some(list) => list.pairs::<i64, Function>().filter_map(|p| p.ok()).collect(),
        None => Vec::new(),
    };
    fns.sort_by_key(|(id, _)| *id);
    Ok(fns.into_iter().map(|(_, f)| f).collect())
}

/// The handlers of `event`, in subscription order, from the state's lists.
fn handlers_of(lua: &Lua, st: &State, event: &str) -> mlua::Result<Rc<[Function]>> {
    let mut cache = st.handler_lists.borrow_mut();
    if let Some(fns) = cache.lists.get(event) {
        return Ok(fns.clone());
    }
    let handlers = match &cache.table {
        Some(t) => t.clone(),
        None => lua.named_registry_value::<Table>(keys::HANDLERS)?,
    };
    let fns = read_handlers(&handlers, event)?;
    cache.table = Some(handlers);
    cache.lists.insert(event.into(), fns.clone());
    Ok(fns)
}

/// Calls every handler subscribed to `event` with `args`; the world is not borrowed meanwhile.
pub fn emit(lua: &Lua, event: &str, args: MultiValue) -> mlua::Result<()> {
    match lua.app_data_ref::<Rc<State>>().map(|s| s.clone()) {
        Some(st) => emit_with(lua, &st, event, &args),
        None => {
            for f in read_handlers(&lua.named_registry_value(keys::HANDLERS)?, event)?.iter() {
                super::super::call_with_traceback(lua, f, args.clone())?;
            }
            Ok(())
        }
    }
}

/// [`emit`] for a caller holding the state, with the handlers' arguments
/// as they are (a move emits twice a step: no list of them is built).
pub fn emit_with(lua: &Lua, st: &State, event: &str, args: impl IntoLuaMulti + Clone) -> mlua::Result<()> {
    if !st.subscribed.get() {
        return Ok(());
    }
    // The list as it is now: a handler that subscribes or unsubscribes
    // changes the next emit's, not this one's.
    for f in handlers_of(lua, st, event)?.iter() {
        // Through the traceback runner, so an error object (a table) is shown by its fields.
        super::super::call_handler(lua, st, f, args.clone())?;
    }
    Ok(())
}

/// `world:note(text)`: write a note into the event log.
pub fn note(l: &Lua, st: &Rc<State>, text: Name) -> mlua::Result<impl IntoLuaMulti> {
    st.check_text(&text, "the note")?;
    if !st.recording() {
        return Ok(());
    }
    st.check_memory(l)?;
    st.with_world(|w| w.note(text.to_string()))
}

/// `world:log(n?)`: the last n events as text (20 by default).
pub fn log(l: &Lua, st: &Rc<State>, n: Option<usize>) -> mlua::Result<impl IntoLuaMulti> {
    let lines = st.with_world(|w| w.log.tail(n.unwrap_or(20)).iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
    crate::lua::raw::sequence::sequence(l, lines)
}

/// `world:events(n?)`: the last n events as tables.
pub fn events(l: &Lua, st: &Rc<State>, n: Option<usize>) -> mlua::Result<impl IntoLuaMulti> {
    let events = st.with_world(|w| w.log.tail(n.unwrap_or(usize::MAX)).to_vec())?;
    let entries = events.iter().map(|e| event_table(l, st, e)).collect::<mlua::Result<Vec<_>>>()?;
    crate::lua::raw::sequence::sequence(l, entries)
}

/// One event as Lua sees it: its JSON fields, with hexes as hex values, a
/// tabletop place as `{x=, y=, facing=}` and a unit in a decision's
/// request as its handle.
fn event_table(l: &Lua, st: &Rc<State>, e: &Event) -> mlua::Result<Value> {
    let v = super::super::json_to_lua(l, &serde_json::to_value(e).map_err(mlua::Error::external)?)?;
    let Value::Table(t) = &v else { return Ok(v) };
    match e {
        Event::Move { from, to, .. } | Event::Retreat { from, to, .. } => {
            t.raw_set("from", place_value(l, from)?)?;
            t.raw_set("to", place_value(l, to)?)?;
        }
        Event::Token { hex, .. } => t.raw_set("hex", hex_value(*hex))?,
        Event::Decision { request, .. } => t.raw_set("request", fields_table(l, st, request)?)?,
        _ => {}
    }
    Ok(v)
}

fn place_value(l: &Lua, p: &Position) -> mlua::Result<Value> {
    Ok(match p {
        Position::Off => Value::Nil,
        Position::Hex(h) => hex_value(*h),
        Position::Table { at, facing } => {
            let t = l.create_table_with_capacity(0, 3)?;
            t.raw_set("x", at.x)?;
            t.raw_set("y", at.y)?;
            t.raw_set("facing", *facing)?;
            Value::Table(t)
        }
    })
}

fn fields_table(l: &Lua, st: &Rc<State>, fields: &[(String, Field)]) -> mlua::Result<Table> {
    let t = l.create_table_with_capacity(0, fields.len())?;
    for (k, f) in fields {
        t.raw_set(k.as_str(), field_value(l, st, f)?)?;
    }
    Ok(t)
}

fn field_value(l: &Lua, st: &Rc<State>, f: &Field) -> mlua::Result<Value> {
    Ok(match f {
        Field::Bool(b) => Value::Boolean(*b),
        Field::Int(i) => Value::Integer(*i as _),
        Field::Num(n) => Value::Number(*n),
        Field::Text(s) => Value::String(l.create_string(s)?),
        Field::Hex(h) => hex_value(*h),
        Field::Unit(id) => {
            let found = {
                let w = st.world.borrow();
                w.unit_index(id).ok().map(|idx| (idx, w.units[idx].id.clone()))
            };
            match found {
                Some((idx, id)) => Value::UserData(super::units::unit_handle(l, st, idx, id)?),
                None => Value::String(l.create_string(id)?),
            }
        }
        Field::List(items) => {
            let t = l.create_table_with_capacity(items.len(), 0)?;
            for x in items {
                t.raw_push(field_value(l, st, x)?)?;
            }
            Value::Table(t)
        }
        Field::Map(fields) => Value::Table(fields_table(l, st, fields)?),
    })
}

/// The events the core itself emits: name and what it passes.
pub const CORE_EVENTS: &[(&str, &str)] = &[
    ("enters", "a unit stepped onto a hex: (unit, hex, from)"),
    ("leaves", "a unit stepped off a hex: (unit, from, to)"),
];

/// Every event a script may use: the core's, then the ruleset's (`events:` in ruleset.yaml).
pub fn known_events(st: &State) -> Vec<String> {
    let mut names: Vec<String> = CORE_EVENTS.iter().map(|(n, _)| n.to_string()).collect();
    if let Some(rs) = st.ruleset.borrow().as_ref() {
        names.extend(rs.events.keys().cloned());
    }
    names
}

/// Checks an event name, suggesting the closest known one for a typo.
fn check_event(st: &State, name: &str) -> mlua::Result<()> {
    // Rules emit in hot loops: look the name up before listing them all.
    if CORE_EVENTS.iter().any(|(n, _)| *n == name)
        || st.ruleset.borrow().as_ref().is_some_and(|rs| rs.events.contains_key(name))
    {
        return Ok(());
    }
    let known = known_events(st);
    let closest =
        known.iter().min_by_key(|k| strsim::levenshtein(k, name)).filter(|k| strsim::levenshtein(k, name) <= 2);
    let hint = closest.map(|k| format!(" (did you mean '{k}'?)")).unwrap_or_default();
    Err(mlua::Error::runtime(format!(
        "unknown event '{name}'{hint}; events: {} (a ruleset declares its own under `events:` in ruleset.yaml)",
        known.join(", ")
    )))
}

/// `on(event, fn)`: subscribes `f`; returns the subscription's id.
fn on(lua: &Lua, st: &Rc<State>, (event, f): (Name, Function)) -> mlua::Result<i64> {
    check_event(st, &event)?;
    let handlers: Table = lua.named_registry_value(keys::HANDLERS)?;
    let list = match handlers.get::<Option<Table>>(&*event)? {
        Some(t) => t,
        None => {
            let t = lua.create_table()?;
            handlers.set(&*event, t.clone())?;
            t
        }
    };
    st.subscribed.set(true);
    st.handler_lists.borrow_mut().clear();
    let id: i64 = lua.named_registry_value(keys::NEXT_HANDLER)?;
    lua.set_named_registry_value(keys::NEXT_HANDLER, id + 1)?;
    list.set(id, f)?;
    Ok(id)
}

/// `off(id)`: ends a subscription; true if there was one.
fn off(lua: &Lua, st: &Rc<State>, id: i64) -> mlua::Result<bool> {
    st.handler_lists.borrow_mut().clear();
    let handlers: Table = lua.named_registry_value(keys::HANDLERS)?;
    let mut found = false;
    for pair in handlers.pairs::<Value, Table>() {
        let (_, list) = pair?;
        if list.contains_key(id)? {
            list.set(id, Value::Nil)?;
            found = true;
        }
    }
    Ok(found)
}

/// Registers `on`, `off` and `emit` (part of the `rules` area).
pub fn install(api: &mut Api) -> mlua::Result<()> {
    set_handlers(api.lua, api.lua.create_table()?)?;
    api.lua.set_named_registry_value(keys::NEXT_HANDLER, 1)?;
    api.function("on(event, fn)", "subscribe to an event (enters, leaves, or the ruleset's own); returns an id", on)?;
    api.function("off(id)", "unsubscribe", off)?;
    api.function(
        "emit(event, ...)",
        "call every subscriber of an event",
        |lua, st, (event, args): (Name, MultiValue)| {
            check_event(st, &event)?;
            emit_with(lua, st, &event, &args)
        },
    )?;
    Ok(())
}
