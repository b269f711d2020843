//! Sweeps (`--sweep module.param=...`, `--arg name=...`): each point equals
//! a run of that point alone, exact sweeps against hand-computed fractions,
//! the paired change against the first point, thread-count invariance, the
//! table, CSV and JSON, and the errors.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use sandtable::analysis::exact::ExactConfig;
use sandtable::analysis::sim::{self, SimConfig};
use sandtable::analysis::sweep::{self, Axis, ExactSweepOutcome, SweepConfig, SweepResult};
use sandtable::analysis::Setup;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sandtable(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sandtable"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run sandtable");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> Value {
    let (ok, out, err) = sandtable(args);
    assert!(ok, "sandtable {args:?} failed:\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

fn setup(script: &str) -> Setup {
    Setup { script: root().join(script), ..Setup::default() }
}

fn run(setup: Setup, axes: Vec<Axis>, trials: u64, threads: usize) -> SweepResult {
    let cfg = SweepConfig { setup, axes, trials, seed: 42, threads, shard: None, progress: false };
    sweep::run(&cfg).expect("sweep").result
}

fn one_run(setup: Setup, trials: u64) -> sim::SimResult {
    let cfg = SimConfig { setup, vs: None, trials, seed: 42, threads: 1, shard: None, progress: false };
    sim::run(&cfg).expect("sim").result
}

fn param(s: &str) -> Axis {
    sweep::parse_sweep(s).expect("sweep")
}

fn arg(s: &str) -> Axis {
    let (fixed, axes) = sweep::split_args(&[s.to_string()]).expect("arg");
    assert!(fixed.is_empty());
    axes.into_iter().next().expect("an axis")
}

/// Each point of a sweep is the run of that point alone, figure for figure:
/// the same trial seeds, the param set as `--set` sets it (though one state
/// per worker serves every point), the top level run again per point.
#[test]
fn each_point_equals_its_own_run() {
    let base = setup("scripts/analysis/ra_bombard.lua");
    let r = run(base.clone(), vec![param("reserve_artillery.crater_at=4,3,2")], 1500, 2);
    assert_eq!(r.points.len(), 3);
    for (p, v) in r.points.iter().zip(["4", "3", "2"]) {
        assert_eq!(r.values(p), [v]);
        let alone = one_run(Setup { set: vec![format!("reserve_artillery.crater_at={v}")], ..base.clone() }, 1500);
        assert_eq!(p.metrics, alone.metrics, "point crater_at={v}");
    }
    // Script inputs: `args.dice` read at the top level.
    let six = setup("scripts/analysis/sixes.lua");
    let r = run(six.clone(), vec![arg("dice=1..3")], 2000, 2);
    for (p, v) in r.points.iter().zip(["1", "2", "3"]) {
        let alone = one_run(Setup { args: vec![format!("dice={v}")], ..six.clone() }, 2000);
        assert_eq!(p.metrics, alone.metrics, "point dice={v}");
    }
}

/// The change against the first point is paired: trial by trial, on the
/// same dice. For whole-number metrics its mean is exactly the difference of
/// the means, and it is counted over the trials of both points.
#[test]
fn the_change_is_paired_and_the_first_point_has_none() {
    let r = run(setup("scripts/analysis/ra_bombard.lua"), vec![param("reserve_artillery.crater_at=2..4")], 3000, 3);
    assert!(r.points[0].change.is_empty());
    for p in &r.points[1..] {
        for (name, a) in &p.metrics {
            let d = &p.change[name];
            assert_eq!(d.n, a.n);
            let want = a.mean() - r.points[0].metrics[name].mean();
            assert!((d.mean() - want).abs() < 1e-12, "{name}: {} vs {want}", d.mean());
        }
    }
    // Craters only get rarer as they need more alike dice, trial by trial:
    // no trial has a crater at 3 that it lacked at 2, so the paired change
    // never exceeds 0 and its sd is that of a yes/no.
    let c = &r.points[1].change["crater"];
    assert!(c.max <= 0.0 && c.min == -1.0, "{c:?}");
}

#[test]
fn a_sweep_is_the_same_on_any_thread_count() {
    let axes = vec![param("reserve_artillery.crater_at=3,4"), arg("x=1,2")];
    let one = run(setup("scripts/analysis/ra_bombard.lua"), axes.clone(), 700, 1);
    let three = run(setup("scripts/analysis/ra_bombard.lua"), axes, 700, 3);
    assert_eq!(one, three);
    assert_eq!(one.points.len(), 4);
    assert_eq!(one.values(&one.points[1]), ["3", "2"], "first axis slowest");
}

/// `exact --arg dice=1..4`: 1 − (5/6)^n at each point, and n/6 sixes.
#[test]
fn exact_sweep_gives_every_points_fractions() {
    let cfg = ExactConfig {
        setup: setup("scripts/analysis/sixes.lua"),
        vs: None,
        seed: 1,
        threads: 2,
        max_leaves: 1_000_000,
        progress: false,
    };
    let ExactSweepOutcome::Done { sweep, .. } = sweep::run_exact(&cfg, &[arg("dice=1..4")]).expect("exact") else {
        panic!("too big")
    };
    let fractions: Vec<String> =
        sweep.points.iter().map(|(_, r)| sandtable::analysis::exact::ratio_str(&r.metrics["any_six"].mean())).collect();
    assert_eq!(fractions, ["1/6", "11/36", "91/216", "671/1296"]);
    let sixes: Vec<String> =
        sweep.points.iter().map(|(_, r)| sandtable::analysis::exact::ratio_str(&r.metrics["sixes"].mean())).collect();
    assert_eq!(sixes, ["1/6", "1/3", "1/2", "2/3"]);
    // The table: decimals, then the fraction, and the exact change.
    let (ok, out, err) = sandtable(&["exact", "scripts/analysis/sixes.lua", "--arg", "dice=1..4"]);
    assert!(ok, "{err}");
    let line = out.lines().find(|l| l.trim_start().starts_with("4 ") && l.contains("671/1296")).expect(&out);
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cells, ["4", "0.5177", "671/1296", "+0.3511", "455/1296"], "{out}");
    assert!(out.contains("change vs 1"), "{out}");
}

#[test]
fn args_reach_the_script_as_numbers_booleans_and_text() {
    let v = json(&[
        "sim",
        "tests/fixtures/odds/args_seen.lua",
        "--arg",
        "n=2.5",
        "--arg",
        "flag=true",
        "--arg",
        "side=allies",
        "--trials",
        "3",
        "--json",
    ]);
    for (name, want) in
        [("n", 2.5), ("n_is_number", 1.0), ("flag", 1.0), ("side_is_text", 1.0), ("missing", 1.0), ("read_only", 1.0)]
    {
        assert_eq!(v["metrics"][name]["mean"], want, "{name}: {}", v["metrics"][name]);
    }
    assert_eq!(v["setup"]["args"], serde_json::json!(["n=2.5", "flag=true", "side=allies"]));
}

#[test]
fn sweep_table_csv_and_json() {
    let args = ["sim", "scripts/analysis/sixes.lua", "--arg", "dice=1..3", "--trials", "2000", "--threads", "2"];
    let (ok, out, err) = sandtable(&args);
    assert!(ok, "{err}");
    for want in [
        "a sweep of dice (3 values), 3 points, 2000 trials at each",
        "common random numbers",
        "any_six (yes/no",
        "change vs 1",
        "95% CI of change",
        "3 points × 2000 trials",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // CSV on stdout: one row per point and metric, every digit.
    let (ok, csv, err) = sandtable(&[&args[..], &["--csv"]].concat());
    assert!(ok, "{err}");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("dice,metric,n,mean,ci95_low,ci95_high,sd,min,max,change,change_ci95_low,change_ci95_high")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 6);
    assert_eq!((rows[0][0], rows[0][1], rows[0][2], rows[0][9]), ("1", "any_six", "2000", ""));
    assert_eq!((rows[5][0], rows[5][1]), ("3", "sixes"));
    let v = json(&[&args[..], &["--json"]].concat());
    let mean: f64 = rows[5][3].parse().unwrap();
    assert_eq!(v["sweep"]["points"][2]["metrics"]["sixes"]["mean"].as_f64(), Some(mean));
    assert_eq!(v["sweep"]["axes"][0], serde_json::json!({ "name": "dice", "kind": "arg", "values": ["1", "2", "3"] }));
    assert_eq!(v["sweep"]["points"][1]["values"], serde_json::json!({ "dice": "2" }));
    assert!(v["sweep"]["points"][1]["change"]["sixes"]["raw"].is_object());
    assert_eq!(v["trials"], 2000);
    // CSV to a file, with the report on stdout.
    let f = std::env::temp_dir().join(format!("sandtable-sweep-{}.csv", std::process::id()));
    let (ok, out, err) = sandtable(&[&args[..], &["--csv", &f.display().to_string()]].concat());
    assert!(ok, "{err}");
    assert!(out.contains("change vs 1") && err.contains("wrote"), "{out}\n{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), csv);
    let _ = std::fs::remove_file(&f);
}

#[test]
fn plain_runs_write_csv_too() {
    let (ok, csv, err) =
        sandtable(&["exact", "scripts/analysis/four_d6_six.lua", "--vs-script", "scripts/analysis/sixes.lua", "--csv"]);
    assert!(ok, "{err}");
    assert_eq!(csv.lines().next(), Some("variant,metric,mean,mean_exact,sd"));
    assert!(csv.contains("A,value,0.5177469135802469,671/1296,"), "{csv}");
    let (ok, csv, err) = sandtable(&["sim", "scripts/analysis/four_d6_six.lua", "--trials", "100", "--csv"]);
    assert!(ok, "{err}");
    assert!(csv.starts_with("metric,n,mean,ci95_low,ci95_high,sd,min,max\nvalue,100,"), "{csv}");
}

#[test]
fn sweep_mistakes_are_explained() {
    let cases: [(&[&str], &str); 6] = [
        (&["--sweep", "reserve_artillery.crater_at=2..9"], "--sweep reserve_artillery.crater_at=8"),
        (&["--sweep", "reserve_artillery.crater=2,3"], "the point reserve_artillery.crater=2, the top level"),
        (&["--sweep", "crater_at=2,3"], "--arg crater_at"),
        (&["--sweep", "reserve_artillery.crater_at=2..x"], "'x' is not a number"),
        (&["--arg", "dice=1,2", "--vs-set", "reserve_artillery.crater_at=4"], "do not go together"),
        (&["--arg", "1x=2"], "not a name"),
    ];
    for (extra, want) in cases {
        let args = [&["sim", "scripts/analysis/ra_bombard.lua", "--trials", "10"][..], extra].concat();
        let (ok, _, err) = sandtable(&args);
        assert!(!ok && err.contains(want), "{extra:?}: {err}");
    }
}
