//! Mutants of a ruleset's data (`ruleset.yaml`): its dice, terrain, unit
//! types, charts, line-of-sight switches and params, each changed one value
//! at a time.
//!
//! Every number of a table one step each way and to 0; every boolean
//! flipped; every face of a die made another face of the same die; every cell
//! of a chart row given its neighbour's value; every name a table entry holds
//! (a unit's `class`, a card's `section`) made another name the same field
//! holds in a sibling entry; every param one step each way (within its range),
//! switched, or given each other choice. Texts for people (`doc`, `title`)
//! are left alone. A mutant is the manifest's text with one scalar replaced,
//! kept only when the manifest still loads.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::ruleset::{ParamType, Ruleset};

/// One change to the manifest's text: the bytes `start..end` become `with`.
#[derive(Clone, Debug, PartialEq)]
pub struct DataMutant {
    /// The top-level section of ruleset.yaml it changes (`charts`, `dice`, ...).
    pub section: String,
    pub line: u32,
    pub col: u32,
    pub change: String,
    pub start: usize,
    pub end: usize,
    pub with: String,
}

impl DataMutant {
    pub fn apply(&self, src: &str) -> String {
        format!("{}{}{}", &src[..self.start], self.with, &src[self.end..])
    }
}

/// A YAML value with the place of every scalar.
#[derive(Debug)]
enum Node {
    Scalar(Scalar),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(String, Spanned<Node>)>),
}

#[derive(Clone, Debug, PartialEq)]
enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Null => f.write_str("null"),
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::Int(n) => write!(f, "{n}"),
            Scalar::Float(x) => f.write_str(&crate::lua::format_number(*x)),
            Scalar::Str(s) => f.write_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Scalar(Scalar::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Scalar(Scalar::Int(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Scalar(i64::try_from(v).map_or(Scalar::Float(v as f64), Scalar::Int)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Scalar(Scalar::Float(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Scalar(Scalar::Str(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Scalar(Scalar::Null))
            }
            fn visit_none<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Scalar(Scalar::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<Spanned<Node>>()? {
                    out.push(v);
                }
                Ok(Node::Seq(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<KeyText>()? {
                    out.push((k.0, map.next_value::<Spanned<Node>>()?));
                }
                Ok(Node::Map(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A mapping key as text, whatever its YAML type.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyText, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// Fields that hold text for people, never read by a rule.
const PROSE: &[&str] = &["doc", "title"];

/// Collects the mutants of one manifest.
struct Collect<'a> {
    src: &'a str,
    /// The section being walked.
    section: String,
    out: Vec<DataMutant>,
}

impl Collect<'_> {
    fn push(&mut self, at: &Spanned<Node>, with: String, change: String) {
        let span = at.referenced.span();
        let (Some(start), Some(len)) = (span.byte_offset(), span.byte_len()) else { return };
        let (start, end) = (start as usize, (start + len) as usize);
        if end > self.src.len() || !self.src.is_char_boundary(start) || !self.src.is_char_boundary(end) {
            return;
        }
        let before = &self.src[..start];
        let line = before.matches('\n').count() as u32 + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
        self.out.push(DataMutant { section: self.section.clone(), line, col, change, start, end, with });
    }

    /// Numbers one step each way and to 0, booleans flipped.
    fn scalar(&mut self, path: &str, at: &Spanned<Node>) {
        let Node::Scalar(s) = &at.value else { return };
        let to: Vec<Scalar> = match s {
            Scalar::Int(n) => {
                let mut v = vec![n + 1, n - 1, 0];
                v.dedup();
                v.into_iter().filter(|m| m != n).map(Scalar::Int).collect()
            }
            Scalar::Float(x) => [x + 1.0, x - 1.0, 0.0].into_iter().filter(|m| m != x).map(Scalar::Float).collect(),
            Scalar::Bool(b) => vec![Scalar::Bool(!b)],
            _ => Vec::new(),
        };
        for t in to {
            self.push(at, t.to_string(), format!("{path}: {s} -> {t}"));
        }
    }

    /// Walks a table: numbers and booleans everywhere; in a row of names,
    /// each cell its neighbour's; in a mapping, each name the others its
    /// field holds among `siblings` (the entries beside this one).
    fn walk(&mut self, path: &str, node: &Spanned<Node>, siblings: &[&Spanned<Node>], field: Option<&str>) {
        match &node.value {
            Node::Scalar(Scalar::Str(s)) => {
                if let Some(f) = field {
                    let mut others = BTreeSet::new();
                    for sib in siblings {
                        if let Node::Map(entries) = &sib.value {
                            for (k, v) in entries {
                                if k == f {
                                    if let Node::Scalar(Scalar::Str(o)) = &v.value {
                                        if o != s {
                                            others.insert(o.clone());
                                        }
                                    }
                                }
                            }
                        }
                    }
                    for o in others {
                        self.push(node, quoted(&o), format!("{path}: {s} -> {o}"));
                    }
                }
            }
            Node::Scalar(_) => self.scalar(path, node),
            Node::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let p = format!("{path}[{}]", i + 1);
                    if let Node::Scalar(Scalar::Str(s)) = &item.value {
                        // A chart row: the cell reads its neighbour's value.
                        let neighbour = items.get(i + 1).or(if i > 0 { items.get(i - 1) } else { None });
                        if let Some(Node::Scalar(Scalar::Str(n))) = neighbour.map(|n| &n.value) {
                            if n != s {
                                self.push(item, quoted(n), format!("{p}: {s} -> {n} (its neighbour)"));
                            }
                        }
                    } else {
                        let sibs: Vec<&Spanned<Node>> = items.iter().collect();
                        self.walk(&p, item, &sibs, None);
                    }
                }
            }
            Node::Map(entries) => {
                let sibs: Vec<&Spanned<Node>> = siblings.to_vec();
                for (k, v) in entries {
                    if PROSE.contains(&k.as_str()) {
                        continue;
                    }
                    let p = format!("{path}.{k}");
                    match &v.value {
                        Node::Scalar(Scalar::Str(_)) => self.walk(&p, v, &sibs, Some(k)),
                        _ => {
                            // The entries beside a child: its siblings' values of the same key.
                            let child_sibs: Vec<&Spanned<Node>> = entries.iter().map(|(_, e)| e).collect();
                            self.walk(&p, v, &child_sibs, None);
                        }
                    }
                }
            }
        }
    }

    /// A die: a number of sides one step each way, or each face made each
    /// other face of the die (once per distinct face).
    fn die(&mut self, name: &str, node: &Spanned<Node>) {
        match &node.value {
            Node::Seq(faces) => {
                let values: Vec<Scalar> = faces
                    .iter()
                    .filter_map(|f| if let Node::Scalar(s) = &f.value { Some(s.clone()) } else { None })
                    .collect();
                let mut seen: Vec<&Scalar> = Vec::new();
                for (i, f) in faces.iter().enumerate() {
                    let Node::Scalar(a) = &f.value else { continue };
                    if seen.contains(&a) {
                        continue;
                    }
                    seen.push(a);
                    let mut done: Vec<&Scalar> = Vec::new();
                    for b in &values {
                        if b == a || done.contains(&b) {
                            continue;
                        }
                        done.push(b);
                        let with = if let Scalar::Str(s) = b { quoted(s) } else { b.to_string() };
                        self.push(f, with, format!("die {name}: face {} {a} -> {b}", i + 1));
                    }
                }
            }
            Node::Scalar(Scalar::Int(_)) => self.scalar(&format!("die {name} sides"), node),
            _ => {}
        }
    }
}

/// A name as YAML text: plain when it reads back as the same string.
fn quoted(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && !s.starts_with('-')
        && s.parse::<f64>().is_err()
        && !matches!(s, "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~");
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// Every mutant of a manifest's data (dice, terrain, unit types, charts,
/// `los`, `stacking`) that still loads. Params are [`param_mutants`].
pub fn data_mutants(file: &Path, src: &str) -> Vec<DataMutant> {
    let Ok(doc) = serde_saphyr::from_str::<Spanned<Node>>(src) else { return Vec::new() };
    let Node::Map(sections) = &doc.value else { return Vec::new() };
    let mut c = Collect { src, section: String::new(), out: Vec::new() };
    for (key, v) in sections {
        c.section = key.clone();
        match key.as_str() {
            "dice" => {
                if let Node::Map(dice) = &v.value {
                    for (name, die) in dice {
                        c.die(name, die);
                    }
                }
            }
            "terrain" | "unit_types" | "charts" | "los" => c.walk(key, v, &[], None),
            "stacking" => c.scalar(key, v),
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    c.out
        .into_iter()
        .filter(|m| seen.insert((m.start, m.with.clone())))
        .filter(|m| Ruleset::parse(file, &m.apply(src)).is_ok())
        .collect()
}

/// A param mutant: the override `module.param=value`, where it is declared, and what changes.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamMutant {
    pub line: u32,
    pub change: String,
    pub set: String,
}

/// Mutants of the params' values (the defaults, after any variant and `--set`):
/// integers and numbers one step each way (within their range), switches
/// flipped, choices changed to each other choice.
pub fn param_mutants(rs: &Ruleset, yaml: &str) -> Vec<ParamMutant> {
    let mut out = Vec::new();
    for (module, defs) in &rs.params {
        for (name, def) in defs {
            let key = format!("{module}.{name}");
            let current = rs.value(&key).cloned().unwrap_or_else(|| def.default.clone());
            let mut values: Vec<String> = Vec::new();
            match (&def.ty, &current) {
                (ParamType::Int | ParamType::Number, serde_json::Value::Number(n)) => {
                    let n = n.as_f64().unwrap_or_default();
                    for v in [n - 1.0, n + 1.0] {
                        let in_range = def.min.is_none_or(|m| v >= m) && def.max.is_none_or(|m| v <= m);
                        if in_range {
                            values.push(crate::lua::format_number(v));
                        }
                    }
                }
                (ParamType::Bool, serde_json::Value::Bool(b)) => values.push((!b).to_string()),
                (ParamType::Choice(choices), serde_json::Value::String(s)) => {
                    values.extend(choices.iter().filter(|c| *c != s).cloned());
                }
                _ => {}
            }
            let line = param_line(yaml, module, name);
            let shown = match &current {
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            for v in values {
                out.push(ParamMutant {
                    line,
                    change: format!("param {key}: {shown} -> {v}"),
                    set: format!("{key}={v}"),
                });
            }
        }
    }
    out
}

/// The line of `params: module: name:` in the ruleset's YAML (0 if not found).
fn param_line(yaml: &str, module: &str, name: &str) -> u32 {
    let lines: Vec<&str> = yaml.lines().collect();
    let Some(params) = lines.iter().position(|l| l.trim_end() == "params:") else { return 0 };
    let module_key = format!("{module}:");
    let Some(m) = lines.iter().skip(params).position(|l| l.trim() == module_key).map(|p| p + params) else {
        return 0;
    };
    let name_key = format!("{name}:");
    lines
        .iter()
        .enumerate()
        .skip(m + 1)
        .find(|(_, l)| l.trim_start().starts_with(&name_key))
        .map_or(0, |(i, _)| i as u32 + 1)
}
