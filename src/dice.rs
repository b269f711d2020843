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
//! Randomness: PCG-64 MCG (`rand_pcg::Pcg64Mcg`, 128-bit state, XSL-RR output),
//! seeded with SplitMix64 of the user's seed, and uniform faces drawn with
//! `rand`'s unbiased `random_range`. Both are platform independent, so a seed
//! replays a session exactly on any machine built from the same `Cargo.lock`.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::battlefield::same_name;
use std::fmt;
use std::rc::Rc;

use rand::Rng;
use rand_pcg::Pcg64Mcg;

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
#[derive(Clone, Debug)]
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
}

impl DieKind {
    /// Builds a kind from its printed faces.
    pub fn new(name: &str, faces: Vec<Face>) -> Result<DieKind, DiceError> {
        if faces.is_empty() {
            return Err(DiceError::BadKind(name.into(), "a die needs at least one face".into()));
        }
        if faces.len() > 250 {
            return Err(DiceError::BadKind(name.into(), "a die may have at most 250 faces".into()));
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
        Ok(DieKind { name: name.into(), values, weights, face_value, numeric })
    }

    /// A numeric die with faces 1..=sides (`d6`, `d10`, ...).
    pub fn numeric(name: &str, sides: u32) -> Result<DieKind, DiceError> {
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

impl PoolOutcomes {
    /// Every multiset of `n` dice over the die's values, weighted by the
    /// multinomial coefficient times each value's face multiplicity.
    /// Returns `None` when the weights overflow 128 bits (pool too large to enumerate).
    pub fn new(kind: &DieKind, n: u32) -> Option<PoolOutcomes> {
        let k = kind.values.len();
        let denominator = (kind.sides() as u128).checked_pow(n)?;
        let mut out = PoolOutcomes { counts: Vec::new(), numerators: Vec::new(), denominator };
        let mut cur = vec![0u32; k];
        fn rec(kind: &DieKind, i: usize, left: u32, n: u32, cur: &mut Vec<u32>, out: &mut PoolOutcomes) -> Option<()> {
            if i + 1 == cur.len() {
                cur[i] = left;
                // multinomial n! / prod(c!) * prod(w^c)
                let mut num: u128 = 1;
                let mut placed = 0u32;
                for (j, &c) in cur.iter().enumerate() {
                    for t in 1..=c {
                        placed += 1;
                        num = num.checked_mul(placed as u128)? / t as u128;
                    }
                    num = num.checked_mul((kind.weights[j] as u128).checked_pow(c)?)?;
                }
                debug_assert_eq!(placed, n);
                out.counts.push(cur.clone());
                out.numerators.push(num);
                return Some(());
            }
            for c in (0..=left).rev() {
                cur[i] = c;
                rec(kind, i + 1, left - c, n, cur, out)?;
            }
            Some(())
        }
        rec(kind, 0, n, n, &mut cur, &mut out)?;
        Some(out)
    }
}

/// Where dice results come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// Seeded pseudo-random generator.
    Random(Pcg64Mcg),
    /// Enumeration for `exact`: replay a path of outcome indices, then branch.
    Enumerate(Enumeration),
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
}

impl Enumeration {
    /// Starts the next execution of the trial: replay from the first choice point.
    pub fn restart(&mut self) {
        self.pos = 0;
        self.weight_num.clear();
        self.weight_den.clear();
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

    fn outcomes(&mut self, kinds: &[DieKind], kind: usize, n: u32) -> Option<Rc<PoolOutcomes>> {
        if let Some(o) = self.cache.get(&(kind, n)) {
            return Some(o.clone());
        }
        let o = Rc::new(PoolOutcomes::new(&kinds[kind], n)?);
        self.cache.insert((kind, n), o.clone());
        Some(o)
    }
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
        }
    }

    /// Defines or replaces a die kind.
    pub fn define(&mut self, kind: DieKind) -> usize {
        let kinds = Rc::make_mut(&mut self.kinds);
        if let Some(i) = kinds.iter().position(|k| k.name == kind.name) {
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

    /// Rolls `n` dice of `kind`, writing the count of each value into `counts`
    /// (which must have one slot per value). Returns true if any die was forced.
    pub fn roll_into(&mut self, kind: usize, n: u32, counts: &mut [u32]) -> Result<bool, DiceError> {
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
        if left == 0 {
            return Ok(forced);
        }
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
                let choice = if walk.pos < walk.path.len() {
                    walk.path[walk.pos]
                } else {
                    walk.path.push(0);
                    walk.widths.push(outcomes.counts.len() as u32);
                    0
                };
                walk.pos += 1;
                let picked = &outcomes.counts[choice as usize];
                for (c, p) in counts.iter_mut().zip(picked) {
                    *c += p;
                }
                walk.weight_num.push(outcomes.numerators[choice as usize]);
                walk.weight_den.push(outcomes.denominator);
            }
        }
        Ok(forced)
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
mod tests {
    use super::*;

    fn battle() -> DieKind {
        let f = |s: &str| Face::Sym(s.into());
        DieKind::new("battle", vec![f("infantry"), f("infantry"), f("cavalry"), f("artillery"), f("sabre"), f("flag")])
            .unwrap()
    }

    #[test]
    fn symbol_die_merges_repeated_faces() {
        let b = battle();
        assert_eq!(b.values.len(), 5);
        assert_eq!(b.weights, vec![2, 1, 1, 1, 1]);
        assert_eq!(b.sides(), 6);
        assert!(!b.numeric);
    }

    #[test]
    fn same_seed_same_rolls_other_seed_differs() {
        let mut a = DiceBox::new(7);
        let mut b = DiceBox::new(7);
        let mut c = DiceBox::new(8);
        let d6 = a.kind_index("d6").unwrap();
        let ra: Vec<_> = (0..50).map(|_| a.roll(d6, 3).unwrap().counts).collect();
        let rb: Vec<_> = (0..50).map(|_| b.roll(d6, 3).unwrap().counts).collect();
        let rc: Vec<_> = (0..50).map(|_| c.roll(d6, 3).unwrap().counts).collect();
        assert_eq!(ra, rb);
        assert_ne!(ra, rc);
    }

    #[test]
    fn forced_results_come_first_then_random() {
        let mut d = DiceBox::new(1);
        let d6 = d.kind_index("d6").unwrap();
        d.force(d6, &[5, 5]); // value index 5 = face 6
        let r = d.roll(d6, 3).unwrap();
        assert!(r.forced);
        assert!(r.counts[5] >= 2);
        assert_eq!(r.counts.iter().sum::<u32>(), 3);
        assert!(d.unused_forced().is_empty());
    }

    #[test]
    fn pool_outcomes_are_multisets_with_multinomial_weights() {
        let d6 = DieKind::numeric("d6", 6).unwrap();
        let o = PoolOutcomes::new(&d6, 4).unwrap();
        assert_eq!(o.counts.len(), 126); // C(9,4)
        assert_eq!(o.numerators.iter().sum::<u128>(), 1296);
        let b = battle();
        let o = PoolOutcomes::new(&b, 3).unwrap();
        assert_eq!(o.counts.len(), 35); // C(7,3)
        assert_eq!(o.numerators.iter().sum::<u128>(), 216);
        // three infantry: 2^3 of 216
        let idx = o.counts.iter().position(|c| c == &vec![3, 0, 0, 0, 0]).unwrap();
        assert_eq!(o.numerators[idx], 8);
    }

    #[test]
    fn enumeration_walks_every_leaf_once() {
        let mut d = DiceBox::new(0);
        let d6 = d.kind_index("d6").unwrap();
        d.set_source(Source::Enumerate(Enumeration::default()));
        let mut leaves = 0;
        let mut total_weight = 0u128;
        loop {
            if let Source::Enumerate(w) = d.source_mut() {
                w.restart();
            }
            let first = d.roll(d6, 1).unwrap();
            // second roll only when the first is a 6: a branch-dependent tree
            if first.counts[5] == 1 {
                d.roll(d6, 2).unwrap();
            }
            let Source::Enumerate(w) = d.source_mut() else { unreachable!() };
            let num: u128 = w.weight_num.iter().product();
            let den: u128 = w.weight_den.iter().product();
            total_weight += num * (216 / den);
            leaves += 1;
            if !w.advance() {
                break;
            }
        }
        assert_eq!(leaves, 5 + 21);
        assert_eq!(total_weight, 216);
    }
}
