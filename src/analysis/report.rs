//! Text and JSON reports for `sim`, `exact` and `merge`.
//!
//! The JSON of `sim` carries, besides the readable figures, a `raw` part per
//! metric (count, fixed-point sums, min, max, and the count of every value)
//! from which `merge` rebuilds the exact accumulators: merged shards print the
//! same JSON as one run.

use std::fmt::Write;

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

/// The JSON object of a `sim` result (or of merged shards).
pub fn sim_json(r: &SimResult) -> Value {
    let mut o = Map::new();
    o.insert("command".into(), json!("sim"));
    o.insert("setup".into(), serde_json::to_value(&r.setup).unwrap_or(Value::Null));
    o.insert("seed".into(), json!(r.seed));
    o.insert("trials".into(), json!(r.trials()));
    o.insert("total_trials".into(), json!(r.total_trials));
    o.insert("ranges".into(), json!(r.ranges.iter().map(|&(a, b)| json!([a, b])).collect::<Vec<_>>()));
    if let Some((k, n)) = r.shard {
        o.insert("shard".into(), json!(format!("{k}/{n}")));
    }
    if !r.sources.is_empty() {
        o.insert("sources".into(), json!(r.sources));
    }
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
    o.insert(
        "metrics".into(),
        Value::Object(r.metrics.iter().map(|(k, m)| (k.clone(), exact_metric_json(m))).collect()),
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

/// The readable report of an `exact` result.
pub fn exact_text(r: &ExactResult) -> String {
    let mut out = String::new();
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
        for (name, a) in &r.metrics {
            if let Some(b) = vs.metrics.get(name) {
                let (dm, per) = exact_diff(a, b);
                let _ = writeln!(
                    out,
                    "{name}: mean {} → {}, B − A = {} ≈ {}",
                    ratio_str(&a.mean()),
                    ratio_str(&b.mean()),
                    ratio_str(&dm),
                    fmt_signed(ratio_f64(&dm))
                );
                if per.len() <= 30 {
                    for (k, p) in per.iter().filter(|(_, p)| !p.is_zero()) {
                        let _ = writeln!(
                            out,
                            "  P({name} = {}) {} ({})",
                            value_label(value_of(*k)),
                            fmt_signed(ratio_f64(p)),
                            ratio_str(p)
                        );
                    }
                }
            }
        }
    }
    out
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
