//! Exact odds by enumeration.
//!
//! The trial runs again and again against the same template world, with the
//! dice in enumeration mode ([`Source::Enumerate`]): each execution replays a
//! prefix of outcome choices and branches at the next roll, depth first, so
//! every *leaf* (one complete execution) is visited once. A pool of n
//! identical dice is one choice point over the multisets of faces, weighted by
//! multinomial coefficients (see [`crate::dice::PoolOutcomes`]); forced dice
//! are not choice points.
//!
//! A leaf's probability is the product of its rolls' numerators over the
//! product of their denominators (each `sides^n`). Products stay in `u128`
//! while they fit; numerators are summed per denominator, per value, so the
//! cost per leaf is a few multiplications and two hash look-ups. Only at the
//! end are the sums turned into reduced big-integer fractions.
//!
//! Parallel: the first roll's outcomes are handed out to the workers one by
//! one; each walks the subtree below its outcome.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rand::Rng;
use rand_pcg::Pcg64Mcg;

use super::stats::{key_of, value_label, value_of};
use super::{AnalysisError, Block, MetricNames, Setup, Worker};
use crate::battlefield::World;
use crate::dice::{Enumeration, Source};
use crate::lua::ScriptError;

/// What to enumerate.
#[derive(Clone, Debug)]
pub struct ExactConfig {
    pub setup: Setup,
    /// A second variant, enumerated too; the report shows exact differences.
    pub vs: Option<Setup>,
    /// Seed of the script's top level (trials roll no random dice).
    pub seed: u64,
    pub threads: usize,
    /// Give up (and let the caller fall back to `sim`) past this many leaves.
    pub max_leaves: u64,
    pub progress: bool,
    /// `--epsilon E`: leave paths unexplored, by a probability cut-off
    /// lowered pass by pass, until their total probability is below E
    /// (`None`: follow every path).
    pub epsilon: Option<f64>,
}

/// Default leaf budget.
pub const DEFAULT_MAX_LEAVES: u64 = 5_000_000;

/// One metric's exact distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactMetric {
    /// Probability of each value (by [`key_of`]), given the metric was returned.
    pub dist: BTreeMap<u64, BigRational>,
    /// Probability that a trial returned this metric at all.
    pub present: BigRational,
}

impl ExactMetric {
    /// The exact mean.
    pub fn mean(&self) -> BigRational {
        self.dist.iter().map(|(&k, p)| exact_value(value_of(k)) * p).fold(BigRational::zero(), |a, b| a + b)
    }

    /// The exact variance (population: E[X²] − E[X]²).
    pub fn variance(&self) -> BigRational {
        let m = self.mean();
        let m2 = self
            .dist
            .iter()
            .map(|(&k, p)| {
                let v = exact_value(value_of(k));
                &v * &v * p
            })
            .fold(BigRational::zero(), |a, b| a + b);
        m2 - &m * &m
    }

    pub fn sd(&self) -> f64 {
        ratio_f64(&self.variance()).max(0.0).sqrt()
    }

    /// Bounds on the true P(value | the metric was returned) when paths of
    /// total probability `u` were left unexplored, from the explored
    /// conditional probability `p`: the explored joint mass p·P (P the
    /// explored presence) over all that may be present, P + u, with none or
    /// all of the unexplored mass on this value.
    pub fn value_bounds(&self, p: &BigRational, u: &BigRational) -> (BigRational, BigRational) {
        let joint = p * &self.present;
        let total = &self.present + u;
        (&joint / &total, (joint + u) / total)
    }

    /// Bounds on the true mean when `u` is unexplored, *if* the unexplored
    /// trials return values within the range seen (`lo..hi`, returned too):
    /// the true mean is (S + Σ v·q)/(P + Q) for an unexplored presence Q in
    /// [0, u], which is extreme at Q = 0 or Q = u.
    pub fn mean_bounds(&self, u: &BigRational) -> (BigRational, BigRational, f64, f64) {
        let lo = self.dist.keys().next().map_or(0.0, |&k| value_of(k));
        let hi = self.dist.keys().next_back().map_or(0.0, |&k| value_of(k));
        let mean = self.mean();
        let sum = &mean * &self.present;
        let total = &self.present + u;
        let low = (&sum + u * exact_value(lo)) / &total;
        let high = (sum + u * exact_value(hi)) / total;
        (low.min(mean.clone()), high.max(mean), lo, hi)
    }
}

/// The result of an enumeration.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactResult {
    pub setup: Setup,
    /// Executions walked to their end.
    pub leaves: u64,
    pub metrics: BTreeMap<String, ExactMetric>,
    /// `--epsilon`: the total probability of the paths left unexplored
    /// (zero when the whole tree was walked) ...
    pub unexplored: BigRational,
    /// ... how many paths were cut off ...
    pub cut_paths: u64,
    /// ... and the probability cut-off of the pass that was kept.
    pub cutoff: f64,
    /// The second variant, when comparing.
    pub vs: Option<Box<ExactResult>>,
}

/// How an enumeration ended.
pub enum ExactOutcome {
    Done {
        result: Box<ExactResult>,
        elapsed: Duration,
        top_output: String,
    },
    /// The tree is too big or a pool too large: use `sim` instead.
    TooBig {
        reason: String,
    },
}

/// A metric value as an exact fraction: the shortest decimal that prints as
/// the same f64 (so 0.1 is 1/10, not the binary fraction nearest to it).
pub fn exact_value(v: f64) -> BigRational {
    let s = format!("{v}");
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.as_str()),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let num: BigInt = format!("{int}{frac}").parse().unwrap_or_default();
    let den = BigInt::from(10u32).pow(frac.len() as u32);
    let r = BigRational::new(num, den);
    if neg {
        -r
    } else {
        r
    }
}

/// A fraction as `a/b` (or `a` when whole).
pub fn ratio_str(r: &BigRational) -> String {
    if r.denom().is_one() {
        r.numer().to_string()
    } else {
        format!("{}/{}", r.numer(), r.denom())
    }
}

/// A fraction as f64.
pub fn ratio_f64(r: &BigRational) -> f64 {
    r.to_f64().unwrap_or_else(|| {
        // Very large parts: scale down first.
        let (n, d) = (r.numer(), r.denom());
        let shift = n.bits().max(d.bits()).saturating_sub(1000);
        let n = (n.abs() >> shift).to_f64().unwrap_or(f64::NAN);
        let d = (d >> shift).to_f64().unwrap_or(f64::NAN);
        if r.is_negative() {
            -n / d
        } else {
            n / d
        }
    })
}

/// Per-metric sums of one worker.
#[derive(Default)]
struct Sums {
    /// For each leaf denominator (by its slot in [`Tally::dens`]): the sum
    /// of leaf numerators per value.
    small: Vec<FxHashMap<u64, u128>>,
    /// Leaves whose weight did not fit in u128.
    big: BTreeMap<u64, BigRational>,
}

impl Sums {
    fn add(&mut self, key: u64, num: u128, den: u128, den_slot: usize) {
        if self.small.len() <= den_slot {
            self.small.resize_with(den_slot + 1, FxHashMap::default);
        }
        let slot = self.small[den_slot].entry(key).or_insert(0);
        match slot.checked_add(num) {
            Some(s) => *slot = s,
            None => {
                *self.big.entry(key).or_insert_with(BigRational::zero) += BigRational::new(num.into(), den.into());
            }
        }
    }

    fn add_big(&mut self, key: u64, w: &BigRational) {
        *self.big.entry(key).or_insert_with(BigRational::zero) += w;
    }

    fn into_dist(self, dens: &[u128]) -> BTreeMap<u64, BigRational> {
        let mut out = self.big;
        for (vals, &den) in self.small.into_iter().zip(dens) {
            let den = BigInt::from(den);
            for (k, num) in vals {
                *out.entry(k).or_insert_with(BigRational::zero) += BigRational::new(num.into(), den.clone());
            }
        }
        out
    }
}

/// A worker's sums: per metric, and the leaf denominators met so far (most
/// leaves share a handful), looked up once per leaf, not once per metric.
#[derive(Default)]
struct Tally {
    metrics: Vec<Sums>,
    dens: Vec<u128>,
    den_slots: FxHashMap<u128, usize>,
    /// The denominator of the last leaf and its slot.
    last: Option<(u128, usize)>,
    /// `--epsilon`: the probability of the paths cut off (under key 0), and how many.
    unexplored: Sums,
    cut_paths: u64,
}

impl Tally {
    /// The slot of denominator `den`.
    fn den_slot(&mut self, den: u128) -> usize {
        if let Some((d, slot)) = self.last {
            if d == den {
                return slot;
            }
        }
        let slot = *self.den_slots.entry(den).or_insert_with(|| {
            self.dens.push(den);
            self.dens.len() - 1
        });
        self.last = Some((den, slot));
        slot
    }
}

/// The product of `xs`, if it fits in u128: in u64 while it fits there
/// (a 128-bit multiplication costs several 64-bit ones).
fn product(xs: &[u128]) -> Option<u128> {
    let mut small: u64 = 1;
    let mut i = 0;
    while let Some(&x) = xs.get(i) {
        match u64::try_from(x).ok().and_then(|x| small.checked_mul(x)) {
            Some(p) => small = p,
            None => break,
        }
        i += 1;
    }
    xs[i..].iter().try_fold(u128::from(small), |p, &x| p.checked_mul(x))
}

/// Random executions the leaf estimate samples, at most, and the time it
/// may take (it stops early past it, after at least one).
const ESTIMATE_PATHS: u32 = 64;
const ESTIMATE_TIME: Duration = Duration::from_millis(250);

/// How long the walk runs before one worker estimates the tree: a tree it
/// has walked by then is plainly small and never pays for the estimate
/// (which replays the trial once per roll of each of its samples).
const ESTIMATE_AFTER: Duration = Duration::from_millis(50);

/// Knuth's estimate of how many leaves the trial's tree has: follow random
/// outcomes from the first roll to a leaf; the product of the widths met on
/// the way is an unbiased estimate of the leaf count. Returns the mean over
/// the executions sampled, and their number.
///
/// One sample replays the trial once per roll on its path (each replay
/// fixes one more outcome), so it costs a few executions, not the tree.
fn estimate_leaves(worker: &mut Worker, seed: u64, cutoff: f64) -> Result<(f64, u32), LeafError> {
    let started = Instant::now();
    let mut rng = Pcg64Mcg::new(u128::from(seed) | 1);
    let mut walk = Enumeration::with_cutoff(cutoff);
    let (mut total, mut paths) = (0.0, 0u32);
    'paths: while paths < ESTIMATE_PATHS {
        walk.path.clear();
        walk.widths.clear();
        let mut depth = 0;
        loop {
            walk = run_leaf(worker, walk)?;
            // Out of time: the executions sampled to the end so far tell.
            if paths > 0 && started.elapsed() >= ESTIMATE_TIME {
                break 'paths;
            }
            if walk.path.len() <= depth {
                break;
            }
            walk.path.truncate(depth + 1);
            walk.widths.truncate(depth + 1);
            walk.path[depth] = rng.random_range(0..walk.widths[depth].max(1));
            depth += 1;
        }
        total += walk.widths.iter().map(|&w| f64::from(w)).product::<f64>();
        paths += 1;
    }
    Ok((total / f64::from(paths), paths))
}

/// Why the tree is too big, from the leaf estimate, or `None` when it fits.
fn estimate_says_too_big(estimate: f64, paths: u32, max_leaves: u64) -> Option<String> {
    (estimate > max_leaves as f64).then(|| {
        format!(
            "the trial likely has more than {max_leaves} outcome leaves (--max-leaves): \
             {paths} sampled executions estimate about {estimate:.3e}"
        )
    })
}

struct Shared<'a> {
    cfg: &'a ExactConfig,
    /// When the enumeration started (for [`ESTIMATE_AFTER`]).
    started: Instant,
    setup: &'a Setup,
    /// The probability cut-off of this pass (0: none).
    cutoff: f64,
    next_branch: AtomicU64,
    branches_done: AtomicU64,
    branches: AtomicU64,
    leaves: AtomicU64,
    stop: AtomicBool,
    /// Set by the worker that estimates the leaf count (one does).
    estimating: AtomicBool,
    too_big: Mutex<Option<String>>,
    error: Mutex<Option<AnalysisError>>,
}

/// A worker's sums: per metric, per value; the unexplored mass and how many
/// paths were cut off; what the script's top level printed.
struct WorkerOut {
    dists: BTreeMap<String, BTreeMap<u64, BigRational>>,
    unexplored: BigRational,
    cut_paths: u64,
    top_output: String,
}

fn take_walk(worker: &Worker) -> Option<Enumeration> {
    let mut w = worker.host.state.world.borrow_mut();
    match std::mem::replace(w.dice.source_mut(), Source::Random(Pcg64Mcg::new(1))) {
        Source::Enumerate(e) => Some(e),
        Source::Random(_) => None,
    }
}

type LeafError = Box<(Option<Enumeration>, ScriptError)>;

/// Runs one execution along `walk`; returns the walk with the leaf's weight.
fn run_leaf(worker: &mut Worker, mut walk: Enumeration) -> Result<Enumeration, LeafError> {
    walk.restart();
    {
        let mut w = worker.host.state.world.borrow_mut();
        w.reset_from(&worker.template);
        w.dice.set_source(Source::Enumerate(walk));
    }
    let r = worker.call_trial();
    let walk = take_walk(worker);
    match (r, walk) {
        (Ok(()), Some(w)) => Ok(w),
        // Cut off below --epsilon's cut-off: a leaf of the pruned tree.
        (Err(_), Some(w)) if w.pruned => Ok(w),
        (Err(e), w) => Err(Box::new((w, e))),
        (Ok(()), None) => Err(Box::new((None, ScriptError::plain(RESEEDED)))),
    }
}

/// Adds a leaf's metrics (`values`, by slot) to `sums` with the leaf's weight
/// (the product of its outcomes' weights along `walk`).
fn record(values: &[f64], walk: &Enumeration, tally: &mut Tally) {
    if tally.metrics.len() < values.len() {
        tally.metrics.resize_with(values.len(), Sums::default);
    }
    match (product(&walk.weight_num), product(&walk.weight_den)) {
        (Some(n), Some(d)) => {
            let den_slot = tally.den_slot(d);
            for (s, &v) in tally.metrics.iter_mut().zip(values) {
                if !v.is_nan() {
                    s.add(key_of(v), n, d, den_slot);
                }
            }
        }
        _ => {
            let mut w = BigRational::one();
            for (&n, &d) in walk.weight_num.iter().zip(&walk.weight_den) {
                w *= BigRational::new(n.into(), d.into());
            }
            for (s, &v) in tally.metrics.iter_mut().zip(values) {
                if !v.is_nan() {
                    s.add_big(key_of(v), &w);
                }
            }
        }
    }
}

/// Adds the probability of a path cut off below the cut-off (its weights
/// up to the choice point it did not take) to the unexplored mass.
fn record_cut(walk: &Enumeration, tally: &mut Tally) {
    tally.cut_paths += 1;
    match (product(&walk.weight_num), product(&walk.weight_den)) {
        (Some(n), Some(d)) => {
            let den_slot = tally.den_slot(d);
            tally.unexplored.add(0, n, d, den_slot);
        }
        _ => {
            let mut w = BigRational::one();
            for (&n, &d) in walk.weight_num.iter().zip(&walk.weight_den) {
                w *= BigRational::new(n.into(), d.into());
            }
            tally.unexplored.add_big(0, &w);
        }
    }
}

/// Leaves reported to the shared counter (and the host's per-call budgets
/// reset) once per this many.
const LEAF_BLOCK: u64 = 4096;

/// Why a [`Leaves`] block stopped the walk.
enum LeafStop {
    /// The trial reseeded the dice: its rolls cannot be enumerated.
    Reseeded,
    /// The first roll of an execution had another width than the probe's.
    FirstRollChanged,
}

/// The leaves under one outcome `c` of the first roll, walked depth first
/// as one [`Block`] of trials: each execution replays `walk` and branches at
/// its next roll; the block ends every [`LEAF_BLOCK`] leaves (for the shared
/// counter), when the walk leaves the subtree, when another worker stopped
/// the run (checked at every leaf, so that a fall-back to `sim` is not kept
/// waiting) and when the tree is due to be estimated.
struct Leaves<'a> {
    sh: &'a Shared<'a>,
    /// The walk, here between executions, in the world's dice during one.
    walk: Option<Enumeration>,
    /// The width of the first roll.
    width: u32,
    /// The first roll's outcome this subtree is under.
    c: u32,
    sums: &'a mut Tally,
    /// Leaves walked so far in this subtree.
    count: u64,
    /// Set when `count` reached a multiple of [`LEAF_BLOCK`].
    boundary: bool,
    /// The walk has left the subtree.
    done: bool,
    /// The walk has gone on for [`ESTIMATE_AFTER`] and nobody has estimated
    /// the tree yet.
    estimate: bool,
    stop: Option<LeafStop>,
}

impl Leaves<'_> {
    /// Records the execution that just ended along `walk` (which returned
    /// `values`, unless it was cut off) and moves the walk to the next leaf.
    /// False when the walk cannot go on.
    fn finish(&mut self, mut walk: Enumeration, values: &[f64]) -> bool {
        if walk.widths.first() != Some(&self.width) {
            self.stop = Some(LeafStop::FirstRollChanged);
            return false;
        }
        // A path cut off counts as unexplored even if the trial caught the
        // error and returned.
        if walk.pruned {
            record_cut(&walk, self.sums);
        } else {
            record(values, &walk, self.sums);
        }
        self.count += 1;
        self.boundary = self.count.is_multiple_of(LEAF_BLOCK);
        self.done = !walk.advance() || walk.path[0] != self.c;
        self.walk = Some(walk);
        true
    }
}

impl Block for Leaves<'_> {
    fn before(&mut self, world: &mut World, template: &World) -> bool {
        let Some(mut walk) = self.walk.take() else { return false };
        walk.restart();
        world.reset_from(template);
        world.dice.set_source(Source::Enumerate(walk));
        true
    }

    fn failure_expected(&self, world: &World) -> bool {
        matches!(world.dice.source(), Source::Enumerate(e) if e.pruned)
    }

    fn after(&mut self, world: &mut World, _: &MetricNames, values: &[f64]) -> bool {
        let walk = match std::mem::replace(world.dice.source_mut(), Source::Random(Pcg64Mcg::new(1))) {
            Source::Enumerate(e) => e,
            Source::Random(_) => {
                self.stop = Some(LeafStop::Reseeded);
                return false;
            }
        };
        if !self.finish(walk, values) {
            return false;
        }
        if self.sh.stop.load(Ordering::Relaxed) {
            return false;
        }
        if self.count.is_multiple_of(16)
            && !self.sh.estimating.load(Ordering::Relaxed)
            && self.sh.started.elapsed() >= ESTIMATE_AFTER
        {
            self.estimate = true;
        }
        !(self.done || self.boundary || self.estimate)
    }
}

/// The error of an execution that reseeded the dice.
const RESEEDED: &str = "the trial reseeded the dice (dice.seed), so its rolls cannot be enumerated; exact needs every roll to come from the dice box";

/// The error of an execution whose first roll changed.
const FIRST_ROLL_CHANGED: &str = "exact: the trial's first roll changed between executions; a trial must make the same first roll every time it starts";

#[expect(
    clippy::too_many_lines,
    reason = "one depth-first loop whose state (the path, the stack of branches, the weights) every step shares"
)]
fn worker_loop(sh: &Shared) -> Option<WorkerOut> {
    let fail = |e: AnalysisError| {
        sh.stop.store(true, Ordering::Relaxed);
        let mut slot = sh.error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(e);
    };
    let too_big = |why: String| {
        sh.stop.store(true, Ordering::Relaxed);
        sh.too_big.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(why);
    };
    let mut worker = match Worker::new(sh.setup, sh.cfg.seed) {
        Ok(w) => w,
        Err(e) => {
            fail(e);
            return None;
        }
    };
    // A leaf that failed stops the whole run: too big to enumerate, or a script error
    // reported with the outcome path that led to it.
    let leaf_failed = |b: LeafError| {
        let (walk, e) = *b;
        if walk.as_ref().is_some_and(|w| w.overflow) {
            too_big(
                "a pool is too large to enumerate (more outcomes than exact tabulates for one roll, or weights past 128 bits)"
                    .into(),
            );
        } else {
            let path =
                walk.map(|w| format!(" (outcome path {:?})", &w.path[..w.pos.min(w.path.len())])).unwrap_or_default();
            fail(AnalysisError { context: format!("exact enumeration of trial(){path}"), error: e });
        }
    };
    // Probe: one execution to learn how many outcomes the first roll has.
    let probe = match run_leaf(&mut worker, Enumeration::with_cutoff(sh.cutoff)) {
        Ok(w) => w,
        Err(b) => {
            leaf_failed(b);
            return None;
        }
    };
    // One worker estimates the tree once the walk has gone on for
    // ESTIMATE_AFTER: a tree far past --max-leaves falls back to sim then,
    // not after the budget of leaves; a small tree is walked by then.
    let estimate = |worker: &mut Worker| -> bool {
        if sh.estimating.swap(true, Ordering::Relaxed) {
            return true;
        }
        match estimate_leaves(worker, sh.cfg.seed, sh.cutoff) {
            Ok((estimate, paths)) => match estimate_says_too_big(estimate, paths, sh.cfg.max_leaves) {
                Some(why) => {
                    too_big(why);
                    false
                }
                None => true,
            },
            Err(b) => {
                leaf_failed(b);
                false
            }
        }
    };
    let mut sums = Tally::default();
    let root_width = probe.widths.first().copied();
    sh.branches.store(root_width.unwrap_or(1) as u64, Ordering::Relaxed);
    let mut walk = probe;
    match root_width {
        None => {
            // No roll at all: one leaf, counted by the first worker to get here.
            if sh.next_branch.fetch_add(1, Ordering::Relaxed) == 0 {
                record(&worker.values, &walk, &mut sums);
                sh.leaves.fetch_add(1, Ordering::Relaxed);
            }
        }
        Some(width) => loop {
            if sh.stop.load(Ordering::Relaxed) {
                return None;
            }
            let c = sh.next_branch.fetch_add(1, Ordering::Relaxed);
            if c >= width as u64 {
                break;
            }
            let c = c as u32;
            walk.path.clear();
            walk.widths.clear();
            walk.path.push(c);
            walk.widths.push(width);
            let mut leaves = Leaves {
                sh,
                walk: Some(walk),
                width,
                c,
                sums: &mut sums,
                count: 0,
                boundary: false,
                done: false,
                estimate: false,
                stop: None,
            };
            loop {
                if let Err(e) = worker.run_block(&mut leaves) {
                    match take_walk(&worker) {
                        // Cut off below the cut-off: a leaf of the pruned tree.
                        Some(w) if w.pruned => {
                            leaves.finish(w, &[]);
                        }
                        w => {
                            leaf_failed(Box::new((w, e)));
                            return None;
                        }
                    }
                }
                match leaves.stop {
                    None => {}
                    Some(LeafStop::Reseeded) => {
                        leaf_failed(Box::new((None, ScriptError::plain(RESEEDED))));
                        return None;
                    }
                    Some(LeafStop::FirstRollChanged) => {
                        fail(AnalysisError::plain(FIRST_ROLL_CHANGED));
                        return None;
                    }
                }
                if sh.stop.load(Ordering::Relaxed) {
                    return None;
                }
                if leaves.estimate {
                    leaves.estimate = false;
                    if !estimate(&mut worker) {
                        return None;
                    }
                }
                if leaves.boundary {
                    leaves.boundary = false;
                    let total = sh.leaves.fetch_add(LEAF_BLOCK, Ordering::Relaxed) + LEAF_BLOCK;
                    worker.start_batch();
                    if total > sh.cfg.max_leaves {
                        too_big(format!("the trial has more than {} outcome leaves (--max-leaves)", sh.cfg.max_leaves));
                        return None;
                    }
                    if sh.stop.load(Ordering::Relaxed) {
                        return None;
                    }
                }
                if leaves.done {
                    break;
                }
            }
            let local_leaves = leaves.count;
            walk = leaves.walk?;
            sh.branches_done.fetch_add(1, Ordering::Relaxed);
            let total = sh.leaves.fetch_add(local_leaves % LEAF_BLOCK, Ordering::Relaxed) + local_leaves % LEAF_BLOCK;
            if total > sh.cfg.max_leaves {
                too_big(format!("the trial has more than {} outcome leaves (--max-leaves)", sh.cfg.max_leaves));
                return None;
            }
        },
    }
    let mut dists = BTreeMap::new();
    let Tally { metrics, dens, unexplored, cut_paths, .. } = sums;
    for (name, s) in worker.names.iter().zip(metrics) {
        dists.insert(name.clone(), s.into_dist(&dens));
    }
    let unexplored = unexplored.into_dist(&dens).into_values().fold(BigRational::zero(), |a, b| a + b);
    Some(WorkerOut { dists, unexplored, cut_paths, top_output: std::mem::take(&mut worker.top_output) })
}

/// One walk over the tree, leaving unexplored every path whose probability
/// falls below `cutoff` (0: none).
fn enumerate(
    cfg: &ExactConfig,
    setup: &Setup,
    cutoff: f64,
) -> Result<Result<(ExactResult, String), String>, AnalysisError> {
    let started = Instant::now();
    let threads = cfg.threads.max(1);
    let sh = Shared {
        cfg,
        started,
        setup,
        cutoff,
        next_branch: AtomicU64::new(0),
        branches_done: AtomicU64::new(0),
        branches: AtomicU64::new(0),
        leaves: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        estimating: AtomicBool::new(false),
        too_big: Mutex::new(None),
        error: Mutex::new(None),
    };
    let now = || {
        let n = sh.branches.load(Ordering::Relaxed);
        (sh.branches_done.load(Ordering::Relaxed), n, format!("{} leaves", sh.leaves.load(Ordering::Relaxed)))
    };
    let template = "{spinner} [{elapsed_precise}] {wide_bar} first-roll outcomes done {pos}/{len}, {msg}";
    let outs = super::run_workers(threads, started, || worker_loop(&sh), cfg.progress.then_some((template, &now)))?;
    if let Some(e) = sh.error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    if let Some(why) = sh.too_big.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Ok(Err(why));
    }
    let mut dists: BTreeMap<String, BTreeMap<u64, BigRational>> = BTreeMap::new();
    let mut top_output = None;
    let mut unexplored = BigRational::zero();
    let mut cut_paths = 0;
    for out in outs.into_iter().flatten() {
        unexplored += out.unexplored;
        cut_paths += out.cut_paths;
        for (name, d) in out.dists {
            let target = dists.entry(name).or_default();
            for (k, p) in d {
                *target.entry(k).or_insert_with(BigRational::zero) += p;
            }
        }
        top_output.get_or_insert(out.top_output);
    }
    Ok(Ok((
        ExactResult {
            setup: setup.clone(),
            leaves: sh.leaves.load(Ordering::Relaxed) - cut_paths,
            metrics: metrics_of(dists),
            unexplored,
            cut_paths,
            cutoff,
            vs: None,
        },
        top_output.unwrap_or_default(),
    )))
}

/// Each metric's distribution given that it was returned, from the summed
/// leaf weights per value (a metric no leaf returned is left out).
fn metrics_of(dists: BTreeMap<String, BTreeMap<u64, BigRational>>) -> BTreeMap<String, ExactMetric> {
    dists
        .into_iter()
        .filter_map(|(name, dist)| {
            let present = dist.values().fold(BigRational::zero(), |a, b| a + b);
            if present.is_zero() {
                return None;
            }
            let dist = dist.into_iter().filter(|(_, p)| !p.is_zero()).map(|(k, p)| (k, p / &present)).collect();
            Some((name, ExactMetric { dist, present }))
        })
        .collect()
}

/// Why [`walk_in_place`] stopped.
pub enum WalkStop<E> {
    /// An execution failed: its error, and the outcome path that led to it.
    Failed(E, Vec<u32>),
    /// More than this many leaves.
    TooManyLeaves(u64),
    /// A pool too large to enumerate.
    Overflow,
}

/// Walks every leaf of a tree in one thread, depth first, as the workers of
/// `exact` do, for a caller that runs the executions itself (the spec helper
/// `exact_odds`, on the world as it stands). `leaf(walk, values)` runs one
/// execution along `walk` (with the world's dice in enumeration mode: see
/// [`Source::Enumerate`]) and hands the walk back with the leaf's metric
/// values in `values` (by slot, NaN where absent); on an error it hands back
/// the walk when it has it. Returns each metric (named by `names` after the
/// walk) and the number of leaves.
pub fn walk_in_place<E>(
    max_leaves: u64,
    mut leaf: impl FnMut(Enumeration, &mut Vec<f64>) -> Result<Enumeration, Box<(Option<Enumeration>, E)>>,
    names: impl FnOnce() -> Vec<String>,
) -> Result<(BTreeMap<String, ExactMetric>, u64), WalkStop<E>> {
    let mut tally = Tally::default();
    let mut values = Vec::new();
    let mut walk = Enumeration::default();
    let mut leaves = 0u64;
    loop {
        walk.restart();
        walk = match leaf(walk, &mut values) {
            Ok(w) => w,
            Err(b) if b.0.as_ref().is_some_and(|w| w.overflow) => return Err(WalkStop::Overflow),
            Err(b) => {
                let (w, e) = *b;
                let path = w.map(|w| w.path[..w.pos.min(w.path.len())].to_vec()).unwrap_or_default();
                return Err(WalkStop::Failed(e, path));
            }
        };
        record(&values, &walk, &mut tally);
        leaves += 1;
        if !walk.advance() {
            break;
        }
        if leaves >= max_leaves {
            return Err(WalkStop::TooManyLeaves(max_leaves));
        }
    }
    let Tally { metrics, dens, .. } = tally;
    let dists = names().into_iter().zip(metrics).map(|(name, s)| (name, s.into_dist(&dens))).collect();
    Ok((metrics_of(dists), leaves))
}

/// A pruned tree with at most this many paths is small: `--epsilon` then
/// lowers the cut-off further (by [`REFINE_STEP`], [`REFINE_PASSES`] times
/// at most, passes of at most [`REFINE_LEAVES`] paths) while it stays so,
/// for exact fractions when the tree turns out finite (a pool's rarest
/// multiset is often below E).
const SMALL_TREE: u64 = 10_000;
const REFINE_STEP: f64 = 1e-3;
const REFINE_PASSES: usize = 2;
const REFINE_LEAVES: u64 = 1_000_000;

/// Executions `--epsilon` samples (by their probability, as `sim` draws
/// them) to plan its passes, and the time they may take (fewer past it,
/// at least [`SAMPLE_MIN`]).
const SAMPLE_PATHS: usize = 512;
const SAMPLE_MIN: usize = 16;
const SAMPLE_TIME: Duration = Duration::from_millis(300);

/// Paths sampled by probability in the tree `exact` walks: for each, the
/// probability of its prefix at each choice point (before the choice) and
/// of the whole path.
///
/// A pass with cut-off c ends each sampled path at the first choice point
/// whose prefix is below c (a path cut off) or at its end. A sample ends
/// at a leaf ℓ of the pruned tree with probability p(ℓ), so the share of
/// samples cut off estimates the unexplored mass u(c), and the mean of
/// 1/p(ℓ) the number of leaves the pass walks (both without bias; the
/// second is at most 1/(c·w) for the rarest outcome weight w).
struct Samples {
    paths: Vec<(Vec<f64>, f64)>,
}

impl Samples {
    /// Where the sampled path ends at cut-off `c`: its probability there, and whether it was cut.
    fn end(prefix: &[f64], prob: f64, c: f64) -> (f64, bool) {
        prefix.iter().find(|&&q| q < c).map_or((prob, false), |&q| (q, true))
    }

    /// Estimated unexplored mass at cut-off `c`.
    fn unexplored_at(&self, c: f64) -> f64 {
        let cut = self.paths.iter().filter(|(pre, p)| Self::end(pre, *p, c).1).count();
        cut as f64 / self.paths.len() as f64
    }

    /// Estimated leaves (walked and cut off) of a pass at cut-off `c`.
    fn leaves_at(&self, c: f64) -> f64 {
        let sum: f64 = self.paths.iter().map(|(pre, p)| 1.0 / Self::end(pre, *p, c).0.max(f64::MIN_POSITIVE)).sum();
        sum / self.paths.len() as f64
    }

    /// A cut-off that should leave about `target` unexplored: the sampled
    /// quantile where the samples resolve it (4 cut off or more), else
    /// `target` itself (the passes then measure and lower it).
    fn cutoff_for(&self, target: f64) -> f64 {
        // A path is cut at c when its last prefix is below c.
        let mut last: Vec<f64> = self.paths.iter().filter_map(|(pre, _)| pre.last().copied()).collect();
        last.sort_by(f64::total_cmp);
        let k = (target * self.paths.len() as f64).floor() as usize;
        match last.get(k) {
            Some(&c) if k >= 4 => c,
            _ => target,
        }
    }
}

/// Samples up to [`SAMPLE_PATHS`] executions of the trial by probability.
fn sample_paths(cfg: &ExactConfig, setup: &Setup) -> Result<Samples, AnalysisError> {
    let started = Instant::now();
    let mut worker = Worker::new(setup, cfg.seed)?;
    let mut walk = Enumeration::sampling(cfg.seed);
    let mut paths = Vec::with_capacity(SAMPLE_PATHS);
    while paths.len() < SAMPLE_PATHS && (paths.len() < SAMPLE_MIN || started.elapsed() < SAMPLE_TIME) {
        walk.path.clear();
        walk.widths.clear();
        walk = match run_leaf(&mut worker, walk) {
            Ok(w) => w,
            Err(b) => {
                let (w, e) = *b;
                let path = w.map(|w| format!(" (sampled outcome path {:?})", &w.path[..w.pos.min(w.path.len())]));
                return Err(AnalysisError {
                    context: format!("exact --epsilon, sampling trial(){}", path.unwrap_or_default()),
                    error: e,
                });
            }
        };
        let (mut q, mut prefix) = (1.0, Vec::with_capacity(walk.weight_num.len()));
        for (&n, &d) in walk.weight_num.iter().zip(&walk.weight_den) {
            prefix.push(q);
            q *= n as f64 / d as f64;
        }
        paths.push((prefix, q));
    }
    Ok(Samples { paths })
}

/// One pass of `--epsilon` in the fall-back message: its cut-off, paths
/// and unexplored mass.
fn pass_line(r: &ExactResult) -> String {
    format!(
        "cut-off {:.1e}: {} leaves walked, {} paths cut, {:.3e} unexplored",
        r.cutoff,
        r.leaves,
        r.cut_paths,
        ratio_f64(&r.unexplored)
    )
}

/// `--epsilon E`: walks the tree with a probability cut-off until the
/// unexplored mass is below E; without it, walks the whole tree.
///
/// First [`sample_paths`] plans: the first cut-off is the one the samples
/// say leaves about E/2 unexplored (E/2 when they cannot tell), and a pass whose estimated
/// leaves exceed what is left of `--max-leaves` (all passes share it) is not
/// walked: `exact` falls back to `sim` at once, saying why. While a pass
/// leaves E or more unexplored, the next cuts lower (scaled by how far the
/// unexplored mass was from E). The samples are drawn with the run's seed,
/// so the cut-offs do not depend on the threads (only on the time limit of
/// the samples, for a trial too slow to draw them all).
fn enumerate_within(cfg: &ExactConfig, setup: &Setup) -> Result<Result<(ExactResult, String), String>, AnalysisError> {
    let Some(eps) = cfg.epsilon else { return enumerate(cfg, setup, 0.0) };
    let bound = exact_value(eps);
    let samples = sample_paths(cfg, setup)?;
    let mut cutoff = samples.cutoff_for(0.5 * eps).min(eps);
    // The previous pass's cut-off and unexplored mass; the passes so far.
    let mut last: Option<(f64, f64)> = None;
    let mut tried: Vec<String> = Vec::new();
    let mut walked = 0u64;
    let give_up = |why: String, tried: &[String]| -> String {
        let passes = if tried.is_empty() { String::new() } else { format!("; passes walked: {}", tried.join("; ")) };
        format!("{why} (--epsilon {eps}){passes}")
    };
    let mut best = loop {
        let left = cfg.max_leaves.saturating_sub(walked);
        let estimate = samples.leaves_at(cutoff);
        if estimate > left as f64 {
            return Ok(Err(give_up(
                format!(
                    "to leave less than {eps} unexplored, paths down to a probability of about {cutoff:.1e} must be \
                     followed, and {} executions sampled by probability estimate about {estimate:.3e} leaves there \
                     (they leave about {:.1e} unexplored), more than the {left} left of --max-leaves",
                    samples.paths.len(),
                    samples.unexplored_at(cutoff)
                ),
                &tried,
            )));
        }
        let pass = ExactConfig { max_leaves: left, ..cfg.clone() };
        let (r, out) = match enumerate(&pass, setup, cutoff)? {
            Ok(r) => r,
            Err(why) => {
                return Ok(Err(give_up(
                    format!("{why}, even with paths of probability below {cutoff:.1e} left unexplored"),
                    &tried,
                )))
            }
        };
        walked += r.leaves + r.cut_paths;
        if r.unexplored < bound {
            break (r, out);
        }
        tried.push(pass_line(&r));
        // The unexplored mass goes about as a power of the cut-off, u ≈ a·c^k
        // (k = 1 for a chain of rolls, less for bushy trees): aim for half of
        // E with k from the last two passes (1 after the first).
        let u = ratio_f64(&r.unexplored);
        let k = match last {
            Some((c0, u0)) if u0 > u && c0 > cutoff => ((u0 / u).ln() / (c0 / cutoff).ln()).clamp(0.01, 1.0),
            _ => 1.0,
        };
        last = Some((cutoff, u));
        cutoff *= (0.5 * eps / u).powf(1.0 / k).clamp(1e-8, 0.5);
        if cutoff < f64::MIN_POSITIVE {
            return Ok(Err(give_up(
                format!("paths of probability {u:.3e} in all stay unexplored however low the cut-off"),
                &tried,
            )));
        }
    };
    // A small tree may be finite: try for the bottom of it, keeping the last
    // answer if the walk grows past REFINE_LEAVES.
    let small = ExactConfig { max_leaves: cfg.max_leaves.min(REFINE_LEAVES), ..cfg.clone() };
    for _ in 0..REFINE_PASSES {
        if best.0.unexplored.is_zero() || best.0.leaves + best.0.cut_paths > SMALL_TREE {
            break;
        }
        match enumerate(&small, setup, best.0.cutoff * REFINE_STEP)? {
            Ok(r) => best = r,
            Err(_) => break,
        }
    }
    Ok(Ok(best))
}

/// Enumerates the trial (and the `--vs` variant, when given).
pub fn run(cfg: &ExactConfig) -> Result<ExactOutcome, AnalysisError> {
    let started = Instant::now();
    let (mut result, top_output) = match enumerate_within(cfg, &cfg.setup)? {
        Ok(r) => r,
        Err(reason) => return Ok(ExactOutcome::TooBig { reason }),
    };
    if let Some(vs) = &cfg.vs {
        match enumerate_within(cfg, vs) {
            Ok(Ok((r, _))) => result.vs = Some(Box::new(r)),
            Ok(Err(reason)) => return Ok(ExactOutcome::TooBig { reason: format!("the --vs variant: {reason}") }),
            Err(e) => return Err(e.within(&format!("the --vs variant ({})", vs.describe_changes()))),
        }
    }
    Ok(ExactOutcome::Done { result: Box::new(result), elapsed: started.elapsed(), top_output })
}

/// The distribution as (label, fraction) pairs in value order.
pub fn labelled(m: &ExactMetric) -> Vec<(String, &BigRational)> {
    m.dist.iter().map(|(&k, p)| (value_label(value_of(k)), p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_values_are_exact_decimals() {
        assert_eq!(ratio_str(&exact_value(0.1)), "1/10");
        assert_eq!(ratio_str(&exact_value(-2.5)), "-5/2");
        assert_eq!(ratio_str(&exact_value(3.0)), "3");
        assert_eq!(ratio_str(&exact_value(0.0000001)), "1/10000000");
    }
}
