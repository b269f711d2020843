//! What a name at the prompt refers to, found without running any code.
//!
//! Tab completion and the "did you mean" hints both need to know what
//! `dice`, `world:unit("a1").hex` or `params.reserve_artillery` is. They
//! read globals and tables with raw access, follow a metatable's `__index`
//! only when it is a table (never calling an `__index` function), and take
//! the members of values that are not tables (hexes, units, rolls) from the
//! API list. A completion can therefore never run a rule, change the world,
//! or hang on a hostile metamethod.

use mlua::{Lua, Table, Value};

use super::api::{returns_of, value_members, Returns};
use super::lexer;
use crate::lua::{LuaRoll, State, UnitRef};

/// What an expression at the prompt is, as far as can be told without running it.
#[derive(Clone, Debug)]
pub enum Target {
    Value(Value),
    Kind(Returns),
    Unknown,
}

/// Follows a table's raw keys, then its metatable's `__index` tables.
fn raw_index(t: &Table, key: &str) -> Option<Value> {
    let mut cur = t.clone();
    for _ in 0..8 {
        match cur.raw_get::<Value>(key) {
            Ok(Value::Nil) | Err(_) => {}
            Ok(v) => return Some(v),
        }
        let next = cur.metatable().and_then(|mt| mt.raw_get::<Value>("__index").ok());
        match next {
            Some(Value::Table(n)) => cur = n,
            _ => return None,
        }
    }
    None
}

/// A global by name: the session's own globals, then the sandbox's read-only base.
pub fn global(lua: &Lua, name: &str) -> Option<Value> {
    raw_index(&lua.globals(), name)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !lexer::KEYWORDS.contains(&s)
}

/// String keys of a table and its `__index` tables, with whether each holds a function.
fn table_keys(t: &Table) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut cur = Some(t.clone());
    for _ in 0..8 {
        let Some(tbl) = cur else { break };
        let _ = tbl.for_each(|k: Value, v: Value| {
            if let Value::String(s) = k {
                let name = s.to_string_lossy().to_string();
                if is_identifier(&name) && !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, matches!(v, Value::Function(_))));
                }
            }
            Ok(())
        });
        cur = match tbl.metatable().and_then(|mt| mt.raw_get::<Value>("__index").ok()) {
            Some(Value::Table(n)) => Some(n),
            _ => None,
        };
    }
    out
}

/// Every global name the prompt can see.
pub fn global_names(lua: &Lua) -> Vec<String> {
    let mut names: Vec<String> = table_keys(&lua.globals()).into_iter().map(|(n, _)| n).collect();
    names.sort();
    names.dedup();
    names
}

/// The member `key` of a target.
pub fn index(state: &State, target: &Target, key: &str) -> Target {
    match target {
        Target::Value(Value::Table(t)) => raw_index(t, key).map_or(Target::Unknown, Target::Value),
        Target::Value(Value::UserData(ud)) if ud.borrow::<UnitRef>().is_ok() => unit_member(state, key),
        Target::Kind(Returns::Unit) => unit_member(state, key),
        _ => Target::Unknown,
    }
}

fn unit_member(_state: &State, key: &str) -> Target {
    match key {
        "hex" => Target::Kind(Returns::Hex),
        _ => Target::Unknown,
    }
}

/// The members of a target: (name, callable with `:`).
pub fn members(lua: &Lua, state: &State, target: &Target, methods_only: bool) -> Vec<(String, bool)> {
    let from_kind =
        |k: Returns| -> Vec<(String, bool)> { value_members(k).into_iter().map(|(n, m)| (n.to_string(), m)).collect() };
    let mut out = match target {
        Target::Value(Value::Table(t)) => table_keys(t),
        Target::Value(Value::Vector(_)) => from_kind(Returns::Hex),
        Target::Value(Value::UserData(ud)) => {
            if let Ok(u) = ud.borrow::<UnitRef>() {
                let mut v = from_kind(Returns::Unit);
                if let Ok(w) = state.world.try_borrow() {
                    if let Ok(i) = u.resolve(&w) {
                        for (k, _) in &w.units[i].props {
                            if is_identifier(k) && !v.iter().any(|(n, _)| n == &**k) {
                                v.push((k.to_string(), false));
                            }
                        }
                    }
                }
                v
            } else if LuaRoll::is_roll(lua, ud) {
                from_kind(Returns::Roll)
            } else {
                Vec::new()
            }
        }
        Target::Value(Value::String(_)) => match global(lua, "string") {
            Some(Value::Table(t)) => table_keys(&t),
            _ => Vec::new(),
        },
        Target::Kind(k) => from_kind(*k),
        _ => Vec::new(),
    };
    if methods_only {
        out.retain(|(_, callable)| *callable);
    }
    out.sort();
    out
}

/// The trailing `a.b:c` chain of a piece of text (identifiers, dots, colons).
fn trailing_chain(text: &str) -> &str {
    let start = text
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.' || *c == ':'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    &text[start..]
}

/// Resolves the expression that ends `text` (the part before a `.` or `:`).
pub fn resolve(lua: &Lua, state: &State, text: &str) -> Target {
    let text = text.trim_end();
    let Some(last) = text.chars().last() else { return Target::Unknown };
    if last == ')' || last == '}' {
        // A call: what it returns is known for the API's constructors and lookups.
        let Some(open) = lexer::matching_bracket(text, text.len() - 1) else { return Target::Unknown };
        let callee = text[..open].trim_end();
        let name = if last == '}' && !callee.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return Target::Unknown;
        } else {
            trailing_chain(callee)
        };
        if name.is_empty() {
            // A parenthesised expression: `(hex(1,2))`.
            return if last == ')' { resolve(lua, state, &text[open + 1..text.len() - 1]) } else { Target::Unknown };
        }
        return match returns_of(name) {
            Returns::Other => Target::Unknown,
            k => Target::Kind(k),
        };
    }
    if !(last.is_ascii_alphanumeric() || last == '_') {
        return Target::Unknown;
    }
    let start = text
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let name = &text[start..];
    let before = &text[..start];
    match before.chars().last() {
        Some('.') | Some(':') => {
            let parent = resolve(lua, state, &before[..before.len() - 1]);
            index(state, &parent, name)
        }
        _ if name.chars().next().is_some_and(|c| c.is_ascii_digit()) => Target::Unknown,
        _ => global(lua, name).map_or(Target::Unknown, Target::Value),
    }
}

/// Inside a string argument of a `dice.*` call: die kinds (`dice.roll(2, "ba`),
/// or the faces of the kind named first when inside a `{...}` list
/// (`dice.force("battle", {"fl`). None when the string is not such an argument.
fn dice_string_candidates(state: &State, line: &str, pos: usize) -> Option<(usize, Vec<String>)> {
    let before = &line[..pos];
    let quote = before.rfind(['"', '\''])?;
    let partial = &before[quote + 1..];
    if partial.contains(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')) {
        return None;
    }
    // The unmatched `(` before the string, and any unmatched `{` after it.
    let mut depth = 0i32;
    let mut brace = None;
    let mut paren = None;
    for (i, c) in before[..quote].char_indices().rev() {
        match c {
            ')' | '}' => depth += 1,
            '{' if depth == 0 => brace = brace.or(Some(i)),
            '(' if depth == 0 => {
                paren = Some(i);
                break;
            }
            '(' | '{' => depth -= 1,
            _ => {}
        }
    }
    let paren = paren?;
    let callee = trailing_chain(line[..paren].trim_end());
    if !callee.starts_with("dice.") {
        return None;
    }
    let w = state.world.borrow();
    let mut names: Vec<String> = match brace {
        None => w.dice.kinds().iter().map(|k| k.name.to_string()).collect(),
        Some(b) => {
            let args = &line[paren + 1..b];
            let kind: String = args.split(['"', '\'']).nth(1).map(str::to_string).unwrap_or_default();
            let k = w.dice.kind_index(&kind).ok()?;
            w.dice.kind(k).values.iter().map(|v| v.to_string()).collect()
        }
    };
    names.retain(|n| n.starts_with(partial));
    names.sort();
    names.dedup();
    Some((quote + 1, names))
}

/// Lua completions at `pos`: the start of the word being completed and the candidates.
pub fn lua_candidates(lua: &Lua, state: &State, line: &str, pos: usize) -> (usize, Vec<String>) {
    if lexer::in_string_or_comment(line, pos) {
        return dice_string_candidates(state, line, pos).unwrap_or((pos, Vec::new()));
    }
    let before = &line[..pos];
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let partial = &before[start..];
    if partial.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return (pos, Vec::new());
    }
    let prefix = &before[..start];
    let mut names: Vec<String> = match prefix.chars().last() {
        Some(sep @ ('.' | ':')) => {
            // `..` is concatenation, not a field.
            if prefix.ends_with("..") {
                return (pos, Vec::new());
            }
            let target = resolve(lua, state, &prefix[..prefix.len() - 1]);
            members(lua, state, &target, sep == ':').into_iter().map(|(n, _)| n).collect()
        }
        _ => {
            let mut v = global_names(lua);
            v.extend(lexer::KEYWORDS.iter().map(|k| k.to_string()));
            v
        }
    };
    names.retain(|n| n.starts_with(partial));
    names.sort();
    names.dedup();
    (start, names)
}

/// The closest of `candidates` to `word`, when close enough to be a likely typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = match word.chars().count() {
        0..=2 => 1,
        3..=5 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

/// Levenshtein distance with adjacent transpositions counted as one edit.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lua::Host;

    fn host() -> Host {
        let h = crate::repl::tests::host_with_allies();
        h.exec(
            "world:add_unit{id='a1', side='allies', type='infantry', strength=4, hex=hex(1,1), props={morale=2}}",
            "t",
        )
        .unwrap();
        h
    }

    fn complete(h: &Host, line: &str) -> Vec<String> {
        lua_candidates(&h.lua, &h.state, line, line.len()).1
    }

    #[test]
    fn completes_globals_fields_and_methods() {
        let h = host();
        assert_eq!(complete(&h, "dice.ro"), ["roll", "roll_until"]);
        assert_eq!(complete(&h, "wor"), ["world"]);
        assert!(complete(&h, "world:un").contains(&"unit_at".to_string()));
        assert_eq!(complete(&h, "fun"), ["function"]);
        assert!(complete(&h, "string.up").contains(&"upper".to_string()));
        h.exec("my_table = {alpha = 1, beta = function() end}", "t").unwrap();
        assert_eq!(complete(&h, "my_table."), ["alpha", "beta"]);
        assert_eq!(complete(&h, "my_table:"), ["beta"]);
        assert!(complete(&h, "print(\"dice.ro").is_empty(), "quiet inside strings");
        assert!(complete(&h, "x = 1..").is_empty());
    }

    #[test]
    fn completes_values_that_are_not_tables() {
        let h = host();
        let hexm = complete(&h, "hex(1,2):");
        assert!(hexm.contains(&"distance".to_string()) && !hexm.contains(&"q".to_string()), "{hexm:?}");
        assert!(complete(&h, "hex(1,2).").contains(&"q".to_string()));
        h.exec("u = world:unit('a1') h = hex(0, 0) r = dice.roll(1, 'd6')", "t").unwrap();
        let unit = complete(&h, "u.");
        assert!(unit.contains(&"strength".to_string()) && unit.contains(&"morale".to_string()), "{unit:?}");
        assert_eq!(complete(&h, "u:"), ["get", "set"]);
        assert!(complete(&h, "world:unit('a1').hex:ne").contains(&"neighbor".to_string()));
        assert!(complete(&h, "h:ro").contains(&"rotate_left".to_string()));
        assert_eq!(complete(&h, "r:"), ["count", "count_any"]);
    }

    #[test]
    fn never_runs_index_functions() {
        let h = host();
        h.exec("trap = setmetatable({}, {__index = function() error('ran') end}) count = 0", "t").unwrap();
        h.exec("spy = setmetatable({}, {__index = function() count = count + 1 end})", "t").unwrap();
        let _ = complete(&h, "trap.x");
        let _ = complete(&h, "spy.a.b");
        let n = h.exec("return count", "t").unwrap();
        assert_eq!(n.into_iter().next().and_then(|v| v.as_i64()), Some(0));
    }

    #[test]
    fn typo_distance() {
        assert_eq!(edit_distance("wrold", "world"), 1);
        assert_eq!(closest("wrold", ["world", "dice", "hex"]), Some("world"));
        assert_eq!(closest("zzz", ["world", "dice"]), None);
    }
}
