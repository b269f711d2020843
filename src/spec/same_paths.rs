//! `same_paths{...}`: the spec helper that checks a rule's quiet (fast) path
//! against its full path.
//!
//! A rule with a fast form for `sim` and `exact` (great_war's
//! `reserve_artillery.fire{quiet=true}`) is a second code path beside the full
//! one; both must leave the same battlefield and the same numbers. For each
//! trial the helper builds a random board (the spec's `board(rng)` on a copy
//! of the world, with a seeded random source), seeds the dice, runs the full
//! path, puts the world back as it was before that run, runs the quiet path
//! with the same dice and the same answers to every decision, and compares:
//!
//! * the battlefield: units (hex, strength, alive, properties), terrain,
//!   tokens, side pools, whose turn it is (not the log or the map marks, which
//!   only the full path writes);
//! * the record: every number, boolean, text and hex field the quiet path's
//!   result holds (or the fields the spec names) must equal the full path's;
//! * errors: when one path raises, the other must raise the same message.
//!
//! Decisions are answered from a seeded source (the same choices in both
//! paths), or fall to their defaults (`decisions = "default"`). The world is
//! put back after every trial.

use std::cell::Cell;
use std::rc::Rc;

use mlua::{Function, Lua, MultiValue, Table, Value};

use crate::battlefield::World;
use crate::lua::{call_with_traceback, display_value, Asker, DecisionMode, DecisionRequest, State};

/// splitmix64: a small seeded source for boards and decisions.
fn next(state: &Cell<u64>) -> u64 {
    let s = state.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
    state.set(s);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number from `lo` to `hi` (inclusive).
fn int_in(state: &Cell<u64>, lo: i64, hi: i64) -> i64 {
    if hi <= lo {
        return lo;
    }
    let span = (hi - lo) as u64 + 1;
    lo + (next(state) % span) as i64
}

/// Answers every decision with a seeded choice.
struct SeededAsker(Cell<u64>);

impl Asker for SeededAsker {
    fn ask(&mut self, req: &DecisionRequest) -> Result<usize, String> {
        Ok(int_in(&self.0, 0, req.options.len() as i64 - 1) as usize)
    }
}

/// The seeded source handed to `board(rng)`: `rng:int(lo, hi)`,
/// `rng:chance(p)`, `rng:pick(list)`.
fn make_rng(lua: &Lua, seed: u64) -> mlua::Result<Table> {
    let state = Rc::new(Cell::new(seed));
    let t = lua.create_table()?;
    let s = state.clone();
    t.set("int", lua.create_function(move |_, (_, lo, hi): (Value, i64, i64)| Ok(int_in(&s, lo, hi)))?)?;
    let s = state.clone();
    t.set(
        "chance",
        lua.create_function(move |_, (_, p): (Value, f64)| Ok(((next(&s) >> 11) as f64 / (1u64 << 53) as f64) < p))?,
    )?;
    let s = state;
    t.set(
        "pick",
        lua.create_function(move |_, (_, list): (Value, Table)| {
            let n = list.raw_len() as i64;
            if n == 0 {
                return Err(mlua::Error::runtime("rng:pick: the list is empty"));
            }
            list.raw_get::<Value>(int_in(&s, 1, n))
        })?,
    )?;
    Ok(t)
}

/// The battlefield as text, for comparing two worlds and showing where they
/// differ (the log, the dice and the marks are left out).
fn battlefield(w: &World) -> String {
    format!(
        "{:#?}\n{:#?}\n{:#?}\n{:#?}\ncurrent side: {:?}\nturn: {}",
        w.units, w.sides, w.board.terrain, w.tokens, w.current_side, w.turn
    )
}

/// The first line where two texts differ, with its neighbours for context.
fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let i = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
    let around = |l: &[&str]| -> String {
        let from = i.saturating_sub(3);
        l[from..(i + 1).min(l.len())].iter().map(|s| s.trim()).collect::<Vec<_>>().join(" ")
    };
    format!("full path: ... {}\n  quiet path: ... {}", around(&la), around(&lb))
}

/// An error message without its `file:line:` prefix (the two paths are
/// called from different lines of the spec).
fn bare(e: &mlua::Error) -> String {
    let text = crate::lua::ScriptError::from_lua(e).message();
    let first = text.lines().next().unwrap_or("").to_string();
    match first.split_once(": ") {
        Some((loc, rest)) if loc.contains(':') && loc.rsplit(':').next().is_some_and(|n| n.parse::<u32>().is_ok()) => {
            rest.to_string()
        }
        _ => first,
    }
}

/// Values of the fields to compare: the spec's list, or every plain field of
/// the quiet record.
fn fields(quiet: &Value, named: Option<Table>) -> mlua::Result<Vec<Value>> {
    if let Some(list) = named {
        return list.sequence_values::<Value>().collect();
    }
    let mut out = Vec::new();
    if let Value::Table(t) = quiet {
        for pair in t.pairs::<Value, Value>() {
            let (k, v) = pair?;
            if !matches!(v, Value::Table(_) | Value::Function(_)) {
                out.push(k);
            }
        }
    }
    out.sort_by_key(display_value);
    Ok(out)
}

/// `same_paths{board=, full=, quiet=, trials=, seed=, decisions=, fields=}`.
#[expect(clippy::too_many_lines, reason = "one trial loop: board, full path, quiet path, the three comparisons")]
pub fn same_paths(lua: &Lua, st: &Rc<State>, spec: Table) -> mlua::Result<Table> {
    let board: Option<Function> = spec.get("board")?;
    let full: Function = spec
        .get::<Option<Function>>("full")?
        .ok_or_else(|| mlua::Error::runtime("give full = function(case) ... end"))?;
    let quiet: Function = spec
        .get::<Option<Function>>("quiet")?
        .ok_or_else(|| mlua::Error::runtime("give quiet = function(case) ... end"))?;
    let trials: u64 = spec.get::<Option<u64>>("trials")?.unwrap_or(100);
    let seed: u64 = spec.get::<Option<u64>>("seed")?.unwrap_or(1);
    let random = match spec.get::<Option<String>>("decisions")?.as_deref() {
        None | Some("random") => true,
        Some("default") => false,
        Some(other) => {
            return Err(mlua::Error::runtime(format!("decisions = \"random\" or \"default\", not \"{other}\"")));
        }
    };
    let named: Option<Table> = spec.get("fields")?;

    let start = st.world.borrow().clone();
    let mode = st.decision_mode.replace(DecisionMode::Auto);
    let asker = st.asker.borrow_mut().take();
    let put_back = |st: &State| {
        *st.world.borrow_mut() = start.clone();
        st.decision_mode.set(mode);
    };
    let (mut compared, mut both_failed) = (0u64, 0u64);
    let mut outcome: mlua::Result<()> = Ok(());
    'trials: for k in 0..trials {
        let s = seed.wrapping_add(k);
        let fail = |what: String| {
            mlua::Error::runtime(format!(
                "trial {} of {trials} (seed {s}): {what}\n  (repeat it alone with seed = {s}, trials = 1)",
                k + 1
            ))
        };
        *st.world.borrow_mut() = start.clone();
        let case = match &board {
            Some(b) => match call_with_traceback(lua, b, MultiValue::from_vec(vec![Value::Table(make_rng(lua, s)?)])) {
                Ok(v) => v.into_iter().next().unwrap_or(Value::Nil),
                Err(e) => {
                    outcome = Err(fail(format!("board(rng) failed: {}", bare(&e))));
                    break 'trials;
                }
            },
            None => Value::Nil,
        };
        {
            let mut w = st.world.borrow_mut();
            w.dice.clear_forced();
            w.dice.seed(s);
        }
        let before = st.world.borrow().clone();
        let run = |f: &Function| {
            *st.asker.borrow_mut() = random.then(|| Box::new(SeededAsker(Cell::new(s ^ 0xD1CE))) as Box<dyn Asker>);
            let r = call_with_traceback(lua, f, MultiValue::from_vec(vec![case.clone()]));
            *st.asker.borrow_mut() = None;
            r.map(|v| v.into_iter().next().unwrap_or(Value::Nil))
        };
        let full_result = run(&full);
        let full_world = battlefield(&st.world.borrow());
        *st.world.borrow_mut() = before;
        let quiet_result = run(&quiet);
        let quiet_world = battlefield(&st.world.borrow());
        let (full_rec, quiet_rec) = match (full_result, quiet_result) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(a), Err(b)) => {
                let (a, b) = (bare(&a), bare(&b));
                if a != b {
                    outcome =
                        Err(fail(format!("both paths failed, differently:\n  full path: {a}\n  quiet path: {b}")));
                    break 'trials;
                }
                both_failed += 1;
                continue;
            }
            (Err(a), Ok(_)) => {
                outcome = Err(fail(format!("only the full path failed: {}", bare(&a))));
                break 'trials;
            }
            (Ok(_), Err(b)) => {
                outcome = Err(fail(format!("only the quiet path failed: {}", bare(&b))));
                break 'trials;
            }
        };
        if full_world != quiet_world {
            outcome = Err(fail(format!(
                "the two paths left different battlefields:\n  {}",
                first_difference(&full_world, &quiet_world)
            )));
            break 'trials;
        }
        for key in fields(&quiet_rec, named.clone())? {
            let get = |rec: &Value| -> mlua::Result<Value> {
                match rec {
                    Value::Table(t) => t.get::<Value>(key.clone()),
                    _ => Ok(Value::Nil),
                }
            };
            let (a, b) = (get(&full_rec)?, get(&quiet_rec)?);
            if !a.equals(&b)? {
                let name = match &key {
                    Value::String(s) => s.to_string_lossy().to_string(),
                    other => display_value(other),
                };
                outcome = Err(fail(format!(
                    "the records differ in `{name}`: full path {}, quiet path {}",
                    display_value(&a),
                    display_value(&b)
                )));
                break 'trials;
            }
        }
        compared += 1;
    }
    put_back(st);
    *st.asker.borrow_mut() = asker;
    outcome?;
    let out = lua.create_table()?;
    out.set("trials", trials)?;
    out.set("compared", compared)?;
    out.set("both_failed", both_failed)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeded_source_stays_in_range_and_repeats() {
        let (a, b) = (Cell::new(7), Cell::new(7));
        for _ in 0..200 {
            let x = int_in(&a, 2, 5);
            assert!((2..=5).contains(&x));
            assert_eq!(x, int_in(&b, 2, 5));
        }
        assert_eq!(int_in(&a, 3, 3), 3);
    }

    #[test]
    fn differences_show_the_first_differing_line() {
        let d = first_difference("a\nb\nc", "a\nb\nx");
        assert!(d.contains("full path: ... a b c"), "{d}");
        assert!(d.contains("quiet path: ... a b x"), "{d}");
    }
}
