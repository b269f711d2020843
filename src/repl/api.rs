//! What a person can type: the REPL's meta commands here, and the Lua API
//! from its one list (`lua::api`: every call registered with its signature
//! and a line of doc).
//!
//! `:help` prints these, completion and hints read them (the Lua API's
//! method names for values that cannot be walked without running code, such
//! as hexes and units), and `docs/repl.md` mirrors them.

pub use crate::lua::api::{catalogue, entry_name, returns_of, value_members, ApiEntry, Returns, AREAS};

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
    c(
        "view",
        "[stop]",
        "show the battlefield live in a browser (a local page that follows every input); stop stops it",
    ),
    c("units", "[SIDE]", "list the units (side, type, strength, hex, leader, props) and the sides' pools"),
    c("sides", "", "the sides: units, baseline, whose turn, pools (HQ tokens, medals, ...)"),
    c("log", "[N]", "the last N events (20)"),
    c("load", "[SCENARIO]", "load a scenario file (its ruleset too) in place of this battlefield; alone, list them"),
    c("ruleset", "[NAME [VARIANT]]", "switch to a ruleset (and variant), keeping the battlefield; alone, list them"),
    c("reload", "", "re-run the ruleset's scripts against the same battlefield"),
    c(
        "set",
        "[MODULE.PARAM[=VALUE]]",
        "change a ruleset param (=default resets it); a param alone shows it; nothing lists them all",
    ),
    c("seed", "[N]", "reseed the dice (decimal or 0x hex); alone, show the seed"),
    c(
        "force",
        "[KIND FACE... | [KIND] clear]",
        "queue exact results for the next rolls of a die kind; alone, list the queue; clear empties it",
    ),
    c(
        "sim",
        "EXPR [--trials N] [--trial I] [--vs-set M.P=V]",
        "Monte Carlo odds of EXPR run as a trial from this battlefield (left unchanged); --trial I: that trial's \
         events; --vs-set or --vs-variant NAME compares with a variant",
    ),
    c(
        "exact",
        "EXPR [--epsilon E] [--vs-set M.P=V]",
        "exact odds of EXPR from this battlefield, every roll enumerated (left unchanged); --epsilon E: intervals \
         leaving less than E unexplored, for trials that can repeat without end",
    ),
    c("undo", "", "put the battlefield back as it was before the last command that changed it"),
    c("redo", "", "do again what :undo took back"),
    c("save", "FILE", "write the battlefield as scenario YAML"),
    c(
        "transcript",
        "FILE",
        "write the session so far (inputs, forced dice, answers, results) as a spec that replays it",
    ),
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
        assert_eq!(find_command("sid").unwrap().name, "sides");
        assert_eq!(find_command("und").unwrap().name, "undo");
        assert!(find_command("s").is_err());
        assert!(find_command("zzz").unwrap_err().is_empty());
    }
}
