//! Dice: die kinds as data, one seeded generator, forced results, and the
//! enumeration source that `exact` uses to walk every outcome.
//!
//! A die kind has a list of faces as printed on the die (numeric dice have
//! faces 1..=n; symbol dice name theirs, and a symbol may sit on several faces,
//! like the two infantry faces of a Command & Colors battle die). Rolls are
//! reported in *canonical order*: the kind's distinct values in the order they
//! first appear on the die, each repeated as often as it came up. Because a roll
//! is only ever seen as this multiset, `exact` can branch over multisets with
//! multinomial weights instead of over every sequence.
//!
//! `exact` goes further for rolls made with `dice.roll` ([`DiceBox::roll_start`]):
//! such a roll is a [`LazyRoll`] that branches only when the rule looks at it.
//! Its undecided dice sit in *blocks* (sets of values, with how many dice lie
//! somewhere in the set); asking how many dice show the values of a set S
//! splits every block that S cuts in two, one choice point per block, with
//! binomial weights; reading every face resolves each block over its
//! multisets. See [`Enumeration::observe`].
//!
//! Randomness: PCG-64 MCG (`rand_pcg::Pcg64Mcg`, 128-bit state, XSL-RR output),
//! seeded with SplitMix64 of the user's seed, and uniform faces drawn with
//! `rand`'s unbiased `random_range`. Both are platform independent, so a seed
//! replays a session exactly on any machine built from the same `Cargo.lock`.

use std::collections::VecDeque;

use crate::battlefield::same_name;
use std::fmt;
use std::rc::Rc;

use rand::Rng;
use rand_pcg::Pcg64Mcg;

mod enumerate;
pub use enumerate::{split_weights, Enumeration, LazyRoll};

/// One face value: a number (numeric dice) or a symbol name.
#[derive(Clone, Debug, PartialEq)]
pub enum Face {
    Num(i64),
    Sym(Rc<str>),
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Face::Num(n) => write!(f, "{n}"),
            Face::Sym(s) => f.write_str(s),
        }
    }
}

/// A die kind: its printed faces, and the distinct values with how many faces show each.
#[derive(Clone)]
pub struct DieKind {
    pub name: Rc<str>,
    /// Distinct values in canonical order.
    pub values: Vec<Face>,
    /// How many faces show each value (same index as `values`).
    pub weights: Vec<u32>,
    /// For each printed face, the index of its value.
    face_value: Vec<u8>,
    /// True when every face is a number (the roll then has a total).
    pub numeric: bool,
    /// How many times this kind's name was redefined before this definition
    /// (a roll object checks it still reads the kind it was rolled with).
    pub generation: u32,
}

impl fmt::Debug for DieKind {
    // Without `generation`: two equal definitions print the same.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DieKind")
            .field("name", &self.name)
            .field("values", &self.values)
            .field("weights", &self.weights)
            .field("face_value", &self.face_value)
            .field("numeric", &self.numeric)
            .finish()
    }
}

/// Most faces a die may have (face values are indexed by a byte).
pub const MAX_FACES: u32 = 250;

impl DieKind {
    /// Builds a kind from its printed faces.
    pub fn new(name: &str, faces: Vec<Face>) -> Result<DieKind, DiceError> {
        if faces.is_empty() {
            return Err(DiceError::BadKind(name.into(), "a die needs at least one face".into()));
        }
        if faces.len() > MAX_FACES as usize {
            return Err(DiceError::BadKind(name.into(), format!("a die may have at most {MAX_FACES} faces")));
        }
        let mut values: Vec<Face> = Vec::new();
        let mut weights = Vec::new();
        let mut face_value = Vec::with_capacity(faces.len());
        for face in &faces {
            let idx = match values.iter().position(|v| v == face) {
                Some(i) => i,
                None => {
                    values.push(face.clone());
                    weights.push(0);
                    values.len() - 1
                }
            };
            weights[idx] += 1;
            face_value.push(idx as u8);
        }
        let numeric = values.iter().all(|v| matches!(v, Face::Num(_)));
        Ok(DieKind { name: name.into(), values, weights, face_value, numeric, generation: 0 })
    }

    /// A numeric die with faces 1..=sides (`d6`, `d10`, ...).
    /// The number of sides is checked before the faces are made.
    pub fn numeric(name: &str, sides: u32) -> Result<DieKind, DiceError> {
        if sides > MAX_FACES {
            return Err(DiceError::BadKind(
                name.into(),
                format!("a die may have at most {MAX_FACES} faces, not {sides}"),
            ));
        }
        DieKind::new(name, (1..=sides as i64).map(Face::Num).collect())
    }

    /// Number of printed faces.
    pub fn sides(&self) -> u32 {
        self.face_value.len() as u32
    }

    /// Index of a value given as a number or symbol name, if this die shows it.
    pub fn value_index(&self, face: &Face) -> Option<usize> {
        self.values.iter().position(|v| v == face)
    }

    /// Index of a value named by text: a symbol, or a number for numeric dice.
    pub fn value_index_str(&self, text: &str) -> Option<usize> {
        self.values.iter().position(|v| match v {
            Face::Sym(s) => &**s == text,
            Face::Num(n) => text.parse::<i64>().ok() == Some(*n),
        })
    }

    /// Human list of the values, for error messages.
    pub fn describe_values(&self) -> String {
        self.values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
    }
}

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum DiceError {
    #[error("unknown die kind '{0}' (known: {1})")]
    UnknownKind(String, String),
    #[error("die kind '{0}': {1}")]
    BadKind(String, String),
    #[error("die kind '{0}' has no face '{1}' (faces: {2})")]
    UnknownFace(String, String, String),
    #[error("cannot roll {0} dice (at most {max} at once)", max = MAX_POOL)]
    PoolSize(i64),
    #[error(
        "this roll was made in an earlier execution of the trial; exact cannot read it now (keep rolls inside trial())"
    )]
    StaleRoll,
    #[error("exact --epsilon: this execution's probability fell below the cut-off, so exact leaves the rest of it unexplored (not an error in the rules; do not catch it)")]
    Pruned,
    #[error("exact: the trial made different observations of its dice when run again along the same outcomes; a trial must depend only on its dice")]
    Diverged,
}

/// The largest pool one roll may have.
pub const MAX_POOL: u32 = 1000;

/// One resolved roll: how many dice of each value came up.
#[derive(Clone, Debug, PartialEq)]
pub struct Roll {
    pub kind: usize,
    pub counts: Vec<u32>,
    /// True when at least one die came from a forced queue.
    pub forced: bool,
}

/// The multiset outcomes of a pool of `n` dice over value weights, with their
/// probability numerators over `sides^n`. Used by enumeration.
#[derive(Clone, Debug)]
pub struct PoolOutcomes {
    pub counts: Vec<Vec<u32>>,
    /// Numerator of each outcome's probability; the denominator is `denominator`.
    pub numerators: Vec<u128>,
    pub denominator: u128,
}

/// Largest outcome table enumeration builds for one pool, in `u32` cells
/// (one count per value and outcome, plus its weight): 64 MiB.
pub const MAX_OUTCOME_CELLS: u128 = 1 << 24;

/// How many multisets of `n` dice over `m` values there are, C(n+m-1, m-1);
/// `None` past `u128`.
pub fn multisets(n: u32, m: usize) -> Option<u128> {
    let mut c: u128 = 1;
    for i in 1..m as u128 {
        c = c.checked_mul(u128::from(n) + i)? / i;
    }
    Some(c)
}

impl PoolOutcomes {
    /// Every multiset of `n` dice over the die's values, weighted by the
    /// multinomial coefficient times each value's face multiplicity.
    /// Returns `None` when the weights overflow 128 bits (pool too large to enumerate).
    pub fn new(kind: &DieKind, n: u32) -> Option<PoolOutcomes> {
        let all: Vec<usize> = (0..kind.values.len()).collect();
        PoolOutcomes::over(kind, &all, n)
    }

    /// The multisets of `n` dice known to show one of the values `vals`
    /// (indices, in canonical order), weighted by their faces among those
    /// values' faces: the denominator is (faces showing them)^n. Counts have
    /// one slot per value of the kind, zero outside `vals`.
    pub fn over(kind: &DieKind, vals: &[usize], n: u32) -> Option<PoolOutcomes> {
        let faces: u32 = vals.iter().map(|&v| kind.weights[v]).sum();
        let denominator = (faces as u128).checked_pow(n)?;
        // Refuse before building a table past MAX_OUTCOME_CELLS (5d100 would be 40 GB).
        let cells = multisets(n, vals.len())?.checked_mul(kind.values.len() as u128 + 4)?;
        if cells > MAX_OUTCOME_CELLS {
            return None;
        }
        let mut out = PoolOutcomes { counts: Vec::new(), numerators: Vec::new(), denominator };
        let mut cur = vec![0u32; kind.values.len()];
        fn rec(
            kind: &DieKind,
            vals: &[usize],
            i: usize,
            left: u32,
            cur: &mut Vec<u32>,
            out: &mut PoolOutcomes,
        ) -> Option<()> {
            if i + 1 == vals.len() {
                cur[vals[i]] = left;
                // multinomial n! / prod(c!) * prod(w^c)
                let mut num: u128 = 1;
                let mut placed = 0u32;
                for &v in vals {
                    let c = cur[v];
                    for t in 1..=c {
                        placed += 1;
                        num = num.checked_mul(placed as u128)? / t as u128;
                    }
                    num = num.checked_mul((kind.weights[v] as u128).checked_pow(c)?)?;
                }
                out.counts.push(cur.clone());
                out.numerators.push(num);
                return Some(());
            }
            for c in (0..=left).rev() {
                cur[vals[i]] = c;
                rec(kind, vals, i + 1, left - c, cur, out)?;
            }
            Some(())
        }
        if vals.is_empty() {
            return None;
        }
        rec(kind, vals, 0, n, &mut cur, &mut out)?;
        Some(out)
    }
}

/// What [`DiceBox::roll_start`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rolled {
    /// Every die is decided: the counts are final.
    Done { forced: bool },
    /// Lazy roll `index` of the execution `epoch` (see [`Enumeration::lazy`]).
    Lazy { index: u32, epoch: u32, forced: bool },
}

/// Where dice results come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// Seeded pseudo-random generator.
    Random(Pcg64Mcg),
    /// Enumeration for `exact`: replay a path of outcome indices, then branch.
    Enumerate(Enumeration),
}

/// All die kinds, the active source and forced queues.
#[derive(Clone, Debug)]
pub struct DiceBox {
    kinds: Rc<Vec<DieKind>>,
    source: Source,
    /// Forced value indices per kind, used before the source.
    forced: Vec<VecDeque<u32>>,
    any_forced: bool,
    /// The kind looked up last (a cache for `kind_index`).
    last_kind: std::cell::Cell<usize>,
    /// Which trial of `sim` or `exact` this box is in: 0 until the first
    /// [`DiceBox::reset_from`], then one more at each (wrapping within 31
    /// bits, never 0 again). Roll objects made in a trial live only as long
    /// as it (see `lua::raw::roll`). Not copied by `reset_from` or compared.
    trial: u32,
}

/// SplitMix64: spreads a user seed (often small) over the generator's state.
pub fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn rng_for(seed: u64) -> Pcg64Mcg {
    let lo = splitmix64(seed) as u128;
    let hi = splitmix64(seed ^ 0xD1B5_4A32_D192_ED03) as u128;
    Pcg64Mcg::new((hi << 64) | lo | 1)
}

impl Default for DiceBox {
    fn default() -> Self {
        DiceBox::new(0)
    }
}

impl DiceBox {
    /// A box with the standard numeric dice d2..d20, d100, seeded with `seed`.
    pub fn new(seed: u64) -> DiceBox {
        let mut kinds = Vec::new();
        for sides in [2u32, 3, 4, 6, 8, 10, 12, 20, 100] {
            kinds.push(DieKind::numeric(&format!("d{sides}"), sides).expect("standard die"));
        }
        DiceBox {
            forced: vec![VecDeque::new(); kinds.len()],
            kinds: Rc::new(kinds),
            source: Source::Random(rng_for(seed)),
            any_forced: false,
            last_kind: std::cell::Cell::new(0),
            trial: 0,
        }
    }

    /// Defines or replaces a die kind.
    pub fn define(&mut self, mut kind: DieKind) -> usize {
        let kinds = Rc::make_mut(&mut self.kinds);
        if let Some(i) = kinds.iter().position(|k| k.name == kind.name) {
            kind.generation = kinds[i].generation.wrapping_add(1);
            kinds[i] = kind;
            self.forced[i].clear();
            i
        } else {
            kinds.push(kind);
            self.forced.push(VecDeque::new());
            kinds.len() - 1
        }
    }

    pub fn kinds(&self) -> &[DieKind] {
        &self.kinds
    }

    /// The kinds, shared (a reference count, no copy).
    pub fn kinds_shared(&self) -> Rc<Vec<DieKind>> {
        self.kinds.clone()
    }

    pub fn kind(&self, idx: usize) -> &DieKind {
        &self.kinds[idx]
    }

    /// Looks a kind up by name.
    pub fn kind_index(&self, name: &str) -> Result<usize, DiceError> {
        // Rules roll the same kind over and over: try the last one first.
        let last = self.last_kind.get();
        if self.kinds.get(last).is_some_and(|k| same_name(&k.name, name)) {
            return Ok(last);
        }
        let found = self.kinds.iter().position(|k| same_name(&k.name, name));
        if let Some(i) = found {
            self.last_kind.set(i);
            return Ok(i);
        }
        self.kinds.iter().position(|k| &*k.name == name).ok_or_else(|| {
            DiceError::UnknownKind(
                name.into(),
                self.kinds.iter().map(|k| k.name.to_string()).collect::<Vec<_>>().join(", "),
            )
        })
    }

    /// The index of a kind named by `name`'s bytes, tried as `kind_index`
    /// tries (the last kind first), without building an error: `None` when
    /// no kind has exactly that name (the caller then asks `kind_index`).
    pub fn kind_index_bytes(&self, name: &[u8]) -> Option<usize> {
        let same = |k: &DieKind| {
            let a = k.name.as_bytes();
            a.len() == name.len() && a.iter().zip(name).all(|(x, y)| x == y)
        };
        let last = self.last_kind.get();
        if self.kinds.get(last).is_some_and(same) {
            return Some(last);
        }
        let i = self.kinds.iter().position(same)?;
        self.last_kind.set(i);
        Some(i)
    }

    /// Reseeds the random generator (and leaves enumeration mode).
    pub fn seed(&mut self, seed: u64) {
        self.source = Source::Random(rng_for(seed));
    }

    /// Makes this box a copy of `template`, reusing what it can: the kinds
    /// stay shared and empty forced queues are not copied. `sim` and `exact`
    /// call this before every trial, where a plain clone showed up in profiles.
    pub fn reset_from(&mut self, template: &DiceBox) {
        if !Rc::ptr_eq(&self.kinds, &template.kinds) {
            self.kinds = template.kinds.clone();
        }
        self.source.clone_from(&template.source);
        // `any_forced == false` means every queue is empty.
        if self.any_forced || template.any_forced || self.forced.len() != template.forced.len() {
            self.forced.clone_from(&template.forced);
        }
        self.any_forced = template.any_forced;
        self.trial = (self.trial.wrapping_add(1) & 0x7fff_ffff).max(1);
    }

    /// Which trial this box is in (0: not in a trial; see the field).
    pub fn trial(&self) -> u32 {
        self.trial
    }

    /// Switches to enumeration with the given walk state.
    pub fn set_source(&mut self, source: Source) {
        self.source = source;
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    pub fn source_mut(&mut self) -> &mut Source {
        &mut self.source
    }

    /// Queues exact results for the next dice of `kind`.
    pub fn force(&mut self, kind: usize, values: &[u32]) {
        self.forced[kind].extend(values.iter().copied());
        self.any_forced = self.forced.iter().any(|q| !q.is_empty());
    }

    /// Forced results not yet used, per kind name.
    pub fn unused_forced(&self) -> Vec<(String, Vec<String>)> {
        self.forced
            .iter()
            .enumerate()
            .filter(|(_, q)| !q.is_empty())
            .map(|(k, q)| {
                let kind = &self.kinds[k];
                (kind.name.to_string(), q.iter().map(|&v| kind.values[v as usize].to_string()).collect())
            })
            .collect()
    }

    /// True when results of `kind` are queued (`dice.force`).
    pub fn has_forced(&self, kind: usize) -> bool {
        self.any_forced && self.forced.get(kind).is_some_and(|q| !q.is_empty())
    }

    /// Drops the forced results of one kind.
    pub fn clear_forced_kind(&mut self, kind: usize) {
        if let Some(q) = self.forced.get_mut(kind) {
            q.clear();
        }
        self.any_forced = self.forced.iter().any(|q| !q.is_empty());
    }

    /// Drops every forced result.
    pub fn clear_forced(&mut self) {
        for q in &mut self.forced {
            q.clear();
        }
        self.any_forced = false;
    }

    /// Takes forced results of `kind` for up to `n` dice into `counts` (zeroed
    /// first). Returns how many dice are left and whether any was forced.
    fn take_forced(&mut self, kind: usize, n: u32, counts: &mut [u32]) -> Result<(u32, bool), DiceError> {
        if n > MAX_POOL {
            return Err(DiceError::PoolSize(n as i64));
        }
        counts.iter_mut().for_each(|c| *c = 0);
        let mut left = n;
        let mut forced = false;
        if self.any_forced {
            let q = &mut self.forced[kind];
            while left > 0 {
                match q.pop_front() {
                    Some(v) => {
                        counts[v as usize] += 1;
                        left -= 1;
                        forced = true;
                    }
                    None => break,
                }
            }
            if q.is_empty() {
                self.any_forced = self.forced.iter().any(|q| !q.is_empty());
            }
        }
        Ok((left, forced))
    }

    /// Rolls `n` dice of `kind`, writing the count of each value into `counts`
    /// (which must have one slot per value). Returns true if any die was forced.
    /// When enumerating, the whole pool is one choice point over its multisets.
    pub fn roll_into(&mut self, kind: usize, n: u32, counts: &mut [u32]) -> Result<bool, DiceError> {
        if self.roll_plain(kind, n, counts) {
            return Ok(false);
        }
        let (left, forced) = self.take_forced(kind, n, counts)?;
        if left == 0 {
            return Ok(forced);
        }
        self.roll_rest(kind, left, counts)?;
        Ok(forced)
    }

    /// The common case of `sim`: nothing forced, the generator. Rolls the
    /// pool into `counts` (zeroed first) with the same draws `take_forced`
    /// then `roll_rest` make, without their checks, and returns true; false
    /// (nothing done) in any other case, which [`DiceBox::roll_start`] or
    /// [`DiceBox::roll_into`] then handle.
    #[inline(always)]
    pub fn roll_plain(&mut self, kind: usize, n: u32, counts: &mut [u32]) -> bool {
        let (false, Source::Random(rng)) = (self.any_forced, &mut self.source) else { return false };
        if n > MAX_POOL {
            return false;
        }
        for c in counts.iter_mut() {
            *c = 0;
        }
        let die = &self.kinds[kind];
        let sides = die.sides();
        for _ in 0..n {
            let face = rng.random_range(0..sides) as usize;
            counts[die.face_value[face] as usize] += 1;
        }
        true
    }

    /// Rolls `left` more dice of `kind` from the source into `counts`.
    fn roll_rest(&mut self, kind: usize, left: u32, counts: &mut [u32]) -> Result<(), DiceError> {
        let die = &self.kinds[kind];
        match &mut self.source {
            Source::Random(rng) => {
                let sides = die.sides();
                for _ in 0..left {
                    let face = rng.random_range(0..sides) as usize;
                    counts[die.face_value[face] as usize] += 1;
                }
            }
            Source::Enumerate(walk) => {
                let Some(outcomes) = walk.outcomes(&self.kinds, kind, left) else {
                    walk.overflow = true;
                    return Err(DiceError::PoolSize(left as i64));
                };
                let den = outcomes.denominator as f64;
                let choice =
                    walk.choose(outcomes.counts.len() as u32, |c| outcomes.numerators[c as usize] as f64 / den)?;
                let picked = &outcomes.counts[choice as usize];
                for (c, p) in counts.iter_mut().zip(picked) {
                    *c += p;
                }
                walk.weight_num.push(outcomes.numerators[choice as usize]);
                walk.weight_den.push(outcomes.denominator);
            }
        }
        Ok(())
    }

    /// Rolls `n` dice of `kind` for a roll object. From the generator (or
    /// when every die is forced) the counts are written into `counts` at
    /// once; when enumerating, the dice not forced stay undecided in a
    /// [`LazyRoll`] until the rule looks at them (`counts` then holds the
    /// forced dice). Kinds with more than 64 values are enumerated at once,
    /// as by [`DiceBox::roll_into`].
    pub fn roll_start(&mut self, kind: usize, n: u32, counts: &mut [u32]) -> Result<Rolled, DiceError> {
        if self.roll_plain(kind, n, counts) {
            return Ok(Rolled::Done { forced: false });
        }
        let (left, forced) = self.take_forced(kind, n, counts)?;
        let nv = self.kinds[kind].values.len();
        match &mut self.source {
            Source::Enumerate(walk) if left > 0 && nv <= 64 => {
                let index = walk.start_lazy(kind, nv, counts, left, forced);
                Ok(Rolled::Lazy { index, epoch: walk.epoch, forced })
            }
            _ => {
                if left > 0 {
                    self.roll_rest(kind, left, counts)?;
                }
                Ok(Rolled::Done { forced })
            }
        }
    }

    /// Enumeration state, when enumerating, with the kinds (for
    /// [`Enumeration::observe`] and [`Enumeration::resolve`]).
    pub fn walk_mut(&mut self) -> Option<(&[DieKind], &mut Enumeration)> {
        match &mut self.source {
            Source::Enumerate(walk) => Some((&self.kinds, walk)),
            Source::Random(_) => None,
        }
    }

    /// Rolls and returns a [`Roll`].
    pub fn roll(&mut self, kind: usize, n: u32) -> Result<Roll, DiceError> {
        let mut counts = vec![0; self.kinds[kind].values.len()];
        let forced = self.roll_into(kind, n, &mut counts)?;
        Ok(Roll { kind, counts, forced })
    }

    /// Faces of a roll in canonical order.
    pub fn faces(&self, roll: &Roll) -> Vec<Face> {
        let kind = &self.kinds[roll.kind];
        let mut out = Vec::new();
        for (v, &c) in kind.values.iter().zip(&roll.counts) {
            for _ in 0..c {
                out.push(v.clone());
            }
        }
        out
    }

    /// Sum of a numeric roll.
    pub fn total(&self, roll: &Roll) -> Option<i64> {
        let kind = &self.kinds[roll.kind];
        let mut total = 0;
        for (v, &c) in kind.values.iter().zip(&roll.counts) {
            match v {
                Face::Num(n) => total += n * c as i64,
                Face::Sym(_) => return None,
            }
        }
        Some(total)
    }
}

#[cfg(test)]
mod tests;
