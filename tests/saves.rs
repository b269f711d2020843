//! Nothing is lost: saves that reopen, saves and logs that fail loudly (and
//! leave the previous save whole), shards that refuse to merge across
//! edited files, and a REPL killed mid-session that `--resume` restores.
//!
//! A full disk is simulated with `ulimit -f 1` on a child shell (with
//! SIGXFSZ ignored, writes past the limit fail with "File too large"; with
//! it, the process is killed mid-write).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rexpect::process::Signal;
use rexpect::session::{spawn_with_options, Options, PtySession};

const BIN: &str = env!("CARGO_BIN_EXE_sandtable");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scenario() -> String {
    root().join("tests/fixtures/repl/scenario.yaml").display().to_string()
}

/// Runs `cmd` with `input` on stdin, HOME and the history in `home`; returns (status, stdout, stderr).
fn run(mut cmd: Command, home: &Path, input: &str) -> (i32, String, String) {
    cmd.env("HOME", home)
        .env("SANDTABLE_HISTORY", home.join("history"))
        .env("NO_COLOR", "1")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn sandtable(args: &[&str], home: &Path, input: &str) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    run(cmd, home, input)
}

/// The binary under `ulimit -f 1` (files of at most one block); `ignore_xfsz`
/// makes an over-long write fail instead of killing the process.
fn limited(args: &[&str], home: &Path, input: &str, ignore_xfsz: bool) -> (i32, String, String) {
    let trap = if ignore_xfsz { "trap '' XFSZ; " } else { "" };
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("ulimit -f 1; {trap}exec \"$0\" \"$@\"")).arg(BIN).args(args);
    run(cmd, home, input)
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().to_string())
        // The writer's temporary files are hidden (`.NAME.RANDOM`).
        .filter(|n| n.starts_with('.') || n.contains(".tmp"))
        .collect()
}

#[test]
fn a_save_that_fails_midway_leaves_the_previous_save_whole() {
    let home = tempfile::tempdir().unwrap();
    let save = home.path().join("game.yaml");
    let save_arg = save.display().to_string();
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario()], home.path(), &format!(":save {save_arg}\n"));
    assert_eq!(code, 0, "{err}");
    let good = std::fs::read_to_string(&save).unwrap();
    // A bigger battlefield than one block, saved on a "full disk".
    let grow = "for c = 0, 7 do for r = 0, 5 do world:set_terrain(hex.from_offset(c, r), 'woods') end end\n";
    let input = format!("{grow}:save {save_arg}\nworld:unit('b1').strength\n");
    let (code, out, err) = limited(&["repl", "--scenario", &scenario()], home.path(), &input, true);
    assert_eq!(code, 1, "the save failed, so the session's status is 1\n{out}\n{err}");
    assert!(err.contains(&format!("cannot write {save_arg}")) && err.contains("nothing was saved"), "{err}");
    assert!(out.trim_end().ends_with('4'), "the session goes on after the failed save: {out}");
    assert_eq!(std::fs::read_to_string(&save).unwrap(), good, "the previous save is untouched");
    assert!(leftovers(home.path()).is_empty(), "no temporary file is left: {:?}", leftovers(home.path()));
    // Killed by the signal in the middle of the write: the old save still stands.
    let (code, _, _) = limited(&["repl", "--scenario", &scenario()], home.path(), &input, false);
    assert_ne!(code, 0);
    assert_eq!(std::fs::read_to_string(&save).unwrap(), good, "the previous save is untouched");
    // The save opens.
    let (code, out, err) = sandtable(&["repl", "--scenario", &save_arg], home.path(), "#world:units()\n");
    assert_eq!((code, out.as_str()), (0, "4\n"), "{err}");
}

#[test]
fn what_save_writes_open_reads() {
    let home = tempfile::tempdir().unwrap();
    let big = home.path().join("big.yaml");
    std::fs::write(
        &big,
        format!(
            "name: big\nruleset: {}\nseed: 1\nmap: {{ cols: 200, rows: 200 }}\nsides:\n  blue: {{}}\n  red: {{}}\n",
            root().join("tests/fixtures/repl").display()
        ),
    )
    .unwrap();
    let saved = home.path().join("big_saved.yaml");
    let input = format!(
        "for c = 0, 199 do for r = 0, 199 do world:set_terrain(hex.from_offset(c, r), (c + r) % 2 == 0 and 'woods' or 'hill') end end\n\
         for i = 0, 19999 do world:add_unit{{id = 'u' .. i, side = i % 2 == 0 and 'blue' or 'red', type = 'infantry', hex = hex.from_offset(i % 200, i // 200), props = {{morale = i % 7}}}} end\n\
         :save {s}\n:open {s}\n#world:units()\nworld:unit('u19999').morale\nworld:terrain(hex.from_offset(199, 199))\n",
        s = saved.display()
    );
    let big_arg = big.display().to_string();
    let (code, out, err) = sandtable(&["repl", "--scenario", &big_arg, "--time-limit", "600000"], home.path(), &input);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.ends_with("20000\n0\n\"woods\"\n"), "{out}");
    let text = std::fs::read_to_string(&saved).unwrap();
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(longest <= 130, "long lists are written over several lines (longest line {longest})");

    // Numbers come back exactly; NaN and infinities are refused, naming the unit and field.
    let table = "scripts/republique/open_field.yaml";
    let ok = home.path().join("ok.yaml");
    let nan = home.path().join("nan.yaml");
    let input = format!(
        "u = world:add_unit{{id = 'a', side = 'french', type = 'line_infantry', at = {{x = 10, y = 10}}, facing = 0}}\n\
         u.big, u.tiny, u.third = 1e20, 1e-7, 1/3\n:save {ok}\n\
         u.facing = 0/0\n:save {nan}\nu.facing = 45\nu.morale = math.huge\n:save {nan}\n\
         :open {ok}\nu = world:unit('a')\nu.big == 1e20, u.tiny == 1e-7, u.third == 1/3\n",
        ok = ok.display(),
        nan = nan.display()
    );
    let (code, out, err) = sandtable(&["repl", "--scenario", table], home.path(), &input);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.ends_with("true, true, true\n"), "{out}\n{err}");
    // The Lua API refuses them first (the saver's own check stays as a
    // second guard, unit-tested in src/repl/save.rs).
    assert!(err.contains("facing must be a finite number of degrees, got NaN"), "{err}");
    assert!(err.contains("unit property 'morale' must be a finite number, not inf"), "{err}");
    let saved =
        std::fs::read_to_string(&nan).expect("the refused values never reached the world, so the save is whole");
    assert!(!saved.contains("NaN") && !saved.contains(".nan") && !saved.contains(".inf"), "{saved}");

    // A tabletop unit's lost bases and the traces of where bases stood come back.
    let bases = home.path().join("bases.yaml");
    let input = format!(
        "u = world:add_unit{{id = 'a', side = 'french', type = 'line_infantry', at = {{x = 40, y = 40}}, facing = 30}}
         tabletop.trace(u, 'lost', {{2}})
world:hit(u, {{2}})
before = tabletop.bases(u)[3].x
:save {b}
:open {b}
         u = world:unit('a')
u.strength, tabletop.bases(u)[3].id, tabletop.bases(u)[3].x == before, tabletop.traces('lost')[1].bases[1].id
",
        b = bases.display()
    );
    let (code, out, err) = sandtable(&["repl", "--scenario", table], home.path(), &input);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.ends_with("3, 4, true, 2\n"), "{out}\n{err}");
}

#[test]
fn a_yaml_error_far_along_a_line_is_shown_not_a_panic() {
    let home = tempfile::tempdir().unwrap();
    let wide = home.path().join("wide.yaml");
    let mut text = String::from("name: x\nruleset: great_war\nmap: { cols: 10, rows: 10 }\nterrain:\n  woods: [");
    text.push_str(&"[1, 1], ".repeat(12_000));
    text.push_str("[1, x]]\n");
    std::fs::write(&wide, text).unwrap();
    let wide_arg = wide.display().to_string();
    let (code, _, err) = sandtable(&["run", "scripts/examples/hello.lua", "--scenario", &wide_arg], home.path(), "");
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("wide.yaml:5:96015") && err.contains("[1, x]]"), "{err}");
    assert!(err.contains("too long to show whole"), "{err}");
}

#[test]
fn a_log_that_cannot_be_written_is_an_error() {
    let home = tempfile::tempdir().unwrap();
    let hello = ["run", "scripts/examples/hello.lua", "--scenario", "great_war/bombardment", "--seed", "7"];
    let mut args = hello.to_vec();
    args.extend(["--log", "/dev/full"]);
    let (code, _, err) = sandtable(&args, home.path(), "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write the log to /dev/full: it is a device, not a regular file"), "{err}");

    // The script fails and the log cannot be written: both are said.
    let bad = home.path().join("bad.lua");
    std::fs::write(&bad, "error('the script broke')\n").unwrap();
    let bad_arg = bad.display().to_string();
    let (code, _, err) = sandtable(&["run", &bad_arg, "--log", "/nonexistent/folder/log.jsonl"], home.path(), "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the script broke"), "the script's error is shown: {err}");
    assert!(err.contains("cannot write the log to /nonexistent/folder/log.jsonl"), "{err}");

    // A full disk part way through the log.
    let many = home.path().join("many.lua");
    std::fs::write(&many, "for i = 1, 200 do dice.roll(2, 'd6', 'roll ' .. i) end\n").unwrap();
    let many_arg = many.display().to_string();
    let log = home.path().join("log.jsonl");
    let log_arg = log.display().to_string();
    let args = ["run", &many_arg, "--ruleset", "great_war", "--log", &log_arg];
    let (code, _, err) = limited(&args, home.path(), "", true);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("cannot write the log to {log_arg}")), "{err}");
    // Without a limit it is written whole.
    let (code, _, err) = sandtable(&args, home.path(), "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 200);

    // A shard's JSON sent to a full disk is an error, not a panic or a cut file.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(BIN)
        .args(["sim", "tests/fixtures/odds/attack_trial.lua", "--ruleset", "tests/fixtures/odds", "--trials", "100"])
        .args(["--json", "--shard", "1/2"])
        .current_dir(root())
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write the JSON to standard output") && !err.contains("panicked"), "{err}");
}

#[test]
fn merge_refuses_shards_run_on_edited_files() {
    let dir = tempfile::tempdir().unwrap();
    let rs = dir.path().join("odds");
    std::fs::create_dir_all(&rs).unwrap();
    for f in ["odds.lua", "ruleset.yaml", "attack_trial.lua"] {
        std::fs::copy(root().join("tests/fixtures/odds").join(f), rs.join(f)).unwrap();
    }
    let script = rs.join("attack_trial.lua").display().to_string();
    let rs_arg = rs.display().to_string();
    let shard = |k: &str, name: &str| -> String {
        let (code, out, err) = sandtable(
            &["sim", &script, "--ruleset", &rs_arg, "--trials", "2000", "--seed", "3", "--json", "--shard", k],
            dir.path(),
            "",
        );
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["sources"]["odds/odds.lua"].is_string(), "the shard records its files: {out}");
        let f = dir.path().join(name);
        std::fs::write(&f, out).unwrap();
        f.display().to_string()
    };
    let merge = |a: &str, b: &str| sandtable(&["merge", a, b], dir.path(), "");
    let one = shard("1/2", "one.json");
    let two = shard("2/2", "two.json");
    let (code, _, err) = merge(&one, &two);
    assert_eq!(code, 0, "unchanged files merge: {err}");
    // The trial script edited between the shards.
    std::fs::write(rs.join("attack_trial.lua"), std::fs::read_to_string(&script).unwrap() + "-- edited\n").unwrap();
    let two = shard("2/2", "two.json");
    let (code, _, err) = merge(&one, &two);
    assert_ne!(code, 0);
    assert!(err.contains("different versions of") && err.contains("attack_trial.lua"), "{err}");
    // A ruleset module edited.
    let one = shard("1/2", "one.json");
    let module = rs.join("odds.lua");
    std::fs::write(&module, std::fs::read_to_string(&module).unwrap() + "-- edited\n").unwrap();
    let two = shard("2/2", "two.json");
    let (code, _, err) = merge(&one, &two);
    assert_ne!(code, 0);
    assert!(err.contains("different versions of odds/odds.lua"), "{err}");
}

#[test]
fn a_piped_session_journals_and_resumes_with_its_answers_and_seeds() {
    let home = tempfile::tempdir().unwrap();
    let journal = home.path().join("session.jsonl");
    let j = journal.display().to_string();
    // `:load` without a seed in the file picks one: the journal keeps it.
    let noseed = home.path().join("noseed.yaml");
    let text = std::fs::read_to_string(scenario()).unwrap().replace("seed: 5\n", "");
    std::fs::write(
        &noseed,
        text.replace("ruleset: .", &format!("ruleset: {}", root().join("tests/fixtures/repl").display())),
    )
    .unwrap();
    let input = format!(
        ":load {}\n:seed 77\nskirmish.retreat('b1')\n3\n:force battle infantry infantry\nskirmish.attack('b2', 'r1')\nx = dice.roll(3, 'battle')\n:units\n",
        noseed.display()
    );
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &j], home.path(), &input);
    assert_eq!(code, 0, "{err}");
    let state = "tostring(world:unit('b1').hex), world:unit('r1').strength, tostring(x), dice.roll(4, 'battle'):count('flag')\n";
    let (_, expected, _) = sandtable(&["repl", "--scenario", &scenario()], home.path(), &format!("{input}{state}"));
    // A closed journal has nothing to resume.
    let (code, _, err) = sandtable(&["repl", "--resume", "--journal", &j], home.path(), "");
    assert_eq!(code, 2);
    assert!(err.contains("nothing to resume") && err.contains("ended cleanly"), "{err}");
    // Cut the closing line, as a killed session leaves it, and add an input that never finished.
    let kept: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"closed\""))
        .map(str::to_string)
        .collect();
    std::fs::write(&journal, format!("{}\n{{\"input\":\"crash()\"}}\n{{\"done\":tr", kept.join("\n"))).unwrap();
    // A new session will not write over it.
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &j], home.path(), "");
    assert_eq!(code, 2);
    assert!(err.contains("did not end cleanly") && err.contains("--resume"), "{err}");
    let (code, out, err) = sandtable(&["repl", "--resume", "--journal", &j], home.path(), state);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("replayed 6 inputs"), "{err}");
    assert!(err.contains("not replayed: `crash()`"), "{err}");
    assert!(err.contains("not replayed (they only look or write files): :units"), "{err}");
    let last = |s: &str| s.lines().last().unwrap_or("").to_string();
    assert_eq!(last(&out), last(&expected), "the same battlefield and dice after the resume");
}

/// A REPL in a pseudo-terminal.
struct Pty {
    p: PtySession,
}

impl Pty {
    /// Starts the binary and returns it with what it printed before the first prompt.
    fn spawn(home: &Path, args: &[&str]) -> (Pty, String) {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .current_dir(root())
            .env("HOME", home)
            .env("SANDTABLE_HISTORY", home.join("history"))
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR");
        let p = spawn_with_options(cmd, Options::new().timeout_ms(Some(90_000)).strip_ansi_escape_codes(true))
            .expect("spawns in a pty");
        let mut pty = Pty { p };
        let banner = pty.expect("sandtable> ");
        (pty, banner)
    }

    fn expect(&mut self, text: &str) -> String {
        match self.p.exp_string(text) {
            Ok(before) => before,
            Err(e) => panic!("waiting for {text:?}: {e}"),
        }
    }

    fn line(&mut self, text: &str) {
        self.p.send(text).unwrap();
        self.p.send("\r").unwrap();
        self.p.flush().unwrap();
    }

    /// The unit rows `:units` prints.
    fn units(&mut self) -> Vec<String> {
        self.line(":units");
        self.expect("leader props");
        let text = self.expect("sandtable> ");
        text.lines()
            .map(str::trim_end)
            .filter(|l| l.starts_with("  ") && !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    }
}

#[test]
fn a_killed_repl_resumes_to_the_same_battlefield() {
    let home = tempfile::tempdir().unwrap();
    let sc = scenario();
    let (mut t, _) = Pty::spawn(home.path(), &["repl", "--scenario", &sc, "--time-limit", "600000"]);
    t.line("world:move(world:unit('b1'), hex(2,3))");
    t.expect("true");
    t.line(":force battle infantry infantry");
    t.expect("the next battle rolls come up");
    t.line("skirmish.attack('b2', 'r1')");
    t.expect("sandtable> ");
    t.line("skirmish.retreat('r2')");
    t.expect("choose 1-");
    t.line("3");
    t.expect("sandtable> ");
    t.line("x = dice.roll(5, 'battle')");
    t.expect("sandtable> ");
    t.line("print('XV' .. '=' .. tostring(x))");
    t.expect("XV=");
    let x = t.expect("\n").trim().to_string();
    let before = t.units();
    assert!(before.iter().any(|l| l.contains("r1") && l.contains("1/4")), "the attack hit r1 twice: {before:?}");
    // A decision left open when the process dies: that input is not replayed.
    t.line("skirmish.retreat('b1')");
    t.expect("choose 1-");
    t.p.process_mut().kill(Signal::SIGKILL).expect("killed");
    drop(t);

    let (mut t, banner) = Pty::spawn(home.path(), &["--resume"]);
    assert!(banner.contains("resumed the session") && banner.contains("replayed 6 inputs"), "{banner}");
    assert!(banner.contains("not replayed: `skirmish.retreat('b1')`"), "{banner}");
    let after = t.units();
    assert_eq!(after, before, "the same battlefield after --resume");
    t.line("print('XV' .. '=' .. tostring(x))");
    t.expect("XV=");
    assert_eq!(t.expect("\n").trim(), x, "the same dice");
    t.line(":quit");
    t.p.exp_eof().expect("exits");
    // A clean exit leaves nothing to resume.
    let (code, _, err) = sandtable(&["--resume"], home.path(), "");
    assert_eq!(code, 2);
    assert!(err.contains("nothing to resume"), "{err}");
}
