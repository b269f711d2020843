//! Mergeable statistics for `sim`.
//!
//! An [`Acc`] summarises one metric over any set of trials. Every part of it
//! combines with integer arithmetic (counts, fixed-point sums, min and max),
//! so adding trials up in any order — one thread or many, one run or shards
//! merged later — gives bit-for-bit the same result.
//!
//! Sums are kept in fixed point: each value is rounded to a multiple of
//! 2^-32 ([`FIXED_BITS`]) before it is added, in an `i128`. For the whole
//! numbers and 0/1 flags that rules return this is exact; for fractional
//! values the rounding is below 10^-9 per value.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// Fraction bits of the fixed-point sums.
pub const FIXED_BITS: u32 = 32;
const SCALE: f64 = (1u64 << FIXED_BITS) as f64;

/// Largest magnitude a metric value may have (sums of squares must fit in `i128`).
pub const MAX_ABS_VALUE: f64 = 1e12;

/// Most distinct values whose counts a metric keeps; past that it keeps only
/// its sums (mean, sd, min, max) and drops the distribution and quantiles.
pub const MAX_DISTINCT: usize = 10_000;

/// Metrics added trial by trial, for `sim`'s blocks: a whole value from 0
/// to `SMALL - 1` (the usual metric: figures, hits, a yes/no) is only
/// counted, and goes into its [`Acc`] at [`Tally::settle`]; any other value
/// goes in at once. The result is the same as adding every value (an `Acc`
/// is order-free), and a count costs a tenth of [`Acc::add`].
#[derive(Default)]
pub struct Tally {
    small: Vec<[u64; SMALL]>,
}

/// The whole values `Tally` counts apart: 0 up to this, exclusive.
const SMALL: usize = 16;

impl Tally {
    /// Adds one trial's values (NaN: the metric is absent) to `accs`, by slot.
    #[inline]
    pub fn add(&mut self, accs: &mut Vec<Acc>, values: &[f64]) {
        if accs.len() < values.len() {
            accs.resize_with(values.len(), Acc::default);
        }
        if self.small.len() < values.len() {
            self.small.resize(values.len(), [0; SMALL]);
        }
        for ((acc, small), &v) in accs.iter_mut().zip(&mut self.small).zip(values) {
            // `as` saturates (NaN to 0): the round trip keeps only whole 0..SMALL
            // (and not -0, which `add` keeps as the minimum if it comes first).
            let i = v as usize;
            if i < SMALL && (i as f64).to_bits() == v.to_bits() {
                small[i] += 1;
            } else if !v.is_nan() {
                acc.add(v);
            }
        }
    }

    /// Puts the counted values into `accs` (before anyone reads them).
    pub fn settle(&mut self, accs: &mut [Acc]) {
        for (acc, small) in accs.iter_mut().zip(&mut self.small) {
            for (i, c) in small.iter_mut().enumerate() {
                acc.add_times(i as f64, *c);
                *c = 0;
            }
        }
    }
}

/// A total order on finite f64 values as u64 keys (negative zero folds into zero).
pub fn key_of(v: f64) -> u64 {
    let v = if v == 0.0 { 0.0 } else { v };
    let b = v.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The value a key stands for.
pub fn value_of(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

/// How a value is written as a distribution key: whole numbers without `.0`,
/// others in Rust's shortest round-tripping form.
pub fn value_label(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The fixed-point form of a value and of its square.
#[inline]
fn fixed(v: f64) -> (i128, i128) {
    // Whole numbers below 2^26 (the usual metric: figures, hits, flags) have
    // an exact square in f64, so integer arithmetic gives the same result
    // without the float rounding calls.
    let i = v as i64;
    if i as f64 == v && i.unsigned_abs() < 1 << 26 {
        return ((i as i128) << FIXED_BITS, ((i * i) as i128) << FIXED_BITS);
    }
    ((v * SCALE).round() as i128, (v * v * SCALE).round() as i128)
}

/// A signed 192-bit integer, `hi * 2^128 + lo`: the fixed-point sums.
///
/// A sum of squares of values up to [`MAX_ABS_VALUE`] passes `i128` after
/// about 40 000 trials (each square is up to 2^112 in fixed point); 64 more
/// bits hold 2^64 of them, more trials than a run can have. Addition is
/// two's complement with a carry, so it stays exact and order-free.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wide {
    hi: i64,
    lo: u128,
}

impl Wide {
    /// Adds a 128-bit value.
    #[inline]
    pub fn add(&mut self, v: i128) {
        self.add_wide(Wide { hi: if v < 0 { -1 } else { 0 }, lo: v as u128 });
    }

    /// Adds another wide value.
    #[inline]
    pub fn add_wide(&mut self, o: Wide) {
        let (lo, carry) = self.lo.overflowing_add(o.lo);
        self.lo = lo;
        self.hi = self.hi.wrapping_add(o.hi).wrapping_add(i64::from(carry));
    }

    /// `v * times`, exactly (`v` a fixed-point value or square, `times` a
    /// count of trials).
    pub fn times(v: i128, times: u64) -> Wide {
        if let Some(x) = v.checked_mul(i128::from(times)) {
            return Wide::from(x);
        }
        // |v| <= 2^127 and times < 2^64: the product fits in 192 bits, so
        // `from_big` always answers.
        Wide::from_big(&(BigInt::from(v) * BigInt::from(times))).unwrap_or_default()
    }

    /// The value as a big integer.
    pub fn to_big(self) -> BigInt {
        (BigInt::from(self.hi) << 128u32) + BigInt::from(self.lo)
    }

    /// The value as f64 (nearest).
    pub fn to_f64(self) -> f64 {
        self.to_big().to_f64().unwrap_or(f64::NAN)
    }

    /// The big integer as a wide value, when it fits 192 bits.
    pub fn from_big(b: &BigInt) -> Option<Wide> {
        let mut bytes = b.to_signed_bytes_le();
        if bytes.len() > 24 {
            return None;
        }
        let fill = if b.is_negative() { 0xff } else { 0 };
        bytes.resize(24, fill);
        let lo = u128::from_le_bytes(bytes[..16].try_into().ok()?);
        let hi = i64::from_le_bytes(bytes[16..].try_into().ok()?);
        Some(Wide { hi, lo })
    }
}

impl From<i128> for Wide {
    fn from(v: i128) -> Wide {
        let mut w = Wide::default();
        w.add(v);
        w
    }
}

impl std::fmt::Display for Wide {
    /// The decimal value (as `sim --json` writes it in `raw`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.to_big())
    }
}

impl std::str::FromStr for Wide {
    type Err = String;

    fn from_str(s: &str) -> Result<Wide, String> {
        let b: BigInt = s.parse().map_err(|_| format!("'{s}' is not a whole number"))?;
        Wide::from_big(&b).ok_or_else(|| format!("'{s}' is out of range"))
    }
}

/// One metric over a set of trials.
#[derive(Clone, Debug, PartialEq)]
pub struct Acc {
    pub n: u64,
    /// Sum of values, fixed point (value * 2^32).
    pub sum: Wide,
    /// Sum of squared values, fixed point.
    pub sum_sq: Wide,
    pub min: f64,
    pub max: f64,
    /// Count of each value (by [`key_of`]); `None` once there were more than
    /// [`MAX_DISTINCT`] distinct values.
    pub counts: Option<BTreeMap<u64, u64>>,
    /// The first trial (lowest number) whose value was `min`, and the first
    /// whose value was `max`: the trials `sim` offers to replay. `None` where
    /// trials are not numbered (values added one by one) or not recorded.
    pub min_trial: Option<u64>,
    pub max_trial: Option<u64>,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            n: 0,
            sum: Wide::default(),
            sum_sq: Wide::default(),
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            counts: Some(BTreeMap::new()),
            min_trial: None,
            max_trial: None,
        }
    }
}

impl Acc {
    /// Adds one value (finite, |v| <= [`MAX_ABS_VALUE`]: check before).
    #[inline]
    pub fn add(&mut self, v: f64) {
        let (s, sq) = fixed(v);
        self.n += 1;
        self.sum.add(s);
        self.sum_sq.add(sq);
        if v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        if let Some(c) = &mut self.counts {
            // Values repeat: a lookup first, cheaper than `entry`.
            let k = key_of(v);
            if let Some(n) = c.get_mut(&k) {
                *n += 1;
            } else {
                c.insert(k, 1);
                if c.len() > MAX_DISTINCT {
                    self.counts = None;
                }
            }
        }
    }

    /// Adds `times` copies of a value (checked as for [`Acc::add`]); the
    /// same result as `times` calls to `add`.
    pub fn add_times(&mut self, v: f64, times: u64) {
        if times == 0 {
            return;
        }
        let (s, sq) = fixed(v);
        self.n += times;
        self.sum.add_wide(Wide::times(s, times));
        self.sum_sq.add_wide(Wide::times(sq, times));
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        if let Some(c) = &mut self.counts {
            *c.entry(key_of(v)).or_insert(0) += times;
            if c.len() > MAX_DISTINCT {
                self.counts = None;
            }
        }
    }

    /// Adds another accumulator (associative and commutative).
    pub fn merge(&mut self, o: &Acc) {
        // The first trial of the extreme value, whichever part saw it: the
        // same whatever the order of merging.
        let first = |mine: Option<u64>, theirs: Option<u64>| match (mine, theirs) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if o.n > 0 {
            self.min_trial = match o.min.partial_cmp(&self.min) {
                Some(std::cmp::Ordering::Less) => o.min_trial,
                Some(std::cmp::Ordering::Equal) => first(self.min_trial, o.min_trial),
                _ => self.min_trial,
            };
            self.max_trial = match o.max.partial_cmp(&self.max) {
                Some(std::cmp::Ordering::Greater) => o.max_trial,
                Some(std::cmp::Ordering::Equal) => first(self.max_trial, o.max_trial),
                _ => self.max_trial,
            };
        }
        self.n += o.n;
        self.sum.add_wide(o.sum);
        self.sum_sq.add_wide(o.sum_sq);
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.counts = match (self.counts.take(), &o.counts) {
            (Some(mut a), Some(b)) => {
                for (k, c) in b {
                    *a.entry(*k).or_insert(0) += c;
                }
                (a.len() <= MAX_DISTINCT).then_some(a)
            }
            _ => None,
        };
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        self.sum.to_f64() / SCALE / self.n as f64
    }

    /// Sample variance (n - 1 in the denominator), computed without cancellation.
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        // (n * sum_sq * 2^32 - sum^2) / (n (n - 1)) / 2^64, exactly in big integers.
        let n = BigInt::from(self.n);
        let num = &n * self.sum_sq.to_big() * BigInt::from(1u64 << FIXED_BITS) - self.sum.to_big().pow(2);
        let num = if num.is_negative() { BigInt::zero() } else { num };
        let den = &n * (&n - 1u32);
        // Keep 64 bits of precision when dividing.
        let q = (num << 64u32) / den;
        q.to_f64().unwrap_or(f64::INFINITY) / 2f64.powi(64) / SCALE / SCALE
    }

    pub fn sd(&self) -> f64 {
        self.variance().sqrt()
    }

    /// True when every value seen was 0 or 1 (a yes/no metric).
    pub fn is_binary(&self) -> bool {
        match &self.counts {
            Some(c) => c.keys().all(|&k| {
                let v = value_of(k);
                v == 0.0 || v == 1.0
            }),
            None => false,
        }
    }

    /// True when every value seen was a whole number (distribution known).
    pub fn is_integer(&self) -> bool {
        match &self.counts {
            Some(c) => c.keys().all(|&k| value_of(k).fract() == 0.0),
            None => false,
        }
    }

    /// The 95% interval of the mean: Wilson's score interval for yes/no
    /// metrics, the normal interval mean ± 1.96 sd/√n otherwise.
    pub fn ci95(&self) -> (f64, f64) {
        const Z: f64 = 1.959_963_984_540_054;
        let n = self.n as f64;
        if self.n == 0 {
            return (f64::NAN, f64::NAN);
        }
        let m = self.mean();
        if self.is_binary() {
            let z2 = Z * Z;
            let centre = (m + z2 / (2.0 * n)) / (1.0 + z2 / n);
            let half = Z / (1.0 + z2 / n) * (m * (1.0 - m) / n + z2 / (4.0 * n * n)).sqrt();
            return ((centre - half).max(0.0), (centre + half).min(1.0));
        }
        self.ci95_normal()
    }

    /// The normal 95% interval mean ± 1.96 sd/√n (used for paired
    /// differences, which are not yes/no even when their values are 0 and 1).
    pub fn ci95_normal(&self) -> (f64, f64) {
        const Z: f64 = 1.959_963_984_540_054;
        if self.n == 0 {
            return (f64::NAN, f64::NAN);
        }
        let m = self.mean();
        let half = Z * self.sd() / (self.n as f64).sqrt();
        (m - half, m + half)
    }

    /// The `p`-quantile (inverse of the empirical distribution function), when
    /// the counts are known.
    pub fn quantile(&self, p: f64) -> Option<f64> {
        let c = self.counts.as_ref()?;
        if self.n == 0 {
            return None;
        }
        let target = ((p * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut cum = 0;
        for (&k, &n) in c {
            cum += n;
            if cum >= target {
                return Some(value_of(k));
            }
        }
        c.keys().next_back().map(|&k| value_of(k))
    }

    /// (value, count) pairs in value order.
    pub fn distribution(&self) -> Option<Vec<(f64, u64)>> {
        self.counts.as_ref().map(|c| c.iter().map(|(&k, &n)| (value_of(k), n)).collect())
    }

    /// Checks that the figures agree with one another, as those of an
    /// accumulator that values were added to always do: its counts add up to
    /// `n`, its smallest and largest values and its sums are those of its
    /// counts (past [`MAX_DISTINCT`] values, when only sums are kept, the
    /// sums lie between `n` times the smallest and `n` times the largest).
    /// `merge` checks every accumulator a shard carries with this.
    pub fn check(&self) -> Result<(), String> {
        if self.n == 0 {
            if !self.sum.to_big().is_zero()
                || !self.sum_sq.to_big().is_zero()
                || self.counts.as_ref().is_some_and(|c| !c.is_empty())
            {
                return Err("it records no values, yet has sums or counts".into());
            }
            return Ok(());
        }
        let metric_value = |v: f64| v.is_finite() && v.abs() <= MAX_ABS_VALUE;
        if !(metric_value(self.min) && metric_value(self.max) && self.min <= self.max) {
            return Err(format!(
                "its smallest and largest values ({} and {}) are not a range of metric values",
                value_label(self.min),
                value_label(self.max)
            ));
        }
        let Some(counts) = &self.counts else {
            return self.check_sums_in_range();
        };
        if counts.len() > MAX_DISTINCT {
            return Err(format!("it counts {} distinct values, more than sim keeps ({MAX_DISTINCT})", counts.len()));
        }
        let mut total: u64 = 0;
        for (&k, &times) in counts {
            let v = value_of(k);
            if times == 0 || !metric_value(v) {
                return Err(format!("its count of {} is not a count of a metric value", value_label(v)));
            }
            total = total.checked_add(times).ok_or("its counts add up to more trials than a run can have")?;
        }
        if total != self.n {
            return Err(format!("its counts add up to {total} values, but it records {}", self.n));
        }
        let mut again = Acc::default();
        for (&k, &times) in counts {
            again.add_times(value_of(k), times);
        }
        if (again.min, again.max) != (self.min, self.max) {
            return Err(format!(
                "its smallest and largest values ({} and {}) are not those it counts ({} and {})",
                value_label(self.min),
                value_label(self.max),
                value_label(again.min),
                value_label(again.max)
            ));
        }
        if (again.sum, again.sum_sq) != (self.sum, self.sum_sq) {
            return Err("its sums are not the sums of the values it counts".into());
        }
        Ok(())
    }

    /// [`Acc::check`] without counts: at least [`MAX_DISTINCT`] + 1 values,
    /// and sums between `n` times those of the smallest and the largest.
    fn check_sums_in_range(&self) -> Result<(), String> {
        if self.n <= MAX_DISTINCT as u64 {
            return Err(format!(
                "it keeps no counts, which sim drops only past {MAX_DISTINCT} distinct values, yet it records {}",
                self.n
            ));
        }
        let n = BigInt::from(self.n);
        let ((lo, lo_sq), (hi, hi_sq)) = (fixed(self.min), fixed(self.max));
        let sum = self.sum.to_big();
        if sum < &n * lo || sum > &n * hi {
            return Err("its sum is not that of values between its smallest and its largest".into());
        }
        // Squares are smallest at the value nearest 0.
        let least_sq = if self.min >= 0.0 {
            lo_sq
        } else if self.max <= 0.0 {
            hi_sq
        } else {
            0
        };
        let sum_sq = self.sum_sq.to_big();
        if sum_sq < &n * least_sq || sum_sq > &n * lo_sq.max(hi_sq) {
            return Err("its sum of squares is not that of values between its smallest and its largest".into());
        }
        Ok(())
    }
}

/// Where each metric (by slot) first took its smallest and its largest
/// value in a worker's trials, which it runs in increasing order: (value,
/// trial) of each. Kept beside the [`Tally`], which adds values later.
#[derive(Default)]
pub struct Extremes(Vec<Option<[(f64, u64); 2]>>);

impl Extremes {
    /// Notes trial `trial`'s values (NaN: the metric is absent).
    #[inline]
    pub fn add(&mut self, values: &[f64], trial: u64) {
        if self.0.len() < values.len() {
            self.0.resize(values.len(), None);
        }
        for (e, &v) in self.0.iter_mut().zip(values) {
            match e {
                _ if v.is_nan() => {}
                None => *e = Some([(v, trial); 2]),
                Some([lo, hi]) => {
                    if v < lo.0 {
                        *lo = (v, trial);
                    }
                    if v > hi.0 {
                        *hi = (v, trial);
                    }
                }
            }
        }
    }

    /// Notes one value of slot `slot` (a paired difference).
    #[inline]
    pub fn add_one(&mut self, slot: usize, v: f64, trial: u64) {
        if self.0.len() <= slot {
            self.0.resize(slot + 1, None);
        }
        match &mut self.0[slot] {
            e @ None => *e = Some([(v, trial); 2]),
            Some([lo, hi]) => {
                if v < lo.0 {
                    *lo = (v, trial);
                }
                if v > hi.0 {
                    *hi = (v, trial);
                }
            }
        }
    }

    /// Writes the trials into the accumulators of the same values.
    pub fn put(&self, accs: &mut [Acc]) {
        for (acc, e) in accs.iter_mut().zip(&self.0) {
            if let Some([lo, hi]) = e {
                acc.min_trial = Some(lo.1);
                acc.max_trial = Some(hi.1);
            }
        }
    }
}

/// Named metrics in name order.
pub type Metrics = BTreeMap<String, Acc>;

/// Merges `b` into `a`, metric by metric.
pub fn merge_metrics(a: &mut Metrics, b: &Metrics) {
    for (k, acc) in b {
        a.entry(k.clone()).or_default().merge(acc);
    }
}

/// The quantiles reported.
pub const QUANTILES: [f64; 5] = [0.05, 0.25, 0.5, 0.75, 0.95];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_of_whole_numbers_is_the_general_formula() {
        for v in [0.0, 1.0, -1.0, 7.0, -123.0, 65_535.0, 67_108_863.0, -67_108_863.0] {
            assert_eq!(fixed(v), ((v * SCALE).round() as i128, (v * v * SCALE).round() as i128), "{v}");
        }
        assert_eq!(fixed(0.5), ((0.5 * SCALE) as i128, (0.25 * SCALE) as i128));
    }

    #[test]
    fn keys_order_like_values() {
        let vs = [-1e9, -2.5, -1.0, 0.0, 1e-9, 0.5, 1.0, 3.0, 1e12];
        for w in vs.windows(2) {
            assert!(key_of(w[0]) < key_of(w[1]), "{w:?}");
        }
        for v in vs {
            assert_eq!(value_of(key_of(v)), v);
        }
        assert_eq!(key_of(-0.0), key_of(0.0));
    }

    #[test]
    fn mean_sd_and_quantiles() {
        let mut a = Acc::default();
        for v in [1.0, 2.0, 3.0, 4.0] {
            a.add(v);
        }
        assert_eq!(a.mean(), 2.5);
        assert!((a.variance() - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.quantile(0.5), Some(2.0));
        assert_eq!(a.quantile(0.95), Some(4.0));
        assert_eq!(a.quantile(0.05), Some(1.0));
        assert!(!a.is_binary());
        assert!(a.is_integer());
    }

    #[test]
    fn merge_is_order_free() {
        let vals: Vec<f64> = (0..1000).map(|i| ((i * 7919) % 113) as f64 / 7.0 - 3.0).collect();
        let mut one = Acc::default();
        vals.iter().for_each(|&v| one.add(v));
        let mut parts: Vec<Acc> = vec![Acc::default(); 3];
        for (i, &v) in vals.iter().enumerate() {
            parts[(i * 31) % 3].add(v);
        }
        let mut m = Acc::default();
        for p in parts.iter().rev() {
            m.merge(p);
        }
        assert_eq!(m, one);
    }

    /// Workers note extremes over their own trials; merged in any order the
    /// first trial of each extreme is the one a single worker finds.
    #[test]
    fn extreme_trials_are_the_first_whatever_the_split() {
        let vals: Vec<f64> = (0..300u64).map(|i| ((i * 37) % 11) as f64).collect();
        let run = |trials: &mut dyn Iterator<Item = u64>| {
            let (mut accs, mut ex) = (vec![Acc::default()], Extremes::default());
            for i in trials {
                accs[0].add(vals[i as usize]);
                ex.add(&[vals[i as usize]], i);
            }
            ex.put(&mut accs);
            accs.remove(0)
        };
        let one = run(&mut (0..300));
        assert_eq!((one.min_trial, one.max_trial), (Some(0), Some(8)), "{one:?}");
        let parts = [run(&mut (0..300).filter(|i| i % 3 == 1)), run(&mut (0..300).filter(|i| i % 3 != 1))];
        for order in [[0, 1], [1, 0]] {
            let mut m = Acc::default();
            order.iter().for_each(|&k| m.merge(&parts[k]));
            assert_eq!(m, one);
        }
    }

    #[test]
    fn sums_at_the_largest_values_do_not_wrap() {
        let mut a = Acc::default();
        for i in 0..200_000u32 {
            a.add(if i % 2 == 0 { 0.0 } else { MAX_ABS_VALUE });
            a.add(-MAX_ABS_VALUE);
        }
        assert!((a.mean() + MAX_ABS_VALUE / 4.0).abs() < 1.0, "{}", a.mean());
        let sd = a.sd();
        // Values -1e12 (half), 0 and 1e12 (a quarter each): sd = 1e12 * sqrt(11/16).
        assert!((sd / MAX_ABS_VALUE - (11.0f64 / 16.0).sqrt()).abs() < 1e-4, "{sd}");
        let back: Wide = a.sum_sq.to_string().parse().expect("round trip");
        assert_eq!(back, a.sum_sq);
        let neg: Wide = a.sum.to_string().parse().expect("round trip");
        assert_eq!(neg, a.sum);
    }

    #[test]
    fn wide_adds_like_big_integers() {
        let vals = [i128::MAX, i128::MAX, -5, i128::MIN, 7, i128::MIN, i128::MIN, 3];
        let mut w = Wide::default();
        let mut b = BigInt::zero();
        for v in vals {
            w.add(v);
            b += v;
            assert_eq!(w.to_big(), b);
            assert_eq!(Wide::from_big(&b), Some(w));
        }
    }

    #[test]
    fn a_tally_adds_what_single_adds_add() {
        // Small whole values (counted), others, -0 (kept as the minimum when
        // it comes first), absent metrics (NaN), and a value past SMALL.
        let rows: Vec<Vec<f64>> = (0..500)
            .map(|i| {
                vec![
                    -0.0 * f64::from(i),
                    f64::from(i % 7),
                    if i % 3 == 0 { f64::NAN } else { f64::from(i % 19) - 2.0 },
                    f64::from(i) / 4.0,
                ]
            })
            .collect();
        let mut one: Vec<Acc> = vec![Acc::default(); 4];
        for row in &rows {
            for (a, &v) in one.iter_mut().zip(row) {
                if !v.is_nan() {
                    a.add(v);
                }
            }
        }
        let (mut accs, mut tally) = (Vec::new(), Tally::default());
        for (i, row) in rows.iter().enumerate() {
            tally.add(&mut accs, row);
            if i % 97 == 0 {
                tally.settle(&mut accs); // blocks of any length
            }
        }
        tally.settle(&mut accs);
        assert_eq!(accs, one);
        assert_eq!(accs[0].min.to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn times_is_the_exact_product() {
        for (v, n) in [(5i128, 3u64), (-7, 1000), (i128::MAX, 3), (i128::MIN, u64::MAX), (1 << 100, u64::MAX)] {
            assert_eq!(Wide::times(v, n).to_big(), BigInt::from(v) * BigInt::from(n), "{v} * {n}");
        }
    }

    #[test]
    fn wilson_interval_stays_in_unit_range() {
        let mut a = Acc::default();
        for _ in 0..10 {
            a.add(0.0);
        }
        let (lo, hi) = a.ci95();
        assert_eq!(lo, 0.0);
        assert!(hi > 0.2 && hi < 0.35, "{hi}");
    }
}
