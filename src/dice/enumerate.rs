//! The enumeration source of `exact`: the walk over outcomes, lazy rolls
//! and the binomial splits their observations make.

use std::rc::Rc;

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use rustc_hash::FxHashMap;

use super::{DiceError, DieKind, PoolOutcomes};

/// The binomial split of `m` dice between two sets of faces (`a` and `b`
/// faces): entry j is the probability that exactly j of them fall in the
/// first set, as a reduced fraction (numerator, denominator).
pub fn split_weights(a: u32, b: u32, m: u32) -> Option<Vec<(u128, u128)>> {
    let den = ((a + b) as u128).checked_pow(m)?;
    let mut out = Vec::with_capacity(m as usize + 1);
    let mut choose: u128 = 1; // C(m, j)
    for j in 0..=m {
        if j > 0 {
            choose = choose.checked_mul((m - j + 1) as u128)? / j as u128;
        }
        let num = choose.checked_mul((a as u128).checked_pow(j)?)?.checked_mul((b as u128).checked_pow(m - j)?)?;
        let g = gcd(num, den);
        out.push((num / g, den / g));
    }
    Some(out)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// A roll `exact` has not fully looked at (see the module notes).
#[derive(Clone, Debug, Default)]
pub struct LazyRoll {
    pub kind: usize,
    /// Dice known to show each value: forced, or decided by an observation.
    pub known: Vec<u32>,
    /// The undecided dice: blocks of two or more values (bit masks over value
    /// indices) and how many dice lie somewhere in each.
    pub open: Vec<(u64, u32)>,
    /// True when at least one die came from a forced queue.
    pub forced: bool,
    /// Where the roll's event sits in the world log, when it was logged
    /// (the caller keeps that event in step with [`LazyRoll::representative`]).
    pub log_at: Option<usize>,
}

impl LazyRoll {
    /// Counts consistent with everything observed so far: the known dice,
    /// and each block's undecided dice on the block's first value (in
    /// canonical order). The log shows this for a roll `exact` has not
    /// fully read.
    pub fn representative(&self) -> Vec<u32> {
        let mut out = self.known.clone();
        for &(mask, m) in &self.open {
            out[mask.trailing_zeros() as usize] += m;
        }
        out
    }

    /// Puts `m` dice in the block `mask`: known when the block is one value.
    fn place(&mut self, mask: u64, m: u32) {
        if m == 0 || mask == 0 {
            return;
        }
        if mask.is_power_of_two() {
            self.known[mask.trailing_zeros() as usize] += m;
        } else {
            self.open.push((mask, m));
        }
    }
}

/// The state of one depth-first walk over roll outcomes. Each roll that is not
/// forced is a choice point; `path[i]` is the outcome chosen at choice point `i`
/// and `widths[i]` how many outcomes it has.
#[derive(Clone, Debug, Default)]
pub struct Enumeration {
    pub path: Vec<u32>,
    pub widths: Vec<u32>,
    /// Next choice point this execution reaches.
    pub pos: usize,
    /// Probability of the path so far, as numerator/denominator factors.
    pub weight_num: Vec<u128>,
    pub weight_den: Vec<u128>,
    /// Outcome tables per (kind, n), built lazily.
    cache: FxHashMap<(usize, u32), Rc<PoolOutcomes>>,
    /// Set when a pool was too large to enumerate.
    pub overflow: bool,
    /// Counts executions, so a roll from an earlier one is not read as a new one.
    pub epoch: u32,
    /// Lazy rolls and their tables (boxed: `Source` stays small).
    lz: Box<Lazies>,
    /// `exact --epsilon`: a new choice point reached with a path probability
    /// below this is not followed (0: follow every path).
    pub cutoff: f64,
    /// Set when this execution reached a choice point below `cutoff`: every
    /// later roll fails, and the path's probability counts as unexplored.
    pub pruned: bool,
    /// The path probability (as f64, for the cut-off only) of the first
    /// `prob_at` weights.
    prob: f64,
    prob_at: usize,
    /// `exact --epsilon`'s planning: when set, each new choice point takes
    /// one outcome drawn by its probability (one execution is then a path
    /// sampled as `sim` would sample it, in the tree `exact` walks).
    pub sampler: Option<Pcg64Mcg>,
}

/// Binomial split tables per (faces in, faces out, dice).
type SplitTables = FxHashMap<(u32, u32, u32), Rc<Vec<(u128, u128)>>>;

/// The lazy rolls of one execution and the tables their looks use.
#[derive(Clone, Debug, Default)]
struct Lazies {
    /// `rolls[..live]` are this execution's; the rest are kept for their allocations.
    rolls: Vec<LazyRoll>,
    live: usize,
    splits: SplitTables,
    /// Outcome tables of blocks per (kind, block, dice).
    blocks: FxHashMap<(usize, u64, u32), Rc<PoolOutcomes>>,
    /// [`Enumeration::roll_until`]'s tables per (faces in, faces out, pools).
    until: FxHashMap<(u32, u32, Vec<u32>), Rc<UntilTable>>,
}

/// The outcomes of pools rolled until a die shows one of some faces: for
/// each count of such dice per pool (not all zero), its probability given
/// that not all are zero, as a reduced fraction.
#[derive(Debug)]
struct UntilTable {
    counts: Vec<Vec<u32>>,
    weights: Vec<(u128, u128)>,
}

impl UntilTable {
    /// Pools of `ns` dice, each die showing one of the faces with
    /// probability a/(a+b): j_i of pool i do, with probability
    /// Π C(n_i, j_i) a^j_i b^(n_i−j_i) / ((a+b)^N − b^N) for N = Σ n_i.
    /// `None` past 128 bits.
    fn new(a: u32, b: u32, ns: &[u32]) -> Option<UntilTable> {
        let total: u32 = ns.iter().sum();
        let den = (u128::from(a + b)).checked_pow(total)?.checked_sub(u128::from(b).checked_pow(total)?)?;
        let splits: Vec<Vec<(u128, u128)>> = ns.iter().map(|&n| split_weights(a, b, n)).collect::<Option<_>>()?;
        // Each split's entries over (a+b)^n, unreduced: C(n, j) a^j b^(n-j).
        let raw: Vec<Vec<u128>> = ns
            .iter()
            .zip(&splits)
            .map(|(&n, sp)| {
                let full = u128::from(a + b).checked_pow(n)?;
                sp.iter().map(|&(num, d)| num.checked_mul(full / d)).collect::<Option<Vec<_>>>()
            })
            .collect::<Option<_>>()?;
        let mut counts = Vec::new();
        let mut weights = Vec::new();
        let mut js = vec![0u32; ns.len()];
        loop {
            // The next combination (mixed radix), skipping all-zero.
            let mut i = 0;
            while i < js.len() && js[i] == ns[i] {
                js[i] = 0;
                i += 1;
            }
            if i == js.len() {
                break;
            }
            js[i] += 1;
            let num = js.iter().zip(&raw).try_fold(1u128, |p, (&j, r)| p.checked_mul(r[j as usize]))?;
            let g = gcd(num, den);
            counts.push(js.clone());
            weights.push((num / g, den / g));
        }
        Some(UntilTable { counts, weights })
    }
}

impl Enumeration {
    /// A walk that leaves unexplored every path whose probability falls
    /// below `cutoff` (0: none).
    pub fn with_cutoff(cutoff: f64) -> Self {
        Enumeration { cutoff, ..Enumeration::default() }
    }

    /// Starts the next execution of the trial: replay from the first choice point.
    pub fn restart(&mut self) {
        self.pos = 0;
        self.weight_num.clear();
        self.weight_den.clear();
        self.lz.live = 0;
        self.epoch = self.epoch.wrapping_add(1);
        self.pruned = false;
        self.prob = 1.0;
        self.prob_at = 0;
    }

    /// A walk that samples one path by its probability per execution
    /// (see [`Enumeration::sampler`]); clear `path` between executions.
    pub fn sampling(seed: u64) -> Self {
        Enumeration { sampler: Some(Pcg64Mcg::new(u128::from(seed) | 1)), ..Enumeration::default() }
    }

    /// The next choice point, `width` outcomes wide, outcome i of
    /// probability `weight(i)`: the outcome on the path being replayed, or a
    /// new point at outcome 0 (drawn by weight when sampling).
    /// Below the cut-off the execution is pruned instead
    /// ([`DiceError::Pruned`]).
    pub(super) fn choose(&mut self, width: u32, weight: impl Fn(u32) -> f64) -> Result<u32, DiceError> {
        if self.pruned {
            return Err(DiceError::Pruned);
        }
        if self.pos < self.path.len() {
            if self.widths[self.pos] != width {
                return Err(DiceError::Diverged);
            }
            self.pos += 1;
            return Ok(self.path[self.pos - 1]);
        }
        if self.cutoff > 0.0 {
            for (&n, &d) in self.weight_num[self.prob_at..].iter().zip(&self.weight_den[self.prob_at..]) {
                self.prob *= n as f64 / d as f64;
            }
            self.prob_at = self.weight_num.len();
            if self.prob < self.cutoff {
                self.pruned = true;
                return Err(DiceError::Pruned);
            }
        }
        let pick = match &mut self.sampler {
            Some(rng) => {
                let mut r: f64 = rng.random();
                let mut pick = width.saturating_sub(1);
                for i in 0..width {
                    r -= weight(i);
                    if r < 0.0 {
                        pick = i;
                        break;
                    }
                }
                pick
            }
            None => 0,
        };
        self.path.push(pick);
        self.widths.push(width);
        self.pos += 1;
        Ok(pick)
    }

    /// Starts a lazy roll of `left` undecided dice over every value of
    /// `kind`, on top of `known` (forced dice). Returns its index.
    pub(super) fn start_lazy(&mut self, kind: usize, nv: usize, known: &[u32], left: u32, forced: bool) -> u32 {
        if self.lz.live == self.lz.rolls.len() {
            self.lz.rolls.push(LazyRoll::default());
        }
        let r = &mut self.lz.rolls[self.lz.live];
        r.kind = kind;
        r.known.clear();
        r.known.extend_from_slice(known);
        r.open.clear();
        r.forced = forced;
        r.log_at = None;
        let all = if nv == 64 { u64::MAX } else { (1u64 << nv) - 1 };
        r.place(all, left);
        self.lz.live += 1;
        (self.lz.live - 1) as u32
    }

    /// The lazy roll `index` made in execution `epoch`.
    pub fn lazy(&self, index: u32, epoch: u32) -> Result<&LazyRoll, DiceError> {
        if epoch != self.epoch || index as usize >= self.lz.live {
            return Err(DiceError::StaleRoll);
        }
        Ok(&self.lz.rolls[index as usize])
    }

    /// Sets where the lazy roll's event sits in the log.
    pub fn set_log_at(&mut self, index: u32, epoch: u32, at: usize) -> Result<(), DiceError> {
        self.lazy(index, epoch)?;
        self.lz.rolls[index as usize].log_at = Some(at);
        Ok(())
    }

    /// How many dice of the lazy roll show one of the values in `set` (a bit
    /// mask over value indices). Every block that `set` cuts in two is split,
    /// in order, one choice point each: j of its m dice inside `set`, with
    /// probability C(m, j) a^j b^(m-j) / (a+b)^m for a and b faces inside and
    /// outside. Blocks inside or outside `set` stay undecided.
    pub fn observe(&mut self, kinds: &[DieKind], index: u32, epoch: u32, set: u64) -> Result<u32, DiceError> {
        self.lazy(index, epoch)?;
        let r = index as usize;
        let mut i = 0;
        while i < self.lz.rolls[r].open.len() {
            let (block, m) = self.lz.rolls[r].open[i];
            let (inside, outside) = (block & set, block & !set);
            if inside == 0 || outside == 0 {
                i += 1;
                continue;
            }
            let kind = &kinds[self.lz.rolls[r].kind];
            let faces = |mask: u64| -> u32 {
                let mut f = 0;
                let mut bits = mask;
                while bits != 0 {
                    f += kind.weights[bits.trailing_zeros() as usize];
                    bits &= bits - 1;
                }
                f
            };
            let key = (faces(inside), faces(outside), m);
            let table = match self.lz.splits.get(&key) {
                Some(t) => t.clone(),
                None => {
                    let Some(t) = split_weights(key.0, key.1, m) else {
                        self.overflow = true;
                        return Err(DiceError::PoolSize(m as i64));
                    };
                    let t = Rc::new(t);
                    self.lz.splits.insert(key, t.clone());
                    t
                }
            };
            let j = self.choose(m + 1, |j| table[j as usize].0 as f64 / table[j as usize].1 as f64)?;
            let (num, den) = table[j as usize];
            self.weight_num.push(num);
            self.weight_den.push(den);
            let roll = &mut self.lz.rolls[r];
            roll.open.swap_remove(i);
            roll.place(inside, j);
            roll.place(outside, m - j);
        }
        let roll = &self.lz.rolls[r];
        let mut count = 0;
        let mut bits = set;
        while bits != 0 {
            let v = bits.trailing_zeros() as usize;
            count += roll.known.get(v).copied().unwrap_or(0);
            bits &= bits - 1;
        }
        count += roll.open.iter().filter(|(b, _)| b & !set == 0).map(|(_, m)| m).sum::<u32>();
        Ok(count)
    }

    /// Decides every undecided die of the lazy roll (one choice point per
    /// block, over its multisets) and writes the count of each value into `out`.
    pub fn resolve(&mut self, kinds: &[DieKind], index: u32, epoch: u32, out: &mut [u32]) -> Result<(), DiceError> {
        self.lazy(index, epoch)?;
        let r = index as usize;
        while let Some(&(block, m)) = self.lz.rolls[r].open.last() {
            let kind = self.lz.rolls[r].kind;
            let key = (kind, block, m);
            let table = match self.lz.blocks.get(&key) {
                Some(t) => t.clone(),
                None => {
                    let mut vals = Vec::new();
                    let mut bits = block;
                    while bits != 0 {
                        vals.push(bits.trailing_zeros() as usize);
                        bits &= bits - 1;
                    }
                    let Some(t) = PoolOutcomes::over(&kinds[kind], &vals, m) else {
                        self.overflow = true;
                        return Err(DiceError::PoolSize(m as i64));
                    };
                    let t = Rc::new(t);
                    self.lz.blocks.insert(key, t.clone());
                    t
                }
            };
            let den = table.denominator as f64;
            let c = self.choose(table.counts.len() as u32, |c| table.numerators[c as usize] as f64 / den)? as usize;
            self.weight_num.push(table.numerators[c]);
            self.weight_den.push(table.denominator);
            let roll = &mut self.lz.rolls[r];
            roll.open.pop();
            for (k, add) in roll.known.iter_mut().zip(&table.counts[c]) {
                *k += add;
            }
        }
        out.copy_from_slice(&self.lz.rolls[r].known);
        Ok(())
    }

    /// Pools of `ns` dice of `kind` rolled together until at least one die
    /// shows a value in `set` (a bit mask over value indices; the caller
    /// makes sure some face is in it and some die is rolled): one choice
    /// point over how many dice of each pool show one, weighted given that
    /// some do, so the blank rolls before are summed over (a geometric
    /// series). Each pool becomes a lazy roll with those dice undecided
    /// within `set` and the rest undecided outside it; returns their indices.
    pub fn roll_until(&mut self, kinds: &[DieKind], kind: usize, ns: &[u32], set: u64) -> Result<Vec<u32>, DiceError> {
        let die = &kinds[kind];
        let nv = die.values.len();
        let all = if nv == 64 { u64::MAX } else { (1u64 << nv) - 1 };
        let (inside, outside) = (set & all, !set & all);
        let faces = |mask: u64| -> u32 { (0..nv).filter(|&v| mask & (1 << v) != 0).map(|v| die.weights[v]).sum() };
        let key = (faces(inside), faces(outside), ns.to_vec());
        let table = match self.lz.until.get(&key) {
            Some(t) => t.clone(),
            None => {
                let Some(t) = UntilTable::new(key.0, key.1, ns) else {
                    self.overflow = true;
                    return Err(DiceError::PoolSize(i64::from(ns.iter().sum::<u32>())));
                };
                let t = Rc::new(t);
                self.lz.until.insert(key, t.clone());
                t
            }
        };
        let c = self.choose(table.counts.len() as u32, |c| {
            let (n, d) = table.weights[c as usize];
            n as f64 / d as f64
        })? as usize;
        let (num, den) = table.weights[c];
        self.weight_num.push(num);
        self.weight_den.push(den);
        let zeros = vec![0; nv];
        let mut out = Vec::with_capacity(ns.len());
        for (&n, &j) in ns.iter().zip(&table.counts[c]) {
            let r = self.start_lazy(kind, nv, &zeros, 0, false);
            let roll = &mut self.lz.rolls[r as usize];
            roll.place(inside, j);
            roll.place(outside, n - j);
            out.push(r);
        }
        Ok(out)
    }

    /// Advances to the next leaf in depth-first order. Returns false when every
    /// leaf has been visited. Call after an execution has finished; choice
    /// points beyond those the execution reached are dropped.
    pub fn advance(&mut self) -> bool {
        self.path.truncate(self.pos);
        self.widths.truncate(self.pos);
        while let Some(last) = self.path.last_mut() {
            let width = *self.widths.last().expect("widths track path");
            if *last + 1 < width {
                *last += 1;
                return true;
            }
            self.path.pop();
            self.widths.pop();
        }
        false
    }

    pub(super) fn outcomes(&mut self, kinds: &[DieKind], kind: usize, n: u32) -> Option<Rc<PoolOutcomes>> {
        if let Some(o) = self.cache.get(&(kind, n)) {
            return Some(o.clone());
        }
        let o = Rc::new(PoolOutcomes::new(&kinds[kind], n)?);
        self.cache.insert((kind, n), o.clone());
        Some(o)
    }
}
