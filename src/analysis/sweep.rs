//! Sweeps: one trial script run at every point of a grid of params
//! (`--sweep module.param=1,2,3`) and script inputs (`--arg angle=0..90:15`).
//!
//! `sim` runs every point in one process, on one Luau state per worker:
//! a worker moves from point to point with [`Worker::enter`] (the params
//! set as `:set` sets them, the top level run again), never building a new
//! state. The points share their trial seeds (common random numbers: trial
//! `i` rolls from `trial_seed(seed, i)` at every point), so each point's
//! change against the first point is a paired difference, measured trial by
//! trial. Work is handed out in blocks of trials, each run at every point in
//! turn, so a worker holds the first point's values of the block while it
//! runs the others.
//!
//! `exact` enumerates each point in turn.

use std::time::{Duration, Instant};

use super::exact::{ExactConfig, ExactOutcome, ExactResult};
use super::sim::{shard_range, to_metrics, Blocks, Rows};
use super::stats::{Acc, Extremes, Metrics, Tally};
use super::{AnalysisError, Block, MetricNames, Seeded, Setup, Worker};
use crate::battlefield::World;

/// Most points a sweep may have (all axes multiplied).
pub const MAX_POINTS: usize = 10_000;

/// What an axis sweeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AxisKind {
    /// A ruleset param (`--sweep module.param=...`).
    Param,
    /// An input of the trial script (`--arg name=...`, read as `args.name`).
    Arg,
}

/// One swept input and its values, as text (each given to `--set` or
/// `--arg` as it stands).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Axis {
    pub name: String,
    pub kind: AxisKind,
    pub values: Vec<String>,
}

impl Axis {
    /// The short name a table heads its column with: a param's own name
    /// (`crater_at`), an arg's name.
    pub fn short(&self) -> &str {
        self.name.rsplit_once('.').map_or(&self.name, |(_, n)| n)
    }
}

/// Parses the values of a sweep: `1,2,3`, `1..4` (1, 2, 3, 4), `0..90:15`
/// (0, 15, ..., 90), `4..1` (downwards), `0..1:0.25`, or a single value.
pub fn parse_values(text: &str) -> Result<Vec<String>, String> {
    let text = text.trim();
    if let Some((from, rest)) = text.split_once("..") {
        let (to, step) = match rest.split_once(':') {
            Some((to, step)) => (to, Some(step)),
            None => (rest, None),
        };
        let num = |s: &str| -> Result<f64, String> {
            s.trim().parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| {
                format!(
                    "'{text}': '{}' is not a number (a range is FROM..TO or FROM..TO:STEP, e.g. 0..90:15)",
                    s.trim()
                )
            })
        };
        let (a, b) = (num(from)?, num(to)?);
        let s = match step {
            Some(st) => num(st)?,
            None => 1.0,
        };
        if s <= 0.0 {
            return Err(format!("'{text}': the step must be more than 0 (a range downwards is e.g. 90..0:15)"));
        }
        let count = ((b - a).abs() / s + 1e-9).floor() + 1.0;
        if count > MAX_POINTS as f64 {
            return Err(format!("'{text}' has {count} values; a sweep has at most {MAX_POINTS} points"));
        }
        let decimals =
            [from, step.unwrap_or("1")].iter().map(|t| t.trim().split_once('.').map_or(0, |(_, f)| f.len())).max();
        let decimals = decimals.unwrap_or(0);
        let dir = if b < a { -1.0 } else { 1.0 };
        return Ok((0..count as usize)
            .map(|i| {
                let v = a + dir * s * i as f64;
                let mut t = format!("{v:.decimals$}");
                if t.contains('.') {
                    t = t.trim_end_matches('0').trim_end_matches('.').to_string();
                }
                if t == "-0" {
                    t = "0".into();
                }
                t
            })
            .collect());
    }
    let values: Vec<String> = text.split(',').map(|v| v.trim().to_string()).collect();
    if values.iter().any(String::is_empty) {
        return Err(format!("'{text}': an empty value (give values as 1,2,3 or a range as 1..4 or 0..90:15)"));
    }
    Ok(values)
}

/// Parses `--sweep module.param=VALUES`.
pub fn parse_sweep(s: &str) -> Result<Axis, String> {
    let (name, values) = s.split_once('=').ok_or_else(|| {
        format!("--sweep wants MODULE.PARAM=VALUES (e.g. reserve_artillery.crater_at=2..5), got '{s}'")
    })?;
    let name = name.trim();
    if !name.contains('.') {
        return Err(format!(
            "--sweep {s}: '{name}' is not a param (module.param); to sweep an input of the trial script use --arg {name}=..."
        ));
    }
    let values = parse_values(values).map_err(|e| format!("--sweep {name}: {e}"))?;
    Ok(Axis { name: name.to_string(), kind: AxisKind::Param, values })
}

/// Reads the `--arg`s: each is a fixed value (`angle=30`, kept as an arg of
/// the setup) or, with several values (`angle=0..90:15`, `unit=a,b`), an
/// axis of the sweep.
pub fn split_args(args: &[String]) -> Result<(Vec<String>, Vec<Axis>), String> {
    let mut fixed = Vec::new();
    let mut axes = Vec::new();
    for a in args {
        let (name, text) = super::split_arg(a)?;
        let values = parse_values(text).map_err(|e| format!("--arg {name}: {e}"))?;
        if values.len() == 1 {
            fixed.push(format!("{name}={}", values[0]));
        } else {
            axes.push(Axis { name: name.to_string(), kind: AxisKind::Arg, values });
        }
    }
    Ok((fixed, axes))
}

/// The points of a grid, first axis slowest: each point is the index of
/// its value on every axis.
pub fn points(axes: &[Axis]) -> Result<Vec<Vec<usize>>, String> {
    let total = axes.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len()).filter(|&n| n <= MAX_POINTS));
    if total.is_none() {
        let sizes: Vec<String> = axes.iter().map(|a| a.values.len().to_string()).collect();
        return Err(format!("the sweep has {} points; at most {MAX_POINTS}", sizes.join(" × ")));
    }
    let mut out = vec![Vec::new()];
    for a in axes {
        out = out.into_iter().flat_map(|p| (0..a.values.len()).map(move |i| [p.as_slice(), &[i]].concat())).collect();
    }
    Ok(out)
}

/// The setup of one point: `base` with the point's params and args.
pub fn point_setup(base: &Setup, axes: &[Axis], point: &[usize]) -> Setup {
    let mut s = base.clone();
    for (a, &i) in axes.iter().zip(point) {
        let assignment = format!("{}={}", a.name, a.values[i]);
        match a.kind {
            AxisKind::Param => s.set.push(assignment),
            AxisKind::Arg => s.args.push(assignment),
        }
    }
    s
}

/// The options that run one point of a sweep alone (its `--set`s, then its
/// `--arg`s): `["--set", "m.p=4", "--arg", "angle=30"]`.
pub fn point_options(axes: &[Axis], point: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    for kind in [AxisKind::Param, AxisKind::Arg] {
        for (a, &i) in axes.iter().zip(point).filter(|(a, _)| a.kind == kind) {
            let option = if kind == AxisKind::Param { "--set" } else { "--arg" };
            out.extend([option.to_string(), format!("{}={}", a.name, a.values[i])]);
        }
    }
    out
}

/// What to run.
#[derive(Clone, Debug)]
pub struct SweepConfig {
    pub setup: Setup,
    pub axes: Vec<Axis>,
    /// Trials at each point (of the whole run, when sharded).
    pub trials: u64,
    pub seed: u64,
    pub threads: usize,
    /// Run only shard `k` of `n`: its share of the trials, at every point.
    pub shard: Option<(u64, u64)>,
    pub progress: bool,
}

/// One point's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct PointStats {
    /// The index of the point's value on each axis.
    pub at: Vec<usize>,
    pub metrics: Metrics,
    /// The paired change against the first point, trial by trial (empty at
    /// the first point).
    pub change: Metrics,
}

/// The outcome of a sweep (or of merged shards of one).
#[derive(Clone, Debug, PartialEq)]
pub struct SweepResult {
    pub setup: Setup,
    pub axes: Vec<Axis>,
    pub seed: u64,
    /// Trials at each point, of the whole run.
    pub total_trials: u64,
    /// Half-open trial ranges covered (at every point).
    pub ranges: Vec<(u64, u64)>,
    pub shard: Option<(u64, u64)>,
    pub points: Vec<PointStats>,
    /// The files the run read, as [`super::sim::SimResult::sources`].
    pub sources: std::collections::BTreeMap<String, String>,
}

impl SweepResult {
    /// Trials covered at each point.
    pub fn trials(&self) -> u64 {
        self.ranges.iter().map(|(a, b)| b - a).sum()
    }

    /// The value of `point` on each axis.
    pub fn values(&self, point: &PointStats) -> Vec<&str> {
        self.axes.iter().zip(&point.at).map(|(a, &i)| a.values[i].as_str()).collect()
    }
}

/// The output of a sweep run.
pub struct SweepRun {
    pub result: SweepResult,
    pub elapsed: Duration,
    pub top_output: String,
    pub threads: usize,
}

/// One worker's accumulators at one point.
#[derive(Default)]
struct PointAcc {
    metrics: Vec<Acc>,
    change: Vec<Acc>,
    /// Where the metrics and the changes first took their extreme values.
    extremes: Extremes,
    change_extremes: Extremes,
}

/// A block of trials at a point after the first: its metrics, and the
/// change of each against the first point's value of the same trial
/// (`first`, from the block's start). One worker runs both, so a metric has
/// the same slot at every point.
struct PointBlock<'a> {
    trials: Seeded,
    acc: &'a mut PointAcc,
    tally: &'a mut Tally,
    /// The first point's values (`None` while running the first point, whose
    /// values go into `rows` instead).
    first: Option<&'a Rows>,
    rows: Option<&'a mut Rows>,
    start: u64,
}

impl Block for PointBlock<'_> {
    #[inline]
    fn before(&mut self, world: &mut World, template: &World) -> bool {
        self.trials.before(world, template)
    }

    #[inline]
    fn after(&mut self, _: &mut World, _: &MetricNames, values: &[f64]) -> bool {
        let trial = self.trials.next - 1;
        self.tally.add(&mut self.acc.metrics, values);
        self.acc.extremes.add(values, trial);
        if let Some(rows) = &mut self.rows {
            rows.push(values);
        }
        if let Some(first) = self.first {
            let a = first.get((trial - self.start) as usize);
            let PointAcc { change, change_extremes, .. } = &mut *self.acc;
            if change.len() < values.len() {
                change.resize_with(values.len(), Acc::default);
            }
            for (slot, ((acc, &b), &a)) in change.iter_mut().zip(values).zip(a).enumerate() {
                if !a.is_nan() && !b.is_nan() {
                    acc.add(b - a);
                    change_extremes.add_one(slot, b - a, trial);
                }
            }
        }
        true
    }
}

struct Shared<'a> {
    cfg: &'a SweepConfig,
    setups: Vec<Setup>,
    /// Each block runs at every point; its trials count as done once per
    /// point. The first error in trial order, then point order, is reported.
    blocks: Blocks<(u64, usize)>,
}

impl Shared<'_> {
    /// Records the error of a trial at a point: `(trial, point)`.
    fn fail(&self, at: (u64, usize), e: AnalysisError) {
        self.blocks.fail(at, e);
    }

    /// The point's own `--set`s and `--arg`s: (option, assignment).
    fn own(&self, p: usize) -> impl Iterator<Item = (&str, &String)> {
        let (s, base) = (&self.setups[p], &self.cfg.setup);
        let sets = s.set[base.set.len()..].iter().map(|a| ("--set", a));
        sets.chain(s.args[base.args.len()..].iter().map(|a| ("--arg", a)))
    }

    /// Names a point for an error: `the point reserve_artillery.crater_at=4, angle=30`.
    fn describe(&self, p: usize) -> String {
        let parts: Vec<&str> = self.own(p).map(|(_, a)| a.as_str()).collect();
        format!("the point {}", parts.join(", "))
    }

    /// The options that run point `p` alone, for the replay command.
    fn replay(&self, p: usize) -> Vec<String> {
        self.own(p).flat_map(|(o, a)| [o.to_string(), a.clone()]).collect()
    }
}

/// A worker's accumulators by point, what the top level printed and the files read.
type WorkerOutput = (Vec<(Metrics, Metrics)>, String, std::collections::BTreeMap<String, String>);

fn worker_loop(sh: &Shared) -> Option<WorkerOutput> {
    let cfg = sh.cfg;
    let mut w = match Worker::new(&sh.setups[0], cfg.seed) {
        Ok(w) => w,
        Err(e) => {
            sh.fail((0, 0), e.within(&sh.describe(0)));
            return None;
        }
    };
    let top_output = std::mem::take(&mut w.top_output);
    // Every point's params are checked before any trial runs (as `--set`
    // checks them), then the first point's put back.
    let base = sh.cfg.setup.set.len();
    for s in sh.setups.iter().flat_map(|p| &p.set[base..]).chain(&sh.setups[0].set[base..]) {
        if let Err(e) = w.host.set_param(s) {
            sh.fail((0, 0), AnalysisError { context: format!("--sweep {s}"), error: e });
            return None;
        }
    }
    let mut at = 0;
    let mut accs: Vec<PointAcc> = (0..sh.setups.len()).map(|_| PointAcc::default()).collect();
    let mut rows = Rows::default();
    let mut tally = Tally::default();
    let many = sh.setups.len() > 1;
    'blocks: while let Some((start, end)) = sh.blocks.take() {
        rows.clear();
        for (p, acc) in accs.iter_mut().enumerate() {
            if at != p {
                if let Err(e) = w.enter(&sh.setups[p]) {
                    sh.fail((start, p), e.within(&sh.describe(p)));
                    return None;
                }
                at = p;
            }
            w.start_batch();
            let (first, rows) = if p == 0 { (None, many.then_some(&mut rows)) } else { (Some(&rows), None) };
            let mut block = PointBlock {
                trials: Seeded { seed: cfg.seed, next: start, end },
                acc,
                tally: &mut tally,
                first,
                rows,
                start,
            };
            let failed = w.run_block(&mut block).err().map(|e| (block.trials.next - 1, e));
            tally.settle(&mut acc.metrics);
            if let Some((i, first)) = failed {
                let e = super::sim::trial_error(&mut w, cfg.seed, (i, first), "", &sh.replay(p));
                sh.fail((i, p), e.within(&sh.describe(p)));
                break 'blocks;
            }
            if sh.blocks.stopped() {
                break 'blocks;
            }
            sh.blocks.done(end - start);
        }
    }
    let by_point = accs
        .into_iter()
        .map(|a| (to_metrics(&w.names, a.metrics, &a.extremes), to_metrics(&w.names, a.change, &a.change_extremes)))
        .collect();
    Some((by_point, top_output, w.sources))
}

/// Runs every point of the sweep (the trials of `cfg.shard`, if any) on
/// `cfg.threads` threads.
pub fn run(cfg: &SweepConfig) -> Result<SweepRun, AnalysisError> {
    let started = Instant::now();
    let points = points(&cfg.axes).map_err(AnalysisError::plain)?;
    let setups: Vec<Setup> = points.iter().map(|p| point_setup(&cfg.setup, &cfg.axes, p)).collect();
    let (lo, hi) = shard_range(cfg.trials, cfg.shard);
    let span = hi - lo;
    let threads = cfg.threads.clamp(1, super::MAX_THREADS).min(usize::try_from(span).unwrap_or(usize::MAX).max(1));
    // Each block runs at every point, and moving a worker to another point
    // runs the top level again (as long as a few hundred trials): one block
    // per worker keeps those moves to one per point, up to blocks of 65 536
    // trials (the first point's values of a block are kept for the changes).
    let block = span.div_ceil(threads as u64).clamp(1, 1 << 16);
    let n_points = setups.len() as u64;
    let sh = Shared { cfg, setups, blocks: Blocks::new((lo, hi), block) };
    let warm = std::sync::OnceLock::new();
    let now = || super::sim::progress_now(sh.blocks.done_so_far(), span * n_points, &warm);
    let template = "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} trials (points × trials), {msg}";
    let outputs = super::run_workers(threads, started, || worker_loop(&sh), cfg.progress.then_some((template, &now)))?;
    if let Some(e) = sh.blocks.error() {
        return Err(e);
    }
    let threads = outputs.len();
    let mut stats: Vec<PointStats> =
        points.into_iter().map(|at| PointStats { at, metrics: Metrics::new(), change: Metrics::new() }).collect();
    let mut top_output = None;
    let mut sources = std::collections::BTreeMap::new();
    for (by_point, out, src) in outputs.into_iter().flatten() {
        for (s, (m, c)) in stats.iter_mut().zip(by_point) {
            super::stats::merge_metrics(&mut s.metrics, &m);
            super::stats::merge_metrics(&mut s.change, &c);
        }
        top_output.get_or_insert(out);
        sources.extend(src);
    }
    Ok(SweepRun {
        result: SweepResult {
            setup: cfg.setup.clone(),
            axes: cfg.axes.clone(),
            seed: cfg.seed,
            total_trials: cfg.trials,
            ranges: if hi > lo { vec![(lo, hi)] } else { Vec::new() },
            shard: cfg.shard,
            points: stats,
            sources,
        },
        elapsed: started.elapsed(),
        top_output: top_output.unwrap_or_default(),
        threads,
    })
}

/// An exact sweep: every point enumerated.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactSweep {
    pub setup: Setup,
    pub axes: Vec<Axis>,
    /// Each point's index on every axis, and its enumeration.
    pub points: Vec<(Vec<usize>, ExactResult)>,
}

impl ExactSweep {
    /// The value of point `at` on each axis.
    pub fn values(&self, at: &[usize]) -> Vec<&str> {
        self.axes.iter().zip(at).map(|(a, &i)| a.values[i].as_str()).collect()
    }

    /// Leaves walked over all points.
    pub fn leaves(&self) -> u64 {
        self.points.iter().map(|(_, r)| r.leaves).sum()
    }
}

/// How an exact sweep ended.
pub enum ExactSweepOutcome {
    Done {
        sweep: Box<ExactSweep>,
        elapsed: Duration,
        top_output: String,
    },
    /// A point has too many leaves: `sim --sweep` instead.
    TooBig {
        reason: String,
    },
}

/// Enumerates every point of the sweep, one after another (each on all of
/// `cfg.threads`). `cfg.setup` is the sweep's base setup.
pub fn run_exact(cfg: &ExactConfig, axes: &[Axis]) -> Result<ExactSweepOutcome, AnalysisError> {
    let started = Instant::now();
    let mut out = Vec::new();
    let mut top = None;
    for at in points(axes).map_err(AnalysisError::plain)? {
        let setup = point_setup(&cfg.setup, axes, &at);
        let name = {
            let parts: Vec<String> =
                axes.iter().zip(&at).map(|(a, &i)| format!("{}={}", a.name, a.values[i])).collect();
            format!("the point {}", parts.join(", "))
        };
        let point_cfg = ExactConfig { setup, ..cfg.clone() };
        match super::exact::run(&point_cfg) {
            Ok(ExactOutcome::Done { result, top_output, .. }) => {
                top.get_or_insert(top_output);
                out.push((at, *result));
            }
            Ok(ExactOutcome::TooBig { reason }) => {
                return Ok(ExactSweepOutcome::TooBig { reason: format!("{name}: {reason}") });
            }
            Err(e) => return Err(e.within(&name)),
        }
    }
    Ok(ExactSweepOutcome::Done {
        sweep: Box::new(ExactSweep { setup: cfg.setup.clone(), axes: axes.to_vec(), points: out }),
        elapsed: started.elapsed(),
        top_output: top.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_lists_and_ranges() {
        assert_eq!(parse_values("1,2, 3").unwrap(), ["1", "2", "3"]);
        assert_eq!(parse_values("1..4").unwrap(), ["1", "2", "3", "4"]);
        assert_eq!(parse_values("0..90:15").unwrap(), ["0", "15", "30", "45", "60", "75", "90"]);
        assert_eq!(parse_values("0..100:15").unwrap().last().unwrap(), "90");
        assert_eq!(parse_values("4..1").unwrap(), ["4", "3", "2", "1"]);
        assert_eq!(parse_values("0..1:0.25").unwrap(), ["0", "0.25", "0.5", "0.75", "1"]);
        assert_eq!(parse_values("0.1..0.3:0.1").unwrap(), ["0.1", "0.2", "0.3"]);
        assert_eq!(parse_values("-1..1").unwrap(), ["-1", "0", "1"]);
        assert_eq!(parse_values("woods,open").unwrap(), ["woods", "open"]);
        assert_eq!(parse_values("7").unwrap(), ["7"]);
        assert!(parse_values("1..4:0").unwrap_err().contains("more than 0"));
        assert!(parse_values("1..x").unwrap_err().contains("'x' is not a number"));
        assert!(parse_values("1,,2").unwrap_err().contains("empty value"));
        assert!(parse_values("0..1000000").unwrap_err().contains("at most 10000"));
    }

    #[test]
    fn grids_run_first_axis_slowest() {
        let a = Axis { name: "m.a".into(), kind: AxisKind::Param, values: vec!["1".into(), "2".into()] };
        let b = Axis { name: "angle".into(), kind: AxisKind::Arg, values: vec!["0".into(), "45".into(), "90".into()] };
        let ps = points(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(ps, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
        let s = point_setup(&Setup { set: vec!["m.x=1".into()], ..Setup::default() }, &[a.clone(), b.clone()], &ps[4]);
        assert_eq!(s.set, ["m.x=1", "m.a=2"]);
        assert_eq!(s.args, ["angle=45"]);
        let big = Axis { name: "m.c".into(), kind: AxisKind::Param, values: vec!["0".into(); 5001] };
        assert!(points(&[a, big]).unwrap_err().contains("2 × 5001"));
    }

    #[test]
    fn sweeps_and_args_are_checked() {
        assert!(parse_sweep("crater_at=1,2").unwrap_err().contains("--arg crater_at"));
        assert!(parse_sweep("m.p").unwrap_err().contains("MODULE.PARAM=VALUES"));
        let (fixed, axes) = split_args(&["side=allies".into(), "angle=0..30:15".into()]).unwrap();
        assert_eq!(fixed, ["side=allies"]);
        assert_eq!(axes[0].values, ["0", "15", "30"]);
        assert!(split_args(&["2x=1".into()]).unwrap_err().contains("not a name"));
    }
}
