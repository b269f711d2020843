//! `exact_odds(fn, opts?)`: the spec helper that enumerates what `exact`
//! would, on the world as it stands in the case.
//!
//! `fn` runs again and again with the dice in enumeration mode, each time
//! from the world as it was when `exact_odds` was called, along the next
//! path of outcomes (the walk of [`crate::analysis::exact::walk_in_place`],
//! the same observations and weights as `exact`'s), until every outcome of
//! the dice it looks at has been followed. What it returns each time is
//! read as a trial's metrics are (numbers or booleans, by name), and each
//! metric's exact mean comes back, with its fraction, its distribution and
//! the probability that `fn` returned it at all.
//!
//! As in `exact`, the log records nothing (`world:recording()` is false).
//! Forced dice and queued answers belong inside `fn` (each execution uses
//! them); any left waiting when `exact_odds` is called are refused, and any
//! an execution leaves unused fail it, as they fail a case. Decisions are
//! answered as around the call, with nobody to ask: in a spec by queued
//! answers or a policy. Afterwards the world, the subscriptions and the
//! policies are put back as they were.

use std::rc::Rc;

use mlua::{Function, Lua, MultiValue, Table, Value};

use crate::analysis::exact::{ratio_f64, ratio_str, walk_in_place, WalkStop};
use crate::analysis::{read_metrics, MetricNames};
use crate::dice::{Enumeration, Source};
use crate::lua::{call_with_traceback, copy_registry, copy_table, keys, leftovers, ScriptError, State};

/// Leaves walked at most unless `max_leaves` says otherwise: a spec's odds
/// come from a small position, and the case's time budget holds anyway.
pub const DEFAULT_MAX_LEAVES: u64 = 100_000;

fn refused(what: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::runtime(format!("exact_odds: {what}"))
}

/// The options: `{max_leaves = n}`.
fn max_leaves(opts: Option<Table>) -> mlua::Result<u64> {
    let Some(opts) = opts else { return Ok(DEFAULT_MAX_LEAVES) };
    let mut max = DEFAULT_MAX_LEAVES;
    for pair in opts.pairs::<Value, Value>() {
        let (k, v) = pair?;
        match (k.to_string()?.as_str(), &v) {
            ("max_leaves", Value::Integer(n)) if *n >= 1 => max = *n as u64,
            ("max_leaves", Value::Number(n)) if *n >= 1.0 && n.fract() == 0.0 && *n <= 9e15 => max = *n as u64,
            ("max_leaves", _) => {
                return Err(refused(format!("max_leaves must be a whole number of 1 or more, not {}", v.to_string()?)))
            }
            (other, _) => return Err(refused(format!("unknown option `{other}` (the options are: max_leaves)"))),
        }
    }
    Ok(max)
}

/// The policies as (id, function) pairs, to tell whether an execution changed them.
fn policy_list(lua: &Lua) -> mlua::Result<Vec<(Value, Value)>> {
    let t: Table = lua.named_registry_value(keys::POLICIES)?;
    t.pairs::<Value, Value>().collect()
}

/// An execution's error as one line: where it was raised and why.
fn error_line(e: &mlua::Error) -> String {
    let se = ScriptError::from_lua(e);
    match se.location() {
        Some((file, line)) => format!("{file}:{line}: {}", se.message()),
        None => se.message(),
    }
}

/// What the world, the handlers and the policies were before the walk.
struct Saved {
    handlers: Table,
    handler_changes: u64,
    next_handler: Value,
    subscribed: bool,
    policies: Table,
    policy_list: Vec<(Value, Value)>,
}

impl Saved {
    fn take(lua: &Lua, st: &State) -> mlua::Result<Saved> {
        Ok(Saved {
            handlers: copy_registry(lua, keys::HANDLERS, true)?,
            handler_changes: st.handler_lists.borrow().changes,
            next_handler: lua.named_registry_value(keys::NEXT_HANDLER)?,
            subscribed: st.subscribed.get(),
            policies: copy_registry(lua, keys::POLICIES, false)?,
            policy_list: policy_list(lua)?,
        })
    }

    /// Puts back what an execution changed: subscriptions (`on`, `off`)
    /// and policies made inside `fn` last for that execution only.
    fn put_back(&mut self, lua: &Lua, st: &State) -> mlua::Result<()> {
        if st.handler_lists.borrow().changes != self.handler_changes {
            crate::lua::world::set_handlers(lua, copy_table(lua, &self.handlers, true)?)?;
            lua.set_named_registry_value(keys::NEXT_HANDLER, self.next_handler.clone())?;
            st.subscribed.set(self.subscribed);
            self.handler_changes = st.handler_lists.borrow().changes;
        }
        if policy_list(lua)? != self.policy_list {
            lua.set_named_registry_value(keys::POLICIES, copy_table(lua, &self.policies, false)?)?;
        }
        lua.set_named_registry_value(keys::ANSWERS, lua.create_table()?)?;
        Ok(())
    }
}

/// An execution that failed: its walk (when it has it) and its error.
type Failed = Box<(Option<Enumeration>, mlua::Error)>;

fn failed(walk: Option<Enumeration>, e: mlua::Error) -> Failed {
    Box::new((walk, e))
}

/// Runs `f` once along `walk` on a copy of `template`; its metrics go to `values`.
fn execution(
    lua: &Lua,
    st: &State,
    f: &Function,
    template: &crate::battlefield::World,
    names: &mut MetricNames,
    (walk, values): (Enumeration, &mut Vec<f64>),
) -> Result<Enumeration, Failed> {
    {
        let mut w = st.world.borrow_mut();
        w.reset_from(template);
        w.dice.set_source(Source::Enumerate(walk));
    }
    let r = call_with_traceback(lua, f, MultiValue::new());
    let walk =
        match std::mem::replace(st.world.borrow_mut().dice.source_mut(), Source::Random(rand_pcg::Pcg64Mcg::new(1))) {
            Source::Enumerate(w) => w,
            // Reseeded, or a new world (with new dice) from a scenario.
            Source::Random(_) => {
                return Err(failed(
                    None,
                    refused(
                        "the function reseeded the dice (dice.seed) or loaded a scenario, so its rolls cannot be \
                         enumerated: every roll must come from the dice box (load the scenario before exact_odds)",
                    ),
                ))
            }
        };
    let out = match r {
        // A time-out (the case's budget) stays itself.
        Err(e) if st.guard.tripped() => return Err(failed(Some(walk), e)),
        Err(e) => return Err(failed(Some(walk), refused(format!("the function failed: {}", error_line(&e))))),
        Ok(v) => v.into_iter().next().unwrap_or(Value::Nil),
    };
    let fail = |walk: Enumeration, e: String| Err(failed(Some(walk), refused(e)));
    let left = match leftovers(lua, st) {
        Ok(l) => l,
        Err(e) => return Err(failed(Some(walk), e)),
    };
    if !left.is_empty() {
        return fail(walk, format!("an execution of the function left {}", left.join("; ")));
    }
    if let Err(e) = read_metrics(names, values, out, "the function") {
        return fail(walk, e.message());
    }
    Ok(walk)
}

/// `exact_odds(fn, opts?)`: each metric's exact mean over every outcome of
/// the dice `fn` looks at, and the details (`fraction`, `present`, `dist`,
/// `leaves`).
pub fn exact_odds(lua: &Lua, st: &Rc<State>, (f, opts): (Function, Option<Table>)) -> mlua::Result<(Table, Table)> {
    let max = max_leaves(opts)?;
    {
        let w = st.world.borrow();
        if matches!(w.dice.source(), Source::Enumerate(_)) {
            return Err(refused("cannot run inside `exact` or inside another exact_odds"));
        }
        if let Some((kind, v)) = w.dice.unused_forced().into_iter().next() {
            return Err(refused(format!(
                "forced {kind} results are waiting ({}): force dice inside the function, where each execution rolls them",
                v.join(" ")
            )));
        }
    }
    let queued: Table = lua.named_registry_value(keys::ANSWERS)?;
    if queued.raw_len() > 0 {
        return Err(refused(
            "answers are waiting (answers{...}): queue them inside the function, where each execution uses them",
        ));
    }
    let start = st.world.borrow().clone();
    // As in `exact`'s trials, nobody reads the log.
    let mut template = start.clone();
    template.log.recording = false;
    template.log.events.clear();
    let mut saved = Saved::take(lua, st)?;
    let asker = st.asker.borrow_mut().take();
    let names = std::cell::RefCell::new(MetricNames::default());
    let walked = {
        let saved = &mut saved;
        walk_in_place(
            max,
            |walk, values| {
                let r = execution(lua, st, &f, &template, &mut names.borrow_mut(), (walk, values));
                let put_back = saved.put_back(lua, st);
                match r {
                    Ok(w) => put_back.map(|()| w).map_err(|e| failed(None, e)),
                    Err(e) => Err(e),
                }
            },
            || names.borrow().to_vec(),
        )
    };
    *st.world.borrow_mut() = start;
    *st.asker.borrow_mut() = asker;
    let (metrics, leaves) = match walked {
        Ok(r) => r,
        Err(WalkStop::Failed(e, path)) if path.is_empty() => return Err(e),
        Err(WalkStop::Failed(e, path)) => {
            return Err(match e {
                mlua::Error::RuntimeError(m) => mlua::Error::runtime(format!("{m} (on the outcome path {path:?})")),
                other => other,
            })
        }
        Err(WalkStop::TooManyLeaves(n)) => {
            return Err(refused(format!(
                "the function has more than {n} outcome leaves (max_leaves = {n}); give a larger max_leaves, \
                 or look at fewer dice (a count branches on how many, not on every face)"
            )))
        }
        Err(WalkStop::Overflow) => {
            return Err(refused(
                "a pool is too large to enumerate (more outcomes than exact tabulates for one roll, or weights past 128 bits)",
            ))
        }
    };
    let odds = lua.create_table()?;
    let (fraction, present, dist) = (lua.create_table()?, lua.create_table()?, lua.create_table()?);
    for (name, m) in &metrics {
        let mean = m.mean();
        odds.set(name.as_str(), ratio_f64(&mean))?;
        fraction.set(name.as_str(), ratio_str(&mean))?;
        present.set(name.as_str(), ratio_f64(&m.present))?;
        let d = lua.create_table()?;
        for (&k, p) in &m.dist {
            d.set(crate::analysis::stats::value_of(k), ratio_f64(p))?;
        }
        dist.set(name.as_str(), d)?;
    }
    let detail = lua.create_table()?;
    detail.set("fraction", fraction)?;
    detail.set("present", present)?;
    detail.set("dist", dist)?;
    detail.set("leaves", leaves)?;
    Ok((odds, detail))
}
