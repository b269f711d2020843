//! The pretty-printer: Lua values as a person wants to read them (the REPL's
//! results, and error objects that are tables, see `trace`).
//!
//! Tables print as Lua constructors, nested and sorted (the list part in
//! order, then the other keys: numbers, then strings, then the rest), on one
//! line when they fit and indented otherwise; hexes as `(q,r)`; units as one
//! line from the world (`a1 [allies infantry] 4/4 at (3,6)`); rolls with
//! their faces. It walks values with raw access only, so printing never runs
//! a script's metamethods (a hostile `__index` or `__pairs` cannot hang or
//! fool the REPL), and caps depth, items per table and total length.

use std::collections::HashSet;

use mlua::{Lua, Table, Value};

use crate::battlefield::World;
use crate::dice::Face;
use crate::lua::{format_number, LuaRoll, UnitRef};

/// Limits on what one value may print.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Tables nested deeper than this print as `{…}`.
    pub depth: usize,
    /// Entries shown per table before `… N more`.
    pub items: usize,
    /// Line width a table tries to fit on one line.
    pub width: usize,
    /// Longest output, in characters, before it is cut.
    pub total: usize,
    /// Longest string shown before it is cut.
    pub string: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { depth: 5, items: 60, width: 80, total: 20_000, string: 2_000 }
    }
}

/// Entries up to this long share a line when a table breaks over several.
const PACK: usize = 36;

/// A value laid out: a single atom, or a bracketed group of entries.
enum Doc {
    Atom(String),
    Group { entries: Vec<(Option<String>, Doc)>, more: usize },
}

impl Doc {
    fn inline(&self) -> String {
        match self {
            Doc::Atom(s) => s.clone(),
            Doc::Group { entries, more } => {
                if entries.is_empty() && *more == 0 {
                    return "{}".into();
                }
                let mut parts: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| match k {
                        Some(k) => format!("{k} = {}", v.inline()),
                        None => v.inline(),
                    })
                    .collect();
                if *more > 0 {
                    parts.push(format!("… {more} more"));
                }
                format!("{{{}}}", parts.join(", "))
            }
        }
    }

    fn render(&self, indent: usize, width: usize, out: &mut String) {
        let flat = self.inline();
        let Doc::Group { entries, more } = self else {
            out.push_str(&flat);
            return;
        };
        if indent + flat.chars().count() <= width && !flat.contains('\n') {
            out.push_str(&flat);
            return;
        }
        out.push_str("{\n");
        let pad = " ".repeat(indent + 2);
        // Short entries share lines, so a record of numbers stays a few lines tall.
        let mut line = String::new();
        let flush = |line: &mut String, out: &mut String| {
            if !line.is_empty() {
                out.push_str(&pad);
                out.push_str(line.trim_end());
                out.push('\n');
                line.clear();
            }
        };
        // A list packs only when all of it is short, so its items line up;
        // a record packs its short fields around the long ones.
        let fits = |k: &Option<String>, v: &Doc| {
            let n = k.as_ref().map_or(0, |k| k.chars().count() + 3) + v.inline().chars().count() + 1;
            n <= PACK
        };
        let is_list = entries.iter().all(|(k, _)| k.is_none());
        let pack_list = is_list && entries.iter().all(|(k, v)| fits(k, v));
        for (k, v) in entries {
            let piece = match k {
                Some(k) => format!("{k} = {},", v.inline()),
                None => format!("{},", v.inline()),
            };
            let short = fits(k, v) && (!is_list || pack_list) && !piece.contains('\n');
            if short {
                if !line.is_empty() && indent + 2 + line.chars().count() + piece.chars().count() > width {
                    flush(&mut line, out);
                }
                line.push_str(&piece);
                line.push(' ');
                continue;
            }
            flush(&mut line, out);
            out.push_str(&pad);
            let mut key_len = 0;
            if let Some(k) = k {
                out.push_str(k);
                out.push_str(" = ");
                key_len = k.chars().count() + 3;
            }
            let mut inner = String::new();
            v.render(indent + 2 + key_len, width, &mut inner);
            // Nested groups indent from the entry's start, not from its key.
            if key_len > 0 && inner.contains('\n') {
                inner.clear();
                v.render(indent + 2, width, &mut inner);
            }
            out.push_str(&inner);
            out.push_str(",\n");
        }
        flush(&mut line, out);
        if *more > 0 {
            out.push_str(&format!("{pad}… {more} more\n"));
        }
        out.push_str(&" ".repeat(indent));
        out.push('}');
    }
}

/// Pretty-prints one value. `world` resolves unit handles (a unit whose id
/// no longer exists prints as gone).
pub fn pretty(lua: &Lua, world: Option<&World>, v: &Value, limits: &Limits) -> String {
    let mut p = Printer { lua, world, limits, seen: HashSet::new(), budget: limits.total };
    let doc = p.doc(v, 0);
    let mut out = String::new();
    doc.render(0, limits.width, &mut out);
    if out.chars().count() > limits.total {
        let cut: String = out.chars().take(limits.total).collect();
        return format!("{cut}\n… (output cut at {} characters)", limits.total);
    }
    out
}

/// Pretty-prints the values one input returned: on one line separated by
/// commas when they fit, else one per line.
pub fn pretty_all(lua: &Lua, world: Option<&World>, values: &[Value], limits: &Limits) -> String {
    let parts: Vec<String> = values.iter().map(|v| pretty(lua, world, v, limits)).collect();
    let joined = parts.join(", ");
    if parts.iter().all(|p| !p.contains('\n')) && joined.chars().count() <= limits.width {
        joined
    } else {
        parts.join("\n")
    }
}

struct Printer<'a> {
    lua: &'a Lua,
    world: Option<&'a World>,
    limits: &'a Limits,
    /// Tables on the current path (for cycles).
    seen: HashSet<usize>,
    /// Characters left before the printer stops descending.
    budget: usize,
}

/// Lua's quoting for a string, as a person would type it back.
pub fn quote(s: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(s);
    let mut out = String::from("\"");
    for (n, ch) in text.chars().enumerate() {
        if n >= max {
            out.push_str(&format!("\"… ({} bytes)", s.len()));
            return out;
        }
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\{}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !super::lexer::KEYWORDS.contains(&s)
}

/// A hex (`(q,r)`) when the vector is one, else `vector(x, y, z)`.
fn vector_text(v: &mlua::Vector) -> String {
    let (x, y, z) = (v.x(), v.y(), v.z());
    if x.fract() == 0.0 && y.fract() == 0.0 && z == -x - y {
        format!("({},{})", x as i64, y as i64)
    } else {
        format!("vector({}, {}, {})", format_number(x as f64), format_number(y as f64), format_number(z as f64))
    }
}

/// The order keys print in: numbers, strings, booleans, hexes, the rest.
fn key_rank(k: &Value) -> (u8, f64, String) {
    match k {
        Value::Integer(i) => (0, *i as f64, String::new()),
        Value::Number(n) => (0, *n, String::new()),
        Value::String(s) => (1, 0.0, s.to_string_lossy().to_string()),
        Value::Boolean(b) => (2, f64::from(u8::from(*b)), String::new()),
        Value::Vector(v) => (3, f64::from(v.y()) * 1e6 + f64::from(v.x()), String::new()),
        other => (4, 0.0, other.type_name().to_string()),
    }
}

impl Printer<'_> {
    fn atom(&mut self, s: String) -> Doc {
        self.budget = self.budget.saturating_sub(s.len());
        Doc::Atom(s)
    }

    fn doc(&mut self, v: &Value, depth: usize) -> Doc {
        match v {
            Value::Nil => self.atom("nil".into()),
            Value::Boolean(b) => self.atom(b.to_string()),
            Value::Integer(i) => self.atom(i.to_string()),
            Value::Number(n) => self.atom(if n.is_nan() {
                "nan".into()
            } else if n.is_infinite() {
                if *n > 0.0 { "math.huge" } else { "-math.huge" }.into()
            } else if n.abs() >= 1e15 || (n.abs() < 1e-4 && *n != 0.0) {
                format!("{n:e}")
            } else {
                format_number(*n)
            }),
            Value::String(s) => self.atom(quote(&s.as_bytes(), self.limits.string)),
            Value::Vector(v) => self.atom(vector_text(v)),
            Value::Table(t) => self.table(t, depth),
            Value::Function(f) => {
                let info = f.info();
                let text = match (info.what, info.short_src, info.line_defined) {
                    ("Lua", Some(src), Some(line)) => format!("function ({src}:{line})"),
                    _ => "function (built in)".into(),
                };
                self.atom(text)
            }
            Value::UserData(ud) => {
                if let Ok(u) = ud.borrow::<UnitRef>() {
                    let text = match self.world.and_then(|w| u.resolve(w).ok().map(|i| &w.units[i])) {
                        Some(unit) => unit_text(unit),
                        None => format!("{} (gone)", u.id),
                    };
                    return self.atom(text);
                }
                if let Some(r) = self.world.and_then(|w| LuaRoll::from_userdata(self.lua, w, ud)) {
                    return self.atom(roll_text(&r));
                }
                self.atom("userdata".into())
            }
            Value::Thread(_) => self.atom("coroutine".into()),
            Value::Buffer(b) => self.atom(format!("buffer ({} bytes)", b.len())),
            // The only light userdata a script can hold: a roll made inside a
            // sim/exact trial (lua::raw::roll), whose counts live in the trial.
            Value::LightUserData(_) => self.atom("roll (made in a trial)".into()),
            Value::Error(e) => self.atom(format!("error: {e}")),
            other => self.atom(other.type_name().to_string()),
        }
    }

    fn table(&mut self, t: &Table, depth: usize) -> Doc {
        let id = t.to_pointer() as usize;
        if self.seen.contains(&id) {
            return self.atom("<cycle>".into());
        }
        if depth >= self.limits.depth || self.budget == 0 {
            let n = raw_count(t);
            return self.atom(if n == 0 { "{}".into() } else { format!("{{… {n} entries}}") });
        }
        self.seen.insert(id);
        // Raw pairs: never runs __pairs or __index.
        let mut pairs: Vec<(Value, Value)> = Vec::new();
        let mut total = 0usize;
        let _ = t.for_each(|k: Value, v: Value| {
            total += 1;
            if pairs.len() < 10_000 {
                pairs.push((k, v));
            }
            Ok(())
        });
        let len = t.raw_len();
        let is_list_key = |k: &Value| match k {
            Value::Integer(i) => *i >= 1 && (*i as usize) <= len,
            Value::Number(n) => n.fract() == 0.0 && *n >= 1.0 && *n <= len as f64,
            _ => false,
        };
        let (mut list, mut rest): (Vec<_>, Vec<_>) = pairs.into_iter().partition(|(k, _)| is_list_key(k));
        list.sort_by(|a, b| key_rank(&a.0).1.total_cmp(&key_rank(&b.0).1));
        rest.sort_by(|a, b| {
            let (ra, rb) = (key_rank(&a.0), key_rank(&b.0));
            ra.0.cmp(&rb.0).then(ra.1.total_cmp(&rb.1)).then(ra.2.cmp(&rb.2))
        });
        let mut entries = Vec::new();
        let shown = self.limits.items;
        for (_, v) in list.iter().take(shown) {
            if self.budget == 0 {
                break;
            }
            let d = self.doc(v, depth + 1);
            entries.push((None, d));
        }
        for (k, v) in rest.iter().take(shown.saturating_sub(entries.len())) {
            if self.budget == 0 {
                break;
            }
            let key = match k {
                Value::String(s) => {
                    let s = s.to_string_lossy();
                    if is_identifier(&s) {
                        s.to_string()
                    } else {
                        format!("[{}]", quote(s.as_bytes(), 80))
                    }
                }
                other => {
                    let mut inner = Printer {
                        lua: self.lua,
                        world: self.world,
                        limits: self.limits,
                        seen: self.seen.clone(),
                        budget: 200,
                    };
                    format!("[{}]", inner.doc(other, depth + 1).inline())
                }
            };
            self.budget = self.budget.saturating_sub(key.len() + 3);
            let d = self.doc(v, depth + 1);
            entries.push((Some(key), d));
        }
        self.seen.remove(&id);
        let more = total - entries.len();
        Doc::Group { entries, more }
    }
}

fn raw_count(t: &Table) -> usize {
    let mut n = 0;
    let _ = t.for_each(|_: Value, _: Value| {
        n += 1;
        Ok(())
    });
    n
}

/// A unit as one line; one off the battlefield says whether it was eliminated.
fn unit_text(u: &crate::unit::Unit) -> String {
    let s = u.to_string();
    if u.pos != crate::unit::Position::Off {
        return s;
    }
    let instead = if u.strength == 0 { "eliminated" } else { "off the battlefield" };
    s.replacen(" at off", &format!(" {instead}"), 1)
}

/// A roll as one line: `roll 3 battle: soldier soldier flag`, with the total for numeric dice.
pub fn roll_text(r: &LuaRoll) -> String {
    let mut faces = Vec::new();
    for (v, &c) in r.values.iter().zip(&r.counts) {
        for _ in 0..c {
            faces.push(v.to_string());
        }
    }
    let n: u32 = r.counts.iter().sum();
    let mut s =
        format!("roll {n} {}: {}", r.kind, if faces.is_empty() { "(no dice)".to_string() } else { faces.join(" ") });
    if r.numeric {
        let total: i64 =
            r.values.iter().zip(&r.counts).map(|(f, &c)| if let Face::Num(x) = f { x * i64::from(c) } else { 0 }).sum();
        s.push_str(&format!(" (total {total})"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lua::Host;

    fn eval(host: &Host, src: &str) -> String {
        let values = host.exec(&format!("return {src}"), "test").expect("evaluates");
        let world = host.state.world.borrow();
        pretty_all(&host.lua, Some(&world), &values.into_iter().collect::<Vec<_>>(), &Limits::default())
    }

    fn host() -> Host {
        crate::repl::tests::host_with_allies()
    }

    #[test]
    fn atoms() {
        let h = host();
        assert_eq!(eval(&h, "nil, true, 3, 2.5, math.huge, 1e300, 0 / 0"), "nil, true, 3, 2.5, math.huge, 1e300, nan");
        assert_eq!(eval(&h, r#""a\"b\n""#), r#""a\"b\n""#);
        assert_eq!(eval(&h, "hex(3, -1)"), "(3,-1)");
        assert_eq!(eval(&h, "vector.create(1.5, 2, 0)"), "vector(1.5, 2, 0)");
        assert!(eval(&h, "print").starts_with("function"));
        assert!(eval(&h, "function() end").contains("test:1"), "{}", eval(&h, "function() end"));
    }

    #[test]
    fn tables_are_sorted_nested_and_wrapped() {
        let h = host();
        assert_eq!(eval(&h, "{3, 1, 2}"), "{3, 1, 2}");
        assert_eq!(eval(&h, "{b = 2, a = 1, [10] = 'x', 'first'}"), r#"{"first", [10] = "x", a = 1, b = 2}"#);
        assert_eq!(eval(&h, "{['two words'] = true, [hex(1,2)] = 1}"), r#"{["two words"] = true, [(1,2)] = 1}"#);
        let long = eval(&h, "{alpha = string.rep('x', 40), beta = {1, 2, {c = string.rep('y', 70)}}}");
        assert!(long.starts_with("{\n  alpha = \"xxxx"), "{long}");
        assert!(long.contains("\n  beta = {\n    1,\n    2,\n    {\n      c = \"yyyy"), "{long}");
        let list = eval(&h, "(function() local t = {} for i = 1, 30 do t[i] = i * 1000 end return t end)()");
        assert!(list.starts_with("{\n  1000, 2000, 3000,"), "short lists pack: {list}");
        let record = eval(&h, "{a = 1, b = 2, c = 3, d = string.rep('w', 70), e = 5}");
        assert_eq!(record, format!("{{\n  a = 1, b = 2, c = 3,\n  d = \"{}\",\n  e = 5,\n}}", "w".repeat(70)));
        assert!(long.ends_with("\n}"), "{long}");
    }

    #[test]
    fn caps_depth_items_cycles_and_never_runs_metamethods() {
        let h = host();
        assert_eq!(eval(&h, "(function() local t = {} t.self = t return t end)()"), "{self = <cycle>}");
        let deep = eval(&h, "{{{{{{{1}}}}}}}");
        assert!(deep.contains("{… 1 entries}"), "{deep}");
        let many = eval(&h, "(function() local t = {} for i = 1, 100 do t[i] = i end return t end)()");
        assert!(many.contains("… 40 more"), "{many}");
        let hostile = eval(
            &h,
            "setmetatable({x = 1}, {__index = function() while true do end end, __pairs = function() error('no') end, __tostring = function() error('no') end})",
        );
        assert_eq!(hostile, "{x = 1}");
        let huge = eval(&h, "string.rep('z', 5000)");
        assert!(huge.ends_with("… (5000 bytes)"), "{}", &huge[huge.len() - 30..]);
    }

    #[test]
    fn units_and_rolls_are_one_readable_line() {
        let h = host();
        h.exec(
            "world:add_unit{id='a1', side='allies', type='infantry', strength=3, max_strength=4, hex=hex(2,3)}",
            "t",
        )
        .unwrap();
        assert_eq!(eval(&h, "world:unit('a1')"), "a1 [allies infantry] 3/4 at (2,3)");
        h.exec("dice.seed(1) dice.force('d6', {6, 2})", "t").unwrap();
        assert_eq!(eval(&h, "dice.roll(2, 'd6')"), "roll 2 d6: 2 6 (total 8)");
        h.exec("u = world:unit('a1') world:eliminate(u)", "t").unwrap();
        assert_eq!(eval(&h, "u"), "a1 [allies infantry] 0/4 eliminated");
        h.state.world.borrow_mut().units.clear();
        assert_eq!(eval(&h, "u"), "a1 (gone)");
    }
}
