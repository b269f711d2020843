//! Limits: every call whose Rust-side work grows with an argument checks its
//! cost against the host's budgets before it starts; what a script makes the
//! host keep counts against the memory limit; numbers that cannot be stored
//! exactly (or at all) are refused; the analysis commands refuse empty runs
//! and cap their threads; `sim`'s sums stay exact at the extremes.
//!
//! The cases are those of issue 14, section 1 and the numeric parts of
//! section 3. Cases that used to abort the process or eat gigabytes run the
//! binary, so a regression fails one test instead of the whole run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use sandtable::lua::{Host, HostOptions, ScenarioOverrides};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary; returns (exit code, stdout, stderr, time taken).
fn sandtable(args: &[&str]) -> (i32, String, String, Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_sandtable"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run sandtable");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        start.elapsed(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write a test file");
    p.to_string_lossy().into_owned()
}

/// Runs `src` as a script with extra arguments; expects exit 1, quickly,
/// with every one of `expected` in the error.
fn run_fails(src: &str, extra: &[&str], expected: &[&str]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "case.lua", src);
    let mut args = vec!["run", file.as_str()];
    args.extend(extra);
    let (code, _, err, took) = sandtable(&args);
    assert_eq!(code, 1, "{src}: exit {code}\n{err}");
    // The report wraps long lines: compare with the wrapping taken out.
    let flat = err.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
    for e in expected {
        assert!(flat.contains(e), "{src}: expected '{e}' in:\n{err}");
    }
    assert!(took < Duration::from_secs(15), "{src} took {took:?}");
}

fn host() -> Host {
    Host::new(HostOptions { time_ms: Some(5000), memory_mb: Some(64), capture_output: true, ..Default::default() })
        .expect("host")
}

fn scenario_host(path: &str) -> Host {
    let h = host();
    h.load_scenario(&root().join(path), &ScenarioOverrides::default()).expect("scenario");
    h
}

/// Runs `src` on `h` and returns the error's text; panics if it succeeds.
fn error_of(h: &Host, src: &str) -> String {
    let e = h.exec(src, "case.lua").expect_err(src);
    format!("{e}")
}

// ------------------------------------------------------------ section 1

#[test]
fn hex_lists_check_their_size_before_they_are_built() {
    for (src, call) in [
        ("return #hex(0,0):within(1e6)", "h:within"),
        ("return #hex(0,0):within(1e9)", "h:within"),
        ("return #hex(0,0):ring(1e8)", "h:ring"),
        ("return #hex.line(hex(-8e6, 0), hex(8e6, 0))", "hex.line"),
        ("return #hex.crossed(hex(-8e6, 0), hex(8e6, 0))", "hex.crossed"),
        ("return hex.los(hex(-8e6, 0), hex(8e6, 0), function() return false end)", "hex.los"),
        ("return world:los(hex(-8e6, 0), hex(8e6, 0))", "world:los"),
    ] {
        run_fails(src, &[], &[call, "memory limit", "--memory-limit"]);
    }
}

#[test]
fn hex_lists_check_their_time_before_they_are_built() {
    // About 0.3 s of work, under a budget of 100 ms: refused before it starts.
    run_fails("return #hex.line(hex(0, 0), hex(1e6, 0))", &["--time-limit", "100"], &["hex.line", "time limit"]);
    run_fails("return #hex(0, 0):within(1000)", &["--time-limit", "100"], &["h:within", "time limit"]);
    // What fits runs.
    let h = host();
    let v = h.exec("return #hex(0, 0):within(100), #hex.line(hex(0, 0), hex(1000, 0))", "ok.lua").expect("fits");
    assert_eq!(format!("{v:?}"), format!("{:?}", h.exec("return 30301, 1001", "n.lua").expect("numbers")));
}

#[test]
fn dice_sides_are_checked_before_the_faces_are_made() {
    run_fails("dice.define('big', 1e9)", &[], &["dice.define", "at most 250 faces"]);
    run_fails("dice.define('big', 4294967296)", &[], &["dice.define", "at most 250 faces"]);
    run_fails(
        "local t = {} for i = 1, 1e6 do t[i] = i end dice.define('big', t)",
        &[],
        &["dice.define", "1000000 faces", "at most 250"],
    );
    let h = host();
    h.exec("dice.define('d250', 250) return dice.roll(3, 'd250')", "ok.lua").expect("250 faces is fine");
}

#[test]
fn ruleset_dice_sides_are_checked_before_the_faces_are_made() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = "name: huge\ndice:\n  d: 4000000000\n";
    let file = dir.path().join("ruleset.yaml");
    std::fs::write(&file, src).expect("write");
    let start = Instant::now();
    let err = sandtable::ruleset::Ruleset::parse(&file, src).expect_err("too many faces");
    assert!(err.to_string().contains("1 to 250 sides, not 4000000000"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(2));
    let src = "name: unlimited\nlimits: { memory_mb: 0 }\n";
    let err = sandtable::ruleset::Ruleset::parse(&file, src).expect_err("0 MiB");
    assert!(err.to_string().contains("memory_mb must be 1 or more"), "{err}");
    let src = "name: instant\nlimits: { time_ms: 0 }\n";
    let err = sandtable::ruleset::Ruleset::parse(&file, src).expect_err("0 ms");
    assert!(err.to_string().contains("time_ms must be 1 or more"), "{err}");
}

#[test]
fn exact_falls_back_to_sim_within_a_second_or_two() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, body, why) in [
        ("pool", "return dice.roll(5, 'd100').total", "too large to enumerate"),
        ("pool20", "return dice.roll(10, 'd20').total", "too large to enumerate"),
        (
            "deep",
            "local n = 0 for i = 1, 14 do n += dice.roll(1, 'd6').total end return n",
            "likely has more than 5000000 outcome leaves",
        ),
    ] {
        let file = write(dir.path(), &format!("{name}.lua"), &format!("function trial()\n  {body}\nend\n"));
        let (code, out, err, took) = sandtable(&["exact", &file, "--trials", "200", "--threads", "1"]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(err.contains(why) && err.contains("Falling back to sim"), "{name}: {err}");
        assert!(out.contains("200 trials"), "{name}: {out}");
        // The fallback decision itself takes well under a second; the rest
        // is starting Luau and 200 trials, on a machine shared with others.
        assert!(took < Duration::from_secs(8), "{name} took {took:?}");
    }
}

#[test]
fn huge_error_messages_are_cut_for_display() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "err.lua", "error(string.rep('x ', 5e7))");
    let (code, _, err, took) = sandtable(&["run", &file, "--memory-limit", "512"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("more bytes)"), "{}", &err[..err.len().min(2000)]);
    assert!(err.len() < 20_000, "{} bytes of error", err.len());
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn a_trial_may_return_at_most_a_thousand_metrics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(
        dir.path(),
        "many.lua",
        "function trial()\n  local t = {}\n  for i = 1, 100000 do t['m' .. i] = i end\n  return t\nend\n",
    );
    let (code, _, err, took) = sandtable(&["sim", &file, "--trials", "3", "--threads", "1", "--time-limit", "5000"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("more than 1000 metrics"), "{err}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // A thousand is fine, and quick.
    let file = write(
        dir.path(),
        "thousand.lua",
        "function trial()\n  local t = {}\n  for i = 1, 1000 do t['m' .. i] = i end\n  return t\nend\n",
    );
    let (code, _, err, _) = sandtable(&["sim", &file, "--trials", "50", "--json"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn sim_threads_are_capped_and_counts_must_be_positive() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "t.lua", "function trial() return dice.roll(1, 'd6'):count(6) end\n");
    let (code, out, err, _) = sandtable(&["sim", &file, "--trials", "3", "--threads", "100000"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 trials on 3 threads"), "{out}");
    for (flag, value) in [("--trials", "0"), ("--threads", "0"), ("--memory-limit", "0"), ("--time-limit", "0")] {
        let (code, _, err, _) = sandtable(&["sim", &file, flag, value]);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        assert!(err.contains("1 or more"), "{flag} {value}: {err}");
    }
    let (code, _, err, _) = sandtable(&["exact", &file, "--trials", "0"]);
    assert_eq!(code, 2, "{err}");
    for flag in ["--memory-limit", "--time-limit"] {
        let (code, _, err, _) = sandtable(&["run", &file, flag, "0"]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(err.contains("1 or more"), "{flag}: {err}");
    }
}

#[test]
fn logged_rolls_count_against_the_memory_limit() {
    run_fails(
        "for i = 1, 3e6 do dice.roll(1, 'd6') end",
        &["--memory-limit", "64", "--time-limit", "60000"],
        &["memory limit", "events in the log", "--memory-limit"],
    );
}

#[test]
fn marks_notes_and_units_count_against_the_memory_limit() {
    let limit = ["--memory-limit", "16", "--time-limit", "60000"];
    run_fails("for i = 1, 1e8 do world:mark(hex(0, 0), 'x') end", &limit, &["world:mark", "memory limit", "marks"]);
    run_fails("for i = 1, 1e8 do world:note('n') end", &limit, &["world:note", "memory limit"]);
    run_fails(
        "for i = 1, 1e8 do tabletop.mark({{x = 0, y = 0}, {x = 1, y = 1}}, 'x') end",
        &limit,
        &["tabletop.mark", "memory limit"],
    );
    run_fails("world:note(string.rep('x', 1e6))", &[], &["world:note", "the note is", "64 KiB"]);
    run_fails("world:mark(hex(0, 0), string.rep('x', 1e6))", &[], &["world:mark", "64 KiB"]);
    // The host stays usable: clearing the marks makes room again.
    let h = host();
    let e = error_of(&h, "for i = 1, 1e8 do world:mark(hex(0, 0), 'x') end");
    assert!(e.contains("memory limit"), "{e}");
    h.exec("world:clear_marks() world:mark(hex(0, 0), 'ok') return #world:marks()", "after.lua").expect("room again");
}

// ------------------------------------------------------------ section 3 (numbers)

#[test]
fn sim_sums_are_exact_at_the_extremes_of_the_range() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "far.lua", "function trial()\n  return dice.roll(1, 'd2'):count(2) * 1e12\nend\n");
    let (code, out, err, _) = sandtable(&["sim", &file, "--trials", "100000", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let m = &v["metrics"]["value"];
    let sd = m["sd"].as_f64().expect("sd");
    assert!((sd - 5e11).abs() < 1e10, "sd {sd}: {m}");
    let (lo, hi) = (m["ci95"][0].as_f64().expect("lo"), m["ci95"][1].as_f64().expect("hi"));
    assert!(hi - lo > 1e9 && lo < 5e11 && 5e11 < hi, "[{lo}, {hi}]");
    // Outside the range: refused, naming the metric.
    let file = write(dir.path(), "over.lua", "function trial()\n  return 2e12\nend\n");
    let (code, _, err, _) = sandtable(&["sim", &file, "--trials", "10"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("within ±1e12"), "{err}");
}

#[test]
fn hex_coordinates_round_trip_or_are_refused() {
    let h = host();
    let e = error_of(&h, "return hex(16777217, 0)");
    assert!(e.contains("hex(q, r)") && e.contains("8388608"), "{e}");
    for src in [
        "return hex(8388608, 1)",
        "return (hex(8388608, 0) * 2):neighbor(1)",
        "return hex(8388608, 0):neighbor(1)",
        "return hex.round(1e300, 0)",
        "return hex.round(0/0, 0)",
        "return hex(0/0, 0)",
        "return hex(math.huge, 0)",
        "return hex.from_offset(1e9, 0)",
    ] {
        let e = error_of(&h, src);
        assert!(e.contains("not a hex") || e.contains("off the grid") || e.contains("from -1e9"), "{src}: {e}");
    }
    let v =
        h.exec("return tostring(hex(8388608, -8388608)), hex.is_hex(vector.create(16777216, 0, -16777216))", "ok.lua");
    let v = v.expect("in range");
    assert_eq!(format!("{v:?}"), format!("{:?}", h.exec("return '(8388608,-8388608)', false", "x.lua").expect("x")));
}

#[test]
fn nan_and_infinity_never_become_world_state() {
    let h = scenario_host("tests/fixtures/mini/scenario.yaml");
    for (src, expected) in [
        ("world:unit('b1').morale = 0/0", "finite"),
        ("world:unit('b1'):set('morale', math.huge)", "finite"),
        ("world:set_pool('blue', 'hq', 0/0)", "world:set_pool: a pool must be a whole, finite number, not NaN"),
        (
            "world:add_pool('blue', 'hq', math.huge)",
            "world:add_pool: the change must be a whole, finite number, not inf",
        ),
        ("world:add_pool('blue', 'hq', 1.5)", "not 1.5"),
        ("world:place(world:unit('b1'), hex(0/0, 0))", "not a hex"),
    ] {
        let e = error_of(&h, src);
        assert!(e.contains(expected), "{src}: {e}");
    }
    let h = scenario_host("scripts/republique/open_field.yaml");
    h.exec("world:add_unit{ id = 'a', side = 'french', type = 'line_infantry', at = { x = 10, y = 10 } }", "a.lua")
        .expect("a tabletop unit");
    for src in [
        "world:unit('a').facing = 0/0",
        "world:unit('a').facing = math.huge",
        "world:place(world:unit('a'), {x = 0/0, y = 1})",
        "world:place(world:unit('a'), {x = 1, y = 1, facing = -math.huge})",
        "world:add_unit{ id = 'b', side = 'french', type = 'line_infantry', at = { x = 10, y = 1/0 } }",
        "world:add_unit{ id = 'b', side = 'french', type = 'line_infantry', at = { x = 10, y = 20 }, facing = 0/0 }",
    ] {
        let e = error_of(&h, src);
        assert!(e.contains("finite"), "{src}: {e}");
    }
}
