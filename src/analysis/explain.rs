//! `sim --trial I --explain`: one trial of a run replayed with the event log
//! on, to see why it came out as it did.
//!
//! The trial runs as in the run (same template world, the dice seeded by
//! [`super::trial_seed`], decisions answered the same way), but the world
//! records its log: every roll with its reason, every decision with its
//! options and answer, hits, eliminations and the rules' notes. The global
//! `explaining` is true, so a trial script can call its rules' full path
//! (`quiet = not explaining`): their notes then say why each result came
//! out (a bombardment's hex by hex breakdown). Whatever the trial prints is
//! shown too; in a run it is dropped.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::stats::value_label;
use super::{trial_seed, AnalysisError, Setup, Worker};
use crate::log::Event;
use crate::lua::ScriptError;

/// One trial replayed.
pub struct Explained {
    pub trial: u64,
    pub dice_seed: u64,
    pub events: Vec<Event>,
    /// What the trial printed.
    pub printed: String,
    /// The metrics it returned, in the order first seen (booleans as 0/1).
    pub metrics: Vec<(String, f64)>,
    /// The trial's error, with its traceback, when it failed.
    pub error: Option<ScriptError>,
}

/// Replays trial `trial` of a run of `setup` with seed `seed`.
pub fn explain(setup: &Setup, seed: u64, trial: u64) -> Result<Explained, AnalysisError> {
    let mut w = Worker::new(setup, seed)?;
    w.host.lua.globals().raw_set("explaining", true).map_err(|e| AnalysisError::plain(e.to_string()))?;
    w.template.log.recording = true;
    w.start_batch();
    let dice_seed = trial_seed(seed, trial);
    let ran = w.run_seeded(dice_seed);
    let events = std::mem::take(&mut w.host.state.world.borrow_mut().log.events);
    let printed = w.host.take_output();
    let (metrics, error) = match ran {
        Ok(()) => {
            let m = w.names.iter().zip(&w.values).filter(|(_, v)| !v.is_nan()).map(|(n, &v)| (n.clone(), v));
            (m.collect(), None)
        }
        Err(first) => (Vec::new(), Some(w.explain_failure(dice_seed, first))),
    };
    Ok(Explained { trial, dice_seed, events, printed, metrics, error })
}

/// A decision as the explanation shows it: the question, what could be
/// chosen, and the answer and who gave it.
fn decision_text(e: &Event) -> Option<String> {
    let Event::Decision { id, side, prompt, options, default, choice, by, .. } = e else { return None };
    let who = if side.is_empty() { String::new() } else { format!("{side}: ") };
    let id = id.as_ref().map(|i| format!(" ({i})")).unwrap_or_default();
    Some(format!(
        "{who}{prompt}{id}\n        options: {}; default {default}\n        answer: {choice} [{by}]",
        options.join(" | ")
    ))
}

/// The readable explanation of one trial: `title` names the run (the script
/// and, with `--vs`, the variant).
pub fn text(x: &Explained, title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{title}: trial {} (dice seed {:#x})", x.trial, x.dice_seed);
    if x.events.is_empty() {
        let _ = writeln!(
            out,
            "\n  no events: the trial rolled no dice through the log and its rules wrote no notes\n  \
             (a rule called with `quiet = true` writes none: pass `quiet = not explaining`)"
        );
    } else {
        let _ = writeln!(out, "\nevents ({}):", x.events.len());
        let w = x.events.len().to_string().len();
        for (k, e) in x.events.iter().enumerate() {
            let line = decision_text(e).unwrap_or_else(|| e.to_string());
            let _ = writeln!(out, "  {:>w$}. {line}", k + 1);
        }
    }
    if !x.printed.is_empty() {
        let _ = writeln!(out, "\nprinted:");
        for l in x.printed.lines() {
            let _ = writeln!(out, "  {l}");
        }
    }
    match &x.error {
        Some(e) => {
            let _ = writeln!(out, "\nthe trial failed:\n{}", crate::lua::render_error(e, false));
        }
        None => {
            let _ = writeln!(out, "\nmetrics:");
            let wn = x.metrics.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(0);
            for (n, v) in &x.metrics {
                let _ = writeln!(out, "  {n:wn$}  {}", value_label(*v));
            }
        }
    }
    out
}

/// The explanation as JSON: the events as `run --log` writes them.
pub fn json(x: &Explained) -> Value {
    let metrics: serde_json::Map<String, Value> = x.metrics.iter().map(|(n, v)| (n.clone(), json!(v))).collect();
    json!({
        "trial": x.trial,
        "dice_seed": format!("{:#x}", x.dice_seed),
        "events": x.events,
        "printed": x.printed,
        "metrics": metrics,
        "error": x.error.as_ref().map(|e| crate::lua::render_error(e, false)),
    })
}
