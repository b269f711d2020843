//! Budget trips and tracebacks: what a failed call tells the person.
use super::pretty::{pretty, Limits};
use super::*;
use mlua::IntoLuaMulti;

pub(super) fn trip_message(trip: Option<Trip>, state: &State) -> String {
    trip_error(trip.unwrap_or(Trip::Time), state).to_string()
}

/// The error a tripped guard gives: matchable, and its message written once
/// (in `ScriptError`'s `Display`).
pub(super) fn trip_error(trip: Trip, state: &State) -> ScriptError {
    match trip {
        Trip::Cancel => ScriptError::Interrupted,
        Trip::Time => ScriptError::TimeLimit { ms: state.limits.get().time_ms },
    }
}

/// Calls `f` so that a Lua error carries a traceback. An error object (a
/// table) is shown by its fields, read raw in Rust ([`describe_error_object`]),
/// without running its `__tostring` (an error object's metamethods are
/// hostile territory: one may loop or fail).
pub fn call_with_traceback(lua: &Lua, f: &Function, args: MultiValue) -> mlua::Result<MultiValue> {
    let state = lua.app_data_ref::<Rc<State>>().map(|s| s.clone());
    let runner = traceback_runner(lua, state.as_deref())?;
    let mut all = MultiValue::new();
    all.push_back(Value::Function(f.clone()));
    all.extend(args);
    runner_outcome(lua, runner.call(all)?)
}

/// Calls an event handler `f` with `args` as [`call_with_traceback`] does,
/// dropping what it returns. A move emits on every step: the handler's
/// arguments are pushed straight from `args` and the runner's answer read
/// straight off the stack, with no list of values built for either.
pub fn call_handler(lua: &Lua, st: &State, f: &Function, args: impl IntoLuaMulti) -> mlua::Result<()> {
    let made;
    let runner = match st.traceback_runner.get() {
        Some(r) => r,
        None => {
            made = traceback_runner(lua, Some(st))?;
            &made
        }
    };
    // `true, results...` or `false, error, traceback`.
    let (ok, error, traceback): (bool, Value, Value) = runner.call((f, args))?;
    if ok {
        return Ok(());
    }
    runner_outcome(lua, MultiValue::from_iter([Value::Boolean(false), error, traceback])).map(|_| ())
}

/// The Luau function every traceback call goes through: `runner(f, ...)`
/// returns `true, f's results...` or `false, error, traceback`. Made once,
/// and kept by the state too: event handlers and policies run many times a
/// trial, and a named registry look-up costs more than the call's own work.
fn traceback_runner(lua: &Lua, state: Option<&State>) -> mlua::Result<Function> {
    let kept = match state.and_then(|s| s.traceback_runner.get().cloned()) {
        Some(r) => Some(r),
        None => lua.named_registry_value::<Option<Function>>(keys::TBCALL)?,
    };
    let runner: Function = match kept {
        Some(r) => r,
        None => {
            // One handler for every call (no closure or table made per
            // call: policies and event handlers run in every `sim` trial).
            // A nested call reads and clears `tb` before an outer handler
            // can set it again.
            let r: Function = load_text(
                lua,
                r#"
local traceback = debug.traceback
local tb
local function handler(e)
  tb = traceback(nil, 2)
  return e
end
local function finish(ok, ...)
  if ok then return true, ... end
  local t = tb
  tb = nil
  return false, (...), t
end
return function(f, ...)
  return finish(xpcall(f, handler, ...))
end
"#,
                "=sandtable",
            )?
            .call(())?;
            lua.set_named_registry_value(keys::TBCALL, r.clone())?;
            r
        }
    };
    if let Some(st) = state {
        let _ = st.traceback_runner.set(runner.clone());
    }
    Ok(runner)
}

/// What the traceback runner returned (`true, ...` or `false, error,
/// traceback`) as the call's results or its error, with the traceback.
pub fn runner_outcome(lua: &Lua, mut out: MultiValue) -> mlua::Result<MultiValue> {
    let ok = matches!(out.pop_front(), Some(Value::Boolean(true)));
    if ok {
        return Ok(out);
    }
    let err = out.pop_front().unwrap_or(Value::Nil);
    let tb = match out.pop_front() {
        Some(Value::String(s)) => trim_traceback(&s.to_string_lossy()),
        _ => String::new(),
    };
    Err(match err {
        Value::Error(e) => match *e {
            mlua::Error::CallbackError { cause, .. } => mlua::Error::CallbackError { traceback: tb, cause },
            mlua::Error::RuntimeError(m) => mlua::Error::RuntimeError(format!("{m}\n{tb}")),
            other => other,
        },
        Value::String(s) => {
            let m = s.to_string_lossy();
            if m == "not enough memory" {
                mlua::Error::MemoryError(m.to_string())
            } else {
                mlua::Error::RuntimeError(format!("{m}\n{tb}"))
            }
        }
        other => mlua::Error::RuntimeError(format!("error object: {}\n{tb}", describe_error_object(lua, &other))),
    })
}

/// An error value that is not text, shown by its fields (`{code = 3, why =
/// "blocked"}`) through the pretty-printer, which reads tables raw: no
/// metamethod of the object runs, and nesting, fields and length are capped.
pub fn describe_error_object(lua: &Lua, v: &Value) -> String {
    const LIMITS: Limits = Limits { depth: 1, items: 8, width: 400, total: 400, string: 60 };
    let text = pretty(lua, None, v, &LIMITS);
    match v {
        Value::Table(t) if text == "{}" => {
            format!("{{}} {}", if t.metatable().is_some() { "(a table with a metatable)" } else { "(an empty table)" })
        }
        _ => text,
    }
}

/// Keeps a traceback readable: drops our own frames (the runner, the spec
/// harness's `expect`, the `hex` helpers) and caps its length (runaway
/// recursion makes thousands of frames).
pub fn trim_traceback(tb: &str) -> String {
    const KEEP: usize = 12;
    let ours = |l: &str| {
        let t = l.trim_start();
        l.contains("sandtable:")
            || l.contains("in function 'xpcall'")
            || t.starts_with("expect:")
            || t.starts_with("hex:")
    };
    let lines: Vec<&str> = tb.lines().filter(|l| !ours(l) && !l.trim().is_empty()).collect();
    let mut out: Vec<String> = Vec::new();
    if !lines.first().is_some_and(|l| l.starts_with("stack traceback")) {
        out.push("stack traceback:".into());
    }
    if lines.len() > KEEP + 2 {
        out.extend(lines[..KEEP].iter().map(|l| l.to_string()));
        out.push(format!("\t... ({} more frames)", lines.len() - KEEP - 1));
        out.push(lines[lines.len() - 1].to_string());
    } else {
        out.extend(lines.iter().map(|l| l.to_string()));
    }
    out.join("\n")
}

#[cfg(test)]
mod trim_tests {
    #[test]
    fn harness_frames_are_dropped() {
        let tb = "stack traceback:\n\texpect:25 function to_be\n\thex:3\n\tx_spec.lua:7\n\tsandtable:1\n\tx_spec.lua:1";
        assert_eq!(super::trim_traceback(tb), "stack traceback:\n\tx_spec.lua:7\n\tx_spec.lua:1");
    }
}
