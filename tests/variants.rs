//! Issue 30's walk-through, end to end, as a designer does it with only the
//! installed binary: the built `sandtable` is copied to a temporary folder
//! and run from an empty temporary folder, with an environment that names
//! no source tree (no CARGO_MANIFEST_DIR, no SANDTABLE_PATH or
//! SANDTABLE_PROJECT), so every bundled ruleset it finds is the one built
//! into the binary. docs/variants.md walks a designer through the same loop.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_sandtable");

/// The copied binary and a home of its own.
struct Installed {
    _dir: tempfile::TempDir,
    bin: PathBuf,
    home: tempfile::TempDir,
}

impl Installed {
    fn new() -> Installed {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("sandtable");
        std::fs::copy(BIN, &bin).unwrap();
        Installed { _dir: dir, bin, home: tempfile::tempdir().unwrap() }
    }

    /// Runs the binary in `cwd` with `args`, `stdin` as standard input and
    /// `env` added to a bare environment.
    fn run_with(&self, cwd: &Path, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Ran {
        let mut cmd = Command::new(&self.bin);
        cmd.args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.home.path())
            .env("SANDTABLE_HISTORY", self.home.path().join("history"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = spawn(&mut cmd);
        {
            use std::io::Write as _;
            let mut input = child.stdin.take().unwrap();
            input.write_all(stdin.as_bytes()).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        Ran::from(args, out)
    }

    fn run(&self, cwd: &Path, args: &[&str]) -> Ran {
        self.run_with(cwd, args, "", &[])
    }
}

/// Starts the copied binary. Another test thread that forks while
/// `Installed::new` copies the binary carries the copy's write descriptor
/// into its child until that child execs, and the kernel refuses to run a
/// file open for writing ("Text file busy"): wait for that moment to pass.
fn spawn(cmd: &mut Command) -> std::process::Child {
    for _ in 0..100 {
        match cmd.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            other => return other.unwrap(),
        }
    }
    cmd.spawn().unwrap()
}

/// What a run printed.
struct Ran {
    shown: String,
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn from(args: &[&str], out: Output) -> Ran {
        let ran = Ran {
            shown: format!("sandtable {}", args.join(" ")),
            ok: out.status.success(),
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        // The source tree is out of reach: nothing printed may name it.
        let source = env!("CARGO_MANIFEST_DIR");
        assert!(
            !ran.stdout.contains(source) && !ran.stderr.contains(source),
            "{} names the source tree:\n{}{}",
            ran.shown,
            ran.stdout,
            ran.stderr
        );
        ran
    }

    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// Asserts success and returns stdout and stderr together.
    fn ok(self) -> String {
        assert!(self.ok, "{} failed ({:?}):\n{}\n{}", self.shown, self.code, self.stdout, self.stderr);
        self.all()
    }
}

const CARBINE_YAML: &str = "
# Our change: battle cavalry carry carbines, 1 die at 2 hexes.
unit_types:
  battle_cavalry: { ranged: [1] }
";

const CARBINE_LUA: &str = r#"-- Carbines: cavalry with a ranged table may fire (tricorne's ranged.can_fire
-- refuses all cavalry). Everything else is tricorne's ranged module.
local ranged = require("@tricorne/ranged")
local base_can_fire = ranged.can_fire

function ranged.can_fire(u)
  local s = tricorne.stats(u)
  if s.class == "cavalry" and s.ranged ~= nil then
    if u.ordered ~= true then
      return false, u.id .. " is not ordered this turn: only an ordered unit fires (game:order)"
    end
    return tricorne.may_combat_after_move(u, "ranged")
  end
  return base_can_fire(u)
end

return ranged
"#;

const CARBINE_SPEC: &str = r#"describe("[Carbine] battle cavalry fire 1 die at 2 hexes", function()
  local function board()
    scenario("../scenarios/open_field.yaml")
    world:add_unit{ id = "c1", side = "government", type = "battle_cavalry", hex = hex(5, 8) }.ordered = true
  end

  it("rolls one die at 2 hexes, and a hit removes a block", function()
    board()
    world:add_unit{ id = "j1", side = "jacobite", type = "regular", hex = hex(5, 6) }
    dice.force("battle", { "infantry" })
    expect(ranged.fire{ unit = "c1", target = "j1" }.hits):to_be(1)
    expect(world:unit("j1").strength):to_be(3)
  end)

  it("does not reach 3 hexes", function()
    board()
    world:add_unit{ id = "j1", side = "jacobite", type = "regular", hex = hex(5, 5) }
    expect_error(function() ranged.fire{ unit = "c1", target = "j1" } end, "rule error")
  end)

  it("light cavalry still may not fire", function()
    board()
    world:add_unit{ id = "l1", side = "government", type = "light_cavalry", hex = hex(7, 8) }.ordered = true
    world:add_unit{ id = "j1", side = "jacobite", type = "regular", hex = hex(7, 6) }
    expect_error(function() ranged.fire{ unit = "l1", target = "j1" } end, "cavalry may not engage")
  end)
end)
"#;

const CARBINE_TRIAL: &str = r#"-- Full-strength battle cavalry fire their carbines at a 2-block Jacobite
-- regular 2 hexes away, in the open. How often is it eliminated?
scenario("tricorne_carbine/scenarios/open_field.yaml")

local horse = world:add_unit{ id = "horse", side = "government", type = "battle_cavalry", hex = hex(5, 8) }
horse.ordered = true
local target = world:add_unit{ id = "target", side = "jacobite", type = "regular", hex = hex(5, 6), strength = 2 }

function trial()
  ranged.fire{ unit = horse, target = target, quiet = true }
  return { eliminated = not target.alive, blocks_lost = 2 - target.strength }
end
"#;

/// `sandtable view SCENARIO` run in `cwd`: the first frame its page serves
/// (`frame.json`), read over plain HTTP; the server is stopped after.
fn view_frame(sandtable: &Installed, cwd: &Path, scenario: &str) -> String {
    use std::io::{BufRead as _, Read as _, Write as _};
    let mut cmd = Command::new(&sandtable.bin);
    cmd.args(["view", scenario])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", sandtable.home.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn(&mut cmd);
    // The reader is kept until the end: the server prints more lines.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let fetched = (|| {
        let url = first.split_whitespace().find(|w| w.starts_with("http://"))?;
        let (host, path) = url.trim_start_matches("http://").split_once('/')?;
        let mut conn = std::net::TcpStream::connect(host).ok()?;
        write!(conn, "GET /{path}frame.json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").ok()?;
        let mut reply = String::new();
        conn.read_to_string(&mut reply).ok()?;
        Some(reply)
    })();
    let _ = child.kill();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    fetched.unwrap_or_else(|| {
        panic!("sandtable view {scenario} served no page: {first}{}", String::from_utf8_lossy(&out.stderr))
    })
}

#[test]
fn a_designer_s_variant_from_an_empty_folder_with_only_the_binary() {
    let sandtable = Installed::new();
    let work = tempfile::tempdir().unwrap();
    let at = work.path();

    // The bundled rulesets come with the binary.
    let out = sandtable.run(at, &["rulesets"]).ok();
    for name in ["great_war", "tricorne", "viktory", "republique"] {
        assert!(out.contains(name), "{out}");
    }
    assert!(out.contains("bundled") && out.contains("no project folder"), "{out}");
    let out = sandtable.run(at, &["test", "tricorne/spec/fire_spec.lua"]).ok();
    assert!(out.contains(" passed, 0 failed"), "{out}");

    // A ready variant folder, whose spec passes and tests it.
    let out = sandtable.run(at, &["new", "variant", "tricorne_carbine", "--from", "tricorne"]).ok();
    assert!(out.contains("sandtable.toml") && out.contains("sandtable test tricorne_carbine"), "{out}");
    let dir = at.join("rulesets/tricorne_carbine");
    let yaml = std::fs::read_to_string(dir.join("ruleset.yaml")).unwrap();
    assert!(yaml.contains("extends: tricorne"), "{yaml}");
    assert!(dir.join("README.md").is_file() && dir.join("scenarios/open_field.yaml").is_file());
    let out = sandtable.run(at, &["test", "tricorne_carbine"]).ok();
    assert!(out.contains("1 passed, 0 failed") && !out.contains("warning"), "{out}");
    let out = sandtable.run(at, &["rulesets"]).ok();
    assert!(out.contains("tricorne_carbine") && out.contains("[extends tricorne, bundled]"), "{out}");

    // Nothing is ever overwritten.
    let again = sandtable.run(at, &["new", "variant", "tricorne_carbine", "--from", "tricorne"]);
    assert!(!again.ok && again.all().contains("already exists"), "{}", again.all());
    assert_eq!(std::fs::read_to_string(dir.join("ruleset.yaml")).unwrap(), yaml);

    // The change: data merged by key, and a module wrapping the base's.
    std::fs::write(dir.join("ruleset.yaml"), format!("{yaml}{CARBINE_YAML}")).unwrap();
    std::fs::write(dir.join("ranged.lua"), CARBINE_LUA).unwrap();
    std::fs::write(dir.join("spec/carbine_spec.lua"), CARBINE_SPEC).unwrap();
    let out = sandtable.run(at, &["test", "tricorne_carbine"]).ok();
    assert!(out.contains("4 passed, 0 failed"), "{out}");

    // A spec that sits in the variant but loads the bundled rules is named.
    let stray = dir.join("spec/stray_spec.lua");
    std::fs::write(
        &stray,
        "describe('x', function() it('y', function() scenario('tricorne/open_field.yaml') end) end)\n",
    )
    .unwrap();
    let out = sandtable.run(at, &["test", "tricorne_carbine"]).ok();
    assert!(out.contains("this spec tests tricorne (bundled), not tricorne_carbine"), "{out}");
    std::fs::remove_file(&stray).unwrap();

    // What the change touched: the base's specs against the variant.
    let out = sandtable.run(at, &["test", "tricorne_carbine", "--with-base-specs"]).ok();
    assert!(out.contains("tricorne_carbine breaks 1 of the"), "{out}");
    assert!(out.contains("data_pins_spec.lua :: the unit types"), "{out}");

    // Coverage and mutation measure the variant's own files...
    let out = sandtable.run(at, &["test", "--coverage", "tricorne_carbine"]).ok();
    assert!(out.contains("rulesets/tricorne_carbine/ranged.lua"), "{out}");
    assert!(!out.contains("(bundled)"), "{out}");
    let out = sandtable.run(at, &["test", "--mutate", "tricorne_carbine", "--jobs", "1"]).ok();
    assert!(out.contains("rulesets/tricorne_carbine/ranged.lua") && !out.contains("(bundled)"), "{out}");
    assert!(out.contains("rulesets/tricorne_carbine/ruleset.yaml"), "{out}");
    // --changed: only the lines changed since a git revision.
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=designer", "-c", "user.email=designer@example.org"])
            .args(args)
            .current_dir(at)
            .output()
            .unwrap();
        assert!(ok.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&ok.stderr));
    };
    git(&["init", "-q", "."]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "the carbine"]);
    let changed_yaml = format!("{yaml}{CARBINE_YAML}\nparams:\n  ranged:\n    leader_bonus: {{ default: 2 }}\n");
    std::fs::write(dir.join("ruleset.yaml"), &changed_yaml).unwrap();
    let out = sandtable.run(at, &["test", "--mutate", "tricorne_carbine", "--changed", "--jobs", "1"]).ok();
    assert!(out.contains("mutants: 2 (on lines changed since HEAD)"), "{out}");
    assert!(out.contains("param ranged.leader_bonus: 2 -> 1") && !out.contains("ranged.lua"), "{out}");
    std::fs::write(dir.join("ruleset.yaml"), format!("{yaml}{CARBINE_YAML}")).unwrap();
    // ...and, asked, the base's too (the base's ranged.lua is replaced, not counted).
    let out = sandtable.run(at, &["test", "--coverage", "tricorne_carbine", "--with-base"]).ok();
    assert!(out.contains("(bundled)/rulesets/tricorne/melee.lua"), "{out}");
    assert!(!out.contains("(bundled)/rulesets/tricorne/ranged.lua"), "{out}");

    // The REPL says where the ruleset and each part come from.
    let out = sandtable
        .run_with(
            at,
            &["repl", "--scenario", "rulesets/tricorne_carbine/scenarios/open_field.yaml"],
            ":ruleset\n:help tricorne_carbine\n:help ranged.fire\n:help ranged.can_fire\n",
            &[],
        )
        .ok();
    assert!(out.contains("extends tricorne (bundled)"), "{out}");
    assert!(out.contains("battle_cavalry [tricorne, changed by tricorne_carbine]"), "{out}");
    assert!(out.contains("(bundled)/rulesets/tricorne/ranged.lua") && out.contains("; tricorne, bundled)"), "{out}");
    assert!(out.contains("rulesets/tricorne_carbine/ranged.lua:6; tricorne_carbine, project)"), "{out}");

    // The odds of the change: a trial script of the project's, on the
    // variant's scenario (tricorne's own cavalry could not fire at all).
    std::fs::create_dir_all(at.join("scripts")).unwrap();
    std::fs::write(at.join("scripts/carbine_fire.lua"), CARBINE_TRIAL).unwrap();
    let out = sandtable.run(at, &["sim", "carbine_fire.lua", "--trials", "2000"]).ok();
    assert!(out.contains("2000 trials") && out.contains("eliminated") && out.contains("blocks_lost"), "{out}");
    let vs = ["--vs-set", "ranged.full_strength_bonus=0"];
    let out = sandtable.run(at, &[&["sim", "carbine_fire.lua", "--trials", "2000"][..], &vs].concat()).ok();
    assert!(out.contains("B − A, paired"), "{out}");
    let out = sandtable.run(at, &[&["exact", "carbine_fire.lua"][..], &vs].concat()).ok();
    assert!(out.contains("B − A, exact"), "{out}");
    // From a folder inside the project, as from its top.
    let inside = at.join("rulesets");
    let sweep = ["sim", "carbine_fire.lua", "--trials", "500", "--sweep", "ranged.full_strength_bonus=0..2"];
    let out = sandtable.run(&inside, &sweep).ok();
    assert!(out.contains("a sweep of ranged.full_strength_bonus (3 values)"), "{out}");
    let board = view_frame(&sandtable, &inside, "tricorne_carbine/scenarios/open_field");
    assert!(board.contains("\"error\":null") && board.contains("\"title\":\"Field\""), "{board}");

    // A ruleset from nothing.
    let out = sandtable.run(at, &["new", "ruleset", "skirmish"]).ok();
    assert!(!out.contains("sandtable.toml"), "the project exists already: {out}");
    let out = sandtable.run(at, &["test", "skirmish"]).ok();
    assert!(out.contains("3 passed, 0 failed"), "{out}");
}

#[test]
fn a_shared_folder_adds_rulesets_and_a_same_named_one_shadows_the_bundled_with_a_note() {
    let sandtable = Installed::new();
    let shared = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(shared.path().join("rulesets")).unwrap();
    let rulesets = shared.path().join("rulesets");
    sandtable.run(work.path(), &["new", "ruleset", "great_war", "--dir", rulesets.to_str().unwrap()]).ok();
    sandtable.run(work.path(), &["new", "ruleset", "outpost", "--dir", rulesets.to_str().unwrap()]).ok();
    let env = [("SANDTABLE_PATH", shared.path())];
    let out = sandtable.run_with(work.path(), &["rulesets"], "", &env).ok();
    assert!(out.contains("outpost") && out.contains("tricorne"), "{out}");
    assert!(out.contains("shadows"), "{out}");
    let out = sandtable.run_with(work.path(), &["test", "great_war"], "", &env).ok();
    assert!(out.contains("3 passed, 0 failed") && out.contains("shadows the bundled"), "{out}");
    // A bundled script run on the shadowing ruleset fails, and the note says why.
    for args in [&["sim", "great_war/crater_odds.lua", "--trials", "10"][..], &["exact", "great_war/crater_odds.lua"]] {
        let ran = sandtable.run_with(work.path(), args, "", &env);
        assert!(!ran.ok && ran.stderr.contains("shadows the bundled one"), "{}", ran.all());
    }
    let sweep = ["sim", "great_war/crater_odds.lua", "--trials", "10", "--sweep", "great_war.hits_on=5..6"];
    let ran = sandtable.run_with(work.path(), &sweep, "", &env);
    assert!(ran.stderr.contains("shadows the bundled one"), "{}", ran.all());
}

#[test]
fn a_scenario_names_its_ruleset_by_a_path_from_its_own_folder_and_a_bad_one_is_one_box() {
    let sandtable = Installed::new();
    let work = tempfile::tempdir().unwrap();
    let at = work.path();
    sandtable.run(at, &["new", "ruleset", "outpost", "--dir", "."]).ok();
    let deep = at.join("outpost/scenarios/more");
    std::fs::create_dir_all(&deep).unwrap();
    let text = std::fs::read_to_string(at.join("outpost/scenarios/skirmish.yaml")).unwrap();
    std::fs::write(deep.join("deep.yaml"), text.replace("ruleset: ..", "ruleset: ../..")).unwrap();
    std::fs::write(deep.join("bad.yaml"), text.replace("ruleset: ..", "ruleset: ../../nowhere")).unwrap();
    let script = at.join("name.lua");
    std::fs::write(&script, "print(ruleset.name)\n").unwrap();
    let out = sandtable.run(at, &["run", "name.lua", "--scenario", "outpost/scenarios/more/deep.yaml"]).ok();
    assert!(out.contains("outpost"), "{out}");
    let bad = sandtable.run(at, &["run", "name.lua", "--scenario", "outpost/scenarios/more/bad.yaml"]);
    let err = bad.all();
    assert!(!bad.ok && err.contains("bad.yaml"), "{err}");
    assert_eq!(err.matches("╭─[").count(), 1, "one box:\n{err}");
}
