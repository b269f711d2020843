//! The one list of the Lua API: its areas, and a builder that registers each
//! call together with how it is written and a line of doc.
//!
//! Every area is a module with an `install` function that registers its calls
//! through [`Api`]. [`AREAS`] lists them; `Host::install` walks it, the
//! REPL's `:help`, completion and hints read [`catalogue`], and tests check
//! `docs/lua-api.md` and `types/sandtable.d.luau` against it. So adding a call
//! is one handler plus one builder line, and a call without docs, types or help
//! fails a test.
//!
//! ```text
//! api.method("world:unit(id)", "the unit with that id, or nil", units::unit)?
//!    .returns(Returns::Unit);
//! ```
//!
//! The builder knows each call's written name, so it puts it in front of the
//! errors its handler raises: `world:add_unit: unknown unit type 'x' (...)`.

use std::rc::Rc;
use std::sync::OnceLock;

use mlua::{FromLuaMulti, IntoLuaMulti, Lua, Table};

use super::raw::args::Skip;
use super::State;

/// What a call gives back, when completion can use it (`hex(1,2):` lists hex
/// methods, `world:unit("a1").` lists unit fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    Hex,
    Unit,
    Roll,
    Other,
}

/// How an entry is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A function in the area's table (`dice.roll`, or a global like `decide`).
    Function,
    /// A method called with `:` on the area's table (`world:unit`).
    Method,
    /// A field, or a method of a value the API hands out (a hex's `q`, a
    /// unit's `strength`, a roll's `count`): documented here, served by the
    /// value's own metatable.
    Member,
}

/// One entry of the Lua API.
#[derive(Debug, Clone)]
pub struct ApiEntry {
    /// The area it belongs to (`hex`, `hex value`, `dice`, `roll`, `world`, `unit`, ...).
    pub group: &'static str,
    /// How it is written: `world:move(unit, path)`, `h:distance(other)`, `u.strength`.
    pub usage: &'static str,
    pub doc: &'static str,
    pub returns: Returns,
    pub kind: Kind,
}

impl ApiEntry {
    /// The name a completion or hint matches it by: `world:move` for
    /// `world:move(unit, path)`, `h:distance` for `h:distance(other)`.
    pub fn name(&self) -> &'static str {
        entry_name(self.usage)
    }

    /// The key it has in its table: `move` for `world:move(unit, path)`.
    pub fn key(&self) -> &'static str {
        let n = self.name();
        n.rsplit(['.', ':']).next().unwrap_or(n)
    }
}

/// The name of a written usage: up to its first `(`, `{` or space.
pub fn entry_name(usage: &str) -> &str {
    let end = usage.find(['(', '{', ' ']).unwrap_or(usage.len());
    &usage[..end]
}

/// Where an area's calls go.
pub enum Home {
    /// A global table of this name (`world`, `dice`).
    Table(&'static str),
    /// The globals themselves (`decide`, `describe`).
    Globals,
    /// Elsewhere (a value's metatable); the area registers it itself.
    Values,
}

/// One API area: a module that registers its calls.
pub struct Area {
    pub name: &'static str,
    /// One line about it, for `:help`.
    pub about: &'static str,
    pub home: Home,
    pub install: fn(&mut Api) -> mlua::Result<()>,
}

/// Every API area, in the order `:help` shows them.
pub const AREAS: &[Area] = &[
    Area {
        name: "hex",
        about: "hexes: axial (q, r) values, pointy-top, directions 1..6 clockwise from east",
        home: Home::Table("hex"),
        install: super::hex_api::install,
    },
    Area {
        name: "hex value",
        about: "fields and methods of a hex value h",
        home: Home::Values,
        install: super::hex_api::install_methods,
    },
    Area {
        name: "dice",
        about: "die kinds, rolls, forced results, the seed",
        home: Home::Table("dice"),
        install: super::dice_api::install,
    },
    Area {
        name: "roll",
        about: "a roll r returned by dice.roll",
        home: Home::Values,
        install: super::dice_api::install_roll,
    },
    Area {
        name: "world",
        about: "the battlefield: units, terrain, tokens, sides, sections, events",
        home: Home::Table("world"),
        install: super::world::install,
    },
    Area {
        name: "unit",
        about: "a unit handle u (world:unit(id)); other keys read and write its props",
        home: Home::Values,
        install: super::world::units::install_handle,
    },
    Area { name: "rules", about: "decisions, events, params", home: Home::Globals, install: super::rules_api::install },
    Area {
        name: "tabletop",
        about: "centimetre measurement for miniatures rules (points are {x=, y=})",
        home: Home::Table("tabletop"),
        install: super::tabletop_api::install,
    },
    Area { name: "spec", about: "spec files (sandtable test)", home: Home::Globals, install: super::spec_api::install },
];

/// Registers one area's calls into its table, recording each in the catalogue.
pub struct Api<'a> {
    pub lua: &'a Lua,
    pub st: &'a Rc<State>,
    area: &'static str,
    table: Table,
    entries: Vec<ApiEntry>,
}

/// Puts the call's written name in front of an error its handler raised, unless
/// it is there already or the error came from Lua code the call ran (a rule's
/// event handler or policy: its message starts with that code's location).
pub(super) fn named(call: &'static str, e: mlua::Error) -> mlua::Error {
    match e {
        mlua::Error::RuntimeError(m) if !m.starts_with(call) && !has_location(&m) => {
            mlua::Error::RuntimeError(format!("{call}: {m}"))
        }
        // A Rust error (a world or dice error): its text, named.
        mlua::Error::ExternalError(inner) if inner.downcast_ref::<super::ScriptError>().is_none() => {
            let m = inner.to_string();
            if m.starts_with(call) {
                mlua::Error::RuntimeError(m)
            } else {
                mlua::Error::RuntimeError(format!("{call}: {m}"))
            }
        }
        mlua::Error::BadArgument { to: None, pos, name, cause } => {
            mlua::Error::BadArgument { to: Some(call.to_string()), pos, name, cause }
        }
        other => other,
    }
}

/// Whether a message starts with a Lua location (`file.lua:12: ...`).
fn has_location(m: &str) -> bool {
    let Some((head, _)) = m.split_once(": ") else { return false };
    head.rsplit_once(':').is_some_and(|(file, line)| !file.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
}

impl<'a> Api<'a> {
    pub fn new(lua: &'a Lua, st: &'a Rc<State>, area: &'static str, table: Table) -> Api<'a> {
        Api { lua, st, area, table, entries: Vec::new() }
    }

    /// The table the area's calls go into.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Puts the area's calls into `t` instead (made by the area, e.g. with
    /// room to spare); call it before registering anything.
    pub fn set_table(&mut self, t: Table) {
        self.table = t;
    }

    fn add(&mut self, usage: &'static str, doc: &'static str, kind: Kind) {
        self.entries.push(ApiEntry { group: self.area, usage, doc, returns: Returns::Other, kind });
    }

    /// `area.name(args)`: a function of the area's table (or a global).
    pub fn function<A, R, F>(&mut self, usage: &'static str, doc: &'static str, f: F) -> mlua::Result<&mut Self>
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &Rc<State>, A) -> mlua::Result<R> + 'static,
    {
        self.add(usage, doc, Kind::Function);
        let (call, st) = (entry_name(usage), self.st.clone());
        let func = self.lua.create_function(move |lua, args: A| f(lua, &st, args).map_err(|e| named(call, e)))?;
        self.table.raw_set(self.entries.last().map_or("", ApiEntry::key), func)?;
        Ok(self)
    }

    /// `area:name(args)`: a method of the area's table (its `self` is ignored).
    pub fn method<A, R, F>(&mut self, usage: &'static str, doc: &'static str, f: F) -> mlua::Result<&mut Self>
    where
        A: FromLuaMulti,
        R: IntoLuaMulti,
        F: Fn(&Lua, &Rc<State>, A) -> mlua::Result<R> + 'static,
    {
        self.add(usage, doc, Kind::Method);
        let (call, st) = (entry_name(usage), self.st.clone());
        let func =
            self.lua.create_function(move |lua, (_, args): (Skip, A)| f(lua, &st, args).map_err(|e| named(call, e)))?;
        self.table.raw_set(self.entries.last().map_or("", ApiEntry::key), func)?;
        Ok(self)
    }

    /// `name`: a value the area's table holds (a function written in Luau).
    pub fn value(&mut self, usage: &'static str, doc: &'static str, v: mlua::Value) -> mlua::Result<&mut Self> {
        self.add(usage, doc, Kind::Function);
        self.table.raw_set(self.entries.last().map_or("", ApiEntry::key), v)?;
        Ok(self)
    }

    /// A field or method of a value the area hands out, or a call the area
    /// registers by hand (a metamethod such as `hex(q, r)`): documented only.
    pub fn member(&mut self, usage: &'static str, doc: &'static str) -> &mut Self {
        self.add(usage, doc, Kind::Member);
        self
    }

    /// What the last entry returns, for completion.
    pub fn returns(&mut self, r: Returns) -> &mut Self {
        if let Some(e) = self.entries.last_mut() {
            e.returns = r;
        }
        self
    }

    /// The entries registered so far.
    pub fn entries(&self) -> &[ApiEntry] {
        &self.entries
    }
}

/// Installs every area into a host's globals; returns their entries.
pub fn install_areas(lua: &Lua, st: &Rc<State>) -> mlua::Result<Vec<ApiEntry>> {
    let mut all = Vec::new();
    for area in AREAS {
        let table = match area.home {
            Home::Table(name) => match lua.globals().raw_get::<Option<Table>>(name)? {
                Some(t) => t,
                None => lua.create_table()?,
            },
            Home::Globals => lua.globals(),
            Home::Values => lua.create_table()?,
        };
        let mut api = Api::new(lua, st, area.name, table);
        (area.install)(&mut api)?;
        if let Home::Table(name) = area.home {
            api.table.set_readonly(true);
            lua.globals().raw_set(name, api.table.clone())?;
        }
        all.extend(api.entries);
    }
    let _ = CATALOGUE.set(all.clone());
    Ok(all)
}

static CATALOGUE: OnceLock<Vec<ApiEntry>> = OnceLock::new();

/// Every entry of the Lua API, as the areas register them (the same for every host).
pub fn catalogue() -> &'static [ApiEntry] {
    if CATALOGUE.get().is_none() {
        // No host made yet in this process: making one registers the areas.
        let _ = super::Host::new(super::HostOptions::default());
    }
    CATALOGUE.get().map_or(&[], Vec::as_slice)
}

/// The globals the API owns, which scripts may not replace.
pub fn global_names(entries: &[ApiEntry]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = AREAS
        .iter()
        .filter_map(|a| match a.home {
            Home::Table(n) => Some(n),
            _ => None,
        })
        .collect();
    for e in entries {
        let global = AREAS.iter().any(|a| a.name == e.group && matches!(a.home, Home::Globals));
        if global && e.kind == Kind::Function {
            names.push(e.key());
        }
    }
    // Globals the host sets up outside the areas.
    names.extend(["params", "ruleset", "print", "require", "rawset", "setmetatable", "getmetatable"]);
    names.sort_unstable();
    names.dedup();
    names
}

/// Method and field names of values completion cannot walk: hexes, units and
/// rolls are served by Rust and Luau code, not tables.
pub fn value_members(kind: Returns) -> Vec<(&'static str, bool)> {
    let group = match kind {
        Returns::Hex => "hex value",
        Returns::Unit => "unit",
        Returns::Roll => "roll",
        Returns::Other => return Vec::new(),
    };
    let mut out = Vec::new();
    for entry in catalogue().iter().filter(|e| e.group == group) {
        for part in entry.usage.split("  ") {
            let part = part.trim().trim_start_matches('#');
            let Some(rest) = part.split_once(['.', ':']).map(|(_, r)| r) else { continue };
            let is_method = part.contains(':');
            let name = &rest[..rest.find(['(', '{', ' ']).unwrap_or(rest.len())];
            if !name.is_empty() && !out.iter().any(|(n, _)| *n == name) {
                out.push((name, is_method));
            }
        }
    }
    out
}

/// What a call returns, looked up by its written name (`hex`, `world:unit_at`).
pub fn returns_of(name: &str) -> Returns {
    for entry in catalogue() {
        if entry.returns == Returns::Other {
            continue;
        }
        let n = entry.name();
        let n = n.strip_prefix("h:").map_or(n, |m| m);
        if n == name || (entry.group == "hex value" && name.ends_with(&format!(":{n}"))) {
            return entry.returns;
        }
    }
    Returns::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_named_once() {
        let text = |e: mlua::Error| match e {
            mlua::Error::RuntimeError(m) => m,
            other => other.to_string(),
        };
        assert_eq!(text(named("world:hit", mlua::Error::runtime("no unit 'x'"))), "world:hit: no unit 'x'");
        assert_eq!(text(named("world:hit", mlua::Error::runtime("world:hit: no unit 'x'"))), "world:hit: no unit 'x'");
        // An error a rule's own Lua code raised keeps its location first.
        assert_eq!(text(named("world:move", mlua::Error::runtime("rules.lua:12: boom"))), "rules.lua:12: boom");
    }

    #[test]
    fn names_and_keys() {
        let e = ApiEntry {
            group: "world",
            usage: "world:move(unit, path)",
            doc: "",
            returns: Returns::Other,
            kind: Kind::Method,
        };
        assert_eq!((e.name(), e.key()), ("world:move", "move"));
        assert_eq!(entry_name("decide{side=, options=}"), "decide");
    }
}
