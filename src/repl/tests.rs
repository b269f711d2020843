//! Sessions driven in-process against `tests/fixtures/repl`: evaluation,
//! transactions, undo and redo, `:save`/`:open` round trips, maps and
//! reloads. (The binary itself is driven through a pty and pipes in
//! `tests/repl.rs`.)

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::*;

/// A host capturing its output, with one side, `allies` (no baseline, no
/// pools): the world the completion and printing tests start from.
pub(crate) fn host_with_allies() -> crate::lua::Host {
    let h = crate::lua::Host::new(crate::lua::HostOptions { capture_output: true, ..Default::default() }).unwrap();
    h.state.world.borrow_mut().sides.push(crate::battlefield::Side {
        name: "allies".into(),
        baseline: None,
        pools: vec![],
    });
    h
}

#[derive(Clone, Default)]
struct Buf(Rc<RefCell<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buf {
    fn take(&self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut *self.0.borrow_mut())).to_string()
    }
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repl")
}

struct T {
    s: Session,
    out: Buf,
    err: Buf,
}

impl T {
    fn new_at(scenario: &Path) -> T {
        let (out, err) = (Buf::default(), Buf::default());
        let opts = ReplOptions { scenario: Some(scenario.to_path_buf()), ..Default::default() };
        let s = setup(&opts, Box::new(out.clone()), Box::new(err.clone()), false, true).expect("the fixture loads");
        T { s, out, err }
    }

    fn new() -> T {
        T::new_at(&fixture().join("scenario.yaml"))
    }

    /// Runs an input; returns (stdout, stderr).
    fn run(&mut self, input: &str) -> (String, String) {
        self.s.handle(input);
        (self.out.take(), self.err.take())
    }

    fn ok(&mut self, input: &str) -> String {
        let (o, e) = self.run(input);
        assert!(e.is_empty(), "{input:?} failed:\n{e}");
        o
    }

    fn fails(&mut self, input: &str) -> String {
        let (o, e) = self.run(input);
        assert!(!e.is_empty(), "{input:?} should fail; printed:\n{o}");
        e
    }
}

#[test]
fn expressions_print_and_globals_persist() {
    let mut t = T::new();
    assert_eq!(t.ok("1 + 2"), "3\n");
    assert_eq!(t.ok("x = 41"), "");
    assert_eq!(t.ok("x + 1"), "42\n");
    t.ok("function double(n)\n  return n * 2\nend");
    assert_eq!(t.ok("double(x)"), "82\n");
    assert_eq!(t.ok("world:unit('r1')"), "r1 [red infantry] 3/4 at (2,1) with leader Rommel\n");
    assert_eq!(t.ok("hex(1, 2), hex(1, 2):distance(hex(3, 3))"), "(1,2), 3\n");
    assert_eq!(t.ok("print('hello') return 7"), "hello\n7\n");
}

#[test]
fn an_error_changes_nothing_and_the_session_goes_on() {
    let mut t = T::new();
    let before = t.s.host.snapshot();
    let e = t.fails("world:hit('b1', 2) error('boom')");
    assert!(e.contains("boom"), "{e}");
    assert!(before.same_as(&t.s.host.state.world.borrow()), "the hit was rolled back");
    let e = t.fails("wrold:units()");
    assert!(e.contains("did you mean `world`"), "{e}");
    let e = t.fails("dice.rol(2, 'battle')");
    assert!(e.contains("did you mean `dice.roll`"), "{e}");
    let e = t.fails("x = = 1");
    assert!(e.contains("repl#"), "syntax errors point at the input: {e}");
    let e = t.fails("while true do end");
    assert!(e.contains("time limit"), "{e}");
    assert_eq!(t.ok("1"), "1\n");
    assert_eq!(t.s.failures, 5);
}

#[test]
fn errors_in_functions_defined_earlier_show_their_line() {
    let mut t = T::new();
    t.ok("function broken()\n  local a = nil\n  return a.b\nend");
    let e = t.fails("broken()");
    assert!(e.contains("return a.b"), "{e}");
}

#[test]
fn undo_restores_a_unit_a_rule_removed_and_redo_takes_it_away_again() {
    let mut t = T::new();
    t.ok("dice.force('battle', {'infantry', 'infantry', 'infantry', 'infantry'})");
    t.ok(":set skirmish.dice=4");
    let out = t.ok("skirmish.attack('b1', 'r1')");
    assert!(out.contains("roll 4 battle: infantry infantry infantry infantry"), "{out}");
    assert_eq!(t.ok("world:unit('r1').alive"), "false\n");
    let out = t.ok(":undo");
    assert!(out.contains("undid: skirmish.attack"), "{out}");
    assert_eq!(t.ok("world:unit('r1').strength"), "3\n");
    assert_eq!(t.ok("world:unit_at(hex(2, 1)).id"), "\"r1\"\n");
    t.ok(":redo");
    assert_eq!(t.ok("world:unit('r1').alive"), "false\n");
    // Back past the :set: the param returns to its default, and the rules see it.
    t.ok(":undo");
    assert_eq!(t.ok("params.skirmish.dice"), "4\n");
    t.ok(":undo");
    assert_eq!(t.ok("params.skirmish.dice"), "2\n");
    // Then the forced dice; looking changes nothing, so it is not an undo step.
    t.ok(":undo");
    t.ok("world:units()");
    assert!(t.fails(":undo").contains("nothing to undo"));
}

#[test]
fn save_and_open_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saved.yaml");
    let mut t = T::new();
    t.ok("world:hit('r2', 4, 'test')");
    t.ok("world:move('b2', hex(3, 3))");
    t.ok("world:add_token(hex(1, 1), 'crater') world:add_token(hex(1, 1), 'crater')");
    t.ok("world:set_turn(3) world:set_current_side('red') world:add_pool('blue', 'medals', 1)");
    t.ok("world:unit('b1').morale = 'shaken' world:unit('b1').leader = 'Ney'");
    t.ok("skirmish.template(hex(2, 2))");
    t.ok(":set skirmish.dice=5");
    t.ok(&format!(":save {}", file.display()));
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("turn: 3") && saved.contains("params:") && saved.contains("marks:"), "{saved}");
    assert!(saved.contains("{ id: r2, side: red, type: infantry, strength: 0, max: 4 }"), "{saved}");
    let world_before = t.s.host.snapshot();

    let mut u = T::new();
    let out = u.ok(&format!(":open {}", file.display()));
    assert!(out.contains("opened REPL skirmish"), "{out}");
    assert!(same_world_but_log(&world_before, &u.s.host.state.world.borrow()));
    assert_eq!(u.ok("params.skirmish.dice"), "5\n");
    let again = dir.path().join("again.yaml");
    u.ok(&format!(":save {}", again.display()));
    let strip = |s: &str| s.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&saved), strip(&std::fs::read_to_string(&again).unwrap()));
    // :open is undoable like :load.
    u.ok(":undo");
    assert_eq!(u.ok("world:turn()"), "1\n");
}

fn same_world_but_log(a: &World, b: &World) -> bool {
    let mut a = a.clone();
    let mut b = b.clone();
    a.log.events.clear();
    b.log.events.clear();
    a.dice = b.dice.clone();
    a.same_as(&b)
}

#[test]
fn meta_commands() {
    let mut t = T::new();
    let help = t.ok(":help");
    for c in COMMANDS {
        assert!(help.contains(&format!(":{}", c.name)), "{}", c.name);
    }
    assert!(t.ok(":help dice").contains("dice.roll(n, kind, reason?)"));
    assert!(t.ok(":help move").contains("world:move(u, path)"));
    let e = t.fails(":laod x");
    assert!(e.contains("did you mean :load"), "{e}");
    let units = t.ok(":units");
    assert!(units.contains("b2") && units.contains("morale=2") && units.contains("Rommel"), "{units}");
    assert_eq!(t.ok(":units red").lines().count(), 4, "header, two units, red's pools");
    t.ok("dice.roll(2, 'battle', 'test roll')");
    let log = t.ok(":log 5");
    assert!(log.contains("roll 2 battle for test roll"), "{log}");
    assert!(t.ok(":seed 9").contains("seeded with 9"));
    assert_eq!(t.s.seed, Some(9));
    let f = t.ok(":force battle flag sabre");
    assert!(f.contains("flag sabre"), "{f}");
    assert!(t.ok("dice.roll(2, 'battle')").contains("sabre flag"));
    assert!(t.fails(":force battle nine").contains("no face 'nine'"));
    assert!(t.ok(":set").contains("skirmish.dice = 2"));
    assert!(t.fails(":set skirmish.dice=9").contains("above the maximum"));
    let m = t.ok(":map");
    assert!(m.contains("Bin4") && m.contains("Rin3*"), "{m}");
    let l = t.ok(":map --los 1,4 5,1");
    assert!(l.contains("line of sight (1,4) -> (5,1)"), "{l}");
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("map.svg");
    assert!(t.ok(&format!(":map --svg {} --los b1 r2", svg.display())).contains("wrote"));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("id=\"los\""));
    t.ok(":quit");
    assert!(t.s.quit);
}

#[test]
fn ruleset_switch_and_reload_keep_the_board() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["ruleset.yaml", "skirmish.lua", "scenario.yaml"] {
        std::fs::copy(fixture().join(f), dir.path().join(f)).unwrap();
    }
    let mut t = T::new_at(&dir.path().join("scenario.yaml"));
    t.ok("world:hit('b1', 1)");
    let rs = dir.path().display().to_string();
    let out = t.ok(&format!(":ruleset {rs} heavy"));
    assert!(out.contains("variant heavy"), "{out}");
    assert_eq!(t.ok("params.skirmish.dice"), "4\n");
    assert_eq!(t.ok("world:unit('b1').strength"), "3\n");
    let lua = dir.path().join("skirmish.lua");
    let src = std::fs::read_to_string(&lua).unwrap();
    std::fs::write(&lua, src.replace("return skirmish", "skirmish.edited = true\nreturn skirmish")).unwrap();
    assert!(t.ok(":reload").contains("reloaded ruleset repl_fixture"));
    assert_eq!(t.ok("skirmish.edited"), "true\n");
    assert_eq!(t.ok("world:unit('b1').strength"), "3\n");
    std::fs::write(&lua, "this is not lua").unwrap();
    let e = t.fails(":reload");
    assert!(e.contains("previous scripts stay"), "{e}");
    assert_eq!(t.ok("skirmish.edited"), "true\n");
}

#[test]
fn banner_names_the_battlefield_and_an_example() {
    let t = T::new();
    let b = t.s.banner();
    assert!(b.contains("REPL skirmish") && b.contains("ruleset repl_fixture") && b.contains("seed 5"), "{b}");
    assert!(b.contains("Try: skirmish.attack(\"b1\", \"r1\")"), "{b}");
    assert!(b.contains(":help"), "{b}");
}

#[test]
fn decisions_are_asked() {
    struct Pick(usize);
    impl crate::lua::Asker for Pick {
        fn ask(&mut self, req: &crate::lua::DecisionRequest) -> Result<usize, String> {
            assert!(req.prompt.starts_with("retreat b1"));
            Ok(self.0)
        }
    }
    let mut t = T::new();
    t.s.host.set_asker(Some(Box::new(Pick(1))));
    let out = t.ok("skirmish.retreat('b1')");
    assert_eq!(out.trim(), t.ok("world:unit('b1').hex").trim());
}

#[test]
fn a_memory_overrun_changes_nothing() {
    let (out, err) = (Buf::default(), Buf::default());
    let opts = ReplOptions {
        scenario: Some(fixture().join("scenario.yaml")),
        memory_mb: Some(24),
        time_ms: Some(30_000),
        ..Default::default()
    };
    let mut s = setup(&opts, Box::new(out.clone()), Box::new(err.clone()), false, true).unwrap();
    let before = s.host.snapshot();
    assert!(!s.handle("world:hit('b1', 3) local t = {} for i = 1, 1e8 do t[i] = string.rep('x', 64) .. i end"));
    assert!(err.take().contains("memory limit"));
    assert!(before.same_as(&s.host.state.world.borrow()));
    assert!(s.handle("hoard = nil"));
    assert!(s.handle("world:unit('b1').strength"));
    assert_eq!(out.take(), "4\n");
}

#[test]
fn meta_commands_complete() {
    use rustyline::completion::Completer;
    use rustyline::history::FileHistory;
    let t = T::new();
    let h = helper::ReplHelper::new(
        t.s.host.lua.clone(),
        t.s.host.state.clone(),
        Rc::new(std::cell::Cell::new(false)),
        false,
    );
    let history = FileHistory::new();
    let ctx = rustyline::Context::new(&history);
    let names = |line: &str| -> Vec<String> {
        let (_, c) = h.complete(line, line.len(), &ctx).unwrap();
        c.into_iter().map(|p| p.replacement).collect()
    };
    assert_eq!(names(":lo"), [":load", ":log"]);
    assert_eq!(names(":set sk"), ["skirmish.dice="]);
    assert_eq!(names(":force bat"), ["battle"]);
    assert!(names(":force battle f").contains(&"flag".to_string()));
    assert_eq!(names(":units r"), ["red"]);
    assert_eq!(names(":map --s"), ["--svg"]);
    assert!(names(":help wor").contains(&"world".to_string()));
    assert_eq!(names("dice.ro"), ["roll", "roll_until"]);
    h.asking.set(true);
    assert!(names("dice.ro").is_empty(), "answers to decisions are not Lua");
}

/// Issue 10: the sides' pools (item 13) and the polish of the state
/// commands: `:seed`, `:ruleset`, `:load` and `:set MODULE.PARAM` without a
/// value show what is set and the choices, `=default` resets a param, every
/// error has one style, and disabled globals say so.
#[test]
fn pools_state_commands_one_error_style_and_disabled_globals() {
    let mut t = T::new();
    let o = t.ok(":units");
    assert!(o.contains("  pools of blue: hq 3, medals 0\n  pools of red: hq 2\n"), "{o}");
    let o = t.ok(":units red");
    assert!(o.contains("pools of red: hq 2") && !o.contains("pools of blue"), "{o}");
    let o = t.ok(":sides");
    assert!(o.contains("blue (to play) 2/2   bottom   hq 3, medals 0"), "{o}");
    t.ok("world:add_pool('red', 'hq', 1)");
    assert!(t.ok(":map").contains("pools of red: hq 3"));
    assert!(t.ok(":seed").contains("seeded with 5"));
    let o = t.ok(":ruleset");
    assert!(o.contains("the ruleset is repl_fixture (variants: heavy)") && o.contains("great_war, "), "{o}");
    let o = t.ok(":load");
    assert!(o.contains("the battlefield is REPL skirmish") && o.contains("  great_war/bombardment\n"), "{o}");
    let o = t.ok(":set skirmish.dice");
    assert!(o.contains("skirmish.dice = 2   (integer 1..6)") && o.contains("battle dice one attack rolls"), "{o}");
    t.ok(":set skirmish.dice=5");
    assert!(t.ok(":set skirmish").contains("skirmish.dice = 5   (integer 1..6, default 2)"));
    assert_eq!(t.ok(":set skirmish.dice=default"), "skirmish.dice = 2\n");
    let e = t.fails(":set skirmish.dcie");
    assert!(e.contains("× ruleset 'repl_fixture' has no param 'skirmish.dcie'; did you mean skirmish.dice?"), "{e}");
    let e = t.fails(":ruleset a b c");
    assert!(e.trim_start().starts_with("× usage: :ruleset"), "one error style: {e}");
    let e = t.fails(":nosuch");
    assert!(e.trim_start().starts_with("× unknown command :nosuch"), "one error style: {e}");
    let e = t.fails("loadstring('return 1')");
    assert!(e.contains("`loadstring` is disabled in the sandbox"), "{e}");
    let e = t.fails("os.execute('ls')");
    assert!(e.contains("`os.execute` is disabled in the sandbox"), "{e}");
}

/// A ruleset opened without a scenario has no units for its own example
/// calls: the banner says which scenario of it to `:load` instead.
#[test]
fn an_empty_map_suggests_loading_the_rulesets_scenario() {
    let rs = crate::ruleset::Ruleset::load("viktory").unwrap();
    let hint = super::empty_map_hint(&rs);
    assert!(hint.starts_with(":load viktory/mountain_pass   (the map is empty"), "{hint}");
    assert!(crate::repl::resolve_scenario("viktory/mountain_pass").is_some(), "the suggested name loads");
    let mut none = rs.clone();
    none.name = "no_such_ruleset".into();
    assert!(super::empty_map_hint(&none).starts_with(":load   (the map is empty: this lists the scenarios"));
}

/// The live board's current frame, read over HTTP as a page would.
fn live_frame(s: &Session) -> serde_json::Value {
    let url = s.live_url().expect("the live board runs");
    let rest = url.trim_start_matches("http://127.0.0.1:");
    let (port, path) = rest.split_once('/').unwrap();
    let port: u16 = port.parse().unwrap();
    let (status, _, body) =
        crate::web::tests::request(port, "GET", &format!("/{path}frame.json"), Some(&format!("127.0.0.1:{port}")));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

#[test]
fn the_live_board_follows_every_input() {
    let mut t = T::new();
    let out = t.ok(":view");
    assert!(out.contains("the live board is at http://127.0.0.1:"), "{out}");
    let url = t.s.live_url().unwrap();
    assert!(t.ok(":view").contains(&url), "a second :view says where it is");
    let f = live_frame(&t.s);
    assert_eq!(f["title"], "REPL skirmish");
    assert!(f["svg"].as_str().unwrap().contains(r#"data-unit="b1""#));
    assert_eq!(f["sides"][0]["name"], "blue");
    assert_eq!(f["units"]["r1"]["leader"], "Rommel");
    assert_eq!(f["hexes"]["3,2"], "woods");
    let seq = f["seq"].as_u64().unwrap();
    // A move: a new frame, with the input, its events and the unit's new place.
    t.ok("world:move(world:unit('b1'), hex(2,4))");
    let f = live_frame(&t.s);
    assert!(f["seq"].as_u64().unwrap() > seq);
    assert_eq!(f["input"]["text"], "world:move(world:unit('b1'), hex(2,4))");
    assert_eq!(f["input"]["ok"], true);
    assert!(f["events"][0].as_str().unwrap().contains("b1 moves (1,4) -> (2,4)"), "{}", f["events"]);
    assert!(f["svg"].as_str().unwrap().contains(r#"data-unit="b1" data-at="2,4""#));
    // A mark: fresh after the input that made it, faded after the next.
    t.ok("world:mark(hex(2,2), 'T')");
    assert!(live_frame(&t.s)["svg"].as_str().unwrap().contains(r#"class="mark fresh""#));
    t.ok("x = 1");
    let f = live_frame(&t.s);
    assert!(f["svg"].as_str().unwrap().contains(r#"class="mark faded""#), "{}", f["svg"]);
    assert!(f["events"].as_array().unwrap().is_empty(), "that input logged nothing");
    // What an input printed and showed; a failed input says so and changes nothing.
    t.ok("print('hello board') return 42");
    let f = live_frame(&t.s);
    assert_eq!(f["printed"], "hello board\n");
    assert_eq!(f["shown"], "42");
    let strength = f["units"]["b2"]["strength"].clone();
    t.fails("world:hit('b2', 1) error('no')");
    let f = live_frame(&t.s);
    assert_eq!(f["input"]["ok"], false);
    assert_eq!(f["units"]["b2"]["strength"], strength);
    // :map --los shows the line until the next input; :undo redraws too.
    t.ok(":map --los b2 r2");
    assert!(live_frame(&t.s)["svg"].as_str().unwrap().contains(r#"<g id="los""#));
    t.ok(":undo");
    let f = live_frame(&t.s);
    assert!(!f["svg"].as_str().unwrap().contains(r#"<g id="los""#));
    assert_eq!(f["input"]["text"], ":undo");
    // :view stop stops the server.
    assert!(t.ok(":view stop").contains("stopped"));
    assert!(t.s.live_url().is_none());
    let port: u16 = url.trim_start_matches("http://127.0.0.1:").split('/').next().unwrap().parse().unwrap();
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
    assert!(t.ok(":view stop").contains("no live board"));
    assert!(t.fails(":view now").contains("usage: :view [stop]"));
}

#[test]
fn the_live_board_shows_a_decision_while_it_waits() {
    use crate::lua::{Asker, DecisionRequest};
    /// Answers after reading what the page shows at that moment.
    struct Look(Rc<RefCell<Option<String>>>, Rc<RefCell<Vec<serde_json::Value>>>);
    impl Asker for Look {
        fn ask(&mut self, _: &DecisionRequest) -> Result<usize, String> {
            let url = self.0.borrow().clone().unwrap();
            let rest = url.trim_start_matches("http://127.0.0.1:");
            let (port, path) = rest.split_once('/').unwrap();
            let port: u16 = port.parse().unwrap();
            let host = format!("127.0.0.1:{port}");
            let (_, _, body) = crate::web::tests::request(port, "GET", &format!("/{path}frame.json"), Some(&host));
            self.1.borrow_mut().push(serde_json::from_str(&body).unwrap());
            Ok(1)
        }
    }
    let mut t = T::new();
    let (url, seen) = (Rc::new(RefCell::new(None)), Rc::new(RefCell::new(Vec::new())));
    t.s.set_asker(Some(Box::new(Look(url.clone(), seen.clone()))));
    t.ok(":view");
    *url.borrow_mut() = t.s.live_url();
    t.ok("skirmish.retreat('b1')");
    let seen = seen.borrow();
    let f = &seen[0];
    assert!(f["decision"]["prompt"].as_str().unwrap().starts_with("retreat b1"), "{f}");
    assert_eq!(f["decision"]["side"], "blue");
    assert_eq!(f["input"]["text"], "skirmish.retreat('b1')");
    assert!(f["input"]["ok"].is_null(), "the input is still running");
    // Once answered, the board shows the outcome and no decision.
    let after = live_frame(&t.s);
    assert!(after["decision"].is_null());
    assert_eq!(after["input"]["ok"], true);
}
