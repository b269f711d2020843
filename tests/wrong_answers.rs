//! Issue 26, sections 3 and 4: answers that were silently wrong, and calls
//! that were slow or unclear. One test per case, each named for what it
//! guards; the earlier corpus's last case (a scenario path naming a folder)
//! is here too.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use sandtable::analysis::sim::{self, SimConfig};
use sandtable::analysis::{merge, report, Setup};
use sandtable::lua::{Host, HostOptions, ScenarioOverrides};
use sandtable::ruleset::{Ruleset, RulesetError};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sandtable-wrong-answers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs the binary from the project folder with `stdin`; (exit code, stdout, stderr).
fn sandtable(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandtable"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn host_on(scenario: &Path) -> Host {
    let h = Host::new(HostOptions { time_ms: Some(5000), capture_output: true, ..Default::default() }).unwrap();
    h.load_scenario(scenario, &ScenarioOverrides::default()).unwrap();
    h
}

/// The message of a chunk's error, without its traceback.
fn error_of(h: &Host, src: &str) -> String {
    let e = h.exec(src, "case.lua").expect_err(src).message();
    e.lines().next().unwrap_or_default().to_string()
}

// ---- the earlier corpus ----

#[test]
fn a_scenario_path_naming_a_folder_says_it_is_a_folder() {
    let (code, _, err) = sandtable(&["run", "scripts/examples/hello.lua", "--scenario", "scripts/great_war"], "");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("'scripts/great_war' is a folder ("), "{err}");
    assert!(err.contains("not a scenario file"), "{err}");
    // A ruleset's folder says what it is.
    let h = Host::new(HostOptions::default()).unwrap();
    let e = h.load_scenario(&root().join("rulesets/viktory"), &ScenarioOverrides::default()).unwrap_err();
    assert!(e.message().contains("is a ruleset's folder"), "{}", e.message());
    // So do the REPL's :load and a script's scenario(...).
    let (_, _, err) = sandtable(&["repl", "--scenario", "great_war/bombardment"], ":load scripts/viktory\n");
    assert!(err.contains("'scripts/viktory' is a folder"), "{err}");
    let e = error_of(&h, "scenario('scripts/viktory')");
    assert!(e.contains("'scripts/viktory' is a folder"), "{e}");
}

// ---- section 3: silently wrong answers ----

#[test]
fn every_spec_case_starts_from_the_state_its_file_describes() {
    // Three cases load the same scenario; the ruleset's `on("enters", ...)`
    // must react in each, and the case after them starts with no ruleset.
    let r = sandtable::spec::run_file(
        &root().join("tests/spec/case_state_spec.lua"),
        &HostOptions::default(),
        &ScenarioOverrides::default(),
    );
    let failed: Vec<String> =
        r.cases.iter().filter_map(|(n, e)| e.as_ref().map(|e| format!("{n}: {}", e.message()))).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(r.passed(), 4);
}

#[test]
fn a_module_named_like_a_global_is_refused_where_it_is_named() {
    let file = root().join("tests/fixtures/mini/ruleset.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    for global in ["world", "dice", "string", "print", "tabletop", "params"] {
        let bad = text.replace("modules: [mini]", &format!("modules: [mini, {global}]"));
        match Ruleset::parse(&file, &bad) {
            Err(RulesetError::Located(l)) => {
                assert_eq!((l.line, l.column), (4, 17), "{global}: {}", l.message);
                assert!(
                    l.message.contains(&format!("module '{global}' would replace the global `{global}`")),
                    "{}",
                    l.message
                );
            }
            Ok(_) => panic!("module '{global}' was accepted"),
            Err(other) => panic!("not located: {other}"),
        }
    }
}

/// Two shards of a small run as `sim --json` writes them, in files.
fn shard_files() -> Vec<PathBuf> {
    let setup = Setup {
        script: root().join("tests/fixtures/odds/attack_trial.lua"),
        ruleset: Some(root().join("tests/fixtures/odds").display().to_string()),
        ..Setup::default()
    };
    (1..=2)
        .map(|k| {
            let cfg = SimConfig {
                setup: setup.clone(),
                vs: None,
                trials: 1000,
                seed: 5,
                threads: 1,
                shard: Some((k, 2)),
                progress: false,
            };
            let mut v = report::sim_json(&sim::run(&cfg).unwrap().result);
            report::seal(&mut v);
            let f = scratch(&format!("shard{k}.json"));
            std::fs::write(&f, serde_json::to_string_pretty(&v).unwrap()).unwrap();
            f
        })
        .collect()
}

/// Merges the two shards after `edit` changed the second's JSON; the error.
fn merge_edited(files: &[PathBuf], edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&files[1]).unwrap()).unwrap();
    edit(&mut v);
    let edited = scratch("edited.json");
    std::fs::write(&edited, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let e = merge::merge_files(&[&files[0], &edited]).expect_err("an edited shard was merged");
    assert!(e.starts_with(&edited.display().to_string()), "the shard is named: {e}");
    e
}

#[test]
fn merge_refuses_a_shard_whose_figures_were_changed() {
    let files = shard_files();
    // Untouched, they merge into the whole run.
    let merged = merge::merge_files(&files).unwrap();
    assert_eq!(merged.trials(), 1000);
    // An edited count (was `P 10024.70%` in the report).
    let e = merge_edited(&files, |v| v["metrics"]["any"]["raw"]["counts"]["1"] = 50000.into());
    assert!(e.contains("metric 'any': its counts add up to"), "{e}");
    // An edited sum of a yes/no metric (was a mean of 2 328 306.7).
    let e = merge_edited(&files, |v| v["metrics"]["any"]["raw"]["sum"] = "10000000000000000000".into());
    assert!(e.contains("its sums are not the sums of the values it counts"), "{e}");
    // A range past --trials (was "2000 trials (of 1000)").
    let e = merge_edited(&files, |v| v["ranges"] = serde_json::json!([[500, 2000]]));
    assert!(e.contains("run past the 1000 trials of the run"), "{e}");
    // A shard whose ranges disagree with its shard number.
    let e = merge_edited(&files, |v| v["ranges"] = serde_json::json!([[400, 900]]));
    assert!(e.contains("shard 2/2 of 1000 trials runs trials 500..1000"), "{e}");
    // More values than trials, counts and sums edited to agree.
    let e = merge_edited(&files, |v| {
        let raw = &mut v["metrics"]["any"]["raw"];
        raw["n"] = 5000.into();
        raw["counts"]["0"] = (5000 - raw["counts"]["1"].as_u64().unwrap()).into();
    });
    assert!(e.contains("records 5000 values from 500 trials"), "{e}");
    // Figures that agree but are not what sim wrote: the checksum.
    let e = merge_edited(&files, |v| v["metrics"]["hits"]["mean"] = 3.5.into());
    assert!(e.contains("its figures do not match its checksum"), "{e}");
    let e = merge_edited(&files, |v| {
        v.as_object_mut().unwrap().shift_remove("checksum");
    });
    assert!(e.contains("no `checksum`"), "{e}");
}

#[test]
fn test_options_that_gate_ci_are_checked() {
    let cases: &[(&[&str], &str)] = &[
        (&["--mutate", "--mutant-budget", "0"], "'0' is too small: give 1 or more"),
        (&["--mutate", "--jobs", "0"], "'0' is too small: give 1 or more"),
        (&["--mutate", "--threads", "0"], "'0' is too small: give 1 or more"),
        (&["--mutate", "--min-score", "nan"], "'nan' is not a score: give a percentage from 0 to 100"),
        (&["--mutate", "--min-score", "101"], "'101' is not a score"),
        (&["--mutate", "--min-score", "-1"], "takes a number that is not negative"),
        (&["--min-score", "50"], "--mutate"),
        (&["--jobs", "2"], "--mutate"),
    ];
    for (args, words) in cases {
        let mut all = vec!["test"];
        all.extend_from_slice(args);
        all.push("tests/fixtures/mini");
        let (code, _, err) = sandtable(&all, "");
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
    }
    // --coverage on a folder without specs ends as `test` does.
    let empty = scratch("no_specs");
    std::fs::create_dir_all(&empty).unwrap();
    for flag in [None, Some("--coverage")] {
        let mut all = vec!["test"];
        all.extend(flag);
        let shown = empty.display().to_string();
        all.push(&shown);
        let (code, _, err) = sandtable(&all, "");
        assert_eq!(code, Some(2), "{flag:?}: {err}");
        assert!(err.contains("no specs found"), "{flag:?}: {err}");
    }
}

#[test]
fn tabletop_calls_refuse_numbers_that_are_not_measures() {
    let h = host_on(&root().join("scripts/republique/grand_battery.yaml"));
    let cases = [
        (
            "tabletop.travel({x=1, y=1}, 0/0, 5)",
            "tabletop.travel: the bearing must be a finite number of degrees, got NaN",
        ),
        (
            "tabletop.travel({x=1, y=1}, 0, math.huge)",
            "tabletop.travel: the distance must be from -1000000 to 1000000 cm",
        ),
        (
            "tabletop.in_arc({x=0, y=0}, 0, 0, {x=1, y=0})",
            "an arc's angle must be more than 0 and at most 360 degrees, got 0",
        ),
        ("tabletop.in_arc({x=0, y=0}, 0, 720, {x=1, y=0})", "at most 360 degrees, got 720"),
        ("tabletop.in_arc({x=0, y=0}, 0/0, 90, {x=1, y=0})", "tabletop.in_arc: the facing must be a finite number"),
        (
            "tabletop.arc({x=0, y=0}, math.huge, 90)",
            "tabletop.arc: the bearing must be a finite number of degrees, got inf",
        ),
        ("tabletop.angle_between(0/0, 10)", "the first bearing must be a finite number"),
        (
            "tabletop.arc_contains({left={x=0,y=0}, right={x=0,y=0}, bearing=0/0, angle=90}, {x=1, y=1})",
            "an arc's bearing must be a finite number",
        ),
        (
            "tabletop.through({kind='zone', from={x=0, y=0}, bearing=0, width=-5, length=10})",
            "tabletop.through: a zone's width must be from 0 to 1000000 cm, got -5",
        ),
        (
            "tabletop.through({kind='zone', from={x=0, y=0}, bearing=0, width=0/0, length=10})",
            "a zone's width must be from 0 to 1000000 cm, got NaN",
        ),
        (
            "tabletop.areas_crossed({kind='zone', from={x=0, y=0}, bearing=0, width=5, length=math.huge})",
            "a zone's length must be from 0 to 1000000 cm, got inf",
        ),
        (
            "tabletop.through({kind='zone', from={x=0, y=0}, bearing=0/0, width=5, length=5})",
            "a zone's bearing must be a finite number",
        ),
        (
            "tabletop.frontage_zone('fb1', 270, -5)",
            "tabletop.frontage_zone: the range must be from 0 to 1000000 cm, got -5",
        ),
        ("tabletop.centre_line('fb1', 0/0, 50)", "tabletop.centre_line: the bearing must be a finite number"),
        (
            "tabletop.area_in_arc(tabletop.arc({x=0, y=0}, 0, 90), {x=10, y=10, width=1e300, depth=1e300})",
            "a base's width must be from 0 to 1000000 cm, got 1e300",
        ),
        ("tabletop.point(1e9, 0)", "a point's x and y must lie within 1000000 cm"),
        ("tabletop.distance({x=0/0, y=0}, {x=1, y=1})", "a point's x and y must be finite numbers, got (NaN, 0)"),
        ("tabletop.bases('nobody')", "no unit with id 'nobody'"),
    ];
    for (src, words) in cases {
        let e = error_of(&h, src);
        assert!(e.contains(words), "{src}:\n{e}");
    }
    // A unit's id works wherever the unit does, through the fast paths too.
    let same = h
        .exec(
            "local a, b = tabletop.bases('a1'), tabletop.bases(world:unit('a1')) \
             local zone = tabletop.frontage_zone('fb1', 270, 60) \
             return #a == #b and a[1].x == b[1].x and a[#a].y == b[#b].y and a[1].id == 1 and a[#a].id == b[#b].id, \
                    tabletop.distance('a1', 'fb1') == tabletop.distance(world:unit('a1'), world:unit('fb1')), \
                    tabletop.footprint('a1').width == tabletop.footprint(world:unit('a1')).width, \
                    #tabletop.through(zone, {exclude = 'a1'}) == #tabletop.through(zone, {exclude = world:unit('a1')})",
            "ids.lua",
        )
        .unwrap();
    let same: Vec<String> = same.iter().map(|v| format!("{v:?}")).collect();
    assert_eq!(same.join(" "), "Boolean(true) Boolean(true) Boolean(true) Boolean(true)");
}

#[test]
fn viktory_decisions_and_turns_say_what_is_wrong() {
    let h = host_on(&root().join("scripts/viktory/mountain_pass.yaml"));
    // A hole in the answers is refused, not dropped with what follows it.
    let e = error_of(&h, "answers{nil, 'wait'}");
    assert!(e.contains("answers: answer 1 of 2 is nil"), "{e}");
    let e = error_of(&h, "answers{'now', nil, 'wait'}");
    assert!(e.contains("answer 2 of 3 is nil"), "{e}");
    let e = error_of(&h, "answers{'now', x = 'wait'}");
    assert!(e.contains("\"x\" is not a position in a list"), "{e}");
    // A viktory board with no sides: turn.finish() says so.
    let zero = scratch("no_players.yaml");
    std::fs::write(&zero, "name: nobody\nruleset: viktory\nmap: { cols: 5, rows: 5, offset: odd-r }\n").unwrap();
    let h = host_on(&zero);
    let e = error_of(&h, "turn.finish()");
    assert!(e.contains("rule error: there is no player's turn to finish: the scenario has no sides"), "{e}");
    let e = error_of(&h, "turn.start()");
    assert!(e.contains("rule error: there is no player to start a turn for"), "{e}");
}

#[test]
fn the_repl_refuses_what_it_cannot_answer() {
    // A pipe that ends at a decision abandons it and says so.
    let (code, out, _) = sandtable(&["repl", "--scenario", "viktory/mountain_pass"], "decide{options = {'a', 'b'}}\n");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("decision abandoned (the input ended before its answer); the battlefield is as it was"),
        "{out}"
    );
    // :sim --trials 0, and a line of sight from off the map.
    let (code, _, err) = sandtable(
        &["repl", "--scenario", "viktory/mountain_pass"],
        ":sim 1 --trials 0\n:map --los 40,40 a_art\n:map --los a_art -1,0\n",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--trials: '0' is too small: give 1 or more"), "{err}");
    assert!(err.contains(":map --los: hex (40,40) is not on the map (11 columns by 9 rows, odd-r)"), "{err}");
    assert!(err.contains(":map --los: hex (-1,0) is not on the map"), "{err}");
}

#[test]
fn errors_raised_as_tables_read_as_their_fields() {
    let h = host_on(&root().join("scripts/great_war/bombardment.yaml"));
    let e = error_of(
        &h,
        "policy('p', function() error({reason = 'no good option', code = 3}) end)\n\
         decide{id = 'p', options = {'a', 'b'}}",
    );
    assert_eq!(e, "decide: policy 'p': error object: {code = 3, reason = \"no good option\"}");
    let e =
        error_of(&h, "decide{prompt = function() error({why = 'no prompt'}) end, options = {'a'}, side = 'allies'}\n");
    assert!(e.contains("error object: {why = \"no prompt\"}"), "{e}");
    let e = error_of(&h, "answers{{x = 1}}\ndecide{options = {'a', 'b'}}");
    assert!(e.contains("the answer {x = 1} is not one of the options (a, b)"), "{e}");
    let e = error_of(&h, "policy('q', function() return {pick = 'c'} end)\ndecide{id = 'q', options = {'a', 'b'}}");
    assert!(e.contains("the policy's choice {pick = \"c\"} is not one of the options"), "{e}");
}

// ---- section 4: slow or unclear ----

/// A wavy ring of `n` points around (60, 40).
fn wavy_ring(n: usize) -> Vec<sandtable::tabletop::Point> {
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let r = 30.0 + 5.0 * (7.0 * a).sin();
            sandtable::tabletop::Point::new(60.0 + r * a.cos(), 40.0 + r * a.sin())
        })
        .collect()
}

#[test]
fn terrain_outlines_are_checked_by_a_sweep() {
    use sandtable::tabletop::terrain::check_outline;
    use sandtable::tabletop::Point;
    // 100 000 points load (they took over 20 s; the sweep is near-linear,
    // docs/PERFORMANCE.md has the instruction counts).
    check_outline(&wavy_ring(100_000)).unwrap();
    let p = |x: f64, y: f64| Point::new(x, y);
    // The first point again at the end, or a point twice in a row, draws nothing.
    check_outline(&[p(0.0, 0.0), p(10.0, 0.0), p(10.0, 0.0), p(10.0, 10.0), p(0.0, 0.0)]).unwrap();
    // A bow tie crosses itself, a spike doubles back, a pinch touches itself.
    let bow = check_outline(&[p(0.0, 0.0), p(10.0, 10.0), p(10.0, 0.0), p(0.0, 10.0)]).unwrap_err();
    assert!(
        bow.contains(
            "crosses itself: the edge from point 1 (0, 0) to point 2 crosses or touches the edge from point 3"
        ),
        "{bow}"
    );
    let spike = check_outline(&[p(0.0, 0.0), p(10.0, 0.0), p(20.0, 0.0), p(10.0, 0.0), p(5.0, 5.0)]).unwrap_err();
    assert!(spike.contains("crosses itself"), "{spike}");
    let pinch =
        check_outline(&[p(0.0, 0.0), p(5.0, 5.0), p(10.0, 0.0), p(10.0, 10.0), p(5.0, 5.0), p(0.0, 10.0)]).unwrap_err();
    assert!(pinch.contains("crosses itself"), "{pinch}");
    let flat = check_outline(&[p(0.0, 0.0), p(10.0, 0.0), p(0.0, 0.0)]).unwrap_err();
    assert!(flat.contains("at least 3 points"), "{flat}");
    // A wavy ring with one point dragged across its middle and out.
    let mut ring = wavy_ring(2000);
    ring[1000] = p(100.0, 40.5);
    assert!(check_outline(&ring).unwrap_err().contains("crosses itself"));
}

#[test]
fn long_lists_come_back_within_the_budgets_or_name_them() {
    let big = scratch("big_map.yaml");
    let mini = root().join("tests/fixtures/mini").display().to_string();
    std::fs::write(&big, format!("name: big\nruleset: {mini}\nmap: {{ cols: 1000, rows: 1000, offset: odd-r }}\n"))
        .unwrap();
    // They failed with "out of Lua stack".
    let h = Host::new(HostOptions {
        time_ms: Some(60_000),
        memory_mb: Some(512),
        capture_output: true,
        ..Default::default()
    })
    .unwrap();
    h.load_scenario(&big, &ScenarioOverrides::default()).unwrap();
    let out = h
        .exec(
            "local hs = world:hexes() \
             local w = hex(0, 0):within(600) \
             local line = hex.line(hex(0, 0), hex(2000000, 0)) \
             return #hs, hs[1] == hex(0, 0), hs[#hs] == hex.from_offset(999, 999), #w, #line, line[#line] == hex(2000000, 0)",
            "lists.lua",
        )
        .unwrap();
    let out: Vec<String> = out.iter().map(|v| format!("{v:?}")).collect();
    assert_eq!(
        out.join(" "),
        "Integer(1000000) Boolean(true) Boolean(true) Integer(1081801) Integer(2000001) Boolean(true)"
    );
    // Past the memory limit, the error names it.
    let h = Host::new(HostOptions { memory_mb: Some(16), capture_output: true, ..Default::default() }).unwrap();
    h.load_scenario(&big, &ScenarioOverrides::default()).unwrap();
    for src in ["world:hexes()", "hex(0, 0):within(600)", "hex.line(hex(0, 0), hex(2000000, 0))"] {
        let e = error_of(&h, src);
        assert!(e.contains("of the memory limit (16 MiB, --memory-limit)"), "{src}: {e}");
    }
}
