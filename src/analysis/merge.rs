//! `sandtable merge`: combines the JSON of `sim --shard K/N` runs into the
//! result of one run.
//!
//! Each shard's JSON carries the exact accumulators (`raw`: count,
//! fixed-point sums, min, max, counts per value), the seed, the setup and the
//! trial ranges it covers. Shards must come from the same script, setup, seed
//! and total trial count, and their ranges must not overlap; when they cover
//! every trial the merged JSON is byte for byte the JSON of a single run.
//!
//! A sweep's shards (`sim --sweep ... --shard K/N`: the same trials at
//! every point) merge the same way, point by point; they must also come
//! from the same sweep (the same axes and values).
//!
//! Each shard's figures are checked before they are trusted: they must agree
//! with one another (counts, extremes, sums, ranges) and with the checksum
//! `sim` wrote over them; a shard that fails is refused by its file name.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::sim::SimResult;
use super::stats::{key_of, Acc, Metrics};
use super::sweep::{Axis, PointStats, SweepResult};
use super::Setup;

fn field<'a>(v: &'a Value, k: &str, file: &str) -> Result<&'a Value, String> {
    v.get(k).ok_or_else(|| format!("{file}: no `{k}` field (is this the --json output of `sandtable sim`?)"))
}

fn parse_acc(v: &Value, file: &str, name: &str) -> Result<Acc, String> {
    let bad = |what: &str| format!("{file}: metric '{name}': {what}");
    let raw = v.get("raw").ok_or_else(|| bad("no `raw` part (written by an older sandtable?)"))?;
    let int = |k: &str| -> Result<super::stats::Wide, String> {
        raw.get(k).and_then(Value::as_str).and_then(|s| s.parse().ok()).ok_or_else(|| bad(&format!("bad raw.{k}")))
    };
    let float = |k: &str| -> Result<f64, String> {
        raw.get(k).and_then(Value::as_str).and_then(|s| s.parse().ok()).ok_or_else(|| bad(&format!("bad raw.{k}")))
    };
    let trial = |k: &str| -> Result<Option<u64>, String> {
        match v.get(k) {
            None => Ok(None),
            Some(t) => t.as_u64().map(Some).ok_or_else(|| bad(&format!("bad {k}"))),
        }
    };
    if raw.get("fixed_bits").and_then(Value::as_u64) != Some(super::stats::FIXED_BITS as u64) {
        return Err(bad("made with another fixed-point scale"));
    }
    let counts = match raw.get("counts") {
        Some(Value::Object(m)) => {
            let mut c = BTreeMap::new();
            for (k, n) in m {
                let v: f64 = k.parse().map_err(|_| bad(&format!("bad value '{k}' in raw.counts")))?;
                let n = n.as_u64().ok_or_else(|| bad("bad count in raw.counts"))?;
                c.insert(key_of(v), n);
            }
            Some(c)
        }
        _ => None,
    };
    Ok(Acc {
        n: raw.get("n").and_then(Value::as_u64).ok_or_else(|| bad("bad raw.n"))?,
        sum: int("sum")?,
        sum_sq: int("sum_sq")?,
        min: float("min")?,
        max: float("max")?,
        counts,
        min_trial: trial("min_trial")?,
        max_trial: trial("max_trial")?,
    })
}

fn parse_metrics(v: &Value, file: &str) -> Result<Metrics, String> {
    let obj = v.as_object().ok_or_else(|| format!("{file}: `metrics` is not an object"))?;
    obj.iter().map(|(k, m)| Ok((k.clone(), parse_acc(m, file, k)?))).collect()
}

/// What a shard's figures are not, when they were changed after `sim` wrote them.
const CHANGED: &str = "the file was changed after `sandtable sim` wrote it: rerun this shard";

/// What a shard says about the run it comes from and the trials it covers,
/// whether it is a run's or a sweep's.
struct Header {
    setup: Setup,
    seed: u64,
    total_trials: u64,
    ranges: Vec<(u64, u64)>,
    shard: Option<(u64, u64)>,
    sources: BTreeMap<String, String>,
}

impl Header {
    fn trials(&self) -> u64 {
        self.ranges.iter().map(|(a, b)| b - a).sum()
    }
}

/// Checks that a shard's figures agree with one another, whatever figures it
/// carries: its trial ranges lie inside the run and match its shard and its
/// `trials`; every accumulator (`groups`: metrics, `--vs` metrics, paired
/// differences, a sweep's metrics and changes at each point) holds no more
/// values than the trials it covers, its counts, extremes and sums agree
/// ([`super::stats::Acc::check`]) and the trials it names are its own.
fn check_figures(r: &Header, groups: &[(String, &Metrics)], v: &Value, file: &str) -> Result<(), String> {
    let mut at = 0;
    for &(a, b) in &r.ranges {
        if b > r.total_trials {
            return Err(format!(
                "{file}: trials {a}..{b} run past the {} trials of the run (--trials): {CHANGED}",
                r.total_trials
            ));
        }
        if a < at {
            return Err(format!("{file}: trials {a}..{} are counted twice in its ranges: {CHANGED}", b.min(at)));
        }
        at = b;
    }
    let trials = r.trials();
    if let Some(said) = v.get("trials") {
        if said.as_u64() != Some(trials) {
            return Err(format!("{file}: `trials` says {said}, but its ranges cover {trials}: {CHANGED}"));
        }
    }
    if r.shard.is_some() {
        let (lo, hi) = super::sim::shard_range(r.total_trials, r.shard);
        let expected = if hi > lo { vec![(lo, hi)] } else { Vec::new() };
        if r.ranges != expected {
            let (k, n) = r.shard.unwrap_or_default();
            return Err(format!(
                "{file}: shard {k}/{n} of {} trials runs trials {lo}..{hi}, but its ranges say otherwise: {CHANGED}",
                r.total_trials
            ));
        }
    }
    for (what, metrics) in groups {
        for (name, acc) in *metrics {
            if acc.n > trials {
                return Err(format!(
                    "{file}: {what} '{name}' records {} values from {trials} trials: {CHANGED}",
                    acc.n
                ));
            }
            acc.check().map_err(|e| format!("{file}: {what} '{name}': {e}: {CHANGED}"))?;
            let outside = [acc.min_trial, acc.max_trial].into_iter().flatten().find(|&t| !covers(&r.ranges, t));
            if let Some(t) = outside {
                return Err(format!("{file}: {what} '{name}' names trial {t}, which it did not run: {CHANGED}"));
            }
        }
    }
    Ok(())
}

/// Whether the ranges hold trial `t`.
fn covers(ranges: &[(u64, u64)], t: u64) -> bool {
    ranges.iter().any(|&(a, b)| a <= t && t < b)
}

/// The checksum `sim --json` writes: a hash of the rest of the object (see
/// [`super::report::seal`]). It tells a shard whose figures were edited or
/// damaged after `sim` wrote it even where they still agree with one another;
/// like the content hashes of the inputs, it is no defence against forgery.
fn check_checksum(v: &Value, file: &str) -> Result<(), String> {
    let Some(obj) = v.as_object() else {
        return Err(format!("{file}: not the output of `sandtable sim --json`"));
    };
    let Some(said) = obj.get("checksum") else {
        return Err(format!("{file}: no `checksum` of its figures (written by an older sandtable?): rerun this shard"));
    };
    let mut rest = obj.clone();
    rest.shift_remove("checksum");
    if said.as_str() != Some(super::report::checksum(&rest).as_str()) {
        return Err(format!("{file}: its figures do not match its checksum: {CHANGED}"));
    }
    Ok(())
}

/// Reads what every `sim --json` output has: the run and its trials.
fn parse_header(v: &Value, file: &str) -> Result<Header, String> {
    if field(v, "command", file)?.as_str() != Some("sim") {
        return Err(format!("{file}: not the output of `sandtable sim --json` (only sim runs can be merged)"));
    }
    let setup: Setup =
        serde_json::from_value(field(v, "setup", file)?.clone()).map_err(|e| format!("{file}: setup: {e}"))?;
    let seed = field(v, "seed", file)?.as_u64().ok_or_else(|| format!("{file}: bad seed"))?;
    let total_trials = field(v, "total_trials", file)?.as_u64().ok_or_else(|| format!("{file}: bad total_trials"))?;
    let ranges = field(v, "ranges", file)?
        .as_array()
        .ok_or_else(|| format!("{file}: bad ranges"))?
        .iter()
        .map(|r| match (r.get(0).and_then(Value::as_u64), r.get(1).and_then(Value::as_u64)) {
            (Some(a), Some(b)) if a <= b => Ok((a, b)),
            _ => Err(format!("{file}: bad range {r}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let shard = match v.get("shard").and_then(Value::as_str) {
        Some(s) => Some(super::sim::parse_shard(s).map_err(|e| format!("{file}: {e}"))?),
        None => None,
    };
    let sources = match v.get("sources") {
        None => BTreeMap::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, h)| match h.as_str() {
                Some(h) => Ok((k.clone(), h.to_string())),
                None => Err(format!("{file}: bad hash of {k} in `sources`")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(format!("{file}: `sources` is not an object")),
    };
    Ok(Header { setup, seed, total_trials, ranges, shard, sources })
}

/// Whether a `sim --json` output is a sweep's.
fn is_sweep(v: &Value) -> bool {
    v.get("sweep").is_some()
}

/// Reads one `sim --json` output of a run (not a sweep) back into a result.
pub fn parse_sim(v: &Value, file: &str) -> Result<SimResult, String> {
    if is_sweep(v) {
        return Err(format!("{file}: the output of a sweep (--sweep, --arg VALUES), not of a single run"));
    }
    let h = parse_header(v, file)?;
    let metrics = parse_metrics(field(v, "metrics", file)?, file)?;
    let (vs, vs_metrics) = match v.get("vs") {
        Some(vs) => (
            Some(
                serde_json::from_value(field(vs, "setup", file)?.clone())
                    .map_err(|e| format!("{file}: vs.setup: {e}"))?,
            ),
            Some(parse_metrics(field(vs, "metrics", file)?, file)?),
        ),
        None => (None, None),
    };
    let diff = match v.get("diff") {
        Some(d) => Some(parse_metrics(d, file)?),
        None => None,
    };
    let mut groups = vec![("metric".to_string(), &metrics)];
    groups.extend(vs_metrics.iter().map(|m| ("--vs metric".to_string(), m)));
    groups.extend(diff.iter().map(|m| ("difference".to_string(), m)));
    check_figures(&h, &groups, v, file)?;
    let Header { setup, seed, total_trials, ranges, shard, sources } = h;
    Ok(SimResult { setup, vs, seed, total_trials, ranges, shard, metrics, vs_metrics, diff, sources })
}

/// Reads one `sim --sweep ... --json` output back into a sweep's result.
pub fn parse_sweep(v: &Value, file: &str) -> Result<SweepResult, String> {
    if !is_sweep(v) {
        return Err(format!("{file}: the output of a single run, not of a sweep (--sweep, --arg VALUES)"));
    }
    let h = parse_header(v, file)?;
    let sweep = field(v, "sweep", file)?;
    let axes: Vec<Axis> =
        serde_json::from_value(field(sweep, "axes", file)?.clone()).map_err(|e| format!("{file}: sweep.axes: {e}"))?;
    let expected = super::sweep::points(&axes).map_err(|e| format!("{file}: {e}"))?;
    let given = field(sweep, "points", file)?.as_array().ok_or_else(|| format!("{file}: bad sweep.points"))?;
    if given.len() != expected.len() {
        return Err(format!("{file}: {} points, but its axes make {}: {CHANGED}", given.len(), expected.len()));
    }
    let mut points = Vec::new();
    for (p, at) in given.iter().zip(expected) {
        let values = super::report::point_values_json(&axes, &at);
        if p.get("values") != Some(&values) {
            return Err(format!("{file}: the point {values} is not where its axes put it: {CHANGED}"));
        }
        let metrics = parse_metrics(field(p, "metrics", file)?, file)?;
        let change = parse_metrics(field(p, "change", file)?, file)?;
        points.push(PointStats { at, metrics, change });
    }
    let names: Vec<String> = points.iter().map(|p| super::report::describe_point(&axes, &p.at)).collect();
    let mut groups = Vec::new();
    for (p, name) in points.iter().zip(&names) {
        groups.push((format!("at {name}, metric"), &p.metrics));
        groups.push((format!("at {name}, change of"), &p.change));
    }
    check_figures(&h, &groups, v, file)?;
    let Header { setup, seed, total_trials, ranges, shard, sources } = h;
    Ok(SweepResult { setup, axes, seed, total_trials, ranges, shard, points, sources })
}

/// Refuses shards whose runs read different versions of a file (the script,
/// scenario or a ruleset file edited between the runs), naming the file.
fn same_sources(
    file: &str,
    a: &BTreeMap<String, String>,
    first_file: &str,
    b: &BTreeMap<String, String>,
) -> Result<(), String> {
    if a.is_empty() != b.is_empty() {
        let (with, without) = if a.is_empty() { (first_file, file) } else { (file, first_file) };
        return Err(format!(
            "{without} does not record the files it was run on (written by an older sandtable?) and {with} does: \
             rerun the older shards so that every shard's files can be checked"
        ));
    }
    for (name, hash) in a {
        match b.get(name) {
            Some(h) if h == hash => {}
            Some(_) => {
                return Err(format!(
                    "{file} and {first_file} were run on different versions of {name} (it changed between the runs): \
                     rerun the shards against one version"
                ))
            }
            None => return Err(format!("{file} read {name} but {first_file} did not: they come from different runs")),
        }
    }
    if let Some(name) = b.keys().find(|k| !a.contains_key(*k)) {
        return Err(format!("{first_file} read {name} but {file} did not: they come from different runs"));
    }
    Ok(())
}

/// Joins sorted ranges that touch; fails on overlaps.
fn join_ranges(mut rs: Vec<(u64, u64)>) -> Result<Vec<(u64, u64)>, String> {
    rs.retain(|(a, b)| a < b);
    rs.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (a, b) in rs {
        match out.last_mut() {
            Some(last) if a < last.1 => {
                return Err(format!(
                    "trials {}..{} appear in more than one file (the same shard given twice?)",
                    a,
                    b.min(last.1)
                ))
            }
            Some(last) if a == last.1 => last.1 = b,
            _ => out.push((a, b)),
        }
    }
    Ok(out)
}

/// What two shards must share to be merged: the same script and setup,
/// seed, `--trials` and files.
struct Run<'a> {
    setup: &'a Setup,
    seed: u64,
    total_trials: u64,
    sources: &'a BTreeMap<String, String>,
}

/// Refuses shard `file` when it comes from another run than `first_file`.
fn same_run(file: &str, r: &Run, first_file: &str, first: &Run) -> Result<(), String> {
    let differs = |what: &str| format!("{file} and {first_file} come from different runs: their {what} differ");
    if r.setup != first.setup {
        return Err(differs("scripts or setups"));
    }
    if r.seed != first.seed {
        return Err(differs("seeds"));
    }
    if r.total_trials != first.total_trials {
        return Err(differs("--trials"));
    }
    same_sources(file, r.sources, first_file, first.sources)
}

/// Merges results of the same run's shards.
pub fn merge(parts: Vec<(String, SimResult)>) -> Result<SimResult, String> {
    let mut it = parts.into_iter();
    let (first_file, mut acc) = it.next().ok_or("merge: give at least one JSON file")?;
    let mut ranges = acc.ranges.clone();
    let first = Run { setup: &acc.setup, seed: acc.seed, total_trials: acc.total_trials, sources: &acc.sources };
    for (file, r) in it {
        let run = Run { setup: &r.setup, seed: r.seed, total_trials: r.total_trials, sources: &r.sources };
        same_run(&file, &run, &first_file, &first)?;
        if r.vs != acc.vs {
            return Err(format!("{file} and {first_file} come from different runs: their --vs variants differ"));
        }
        ranges.extend(r.ranges.iter().copied());
        super::stats::merge_metrics(&mut acc.metrics, &r.metrics);
        if let (Some(a), Some(b)) = (&mut acc.vs_metrics, &r.vs_metrics) {
            super::stats::merge_metrics(a, b);
        }
        if let (Some(a), Some(b)) = (&mut acc.diff, &r.diff) {
            super::stats::merge_metrics(a, b);
        }
    }
    acc.ranges = join_ranges(ranges)?;
    acc.shard = None;
    Ok(acc)
}

/// Merges shards of the same sweep: the same run (as [`merge`] checks) and
/// the same axes with the same values.
pub fn merge_sweeps(parts: Vec<(String, SweepResult)>) -> Result<SweepResult, String> {
    let mut it = parts.into_iter();
    let (first_file, mut acc) = it.next().ok_or("merge: give at least one JSON file")?;
    let mut ranges = acc.ranges.clone();
    let first = Run { setup: &acc.setup, seed: acc.seed, total_trials: acc.total_trials, sources: &acc.sources };
    for (file, r) in it {
        let run = Run { setup: &r.setup, seed: r.seed, total_trials: r.total_trials, sources: &r.sources };
        same_run(&file, &run, &first_file, &first)?;
        if r.axes != acc.axes {
            let show = |axes: &[Axis]| {
                let each: Vec<String> = axes.iter().map(|a| format!("{}={}", a.name, a.values.join(","))).collect();
                each.join(" × ")
            };
            return Err(format!(
                "{file} and {first_file} come from different sweeps: {} against {}",
                show(&r.axes),
                show(&acc.axes)
            ));
        }
        ranges.extend(r.ranges.iter().copied());
        for (a, b) in acc.points.iter_mut().zip(&r.points) {
            super::stats::merge_metrics(&mut a.metrics, &b.metrics);
            super::stats::merge_metrics(&mut a.change, &b.change);
        }
    }
    acc.ranges = join_ranges(ranges)?;
    acc.shard = None;
    Ok(acc)
}

/// Reads each file as JSON, with its name.
fn read_all(files: &[impl AsRef<Path>]) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    for f in files {
        let name = f.as_ref().display().to_string();
        let text = crate::files::read_text(f.as_ref(), crate::files::TEXT_LIMIT)
            .map_err(|e| format!("cannot read {name}: {e}"))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{name}: not JSON: {e}"))?;
        out.push((name, v));
    }
    Ok(out)
}

/// Reads and merges the shards of a run.
pub fn merge_files(files: &[impl AsRef<Path>]) -> Result<SimResult, String> {
    let mut parts = Vec::new();
    for (name, v) in read_all(files)? {
        let r = parse_sim(&v, &name)?;
        check_checksum(&v, &name)?;
        parts.push((name, r));
    }
    merge(parts)
}

/// Merged shards: of a run or of a sweep.
pub enum Merged {
    Run(Box<SimResult>),
    Sweep(Box<SweepResult>),
}

/// Reads and merges the shards of a run or, when the first file is a
/// sweep's, of a sweep (every file must then be one of that sweep's).
pub fn merge_any(files: &[impl AsRef<Path>]) -> Result<Merged, String> {
    let all = read_all(files)?;
    if !all.first().is_some_and(|(_, v)| is_sweep(v)) {
        let mut parts = Vec::new();
        for (name, v) in all {
            let r = parse_sim(&v, &name)?;
            check_checksum(&v, &name)?;
            parts.push((name, r));
        }
        return merge(parts).map(|r| Merged::Run(Box::new(r)));
    }
    let mut parts = Vec::new();
    for (name, v) in all {
        let r = parse_sweep(&v, &name)?;
        check_checksum(&v, &name)?;
        parts.push((name, r));
    }
    merge_sweeps(parts).map(|r| Merged::Sweep(Box::new(r)))
}

/// Trials of the full run that no merged file covered.
pub fn missing(r: &SimResult) -> Vec<(u64, u64)> {
    missing_of(&r.ranges, r.total_trials)
}

/// Trials `0..total_trials` that `ranges` (sorted, joined) leave out.
pub fn missing_of(ranges: &[(u64, u64)], total_trials: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut at = 0;
    for &(a, b) in ranges {
        if a > at {
            out.push((at, a));
        }
        at = b;
    }
    if at < total_trials {
        out.push((at, total_trials));
    }
    out
}
