//! Decisions: rules never assume a player's choice.
//!
//! `decide{side=, prompt=, options=, default=, id=}` is answered, in order, by
//! the next queued answer (`answers{...}`), the person at the REPL, a policy
//! registered for its `id` (`policy(id, fn)`), or the default. In a spec a
//! decision with no queued answer left needs a policy, and takes no default.
//! Every decision is logged with its id, side, options, default, choice and
//! the request's own fields. The prompt may be a function returning the
//! text, called only when the prompt is shown.

use std::rc::Rc;

use mlua::{Function, Lua, MultiValue, Table, Value};

use super::api::Api;
use super::raw::{self, fast};
use super::trace::runner_outcome;
use super::{display_value, keys, DecisionMode, State};
use crate::log::{Event, Field};

/// What a person is asked.
#[derive(Clone, Debug)]
pub struct DecisionRequest {
    pub side: String,
    pub prompt: String,
    pub options: Vec<String>,
    pub default: usize,
    /// For options that are hexes: the direction from the unit or hex the
    /// prompt names, and what is there (empty for other options).
    pub notes: Vec<String>,
    /// Each option as Lua that makes its value (`hex(1, 9)`, `"stand"`, `2`):
    /// what `:transcript` writes in `answers{...}`, so the spec replays.
    pub values: Vec<String>,
}

/// An option as Lua that makes its value, for a transcript's `answers{...}`;
/// an option of another kind (a table, a unit) by its label, as text.
fn option_literal(v: &Value, label: &str) -> String {
    let quoted = |t: &str| super::pretty::quote(t.as_bytes(), usize::MAX);
    match v {
        Value::Vector(_) => {
            super::hex_from_value(v).map_or_else(|_| quoted(label), |h| format!("hex({}, {})", h.q, h.r))
        }
        Value::String(s) => quoted(&s.to_string_lossy()),
        Value::Integer(_) | Value::Number(_) | Value::Boolean(_) => display_value(v),
        _ => quoted(label),
    }
}

/// A decision source that asks a person (the REPL implements it).
pub trait Asker {
    /// Returns the index of the chosen option, or an error to abandon the command.
    fn ask(&mut self, req: &DecisionRequest) -> Result<usize, String>;
}

fn label(lua: &Lua, v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string_lossy().to_string(),
        // A plain table (an answer or a policy's choice gone wrong) by its
        // fields, not its address.
        Value::Table(t) if !t.metatable().is_some_and(|mt| mt.contains_key("__tostring").unwrap_or(false)) => {
            super::trace::describe_error_object(lua, v)
        }
        Value::UserData(_) | Value::Table(_) => lua
            .globals()
            .get::<Function>("tostring")
            .and_then(|f| f.call::<String>(v.clone()))
            .unwrap_or_else(|_| display_value(v)),
        other => display_value(other),
    }
}

/// A decision's prompt: its text, or what its function returns. A prompt
/// that costs something to build (a unit's id, a hex) can be a function,
/// which is called only when a decision reaches here, never when
/// simulation takes its default (the fast path).
fn prompt_text(lua: &Lua, spec: &Table) -> mlua::Result<String> {
    match spec.get::<Value>("prompt")? {
        Value::Nil => Ok("choose".into()),
        // Through the traceback runner, so an error object is shown by its fields.
        Value::Function(f) => match first(super::call_with_traceback(lua, &f, MultiValue::new())?) {
            Value::String(s) => Ok(s.to_string_lossy().to_string()),
            v => Err(mlua::Error::runtime(format!(
                "decide: the prompt function must return the prompt's text, not {}",
                v.type_name()
            ))),
        },
        v => spec.get::<String>("prompt").map_err(|_| bad_prompt(&v)),
    }
}

/// The first of a call's results (nil for none).
fn first(mut values: MultiValue) -> Value {
    values.pop_front().unwrap_or(Value::Nil)
}

fn bad_prompt(v: &Value) -> mlua::Error {
    mlua::Error::runtime(format!("decide: prompt must be text or a function returning it, not {}", v.type_name()))
}

fn position(options: &[Value], v: &Value) -> mlua::Result<Option<usize>> {
    for (i, o) in options.iter().enumerate() {
        if o.equals(v)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// Registers `decide`, `answers` and `policy` (part of the `rules` area).
pub fn install(api: &mut Api) -> mlua::Result<()> {
    let lua = api.lua;
    lua.set_named_registry_value(keys::ANSWERS, lua.create_table()?)?;
    lua.set_named_registry_value(keys::POLICIES, lua.create_table()?)?;

    api.function(
        "decide{side=, prompt=, options=, default=, id=}",
        "ask for a choice: the REPL asks you",
        |lua, st, spec: Table| decide(lua, st, spec, None),
    )?;
    fast::install(lua, api.st, api.table(), c"decide", raw::decide::decide)?;
    // The rest of a decision whose policy the fast path called (see
    // `raw::decide`): `(spec, offered, ...)`, the options as offered (the
    // policy may have edited the list) and the traceback runner's results.
    // Only a failed policy or a choice that is not an option gets here: the
    // same error as the full function's, without calling the policy again.
    let st = api.st.clone();
    let answered = lua.create_function(move |lua, (spec, offered, out): (Table, Table, MultiValue)| {
        decide(lua, &st, spec, Some((offered, out))).map_err(|e| super::api::named("decide", e))
    })?;
    lua.set_named_registry_value(keys::POLICY_ANSWERED, answered)?;

    api.function("answers{...}", "queue answers for the next decisions", |lua, _, list: Table| {
        let answers = answer_list(&list)?;
        let queue: Table = lua.named_registry_value(keys::ANSWERS)?;
        for v in answers {
            queue.raw_push(v)?;
        }
        Ok(())
    })?;
    // `answers` is callable and carries `answers.default`: an answer that
    // takes the decision's own default, so a spec can pin what the default is.
    let sentinel = lua.create_table()?;
    let sentinel_meta = lua.create_table()?;
    sentinel_meta.set("__tostring", lua.create_function(|_, _: Value| Ok("answers.default"))?)?;
    sentinel.set_metatable(Some(sentinel_meta))?;
    sentinel.set_readonly(true);
    lua.set_named_registry_value(keys::ANSWER_DEFAULT, sentinel.clone())?;
    let answers_fn: Function = api.table().get("answers")?;
    let answers = lua.create_table()?;
    answers.set("default", sentinel)?;
    let meta = lua.create_table()?;
    meta.set("__call", lua.create_function(move |_, (_, list): (Value, Table)| answers_fn.call::<()>(list))?)?;
    answers.set_metatable(Some(meta))?;
    answers.set_readonly(true);
    api.table().set("answers", answers)?;
    api.member("answers.default", "an answer that takes the decision's default (specs pin defaults with it)");
    api.function(
        "policy(id, fn)",
        "how simulations answer decision id",
        |lua, _, (id, f): (String, Option<Function>)| {
            let policies: Table = lua.named_registry_value(keys::POLICIES)?;
            policies.set(id, f)
        },
    )?;
    Ok(())
}

/// The answers of `answers{...}`, in order. A hole is refused: Lua stops a
/// list at its first nil, so `answers{nil, "wait"}` would quietly lose
/// "wait" (and every answer after it).
fn answer_list(list: &Table) -> mlua::Result<Vec<Value>> {
    let mut at: Vec<(usize, Value)> = Vec::new();
    for pair in list.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let i = match k {
            Value::Integer(i) => usize::try_from(i).ok().filter(|&i| i >= 1),
            Value::Number(n) if n.fract() == 0.0 && n >= 1.0 && n < 2f64.powi(53) => Some(n as usize),
            _ => None,
        };
        let Some(i) = i else {
            return Err(mlua::Error::runtime(format!(
                "answers takes a list of answers in order, like answers{{2, \"stay\"}}; {} is not a position in a list",
                display_value(&k)
            )));
        };
        at.push((i, v));
    }
    at.sort_by_key(|(i, _)| *i);
    if let Some(hole) = at.iter().enumerate().find(|(n, (i, _))| *i != n + 1).map(|(n, _)| n + 1) {
        return Err(mlua::Error::runtime(format!(
            "answer {hole} of {} is nil: a list cannot hold nil (Lua would drop every answer after it); \
             use answers.default for a decision's default",
            at.last().map_or(0, |(i, _)| *i)
        )));
    }
    Ok(at.into_iter().map(|(_, v)| v).collect())
}

/// The options as the decision offered them: the list in the request, or,
/// after the fast path has called the policy (which gets the list itself and
/// may edit it), the fast path's copy of the list from before the call.
fn offered(opts: &Table, answered: Option<&(Table, MultiValue)>) -> mlua::Result<Vec<Value>> {
    answered.map_or(opts, |(copy, _)| copy).sequence_values::<Value>().collect()
}

/// `decide{side=, prompt=, options=, default=, id=}`: ask for a choice: the
/// REPL asks you. `answered`: when the `decide` fast path has called the
/// policy already, the options as it offered them and what the traceback
/// runner returned.
fn decide(lua: &Lua, st: &Rc<State>, spec: Table, answered: Option<(Table, MultiValue)>) -> mlua::Result<Value> {
    let side: String = spec.get::<Option<String>>("side")?.unwrap_or_default();
    match spec.get::<Value>("prompt")? {
        Value::Nil | Value::String(_) | Value::Integer(_) | Value::Number(_) | Value::Function(_) => {}
        v => return Err(bad_prompt(&v)),
    }
    // Made when first needed (a message, a person, the log), as the fast path
    // never needs it: a prompt function runs only then.
    let made = std::cell::OnceCell::<String>::new();
    let prompt = || -> mlua::Result<String> {
        if let Some(p) = made.get() {
            return Ok(p.clone());
        }
        let p = prompt_text(lua, &spec)?;
        Ok(made.get_or_init(|| p).clone())
    };
    let fail = |what: String| -> mlua::Error {
        match prompt() {
            Ok(p) => mlua::Error::runtime(format!("decide '{p}'{what}")),
            Err(e) => e,
        }
    };
    let id: Option<String> = spec.get("id")?;
    let Some(opts) = spec.get::<Option<Table>>("options")? else {
        return Err(fail(": `options` (a list) is required".into()));
    };
    let options = offered(&opts, answered.as_ref())?;
    if options.is_empty() {
        return Err(fail(": there are no options to choose from".into()));
    }
    let default_v: Value = spec.get("default")?;
    let default = if default_v.is_nil() {
        0
    } else {
        match position(&options, &default_v)? {
            Some(i) => i,
            None => return Err(fail(format!(": the default {} is not one of the options", display_value(&default_v)))),
        }
    };
    // Labels cost a `tostring` each; simulation reads none of them, so make them on demand.
    let labels = || -> Vec<String> { options.iter().map(|o| label(lua, o)).collect() };
    let check = |v: &Value, by: &str| -> mlua::Result<usize> {
        position(&options, v)?.ok_or_else(|| {
            fail(format!(": {by} {} is not one of the options ({})", label(lua, v), labels().join(", ")))
        })
    };
    let queue: Table = lua.named_registry_value(keys::ANSWERS)?;
    let policy = || -> mlua::Result<Option<Function>> {
        match &id {
            Some(id) => lua.named_registry_value::<Table>(keys::POLICIES)?.get::<Option<Function>>(id.as_str()),
            None => Ok(None),
        }
    };
    let answered = std::cell::Cell::new(answered);
    let by_policy = |f: Function| -> mlua::Result<(usize, &'static str)> {
        // Through the traceback runner, so an error object is shown by its fields.
        let args = MultiValue::from_vec(vec![Value::Table(opts.clone()), Value::Table(spec.clone())]);
        let out =
            answered.take().map_or_else(|| super::call_with_traceback(lua, &f, args), |a| runner_outcome(lua, a.1));
        let chosen = first(out.map_err(|e| policy_failed(id.as_deref(), e))?);
        Ok((check(&chosen, "the policy's choice")?, "policy"))
    };
    let (choice, by) = if queue.raw_len() > 0 {
        let answer: Value = queue.raw_get(1)?;
        queue.raw_remove(1)?;
        let sentinel: Value = lua.named_registry_value(keys::ANSWER_DEFAULT)?;
        if answer == sentinel {
            (default, "answer (the default)")
        } else {
            (check(&answer, "the answer")?, "answer")
        }
    } else if st.decision_mode.get() == DecisionMode::Strict {
        // A spec: a policy the spec registered answers when no queued answer
        // is left (as in `sim`); without one, the decision is an error.
        match policy()? {
            Some(f) => by_policy(f)?,
            None => return Err(fail(unanswered(id.as_deref(), &labels()))),
        }
    } else if st.asker.borrow().is_some() {
        // The prompt first: its function may read the world.
        let i = ask_person(st, &side, prompt()?, &options, labels(), default)?;
        if i >= options.len() {
            return Err(fail(format!(": choice {} is out of range", i + 1)));
        }
        (i, "person")
    } else if let Some(f) = policy()? {
        by_policy(f)?
    } else {
        (default, "default")
    };
    if st.world.borrow().log.recording {
        let prompt = prompt()?;
        let labels = labels();
        let request = request_fields(&spec)?;
        st.with_world(|w| {
            w.log.events.push(Event::Decision {
                id: id.clone(),
                side: side.clone(),
                prompt,
                default: labels[default].clone(),
                choice: labels[choice].clone(),
                options: labels,
                by: by.into(),
                request,
            })
        })?;
    }
    Ok(options[choice].clone())
}

/// Why a spec's decision failed: no answer queued and no policy for its id.
fn unanswered(id: Option<&str>, labels: &[String]) -> String {
    let hint = id.map(|id| format!(" or a policy(\"{id}\", fn)")).unwrap_or_default();
    format!(" ({}): no answer left; give one with answers{{...}}{hint} before this decision", labels.join(" / "))
}

/// Asks the person at the REPL; returns the index they chose (unchecked).
fn ask_person(
    st: &State,
    side: &str,
    prompt: String,
    options: &[Value],
    labels: Vec<String>,
    default: usize,
) -> mlua::Result<usize> {
    let notes = {
        let hexes: Vec<Option<crate::hex::Hex>> = options.iter().map(|o| super::hex_from_value(o).ok()).collect();
        let w = st.world.borrow();
        let origin = crate::render::prompt_origin(&w, &prompt);
        crate::render::hex_option_notes(&w, origin, &hexes)
    };
    let values = options.iter().zip(&labels).map(|(o, l)| option_literal(o, l)).collect();
    let req = DecisionRequest { side: side.to_string(), prompt, options: labels, default, notes, values };
    let asked = std::time::Instant::now();
    let answer = st.asker.borrow_mut().as_mut().map(|asker| asker.ask(&req));
    st.guard.extend_deadline(asked.elapsed());
    answer.unwrap_or_else(|| Err("nobody to ask".into())).map_err(mlua::Error::runtime)
}

/// The keys of a decision's request that `decide` itself reads; the others
/// are the request's own fields, which the log keeps.
const DECIDE_KEYS: [&str; 5] = ["side", "prompt", "options", "default", "id"];

/// How deep a request's tables are kept in the log (deeper ones, and
/// cycles, are written as their type).
const FIELD_DEPTH: usize = 4;

/// The request's own fields, sorted by name, as the log keeps them.
fn request_fields(spec: &Table) -> mlua::Result<Vec<(String, Field)>> {
    let mut out = Vec::new();
    for pair in spec.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let Value::String(k) = k else { continue };
        let k = k.to_string_lossy().to_string();
        if DECIDE_KEYS.contains(&k.as_str()) {
            continue;
        }
        if let Some(f) = field(&v, FIELD_DEPTH) {
            out.push((k, f));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// One request value as the log keeps it: nil and functions are left out.
fn field(v: &Value, depth: usize) -> Option<Field> {
    Some(match v {
        Value::Nil | Value::Function(_) | Value::LightUserData(_) => return None,
        Value::Boolean(b) => Field::Bool(*b),
        Value::Integer(i) => Field::Int(*i),
        Value::Number(n) => Field::Num(*n),
        Value::String(s) => Field::Text(s.to_string_lossy().to_string()),
        Value::Vector(_) => match super::hex_from_value(v) {
            Ok(h) => Field::Hex(h),
            Err(_) => Field::Text(display_value(v)),
        },
        Value::UserData(ud) => match ud.borrow::<super::world::UnitRef>() {
            Ok(u) => Field::Unit(u.id.to_string()),
            Err(_) => Field::Text(display_value(v)),
        },
        Value::Table(t) if depth > 0 => {
            let n = t.raw_len();
            if n > 0 {
                let items = (1..=n).filter_map(|i| t.raw_get::<Value>(i).ok().and_then(|x| field(&x, depth - 1)));
                Field::List(items.collect())
            } else {
                let mut fields: Vec<(String, Field)> = t
                    .pairs::<Value, Value>()
                    .flatten()
                    .filter_map(|(k, x)| {
                        let key = match &k {
                            Value::String(s) => s.to_string_lossy().to_string(),
                            other => display_value(other),
                        };
                        field(&x, depth - 1).map(|f| (key, f))
                    })
                    .collect();
                fields.sort_by(|a, b| a.0.cmp(&b.0));
                Field::Map(fields)
            }
        }
        other => Field::Text(other.type_name().to_string()),
    })
}

/// A policy's error, named by the decision it was answering: `policy
/// 'overwatch': error object: {reason = "no target"}`. An error with its own
/// location (a message raised by `error("...")`) already says where it came from.
fn policy_failed(id: Option<&str>, e: mlua::Error) -> mlua::Error {
    match e {
        mlua::Error::RuntimeError(m) if m.starts_with("error object:") => {
            mlua::Error::RuntimeError(format!("policy '{}': {m}", id.unwrap_or("")))
        }
        other => other,
    }
}
