//! Monte Carlo over OS threads, one Luau state per worker.
//!
//! Trials are handed out in blocks from a shared counter; every worker builds
//! its own [`Worker`] (a `Host` is not `Send`), runs the blocks it takes and
//! keeps its own accumulators, which are merged at the end. Because trial `i`
//! always rolls from `trial_seed(seed, i)` and accumulators merge exactly (see
//! [`super::stats`]), the result does not depend on the thread count or on
//! which worker ran which block.
//!
//! With a second setup (`--vs-set`, `--vs-variant`) each worker holds two
//! states and runs every trial on both with the same dice seed (common random
//! numbers), so the paired differences B − A have a much narrower interval
//! than two independent runs would give.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::stats::{Acc, Extremes, Metrics, Tally};
use super::{trial_seed, AnalysisError, Block, MetricNames, Seeded, Setup, Worker};
use crate::battlefield::World;
use crate::lua::ScriptError;

/// What to run.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub setup: Setup,
    /// The second variant, run on the same trial seeds.
    pub vs: Option<Setup>,
    pub trials: u64,
    pub seed: u64,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Run only shard `k` of `n` (1-based).
    pub shard: Option<(u64, u64)>,
    /// Show a progress bar on stderr when the run takes over a second.
    pub progress: bool,
}

/// The outcome of a run (or of merged shards).
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    pub setup: Setup,
    pub vs: Option<Setup>,
    pub seed: u64,
    /// Trials of the whole run (all shards).
    pub total_trials: u64,
    /// Half-open trial ranges this result covers, sorted and joined.
    pub ranges: Vec<(u64, u64)>,
    /// Set on a single shard's result.
    pub shard: Option<(u64, u64)>,
    pub metrics: Metrics,
    pub vs_metrics: Option<Metrics>,
    /// Paired differences B − A per metric (trials where both returned it).
    pub diff: Option<Metrics>,
    /// The files the run read (script, scenario, ruleset files) and a hash
    /// of each one's content, so `merge` can refuse shards run on different
    /// versions of them. Empty in JSON written before this was recorded.
    pub sources: std::collections::BTreeMap<String, String>,
}

impl SimResult {
    /// Trials this result covers.
    pub fn trials(&self) -> u64 {
        self.ranges.iter().map(|(a, b)| b - a).sum()
    }
}

/// The trials of shard `k` of `n` (1-based) out of `trials`.
pub fn shard_range(trials: u64, shard: Option<(u64, u64)>) -> (u64, u64) {
    match shard {
        None => (0, trials),
        Some((k, n)) => {
            let at = |j: u64| ((trials as u128 * j as u128) / n as u128) as u64;
            (at(k - 1), at(k))
        }
    }
}

/// A duration for the progress bar: `42s`, `3m 05s`, `1h 02m`.
fn human_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// The progress bar's (position, length, message) with `done` of `span`
/// trials done. The time left comes from the rate measured once the
/// workers are warm (`warm`: when and where the first finished trial was
/// seen), not from the start: building each worker's Luau state and running
/// the top level takes a while, and counting it would make the early
/// estimate far too low.
pub(super) fn progress_now(done: u64, span: u64, warm: &std::sync::OnceLock<(Instant, u64)>) -> (u64, u64, String) {
    if done == 0 {
        return (done, span, "starting the workers".to_string());
    }
    let (t0, d0) = *warm.get_or_init(|| (Instant::now(), done));
    let secs = t0.elapsed().as_secs_f64();
    let rate = (done - d0) as f64 / secs.max(1e-9);
    if secs < 0.5 || done == d0 {
        return (done, span, "measuring the rate".to_string());
    }
    let left = (span.saturating_sub(done)) as f64 / rate;
    (done, span, format!("{rate:.0} trials/s, {} left", human_secs(left)))
}

/// Parses `K/N` with 1 <= K <= N.
pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("--shard wants K/N (e.g. 3/8), got '{s}'"))?;
    let k: u64 = k.trim().parse().map_err(|_| format!("--shard: '{k}' is not a whole number"))?;
    let n: u64 = n.trim().parse().map_err(|_| format!("--shard: '{n}' is not a whole number"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("--shard K/N needs 1 <= K <= N (shards are numbered from 1), got {k}/{n}"));
    }
    Ok((k, n))
}

/// Accumulators of one worker, by the worker's metric slots.
#[derive(Default)]
struct Local {
    a: Vec<Acc>,
    b: Vec<Acc>,
    d: Vec<Acc>,
    /// Where each of A's, B's and the differences' extremes were first seen.
    xa: Extremes,
    xb: Extremes,
    xd: Extremes,
    /// For each slot of A, the slot of B with the same name.
    a_to_b: Vec<Option<usize>>,
}

fn add_values(accs: &mut Vec<Acc>, values: &[f64]) {
    if accs.len() < values.len() {
        accs.resize_with(values.len(), Acc::default);
    }
    for (acc, &v) in accs.iter_mut().zip(values) {
        if !v.is_nan() {
            acc.add(v);
        }
    }
}

/// The values of each trial of a block, one row per trial (rows may be
/// shorter than later ones: a metric seen first later in the block).
#[derive(Default)]
pub(super) struct Rows {
    values: Vec<f64>,
    ends: Vec<usize>,
}

impl Rows {
    pub(super) fn clear(&mut self) {
        self.values.clear();
        self.ends.clear();
    }

    pub(super) fn push(&mut self, row: &[f64]) {
        self.values.extend_from_slice(row);
        self.ends.push(self.values.len());
    }

    /// Row `k` (the block's `k`-th trial).
    pub(super) fn get(&self, k: usize) -> &[f64] {
        let from = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.values[from..self.ends[k]]
    }
}

/// Trials `next..end` of a run: reset the world, seed the dice with the
/// trial's seed, add the metrics to `acc` (and keep them in `rows` when a
/// `--vs` variant needs them for the paired differences).
struct SimBlock<'a> {
    trials: Seeded,
    acc: &'a mut Vec<Acc>,
    /// Counts small values for `acc` until the block ends (`settle`).
    tally: &'a mut Tally,
    extremes: &'a mut Extremes,
    rows: Option<&'a mut Rows>,
}

impl Block for SimBlock<'_> {
    #[inline]
    fn before(&mut self, world: &mut World, template: &World) -> bool {
        self.trials.before(world, template)
    }

    #[inline]
    fn after(&mut self, _: &mut World, _: &MetricNames, values: &[f64]) -> bool {
        self.tally.add(self.acc, values);
        self.extremes.add(values, self.trials.next - 1);
        if let Some(rows) = &mut self.rows {
            rows.push(values);
        }
        true
    }
}

/// The same trials on the `--vs` variant: its metrics, and the paired
/// differences B − A against A's values of the same trial (`rows`, from
/// the block's start).
struct VsBlock<'a> {
    trials: Seeded,
    acc: &'a mut Vec<Acc>,
    diff: &'a mut Vec<Acc>,
    extremes: &'a mut Extremes,
    diff_extremes: &'a mut Extremes,
    /// For each slot of A, the slot of B with the same name.
    a_to_b: &'a mut Vec<Option<usize>>,
    a_names: &'a MetricNames,
    rows: &'a Rows,
    /// The block's first trial.
    start: u64,
}

impl Block for VsBlock<'_> {
    fn before(&mut self, world: &mut World, template: &World) -> bool {
        self.trials.before(world, template)
    }

    fn after(&mut self, _: &mut World, names: &MetricNames, values: &[f64]) -> bool {
        let trial = self.trials.next - 1;
        add_values(self.acc, values);
        self.extremes.add(values, trial);
        if self.a_to_b.len() != self.a_names.len() || self.a_to_b.iter().any(Option::is_none) {
            *self.a_to_b = self.a_names.iter().map(|n| names.find(n.as_bytes())).collect();
        }
        let a = self.rows.get((trial - self.start) as usize);
        if self.diff.len() < a.len() {
            self.diff.resize_with(a.len(), Acc::default);
        }
        for (ia, ib) in self.a_to_b.iter().enumerate().take(a.len()) {
            if let Some(ib) = ib {
                let (va, vb) = (a[ia], values.get(*ib).copied().unwrap_or(f64::NAN));
                if !va.is_nan() && !vb.is_nan() {
                    self.diff[ia].add(vb - va);
                    self.diff_extremes.add_one(ia, vb - va, trial);
                }
            }
        }
        true
    }
}

/// A worker's accumulators as metrics, by the worker's metric names, with
/// the trials where each took its extreme values.
pub(super) fn to_metrics(names: &[String], mut accs: Vec<Acc>, extremes: &Extremes) -> Metrics {
    extremes.put(&mut accs);
    names.iter().cloned().zip(accs).filter(|(_, a)| a.n > 0).collect()
}

/// The trials `lo..hi` handed out to the workers in blocks from a shared
/// counter, the count of those done (for the progress bar), and the first
/// error by `K` (a trial, or a trial and a point of a sweep): the one
/// reported, whatever the threads.
pub(super) struct Blocks<K> {
    lo: u64,
    hi: u64,
    block: u64,
    next: AtomicU64,
    done: AtomicU64,
    stop: AtomicBool,
    error: Mutex<Option<(K, AnalysisError)>>,
}

impl<K: PartialOrd> Blocks<K> {
    pub(super) fn new((lo, hi): (u64, u64), block: u64) -> Self {
        Blocks {
            lo,
            hi,
            block,
            next: AtomicU64::new(0),
            done: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            error: Mutex::new(None),
        }
    }

    /// The next block of trials, `start..end`; `None` when none are left or
    /// the run stopped.
    pub(super) fn take(&self) -> Option<(u64, u64)> {
        if self.stopped() {
            return None;
        }
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        let start = self.lo.saturating_add(k.saturating_mul(self.block));
        (start < self.hi).then(|| (start, (start + self.block).min(self.hi)))
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Counts `n` trials done.
    pub(super) fn done(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    pub(super) fn done_so_far(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Stops the run with error `e` at `at`, kept if it is the first so far.
    pub(super) fn fail(&self, at: K, e: AnalysisError) {
        self.stop.store(true, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_none_or(|(t, _)| at < *t) {
            *slot = Some((at, e));
        }
    }

    /// The error the run stopped with, if any.
    pub(super) fn error(self) -> Option<AnalysisError> {
        self.error.into_inner().unwrap_or_else(|p| p.into_inner()).map(|(_, e)| e)
    }
}

struct Shared<'a> {
    cfg: &'a SimConfig,
    blocks: Blocks<u64>,
}

impl Shared<'_> {
    fn fail(&self, trial: u64, e: AnalysisError) {
        self.blocks.fail(trial, e);
    }
}

/// What failed in trial `i` on worker `w` (`variant`: which run it was, e.g.
/// " of the --vs variant"), with the command that replays it alone (at the
/// `point` of a sweep: see [`super::cli::replay_command`]).
pub(super) fn trial_error(
    w: &mut Worker,
    seed: u64,
    (i, first): (u64, ScriptError),
    variant: &str,
    point: &[String],
) -> AnalysisError {
    let ts = trial_seed(seed, i);
    let error = w.explain_failure(ts, first);
    let replay = super::cli::replay_command(i, point);
    AnalysisError {
        context: format!("trial {i} (dice seed {ts:#x}){variant}; replay it alone with\n  {replay}\n"),
        error,
    }
}

/// A worker's metrics (A, B, B − A), what the top level printed, and the files its runs read.
type WorkerOutput = (Metrics, Option<Metrics>, Option<Metrics>, String, std::collections::BTreeMap<String, String>);

fn worker_loop(sh: &Shared) -> Option<WorkerOutput> {
    let cfg = sh.cfg;
    let mut a = match Worker::new(&cfg.setup, cfg.seed) {
        Ok(w) => w,
        Err(e) => {
            sh.fail(0, e);
            return None;
        }
    };
    let mut b = match &cfg.vs {
        None => None,
        Some(s) => match Worker::new(s, cfg.seed) {
            Ok(w) => Some(w),
            Err(e) => {
                sh.fail(0, e.within(&format!("the --vs variant ({})", s.describe_changes())));
                return None;
            }
        },
    };
    let mut loc = Local::default();
    // A's values of each trial of the block, for the paired differences.
    let mut rows = Rows::default();
    let mut tally = Tally::default();
    while let Some((start, end)) = sh.blocks.take() {
        a.start_batch();
        if let Some(b) = &b {
            b.start_batch();
        }
        rows.clear();
        let mut block_a = SimBlock {
            trials: Seeded { seed: cfg.seed, next: start, end },
            acc: &mut loc.a,
            tally: &mut tally,
            extremes: &mut loc.xa,
            rows: b.is_some().then_some(&mut rows),
        };
        let failed_a = a.run_block(&mut block_a).err().map(|e| (block_a.trials.next - 1, e));
        tally.settle(&mut loc.a);
        if let Some(b) = &mut b {
            // B runs the trials A finished: trial i runs on A, then on B,
            // so when A failed on trial j, B's error is the one to report
            // only if it comes before j.
            let end_b = failed_a.as_ref().map_or(end, |(j, _)| *j);
            let mut block_b = VsBlock {
                trials: Seeded { seed: cfg.seed, next: start, end: end_b },
                acc: &mut loc.b,
                diff: &mut loc.d,
                extremes: &mut loc.xb,
                diff_extremes: &mut loc.xd,
                a_to_b: &mut loc.a_to_b,
                a_names: &a.names,
                rows: &rows,
                start,
            };
            if let Err(first) = b.run_block(&mut block_b) {
                let i = block_b.trials.next - 1;
                sh.fail(i, trial_error(b, cfg.seed, (i, first), " of the --vs variant", &[]));
                return None;
            }
        }
        if let Some((i, first)) = failed_a {
            sh.fail(i, trial_error(&mut a, cfg.seed, (i, first), "", &[]));
            return None;
        }
        sh.blocks.done(end - start);
    }
    let ma = to_metrics(&a.names, loc.a, &loc.xa);
    let (mb, md) = match &b {
        Some(b) => (Some(to_metrics(&b.names, loc.b, &loc.xb)), Some(to_metrics(&a.names, loc.d, &loc.xd))),
        None => (None, None),
    };
    let mut sources = a.sources;
    if let Some(b) = b {
        sources.extend(b.sources);
    }
    Some((ma, mb, md, a.top_output, sources))
}

/// The output of a run: the result and what the script's top level printed.
pub struct SimRun {
    pub result: SimResult,
    pub elapsed: Duration,
    pub top_output: String,
    /// Worker threads the run used (`--threads`, capped by the trials and
    /// [`super::MAX_THREADS`], and by what the system would start).
    pub threads: usize,
}

/// Runs the trials of `cfg` (of its shard, if any) on `cfg.threads` threads.
pub fn run(cfg: &SimConfig) -> Result<SimRun, AnalysisError> {
    if let Some((k, n)) = cfg.shard {
        if k == 0 || k > n {
            return Err(AnalysisError::plain(format!("--shard K/N needs 1 <= K <= N, got {k}/{n}")));
        }
    }
    let started = Instant::now();
    let (lo, hi) = shard_range(cfg.trials, cfg.shard);
    let span = hi - lo;
    // No more workers than trials: each builds a Luau state for nothing else.
    let threads = cfg.threads.clamp(1, super::MAX_THREADS).min(usize::try_from(span).unwrap_or(usize::MAX).max(1));
    // Blocks small enough to balance and to move the progress bar, large
    // enough that the shared counter is not a hot spot.
    let block = (span / (threads as u64 * 64)).clamp(1, 2048);
    let sh = Shared { cfg, blocks: Blocks::new((lo, hi), block) };
    let warm = std::sync::OnceLock::new();
    let now = || progress_now(sh.blocks.done_so_far(), span, &warm);
    let template = "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} trials, {msg}";
    let outputs = super::run_workers(threads, started, || worker_loop(&sh), cfg.progress.then_some((template, &now)))?;
    if let Some(e) = sh.blocks.error() {
        return Err(e);
    }
    let mut metrics = Metrics::new();
    let mut vs_metrics = cfg.vs.as_ref().map(|_| Metrics::new());
    let mut diff = cfg.vs.as_ref().map(|_| Metrics::new());
    let mut top_output = None;
    let threads = outputs.len();
    let mut sources = std::collections::BTreeMap::new();
    for (ma, mb, md, out, src) in outputs.into_iter().flatten() {
        sources.extend(src);
        super::stats::merge_metrics(&mut metrics, &ma);
        if let (Some(v), Some(mb)) = (&mut vs_metrics, &mb) {
            super::stats::merge_metrics(v, mb);
        }
        if let (Some(d), Some(md)) = (&mut diff, &md) {
            super::stats::merge_metrics(d, md);
        }
        top_output.get_or_insert(out);
    }
    Ok(SimRun {
        result: SimResult {
            setup: cfg.setup.clone(),
            vs: cfg.vs.clone(),
            seed: cfg.seed,
            total_trials: cfg.trials,
            ranges: if hi > lo { vec![(lo, hi)] } else { Vec::new() },
            shard: cfg.shard,
            metrics,
            vs_metrics,
            diff,
            sources,
        },
        elapsed: started.elapsed(),
        top_output: top_output.unwrap_or_default(),
        threads,
    })
}
