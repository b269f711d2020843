//! Trials run in blocks inside one protected call (`Worker::run_block`):
//! the same values, trial for trial, as one protected call per trial
//! (`Worker::run_seeded`); an error, a declined result or a time-out in
//! trial k of a block names trial k and its dice seed, also with `--vs`
//! (whichever variant fails first); the time budget stays per trial; the
//! worker runs good blocks after a failed one.

use std::path::PathBuf;

use sandtable::analysis::sim::{self, SimConfig};
use sandtable::analysis::{trial_seed, Block, MetricNames, Seeded, Setup, Worker};
use sandtable::battlefield::World;
use sandtable::lua::ScriptError;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary folder for trial scripts, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("sandtable-blocks-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        Dir(d)
    }

    fn script(&self, name: &str, src: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, src).expect("write");
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Trials `next..end` seeded as `sim` seeds them, each trial's metrics kept
/// by name.
struct Record {
    trials: Seeded,
    rows: Vec<Vec<(String, u64)>>,
}

impl Block for Record {
    fn before(&mut self, world: &mut World, template: &World) -> bool {
        self.trials.before(world, template)
    }

    fn after(&mut self, _: &mut World, names: &MetricNames, values: &[f64]) -> bool {
        self.rows.push(row(names, values));
        true
    }
}

/// A trial's metrics by name (absent ones left out), as bits.
fn row(names: &MetricNames, values: &[f64]) -> Vec<(String, u64)> {
    let mut r: Vec<(String, u64)> =
        names.iter().zip(values).filter(|(_, v)| !v.is_nan()).map(|(n, v)| (n.clone(), v.to_bits())).collect();
    r.sort();
    r
}

/// Trials `0..n` one protected call each.
fn one_by_one(setup: &Setup, seed: u64, n: u64) -> Vec<Vec<(String, u64)>> {
    let mut w = Worker::new(setup, seed).expect("worker");
    (0..n)
        .map(|i| {
            w.run_seeded(trial_seed(seed, i)).expect("trial");
            row(&w.names, &w.values)
        })
        .collect()
}

/// Trials `0..n` in blocks of `block`.
fn in_blocks(setup: &Setup, seed: u64, n: u64, block: u64) -> Vec<Vec<(String, u64)>> {
    let mut w = Worker::new(setup, seed).expect("worker");
    let mut rec = Record { trials: Seeded { seed, next: 0, end: 0 }, rows: Vec::new() };
    while rec.trials.next < n {
        rec.trials.end = (rec.trials.next + block).min(n);
        w.start_batch();
        w.run_block(&mut rec).expect("block");
    }
    rec.rows
}

#[test]
fn blocks_give_the_values_of_one_call_per_trial() {
    let scripts = [
        "scripts/analysis/ra_bombard.lua",
        "scripts/analysis/ra_dice_roll.lua",
        "scripts/analysis/battle_dice.lua",
        "scripts/analysis/exploding_six.lua",
        "scripts/analysis/drop_lowest.lua",
        "scripts/tricorne/volley.lua",
    ];
    for name in scripts {
        let setup = Setup { script: root().join(name), ..Setup::default() };
        for seed in [1, 0xdead_beef] {
            let n = 300;
            let want = one_by_one(&setup, seed, n);
            assert_eq!(in_blocks(&setup, seed, n, 64), want, "{name}, seed {seed}");
            assert_eq!(in_blocks(&setup, seed, n, 1), want, "{name}, seed {seed}, blocks of one");
        }
    }
}

/// The first trial of `0..` whose dice make `fails` true, found one
/// protected call per trial.
fn first_failure(setup: &Setup, seed: u64) -> (u64, ScriptError) {
    let mut w = Worker::new(setup, seed).expect("worker");
    (0..100_000).find_map(|i| w.run_seeded(trial_seed(seed, i)).err().map(|e| (i, e))).expect("a failing trial")
}

fn sim_error(setup: &Setup, vs: Option<&Setup>, seed: u64, trials: u64, threads: usize) -> String {
    let cfg = SimConfig { setup: setup.clone(), vs: vs.cloned(), trials, seed, threads, shard: None, progress: false };
    match sim::run(&cfg) {
        Ok(_) => panic!("sim should have failed"),
        Err(e) => e.render(false),
    }
}

#[test]
fn an_error_in_a_block_names_its_trial_and_seed() {
    let dir = Dir::new("error");
    // Two sixes on 2d6 (1 in 36): an error. Three or more sixes on 3d6 in
    // the other script, a result the raw reader declines (nil).
    let boom = Setup {
        script: dir.script("boom.lua", "function trial()\n  if dice.roll(2, 'd6').total == 12 then error('double six') end\n  return { x = 1 }\nend\n"),
        ..Setup::default()
    };
    let nil = Setup {
        script: dir.script(
            "nil.lua",
            "function trial()\n  if dice.roll(2, 'd6').total >= 11 then return nil end\n  return 1\nend\n",
        ),
        ..Setup::default()
    };
    // A seed where the two scripts first fail on different trials (j < i).
    let (seed, i, j) = (3..)
        .find_map(|seed| {
            let (i, first) = first_failure(&boom, seed);
            assert!(first.to_string().contains("double six"), "{first}");
            let (j, first) = first_failure(&nil, seed);
            assert!(first.to_string().contains("trial() returned nothing"), "{first}");
            (0 < j && j < i).then_some((seed, i, j))
        })
        .expect("a seed");
    let named = |t: u64| format!("trial {t} (dice seed {:#x})", trial_seed(seed, t));
    for threads in [1, 2] {
        let err = sim_error(&boom, None, seed, 5000, threads);
        assert!(err.contains(&named(i)), "expected '{}' in:\n{err}", named(i));
        assert!(err.contains("double six") && err.contains(&format!("--trial {i}")), "{err}");
        let err = sim_error(&nil, None, seed, 5000, threads);
        assert!(err.contains(&named(j)) && err.contains("trial() returned nothing"), "{err}");
    }
    // With --vs, the variant that fails first is named: B here (trial j < i) ...
    let err = sim_error(&boom, Some(&nil), seed, 5000, 1);
    assert!(err.contains(&format!("{} of the --vs variant", named(j))), "{err}");
    // ... A here; and on the same trial, A (it runs first).
    let err = sim_error(&nil, Some(&boom), seed, 5000, 1);
    assert!(err.contains(&format!("{};", named(j))), "{err}");
    let err = sim_error(&boom, Some(&boom), seed, 5000, 1);
    assert!(err.contains(&format!("{};", named(i))) && !err.contains("--vs variant"), "{err}");
}

#[test]
fn a_time_out_in_a_block_names_its_trial_and_the_budget_is_per_trial() {
    let dir = Dir::new("time");
    // The fifth trial a worker runs never ends.
    let looping = Setup {
        script: dir.script(
            "loop.lua",
            "n = 0\nfunction trial()\n  n += 1\n  if n == 5 then while true do end end\n  return n\nend\n",
        ),
        time_ms: Some(100),
        ..Setup::default()
    };
    let err = sim_error(&looping, None, 3, 50, 1);
    assert!(
        err.contains(&format!("trial 4 (dice seed {:#x})", trial_seed(3, 4))) && err.contains("time limit"),
        "{err}"
    );
    // A worker goes on after a time-out: the budget starts again with each trial.
    let mut w = Worker::new(&looping, 3).expect("worker");
    let mut rec = Record { trials: Seeded { seed: 3, next: 0, end: 10 }, rows: Vec::new() };
    let e = w.run_block(&mut rec).expect_err("the fifth trial loops");
    assert!(matches!(e, ScriptError::TimeLimit { ms: 100 }), "{e:?}");
    assert_eq!((rec.trials.next - 1, rec.rows.len()), (4, 4));
    w.run_block(&mut rec).expect("the trials after it");
    assert_eq!(rec.rows.len(), 9);
    // Twelve trials of 0.25 s of CPU each run in one block under a budget
    // of 2 s per trial: the budget is not the block's.
    let slow = Setup {
        script: dir.script(
            "slow.lua",
            "function trial()\n  local t = os.clock()\n  while os.clock() - t < 0.25 do end\n  return 1\nend\n",
        ),
        time_ms: Some(2000),
        ..Setup::default()
    };
    let cfg = SimConfig { setup: slow, vs: None, trials: 12, seed: 1, threads: 1, shard: None, progress: false };
    let run = sim::run(&cfg).expect("no trial is over its budget");
    assert_eq!(run.result.metrics["value"].n, 12);
}

#[test]
fn sharded_blocks_merge_to_the_whole_run() {
    let setup = Setup { script: root().join("scripts/analysis/ra_bombard.lua"), ..Setup::default() };
    let vs = setup.with_changes(&["reserve_artillery.crater_at=4".to_string()], None);
    let run = |shard, threads| {
        let cfg = SimConfig {
            setup: setup.clone(),
            vs: Some(vs.clone()),
            trials: 3001,
            seed: 11,
            threads,
            shard,
            progress: false,
        };
        sim::run(&cfg).expect("sim").result
    };
    let whole = run(None, 2);
    let parts = (1..=3).map(|k| (format!("part {k}"), run(Some((k, 3)), 1 + k as usize % 2))).rev().collect();
    let merged = sandtable::analysis::merge::merge(parts).expect("merge");
    assert_eq!(merged, whole);
}
