//! Issue 14: every bad input ends with an error that says, in the user's
//! terms, what is wrong and where (file:line:column) — sections 3 (inputs
//! once accepted without a word) and 4 (unclear errors), one test per case.

use std::path::{Path, PathBuf};
use std::process::Command;

use sandtable::error::LocatedError;
use sandtable::lua::{Host, HostOptions, ScenarioOverrides, ScriptError};
use sandtable::ruleset::{Ruleset, RulesetError};
use sandtable::scenario::Scenario;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bombardment() -> String {
    std::fs::read_to_string(root().join("scripts/great_war/bombardment.yaml")).unwrap()
}

fn grand_battery() -> String {
    std::fs::read_to_string(root().join("scripts/republique/grand_battery.yaml")).unwrap()
}

fn great_war() -> String {
    std::fs::read_to_string(root().join("rulesets/great_war/ruleset.yaml")).unwrap()
}

/// Parses and builds a scenario text; the error it gives.
fn scenario_error(text: &str) -> LocatedError {
    let sc = match Scenario::parse(Path::new("bad.yaml"), text.to_string()) {
        Ok(sc) => sc,
        Err(e) => return *e,
    };
    let rs = Ruleset::load(&sc.ruleset).unwrap();
    *sc.build(&rs).err().unwrap_or_else(|| panic!("loaded without a word:\n{text}"))
}

/// Parses a great_war ruleset text (its modules found beside the real file).
fn ruleset_error(text: &str) -> LocatedError {
    match Ruleset::parse(&root().join("rulesets/great_war/ruleset.yaml"), text) {
        Ok(_) => panic!("loaded without a word:\n{text}"),
        Err(RulesetError::Located(l)) => *l,
        Err(other) => panic!("not located: {other}"),
    }
}

/// Checks the error's position and words, and that it speaks no Rust.
#[track_caller]
fn expect(e: &LocatedError, (line, column): (usize, usize), words: &str) {
    assert!(e.message.contains(words), "{}:{}: {}", e.line, e.column, e.message);
    assert_eq!((e.line, e.column), (line, column), "{}", e.message);
    for rust in ["i32", "u32", "u64", "DuplicateKeyPolicy", "from_str_multiple", "budget breached", "untagged"] {
        assert!(!e.message.contains(rust), "{}", e.message);
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sandtable-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

// ---- section 4: unclear errors ----

#[test]
fn a_brace_never_closed_is_reported_at_the_brace() {
    // Was "invalid i32" at the end of the line: the flow mapping runs on into `units:`.
    let text = "ruleset: great_war\nmap: { cols: 13, rows: 9\nunits:\n  - { id: a1, side: allies, type: infantry, hex: [3, 6] }\n";
    let e = scenario_error(text);
    expect(&e, (2, 6), "this `{` is never closed: the mapping needs its `}`");
    let help = e.help.unwrap_or_default();
    assert!(help.contains("line 2, column 24: expected a whole number"), "{help}");
    // A list left open, in a ruleset.
    let e = ruleset_error(&great_war().replace("tokens: [wire, crater]", "tokens: [wire, crater"));
    assert!(e.message.contains("this `[` is never closed: the list needs its `]`"), "{}", e.message);
}

#[test]
fn a_bad_byte_is_reported_on_its_line() {
    let mut bytes = bombardment().into_bytes();
    let at = bytes.windows(17).position(|w| w == b"name: Bombardment").unwrap() + 10;
    bytes[at] = 0xFF;
    let path = scratch("bad_byte.yaml");
    std::fs::write(&path, &bytes).unwrap();
    let e = Scenario::load(&path).err().unwrap();
    expect(&e, (4, 11), "byte 0xFF is not UTF-8 text");
    assert!(e.help.unwrap_or_default().contains("save the file as UTF-8"));
    // The same for a ruleset.
    let dir = scratch("bad_byte_ruleset");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ruleset.yaml"), b"name: demo\ntitle: caf\xe9\n").unwrap();
    let e = Ruleset::load(&dir.display().to_string()).unwrap_err();
    let RulesetError::Located(l) = e else { panic!("not located: {e}") };
    expect(&l, (2, 11), "byte 0xE9 is not UTF-8 text");
}

#[test]
fn a_duplicate_key_names_both_lines() {
    let e = scenario_error(&bombardment().replace("seed: 7\n", "seed: 7\nseed: 8\n"));
    expect(&e, (11, 1), "`seed` is given twice in the same mapping (first on line 10)");
    let e = scenario_error(&bombardment().replace("{ id: c1, side: central,", "{ id: c1, side: central, id: c9,"));
    assert!(e.message.contains("`id` is given twice in the same mapping (first on line 28)"), "{}", e.message);
    // In a ruleset too.
    let e = ruleset_error(&great_war().replace("tokens: [wire, crater]", "tokens: [wire, crater]\ntokens: [wire]"));
    assert!(e.message.contains("`tokens` is given twice in the same mapping (first on line 43)"), "{}", e.message);
}

#[test]
fn a_second_document_is_named_as_such() {
    let e = scenario_error(&format!("{}---\nname: other\n", bombardment()));
    expect(&e, (42, 1), "a second YAML document starts here: the file must hold one");
    assert!(e.help.unwrap_or_default().contains("remove the `---` line"));
    let e = ruleset_error(&format!("{}---\nname: other\n", great_war()));
    assert!(e.message.contains("a second YAML document starts here"), "{}", e.message);
}

#[test]
fn size_budgets_are_said_in_words() {
    // The node budget grows with the file (what `:save` writes must reopen),
    // so only aliases can make a short file hold too many values.
    let mut laughs = bombardment().replace("seed: 7", "seed: 7\nparams:\n  a.l0: &l0 [x, x, x, x, x, x, x, x, x, x]");
    for level in 1..9 {
        let refs = vec![format!("*l{}", level - 1); 10].join(", ");
        laughs = laughs.replace("\nmap:", &format!("\n  a.l{level}: &l{level} [{refs}]\nmap:"));
    }
    let e = scenario_error(&laughs);
    assert!(e.message.contains("to read safely"), "{}", e.message);
    assert!(!e.message.contains("budget breached"), "{}", e.message);
    let deep = bombardment()
        .replace("seed: 7", &format!("seed: 7\nparams: {{ a.b: {}{} }}", "[".repeat(200), "]".repeat(200)));
    let e = scenario_error(&deep);
    assert!(e.message.contains("nested too deeply to read safely"), "{}", e.message);
    assert_eq!(e.line, 11, "{}", e.message);
}

#[test]
fn a_negative_die_says_what_a_die_is() {
    // Was "data did not match any variant of untagged enum RawDie".
    let e = ruleset_error(&great_war().replace("targeting: 6", "targeting: -4"));
    expect(&e, (10, 14), "die 'targeting': a die has 1 to 250 sides, not -4");
    let e = ruleset_error(&great_war().replace("targeting: 6", "targeting: { sides: 6 }"));
    assert!(e.message.contains("a die is a number of sides (`d6: 6`) or a list of faces"), "{}", e.message);
    let e = ruleset_error(&great_war().replace("targeting: 6", "targeting: 251"));
    assert!(e.message.contains("1 to 250 sides, not 251"), "{}", e.message);
}

#[test]
fn scalar_type_errors_are_in_words() {
    let e = scenario_error(&bombardment().replace("rows: 9", "rows: nine"));
    expect(&e, (11, 24), "expected a whole number, got `nine`");
    let e = scenario_error(&bombardment().replace("rows: 9", "rows: 99999999999"));
    expect(&e, (11, 24), "99999999999 is out of range: expected a whole number from -2147483648 to 2147483647");
    let e = scenario_error(&bombardment().replace("{ cols: 13, rows: 9, offset: odd-r }", "[13, 9]"));
    assert!(e.message.starts_with("expected a mapping `{ key: value }`"), "{}", e.message);
    let e = scenario_error(&bombardment().replace("seed: 7\n", "seed: 7\nsead: 8\n"));
    assert!(e.message.contains("unknown key `sead` (did you mean `seed`?)"), "{}", e.message);
}

/// A host on the bombardment with a script's error.
fn script_error(script: &str) -> String {
    let h =
        Host::new(HostOptions { time_ms: Some(500), memory_mb: Some(64), capture_output: true, ..Default::default() })
            .unwrap();
    h.load_scenario(&root().join("scripts/great_war/bombardment.yaml"), &ScenarioOverrides::default()).unwrap();
    let e: ScriptError = h.exec(script, "handler.lua").unwrap_err();
    e.message()
}

#[test]
fn a_table_error_object_in_a_handler_shows_its_fields() {
    // Was "world:move: table: 0x55…".
    let m = script_error(
        "on('enters', function() error({code = 3, why = 'blocked'}) end)\nworld:move(world:unit('a1'), hex(3, 5))",
    );
    assert_eq!(m, "world:move: error object: {code = 3, why = \"blocked\"}");
    // Its fields, not its __tostring (which could loop or fail).
    let m = script_error(
        "local e = setmetatable({reason = 'no road there'}, {__tostring = function() while true do end end})\n\
         on('enters', function() error(e) end)\nworld:move(world:unit('a1'), hex(3, 5))",
    );
    assert_eq!(m, "world:move: error object: {reason = \"no road there\"}");
    // At the top level too.
    let m = script_error("error({code = 3})");
    assert_eq!(m, "error object: {code = 3}");
    let m = script_error("error(setmetatable({n = 1}, {__tostring = function() error('trap') end}))");
    assert_eq!(m, "error object: {n = 1}");
    // Nested tables, many fields and long strings are capped.
    let m = script_error("error({inner = {deep = true}, a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8})");
    assert!(m.starts_with("error object: {a = 1,") && m.contains("more"), "{m}");
    let m = script_error("error({})");
    assert_eq!(m, "error object: {} (an empty table)");
}

#[test]
fn a_negative_count_on_the_command_line_is_named() {
    for args in [["--trials", "-5"], ["--threads", "-1"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_sandtable"))
            .args(["sim", "scripts/great_war/crater_odds.lua"])
            .args(args)
            .current_dir(root())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        let flag = args[0];
        assert!(err.contains(&format!("{flag} {}: {flag} takes a number that is not negative", args[1])), "{err}");
        assert!(!err.contains("-- -"), "{err}");
    }
}

// ---- section 3: inputs once accepted without a word ----

#[test]
fn a_scalar_terrain_entry_is_refused() {
    let e = ruleset_error(
        &great_war().replace("woods:    { protection: 1, ignore_flags: 0, blocks_los: true, stops: true }", "woods: 3"),
    );
    expect(&e, (24, 10), "terrain 'woods': expected a mapping of its properties");
    // In a scenario, the terrain's hexes must be a list.
    let e = scenario_error(&bombardment().replace("woods:    [[7, 2], [8, 2], [1, 6], [8, 5]]", "woods: 3"));
    expect(&e, (19, 10), "expected a list `[...]`, got `3`");
}

#[test]
fn a_text_strength_is_refused_where_it_is_written() {
    let e = ruleset_error(&great_war().replace("infantry:     { strength: 4,", "infantry:     { strength: \"4\","));
    expect(&e, (38, 17), "unit type 'infantry': strength must be a whole number, 1 or more, not \"4\"");
}

#[test]
fn an_infinite_table_is_refused() {
    let e =
        scenario_error(&grand_battery().replace("map: { width: 120, height: 80 }", "map: { width: .inf, height: 80 }"));
    expect(&e, (6, 6), "width and height must be positive numbers of centimetres, not .inf and 80");
}

#[test]
fn a_nan_facing_is_refused() {
    let text = grand_battery().replacen("facing: 270", "facing: .nan", 1);
    let e = scenario_error(&text);
    assert_eq!(e.line, 17, "{}", e.message);
    assert!(e.message.contains("unit 'fb1': facing must be a number of degrees, not .nan"), "{}", e.message);
}

#[test]
fn sections_off_the_board_are_refused() {
    for (range, words) in [("[0, 999]", "columns 0 to 999 run off the board"), ("[-50, -40]", "columns -50 to -40")] {
        let e = scenario_error(&bombardment().replace("left: [0, 4]", &format!("left: {range}")));
        expect(&e, (12, 19), words);
        assert!(e.message.contains("(its columns are 0 to 12)"), "{}", e.message);
    }
}
