//! `extends:`: a ruleset that is a variant of another holds only what
//! differs, and loading it reads its base (and the base's base) and lays
//! the files over each other, the variant last.
//!
//! - `dice`, `terrain`, `unit_types`, `charts`, `variants` and `events` are
//!   merged by key; a mapping merges with the base's mapping of that name
//!   (so `cavalry: { ranged: [1] }` changes one property of the base's
//!   cavalry), anything else replaces it, and `~` (null) removes it;
//! - `params` too: a variant gives only what it changes (`{ default: 2 }`),
//!   or a whole new param; the type stays the base's unless it gives one;
//! - `modules` lists modules to add after the base's; a module file in the
//!   variant's folder with a base module's name replaces the base's file
//!   (and may `require("@base/module")` to wrap one of its functions);
//! - `tokens` add to the base's; `title`, `limits`, `los`, `stacking`, `draw` replace.
//!
//! Every error points at the file and line that wrote the offending entry,
//! and the ruleset remembers which layer each part comes from
//! ([`Ruleset::layer_of`]), for `:help`, `:ruleset` and messages.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use serde_saphyr::Location;

use super::manifest::{check_entry, check_unit_type, located, parse_die, parse_draw, RawParam, RawRuleset, RawVariant};
use super::{locate, LosRule, ParamDef, ParamType, Ruleset, RulesetError, Sources, Variant};
use crate::error::{read_text, yaml_error};
use crate::layers::{self, files, Origin};

/// The most rulesets one chain of `extends:` may hold.
const MAX_CHAIN: usize = 16;

/// One ruleset of a chain: the ruleset loaded is the first, then its base.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub name: String,
    pub dir: PathBuf,
    pub origin: Origin,
}

/// The parts of a ruleset whose layer is remembered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Module,
    Param,
    Die,
    Terrain,
    UnitType,
    Chart,
    Variant,
    Event,
}

impl Part {
    /// The word in messages: `terrain 'woods'`, `param ranged.x`.
    pub fn word(self) -> &'static str {
        match self {
            Part::Module => "module",
            Part::Param => "param",
            Part::Die => "die",
            Part::Terrain => "terrain",
            Part::UnitType => "unit type",
            Part::Chart => "chart",
            Part::Variant => "variant",
            Part::Event => "event",
        }
    }
}

/// Which layers of the chain wrote a part (indices into [`Ruleset::chain`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layered {
    /// The deepest layer that has it.
    pub defined: usize,
    /// The nearest layer above that changed it, if any.
    pub changed: Option<usize>,
}

/// One `ruleset.yaml` of the chain, read.
struct Doc {
    file: PathBuf,
    src: String,
    dir: PathBuf,
    raw: RawRuleset,
}

impl Doc {
    fn err(&self, loc: Location, msg: String) -> RulesetError {
        located(&self.file, &self.src, loc, msg)
    }
}

fn read_doc(file: &Path, src: String) -> Result<Doc, RulesetError> {
    let raw: RawRuleset =
        serde_saphyr::from_str(&src).map_err(|e| RulesetError::Located(Box::new(yaml_error(file, &src, &e))))?;
    let dir = file.parent().map(files::canonical).unwrap_or_default();
    Ok(Doc { file: file.to_path_buf(), src, dir, raw })
}

/// A manifest's text: from `sources` (by canonical path) when it is there,
/// else the file's.
pub(crate) fn manifest_text(file: &Path, sources: Option<&Sources>) -> Result<String, RulesetError> {
    match sources.and_then(|m| m.get(&files::canonical(file))) {
        Some(s) => Ok(s.clone()),
        None => read_text(file, "ruleset").map_err(RulesetError::Located),
    }
}

/// The file and its bases, the file first.
fn read_chain(file: &Path, src: &str, sources: Option<&Sources>) -> Result<Vec<Doc>, RulesetError> {
    let mut chain = vec![read_doc(file, src.to_string())?];
    loop {
        let doc = chain.last().expect("the chain starts with the file");
        let Some(ext) = doc.raw.extends.clone() else { break };
        let found = locate(&ext.value, Some(&doc.dir), Some(&doc.dir))
            .map_err(|e| doc.err(ext.referenced, format!("extends: {e}")))?;
        if chain.iter().any(|d| files::canonical(&d.file) == found.file) {
            let msg = format!(
                "extends: {} leads back to {}: a ruleset cannot extend itself, directly or through its bases",
                ext.value,
                crate::lua::display_path(&found.file)
            );
            return Err(doc.err(ext.referenced, msg));
        }
        if chain.len() >= MAX_CHAIN {
            let msg = format!("extends: more than {MAX_CHAIN} rulesets deep; is there a loop?");
            return Err(doc.err(ext.referenced, msg));
        }
        let src = manifest_text(&found.file, sources)?;
        chain.push(read_doc(&found.file, src)?);
    }
    Ok(chain)
}

/// Where an entry was last written: the layer and the line and column.
#[derive(Clone, Copy)]
struct At {
    layer: usize,
    loc: Location,
}

/// A merged entry, with where it was last written and its layers.
struct Tracked<T> {
    value: T,
    at: At,
    layers: Layered,
}

/// A mapping merged into another: keys of `over` replace or (both mappings)
/// merge into those of `base`, and a null removes the key.
fn merge_value(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                if v.is_null() {
                    b.remove(k);
                } else if let Some(old) = b.get_mut(k) {
                    merge_value(old, v);
                } else {
                    b.insert(k.clone(), without_nulls(v));
                }
            }
        }
        (b, o) => *b = without_nulls(o),
    }
}

/// A value with the null entries of its mappings left out (`~` means "none").
fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), without_nulls(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// Everything the layers wrote, merged.
struct Merged<'a> {
    chain: &'a [Doc],
    dice: BTreeMap<String, Tracked<Value>>,
    terrain: BTreeMap<String, Tracked<Value>>,
    unit_types: BTreeMap<String, Tracked<Value>>,
    charts: BTreeMap<String, Tracked<Value>>,
    /// Whether some layer wrote `charts:` at all, and its shape when it was not a mapping.
    charts_raw: Option<Value>,
    params: BTreeMap<String, BTreeMap<String, Tracked<ParamDef>>>,
    variants: BTreeMap<String, Tracked<RawVariant>>,
    events: BTreeMap<String, Tracked<String>>,
    modules: Vec<(String, At)>,
    tokens: Vec<String>,
    removed: Vec<(Part, String, usize)>,
}

impl Merged<'_> {
    fn err(&self, at: At, msg: String) -> RulesetError {
        self.chain[at.layer].err(at.loc, msg)
    }
}

/// What a `~` that removes nothing is told.
fn nothing_to_remove(chain: &[Doc], layer: usize, what: &str, key: &str) -> String {
    match chain.get(layer + 1) {
        None => format!("{what} '{key}': `~` removes an entry of the ruleset this one extends, and it extends none"),
        Some(base) => {
            let base = &base.raw.name.value;
            format!("{what} '{key}': `~` removes an entry of the base ruleset, and {base} has no {what} '{key}'")
        }
    }
}

/// Merges one layer's entries of a keyed section: `apply` makes an entry's
/// value from the key, the base's value if any, and what the layer wrote;
/// `None` (a `~`) removes the entry, `nothing` says why one cannot be.
fn merge_keyed<T, F>(
    into: &mut BTreeMap<String, Tracked<T>>,
    layer: usize,
    entries: impl Iterator<Item = (String, Location, Option<F>)>,
    mut apply: impl FnMut(&str, Option<&T>, F) -> Result<T, String>,
    nothing: impl Fn(&str) -> String,
) -> Result<Vec<(String, usize)>, (At, String)> {
    let mut removed = Vec::new();
    for (key, loc, value) in entries {
        let at = At { layer, loc };
        match value {
            None => {
                if into.remove(&key).is_none() {
                    return Err((at, nothing(&key)));
                }
                removed.push((key, layer));
            }
            Some(v) => match into.get_mut(&key) {
                Some(t) => {
                    t.value = apply(&key, Some(&t.value), v).map_err(|e| (at, e))?;
                    t.at = at;
                    t.layers.changed = Some(layer);
                }
                None => {
                    let value = apply(&key, None, v).map_err(|e| (at, e))?;
                    into.insert(key, Tracked { value, at, layers: Layered { defined: layer, changed: None } });
                }
            },
        }
    }
    Ok(removed)
}

/// A data value merged over the base's (mappings merge, anything else replaces).
fn over(_key: &str, base: Option<&Value>, v: Value) -> Result<Value, String> {
    Ok(match base {
        Some(b) => {
            let mut b = b.clone();
            merge_value(&mut b, &v);
            b
        }
        None => without_nulls(&v),
    })
}

/// A param as a layer writes it, over the base's definition if there is one.
fn param_over(key: &str, base: Option<&ParamDef>, p: RawParam) -> Result<ParamDef, String> {
    let default = match (p.default, base) {
        (Some(d), _) => d,
        (None, Some(b)) => b.default.clone(),
        (None, None) => {
            return Err(format!(
                "param {key} needs a `default` (and a one-line `doc`): it is not a param of a base ruleset"
            ))
        }
    };
    let ty = match (&p.choices, p.ty.as_deref(), base) {
        (Some(c), _, _) => ParamType::Choice(c.clone()),
        (None, Some("int" | "integer"), _) => ParamType::Int,
        (None, Some("number"), _) => ParamType::Number,
        (None, Some("bool"), _) => ParamType::Bool,
        (None, Some("text" | "string"), _) => ParamType::Text,
        (None, Some(other), _) => return Err(format!("param {key}: unknown type '{other}' (int, number, bool, text)")),
        // A variant that changes the default keeps the base's type.
        (None, None, Some(b)) => b.ty.clone(),
        (None, None, None) => match &default {
            Value::Number(n) if n.as_i64().is_some() => ParamType::Int,
            Value::Number(_) => ParamType::Number,
            Value::Bool(_) => ParamType::Bool,
            Value::String(_) => ParamType::Text,
            other => return Err(format!("param {key}: default {other} is not a number, true/false or text")),
        },
    };
    let doc = p.doc.or_else(|| base.map(|b| b.doc.clone())).unwrap_or_default();
    let pd = ParamDef {
        ty,
        default,
        doc,
        min: p.min.or_else(|| base.and_then(|b| b.min)),
        max: p.max.or_else(|| base.and_then(|b| b.max)),
    };
    pd.check(&pd.default).map_err(|e| format!("param {key}: default: {e}"))?;
    if pd.doc.is_empty() {
        return Err(format!("param {key} needs a one-line `doc`"));
    }
    Ok(pd)
}

/// Lays one layer over what the deeper layers made.
fn merge_layer(m: &mut Merged<'_>, layer: usize) -> Result<(), RulesetError> {
    let chain = m.chain;
    let raw = &chain[layer].raw;
    let fail = |(at, e): (At, String)| chain[at.layer].err(at.loc, e);
    let spanned = |map: &BTreeMap<String, serde_saphyr::Spanned<Value>>| -> Vec<(String, Location, Option<Value>)> {
        map.iter().map(|(k, v)| (k.clone(), v.referenced, (!v.value.is_null()).then(|| v.value.clone()))).collect()
    };
    let sections = [(Part::Die, &raw.dice), (Part::Terrain, &raw.terrain), (Part::UnitType, &raw.unit_types)];
    for (part, section) in sections {
        let nothing = |k: &str| nothing_to_remove(chain, layer, part.word(), k);
        let into = match part {
            Part::Die => &mut m.dice,
            Part::Terrain => &mut m.terrain,
            _ => &mut m.unit_types,
        };
        let removed = merge_keyed(into, layer, spanned(section).into_iter(), over, nothing).map_err(fail)?;
        m.removed.extend(removed.into_iter().map(|(k, l)| (part, k, l)));
    }
    match &raw.charts {
        Value::Null => {}
        Value::Object(c) => {
            // Charts are free-form data: their keys have no line of their own.
            let loc = raw.name.referenced;
            let entries = c.iter().map(|(k, v)| (k.clone(), loc, (!v.is_null()).then(|| v.clone())));
            let nothing = |k: &str| nothing_to_remove(chain, layer, "chart", k);
            let removed = merge_keyed(&mut m.charts, layer, entries, over, nothing).map_err(fail)?;
            m.removed.extend(removed.into_iter().map(|(k, l)| (Part::Chart, k, l)));
            m.charts_raw = Some(Value::Object(serde_json::Map::new()));
        }
        // Charts that are not a mapping are taken whole.
        other => {
            m.charts.clear();
            m.charts_raw = Some(other.clone());
        }
    }
    for (module, defs) in &raw.params {
        let into = m.params.entry(module.clone()).or_default();
        let entries = defs.iter().map(|(n, d)| (n.clone(), d.referenced, d.value.clone()));
        let nothing = |k: &str| nothing_to_remove(chain, layer, "param", &format!("{module}.{k}"));
        let apply = |k: &str, base: Option<&ParamDef>, p| param_over(&format!("{module}.{k}"), base, p);
        let removed = merge_keyed(into, layer, entries, apply, nothing).map_err(fail)?;
        m.removed.extend(removed.into_iter().map(|(k, l)| (Part::Param, format!("{module}.{k}"), l)));
    }
    m.params.retain(|_, defs| !defs.is_empty());
    let entries = raw.variants.iter().map(|(n, v)| (n.clone(), v.referenced, v.value.clone()));
    let nothing = |k: &str| nothing_to_remove(chain, layer, "variant", k);
    let removed = merge_keyed(&mut m.variants, layer, entries, |_, _, v| Ok(v), nothing).map_err(fail)?;
    m.removed.extend(removed.into_iter().map(|(k, l)| (Part::Variant, k, l)));
    let entries = raw.events.iter().map(|(n, v)| (n.clone(), v.referenced, v.value.clone()));
    let nothing = |k: &str| nothing_to_remove(chain, layer, "event", k);
    let removed = merge_keyed(&mut m.events, layer, entries, |_, _, v| Ok(v), nothing).map_err(fail)?;
    m.removed.extend(removed.into_iter().map(|(k, l)| (Part::Event, k, l)));
    for module in &raw.modules {
        if !m.modules.iter().any(|(n, _)| *n == module.value) {
            m.modules.push((module.value.clone(), At { layer, loc: module.referenced }));
        }
    }
    for t in &raw.tokens {
        if !m.tokens.contains(t) {
            m.tokens.push(t.clone());
        }
    }
    Ok(())
}

impl Ruleset {
    /// Parses a manifest's text, reading the rulesets it extends; `file`
    /// names it in errors and locates its modules.
    pub fn parse(file: &Path, src: &str) -> Result<Ruleset, RulesetError> {
        Ruleset::parse_with(file, src, None)
    }

    /// Like [`Ruleset::parse`], reading the bases' manifests from `sources`
    /// (by canonical path) when they are there (data mutants of a base).
    #[expect(
        clippy::too_many_lines,
        reason = "builds each part of the ruleset from the merged layers, in the order of ruleset.yaml"
    )]
    pub(super) fn parse_with(file: &Path, src: &str, sources: Option<&Sources>) -> Result<Ruleset, RulesetError> {
        let chain = read_chain(file, src, sources)?;
        let mut m = Merged {
            chain: &chain,
            dice: BTreeMap::new(),
            terrain: BTreeMap::new(),
            unit_types: BTreeMap::new(),
            charts: BTreeMap::new(),
            charts_raw: None,
            params: BTreeMap::new(),
            variants: BTreeMap::new(),
            events: BTreeMap::new(),
            modules: Vec::new(),
            tokens: Vec::new(),
            removed: Vec::new(),
        };
        for layer in (0..chain.len()).rev() {
            merge_layer(&mut m, layer)?;
        }
        let own = &chain[0];
        let links: Vec<Link> = chain
            .iter()
            .map(|d| Link { name: d.raw.name.value.clone(), dir: d.dir.clone(), origin: layers::origin_of(&d.dir).0 })
            .collect();
        let mut from = BTreeMap::new();

        // Modules: each from the first folder of the chain that has its file.
        let mut module_files = BTreeMap::new();
        for (name, at) in &m.modules {
            // A module becomes the global of its name: `dice` or `string`
            // would silently replace what every script relies on.
            if crate::lua::sandbox_globals().contains(name) {
                return Err(m.err(
                    *at,
                    format!(
                        "module '{name}' would replace the global `{name}`: a module becomes the global of its \
                         name, and `{name}` is already one every script uses (Luau's libraries and the sandtable \
                         API); rename the module (its file and this entry)"
                    ),
                ));
            }
            let file = format!("{name}.lua");
            let Some(layer) = chain.iter().position(|d| files::is_file(&d.dir.join(&file))) else {
                let dirs: Vec<String> = chain.iter().map(|d| crate::lua::display_path(&d.dir)).collect();
                return Err(m.err(*at, format!("module '{name}' has no file {file} in {}", dirs.join(" or "))));
            };
            module_files.insert(name.clone(), chain[layer].dir.join(&file));
            let changed = (layer < at.layer).then_some(layer);
            from.insert((Part::Module, name.clone()), Layered { defined: at.layer, changed });
        }

        // Limits, line of sight, stacking, title: the nearest layer that gives one.
        let mut limits = super::Limits::default();
        let mut los = LosRule::default();
        let mut stacking = false;
        let mut title = String::new();
        for doc in chain.iter().rev() {
            let raw = &doc.raw;
            if let Some(l) = &raw.limits {
                if let Some(mb) = &l.memory_mb {
                    if mb.value == 0 {
                        let msg = "limits.memory_mb must be 1 or more (MiB); 0 would mean no limit at all".to_string();
                        return Err(doc.err(mb.referenced, msg));
                    }
                    limits.memory_mb = mb.value;
                }
                if let Some(t) = &l.time_ms {
                    if t.value == 0 {
                        let msg = "limits.time_ms must be 1 or more (milliseconds); 0 would stop every call at once"
                            .to_string();
                        return Err(doc.err(t.referenced, msg));
                    }
                    limits.time_ms = t.value;
                }
            }
            if let Some(l) = &raw.los {
                los.units_block = l.units_block.unwrap_or(los.units_block);
                los.terrain_flag = l.terrain_flag.clone().unwrap_or(los.terrain_flag);
                los.edge_blocks = l.edge_blocks.unwrap_or(los.edge_blocks);
            }
            stacking = raw.stacking.unwrap_or(stacking);
            if let Some(t) = &raw.title {
                title.clone_from(t);
            }
        }
        if own.raw.title.is_none() && chain.len() > 1 {
            title = format!("{title} (variant {})", own.raw.name.value);
        }

        let mut dice = Vec::new();
        for (name, t) in &m.dice {
            dice.push(parse_die(name, &t.value).map_err(|e| m.err(t.at, e))?);
            from.insert((Part::Die, name.clone()), t.layers);
        }
        let mut terrain = serde_json::Map::new();
        for (name, t) in &m.terrain {
            check_entry(name, &t.value, "terrain", "woods: { blocks_los: true }").map_err(|e| m.err(t.at, e))?;
            terrain.insert(name.clone(), t.value.clone());
            from.insert((Part::Terrain, name.clone()), t.layers);
        }
        let mut unit_types = serde_json::Map::new();
        for (name, t) in &m.unit_types {
            check_entry(name, &t.value, "unit type", "infantry: { strength: 4 }").map_err(|e| m.err(t.at, e))?;
            check_unit_type(name, &t.value).map_err(|e| m.err(t.at, e))?;
            unit_types.insert(name.clone(), t.value.clone());
            from.insert((Part::UnitType, name.clone()), t.layers);
        }
        // Draw: the nearest layer that gives one, checked against the merged unit types.
        let draw = match chain.iter().find(|d| d.raw.draw.is_some()) {
            Some(doc) => parse_draw(doc.raw.draw.as_ref(), &unit_types).map_err(|(loc, e)| doc.err(loc, e))?,
            None => super::Draw::default(),
        };
        let charts = match m.charts_raw.take() {
            None => Value::Null,
            Some(Value::Object(_)) => {
                for (k, t) in &m.charts {
                    from.insert((Part::Chart, k.clone()), t.layers);
                }
                Value::Object(m.charts.iter().map(|(k, t)| (k.clone(), t.value.clone())).collect())
            }
            Some(other) => other,
        };
        let mut params = BTreeMap::new();
        for (module, defs) in &m.params {
            let mut out = BTreeMap::new();
            for (name, t) in defs {
                out.insert(name.clone(), t.value.clone());
                from.insert((Part::Param, format!("{module}.{name}")), t.layers);
            }
            params.insert(module.clone(), out);
        }
        let values = params
            .iter()
            .map(|(m, defs)| (m.clone(), defs.iter().map(|(n, d)| (n.clone(), d.default.clone())).collect()))
            .collect();
        let events = m.events.iter().map(|(k, t)| (k.clone(), t.value.clone())).collect();
        for (k, t) in &m.events {
            from.insert((Part::Event, k.clone()), t.layers);
        }
        let mut rs = Ruleset {
            name: own.raw.name.value.clone(),
            title,
            dir: own.dir.clone(),
            modules: m.modules.iter().map(|(n, _)| n.clone()).collect(),
            module_files,
            dice,
            terrain,
            unit_types,
            tokens: m.tokens.clone(),
            charts,
            params,
            variants: BTreeMap::new(),
            limits,
            los,
            events,
            stacking,
            draw,
            values,
            variant: None,
            origin: links[0].origin,
            shadows: None,
            chain: links,
            from: BTreeMap::new(),
            removed: m.removed.clone(),
        };
        for (vname, t) in &m.variants {
            let doc = &chain[t.at.layer];
            let mut set = Vec::new();
            for (key, value) in &t.value.set {
                rs.check_value(key, &value.value)
                    .map_err(|e| doc.err(value.referenced, format!("variant '{vname}': {e}")))?;
                set.push((key.clone(), value.value.clone()));
            }
            rs.variants.insert(vname.clone(), Variant { doc: t.value.doc.clone(), set });
            from.insert((Part::Variant, vname.clone()), t.layers);
        }
        rs.from = from;
        Ok(rs)
    }

    /// The ruleset this one extends, if any.
    pub fn base(&self) -> Option<&Link> {
        self.chain.get(1)
    }

    /// The layers that wrote a part, when this ruleset extends another
    /// (`None` for a ruleset of its own, whose every part is its own).
    pub fn layer_of(&self, part: Part, key: &str) -> Option<String> {
        if self.chain.len() < 2 {
            return None;
        }
        let l = self.from.get(&(part, key.to_string()))?;
        let name = |i: usize| self.chain.get(i).map_or("?", |c| c.name.as_str());
        Some(match (part, l.changed) {
            (Part::Module, Some(c)) => format!("{}'s file, listed by {}", name(c), name(l.defined)),
            (_, Some(c)) => format!("{}, changed by {}", name(l.defined), name(c)),
            (_, None) => name(l.defined).to_string(),
        })
    }

    /// The layer that last wrote a part (its value as loaded).
    pub fn written_by(&self, part: Part, key: &str) -> Option<usize> {
        self.from.get(&(part, key.to_string())).map(|l| l.changed.unwrap_or(l.defined))
    }

    /// The folders of the chain, the ruleset's own first.
    pub fn dirs(&self) -> impl Iterator<Item = &Path> {
        self.chain.iter().map(|l| l.dir.as_path())
    }

    /// The Lua file `require(rel)` means for a plain name: the first folder
    /// of the chain that has `rel.lua` (a variant's own file replaces its
    /// base's); with `@NAME/rel`, the file in the folder of the ruleset
    /// NAME of the chain (a variant wrapping its base's module).
    pub fn find_module(&self, rel: &str) -> Result<PathBuf, String> {
        if let Some(rest) = rel.strip_prefix('@') {
            let (name, module) = rest.split_once('/').ok_or_else(|| {
                format!("'@{rest}' names no module: write @RULESET/MODULE, e.g. @{}/{rest}", self.base_name())
            })?;
            let link = self.chain.iter().find(|l| l.name == name).ok_or_else(|| {
                let names: Vec<&str> = self.chain.iter().map(|l| l.name.as_str()).collect();
                format!("'@{name}' is not {} nor a ruleset it extends ({})", self.name, names.join(", "))
            })?;
            let file = link.dir.join(format!("{module}.lua"));
            return if files::is_file(&file) {
                Ok(file)
            } else {
                Err(format!("{name} has no file {}", crate::lua::display_path(&file)))
            };
        }
        let file = format!("{rel}.lua");
        self.dirs().map(|d| d.join(&file)).find(|p| files::is_file(p)).ok_or_else(|| {
            let dirs: Vec<String> = self.dirs().map(crate::lua::display_path).collect();
            format!("no file {file} in {}", dirs.join(" or "))
        })
    }

    /// The base's name, or the ruleset's own when it extends none (for examples in messages).
    fn base_name(&self) -> &str {
        self.base().map_or(self.name.as_str(), |b| b.name.as_str())
    }
}
