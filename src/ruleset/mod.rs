//! Ruleset manifests (`rulesets/<game>/ruleset.yaml`): the game's dice,
//! terrain, unit types, tokens, charts, Lua modules, params and variants.
//!
//! Params are typed by their default (integer, number, true/false, text, or
//! one of `choices`); `--set module.name=value` and variants are checked
//! against that type and range before anything runs.

mod find;
#[cfg(test)]
mod tests;

pub use find::{find, find_from, project_root, search_roots};

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use crate::dice::{DieKind, Face};
use crate::error::{read_text, yaml_error, LocatedError};

/// File texts to use instead of the files, by canonical path (mutants).
pub type Sources = std::collections::HashMap<PathBuf, String>;

/// What a param holds.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamType {
    Int,
    Number,
    Bool,
    Text,
    Choice(Vec<String>),
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamType::Int => f.write_str("integer"),
            ParamType::Number => f.write_str("number"),
            ParamType::Bool => f.write_str("true/false"),
            ParamType::Text => f.write_str("text"),
            ParamType::Choice(c) => write!(f, "one of {}", c.join(", ")),
        }
    }
}

/// One tunable number (or switch) of a rule module.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDef {
    pub ty: ParamType,
    pub default: Value,
    pub doc: String,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl ParamDef {
    /// Checks a typed value against the param's type and range.
    pub fn check(&self, v: &Value) -> Result<Value, String> {
        let range = |n: f64| -> Result<(), String> {
            if let Some(min) = self.min {
                if n < min {
                    return Err(format!("{n} is below the minimum {min}"));
                }
            }
            if let Some(max) = self.max {
                if n > max {
                    return Err(format!("{n} is above the maximum {max}"));
                }
            }
            Ok(())
        };
        match (&self.ty, v) {
            (ParamType::Int, Value::Number(n)) if n.as_i64().is_some() => {
                range(n.as_f64().unwrap_or_default())?;
                Ok(v.clone())
            }
            (ParamType::Number, Value::Number(n)) => {
                range(n.as_f64().unwrap_or_default())?;
                Ok(v.clone())
            }
            (ParamType::Bool, Value::Bool(_)) | (ParamType::Text, Value::String(_)) => Ok(v.clone()),
            (ParamType::Choice(c), Value::String(s)) if c.contains(s) => Ok(v.clone()),
            (ty, v) => Err(format!("expected {ty}, got {v}")),
        }
    }

    /// Parses command-line text by the param's type.
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        let v = match self.ty {
            ParamType::Int => {
                text.parse::<i64>().map(Value::from).map_err(|_| format!("expected an integer, got '{text}'"))?
            }
            ParamType::Number => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| format!("expected a number, got '{text}'"))?,
            ParamType::Bool => match text {
                "true" | "yes" | "on" => Value::Bool(true),
                "false" | "no" | "off" => Value::Bool(false),
                _ => return Err(format!("expected true or false, got '{text}'")),
            },
            ParamType::Text | ParamType::Choice(_) => Value::String(text.to_string()),
        };
        self.check(&v)
    }
}

/// The time and memory budget of every top-level Lua call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub time_ms: u64,
    pub memory_mb: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { time_ms: 1000, memory_mb: 256 }
    }
}

/// What blocks line of sight, as data (a Lua rule may replace it).
#[derive(Clone, Debug, PartialEq)]
pub struct LosRule {
    /// Units (and lone leaders) of either side block.
    pub units_block: bool,
    /// Terrain whose ruleset entry has this flag set to true blocks.
    pub terrain_flag: String,
    /// Hexes off the map (the board's side edge) block.
    pub edge_blocks: bool,
}

impl Default for LosRule {
    fn default() -> Self {
        LosRule { units_block: true, terrain_flag: "blocks_los".into(), edge_blocks: true }
    }
}

/// A loaded ruleset with its effective param values.
#[derive(Clone, Debug)]
pub struct Ruleset {
    pub name: String,
    pub title: String,
    pub dir: PathBuf,
    pub modules: Vec<String>,
    pub dice: Vec<DieKind>,
    pub terrain: serde_json::Map<String, Value>,
    pub unit_types: serde_json::Map<String, Value>,
    pub tokens: Vec<String>,
    pub charts: Value,
    pub params: BTreeMap<String, BTreeMap<String, ParamDef>>,
    pub variants: BTreeMap<String, Variant>,
    pub limits: Limits,
    pub los: LosRule,
    /// The ruleset's own events (`events:` in ruleset.yaml): name and doc.
    /// Rules may `on` and `emit` these and the core's (`lua::world::events::CORE_EVENTS`).
    pub events: BTreeMap<String, String>,
    /// `stacking: true`: several units may share a hex (see `World::stacking`).
    pub stacking: bool,
    /// How the maps draw the ruleset's pieces (`draw:`).
    pub draw: Draw,
    /// Current values: module -> name -> value.
    pub values: BTreeMap<String, BTreeMap<String, Value>>,
    /// The variant applied, if any.
    pub variant: Option<String>,
}

/// How the maps (`:map`, `:map --svg`, `:view`) draw a ruleset's pieces:
/// `draw:` in ruleset.yaml. The maps know nothing of any game, so what a
/// piece means for the picture is said here, as data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Draw {
    /// Unit types drawn as leaders (a round token with a star, or a flag on a
    /// tabletop), not as fighting units: `leaders: [general]`.
    pub leaders: Vec<String>,
    /// The property by which a unit off the map names the unit carrying it
    /// (`carrier: aboard`): the maps show it with its carrier.
    pub carrier: Option<String>,
    /// Metres of ground per centimetre of table, for the tabletop's scale bar.
    pub metres_per_cm: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub doc: String,
    pub set: Vec<(String, Value)>,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum RulesetError {
    #[error("no ruleset named '{name}' (looked in {looked}); known rulesets: {known}")]
    NotFound { name: String, looked: String, known: String },
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Located(#[from] Box<LocatedError>),
    #[error("{0}")]
    Param(String),
}

// ---- the YAML shape ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuleset {
    name: Spanned<String>,
    #[serde(default)]
    title: String,
    #[serde(default)]
    modules: Vec<Spanned<String>>,
    /// Die name -> number of sides or list of faces (checked in `parse_die`).
    #[serde(default)]
    dice: BTreeMap<String, Spanned<Value>>,
    /// Terrain kind -> mapping of its properties.
    #[serde(default)]
    terrain: BTreeMap<String, Spanned<Value>>,
    /// Unit type -> mapping of its properties.
    #[serde(default)]
    unit_types: BTreeMap<String, Spanned<Value>>,
    #[serde(default)]
    tokens: Vec<String>,
    #[serde(default)]
    charts: Value,
    #[serde(default)]
    params: BTreeMap<String, BTreeMap<String, Spanned<RawParam>>>,
    #[serde(default)]
    variants: BTreeMap<String, Spanned<RawVariant>>,
    #[serde(default)]
    limits: Option<RawLimits>,
    #[serde(default)]
    los: Option<RawLos>,
    /// Event name -> one line of doc.
    #[serde(default)]
    events: BTreeMap<String, String>,
    #[serde(default)]
    stacking: bool,
    #[serde(default)]
    draw: Option<Spanned<RawDraw>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDraw {
    #[serde(default)]
    leaders: Vec<Spanned<String>>,
    carrier: Option<String>,
    metres_per_cm: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParam {
    default: Value,
    #[serde(default)]
    doc: String,
    #[serde(default)]
    choices: Option<Vec<String>>,
    #[serde(default, rename = "type")]
    ty: Option<String>,
    #[serde(default)]
    min: Option<f64>,
    #[serde(default)]
    max: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariant {
    #[serde(default)]
    doc: String,
    set: BTreeMap<String, Spanned<Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    time_ms: Option<Spanned<u64>>,
    memory_mb: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLos {
    units_block: Option<bool>,
    terrain_flag: Option<String>,
    edge_blocks: Option<bool>,
}

fn located(file: &Path, src: &str, loc: serde_saphyr::Location, msg: String) -> RulesetError {
    RulesetError::Located(Box::new(LocatedError::at(
        file,
        src,
        loc.line().max(1) as usize,
        loc.column().max(1) as usize,
        msg,
    )))
}

/// The most faces a die may have (as `DieKind::new` checks).
const MAX_SIDES: u64 = 250;

/// A die of ruleset.yaml: a number of sides (`d6: 6`) or a list of faces.
fn parse_die(name: &str, die: &Value) -> Result<DieKind, String> {
    let kind = match die {
        Value::Number(n) => match n.as_u64().filter(|n| (1..=MAX_SIDES).contains(n)) {
            Some(sides) => DieKind::numeric(name, sides as u32),
            None => return Err(format!("die '{name}': a die has 1 to {MAX_SIDES} sides, not {n}")),
        },
        Value::Array(faces) => {
            let mut fs = Vec::new();
            for f in faces {
                fs.push(match f {
                    Value::Number(n) if n.as_i64().is_some() => Face::Num(n.as_i64().unwrap_or_default()),
                    Value::String(s) => Face::Sym(s.as_str().into()),
                    other => return Err(format!("die '{name}': a face must be a whole number or a name, not {other}")),
                });
            }
            DieKind::new(name, fs)
        }
        other => {
            return Err(format!(
                "die '{name}': a die is a number of sides (`d6: 6`) or a list of faces (`battle: [infantry, flag]`), not {other}"
            ))
        }
    };
    kind.map_err(|e| e.to_string())
}

/// Checks that each entry of a `terrain:` or `unit_types:` table is a
/// mapping of properties, and collects them.
fn entries(
    raw: &BTreeMap<String, Spanned<Value>>,
    what: &str,
    example: &str,
) -> Result<serde_json::Map<String, Value>, (serde_saphyr::Location, String)> {
    let mut out = serde_json::Map::new();
    for (name, v) in raw {
        match &v.value {
            Value::Object(_) => {
                out.insert(name.clone(), v.value.clone());
            }
            other => {
                return Err((
                    v.referenced,
                    format!(
                    "{what} '{name}': expected a mapping of its properties (e.g. `{example}`, or `{{}}`), got {other}"
                ),
                ))
            }
        }
    }
    Ok(out)
}

/// The `draw:` section: leaders must be unit types of the ruleset, the
/// ground scale a positive number.
fn parse_draw(
    raw: Option<&Spanned<RawDraw>>,
    unit_types: &serde_json::Map<String, Value>,
) -> Result<Draw, (serde_saphyr::Location, String)> {
    let Some(raw) = raw else { return Ok(Draw::default()) };
    let mut leaders = Vec::new();
    for l in &raw.value.leaders {
        if !unit_types.contains_key(&l.value) {
            let known: Vec<&str> = unit_types.keys().map(String::as_str).collect();
            return Err((
                l.referenced,
                format!("draw.leaders: '{}' is not a unit type (unit types: {})", l.value, known.join(", ")),
            ));
        }
        leaders.push(l.value.clone());
    }
    let metres_per_cm = match &raw.value.metres_per_cm {
        Some(m) if !(m.value.is_finite() && m.value > 0.0) => {
            return Err((m.referenced, format!("draw.metres_per_cm must be a positive number, not {}", m.value)))
        }
        m => m.as_ref().map(|m| m.value),
    };
    Ok(Draw { leaders, carrier: raw.value.carrier.clone().filter(|c| !c.is_empty()), metres_per_cm })
}

/// A unit type's `strength` (its default) and base size, checked where the
/// ruleset defines them rather than where a scenario first uses them.
fn check_unit_type(name: &str, ty: &Value) -> Result<(), String> {
    if let Some(s) = ty.get("strength") {
        if !s.as_i64().is_some_and(|n| (1..=i64::from(i32::MAX)).contains(&n)) {
            return Err(format!("unit type '{name}': strength must be a whole number, 1 or more, not {s}"));
        }
    }
    crate::tabletop::terrain::base_spec(name, ty).map(|_| ())
}

impl Ruleset {
    /// Loads a ruleset by name or path.
    pub fn load(name: &str) -> Result<Ruleset, RulesetError> {
        Ruleset::load_from(name, None)
    }

    /// Loads a ruleset named by a scenario in folder `base` (a relative path there, or a name).
    pub fn load_from(name: &str, base: Option<&Path>) -> Result<Ruleset, RulesetError> {
        Ruleset::load_with(name, base, None)
    }

    /// Like [`Ruleset::load_from`], reading the manifest from `sources` (by
    /// canonical path) when it is there: how `sandtable test --mutate` loads
    /// a mutant of the data without writing the file.
    pub fn load_with(name: &str, base: Option<&Path>, sources: Option<&Sources>) -> Result<Ruleset, RulesetError> {
        let file = find_from(name, base)?;
        let given = sources.and_then(|m| m.get(&file.canonicalize().ok()?));
        let src = match given {
            Some(s) => s.clone(),
            None => read_text(&file, "ruleset")?,
        };
        Ruleset::parse(&file, &src)
    }

    /// Parses a manifest's text; `file` names it in errors and locates its modules.
    #[expect(
        clippy::too_many_lines,
        reason = "checks each section of ruleset.yaml in file order with one located-error helper"
    )]
    pub fn parse(file: &Path, src: &str) -> Result<Ruleset, RulesetError> {
        let raw: RawRuleset =
            serde_saphyr::from_str(src).map_err(|e| RulesetError::Located(Box::new(yaml_error(file, src, &e))))?;
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for m in &raw.modules {
            // A module becomes the global of its name: `dice` or `string`
            // would silently replace what every script relies on.
            if crate::lua::sandbox_globals().contains(&m.value) {
                return Err(located(
                    file,
                    src,
                    m.referenced,
                    format!(
                        "module '{}' would replace the global `{0}`: a module becomes the global of its name, and \
                         `{0}` is already one every script uses (Luau's libraries and the sandtable API); rename \
                         the module (its file and this entry)",
                        m.value
                    ),
                ));
            }
            let path = dir.join(format!("{}.lua", m.value));
            if !path.is_file() {
                return Err(located(
                    file,
                    src,
                    m.referenced,
                    format!("module '{}' has no file {}", m.value, path.display()),
                ));
            }
        }
        if let Some(m) = raw.limits.as_ref().and_then(|l| l.memory_mb.as_ref()).filter(|m| m.value == 0) {
            let msg = "limits.memory_mb must be 1 or more (MiB); 0 would mean no limit at all".to_string();
            return Err(located(file, src, m.referenced, msg));
        }
        if let Some(t) = raw.limits.as_ref().and_then(|l| l.time_ms.as_ref()).filter(|t| t.value == 0) {
            let msg = "limits.time_ms must be 1 or more (milliseconds); 0 would stop every call at once".to_string();
            return Err(located(file, src, t.referenced, msg));
        }
        let mut dice = Vec::new();
        for (name, die) in &raw.dice {
            dice.push(parse_die(name, &die.value).map_err(|e| located(file, src, die.referenced, e))?);
        }
        let terrain = entries(&raw.terrain, "terrain", "woods: { blocks_los: true }")
            .map_err(|(loc, e)| located(file, src, loc, e))?;
        let unit_types = entries(&raw.unit_types, "unit type", "infantry: { strength: 4 }")
            .map_err(|(loc, e)| located(file, src, loc, e))?;
        for (name, ty) in &raw.unit_types {
            check_unit_type(name, &ty.value).map_err(|e| located(file, src, ty.referenced, e))?;
        }
        let draw = parse_draw(raw.draw.as_ref(), &unit_types).map_err(|(loc, e)| located(file, src, loc, e))?;
        let mut params = BTreeMap::new();
        for (module, defs) in &raw.params {
            let mut out = BTreeMap::new();
            for (pname, def) in defs {
                let p = &def.value;
                let ty = match (&p.choices, p.ty.as_deref(), &p.default) {
                    (Some(c), _, _) => ParamType::Choice(c.clone()),
                    (None, Some("int" | "integer"), _) => ParamType::Int,
                    (None, Some("number"), _) => ParamType::Number,
                    (None, Some("bool"), _) => ParamType::Bool,
                    (None, Some("text" | "string"), _) => ParamType::Text,
                    (None, Some(other), _) => {
                        return Err(located(
                            file,
                            src,
                            def.referenced,
                            format!("param {module}.{pname}: unknown type '{other}' (int, number, bool, text)"),
                        ))
                    }
                    (None, None, Value::Number(n)) if n.as_i64().is_some() => ParamType::Int,
                    (None, None, Value::Number(_)) => ParamType::Number,
                    (None, None, Value::Bool(_)) => ParamType::Bool,
                    (None, None, Value::String(_)) => ParamType::Text,
                    (None, None, other) => {
                        return Err(located(
                            file,
                            src,
                            def.referenced,
                            format!("param {module}.{pname}: default {other} is not a number, true/false or text"),
                        ))
                    }
                };
                let pd = ParamDef { ty, default: p.default.clone(), doc: p.doc.clone(), min: p.min, max: p.max };
                pd.check(&p.default)
                    .map_err(|e| located(file, src, def.referenced, format!("param {module}.{pname}: default: {e}")))?;
                if pd.doc.is_empty() {
                    return Err(located(
                        file,
                        src,
                        def.referenced,
                        format!("param {module}.{pname} needs a one-line `doc`"),
                    ));
                }
                out.insert(pname.clone(), pd);
            }
            params.insert(module.clone(), out);
        }
        let values = params
            .iter()
            .map(|(m, defs)| (m.clone(), defs.iter().map(|(n, d)| (n.clone(), d.default.clone())).collect()))
            .collect();
        let mut rs = Ruleset {
            name: raw.name.value.clone(),
            title: raw.title,
            dir,
            modules: raw.modules.iter().map(|m| m.value.clone()).collect(),
            dice,
            terrain,
            unit_types,
            tokens: raw.tokens,
            charts: raw.charts,
            params,
            variants: BTreeMap::new(),
            limits: Limits {
                time_ms: raw
                    .limits
                    .as_ref()
                    .and_then(|l| l.time_ms.as_ref())
                    .map_or(Limits::default().time_ms, |t| t.value),
                memory_mb: raw
                    .limits
                    .as_ref()
                    .and_then(|l| l.memory_mb.as_ref())
                    .map_or(Limits::default().memory_mb, |m| m.value),
            },
            los: LosRule {
                units_block: raw.los.as_ref().and_then(|l| l.units_block).unwrap_or(true),
                terrain_flag: raw
                    .los
                    .as_ref()
                    .and_then(|l| l.terrain_flag.clone())
                    .unwrap_or_else(|| "blocks_los".into()),
                edge_blocks: raw.los.as_ref().and_then(|l| l.edge_blocks).unwrap_or(true),
            },
            events: raw.events,
            stacking: raw.stacking,
            draw,
            values,
            variant: None,
        };
        for (vname, v) in &raw.variants {
            let mut set = Vec::new();
            for (key, value) in &v.value.set {
                rs.check_value(key, &value.value)
                    .map_err(|e| located(file, src, value.referenced, format!("variant '{vname}': {e}")))?;
                set.push((key.clone(), value.value.clone()));
            }
            rs.variants.insert(vname.clone(), Variant { doc: v.value.doc.clone(), set });
        }
        Ok(rs)
    }

    fn def(&self, key: &str) -> Result<&ParamDef, String> {
        let (module, name) = key.split_once('.').ok_or_else(|| format!("'{key}' is not of the form module.param"))?;
        self.params.get(module).and_then(|m| m.get(name)).ok_or_else(|| {
            format!("ruleset '{}' has no param '{key}' (params: {})", self.name, self.param_names().join(", "))
        })
    }

    /// Every param as `module.name`.
    pub fn param_names(&self) -> Vec<String> {
        self.params.iter().flat_map(|(m, d)| d.keys().map(move |n| format!("{m}.{n}"))).collect()
    }

    fn check_value(&self, key: &str, value: &Value) -> Result<Value, String> {
        self.def(key)?.check(value).map_err(|e| format!("{key}: {e}"))
    }

    fn store(&mut self, key: &str, value: Value) {
        if let Some((m, n)) = key.split_once('.') {
            self.values.entry(m.to_string()).or_default().insert(n.to_string(), value);
        }
    }

    /// Applies `module.name=value` from the command line or REPL.
    pub fn set_param(&mut self, assignment: &str) -> Result<(), RulesetError> {
        let (key, text) = assignment
            .split_once('=')
            .ok_or_else(|| RulesetError::Param(format!("'{assignment}' is not of the form module.param=value")))?;
        let (key, text) = (key.trim(), text.trim());
        let def = self.def(key).map_err(RulesetError::Param)?;
        let v = def.parse(text).map_err(|e| RulesetError::Param(format!("{key}: {e}")))?;
        self.store(key, v);
        Ok(())
    }

    /// Applies a named variant's overrides.
    pub fn apply_variant(&mut self, name: &str) -> Result<(), RulesetError> {
        let v = self.variants.get(name).cloned().ok_or_else(|| {
            RulesetError::Param(format!(
                "ruleset '{}' has no variant '{name}' (variants: {})",
                self.name,
                if self.variants.is_empty() {
                    "none".to_string()
                } else {
                    self.variants.keys().cloned().collect::<Vec<_>>().join(", ")
                }
            ))
        })?;
        for (k, val) in v.set {
            self.store(&k, val);
        }
        self.variant = Some(name.to_string());
        Ok(())
    }

    /// A param's current value.
    pub fn value(&self, key: &str) -> Option<&Value> {
        let (m, n) = key.split_once('.')?;
        self.values.get(m)?.get(n)
    }
}
