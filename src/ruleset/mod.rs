//! Ruleset manifests (`rulesets/<game>/ruleset.yaml`): the game's dice,
//! terrain, unit types, tokens, charts, Lua modules, params and variants.
//!
//! Params are typed by their default (integer, number, true/false, text, or
//! one of `choices`); `--set module.name=value` and variants are checked
//! against that type and range before anything runs.

mod find;
mod layered;
pub mod list;
mod manifest;
pub mod new;
#[cfg(test)]
mod tests;

pub use find::{all, find, find_from, locate, Found, Listed};
use layered::manifest_text;
pub use layered::{Layered, Link, Part};

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::dice::DieKind;
use crate::error::LocatedError;
use crate::layers::{files, Origin};

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
    /// The ruleset's own folder (a variant's, not its base's).
    pub dir: PathBuf,
    /// The modules to load, in order (a variant's base's first).
    pub modules: Vec<String>,
    /// The file of each module: the first folder of [`Ruleset::chain`] that has it.
    pub module_files: BTreeMap<String, PathBuf>,
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
    /// Which layer of the search path it comes from.
    pub origin: Origin,
    /// The folder of a ruleset of the same name in a later layer (a bundled
    /// one, say) that this one hides, when their files differ.
    pub shadows: Option<PathBuf>,
    /// This ruleset, then the ruleset it `extends:`, then that one's base...
    pub chain: Vec<Link>,
    /// Which layers of the chain wrote each part (see [`Ruleset::layer_of`]).
    pub from: BTreeMap<(Part, String), Layered>,
    /// The base's entries a layer removed with `~`: part, name, layer.
    pub removed: Vec<(Part, String, usize)>,
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
    #[error("no ruleset at '{name}': {path} has no ruleset.yaml{why}")]
    NoRulesetAt { name: String, path: String, why: String },
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Located(#[from] Box<LocatedError>),
    #[error("{0}")]
    Param(String),
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

    /// Like [`Ruleset::load_from`], reading the manifests (the ruleset's
    /// and its bases') from `sources` (by canonical path) when they are
    /// there: how `sandtable test --mutate` loads a mutant of the data
    /// without writing the file.
    pub fn load_with(name: &str, base: Option<&Path>, sources: Option<&Sources>) -> Result<Ruleset, RulesetError> {
        let found = locate(name, base, None)?;
        let src = manifest_text(&found.file, sources)?;
        let mut rs = Ruleset::parse_with(&found.file, &src, sources)?;
        rs.shadows = found.shadows;
        // Noted as it is found: a scenario that fails on it says why.
        if let Some(n) = rs.shadow_note() {
            crate::layers::note(n);
        }
        Ok(rs)
    }

    /// The note a user's ruleset that hides another of its name gets:
    /// "ruleset tricorne is rulesets/tricorne (project), which shadows the bundled tricorne".
    pub fn shadow_note(&self) -> Option<String> {
        let hidden = self.shadows.as_ref()?;
        let (_, whose) = crate::layers::origin_of(hidden);
        Some(format!(
            "ruleset {} is {} ({}), which shadows the {whose} one ({})",
            self.name,
            crate::lua::display_path(&self.dir),
            self.origin.word(),
            crate::lua::display_path(hidden)
        ))
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

    /// The folders `require("lib/x")` looks in, in order: the `lib/` beside
    /// the ruleset's folder, then `rulesets/lib/` of each layer of the search
    /// path (so a project may add or replace a shared module, and the
    /// bundled ones are always there).
    pub fn lib_dirs(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        let beside = self.dir.parent().map(|p| p.join("lib"));
        let layered = crate::layers::layers().into_iter().map(|l| l.root.join("rulesets").join("lib"));
        for d in beside.into_iter().chain(layered) {
            let c = files::canonical(&d);
            if files::is_dir(&c) && !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// A param's current value.
    pub fn value(&self, key: &str) -> Option<&Value> {
        let (m, n) = key.split_once('.')?;
        self.values.get(m)?.get(n)
    }
}
