//! Values for people and between formats: paths, Lua values, numbers, JSON.
use super::*;

/// A path as shown in messages: relative to the current folder when under it.
pub fn display_path(p: &Path) -> String {
    if let Ok(cwd) = std::env::current_dir() {
        if let Ok(rel) = p.strip_prefix(&cwd) {
            return rel.display().to_string();
        }
    }
    p.display().to_string()
}

/// A short readable form of a Lua value, without running user metamethods.
pub fn display_value(v: &Value) -> String {
    match v {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => format_number(*n),
        Value::String(s) => format!("{:?}", s.to_string_lossy()),
        Value::Vector(v) => format!("({},{})", format_number(v.x() as f64), format_number(v.y() as f64)),
        Value::Table(_) => "table".into(),
        Value::Function(_) => "function".into(),
        Value::UserData(ud) => {
            if let Ok(u) = ud.borrow::<world::UnitRef>() {
                format!("unit {}", u.id)
            } else {
                "userdata".into()
            }
        }
        other => other.type_name().to_string(),
    }
}

/// Numbers print without a trailing `.0` when whole.
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Converts YAML/JSON data to Lua tables (null becomes nil).
pub fn json_to_lua(lua: &Lua, v: &serde_json::Value) -> mlua::Result<Value> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => Value::Nil,
        J::Bool(b) => Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i as _),
            None => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => Value::String(lua.create_string(s)?),
        J::Array(a) => {
            let t = lua.create_table_with_capacity(a.len(), 0)?;
            for x in a {
                t.raw_push(json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
        J::Object(o) => {
            let t = lua.create_table_with_capacity(0, o.len())?;
            for (k, x) in o {
                t.raw_set(k.as_str(), json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}
