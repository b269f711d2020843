//! Core behaviour through the library: the sandbox against hostile scripts,
//! scenario errors with file, line and column, transactions, seeds and forced dice.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sandtable::lua::{Host, HostOptions, ScenarioOverrides, ScriptError};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn host() -> Host {
    Host::new(HostOptions { time_ms: Some(300), memory_mb: Some(64), capture_output: true, ..Default::default() })
        .unwrap()
}

fn mini_host() -> Host {
    let h = host();
    h.load_scenario(&fixture("mini/scenario.yaml"), &ScenarioOverrides::default()).unwrap();
    h
}

/// Each hostile script must end with a clear error, quickly, and leave the host usable.
#[test]
fn hostile_scripts_end_cleanly_and_the_host_keeps_working() {
    let cases: &[(&str, &str, &str)] = &[
        ("read a file", "return io.open('/etc/passwd')", "attempt to index nil"),
        ("run a command", "return os.execute('true')", "attempt to call a nil value"),
        ("load code", "return loadstring('return 1')()", "attempt to call a nil value"),
        ("load bytecode", "return string.dump(print)", "attempt to call a nil value"),
        ("endless loop", "while true do end", "time limit"),
        ("loop in pcall", "while true do pcall(function() while true do end end) end", "time limit"),
        ("loop in a coroutine", "coroutine.wrap(function() while true do end end)()", "time limit"),
        ("string.rep bomb", "local s = string.rep('x', 2^30) return #s", "memory limit"),
        ("table growth", "local t = {} local i = 0 while true do i += 1 t[i] = {i} end", "memory limit"),
        ("pattern bomb", "return string.find(string.rep('a', 40), string.rep('a*', 40) .. 'b')", "time limit"),
        ("runaway recursion", "local function f(n) return f(n + 1) + 1 end return f(1)", "stack overflow"),
        (
            "hostile __tostring",
            "error(setmetatable({}, {__tostring = function() while true do end end}))",
            "error object",
        ),
        ("overwrite the API", "hex = nil", "part of the sandtable API"),
        ("overwrite the API with rawset", "rawset(_G, 'dice', {})", "part of the sandtable API"),
        ("change an API table", "dice.roll = function() return 6 end", "readonly"),
        ("change a library", "string.len = nil", "readonly"),
        ("unlock the globals", "setmetatable(_G, nil)", "readonly"),
        ("flood output", "while true do print(string.rep('flood', 100)) end", "output limit"),
        ("require outside", "require('../../etc/passwd')", "no absolute paths"),
        ("collectgarbage", "collectgarbage('stop')", "not available"),
    ];
    let timed = host();
    // Memory bombs run on a host whose time limit cannot stop them first (on
    // a loaded machine filling 64 MiB may take longer than 300 ms): only
    // the memory limit may end them.
    let roomy = Host::new(HostOptions {
        time_ms: Some(60_000),
        memory_mb: Some(64),
        capture_output: true,
        ..Default::default()
    })
    .unwrap();
    for (what, src, expected) in cases {
        let memory = *expected == "memory limit";
        let h = if memory { &roomy } else { &timed };
        let start = Instant::now();
        let err = h.exec(src, "hostile.lua").expect_err(what);
        let text = format!("{}\n{}", err, sandtable::lua::render_error(&err, false));
        assert!(text.contains(expected), "{what}: expected '{expected}' in:\n{text}");
        if *expected == "time limit" {
            assert!(matches!(err, ScriptError::TimeLimit { ms: 300 }), "{what}: {err:?}");
        }
        let most = Duration::from_secs(if memory { 60 } else { 5 });
        assert!(start.elapsed() < most, "{what} took {:?}", start.elapsed());
        h.take_output();
        let ok = h
            .exec("return 1 + 1", "after.lua")
            .unwrap_or_else(|e| panic!("after {what}: {}", sandtable::lua::render_error(&e, false)));
        assert_eq!(ok.len(), 1, "after {what}");
    }
}

#[test]
fn script_errors_name_the_script_and_line() {
    let dir = tempdir();
    let path = dir.join("broken.lua");
    std::fs::write(&path, "local x = 1\nlocal y = nil\nreturn y.field\n").unwrap();
    let h = host();
    let err = h.exec_file(&path).unwrap_err();
    let (file, line) = err.location().expect("located");
    assert!(file.ends_with("broken.lua"), "{file}");
    assert_eq!(line, 3);
    let shown = sandtable::lua::render_error(&err, false);
    assert!(shown.contains("return y.field"), "{shown}");
    assert!(shown.contains("stack traceback"), "{shown}");
}

#[test]
fn errors_raised_by_the_api_point_at_the_calling_line() {
    let h = mini_host();
    let err = h.exec("local a = 1\nworld:hit('nobody', 1)\n", "caller.lua").unwrap_err();
    assert_eq!(err.location().map(|l| l.1), Some(2), "{err}");
    assert!(err.message().contains("no unit with id 'nobody'"), "{}", err.message());
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("sandtable-core-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Writes a scenario beside the mini ruleset and loads it.
fn load_bad(yaml: &str) -> (ScriptError, Host) {
    let dir = tempdir();
    let path = dir.join("bad.yaml");
    std::fs::write(&path, yaml.replace("RULESET", &fixture("mini").display().to_string())).unwrap();
    let h = mini_host();
    let err = h.load_scenario(&path, &ScenarioOverrides::default()).unwrap_err();
    (err, h)
}

const GOOD: &str = "ruleset: RULESET\nmap: { cols: 8, rows: 6 }\nsides:\n  blue: { baseline: bottom }\n  red: { baseline: top }\nterrain:\n  woods: [[3, 2]]\nunits:\n  - { id: b1, side: blue, type: infantry, hex: [1, 4] }\n  - { id: r1, side: red, type: infantry, hex: [2, 1] }\n";

#[test]
fn scenario_errors_name_file_line_and_column_and_change_nothing() {
    let cases: &[(&str, String, (usize, usize), &str)] = &[
        ("syntax", GOOD.replace("{ cols: 8, rows: 6 }", "{ cols: 8, rows: 6"), (2, 0), ""),
        (
            "unknown unit type",
            GOOD.replace("type: infantry, hex: [2, 1]", "type: dragoon, hex: [2, 1]"),
            (10, 32),
            "unknown unit type 'dragoon'",
        ),
        ("unknown terrain", GOOD.replace("woods:", "swamp:"), (7, 0), "unknown terrain 'swamp'"),
        ("hex off the map", GOOD.replace("hex: [2, 1]", "hex: [2, 9]"), (10, 47), "not on the map"),
        ("duplicate id", GOOD.replace("id: r1", "id: b1"), (10, 11), "already exists"),
        ("unknown side", GOOD.replace("side: red", "side: green"), (10, 21), "no side named 'green'"),
        ("unknown field", GOOD.replace("map:", "mapp:"), (2, 1), "mapp"),
        (
            "strength too high",
            GOOD.replace("hex: [2, 1] }", "hex: [2, 1], strength: 9 }"),
            (10, 0),
            "strength 9 must be between 1 and 4",
        ),
    ];
    for (what, yaml, (line, col), text) in cases {
        let (err, h) = load_bad(yaml);
        let ScriptError::Located(l) = &err else { panic!("{what}: not located: {err}") };
        assert!(l.file.ends_with("bad.yaml"), "{what}: {}", l.file);
        eprintln!("{what}: {}:{} {}", l.line, l.column, l.message);
        if *line > 0 {
            assert_eq!(l.line, *line, "{what}: {}", l.message);
        }
        if *col > 0 {
            assert_eq!(l.column, *col, "{what}: {}", l.message);
        }
        assert!(l.message.contains(text), "{what}: {}", l.message);
        // The world is still the mini scenario.
        let ids = h.exec("return world:unit('b2').id", "check.lua").unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(ids.len(), 1, "{what}");
    }
}

#[test]
fn a_failed_transaction_leaves_the_world_as_it_was() {
    let h = mini_host();
    let before = format!("{:?}", h.snapshot().units);
    let r = h.transaction(|h| {
        h.exec("world:hit('r1', 2)\nworld:add_token(hex(3,2), 'crater')\nerror('boom')", "tx.lua").map(|_| ())
    });
    assert!(r.is_err());
    assert_eq!(format!("{:?}", h.snapshot().units), before);
    let ok = h.exec("return world:has_token(hex(3,2), 'crater')", "check.lua").unwrap();
    assert_eq!(format!("{:?}", ok.front()), "Some(Boolean(false))");
}

fn rolls(seed: u64) -> String {
    let h = host();
    h.state.world.borrow_mut().dice.seed(seed);
    let out = h
        .exec(
            "local t = {} for i = 1, 30 do t[i] = dice.roll(2, 'd6').total end return table.concat(t, ',')",
            "seed.lua",
        )
        .unwrap();
    format!("{:?}", out.front())
}

#[test]
fn the_same_seed_replays_and_another_differs() {
    assert_eq!(rolls(42), rolls(42));
    assert_ne!(rolls(42), rolls(43));
}

#[test]
fn scenario_seed_and_override_seed() {
    let h1 = mini_host();
    let h2 = mini_host();
    let a = h1.exec("return dice.roll(10, 'd6').faces", "a.lua").unwrap();
    let b = h2.exec("return dice.roll(10, 'd6').faces", "b.lua").unwrap();
    let show = |h: &Host, v: &mlua::MultiValue| {
        sandtable::lua::load_text(&h.lua, "return table.concat(..., ',')", "=show")
            .unwrap()
            .call::<String>(v.clone())
            .unwrap()
    };
    assert_eq!(show(&h1, &a), show(&h2, &b));
    let h3 = host();
    h3.load_scenario(&fixture("mini/scenario.yaml"), &ScenarioOverrides { seed: Some(99), ..Default::default() })
        .unwrap();
    let c = h3.exec("return dice.roll(10, 'd6').faces", "c.lua").unwrap();
    assert_ne!(show(&h1, &a), show(&h3, &c));
}

#[test]
fn variants_and_set_reach_params() {
    let h = host();
    h.load_scenario(
        &fixture("mini/scenario.yaml"),
        &ScenarioOverrides { variant: Some("heavy".into()), ..Default::default() },
    )
    .unwrap();
    let v = h.exec("return params.mini.dice_per_attack", "p.lua").unwrap();
    assert_eq!(format!("{:?}", v.front()), "Some(Integer(4))");
    h.set_param("mini.dice_per_attack=3").unwrap();
    let v = h.exec("return params.mini.dice_per_attack", "p.lua").unwrap();
    assert_eq!(format!("{:?}", v.front()), "Some(Integer(3))");
    let err = h.set_param("mini.dice_per_attack=12").unwrap_err();
    assert!(err.message().contains("above the maximum"), "{err}");
}

// ---- specs: one test per ruleset ----

/// Runs every spec under `root` (a ruleset folder, or a folder of specs),
/// found by `sandtable::spec::discover` as `sandtable test ROOT` finds them,
/// and fails with every failing case, named by file.
fn run_specs(root: &str) {
    let files = sandtable::spec::discover(&[project(root)]).unwrap();
    assert!(!files.is_empty(), "no specs under {root}");
    let mut failures = Vec::new();
    let mut cases = 0;
    for f in &files {
        let r = sandtable::spec::run_file(f, &HostOptions::default(), &ScenarioOverrides::default());
        cases += r.cases.len();
        for (name, err) in &r.cases {
            if let Some(e) = err {
                failures.push(format!("{} :: {name}\n{}", f.display(), sandtable::lua::render_error(e, false)));
            }
        }
    }
    assert!(failures.is_empty(), "{root}: {} of {cases} spec cases failed:\n{}", failures.len(), failures.join("\n"));
}

fn project(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// One `#[test]` per spec root, named after it: `cargo test --release
/// great_war` runs one ruleset's specs, and a failure names its ruleset.
/// `SPEC_ROOTS` lists the roots for the guard tests below.
macro_rules! spec_tests {
    ($($name:ident: $root:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run_specs($root);
            }
        )*
        const SPEC_ROOTS: &[&str] = &[$($root),*];
    };
}

// A ruleset with a `spec/` folder needs its line here (tricorne, viktory and
// republique each will when they land): `every_ruleset_has_a_spec_test` fails
// until it has one. Spec files within a root are still discovered.
spec_tests! {
    core_api: "tests/spec",
    great_war: "rulesets/great_war",
    tricorne: "rulesets/tricorne",
    republique: "rulesets/republique",
    viktory: "rulesets/viktory",
}

/// Every `rulesets/<x>/` with a `spec/` folder (other than `lib`) has its
/// line in `spec_tests!`.
#[test]
fn every_ruleset_has_a_spec_test() {
    let mut missing = Vec::new();
    for e in std::fs::read_dir(project("rulesets")).unwrap() {
        let dir = e.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if name == "lib" || !dir.join("spec").is_dir() {
            continue;
        }
        if !SPEC_ROOTS.contains(&format!("rulesets/{name}").as_str()) {
            missing.push(format!("    {name}: \"rulesets/{name}\","));
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "rulesets with specs but no spec test; add to spec_tests! in tests/core.rs:\n{}",
        missing.join("\n")
    );
}

/// Every spec `sandtable test` finds (with no paths) runs in one of the
/// spec tests: none is left out because it sits outside every root.
#[test]
fn every_discovered_spec_has_a_spec_test() {
    let covered: Vec<PathBuf> = SPEC_ROOTS
        .iter()
        .flat_map(|r| sandtable::spec::discover(&[project(r)]).unwrap())
        .map(|f| f.canonicalize().unwrap())
        .collect();
    let left_out: Vec<String> = sandtable::spec::discover(&[])
        .unwrap()
        .into_iter()
        .filter(|f| !covered.contains(&f.canonicalize().unwrap()))
        .map(|f| f.display().to_string())
        .collect();
    assert!(left_out.is_empty(), "specs outside every root in spec_tests! (tests/core.rs):\n{}", left_out.join("\n"));
}

#[test]
fn a_failing_spec_reports_its_line_and_unused_forced_dice_fail() {
    let dir = tempdir();
    let path = dir.join("failing_spec.lua");
    std::fs::write(
        &path,
        "it('adds', function()\n  expect(1 + 1):to_be(3)\nend)\nit('forces', function()\n  dice.force('d6', {6})\nend)\nit('passes', function() end)\n",
    )
    .unwrap();
    let r = sandtable::spec::run_file(&path, &HostOptions::default(), &ScenarioOverrides::default());
    assert_eq!((r.passed(), r.failed()), (1, 2));
    let adds = r.cases[0].1.as_ref().unwrap();
    assert_eq!(adds.location().map(|l| l.1), Some(2));
    assert!(adds.message().contains("expected 3, got 2"), "{}", adds.message());
    let forces = r.cases[1].1.as_ref().unwrap();
    assert!(forces.message().contains("forced d6 results never rolled: 6"), "{}", forces.message());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_broken_reload_keeps_the_previous_scripts_and_a_good_one_takes_effect() {
    let dir = tempdir().join("mini");
    copy_dir(&fixture("mini"), &dir);
    let h = host();
    h.load_scenario(&dir.join("scenario.yaml"), &ScenarioOverrides::default()).unwrap();
    h.exec("on('enters', function(u) u.seen = true end)", "sub.lua").unwrap();
    // Defined before the edits; must see the edited module and params afterwards.
    h.exec(
        "function probe() return mini.version and mini.version() or 1, params.mini.dice_per_attack end",
        "probe.lua",
    )
    .unwrap();
    h.exec("world:hit('r1', 1)", "hit.lua").unwrap();
    // Break the module: the reload fails and everything stays as it was.
    std::fs::write(dir.join("mini.lua"), "local mini = {\nreturn mini\n").unwrap();
    let err = h.reload().unwrap_err();
    assert_eq!(err.location().map(|l| l.1), Some(2), "{err}");
    let v = h.exec("return type(mini.attack), world:unit('r1').strength", "after.lua").unwrap();
    assert_eq!(format!("{v:?}"), "MultiValue([String(\"function\"), Integer(2)])");
    // A good edit (and a new default in the YAML) takes effect without losing the board.
    let src = std::fs::read_to_string(fixture("mini/mini.lua")).unwrap();
    std::fs::write(
        dir.join("mini.lua"),
        src.replace("return mini", "function mini.version() return 2 end\nreturn mini"),
    )
    .unwrap();
    let yaml = std::fs::read_to_string(fixture("mini/ruleset.yaml")).unwrap();
    std::fs::write(dir.join("ruleset.yaml"), yaml.replace("default: 2, min: 1", "default: 3, min: 1")).unwrap();
    h.reload().unwrap();
    let v =
        h.exec("return mini.version(), params.mini.dice_per_attack, world:unit('r1').strength", "after.lua").unwrap();
    assert_eq!(format!("{v:?}"), "MultiValue([Integer(2), Integer(3), Integer(2)])");
    let v = h.exec("return probe()", "after.lua").unwrap();
    assert_eq!(format!("{v:?}"), "MultiValue([Integer(2), Integer(3)])");
    h.set_param("mini.dice_per_attack=5").unwrap();
    let v = h.exec("return probe()", "after.lua").unwrap();
    assert_eq!(format!("{v:?}"), "MultiValue([Integer(2), Integer(5)])");
}

/// The API's fast paths (src/lua/fast.rs) must do exactly what the full
/// functions do: the same script, with and without them, prints the same
/// results and the same errors, line for line, and leaves the same world.
#[test]
fn fast_paths_match_the_full_functions() {
    let run = |no_fast_paths: bool| {
        let h = Host::new(HostOptions {
            time_ms: Some(2000),
            memory_mb: Some(64),
            capture_output: true,
            no_fast_paths,
            ..Default::default()
        })
        .unwrap();
        h.load_scenario(&fixture("mini/scenario.yaml"), &ScenarioOverrides::default()).unwrap();
        // Simulation's setting: the fast paths of dice.counts and decide only run with the log off.
        h.state.world.borrow_mut().log.recording = false;
        h.exec_file(&fixture("fast_paths.lua")).unwrap();
        let w = h.state.world.borrow();
        let world = format!("{:?} {:?} {:?}", w.units, w.sides, w.tokens);
        (h.take_output(), world)
    };
    let (fast, fast_world) = run(false);
    let (full, full_world) = run(true);
    assert!(fast.lines().count() > 70, "the probe script ran to its end:\n{fast}");
    for (i, (a, b)) in fast.lines().zip(full.lines()).enumerate() {
        assert_eq!(a, b, "line {} differs", i + 1);
    }
    assert_eq!(fast.lines().count(), full.lines().count());
    assert_eq!(fast_world, full_world);
    // The probes reach both answers and errors.
    assert!(fast.contains("unit_at b1 -> unit b1"), "{fast}");
    assert!(fast.contains("pool unknown side !! world:pool: no side named 'green'"), "{fast}");
    assert!(fast.contains("retreat seen -> true, 1, b1"), "{fast}");
    // A prompt function is called for a message only, in both.
    assert!(fast.contains("decide prompt function -> b, 0\n"), "{fast}");
    assert!(fast.contains("decide failing prompt function -> a\n"), "{fast}");
    assert!(fast.contains("decide 'pick 1': the default \"z\" is not one of the options"), "{fast}");
    assert!(fast.contains("the prompt function must return the prompt's text, not table"), "{fast}");
    // A policy's choice is checked against the options as offered, whatever
    // the policy did to the list it was given.
    assert!(
        fast.contains(
            "decide q appends its choice !! decide 'choose': the policy's choice c is not one of the options (a, b)"
        ),
        "{fast}"
    );
    assert!(
        fast.contains(
            "decide q edits an option !! decide 'choose': the policy's choice z is not one of the options (a, b)"
        ),
        "{fast}"
    );
    assert!(fast.contains("decide q removes its choice -> b\n"), "{fast}");
}

/// A unit handle keeps naming its own unit when the world is replaced: the
/// fast field reads find a handle's slot by its address (`fast::unit_arg`),
/// and a handle from an earlier world must not read whatever unit now stands
/// in its slot. After a reload of the same scenario the old handle follows
/// its unit by id (and sees a loss taken through the new handle); after a
/// scenario without that unit it is gone, as the full `__index` says, with
/// and without fast paths.
#[test]
fn an_old_unit_handle_never_reads_the_unit_now_in_its_slot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for no_fast_paths in [false, true] {
        let h = Host::new(HostOptions { no_fast_paths, capture_output: true, ..Default::default() }).unwrap();
        h.load_scenario(&fixture("mini/scenario.yaml"), &ScenarioOverrides::default()).unwrap();
        // Read often enough to be found by address from then on.
        let first = "OLD = world:unit('b2')
            local s = 0
            for _ = 1, 5 do s += OLD.strength end
            return OLD.id .. ' ' .. OLD.side .. ' ' .. OLD.type .. ' ' .. tostring(OLD.morale) .. ' ' .. s";
        let seen = h.exec(first, "first.lua").unwrap();
        assert_eq!(seen.front().and_then(|v| v.to_string().ok()).as_deref(), Some("b2 blue cavalry 2 15"));
        h.load_scenario(&fixture("mini/scenario.yaml"), &ScenarioOverrides::default()).unwrap();
        let again = "local new = world:unit('b2')
            world:hit(new, 1)
            new.morale = 5
            return OLD.strength .. ' ' .. new.strength .. ' ' .. OLD.morale .. ' ' .. tostring(rawequal(OLD, new))";
        let seen = h.exec(again, "again.lua").unwrap();
        assert_eq!(seen.front().and_then(|v| v.to_string().ok()).as_deref(), Some("2 2 5 false"), "{no_fast_paths}");
        h.load_scenario(&root.join("scripts/great_war/bombardment.yaml"), &ScenarioOverrides::default()).unwrap();
        let err = h.exec("return OLD.strength", "gone.lua").unwrap_err().to_string();
        assert!(err.contains("unit 'b2' no longer exists"), "{no_fast_paths}: {err}");
        let err = h.exec("return OLD.id", "gone.lua").unwrap_err().to_string();
        assert!(err.contains("unit 'b2' no longer exists"), "{no_fast_paths}: {err}");
        // The handles of the new world read their own units.
        let seen = h.exec("return world:unit('c2').type .. ' ' .. world:unit('c1').id", "new.lua").unwrap();
        assert_eq!(seen.front().and_then(|v| v.to_string().ok()).as_deref(), Some("machine_gun c1"));
    }
}

/// Simulation's calls stay on the fast paths: after a first shot has made the
/// unit handles, a hundred more bombardments hand no call to a full function.
#[test]
fn the_reserve_artillery_stays_on_the_fast_paths() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let h = host();
    h.load_scenario(&root.join("scripts/great_war/bombardment.yaml"), &ScenarioOverrides::default()).unwrap();
    h.state.world.borrow_mut().log.recording = false;
    let shot = "for _ = 1, N do
        world:set_pool('allies', 'hq', 4)
        reserve_artillery.fire{ side = 'allies', target = hex(6, 3), card = 'bombard', hq = 4, quiet = true }
      end";
    h.exec(&shot.replace('N', "3"), "=warm up").unwrap();
    h.state.fast_misses.set(0);
    h.exec(&shot.replace('N', "100"), "=shots").unwrap();
    assert_eq!(h.state.fast_misses.get(), 0);
}

/// `sandtable test --coverage` and `--mutate` end to end on the fixture
/// ruleset, whose one spec never checks the retreat. Its spec support module
/// (`spec/support/attack.lua`) is not a spec, not covered and not mutated.
#[test]
fn coverage_and_mutation_of_the_fixture_ruleset() {
    use sandtable::spec::{coverage, mutate, suite};
    let files = suite(&[fixture("mini")], &[]).unwrap();
    assert_eq!(files.len(), 1);
    let scope = coverage::scope_of(&files, false).unwrap().unwrap();
    let runs = coverage::run_files(&files, Some(&scope), &HostOptions::default(), &ScenarioOverrides::default());
    let cov = coverage::total(&runs, Some(&scope));
    assert!(cov.files.keys().all(|f| !f.contains("support")), "{:?}", cov.files.keys());
    let missed: Vec<String> = cov.missed().into_iter().map(|(f, l)| format!("{f}:{l}")).collect();
    assert!(missed.iter().all(|m| m.ends_with("mini.lua:10") || m.ends_with("mini.lua:11")), "{missed:?}");
    assert_eq!(missed.len(), 2, "the retreat's two lines: {missed:?}");
    assert!(cov.lcov().contains("DA:10,0"));

    let settings = mutate::Settings { jobs: 2, budget: Some(Duration::from_secs(10)), changed: None, with_base: false };
    let report = mutate::run(&files, &HostOptions::default(), &ScenarioOverrides::default(), &settings).unwrap();
    let text = report.text();
    // Two dice forced, one rolled: fewer dice leaves a forced die unused.
    assert!(text.contains("mini.lua:9:42  `>` -> `>=`"), "{text}");
    assert!(text.contains("      | if target.alive and roll:count(\"flag\") >= 0 then"), "{text}");
    assert!(text.contains("param mini.hits_on: infantry -> cavalry"), "{text}");
    assert!(text.contains("ruleset.yaml:9:42  terrain.woods.protection: 1 -> 2"), "{text}");
    assert!(text.contains("call removed: `world:retreat(target, target.hex:neighbor(away))`  [not covered"), "{text}");
    assert_eq!(report.counts(mutate::Kind::Code), (1, 7), "{text}");
    assert_eq!(report.counts(mutate::Kind::Data).1, 35, "{text}");
    // The ruleset's files are untouched.
    let src = std::fs::read_to_string(fixture("mini/mini.lua")).unwrap();
    assert!(src.contains("roll:count(\"flag\") > 0"));
}

/// A module of the ruleset that no spec loads counts at 0% in coverage, and
/// its mutants are listed as not covered.
#[test]
fn a_module_no_spec_loads_counts_at_zero() {
    use sandtable::spec::{coverage, suite};
    let files = suite(&[project("rulesets/viktory")], &[]).unwrap();
    let scope = coverage::scope_of(&files, false).unwrap().unwrap();
    assert!(scope.lua.iter().any(|p| p.ends_with("viktory/policies.lua")), "{:?}", scope.lua);
    assert!(scope.lua.iter().any(|p| p.ends_with("lib/rules.lua")) || !scope.lua.is_empty());
    let no_runs: Vec<coverage::FileRun> = Vec::new();
    let cov = coverage::total(&no_runs, Some(&scope));
    let policies = cov.files.iter().find(|(k, _)| k.ends_with("policies.lua")).map(|(_, f)| f.counts()).unwrap();
    assert_eq!(policies.0, 0);
    assert!(policies.1 > 20, "{policies:?}");
}

/// `--specs DIR` runs a folder of specs outside any ruleset against the
/// ruleset named, and such a spec may require a helper beside it.
#[test]
fn extra_specs_run_against_the_named_ruleset_and_require_their_helpers() {
    use sandtable::spec::{run_spec, suite};
    let files = suite(&[fixture("mini")], &[fixture("mini_extra_specs")]).unwrap();
    let extra: Vec<_> = files.iter().filter(|f| f.path.ends_with("mini_extra_specs/retreat_spec.lua")).collect();
    assert_eq!(extra.len(), 1, "{files:?}");
    assert!(extra[0].ruleset.as_ref().unwrap().ends_with("fixtures/mini"));
    let r = run_spec(extra[0], &HostOptions::default(), &ScenarioOverrides::default(), |_| {});
    assert_eq!(r.failed(), 0, "{:?}", r.cases);
    assert!(r.passed() >= 2);
    let err = suite(&[], &[fixture("mini_extra_specs")]).unwrap_err();
    assert!(err.contains("against one ruleset"), "{err}");
}

/// Every fast path has probes in `tests/fixtures/fast_paths.lua`, so the
/// comparison above covers it (adding a fast path means adding its probes).
#[test]
fn every_fast_path_is_probed() {
    let probes = std::fs::read_to_string(fixture("fast_paths.lua")).unwrap();
    let mut calls: Vec<String> = sandtable::lua::raw::world::names().map(|n| format!("world:{n}(")).collect();
    calls.extend(["dice.counts(", "dice.roll(", "decide{", "hex.is_hex("].map(String::from));
    calls.extend(sandtable::lua::raw::tabletop::names().map(|n| format!("tabletop.{n}(")));
    let missing: Vec<&String> = calls.iter().filter(|c| !probes.contains(c.as_str())).collect();
    assert!(missing.is_empty(), "fast paths without probes in tests/fixtures/fast_paths.lua: {missing:?}");
}

/// A chunk may read fields of a global that does not exist yet when it loads
/// (a module of a ruleset its script loads later, or its own global): each
/// call reads the global as it is then, field and all.
#[test]
fn chains_of_globals_set_after_the_chunk_loads_read_their_current_value() {
    let h = mini_host();
    h.exec("function chain() return later.value, later.inner.value, math.max(1, 2) end", "first.lua").unwrap();
    assert!(h.exec("return chain()", "call.lua").is_err(), "later is not set yet");
    h.exec("later = { value = 1, inner = { value = 10 } }", "set.lua").unwrap();
    let v = h.exec("return chain()", "call.lua").unwrap();
    assert_eq!(format!("{v:?}"), "MultiValue([Integer(1), Integer(10), Integer(2)])");
    h.exec("later = { value = 2, inner = { value = 20 } }", "set.lua").unwrap();
    let v = h.exec("return chain()", "call.lua").unwrap();
    assert_eq!(format!("{v:?}"), "MultiValue([Integer(2), Integer(20), Integer(2)])");
}

/// `--changed REV` keeps the lines changed since a git revision, committed
/// or not, and says so plainly outside a git repository.
#[test]
fn changed_lines_come_from_git() {
    use sandtable::spec::scope::Scope;
    let dir = std::env::temp_dir().join(format!("sandtable-changed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rs = dir.join("mini");
    std::fs::create_dir_all(&rs).unwrap();
    for f in ["ruleset.yaml", "mini.lua"] {
        std::fs::copy(fixture("mini").join(f), rs.join(f)).unwrap();
    }
    let err = Scope::of_ruleset(&rs, false).unwrap().changed_since("HEAD").unwrap_err();
    assert!(err.contains("is not inside a git repository"), "{err}");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").arg("-C").arg(&dir).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "add", "."]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "mini"]);
    let src = std::fs::read_to_string(rs.join("mini.lua")).unwrap();
    std::fs::write(rs.join("mini.lua"), src.replace("> 0 then", "> 1 then")).unwrap();
    let scope = Scope::of_ruleset(&rs, false).unwrap().changed_since("HEAD").unwrap();
    let changed = scope.changed.clone().unwrap();
    let lua = rs.join("mini.lua").canonicalize().unwrap();
    assert_eq!(changed.get(&lua).map(|l| l.iter().copied().collect::<Vec<_>>()), Some(vec![9]));
    assert!(scope.keeps(&lua, 9) && !scope.keeps(&lua, 6));
    assert!(!changed.contains_key(&rs.join("ruleset.yaml").canonicalize().unwrap()));
    let err = Scope::of_ruleset(&rs, false).unwrap().changed_since("nosuchrev").unwrap_err();
    assert!(err.contains("git knows no revision 'nosuchrev'"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
