//! The YAML shape of one `ruleset.yaml`, and the checks of a single entry
//! (a die, a terrain kind, a unit type), wherever the entry ends up.
//!
//! Every section is optional but `name`. In a ruleset that `extends:`
//! another, a section holds only what differs (see [`super::layered`]): an
//! entry whose value is `~` (null) removes the base's entry of that name.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::{Location, Spanned};

use super::RulesetError;
use crate::dice::{DieKind, Face};
use crate::error::LocatedError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRuleset {
    pub name: Spanned<String>,
    /// The ruleset this one is a variant of (a name, or a path from this folder).
    #[serde(default)]
    pub extends: Option<Spanned<String>>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub modules: Vec<Spanned<String>>,
    /// Die name -> number of sides or list of faces (checked in `parse_die`).
    #[serde(default)]
    pub dice: BTreeMap<String, Spanned<Value>>,
    /// Terrain kind -> mapping of its properties.
    #[serde(default)]
    pub terrain: BTreeMap<String, Spanned<Value>>,
    /// Unit type -> mapping of its properties.
    #[serde(default)]
    pub unit_types: BTreeMap<String, Spanned<Value>>,
    #[serde(default)]
    pub tokens: Vec<String>,
    #[serde(default)]
    pub charts: Value,
    #[serde(default)]
    pub params: BTreeMap<String, BTreeMap<String, Spanned<Option<RawParam>>>>,
    #[serde(default)]
    pub variants: BTreeMap<String, Spanned<Option<RawVariant>>>,
    #[serde(default)]
    pub limits: Option<RawLimits>,
    #[serde(default)]
    pub los: Option<RawLos>,
    /// Event name -> one line of doc.
    #[serde(default)]
    pub events: BTreeMap<String, Spanned<Option<String>>>,
    #[serde(default)]
    pub stacking: Option<bool>,
    /// How the maps draw the pieces (a variant's replaces its base's whole).
    #[serde(default)]
    pub draw: Option<Spanned<RawDraw>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDraw {
    #[serde(default)]
    pub leaders: Vec<Spanned<String>>,
    pub carrier: Option<String>,
    pub metres_per_cm: Option<Spanned<f64>>,
}

/// The `draw:` section: leaders must be unit types of the ruleset, the
/// ground scale a positive number.
pub(super) fn parse_draw(
    raw: Option<&Spanned<RawDraw>>,
    unit_types: &serde_json::Map<String, Value>,
) -> Result<super::Draw, (Location, String)> {
    let Some(raw) = raw else { return Ok(super::Draw::default()) };
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
    Ok(super::Draw { leaders, carrier: raw.value.carrier.clone().filter(|c| !c.is_empty()), metres_per_cm })
}

/// A param as written: in a ruleset of its own every param needs `default`
/// and `doc`; a variant may give only what it changes (`{ default: 2 }`).
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawParam {
    #[serde(default)]
    pub default: Option<Value>,
    #[serde(default)]
    pub doc: Option<String>,
    #[serde(default)]
    pub choices: Option<Vec<String>>,
    #[serde(default, rename = "type")]
    pub ty: Option<String>,
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawVariant {
    #[serde(default)]
    pub doc: String,
    pub set: BTreeMap<String, Spanned<Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLimits {
    pub time_ms: Option<Spanned<u64>>,
    pub memory_mb: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLos {
    pub units_block: Option<bool>,
    pub terrain_flag: Option<String>,
    pub edge_blocks: Option<bool>,
}

/// An error at a line and column of a ruleset file.
pub(super) fn located(file: &Path, src: &str, loc: Location, msg: String) -> RulesetError {
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
pub(super) fn parse_die(name: &str, die: &Value) -> Result<DieKind, String> {
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

/// A `terrain:` or `unit_types:` entry must be a mapping of its properties.
pub(super) fn check_entry(name: &str, v: &Value, what: &str, example: &str) -> Result<(), String> {
    match v {
        Value::Object(_) => Ok(()),
        other => Err(format!(
            "{what} '{name}': expected a mapping of its properties (e.g. `{example}`, or `{{}}`), got {other}"
        )),
    }
}

/// A unit type's `strength` (its default) and base size, checked where the
/// ruleset defines them rather than where a scenario first uses them.
pub(super) fn check_unit_type(name: &str, ty: &Value) -> Result<(), String> {
    if let Some(s) = ty.get("strength") {
        if !s.as_i64().is_some_and(|n| (1..=i64::from(i32::MAX)).contains(&n)) {
            return Err(format!("unit type '{name}': strength must be a whole number, 1 or more, not {s}"));
        }
    }
    crate::tabletop::terrain::base_spec(name, ty).map(|_| ())
}
