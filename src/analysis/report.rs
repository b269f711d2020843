//! Text and JSON reports for `sim`, `exact` and `merge`.
//!
//! The JSON of `sim` carries, besides the readable figures, a `raw` part per
//! metric (count, fixed-point sums, min, max, and the count of every value)
//! from which `merge` rebuilds the exact accumulators: merged shards print the
//! same JSON as one run.

use std::fmt::Write;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use serde_json::{json, Map, Value};

use super::exact::{ratio_f64, ratio_str, ExactMetric, ExactResult};
use super::sim::SimResult;
use super::stats::{value_label, value_of, Acc, Metrics, FIXED_BITS, QUANTILES};

fn num(v: f64) -> Value {
    serde_json::Number::from_f64(v).map(Value::Number).unwrap_or(Value::Null)
}

fn quantile_label(p: f64) -> String {
    format!("{}%", value_label(p * 100.0))
}

/// The JSON of one metric's accumulator.
/// `paired`: a paired difference (normal interval, never Wilson's).
pub fn acc_json(a: &Acc, paired: bool) -> Value {
    let (lo, hi) = if paired { a.ci95_normal() } else { a.ci95() };
    let mut m = Map::new();
    m.insert("n".into(), json!(a.n));
    m.insert("mean".into(), num(a.mean()));
    m.insert("ci95".into(), json!([num(lo), num(hi)]));
    m.insert("sd".into(), num(a.sd()));
    m.insert("min".into(), num(a.min));
    m.insert("max".into(), num(a.max));
    // The first trials with the extreme values: `--trial I --explain` shows one.
    if let (Some(lo), Some(hi)) = (a.min_trial, a.max_trial) {
        m.insert("min_trial".into(), json!(lo));
        m.insert("max_trial".into(), json!(hi));
    }
    if a.counts.is_some() {
        let q: Map<String, Value> =
            QUANTILES.iter().filter_map(|&p| a.quantile(p).map(|v| (quantile_label(p), num(v)))).collect();
        m.insert("quantiles".into(), Value::Object(q));
    }
    let mut raw = Map::new();
    raw.insert("n".into(), json!(a.n));
    raw.insert("sum".into(), json!(a.sum.to_string()));
    raw.insert("sum_sq".into(), json!(a.sum_sq.to_string()));
    raw.insert("fixed_bits".into(), json!(FIXED_BITS));
    raw.insert("min".into(), json!(value_label(a.min)));
    raw.insert("max".into(), json!(value_label(a.max)));
    match a.distribution() {
        Some(d) => {
            let dist: Map<String, Value> =
                d.iter().map(|&(v, c)| (value_label(v), num(c as f64 / a.n as f64))).collect();
            m.insert("distribution".into(), Value::Object(dist));
            let counts: Map<String, Value> = d.iter().map(|&(v, c)| (value_label(v), json!(c))).collect();
            raw.insert("counts".into(), Value::Object(counts));
        }
        None => {
            raw.insert("counts".into(), Value::Null);
        }
    }
    m.insert("raw".into(), Value::Object(raw));
    Value::Object(m)
}

fn metrics_json(ms: &Metrics, paired: bool) -> Value {
    Value::Object(ms.iter().map(|(k, a)| (k.clone(), acc_json(a, paired))).collect())
}

/// What `sim --json` and a sweep's JSON both begin with: the run's setup,
/// seed, the trials covered (`trials`, `total_trials`, `ranges`), the shard
/// and the sources `merge` checks shards against.
fn run_json(
    setup: &super::Setup,
    seed: u64,
    total_trials: u64,
    ranges: &[(u64, u64)],
    shard: Option<(u64, u64)>,
    sources: &std::collections::BTreeMap<String, String>,
) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("command".into(), json!("sim"));
    o.insert("setup".into(), serde_json::to_value(setup).unwrap_or(Value::Null));
    o.insert("seed".into(), json!(seed));
    o.insert("trials".into(), json!(ranges.iter().map(|(a, b)| b - a).sum::<u64>()));
    o.insert("total_trials".into(), json!(total_trials));
    o.insert("ranges".into(), json!(ranges.iter().map(|&(a, b)| json!([a, b])).collect::<Vec<_>>()));
    if let Some((k, n)) = shard {
        o.insert("shard".into(), json!(format!("{k}/{n}")));
    }
    if !sources.is_empty() {
        o.insert("sources".into(), json!(sources));
    }
    o
}

/// The JSON object of a `sim` result (or of merged shards).
pub fn sim_json(r: &SimResult) -> Value {
    let mut o = run_json(&r.setup, r.seed, r.total_trials, &r.ranges, r.shard, &r.sources);
    o.insert("metrics".into(), metrics_json(&r.metrics, false));
    if let (Some(vs), Some(vm)) = (&r.vs, &r.vs_metrics) {
        o.insert(
            "vs".into(),
            json!({ "setup": serde_json::to_value(vs).unwrap_or(Value::Null), "metrics": metrics_json(vm, false) }),
        );
    }
    if let Some(d) = &r.diff {
        o.insert("diff".into(), metrics_json(d, true));
    }
    Value::Object(o)
}

/// Adds `checksum` to a `sim` result's JSON: a hash of everything else in
/// it, so `merge` can tell a shard whose figures were changed after `sim`
/// wrote it. Call it last, once every field is in.
pub fn seal(v: &mut Value) {
    if let Some(o) = v.as_object_mut() {
        o.shift_remove("checksum");
        let sum = checksum(o);
        o.insert("checksum".into(), json!(sum));
    }
}

/// The checksum of a JSON object's fields (in their order, written compactly).
pub fn checksum(o: &Map<String, Value>) -> String {
    super::content_hash(serde_json::to_string(o).unwrap_or_default().as_bytes())
}

/// A bound as JSON: the exact fraction and the nearest f64.
fn bound_json(lower: &BigRational, upper: &BigRational) -> Value {
    json!({
        "lower": ratio_str(lower),
        "upper": ratio_str(upper),
        "lower_float": num(ratio_f64(lower)),
        "upper_float": num(ratio_f64(upper)),
    })
}

/// One metric of `exact --epsilon` with an unexplored mass `u`: bounds on
/// each value's probability, on any value not seen, on the presence and
/// (under the stated assumption) on the mean.
fn bounded_metric_json(m: &ExactMetric, u: &BigRational) -> Value {
    let dist: Map<String, Value> = super::exact::labelled(m)
        .into_iter()
        .map(|(k, p)| {
            let (lo, hi) = m.value_bounds(p, u);
            (k, bound_json(&lo, &hi))
        })
        .collect();
    let (_, other) = m.value_bounds(&BigRational::zero(), u);
    let (mlo, mhi, lo, hi) = m.mean_bounds(u);
    let mut mean = bound_json(&mlo, &mhi);
    if let Some(o) = mean.as_object_mut() {
        o.insert(
            "assumes".into(),
            json!(format!(
                "the unexplored trials return values within the range seen ({}..{})",
                value_label(lo),
                value_label(hi)
            )),
        );
    }
    json!({
        "mean_bounds": mean,
        "present_bounds": bound_json(&m.present, &(&m.present + u)),
        "distribution_bounds": dist,
        "other_values_at_most": ratio_str(&other),
    })
}

fn exact_metric_json(m: &ExactMetric) -> Value {
    let dist: Map<String, Value> =
        super::exact::labelled(m).into_iter().map(|(k, p)| (k, json!(ratio_str(p)))).collect();
    let mean = m.mean();
    json!({
        "mean": ratio_str(&mean),
        "mean_float": num(ratio_f64(&mean)),
        "sd": num(m.sd()),
        "present": ratio_str(&m.present),
        "distribution": dist,
    })
}

/// The exact differences B − A of means and of each value's probability.
pub fn exact_diff(a: &ExactMetric, b: &ExactMetric) -> (BigRational, Vec<(u64, BigRational)>) {
    let mut keys: Vec<u64> = a.dist.keys().chain(b.dist.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let zero = BigRational::zero();
    let per =
        keys.into_iter().map(|k| (k, b.dist.get(&k).unwrap_or(&zero) - a.dist.get(&k).unwrap_or(&zero))).collect();
    (b.mean() - a.mean(), per)
}

/// The JSON object of an `exact` result. `trials` is the number of leaves.
pub fn exact_json(r: &ExactResult) -> Value {
    let mut o = Map::new();
    o.insert("command".into(), json!("exact"));
    o.insert("setup".into(), serde_json::to_value(&r.setup).unwrap_or(Value::Null));
    o.insert("trials".into(), json!(r.leaves));
    o.insert("leaves".into(), json!(r.leaves));
    if r.cutoff > 0.0 {
        o.insert("unexplored".into(), json!(ratio_str(&r.unexplored)));
        o.insert("unexplored_float".into(), num(ratio_f64(&r.unexplored)));
        o.insert("cut_paths".into(), json!(r.cut_paths));
        o.insert("cutoff".into(), num(r.cutoff));
    }
    let u = &r.unexplored;
    o.insert(
        "metrics".into(),
        Value::Object(
            r.metrics
                .iter()
                .map(|(k, m)| (k.clone(), if u.is_zero() { exact_metric_json(m) } else { bounded_metric_json(m, u) }))
                .collect(),
        ),
    );
    if let Some(vs) = &r.vs {
        o.insert(
            "vs".into(),
            json!({
                "setup": serde_json::to_value(&vs.setup).unwrap_or(Value::Null),
                "trials": vs.leaves,
                "leaves": vs.leaves,
                "metrics": Value::Object(vs.metrics.iter().map(|(k, m)| (k.clone(), exact_metric_json(m))).collect()),
            }),
        );
        let mut diff = Map::new();
        for (k, a) in &r.metrics {
            if let Some(b) = vs.metrics.get(k) {
                let (dm, per) = exact_diff(a, b);
                let dist: Map<String, Value> =
                    per.iter().map(|(k, p)| (value_label(value_of(*k)), json!(ratio_str(p)))).collect();
                diff.insert(
                    k.clone(),
                    json!({ "mean": ratio_str(&dm), "mean_float": num(ratio_f64(&dm)), "distribution": dist }),
                );
            }
        }
        o.insert("diff".into(), Value::Object(diff));
    }
    Value::Object(o)
}

// ---------------------------------------------------------------- text

/// A number for people: about four significant digits, no trailing zeros,
/// no exponent down to 10^-6.
pub fn fmt_num(v: f64) -> String {
    if v.is_nan() {
        return "-".into();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let a = v.abs();
    let s = if a >= 1000.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.4}")
    } else if a >= 1e-6 {
        let decimals = (3 - a.log10().floor() as i32) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.3e}")
    };
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn fmt_signed(v: f64) -> String {
    if v > 0.0 {
        format!("+{}", fmt_num(v))
    } else {
        fmt_num(v)
    }
}

/// A probability as a percentage; below 0.01% (which would print as
/// `0.00%`) in scientific notation, so a rare outcome never reads as zero.
fn pct(p: f64) -> String {
    if p > 0.0 && p < 1e-4 {
        let small = format!("{:.1e}%", p * 100.0);
        format!("{small:>7}")
    } else {
        format!("{:6.2}%", p * 100.0)
    }
}

/// A horizontal bar of `frac` of `width` cells, in eighths.
pub fn bar(frac: f64, width: usize) -> String {
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (frac.clamp(0.0, 1.0) * width as f64 * 8.0).round() as usize;
    let mut s = "█".repeat(eighths / 8);
    s.push_str(PARTS[eighths % 8]);
    if s.is_empty() && frac > 0.0 {
        s.push('▏');
    }
    s
}

/// Rows of an integer histogram: (label, count) with at most ~24 rows
/// (wide ranges are grouped into equal bins).
fn histogram_rows(d: &[(f64, u64)]) -> Vec<(String, u64)> {
    if d.len() <= 30 {
        return d.iter().map(|&(v, c)| (value_label(v), c)).collect();
    }
    let (lo, hi) = (d[0].0, d[d.len() - 1].0);
    let span = hi - lo + 1.0;
    let width = (span / 20.0).ceil().max(1.0);
    let bins = (span / width).ceil() as usize;
    let mut rows: Vec<(String, u64)> = (0..bins)
        .map(|b| {
            let a = lo + b as f64 * width;
            (format!("{}..{}", value_label(a), value_label((a + width - 1.0).min(hi))), 0)
        })
        .collect();
    for &(v, c) in d {
        let b = (((v - lo) / width).floor() as usize).min(bins - 1);
        rows[b].1 += c;
    }
    rows
}

fn write_acc(out: &mut String, name: &str, a: &Acc) {
    let (lo, hi) = a.ci95();
    let kind = if a.is_binary() { " (yes/no: mean = probability)" } else { "" };
    let _ = writeln!(out, "\n{name}{kind}");
    let _ = writeln!(
        out,
        "  mean {}   95% CI [{}, {}]   sd {}   min {}   max {}   n {}",
        fmt_num(a.mean()),
        fmt_num(lo),
        fmt_num(hi),
        fmt_num(a.sd()),
        fmt_num(a.min),
        fmt_num(a.max),
        a.n
    );
    if a.counts.is_some() && !a.is_binary() {
        let qs: Vec<String> = QUANTILES
            .iter()
            .filter_map(|&p| a.quantile(p).map(|v| format!("{} {}", quantile_label(p), fmt_num(v))))
            .collect();
        let _ = writeln!(out, "  quantiles  {}", qs.join("   "));
    }
    match a.distribution() {
        Some(d) if a.is_integer() => {
            let rows = histogram_rows(&d);
            let wl = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(1).max(5);
            let top = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1) as f64;
            let _ = writeln!(out, "  {:>wl$}  {:>7}  {:>9}", "value", "P", "trials");
            for (label, c) in rows {
                let p = c as f64 / a.n as f64;
                let _ = writeln!(out, "  {label:>wl$}  {}  {c:>9}  {}", pct(p), bar(c as f64 / top, 40));
            }
        }
        Some(_) => {}
        None => {
            let _ = writeln!(out, "  (more than {} distinct values: no distribution kept)", super::stats::MAX_DISTINCT);
        }
    }
}

/// The readable report of a `sim` result.
pub fn sim_text(r: &SimResult) -> String {
    let mut out = String::new();
    let of = if r.trials() == r.total_trials {
        String::new()
    } else {
        let shard = r.shard.map(|(k, n)| format!(", shard {k}/{n}")).unwrap_or_default();
        format!(" (of {}{shard})", r.total_trials)
    };
    let _ = writeln!(out, "{}: {} trials{of}, seed {}", r.setup.script.display(), r.trials(), r.seed);
    if r.vs.is_some() {
        let _ = writeln!(out, "\n==== A: {}", r.setup.describe_changes());
    }
    for (name, a) in &r.metrics {
        write_acc(&mut out, name, a);
    }
    if let (Some(vs), Some(vm), Some(diff)) = (&r.vs, &r.vs_metrics, &r.diff) {
        let _ = writeln!(out, "\n==== B: {}", vs.describe_changes());
        for (name, a) in vm {
            write_acc(&mut out, name, a);
        }
        let _ = writeln!(out, "\n==== B − A, paired on the same trial seeds (common random numbers)\n");
        let wn = diff.keys().map(|k| k.chars().count()).max().unwrap_or(6).max(6);
        let _ = writeln!(out, "  {:wn$}  {:>10}  {:>10}  {:>10}  95% CI of B − A", "metric", "A", "B", "B − A");
        for (name, d) in diff {
            let ma = r.metrics.get(name).map(Acc::mean).unwrap_or(f64::NAN);
            let mb = vm.get(name).map(Acc::mean).unwrap_or(f64::NAN);
            let (lo, hi) = d.ci95_normal();
            let _ = writeln!(
                out,
                "  {name:wn$}  {:>10}  {:>10}  {:>10}  [{}, {}]",
                fmt_num(ma),
                fmt_num(mb),
                fmt_signed(d.mean()),
                fmt_signed(lo),
                fmt_signed(hi)
            );
        }
    }
    out
}

/// One of the trials to look at: `what` (`figures_lost = 4, its largest`),
/// the share of trials with that value (when counted), the trial and the
/// command that replays it.
fn write_look_at(out: &mut String, what: &str, share: Option<f64>, trial: u64, command: &str) {
    let share = share.map(|p| format!(" ({} of trials)", pct(p).trim())).unwrap_or_default();
    let _ = writeln!(out, "  {what}{share}: see trial {trial}\n    {command}");
}

/// The share of an accumulator's values equal to `v`, when it counts them.
fn share_of(a: &Acc, v: f64) -> Option<f64> {
    let c = a.counts.as_ref()?.get(&super::stats::key_of(v))?;
    Some(*c as f64 / a.n as f64)
}

/// An extreme as the list of trials to look at names it.
fn extreme_label(name: &str, a: &Acc, v: f64, largest: bool) -> String {
    if a.is_binary() {
        format!("{name} = {}", if v == 1.0 { "yes" } else { "no" })
    } else {
        format!("{name} = {}, its {}", fmt_num(v), if largest { "largest" } else { "smallest" })
    }
}

const LOOK_AT: &str = "\nTrials to look at (replay one to see its rolls, decisions and the rules' notes):\n";

/// The trials where each metric (and, with `--vs`, each paired difference)
/// first took its largest and its smallest value, each with the command
/// that replays it (`command(trial)`); metrics that never varied are left
/// out. Empty when there is nothing to show.
pub fn look_at_text(r: &SimResult, command: &dyn Fn(u64) -> String) -> String {
    let mut out = String::new();
    let diffs = r.diff.iter().flatten().map(|(n, a)| (format!("B − A of {n}"), a));
    for (name, a) in r.metrics.iter().map(|(n, a)| (n.clone(), a)).chain(diffs) {
        let (Some(lo), Some(hi)) = (a.min_trial, a.max_trial) else { continue };
        if a.n == 0 || a.min == a.max {
            continue;
        }
        for (v, t, largest) in [(a.max, hi, true), (a.min, lo, false)] {
            write_look_at(&mut out, &extreme_label(&name, a, v, largest), share_of(a, v), t, &command(t));
        }
    }
    if out.is_empty() {
        out
    } else {
        format!("{LOOK_AT}{out}")
    }
}

/// [`look_at_text`] for a sweep: each metric's largest and smallest value
/// over all points (the first point in the sweep's order that had it), the
/// point named and its values given to `command(trial, point)`.
pub fn sweep_look_at_text(r: &super::sweep::SweepResult, command: &dyn Fn(u64, &[usize]) -> String) -> String {
    let mut out = String::new();
    let names = sweep_metric_names(r.points.iter().map(|p| p.metrics.keys()));
    for name in names {
        let at = |p: &'_ super::sweep::PointStats| p.metrics.get(name.as_str()).filter(|a| a.n > 0).cloned();
        let found: Vec<(&super::sweep::PointStats, Acc)> = r.points.iter().filter_map(|p| Some((p, at(p)?))).collect();
        let best = |largest: bool| {
            found.iter().fold(None::<&(&super::sweep::PointStats, Acc)>, |best, x| match best {
                Some(b) if (largest && x.1.max <= b.1.max) || (!largest && x.1.min >= b.1.min) => Some(b),
                _ => Some(x),
            })
        };
        let (Some(hi), Some(lo)) = (best(true), best(false)) else { continue };
        if hi.1.max == lo.1.min {
            continue;
        }
        for ((p, a), largest) in [(hi, true), (lo, false)] {
            let (v, t) = if largest { (a.max, a.max_trial) } else { (a.min, a.min_trial) };
            let Some(t) = t else { continue };
            let point = describe_point(&r.axes, &p.at);
            let binary = found.iter().all(|(_, a)| a.is_binary());
            let what = if binary {
                format!("{name} = {}, at {point}", if v == 1.0 { "yes" } else { "no" })
            } else {
                format!("{name} = {}, its {}, at {point}", fmt_num(v), if largest { "largest" } else { "smallest" })
            };
            write_look_at(&mut out, &what, share_of(a, v), t, &command(t, &p.at));
        }
    }
    if out.is_empty() {
        out
    } else {
        format!("{LOOK_AT}{out}")
    }
}

/// A point of a sweep by its values: `crater_at=4, angle=30`.
pub(super) fn describe_point(axes: &[super::sweep::Axis], at: &[usize]) -> String {
    let parts: Vec<String> = axes.iter().zip(at).map(|(a, &i)| format!("{}={}", a.short(), a.values[i])).collect();
    parts.join(", ")
}

fn write_exact(out: &mut String, name: &str, m: &ExactMetric) {
    let mean = m.mean();
    let _ = writeln!(out, "\n{name}");
    let _ = writeln!(out, "  mean {} ≈ {}   sd ≈ {}", ratio_str(&mean), fmt_num(ratio_f64(&mean)), fmt_num(m.sd()));
    if !num_traits::One::is_one(&m.present) {
        let _ = writeln!(
            out,
            "  (returned in a fraction {} of trials; the figures are for those trials)",
            ratio_str(&m.present)
        );
    }
    let rows = super::exact::labelled(m);
    if rows.len() > 60 {
        let _ = writeln!(out, "  {} distinct values (see --json for all of them)", rows.len());
        return;
    }
    let wl = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(1).max(5);
    let fracs: Vec<String> = rows.iter().map(|r| ratio_str(r.1)).collect();
    let wf = fracs.iter().map(|f| f.len()).max().unwrap_or(1).max(11);
    let top = rows.iter().map(|r| ratio_f64(r.1)).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let _ = writeln!(out, "  {:>wl$}  {:>wf$}  {:>7}", "value", "probability", "");
    for ((label, p), f) in rows.iter().zip(&fracs) {
        let pf = ratio_f64(p);
        let _ = writeln!(out, "  {label:>wl$}  {f:>wf$}  {}  {}", pct(pf), bar(pf / top, 40));
    }
}

/// `x` as a decimal of `digits` places, rounded down (`up`: up), so that a
/// printed bound still holds.
fn decimal_bound(x: &BigRational, digits: u32, up: bool) -> String {
    let scale = BigInt::from(10u32).pow(digits);
    let scaled = x * BigRational::from_integer(scale.clone());
    let n = if up { scaled.ceil() } else { scaled.floor() }.to_integer();
    let (int, frac) = (&n / &scale, &n % &scale);
    format!("{int}.{:0>w$}", frac.to_string(), w = digits as usize)
}

/// One metric of `exact --epsilon` with an unexplored mass `u`: each value's
/// probability as an interval of decimals (rounded outwards).
fn write_bounded(out: &mut String, name: &str, m: &ExactMetric, u: &BigRational) {
    // Enough places to show the interval's width, which is at most u.
    let digits = (-ratio_f64(u).log10()).ceil().clamp(4.0, 16.0) as u32 + 2;
    let (mlo, mhi, lo, hi) = m.mean_bounds(u);
    let _ = writeln!(out, "\n{name}");
    let _ = writeln!(
        out,
        "  mean in [{}, {}] if the unexplored trials return values within the range seen ({}..{})",
        decimal_bound(&mlo, digits, false),
        decimal_bound(&mhi, digits, true),
        value_label(lo),
        value_label(hi)
    );
    // Every explored trial returned it: so may every other.
    if !num_traits::One::is_one(&(&m.present + u)) {
        let _ = writeln!(
            out,
            "  returned in a fraction [{}, {}] of trials; the figures are for those trials",
            decimal_bound(&m.present, digits, false),
            decimal_bound(&(&m.present + u), digits, true)
        );
    }
    let rows = super::exact::labelled(m);
    if rows.len() > 60 {
        let _ = writeln!(out, "  {} distinct values (see --json for the bounds on each)", rows.len());
        return;
    }
    let wl = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(1).max(5);
    let _ = writeln!(out, "  {:>wl$}  {:>w$}", "value", "probability in", w = 2 * digits as usize + 8);
    for (label, p) in &rows {
        let (plo, phi) = m.value_bounds(p, u);
        let _ = writeln!(
            out,
            "  {label:>wl$}  [{}, {}]  {}",
            decimal_bound(&plo, digits, false),
            decimal_bound(&phi, digits, true),
            bar(ratio_f64(&plo), 40)
        );
    }
    let (_, other) = m.value_bounds(&BigRational::zero(), u);
    let _ = writeln!(out, "  {:>wl$}  [0, {}]", "other", decimal_bound(&other, digits, true));
}

/// The readable report of an `exact` result.
pub fn exact_text(r: &ExactResult) -> String {
    let mut out = String::new();
    if !r.unexplored.is_zero() {
        let _ = writeln!(
            out,
            "{}: exact to within an unexplored probability of {:.3e}: {} outcome leaves walked, {} path{} of probability below {:.1e} left unexplored.\n\
             Each figure is an interval that contains the true value (the mean's, if the unexplored trials stay within the values seen).",
            r.setup.script.display(),
            ratio_f64(&r.unexplored),
            r.leaves,
            r.cut_paths,
            if r.cut_paths == 1 { "" } else { "s" },
            r.cutoff
        );
        for (name, m) in &r.metrics {
            write_bounded(&mut out, name, m, &r.unexplored);
        }
        return out;
    }
    let _ = writeln!(out, "{}: exact, {} outcome leaves", r.setup.script.display(), r.leaves);
    if r.vs.is_some() {
        let _ = writeln!(out, "\n==== A: {}", r.setup.describe_changes());
    }
    for (name, m) in &r.metrics {
        write_exact(&mut out, name, m);
    }
    if let Some(vs) = &r.vs {
        let _ = writeln!(out, "\n==== B: {} ({} leaves)", vs.setup.describe_changes(), vs.leaves);
        for (name, m) in &vs.metrics {
            write_exact(&mut out, name, m);
        }
        let _ = writeln!(out, "\n==== B − A, exact\n");
        let mut header: Vec<String> = ["metric", "A", "B", "B − A", "exact B − A"].map(String::from).to_vec();
        header[0] = format!("{:<w$}", header[0], w = r.metrics.keys().map(|k| k.chars().count()).max().unwrap_or(6));
        let mut rows = Vec::new();
        let mut per_value = String::new();
        for (name, a) in &r.metrics {
            let Some(b) = vs.metrics.get(name) else { continue };
            let (dm, per) = exact_diff(a, b);
            rows.push(vec![
                format!("{name:<w$}", w = header[0].chars().count()),
                fmt_num(ratio_f64(&a.mean())),
                fmt_num(ratio_f64(&b.mean())),
                fmt_signed(ratio_f64(&dm)),
                ratio_str(&dm),
            ]);
            if per.len() <= 30 {
                for (k, p) in per.iter().filter(|(_, p)| !p.is_zero()) {
                    let _ = writeln!(
                        per_value,
                        "  P({name} = {}) {} ({})",
                        value_label(value_of(*k)),
                        fmt_signed(ratio_f64(p)),
                        ratio_str(p)
                    );
                }
            }
        }
        out.push_str(&table(&header, &rows));
        if !per_value.is_empty() {
            let _ = writeln!(out, "\nchange of each value's probability, B − A:");
            out.push_str(&per_value);
        }
    }
    out
}

// ---------------------------------------------------------------- sweeps

/// Right-aligned columns under a header, two spaces apart, indented by two.
fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells.iter().zip(&widths).map(|(c, &w)| format!("{c:>w$}")).collect();
        format!("  {}\n", parts.join("  ").trim_end())
    };
    let mut out = line(header);
    for r in rows {
        out.push_str(&line(r));
    }
    out
}

/// The metric names of a sweep's points, in order, each once.
fn sweep_metric_names<'a>(points: impl Iterator<Item = impl Iterator<Item = &'a String>>) -> Vec<&'a String> {
    let mut names: Vec<&String> = points.flatten().collect();
    names.sort();
    names.dedup();
    names
}

fn describe_axes(axes: &[super::sweep::Axis]) -> String {
    let parts: Vec<String> = axes.iter().map(|a| format!("{} ({} values)", a.name, a.values.len())).collect();
    parts.join(" × ")
}

/// The readable report of a `sim` sweep: per metric, one row per point
/// with its mean, 95% interval and paired change against the first point.
pub fn sweep_text(r: &super::sweep::SweepResult) -> String {
    let mut out = String::new();
    let of = if r.trials() == r.total_trials {
        String::new()
    } else {
        let shard = r.shard.map(|(k, n)| format!(", shard {k}/{n}")).unwrap_or_default();
        format!(" (of {}{shard})", r.total_trials)
    };
    let _ = writeln!(
        out,
        "{}: a sweep of {}, {} points, {} trials at each{of}, seed {}",
        r.setup.script.display(),
        describe_axes(&r.axes),
        r.points.len(),
        r.trials(),
        r.seed
    );
    if r.points.len() > 1 {
        let _ = writeln!(
            out,
            "Every point rolls the same dice for trial i (common random numbers): a change against the first point is paired, trial by trial."
        );
    }
    let first = r.points.first();
    for name in sweep_metric_names(r.points.iter().map(|p| p.metrics.keys())) {
        let binary = r.points.iter().filter_map(|p| p.metrics.get(name)).all(Acc::is_binary);
        let kind = if binary { " (yes/no: mean = probability)" } else { "" };
        let _ = writeln!(out, "\n{name}{kind}");
        let mut header: Vec<String> = r.axes.iter().map(|a| a.short().to_string()).collect();
        let first_label = first.map(|p| r.values(p).join(", ")).unwrap_or_default();
        header.extend(["mean", "95% CI", &format!("change vs {first_label}"), "95% CI of change"].map(String::from));
        let rows: Vec<Vec<String>> = r
            .points
            .iter()
            .map(|p| {
                let mut row: Vec<String> = r.values(p).into_iter().map(String::from).collect();
                match p.metrics.get(name) {
                    Some(a) => {
                        let (lo, hi) = a.ci95();
                        row.push(fmt_num(a.mean()));
                        row.push(format!("[{}, {}]", fmt_num(lo), fmt_num(hi)));
                    }
                    None => row.extend(["-".to_string(), String::new()]),
                }
                match p.change.get(name) {
                    Some(d) => {
                        let (lo, hi) = d.ci95_normal();
                        row.push(fmt_signed(d.mean()));
                        row.push(format!("[{}, {}]", fmt_signed(lo), fmt_signed(hi)));
                    }
                    None => row.extend(["-".to_string(), String::new()]),
                }
                row
            })
            .collect();
        out.push_str(&table(&header, &rows));
    }
    out
}

/// A CSV writer into memory (the caller writes the text where it goes).
fn csv_writer() -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new().from_writer(Vec::new())
}

fn csv_text(w: csv::Writer<Vec<u8>>) -> String {
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

/// A number for CSV: every digit (the shortest text that reads back as the
/// same f64), empty when there is none.
fn csv_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        String::new()
    }
}

/// The CSV of a `sim` sweep: one row per point and metric (a column per
/// axis, then the metric's name, n, mean, 95% interval, sd, min, max, and the
/// paired change against the first point with its interval).
pub fn sweep_csv(r: &super::sweep::SweepResult) -> String {
    let mut w = csv_writer();
    let mut header: Vec<String> = r.axes.iter().map(|a| a.name.clone()).collect();
    header.extend(
        [
            "metric",
            "n",
            "mean",
            "ci95_low",
            "ci95_high",
            "sd",
            "min",
            "max",
            "change",
            "change_ci95_low",
            "change_ci95_high",
        ]
        .map(String::from),
    );
    let _ = w.write_record(&header);
    for p in &r.points {
        for (name, a) in &p.metrics {
            let mut row: Vec<String> = r.values(p).into_iter().map(String::from).collect();
            let (lo, hi) = a.ci95();
            row.extend([name.clone(), a.n.to_string(), csv_num(a.mean()), csv_num(lo), csv_num(hi)]);
            row.extend([csv_num(a.sd()), csv_num(a.min), csv_num(a.max)]);
            match p.change.get(name) {
                Some(d) => {
                    let (lo, hi) = d.ci95_normal();
                    row.extend([csv_num(d.mean()), csv_num(lo), csv_num(hi)]);
                }
                None => row.extend([String::new(), String::new(), String::new()]),
            }
            let _ = w.write_record(&row);
        }
    }
    csv_text(w)
}

fn axes_json(axes: &[super::sweep::Axis]) -> Value {
    serde_json::to_value(axes).unwrap_or(Value::Null)
}

pub(super) fn point_values_json(axes: &[super::sweep::Axis], at: &[usize]) -> Value {
    Value::Object(axes.iter().zip(at).map(|(a, &i)| (a.name.clone(), json!(a.values[i]))).collect())
}

/// The JSON of a `sim` sweep: the run's fields as `sim --json` has them,
/// then `sweep`: its `axes` and, per point, its `values`, `metrics` and the
/// paired `change` against the first point (each metric as in `sim --json`,
/// with the `raw` part `merge` reads).
pub fn sweep_json(r: &super::sweep::SweepResult) -> Value {
    let mut o = run_json(&r.setup, r.seed, r.total_trials, &r.ranges, r.shard, &r.sources);
    let points: Vec<Value> = r
        .points
        .iter()
        .map(|p| {
            json!({
                "values": point_values_json(&r.axes, &p.at),
                "metrics": metrics_json(&p.metrics, false),
                "change": metrics_json(&p.change, true),
            })
        })
        .collect();
    o.insert("sweep".into(), json!({ "axes": axes_json(&r.axes), "points": points }));
    Value::Object(o)
}

/// The readable report of an `exact` sweep: per metric, one row per point
/// with its exact mean (decimals, then the fraction) and its exact change
/// against the first point.
pub fn exact_sweep_text(s: &super::sweep::ExactSweep) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: exact, a sweep of {}, {} points, {} outcome leaves in all",
        s.setup.script.display(),
        describe_axes(&s.axes),
        s.points.len(),
        s.leaves()
    );
    let first = s.points.first();
    for name in sweep_metric_names(s.points.iter().map(|(_, r)| r.metrics.keys())) {
        let _ = writeln!(out, "\n{name}");
        let mut header: Vec<String> = s.axes.iter().map(|a| a.short().to_string()).collect();
        let first_label = first.map(|(at, _)| s.values(at).join(", ")).unwrap_or_default();
        header.extend(["mean", "exact", &format!("change vs {first_label}"), "exact change"].map(String::from));
        let a0 = first.and_then(|(_, r)| r.metrics.get(name));
        let rows: Vec<Vec<String>> = s
            .points
            .iter()
            .enumerate()
            .map(|(i, (at, r))| {
                let mut row: Vec<String> = s.values(at).into_iter().map(String::from).collect();
                match r.metrics.get(name) {
                    Some(m) => {
                        let mean = m.mean();
                        row.push(fmt_num(ratio_f64(&mean)));
                        row.push(ratio_str(&mean));
                        match (i, a0) {
                            (1.., Some(a)) => {
                                let d = mean - a.mean();
                                row.push(fmt_signed(ratio_f64(&d)));
                                row.push(ratio_str(&d));
                            }
                            _ => row.extend(["-".to_string(), String::new()]),
                        }
                    }
                    None => row.extend(["-".to_string(), String::new(), "-".to_string(), String::new()]),
                }
                row
            })
            .collect();
        out.push_str(&table(&header, &rows));
    }
    out
}

/// The CSV of an `exact` sweep: one row per point and metric (a column per
/// axis, then the metric, its mean as a decimal and as a fraction, its sd,
/// and the change against the first point both ways).
pub fn exact_sweep_csv(s: &super::sweep::ExactSweep) -> String {
    let mut w = csv_writer();
    let mut header: Vec<String> = s.axes.iter().map(|a| a.name.clone()).collect();
    header.extend(["metric", "mean", "mean_exact", "sd", "change", "change_exact"].map(String::from));
    let _ = w.write_record(&header);
    let first = s.points.first().map(|(_, r)| r);
    for (i, (at, r)) in s.points.iter().enumerate() {
        for (name, m) in &r.metrics {
            let mut row: Vec<String> = s.values(at).into_iter().map(String::from).collect();
            let mean = m.mean();
            row.extend([name.clone(), csv_num(ratio_f64(&mean)), ratio_str(&mean), csv_num(m.sd())]);
            match first.and_then(|f| f.metrics.get(name)).filter(|_| i > 0) {
                Some(a) => {
                    let d = &mean - a.mean();
                    row.extend([csv_num(ratio_f64(&d)), ratio_str(&d)]);
                }
                None => row.extend([String::new(), String::new()]),
            }
            let _ = w.write_record(&row);
        }
    }
    csv_text(w)
}

/// The JSON of an `exact` sweep: `sweep.axes`, and per point its `values`,
/// `leaves`, `metrics` (as `exact --json` has them) and the exact `change`
/// of each mean against the first point.
pub fn exact_sweep_json(s: &super::sweep::ExactSweep) -> Value {
    let first = s.points.first().map(|(_, r)| r);
    let points: Vec<Value> = s
        .points
        .iter()
        .enumerate()
        .map(|(i, (at, r))| {
            let change: Map<String, Value> = r
                .metrics
                .iter()
                .filter(|_| i > 0)
                .filter_map(|(name, m)| {
                    let a = first?.metrics.get(name)?;
                    let d = m.mean() - a.mean();
                    Some((name.clone(), json!({ "mean": ratio_str(&d), "mean_float": num(ratio_f64(&d)) })))
                })
                .collect();
            json!({
                "values": point_values_json(&s.axes, at),
                "leaves": r.leaves,
                "metrics": Value::Object(r.metrics.iter().map(|(k, m)| (k.clone(), exact_metric_json(m))).collect()),
                "change": change,
            })
        })
        .collect();
    json!({
        "command": "exact",
        "setup": serde_json::to_value(&s.setup).unwrap_or(Value::Null),
        "leaves": s.leaves(),
        "sweep": { "axes": axes_json(&s.axes), "points": points },
    })
}

/// The CSV of a `sim` result: one row per metric (per variant with
/// `--vs-*`: `A`, `B` and the paired `B − A`), with n, mean, 95% interval,
/// sd, min and max.
pub fn sim_csv(r: &SimResult) -> String {
    let mut w = csv_writer();
    let vs = r.vs.is_some();
    let mut header: Vec<&str> = if vs { vec!["variant"] } else { Vec::new() };
    header.extend(["metric", "n", "mean", "ci95_low", "ci95_high", "sd", "min", "max"]);
    let _ = w.write_record(&header);
    let mut parts: Vec<(&str, &Metrics, bool)> = vec![("A", &r.metrics, false)];
    if let (Some(b), Some(d)) = (&r.vs_metrics, &r.diff) {
        parts.extend([("B", b, false), ("B − A", d, true)]);
    }
    for (variant, metrics, paired) in parts {
        for (name, a) in metrics {
            let (lo, hi) = if paired { a.ci95_normal() } else { a.ci95() };
            let mut row: Vec<String> = if vs { vec![variant.to_string()] } else { Vec::new() };
            row.extend([name.clone(), a.n.to_string(), csv_num(a.mean()), csv_num(lo), csv_num(hi)]);
            row.extend([csv_num(a.sd()), csv_num(a.min), csv_num(a.max)]);
            let _ = w.write_record(&row);
        }
    }
    csv_text(w)
}

/// The CSV of an `exact` result: one row per metric (per variant with
/// `--vs-*`: `A`, `B` and `B − A`), the mean as a decimal and as a fraction,
/// and the sd.
pub fn exact_csv(r: &ExactResult) -> String {
    let mut w = csv_writer();
    let vs = r.vs.as_deref();
    // `--epsilon` with paths left unexplored: each mean is an interval too
    // (if the unexplored trials return values within the range seen).
    let bounded = !r.unexplored.is_zero();
    let mut header: Vec<&str> = if vs.is_some() { vec!["variant"] } else { Vec::new() };
    header.extend(["metric", "mean", "mean_exact", "sd"]);
    if bounded {
        header.extend(["mean_lower", "mean_upper", "unexplored"]);
    }
    let _ = w.write_record(&header);
    let mut row = |variant: &str, name: &str, mean: &BigRational, sd: Option<f64>, m: Option<&ExactMetric>| {
        let mut row: Vec<String> = if vs.is_some() { vec![variant.to_string()] } else { Vec::new() };
        row.extend([name.to_string(), csv_num(ratio_f64(mean)), ratio_str(mean), sd.map(csv_num).unwrap_or_default()]);
        if bounded {
            let (lo, hi) = m.map_or((String::new(), String::new()), |m| {
                let (lo, hi, _, _) = m.mean_bounds(&r.unexplored);
                (csv_num(ratio_f64(&lo)), csv_num(ratio_f64(&hi)))
            });
            row.extend([lo, hi, csv_num(ratio_f64(&r.unexplored))]);
        }
        let _ = w.write_record(&row);
    };
    for (name, m) in &r.metrics {
        row("A", name, &m.mean(), Some(m.sd()), Some(m));
    }
    if let Some(b) = vs {
        for (name, m) in &b.metrics {
            row("B", name, &m.mean(), Some(m.sd()), None);
        }
        for (name, a) in &r.metrics {
            if let Some(m) = b.metrics.get(name) {
                row("B − A", name, &(m.mean() - a.mean()), None, None);
            }
        }
    }
    csv_text(w)
}

#[cfg(test)]
mod pct_tests {
    use super::pct;

    #[test]
    fn rare_outcomes_do_not_print_as_zero() {
        assert_eq!(pct(0.5), " 50.00%");
        assert_eq!(pct(0.0), "  0.00%");
        assert_eq!(pct(0.000_12), "  0.01%");
        assert_eq!(pct(1.0 / 2_176_782_336.0), "4.6e-8%");
        assert_eq!(pct(0.000_05), "5.0e-3%");
    }

    #[test]
    fn json_quantiles_and_distributions_are_in_numeric_order() {
        let mut a = crate::analysis::stats::Acc::default();
        for v in 0..12 {
            a.add(f64::from(v));
        }
        let j = super::acc_json(&a, false);
        let q: Vec<&String> = j["quantiles"].as_object().unwrap().keys().collect();
        assert_eq!(q, ["5%", "25%", "50%", "75%", "95%"]);
        let text = j.to_string();
        assert!(text.find("\"5%\"").unwrap() < text.find("\"25%\"").unwrap(), "{text}");
    }
}
