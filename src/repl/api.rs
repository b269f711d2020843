//! The one list of what a person can type: the REPL's meta commands and the
//! Lua API, each with its signature and a line of doc.
//!
//! `:help` prints these tables, completion and hints read them (the Lua
//! API's method names for values that cannot be walked without running
//! code, such as hexes and units), and `docs/repl.md` mirrors them. A test
//! checks that every function the host registers appears here, so the list
//! cannot silently fall behind the API.

/// What a call gives back, when completion can use it (`hex(1,2):` lists hex
/// methods, `world:unit("a1").` lists unit fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    Hex,
    Unit,
    Roll,
    Other,
}

/// One entry of the Lua API.
#[derive(Debug)]
pub struct ApiEntry {
    /// The area it belongs to (`hex`, `hex value`, `dice`, `roll`, `world`, `unit`, ...).
    pub group: &'static str,
    /// How it is written: `world:move(unit, path)`, `h:distance(other)`, `u.strength`.
    pub usage: &'static str,
    pub doc: &'static str,
    pub returns: Returns,
}

const fn e(group: &'static str, usage: &'static str, doc: &'static str) -> ApiEntry {
    ApiEntry { group, usage, doc, returns: Returns::Other }
}

const fn r(group: &'static str, usage: &'static str, doc: &'static str, returns: Returns) -> ApiEntry {
    ApiEntry { group, usage, doc, returns }
}

/// The groups in the order `:help` shows them, with a line about each.
pub const GROUPS: &[(&str, &str)] = &[
    ("hex", "hexes: axial (q, r) values, pointy-top, directions 1..6 clockwise from east"),
    ("hex value", "fields and methods of a hex value h"),
    ("dice", "die kinds, rolls, forced results, the seed"),
    ("roll", "a roll r returned by dice.roll"),
    ("world", "the battlefield: units, terrain, tokens, sides, sections, events"),
    ("unit", "a unit handle u (world:unit(id)); other keys read and write its props"),
    ("rules", "decisions, events, params"),
    ("tabletop", "centimetre measurement for miniatures rules (points are {x=, y=})"),
    ("spec", "spec files (sandtable test)"),
];

/// The Lua API, one line each. Keep in step with `src/lua/*_api.rs`.
pub const API: &[ApiEntry] = &[
    r("hex", "hex(q, r)", "the hex at axial (q, r); hexes compare with ==, add with + -, scale with *", Returns::Hex),
    e("hex", "hex.line(a, b)", "hexes from a to b inclusive, centre to centre"),
    r("hex", "hex.round(fq, fr)", "the hex holding fractional axial coordinates", Returns::Hex),
    r(
        "hex",
        "hex.from_offset(col, row, kind?)",
        "the hex at printed column/row (kind odd-r, even-r, odd-q, even-q)",
        Returns::Hex,
    ),
    r("hex", "hex.direction(d)", "the unit step of direction d (1 east, clockwise to 6 north-east)", Returns::Hex),
    e("hex", "hex.is_hex(v)", "true when v is a hex"),
    e("hex", "hex.los(a, b, obstructed)", "clear, blocker: line of sight with your own obstruction test"),
    e("hex", "hex.crossed(a, b)", "the hexes the line a-b crosses, each {hex=, how=interior|left|right}"),
    e("hex value", "h.q  h.r  h.s", "axial coordinates (s = -q - r)"),
    e("hex value", "h:distance(other)", "hexes between h and other"),
    r("hex value", "h:neighbor(d)", "the adjacent hex in direction d (1..6)", Returns::Hex),
    e("hex value", "h:neighbors()", "the six adjacent hexes, directions 1..6"),
    e("hex value", "h:ring(n)", "hexes exactly n away"),
    e("hex value", "h:within(n)", "hexes at most n away, h included"),
    r("hex value", "h:rotate_left()", "h turned 60 degrees anticlockwise about (0,0)", Returns::Hex),
    r("hex value", "h:rotate_right()", "h turned 60 degrees clockwise about (0,0)", Returns::Hex),
    r(
        "hex value",
        "h:rotate_around(centre, steps)",
        "h turned steps x 60 degrees clockwise about centre",
        Returns::Hex,
    ),
    e("hex value", "h:direction_to(other)", "the direction 1..6 other lies along, or nil"),
    e("hex value", "h:to_offset(kind?)", "col, row: the printed labels of h (odd-r by default)"),
    e("dice", "dice.define(kind, faces)", "define a die: a number of sides or a list of faces"),
    r("dice", "dice.roll(n, kind, reason?)", "roll n dice of a kind; logged with its reason", Returns::Roll),
    e("dice", "dice.counts(n, kind, reason?)", "roll n dice, return the count of each face (fast form)"),
    e("dice", "dice.force(kind, {faces})", "queue exact results for the next rolls of that kind"),
    e("dice", "dice.seed(n)", "reseed the dice (a seed replays exactly)"),
    e("dice", "dice.faces(kind)", "the distinct faces of a kind, in canonical order"),
    e("dice", "dice.kinds()", "the names of every die kind"),
    e("roll", "r.faces", "the faces rolled, in canonical order"),
    e("roll", "r:count(face)", "how many dice show that face"),
    e("roll", "r.total", "the sum, for numeric dice (nil otherwise)"),
    e("roll", "r.kind  r.n  #r", "the die kind and how many dice were rolled"),
    r("world", "world:unit(id)", "the unit with that id, or nil", Returns::Unit),
    e("world", "world:units{side=, type=, all=}", "units on the battlefield (all=true adds the eliminated)"),
    r("world", "world:unit_at(h)", "the unit on hex h, or nil", Returns::Unit),
    r(
        "world",
        "world:add_unit{id=, side=, type=, hex=, strength=}",
        "put a new unit on the battlefield",
        Returns::Unit,
    ),
    e("world", "world:move(u, path)", "move along a hex or a list of hexes; fires leaves/enters"),
    e("world", "world:retreat(u, path)", "like move, logged as a retreat"),
    e("world", "world:place(u, h)", "put a unit on a hex (nil takes it off); no adjacency check"),
    e("world", "world:hit(u, n, reason?)", "remove n figures; returns figures removed; 0 left eliminates"),
    e("world", "world:eliminate(u, reason?)", "take a unit off the battlefield"),
    e("world", "world:terrain(h)", "the terrain name of h, or nil"),
    e("world", "world:set_terrain(h, name)", "change (or with nil clear) the terrain of h"),
    e("world", "world:terrain_info(h)", "the ruleset's data for the terrain of h"),
    e("world", "world:tokens(h)", "the tokens on h"),
    e("world", "world:has_token(h, token)", "true when h holds that token"),
    e("world", "world:add_token(h, token)", "place a token"),
    e("world", "world:remove_token(h, token)", "remove one token; true if there was one"),
    e("world", "world:on_map(h)", "true when h is on the map"),
    e("world", "world:hexes()", "every hex of the map, row by row"),
    e("world", "world:sections(h)", "the sections h belongs to (two on a section line)"),
    e("world", "world:in_section(h, name)", "true when h is in that section"),
    e("world", "world:sides()", "the side names"),
    e("world", "world:opponent(side)", "the other side"),
    e("world", "world:baseline(side)", "the edge a side starts from (top, bottom, left, right)"),
    e("world", "world:pool(side, name)", "a side's pool: hq, medals, reserve artillery, ..."),
    e("world", "world:add_pool(side, name, n, reason?)", "change a pool (never below 0); returns the new value"),
    e("world", "world:set_pool(side, name, n)", "set a pool"),
    e("world", "world:current_side()", "whose turn it is"),
    e("world", "world:set_current_side(side)", "hand the turn to a side"),
    e("world", "world:turn()", "the turn number"),
    e("world", "world:set_turn(n)", "set the turn number"),
    e("world", "world:note(text)", "write a note into the event log"),
    e("world", "world:log(n?)", "the last n events as text (20 by default)"),
    e("world", "world:events(n?)", "the last n events as tables"),
    e("world", "world:map()", "the map: {kind=hex, cols=, rows=, offset=} or a tabletop's size"),
    e("world", "world:mark(h, label)", "label a hex for maps (a template, a line of fire)"),
    e("world", "world:clear_marks()", "remove every mark"),
    e("world", "world:marks()", "the marks, each {hex=, label=}"),
    e("world", "world:los(a, b)", "clear, blocker: line of sight by the ruleset's rule"),
    e("world", "world:obstructed(h)", "true when h blocks line of sight by the ruleset's rule"),
    e("world", "world:set_los_rule(fn)", "replace the obstruction test with fn(h) (nil restores the data rule)"),
    e("unit", "u.id  u.side  u.type", "who the unit is"),
    e("unit", "u.strength  u.max_strength", "figures left and at full strength (strength is writable)"),
    e("unit", "u.hex  u.pos  u.facing  u.alive", "where it stands (hex maps: hex; tabletops: pos and facing)"),
    e("unit", "u.leader", "the attached leader's name, or nil (writable)"),
    e("unit", "u.props", "a copy of its ruleset properties"),
    e("unit", "u:get(name)  u:set(name, v)", "read or write one property (also u.morale = 2)"),
    e("rules", "decide{side=, prompt=, options=, default=, id=}", "ask for a choice: the REPL asks you"),
    e("rules", "answers{...}", "queue answers for the next decisions"),
    e("rules", "policy(id, fn)", "how simulations answer decision id"),
    e("rules", "on(event, fn)", "subscribe to an event (enters, leaves, or your own); returns an id"),
    e("rules", "off(id)", "unsubscribe"),
    e("rules", "emit(event, ...)", "call every subscriber of an event"),
    e("rules", "params.<module>.<name>", "the ruleset's tunable numbers (:set changes them)"),
    e("rules", "ruleset", "the ruleset's data: name, terrain, unit_types, charts, tokens, variant"),
    e("rules", "require(name)", "load a module from the ruleset's folder or lib/"),
    e("rules", "print(...)", "print values"),
    e("tabletop", "tabletop.point(x, y)", "a point {x=, y=} in cm"),
    e("tabletop", "tabletop.distance(a, b)", "cm between points, or between the closest points of bases/units"),
    e("tabletop", "tabletop.closest_points(a, b)", "the closest pair of points of two bases or units"),
    e("tabletop", "tabletop.bearing(a, b)", "degrees clockwise from east, a to b"),
    e("tabletop", "tabletop.travel(a, bearing, cm)", "the point cm away along a bearing"),
    e("tabletop", "tabletop.angle_between(a, b)", "smallest angle between two bearings"),
    e("tabletop", "tabletop.in_arc(from, facing, arc, to)", "true when to lies within the arc"),
    e("tabletop", "tabletop.in_rect(p, {centre=, width=, depth=, facing=})", "true when p lies in the rectangle"),
    e("tabletop", "tabletop.base{x=, y= | front=, facing=, width=, depth=}", "a base (an oriented rectangle)"),
    e("tabletop", "tabletop.bases(u)", "a unit's bases, front rank first, left to right"),
    e("tabletop", "tabletop.footprint(u)", "the rectangle around a unit's bases"),
    e("tabletop", "tabletop.edges(b)", "front, right, rear and left edges as {a=, b=}"),
    e("tabletop", "tabletop.edge_towards(b, other)", "the edge of b that faces other, and its segment"),
    e("tabletop", "tabletop.set_formation(u, name)", "change a unit's formation (its type's formations)"),
    e("tabletop", "tabletop.arc(from, bearing, angle)", "an arc opening from a point"),
    e("tabletop", "tabletop.arc_of_fire(b, angle)", "the arc from a base's outer front corners"),
    e("tabletop", "tabletop.edge_arc(b, edge, angle)", "the arc opening from one edge (an enfilade arc)"),
    e("tabletop", "tabletop.arc_contains(arc, p)", "true when p lies in the arc"),
    e("tabletop", "tabletop.segment_in_arc(arc, a, b)", "the fraction of segment a..b inside the arc"),
    e("tabletop", "tabletop.frontage_in_arc(arc, b)", "the fraction of a base's or unit's frontage inside the arc"),
    e("tabletop", "tabletop.area_in_arc(arc, b)", "the fraction of a base's or unit's area inside the arc"),
    e("tabletop", "tabletop.centre_line(b, bearing, range)", "a battery's centre of fire as a line path"),
    e("tabletop", "tabletop.frontage_zone(b, bearing, range)", "a battery's frontage zone as a zone path"),
    e("tabletop", "tabletop.through(path, {exclude=}?)", "the unit bases a line or zone passes through, nearest first"),
    e("tabletop", "tabletop.areas(p?)", "terrain areas (those at p)"),
    e("tabletop", "tabletop.areas_crossed(path)", "terrain areas a line or zone passes through, nearest first"),
    e("tabletop", "tabletop.level(p)", "the elevation level at a point or unit"),
    e("tabletop", "tabletop.cover(b)", "terrain areas over a base or unit, with the fraction inside each"),
    e("tabletop", "tabletop.mark(shape, label)", "draw an arc, path, base or outline on the tabletop maps"),
    e("tabletop", "tabletop.clear_marks()", "remove the tabletop marks"),
    e("tabletop", "tabletop.marks()", "the tabletop marks"),
    e("spec", "scenario(path)", "load a scenario file"),
    e("spec", "describe(name, fn)  it(name, fn)", "group and define spec cases"),
    e("spec", "expect(v):to_be(x)", "also to_equal, to_be_close, to_be_truthy, to_be_falsy, to_be_nil, to_contain"),
    e("spec", "expect_error(fn, text?)", "fn must fail (with text in its message)"),
];

/// The name a completion or hint matches an entry by: `world:move` for
/// `world:move(unit, path)`, `h:distance` for `h:distance(other)`.
pub fn entry_name(usage: &str) -> &str {
    let end = usage.find(['(', '{', ' ']).unwrap_or(usage.len());
    &usage[..end]
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
    for entry in API.iter().filter(|e| e.group == group) {
        for part in entry.usage.split("  ") {
            let part = part.trim().trim_start_matches('#');
            let Some(rest) = part.split_once(['.', ':']).map(|(_, r)| r) else { continue };
            let is_method = part.contains(':');
            let name = &rest[..rest.find(['(', ' ']).unwrap_or(rest.len())];
            if !name.is_empty() && !out.iter().any(|(n, _)| *n == name) {
                out.push((name, is_method));
            }
        }
    }
    out
}

/// What a call returns, looked up by its written name (`hex`, `world:unit_at`).
pub fn returns_of(name: &str) -> Returns {
    for entry in API {
        if entry.returns == Returns::Other {
            continue;
        }
        let n = entry_name(entry.usage);
        let n = n.strip_prefix("h:").map_or(n, |m| m);
        if n == name || (entry.group == "hex value" && name.ends_with(&format!(":{n}"))) {
            return entry.returns;
        }
    }
    Returns::Other
}

/// One meta command.
#[derive(Debug)]
pub struct Command {
    pub name: &'static str,
    pub args: &'static str,
    pub doc: &'static str,
}

const fn c(name: &'static str, args: &'static str, doc: &'static str) -> Command {
    Command { name, args, doc }
}

/// The meta commands, as `:help` lists them.
pub const COMMANDS: &[Command] = &[
    c("help", "[TOPIC]", "this list; a topic (world, dice, hex, a command) narrows it"),
    c("map", "[--svg FILE] [--los A B]", "draw the battlefield; --svg writes a picture; --los draws a line of sight"),
    c("units", "[SIDE]", "list the units: side, type, strength, hex, leader, props"),
    c("log", "[N]", "the last N events (20)"),
    c("load", "SCENARIO", "load a scenario file (its ruleset too) in place of this battlefield"),
    c("ruleset", "NAME [VARIANT]", "switch to a ruleset (and variant), keeping the battlefield"),
    c("reload", "", "re-run the ruleset's scripts against the same battlefield"),
    c("set", "[MODULE.PARAM=VALUE]", "change a ruleset param; without one, list the params"),
    c("seed", "N", "reseed the dice"),
    c("force", "KIND FACE...", "queue exact results for the next rolls of a die kind"),
    c("undo", "", "put the battlefield back as it was before the last command that changed it"),
    c("redo", "", "do again what :undo took back"),
    c("save", "FILE", "write the battlefield as scenario YAML"),
    c("open", "FILE", "load a saved battlefield (like :load)"),
    c("quit", "", "leave (Ctrl-D too)"),
];

/// Finds a meta command by name or unique prefix (`:uni` is `:units`, `:un` is ambiguous);
/// the error lists the commands the prefix could mean.
pub fn find_command(name: &str) -> Result<&'static Command, Vec<&'static str>> {
    if let Some(cmd) = COMMANDS.iter().find(|c| c.name == name) {
        return Ok(cmd);
    }
    match name {
        "q" | "exit" => return Ok(&COMMANDS[COMMANDS.len() - 1]),
        "h" | "?" => return Ok(&COMMANDS[0]),
        _ => {}
    }
    let matches: Vec<&'static Command> = COMMANDS.iter().filter(|c| c.name.starts_with(name)).collect();
    match matches.as_slice() {
        [one] if !name.is_empty() => Ok(one),
        _ => Err(matches.iter().map(|c| c.name).collect()),
    }
}

/// The keys, for `:help` and docs.
pub const KEYS: &[(&str, &str)] = &[
    ("Enter", "run the input; an unfinished chunk (function ... without end) continues on a new line"),
    ("Tab", "complete globals, fields, methods, :commands, file names and params"),
    ("Right arrow", "take the greyed hint (from history)"),
    ("Up / Down", "history, kept between sessions"),
    ("Ctrl-R", "search the history"),
    ("Ctrl-C", "clear the input, or interrupt a running script (the battlefield stays as it was)"),
    ("Ctrl-D", "leave"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_members() {
        assert_eq!(entry_name("world:move(u, path)"), "world:move");
        assert_eq!(entry_name("world:units{side=, type=, all=}"), "world:units");
        let hex: Vec<&str> = value_members(Returns::Hex).into_iter().map(|(n, _)| n).collect();
        assert!(hex.contains(&"q") && hex.contains(&"distance") && hex.contains(&"to_offset"), "{hex:?}");
        let unit = value_members(Returns::Unit);
        assert!(unit.contains(&("strength", false)) && unit.contains(&("get", true)), "{unit:?}");
        let roll: Vec<&str> = value_members(Returns::Roll).into_iter().map(|(n, _)| n).collect();
        assert!(roll.contains(&"count") && roll.contains(&"faces"), "{roll:?}");
        assert_eq!(returns_of("hex"), Returns::Hex);
        assert_eq!(returns_of("world:unit_at"), Returns::Unit);
        assert_eq!(returns_of("dice.roll"), Returns::Roll);
        assert_eq!(returns_of("x:neighbor"), Returns::Hex);
        assert_eq!(returns_of("world:units"), Returns::Other);
    }

    #[test]
    fn commands_resolve_by_prefix() {
        assert_eq!(find_command("load").unwrap().name, "load");
        assert_eq!(find_command("q").unwrap().name, "quit");
        assert_eq!(find_command("uni").unwrap().name, "units");
        assert_eq!(find_command("un").unwrap_err(), ["units", "undo"]);
        assert_eq!(find_command("und").unwrap().name, "undo");
        assert!(find_command("s").is_err());
        assert!(find_command("zzz").unwrap_err().is_empty());
    }
}
