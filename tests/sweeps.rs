//! Sweeps (`--sweep module.param=...`, `--arg name=...`): each point equals
//! a run of that point alone, exact sweeps against hand-computed fractions,
//! the paired change against the first point, thread-count invariance, the
//! table, CSV and JSON, and the errors.

mod common;

use sandtable::analysis::exact::ExactConfig;
use sandtable::analysis::sim::{self, SimConfig};
use sandtable::analysis::sweep::{self, Axis, ExactSweepOutcome, SweepConfig, SweepResult};
use sandtable::analysis::Setup;

use common::{json, root, sandtable};

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
        epsilon: None,
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

/// A trial that fails at one point names the point, and the command it
/// prints replays that trial alone: the point's values in place of the
/// `--sweep` and the swept `--arg` (a fixed `--arg` kept).
#[test]
fn a_failed_point_prints_a_replay_command_that_runs() {
    let script = "tests/fixtures/fails_at_three.lua";
    let (ok, _, err) = sandtable(&[
        "sim",
        script,
        "--sweep",
        "reserve_artillery.crater_at=2,3",
        "--ruleset",
        "great_war",
        "--arg",
        "n=1..4",
        "--arg",
        "side=allies",
        "--trials",
        "200",
        "--seed",
        "3",
    ]);
    assert!(!ok && err.contains("in the point reserve_artillery.crater_at=2, n=3, trial "), "{err}");
    let replay = err.lines().skip_while(|l| !l.ends_with("replay it alone with")).nth(1).expect(&err).trim();
    let words: Vec<&str> = replay.split(' ').collect();
    assert_eq!(words[..2], ["sandtable", "sim"], "{replay}");
    assert!(!replay.contains("--sweep") && !replay.contains("n=1..4"), "{replay}");
    assert!(replay.contains("--arg side=allies") && replay.contains("--set reserve_artillery.crater_at=2 --arg n=3"));
    let (ok, out, again) = sandtable(&words[1..]);
    assert!(
        !ok && again.contains("no sixes at n = 3") && !again.contains("--trial replays"),
        "{replay}:\n{out}{again}"
    );
}

// ------------------------------------------------------------ shards

/// A sweep split into 4 shards, run as 4 processes at once (`xargs -P 4`)
/// and merged, is the unsharded run to the last digit (its JSON byte for
/// byte, the trials to look at included); merge refuses a shard of another
/// sweep and a single run's shard among a sweep's.
#[test]
fn a_sweep_in_four_parallel_shards_merges_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let sweep = |values: &str| -> Vec<String> {
        let s = ["sim", "scripts/analysis/ra_bombard.lua", "--sweep", values, "--trials", "4001", "--seed", "9"];
        s.iter().map(|w| w.to_string()).collect()
    };
    let args = sweep("reserve_artillery.crater_at=2..5");
    let (ok, whole, err) = sandtable(&[args.iter().map(String::as_str).collect::<Vec<_>>(), vec!["--json"]].concat());
    assert!(ok, "{err}");
    let line = format!(
        "seq 1 4 | xargs -P 4 -I {{}} sh -c 'exec \"$0\" {} --shard {{}}/4 --json > {d}/part-{{}}.json' \"$BIN\"",
        args.join(" ")
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &line])
        .env("BIN", env!("CARGO_BIN_EXE_sandtable"))
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
    let part = |k: u32| format!("{d}/part-{k}.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(part(2)).unwrap()).unwrap();
    assert_eq!((v["shard"].as_str(), v["ranges"][0][0].as_u64()), (Some("2/4"), Some(1000)), "{v}");
    let (ok, merged, err) = sandtable(&["merge", &part(3), &part(1), &part(4), &part(2), "--json"]);
    assert!(ok, "{err}");
    assert_eq!(merged, whole, "the merged shards differ from the whole sweep");
    let (ok, text, err) = sandtable(&["merge", &part(1), &part(2), &part(3), &part(4)]);
    assert!(ok && text.contains("4001 trials") && text.contains("crater_at"), "{err}{text}");
    // ... naming the trials to look at as the whole sweep does, each at its point.
    let (ok, whole_text, err) = sandtable(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    let look_at = |t: &str| t.split_once("Trials to look at").map(|(_, l)| l.to_string());
    assert!(look_at(&whole_text).is_some_and(|l| l.contains("--set reserve_artillery.crater_at=")), "{whole_text}");
    assert_eq!(look_at(&text), look_at(&whole_text), "{text}");
    let (ok, _, err) = sandtable(&["merge", &part(1), &part(2)]);
    assert!(ok && err.contains("the files cover 2000 of 4001 trials at each point"), "{err}");

    // Another sweep's shard, and a single run's.
    let other = sweep("reserve_artillery.crater_at=2..4");
    let (ok, out, err) =
        sandtable(&[other.iter().map(String::as_str).collect::<Vec<_>>(), vec!["--shard", "2/4", "--json"]].concat());
    assert!(ok, "{err}");
    std::fs::write(format!("{d}/other.json"), out).unwrap();
    let (ok, _, err) = sandtable(&["merge", &part(1), &format!("{d}/other.json")]);
    assert!(
        !ok && err.contains(
            "come from different sweeps: reserve_artillery.crater_at=2,3,4 against reserve_artillery.crater_at=2,3,4,5"
        ),
        "{err}"
    );
    let (ok, out, err) = sandtable(&[
        "sim",
        "scripts/analysis/ra_bombard.lua",
        "--trials",
        "4001",
        "--seed",
        "9",
        "--shard",
        "2/4",
        "--json",
    ]);
    assert!(ok, "{err}");
    std::fs::write(format!("{d}/run.json"), out).unwrap();
    let (ok, _, err) = sandtable(&["merge", &part(1), &format!("{d}/run.json")]);
    assert!(!ok && err.contains("run.json: the output of a single run, not of a sweep"), "{err}");
    let (ok, _, err) = sandtable(&["merge", &format!("{d}/run.json"), &part(1)]);
    assert!(!ok && err.contains("part-1.json: the output of a sweep"), "{err}");
}

// ------------------------------------------------------------ show me that trial

/// The lines of "Trials to look at" in a report: (what, trial, command).
fn look_at(out: &str) -> Vec<(String, u64, String)> {
    let from = out.find("Trials to look at").unwrap_or_else(|| panic!("no trials to look at:\n{out}"));
    let lines: Vec<&str> = out[from..].lines().skip(1).collect();
    lines
        .chunks(2)
        .map_while(|pair| {
            let (what, trial) = pair[0].trim().rsplit_once(": see trial ")?;
            Some((what.to_string(), trial.parse().ok()?, pair.get(1)?.trim().to_string()))
        })
        .collect()
}

/// Runs a replay command the report printed (`sandtable sim ...`, words
/// without quotes).
fn run_printed(command: &str) -> (bool, String, String) {
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(words[0], "sandtable", "{command}");
    sandtable(&words[1..])
}

/// The report names, per metric, the first trials with its largest and
/// smallest values and the share of trials with them; the printed command
/// replays such a trial with its rolls (with reasons), the decision it
/// asked (options, default, answer), the rule's notes hex by hex (the
/// script's `quiet = not explaining`) and the metrics it returned; the JSON
/// gives the same trials, whatever the threads.
#[test]
fn the_report_offers_the_extreme_trials_and_explain_replays_them() {
    let args = ["sim", "scripts/analysis/ra_open.lua", "--trials", "3000"];
    let (ok, out, err) = sandtable(&args);
    assert!(ok, "{err}");
    let look = look_at(&out);
    let whats: Vec<&str> = look.iter().map(|(w, _, _)| w.as_str()).collect();
    assert!(whats.contains(&"figures_lost = 4, its largest (1.80% of trials)"), "{whats:?}");
    assert!(whats.contains(&"eliminated = yes (1.80% of trials)"), "{whats:?}");
    let (_, trial, command) = look.iter().find(|(w, _, _)| w.starts_with("figures_lost = 4")).unwrap();
    assert_eq!(command, &format!("sandtable sim scripts/analysis/ra_open.lua --seed 1 --trial {trial} --explain"));
    let mut firsts = Vec::new();
    for threads in ["1", "2"] {
        let v = json(&[&args[..], &["--json", "--threads", threads]].concat());
        let m = &v["metrics"]["figures_lost"];
        assert_eq!((m["max"].as_f64(), m["max_trial"].as_u64()), (Some(4.0), Some(*trial)), "{m}");
        firsts.push((m["min_trial"].clone(), v["metrics"]["crater"]["max_trial"].clone()));
    }
    assert_eq!(firsts[0], firsts[1]);

    let (ok, out, err) = run_printed(command);
    assert!(ok, "{err}");
    assert!(out.starts_with(&format!("scripts/analysis/ra_open.lua: trial {trial} (dice seed 0x")), "{out}");
    assert!(out.contains("roll 4 targeting for reserve artillery targeting: "), "{out}");
    assert!(out.contains("options: (6,4) | (7,4); default (6,4)\n        answer: (6,4) [default]"), "{out}");
    assert!(out.contains("on target (6,5): 4 dice ["), "{out}");
    let metrics = &out[out.find("\nmetrics:\n").expect(&out)..];
    let rows: Vec<Vec<&str>> = metrics.lines().skip(2).map(|l| l.split_whitespace().collect()).collect();
    assert!(rows.contains(&vec!["figures_lost", "4"]) && rows.contains(&vec!["eliminated", "1"]), "{out}");
    // The same trial as JSON: the events as `run --log` writes them.
    let v = json(&[
        "sim",
        "scripts/analysis/ra_open.lua",
        "--seed",
        "1",
        "--trial",
        &trial.to_string(),
        "--explain",
        "--json",
    ]);
    assert_eq!(v["metrics"]["figures_lost"], 4.0, "{v}");
    assert!(v["events"].as_array().unwrap().iter().any(|e| e["event"] == "decision" && e["choice"] == "(6,4)"), "{v}");
    // --explain replays one trial only.
    let (ok, _, err) = sandtable(&["sim", "scripts/analysis/ra_open.lua", "--explain"]);
    assert!(!ok && err.contains("--trial"), "{err}");
    // ... and a story is not a table or a chart: asking for one is an error, not silently nothing.
    for extra in [["--csv", "-"], ["--plot", "explain.svg"]] {
        let mut args = vec!["sim", "scripts/analysis/ra_open.lua", "--trial", "3", "--explain"];
        args.extend(extra);
        let (ok, _, err) = sandtable(&args);
        assert!(!ok && err.contains("--explain") && err.contains(extra[0]), "{extra:?}: {err}");
    }
    assert!(!std::path::Path::new("explain.svg").exists());
}

/// In a sweep the trials to look at name the point with the largest and
/// the smallest value, and the command carries that point's `--set` and
/// `--arg` (a fixed `--arg` kept): it replays the same trial.
#[test]
fn a_sweeps_extreme_trials_replay_at_their_point() {
    let (ok, out, err) = sandtable(&[
        "sim",
        "scripts/analysis/sixes.lua",
        "--ruleset",
        "great_war",
        "--sweep",
        "reserve_artillery.crater_at=3,4",
        "--arg",
        "dice=1..6",
        "--trials",
        "500",
    ]);
    assert!(ok, "{err}");
    let look = look_at(&out);
    let (what, trial, command) = look.iter().find(|(w, _, _)| w.starts_with("sixes = ")).unwrap();
    assert!(what.starts_with("sixes = 4, its largest, at crater_at=3, dice=6 ("), "{what}");
    let tail = format!("--set reserve_artillery.crater_at=3 --arg dice=6 --trial {trial} --explain");
    assert!(command.ends_with(&tail) && !command.contains("--sweep"), "{command}");
    let (ok, out, err) = run_printed(command);
    assert!(ok, "{err}");
    assert!(out.contains("roll 6 d6: ") && out.lines().any(|l| l.split_whitespace().eq(["sixes", "4"])), "{out}");
}

// ------------------------------------------------------------ charts

/// Runs `sandtable ARGS --plot FILE.svg` and returns the SVG.
fn plot(args: &[&str], name: &str) -> String {
    let f = std::env::temp_dir().join(format!("sandtable-{name}-{}.svg", std::process::id()));
    let fs = f.display().to_string();
    let (ok, _, err) = sandtable(&[args, &["--plot", &fs]].concat());
    assert!(ok, "{args:?}: {err}");
    let svg = std::fs::read_to_string(&f).expect("svg");
    let _ = std::fs::remove_file(&f);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
    svg
}

/// The texts of the `<text class="CLASS" ...>` elements, in order.
fn texts<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    let open = format!("<text class=\"{class}\"");
    svg.match_indices(&open)
        .map(|(i, _)| {
            let rest = &svg[i..];
            let start = rest.find('>').unwrap() + 1;
            &rest[start..rest.find("</text>").unwrap()]
        })
        .collect()
}

fn count(svg: &str, what: &str) -> usize {
    svg.matches(what).count()
}

/// Tick labels at round numbers: evenly spaced by 1, 2 or 5 × 10^k.
fn assert_round(labels: &[&str]) {
    let vals: Vec<f64> =
        labels.iter().map(|l| l.trim_end_matches('%').parse().unwrap_or_else(|_| panic!("tick {l:?}"))).collect();
    assert!(vals.len() >= 2, "{labels:?}");
    let step = vals[1] - vals[0];
    let mag = 10f64.powf(step.log10().floor());
    let m = (step / mag * 1e6).round() / 1e6;
    assert!([1.0, 2.0, 5.0].contains(&m), "step {step} in {labels:?}");
    for (i, v) in vals.iter().enumerate() {
        assert!((v - (vals[0] + step * i as f64)).abs() < step * 1e-6, "{labels:?}");
        assert!(((v / step).round() * step - v).abs() < step * 1e-6, "{v} is not a multiple of {step}: {labels:?}");
    }
}

/// Splits the y tick labels of a chart into its panels' runs (each panel's
/// ticks go up from its bottom).
fn tick_runs<'a>(labels: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut runs: Vec<Vec<&str>> = Vec::new();
    let mut last = f64::NEG_INFINITY;
    for l in labels {
        let v: f64 = l.trim_end_matches('%').parse().unwrap();
        if v <= last || runs.is_empty() {
            runs.push(Vec::new());
        }
        runs.last_mut().unwrap().push(l);
        last = v;
    }
    runs
}

#[test]
fn a_sweep_of_one_input_draws_lines_with_bands() {
    let svg = plot(&["sim", "scripts/analysis/sixes.lua", "--arg", "dice=1..6", "--trials", "2000"], "sweep-lines");
    assert_eq!(texts(&svg, "title"), ["sixes.lua, a sweep of dice — 2000 trials at each point"]);
    assert_eq!(
        texts(&svg, "panel-title"),
        ["any_six: mean and 95% interval against dice", "sixes: mean and 95% interval against dice"]
    );
    assert_eq!(count(&svg, "class=\"band\""), 2);
    assert_eq!(count(&svg, "class=\"line\""), 2);
    assert_eq!(count(&svg, "class=\"point\""), 12);
    assert_eq!(texts(&svg, "xtick"), ["1", "2", "3", "4", "5", "6", "1", "2", "3", "4", "5", "6"]);
    assert_eq!(texts(&svg, "xlabel"), ["dice", "dice"]);
    assert_eq!(texts(&svg, "ylabel"), ["P(any_six)", "mean sixes"]);
    let runs = tick_runs(&texts(&svg, "ytick"));
    assert_eq!(runs.len(), 2);
    assert!(runs[0].iter().all(|t| t.ends_with('%')), "{runs:?}");
    for r in &runs {
        assert_round(r);
    }
    // exact: the same lines without bands.
    let svg = plot(&["exact", "scripts/analysis/sixes.lua", "--arg", "dice=1..4"], "sweep-exact");
    assert_eq!(count(&svg, "class=\"band\""), 0);
    assert_eq!(count(&svg, "class=\"point\""), 8);
    assert!(svg.contains("<title>any_six: 51.77"), "the 4-dice point's value, 671/1296: {svg}");
}

/// The enfilade-against-angle chart of rulesets/republique/README.md, as
/// its command draws it: one panel per metric against the angle, the
/// plateau of enfilade from 65 to 115 degrees, round ticks; the checked-in
/// SVG is what the command draws.
#[test]
fn the_enfilade_chart_shows_the_plateau() {
    let args = ["exact", "scripts/republique/enfilade_angle.lua", "--arg", "angle=0..180:5"];
    let svg = plot(&args, "enfilade");
    assert_eq!(texts(&svg, "title"), ["enfilade_angle.lua, a sweep of angle — exact"]);
    let metrics = ["any_effect", "bases_lost", "enfilade", "morale_hits", "points"];
    let titles: Vec<String> = metrics.iter().map(|m| format!("{m}: mean (exact) against angle")).collect();
    assert_eq!(texts(&svg, "panel-title"), titles);
    assert_eq!(count(&svg, "class=\"point\""), 37 * 5);
    let x: Vec<String> = (0..5).flat_map(|_| (0..=180).step_by(20).map(|a| a.to_string())).collect();
    assert_eq!(texts(&svg, "xtick"), x);
    // Three panels of probabilities, then morale hits and fire points on round numbers.
    let y = texts(&svg, "ytick");
    let at = y.iter().position(|t| !t.ends_with('%')).expect("number ticks");
    for r in tick_runs(&y[..at]) {
        assert_round(&r);
    }
    assert_eq!(y[at..], ["0.8", "0.9", "1", "1.1", "1.2", "1.3", "2", "2.5", "3", "3.5", "4"]);
    assert!(svg.contains("<title>points: 2") && svg.contains("<title>points: 4"), "{svg}");
    let readme = std::fs::read_to_string(root().join("rulesets/republique/enfilade_angle.svg")).unwrap();
    assert_eq!(readme, svg, "rulesets/republique/enfilade_angle.svg is not what its command draws");
}

#[test]
fn a_grid_of_two_inputs_draws_a_heat_map() {
    let svg = plot(
        &[
            "sim",
            "scripts/analysis/ra_bombard.lua",
            "--sweep",
            "reserve_artillery.crater_at=2..4",
            "--sweep",
            "reserve_artillery.on_target_at=2,3",
            "--trials",
            "300",
        ],
        "sweep-heat",
    );
    let titles = texts(&svg, "panel-title");
    assert!(titles.contains(&"figures_lost: mean by crater_at (across) and on_target_at (down)"), "{titles:?}");
    assert_eq!(count(&svg, "class=\"cell\""), 6 * titles.len());
    assert_eq!(count(&svg, "class=\"cell-value\""), 6 * titles.len());
    assert_eq!(texts(&svg, "xtick")[..3], ["2", "3", "4"]);
    assert_eq!(texts(&svg, "ytick")[..2], ["2", "3"]);
    assert_eq!(
        texts(&svg, "title"),
        ["ra_bombard.lua, a sweep of crater_at × on_target_at — 300 trials at each point"]
    );
    assert_eq!(texts(&svg, "xlabel")[0], "reserve_artillery.crater_at");
    assert_eq!(texts(&svg, "ylabel")[0], "reserve_artillery.on_target_at");
    assert_eq!(count(&svg, "class=\"key-label\""), 2 * titles.len());
    // Three inputs are refused before anything runs.
    let (ok, _, err) = sandtable(&[
        "sim",
        "scripts/analysis/sixes.lua",
        "--arg",
        "dice=1,2",
        "--arg",
        "a=1,2",
        "--arg",
        "b=1,2",
        "--plot",
        "x.svg",
    ]);
    assert!(!ok && err.contains("one input (lines) or two (a heat map)"), "{err}");
}

#[test]
fn comparison_charts_show_both_arms_the_difference_and_at_least_curves() {
    let svg = plot(
        &["sim", "scripts/analysis/ra_open.lua", "--vs-script", "scripts/analysis/ra_woods.lua", "--trials", "4000"],
        "vs",
    );
    assert_eq!(texts(&svg, "title"), ["A: ra_open.lua vs B: ra_woods.lua — 4000 trials"]);
    let titles = texts(&svg, "panel-title");
    let fl: Vec<&&str> = titles.iter().filter(|t| t.starts_with("figures_lost")).collect();
    assert_eq!(fl.len(), 3, "{titles:?}");
    assert!(fl[0].starts_with("figures_lost: A mean 1.") && fl[0].contains(", B mean 0.8"), "{fl:?}");
    assert_eq!(*fl[1], "figures_lost: P(figures_lost ≥ n), A and B");
    assert!(fl[2].starts_with("figures_lost: B − A = -0.3") && fl[2].contains("95% CI [-0.3"), "{fl:?}");
    assert!(texts(&svg, "legend").contains(&"A: ra_open.lua") && texts(&svg, "legend").contains(&"B: ra_woods.lua"));
    // The interval panel: one row per metric, a dashed zero line, round ticks.
    assert_eq!(count(&svg, "class=\"zero\""), 3);
    assert_eq!(count(&svg, "class=\"interval\""), 3);
    for run in tick_runs(&texts(&svg, "ytick")) {
        assert!(run.iter().all(|t| t.ends_with('%')), "{run:?}");
        assert_round(&run);
    }
    // exact: the difference is exact (no interval), the same panels otherwise.
    let svg =
        plot(&["exact", "scripts/analysis/ra_open.lua", "--vs-script", "scripts/analysis/ra_woods.lua"], "vs-exact");
    let titles = texts(&svg, "panel-title");
    assert!(titles.contains(&"figures_lost: B − A = -0.3634 (exact)"), "{titles:?}");
    assert_eq!(count(&svg, "class=\"interval\""), 0);
}

#[test]
fn exact_comparison_is_a_table_decimals_first() {
    let (ok, out, err) =
        sandtable(&["exact", "scripts/analysis/ra_open.lua", "--vs-script", "scripts/analysis/ra_woods.lua"]);
    assert!(ok, "{err}");
    let table = &out[out.find("==== B − A, exact").expect(&out)..];
    let header: Vec<&str> =
        table.lines().nth(2).unwrap().split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    assert_eq!(header, ["metric", "A", "B", "B − A", "exact B − A"]);
    let row: Vec<&str> =
        table.lines().find(|l| l.trim_start().starts_with("figures_lost")).unwrap().split_whitespace().collect();
    assert_eq!(row, ["figures_lost", "1.1934", "0.83", "-0.3634", "-12715/34992"]);
    assert!(table.contains("P(figures_lost = 0) +0.1086 (5065/46656)"), "{table}");
}
