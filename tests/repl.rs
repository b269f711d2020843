//! The REPL as a person meets it: the `sandtable` binary driven through a
//! pseudo-terminal (rexpect), and through piped standard input.
//!
//! The pty tests wait for what a person would see rather than for time to
//! pass (a loaded machine only makes them slower), use generous timeouts,
//! and keep HOME and the history file in a temporary folder.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rexpect::session::{spawn_with_options, Options, PtySession};

const BIN: &str = env!("CARGO_BIN_EXE_sandtable");

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repl")
}

/// Runs the binary with `args`, feeding `input` on stdin; returns (status, stdout, stderr).
fn piped(args: &[&str], input: &str, cwd: Option<&Path>) -> (i32, String, String) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("HOME", home.path())
        .env("SANDTABLE_HISTORY", home.path().join("history"))
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().expect("the binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn scenario_arg() -> String {
    fixture().join("scenario.yaml").display().to_string()
}

#[test]
fn piped_input_runs_in_order_and_reports_failure_in_the_exit_code() {
    let input =
        "1 + 1\nfunction double(x)\n  return x * 2\nend\ndouble(21)\nnosuch()\n:units red\nworld:unit('r1').strength\n";
    let (code, out, err) = piped(&["repl", "--scenario", &scenario_arg()], input, None);
    assert_eq!(code, 1, "an input failed, so the exit code is 1\n{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "2", "{out}");
    assert_eq!(lines[1], "42", "{out}");
    assert!(out.contains("r1") && out.contains("Rommel") && out.ends_with("3\n"), "{out}");
    assert!(err.contains("attempt to call a nil value") && err.contains("nosuch"), "{err}");
    assert!(err.contains("stdin#6"), "errors name the input line: {err}");
    assert!(!out.contains("sandtable>"), "no prompts when piped: {out}");
    assert!(!out.contains('\x1b') && !err.contains('\x1b'), "no colours when piped");
}

#[test]
fn a_function_reads_a_global_as_it_is_now_not_as_it_was_when_typed() {
    // Luau keeps the values of the globals a chunk reads when it loads; a
    // global the person set earlier must still be read afresh. The sandbox's
    // own globals and the ruleset's modules are read as before.
    let input = "level = 1\nfunction f() return level end\nlevel = 3\nf()\n\
        function g() return math.max(level, 2), reserve_artillery ~= nil end\ng()\nlevel = 5\ng()\n";
    let (code, out, err) = piped(&["repl"], input, None);
    assert_eq!(code, 0, "{out}\n{err}");
    let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines, ["3", "3, true", "5, true"], "{out}");
}

#[test]
fn piped_input_that_succeeds_exits_zero_and_answers_decisions_from_the_next_line() {
    let input = "skirmish.retreat('b1')\n2\nworld:unit('b1').hex\n:quit\nerror('never reached')\n";
    let (code, out, err) = piped(&["repl", "--scenario", &scenario_arg()], input, None);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("blue: retreat b1 to\n  1) "), "{out}");
    assert!(out.contains("choose 1-"), "{out}");
    let answer = out.lines().filter(|l| l.starts_with('(')).collect::<Vec<_>>();
    assert_eq!(answer.len(), 2, "the retreat result and the unit's hex: {out}");
    assert_eq!(answer[0], answer[1]);
}

/// A prompt given as a function is made when a person is asked (and then
/// names the hex the options are described from).
#[test]
fn a_prompt_function_is_shown_when_a_person_is_asked() {
    let input = "decide{ side = 'blue', options = { hex(3, 3), hex(4, 3) }, \
                 prompt = function() return 'advance from ' .. tostring(hex(3, 4)) .. ' to' end }\n2\n";
    let (code, out, err) = piped(&["repl", "--scenario", &scenario_arg()], input, None);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("blue: advance from (3,4) to\n  1) (3,3)  NW: open"), "{out}");
    assert!(out.contains("choose 1-2 [1]: 2\n(4,3)"), "{out}");
}

#[test]
fn no_arguments_open_the_default_battlefield_from_any_folder() {
    let elsewhere = tempfile::tempdir().unwrap();
    let (code, out, err) = piped(&[], "ruleset.name\n#world:units()\n", Some(elsewhere.path()));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("\"great_war\"\n"), "{out}\n{err}");
}

#[test]
fn a_bad_scenario_is_a_setup_error() {
    let (code, _out, err) = piped(&["repl", "--scenario", "/nonexistent/nowhere.yaml"], "", None);
    assert_eq!(code, 2);
    assert!(err.contains("no scenario file"), "{err}");
}

/// A REPL in a pseudo-terminal with its own HOME and history.
struct Pty {
    p: PtySession,
}

const TIMEOUT_MS: u64 = 90_000;

impl Pty {
    fn spawn(home: &Path, args: &[&str]) -> Pty {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .env("HOME", home)
            .env("SANDTABLE_HISTORY", home.join("history"))
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR");
        let p = spawn_with_options(cmd, Options::new().timeout_ms(Some(TIMEOUT_MS)).strip_ansi_escape_codes(true))
            .expect("spawns in a pty");
        let mut pty = Pty { p };
        pty.expect("sandtable> ");
        pty
    }

    fn expect(&mut self, text: &str) -> String {
        match self.p.exp_string(text) {
            Ok(before) => before,
            Err(e) => panic!("waiting for {text:?}: {e}"),
        }
    }

    /// Types a line and presses Enter.
    fn line(&mut self, text: &str) {
        self.p.send(text).unwrap();
        self.p.send("\r").unwrap();
        self.p.flush().unwrap();
    }
}

#[test]
fn a_person_at_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let scenario = scenario_arg();
    let mut t = Pty::spawn(home.path(), &["repl", "--scenario", &scenario, "--time-limit", "600000"]);

    // The map draws the battlefield.
    t.line(":map");
    t.expect("Rin3*");
    t.expect("Bin4");
    t.expect("sandtable> ");

    // A typo gives a clear error, and the session goes on.
    t.line("wrold:units()");
    t.expect("did you mean `world`?");
    t.line("6 * 7");
    t.expect("42");

    // A multi-line function can be typed.
    t.line("function sq(x)");
    t.line("  return x * x");
    t.line("end");
    t.line("sq(9)");
    t.expect("81");

    // Tab completes dice.ro to dice.roll.
    t.p.send("dice.ro").unwrap();
    t.p.send("\t").unwrap();
    t.p.flush().unwrap();
    t.expect("dice.roll");
    t.line("(1, 'battle', 'tab')");
    t.expect("roll 1 battle: ");

    // :undo restores a unit that a rule removed.
    t.line("dice.force('battle', {'infantry', 'infantry', 'infantry', 'infantry'})");
    t.line(":set skirmish.dice=4");
    t.expect("skirmish.dice = 4");
    t.line("skirmish.attack('b1', 'r1')");
    t.expect("roll 4 battle: infantry infantry infantry infantry");
    t.line("world:unit('r1').alive");
    t.expect("false");
    t.line(":undo");
    t.expect("undid: skirmish.attack");
    t.line("world:unit('r1')");
    t.expect("r1 [red infantry] 3/4 at (2,1)");

    // A decision is asked, with the default taken by Enter.
    t.line("skirmish.retreat('b2')");
    t.expect("blue: retreat b2 to");
    t.expect("(default)");
    t.expect("choose 1-");
    t.line("");
    t.expect("sandtable> ");

    // Ctrl-C interrupts a running script; the world is as before.
    // (The text waited for is not in the typed line, whose echo would match too early.)
    t.line("world:hit('b1', 2) print('spin' .. 'ning') while true do end");
    t.expect("spinning");
    t.p.send_control('c').unwrap();
    t.expect("interrupted");
    t.line("world:unit('b1').strength");
    t.expect("\n4\r");

    // Ctrl-C at the prompt clears the line.
    t.p.send("this is not sent").unwrap();
    t.p.flush().unwrap();
    t.expect("this is not sent");
    t.p.send_control('c').unwrap();
    // A fresh prompt starts a line; rustyline drops keys typed before it after a Ctrl-C.
    t.expect("\n\rsandtable> ");
    t.line("'after ctrl-c'");
    t.expect("\"after ctrl-c\"");

    // Ctrl-D leaves.
    t.p.send_control('d').unwrap();
    t.p.exp_eof().unwrap();

    // History survives a restart.
    let history = std::fs::read_to_string(home.path().join("history")).unwrap();
    assert!(history.contains("sq(9)"), "{history}");
    let mut again = Pty::spawn(home.path(), &["repl", "--scenario", &scenario]);
    again.p.send("\x1b[A").unwrap(); // Up
    again.p.send("\r").unwrap();
    again.p.flush().unwrap();
    again.expect("\"after ctrl-c\"");
    again.p.send_control('d').unwrap();
    again.p.exp_eof().unwrap();
}

#[test]
fn saving_a_ruleset_file_reloads_it_without_losing_the_board() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for f in ["ruleset.yaml", "skirmish.lua", "scenario.yaml"] {
        std::fs::copy(fixture().join(f), dir.path().join(f)).unwrap();
    }
    let scenario = dir.path().join("scenario.yaml").display().to_string();
    let mut t = Pty::spawn(home.path(), &["repl", "--scenario", &scenario]);
    t.line("world:hit('b1', 1)");
    t.expect("\n1, true\r");
    t.line("world:unit('b1').strength");
    t.expect("\n3\r");
    let lua = dir.path().join("skirmish.lua");
    let src = std::fs::read_to_string(&lua).unwrap();
    std::fs::write(&lua, src.replace("return skirmish", "skirmish.edited = 'yes'\nreturn skirmish")).unwrap();
    // The watcher says so at the prompt; the next command reloads first.
    t.expect("skirmish.lua changed");
    t.line("skirmish.edited");
    t.expect("reloaded ruleset repl_fixture after a change to skirmish.lua");
    t.expect("\"yes\"");
    t.line("world:unit('b1').strength");
    t.expect("\n3\r");
    t.line(":quit");
    t.p.exp_eof().unwrap();
}

/// The viktory ruleset's overwatch walk-through (its README shows the same
/// session): a designer moves attackers in one at a time and is asked
/// "overwatch now or wait?" at each trigger, naming the units the shot may
/// hit; the move in that fires shows the shot's roll; the map shows the
/// spent overwatch.
#[test]
fn viktory_overwatch_session_asks_at_each_trigger() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = std::fs::read_to_string(root.join("scripts/viktory/overwatch_session.txt")).unwrap();
    let (code, out, err) = piped(&["repl", "--scenario", "scripts/viktory/mountain_pass.yaml"], &input, Some(root));
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(out.matches("overwatch now or wait?").count(), 3, "{out}");
    assert!(out.contains("choose 1-2 [1]: wait") && out.contains("choose 1-2 [1]: now"), "{out}");
    assert!(out.contains("every hit a Tactical Victory on one of b_art, b_inf1, b_inf2"), "the targets: {out}");
    assert!(out.contains("choose 1-3 [1]: b_art"), "A picks the casualty: {out}");
    assert!(
        out.contains("dice = 2, faces = {2, 5}, hex = (5,3), hits = 1, lost = {\"b_art\"}"),
        "the shot's roll: {out}"
    );
    assert!(out.contains("X a_art spent (4,3)"), "the map marks the spent overwatch: {out}");
    assert!(out.contains("o a_art (3,4)"), "and the threatened ring: {out}");
    assert!(out.contains("battle at (5,3): A holds it"), "{out}");
    assert!(out.ends_with("\"C\"\na_art (A) at (4,3): ready\n"), "ready again on C's turn: {out}");
}

/// The tricorne ruleset's REPL walk-through (its README shows the same
/// session): one turn each through the turn frame; a volley, then a Highland
/// charge that asks "take ground?" and "bonus melee against whom?", a battle
/// back the defender chooses, and a volley that eliminates a unit and its leader for two banners.
#[test]
fn tricorne_charge_session_asks_take_ground_and_bonus_melee() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = std::fs::read_to_string(root.join("scripts/tricorne/charge_session.txt")).unwrap();
    let (code, out, err) = piped(&["repl", "--scenario", "scripts/tricorne/prestonpans.yaml"], &input, Some(root));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("g2 fires at j2 (2 hexes): 4 dice (+2 base at 2 hexes, +1 full strength, +1 leader Cope)"),
        "{out}"
    );
    assert!(out.contains("ga does not combat: no enemy in range and line of sight"), "{out}");
    assert!(out.contains("take ground: move j1 into (1,8)?") && out.contains("choose 1-2 [1]: take ground"), "{out}");
    assert!(out.contains("bonus melee: j1 attacks whom?") && out.contains("choose 1-4 [1]: g2"), "{out}");
    assert!(out.contains("g2 may battle back against j1") && out.contains("choose 1-2 [1]: battle back"), "{out}");
    assert!(out.contains("g2 battles back against j1: 4 dice (+3 melee, +1 leader Cope)"), "{out}");
    assert!(out.contains("leader Cope: casualty check [sabre] -> casualty\n2\n"), "two banners: {out}");
    assert!(out.contains(":Jhg2 | 2,8 |"), "the map: j1 took ground at (1,8) with 2 blocks, g2 is gone: {out}");
    assert!(out.contains("|Jhg3*|"), "the map marks j2's attached leader: {out}");
    assert!(out.contains("j2    jacobite   highland        3/4      (3,6)      Murray"), "{out}");
    assert!(out.contains("jacobite medals +1 -> 2"), "the log: {out}");
}

/// Issue 10, items 3, 8 and 12: syntax errors point at the token, forced
/// dice can be listed and cleared and are warned about when left over, and
/// the last result is `_`.
#[test]
fn newcomer_syntax_columns_forced_dice_and_last_result() {
    let home = tempfile::tempdir().unwrap();
    let scenario = scenario_arg();
    let mut t = Pty::spawn(home.path(), &["repl", "--scenario", &scenario, "--time-limit", "600000"]);

    // 3: the column of the offending token, no traceback for a compile error.
    t.line("local x = = 1");
    let shown = t.expect("Expected identifier") + &t.expect(" here") + &t.expect("sandtable> ");
    assert!(shown.contains(":1:11:"), "the column of the second `=`: {shown}");
    assert!(!shown.contains("traceback") && !shown.contains("[C]"), "no traceback: {shown}");
    t.line("x = 1 + * 3");
    let shown = t.expect("got '*'");
    assert!(shown.contains(":1:9:"), "the column of `*`: {shown}");

    // 8: the queue is listed, warned about when left over, and cleared.
    t.line(":force");
    t.expect("no forced dice queued");
    t.line(":force battle flag sabre flag");
    t.expect("sandtable> ");
    t.line("dice.roll(1, 'battle')");
    t.expect("forced dice still queued after this input: battle sabre flag");
    t.line(":force");
    t.expect("battle: sabre flag");
    t.line(":force battle clear");
    t.expect("forced battle dice cleared");
    t.line(":force");
    t.expect("no forced dice queued");
    t.line(":force battle flag");
    t.line(":force clear");
    t.expect("forced dice cleared");

    // 12: the last result is `_`.
    t.line("6 * 7");
    t.expect("42");
    t.line("_ + 1");
    t.expect("43");
    t.line(":quit");
}

/// Issue 10, item 11: `:help` explains the ruleset and its functions.
#[test]
fn help_explains_the_ruleset_and_its_functions() {
    let home = tempfile::tempdir().unwrap();
    let mut t = Pty::spawn(home.path(), &["repl", "--scenario", "great_war/bombardment", "--seed", "7"]);
    t.line(":help reserve_artillery.fire");
    t.expect("reserve_artillery.fire(");
    t.expect("reserve_artillery.lua:");
    // Issue 30: the type its argument names is shown with it.
    t.expect("type FireArgs");
    t.expect("hq: number?");
    t.expect("Params it reads");
    t.expect("reserve_artillery.crater_at");
    t.expect("sandtable> ");
    t.line(":help FireArgs");
    t.expect("export type FireArgs = {");
    t.expect("sandtable> ");
    t.line(":help great_war");
    t.expect("Modules");
    t.expect("Params");
    t.expect("Variants");
    t.expect("Dice:");
    t.expect("targeting:");
    t.expect("Terrain:");
    t.expect("Unit types:");
    t.expect("sandtable> ");
    t.line(":quit");
}

/// Issue 10, items 14 and 16: odds from the prompt, and Tab inside a dice
/// call's string arguments.
#[test]
fn odds_from_the_prompt_and_dice_completion_in_strings() {
    let home = tempfile::tempdir().unwrap();
    let scenario = scenario_arg();
    let mut t = Pty::spawn(home.path(), &["repl", "--scenario", &scenario, "--time-limit", "600000"]);

    // 16: a die kind inside dice.roll's string, a face inside dice.force's list.
    t.p.send("dice.roll(1, \"bat").unwrap();
    t.p.send("\t").unwrap();
    t.p.flush().unwrap();
    t.expect("battle");
    t.line("\")");
    t.expect("roll 1 battle: ");
    t.expect("sandtable> ");
    t.p.send("dice.force(\"battle\", {\"fl").unwrap();
    t.p.send("\t").unwrap();
    t.p.flush().unwrap();
    t.expect("flag");
    t.line("\"})");
    t.expect("sandtable> ");
    t.line("dice.roll(1, 'battle')");
    t.expect("roll 1 battle: flag\r");

    // 14: exact and sim odds of an expression; the battlefield is untouched.
    t.line("world:unit('r1').strength");
    t.expect("3");
    t.line(":exact dice.roll(2, 'battle'):count('flag')");
    // exact branches on what the rule looks at: flag or not on 2 dice, 3 outcomes.
    t.expect("exact, 3 outcome leaves");
    t.expect("1/36");
    t.expect("sandtable> ");
    // --epsilon as on the command line: a roll until a six has no last leaf.
    t.line(":exact (function() local n = 1 while dice.roll(1, 'd6'):count(6) == 0 do n += 1 end return n end)() --epsilon 1e-3");
    t.expect("is an interval that contains the true value");
    t.expect("sandtable> ");
    t.line(":sim dice.roll(1, 'battle'):count('flag') == 1 --trials 3000");
    t.expect("3000 trials");
    // The trials to look at, and one of them replayed with its events.
    t.expect("value = yes");
    t.expect(":sim dice.roll(1, 'battle'):count('flag') == 1 --trial ");
    t.expect("sandtable> ");
    t.line(":sim dice.roll(1, 'battle'):count('flag') == 1 --trial 2");
    t.expect("trial 2 (dice seed");
    t.expect("roll 1 battle: ");
    t.expect("metrics:");
    t.expect("sandtable> ");
    t.line("world:unit('r1').strength");
    t.expect("3");
    t.line(":quit");
}

/// Issue 10, item 15: `:transcript FILE` writes the session as a spec that
/// replays it, and `sandtable test` passes it.
#[test]
fn transcript_writes_a_spec_that_replays_the_session() {
    let home = tempfile::tempdir().unwrap();
    let spec = home.path().join("session_spec.lua");
    let scenario = scenario_arg();
    let mut t = Pty::spawn(home.path(), &["repl", "--scenario", &scenario, "--time-limit", "600000"]);
    t.line(":force battle flag sabre");
    t.expect("the next battle rolls come up");
    t.line("dice.roll(2, 'battle'):count('flag')");
    t.expect("sandtable> ");
    t.line("6 * 7");
    t.expect("42");
    t.line(&format!(":transcript {}", spec.display()));
    t.expect("wrote the session as a spec");
    t.line(":quit");
    let text = std::fs::read_to_string(&spec).unwrap();
    assert!(text.contains("dice.force(\"battle\", { \"flag\", \"sabre\" })"), "{text}");
    assert!(text.contains("expect(_):to_be(1)") && text.contains("expect(_):to_be(42)"), "{text}");
    let out = Command::new(BIN).args(["test", &spec.display().to_string()]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("1 passed, 0 failed"), "{stdout}\n{text}");
}

/// Issue 30: a transcript writes each answer as the value it was (a hex as
/// `hex(q, r)`, not the text "(1,9)"), so the spec of a session that
/// answered every kind of decision replays green.
#[test]
fn a_transcript_of_every_kind_of_answer_replays() {
    let home = tempfile::tempdir().unwrap();
    let spec = home.path().join("answers_spec.lua");
    let input = format!(
        "decide{{ prompt = 'where', options = {{ hex(1, 2), hex(2, 2) }} }}\n2\n\
         decide{{ prompt = 'how', options = {{ 'stand', 'fall back' }} }}\n2\n\
         decide{{ prompt = 'how many', options = {{ 1, 2.5, 3 }} }}\n2\n\
         decide{{ prompt = 'sure', options = {{ true, false }} }}\n2\n\
         skirmish.retreat('b1')\n2\n\
         :transcript {}\n",
        spec.display()
    );
    let (code, out, err) = piped(&["repl", "--scenario", &scenario_arg()], &input, None);
    assert_eq!(code, 0, "{out}\n{err}");
    let text = std::fs::read_to_string(&spec).unwrap();
    for answer in ["answers{ hex(2, 2) }", "answers{ \"fall back\" }", "answers{ 2.5 }", "answers{ false }"] {
        assert!(text.contains(answer), "{answer} in:\n{text}");
    }
    let out = Command::new(BIN).args(["test", &spec.display().to_string()]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("1 passed, 0 failed"), "{stdout}\n{text}");
}

/// Issue 10, items 13 and 18: hex prompts say which way each hex lies and
/// what is there; `:units`, `:sides` and the map show the sides' pools.
#[test]
fn hex_prompts_say_where_and_what_and_pools_are_shown() {
    let input = "skirmish.retreat('b1')\n1\n:units blue\n:sides\n";
    let (code, out, err) = piped(&["repl", "--scenario", &scenario_arg()], input, None);
    assert_eq!(code, 0, "{out}\n{err}");
    // b1 stands at (1,4); its free neighbours, east first, clockwise.
    assert!(out.contains("blue: retreat b1 to\n  1) (2,4)  E: open   (default)\n  2) (1,5)  SE: open\n"), "{out}");
    assert!(out.contains(") (1,3)  NW: open") && out.contains(") (2,3)  NE: open"), "{out}");
    assert!(out.contains("pools of blue: hq 3, medals 0") && !out.contains("pools of red"), "{out}");
    assert!(out.contains("blue (to play)") && out.contains("hq 3, medals 0") && out.contains("red"), "{out}");
}

/// Issue 10, item 13 with a real ruleset: tricorne's victory banners
/// (`medals`) and cards in hand under `:units`, `:sides`, the map and the SVG.
#[test]
fn tricorne_pools_in_units_sides_map_and_svg() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("map.svg");
    let input = format!(
        "world:add_pool('jacobite', 'medals', 2)\n:units government\n:sides\n:map\n:map --svg {}\n",
        svg.display()
    );
    let (code, out, err) = piped(&["repl", "--scenario", "tricorne/prestonpans"], &input, Some(root));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("  pools of government: ambush 0, first_strike 1, medals 0\n"), "{out}");
    assert!(out.contains("jacobite") && out.contains("ambush 1, first_strike 0, medals 2"), "{out}");
    assert!(out.contains("pools of jacobite: ambush 1, first_strike 0, medals 2"), "the map's legend: {out}");
    let text = std::fs::read_to_string(&svg).unwrap();
    // The legend's row: the side, then each pool as its own item.
    let row = &text[text.find(">Pools of jacobite:<").expect("the jacobite pools row")..];
    let row = &row[..row.find("Hexes show").unwrap_or(row.len())];
    for pool in [">ambush 1<", ">first_strike 0<", ">medals 2<"] {
        assert!(row.contains(pool), "{pool} in {row}");
    }
}

/// Issue 10, polish: Ctrl-C at a decision prompt cancels the input quietly.
#[test]
fn ctrl_c_at_a_decision_cancels_quietly() {
    let home = tempfile::tempdir().unwrap();
    let scenario = scenario_arg();
    let mut t = Pty::spawn(home.path(), &["repl", "--scenario", &scenario, "--time-limit", "600000"]);
    t.line("skirmish.retreat('b1')");
    let asked = t.expect("choose 1-");
    assert!(asked.contains("(2,4)  E: open"), "{asked}");
    t.p.send_control('c').unwrap();
    let shown = t.expect("decision abandoned (Ctrl-C); the battlefield is as it was") + &t.expect("sandtable> ");
    assert!(!shown.contains('×') && !shown.contains("traceback"), "no error report: {shown}");
    t.line("world:unit('b1').hex");
    t.expect("(1,4)");
    t.line(":quit");
}
