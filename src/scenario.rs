//! Scenario files: YAML that sets up a battlefield for a ruleset.
//!
//! ```yaml
//! name: Bombardment
//! ruleset: great_war          # a folder under rulesets/, or a path relative to this file ("." or "../mine")
//! variant: four_for_crater    # optional
//! seed: 7                     # optional
//! map: { cols: 13, rows: 9, offset: odd-r }   # or map: { width: 180, height: 120 } (tabletop, cm)
//! sections: { left: [0, 4], centre: [4, 8], right: [8, 12] }   # offset column ranges, inclusive
//! sides:
//!   allies:  { baseline: bottom, pools: { hq: 6, medals: 0, reserve_artillery: 4 } }
//!   central: { baseline: top,    pools: { hq: 4, medals: 0 } }
//! first: allies
//! terrain: { woods: [[3, 2], [4, 2]] }        # hexes are axial [q, r], as in Lua
//! tokens:  { wire: [[5, 3]] }
//! # A tabletop's terrain is a list of polygons (cm) instead; level and cover
//! # default to the terrain kind's `level` and `cover` in ruleset.yaml:
//! areas:
//!   - { kind: woods, points: [[10, 10], [30, 10], [25, 25]], cover: heavy, name: Bois Bossu }
//!   - { kind: hill, points: [[60, 0], [90, 0], [90, 20]], level: 1 }
//! units:
//!   - { id: a1, side: allies, type: infantry, hex: [3, 6] }
//!   - { id: c1, side: central, type: infantry, hex: [4, 2], strength: 3, leader: Haig, props: { morale: 2 } }
//!   - { id: b1, side: french, type: line, at: [30, 40], facing: 270 }    # tabletop, cm and degrees
//!   - { id: b2, side: french, type: line, at: [60, 40], facing: 270, strength: 3, formation: column }
//!   - { id: a9, side: allies, type: infantry, strength: 0 }  # eliminated: strength 0, no position
//! # What a saved battlefield (the REPL's :save) adds; all optional:
//! turn: 3
//! params: { reserve_artillery.crater_at: 4 }  # param values, applied after the variant
//! marks: [{ hex: [6, 3], label: "1" }]        # labels rules put on hexes for maps
//! # a tabletop unit that lost bases: the id of the base in each place of
//! # its formation (0: the place is empty), on the unit:  bases: [1, 0, 3]
//! traces:                                     # where bases stood (tabletop.trace)
//!   - { unit: b1, label: lost, bases: [[2, 30, 40, 270, 4, 1.5]] }  # [id, x, y, facing, width, depth]
//! ```
//!
//! Every error, syntax or meaning, names the file, line and column; loading
//! builds a new world and hands it over only when all of it is valid.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::{Location, Spanned};

use crate::battlefield::{Edge, Map, Section, Side, World};
use crate::error::{read_text, yaml_error, LocatedError};
use crate::hex::{Hex, OffsetKind};
use crate::ruleset::Ruleset;
use crate::tabletop::Point;
use crate::unit::{Position, Prop, Unit};

/// A parsed scenario, not yet built into a world.
pub struct Scenario {
    pub path: PathBuf,
    pub source: String,
    pub name: String,
    pub ruleset: String,
    pub variant: Option<String>,
    pub seed: Option<u64>,
    raw: RawScenario,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
    ruleset: Spanned<String>,
    #[serde(default)]
    variant: Option<Spanned<String>>,
    #[serde(default)]
    seed: Option<u64>,
    map: Spanned<RawMap>,
    #[serde(default)]
    sections: BTreeMap<String, Spanned<[i32; 2]>>,
    #[serde(default)]
    sides: BTreeMap<String, Spanned<RawSide>>,
    #[serde(default)]
    first: Option<Spanned<String>>,
    #[serde(default)]
    terrain: BTreeMap<String, Spanned<Vec<Spanned<[i32; 2]>>>>,
    #[serde(default)]
    tokens: BTreeMap<String, Spanned<Vec<Spanned<[i32; 2]>>>>,
    /// A tabletop's terrain areas (polygons in cm).
    #[serde(default)]
    areas: Vec<Spanned<RawArea>>,
    #[serde(default)]
    units: Vec<Spanned<RawUnit>>,
    /// The turn number (a saved battlefield's; 1 when absent).
    #[serde(default)]
    turn: Option<u32>,
    /// Param values as `module.param: value`, applied after the variant (a
    /// saved battlefield's `:set` changes).
    #[serde(default)]
    params: BTreeMap<String, Spanned<Value>>,
    /// Labels on hexes for maps (a saved battlefield's marks).
    #[serde(default)]
    marks: Vec<Spanned<RawMark>>,
    /// Where units' bases stood (a saved battlefield's traces).
    #[serde(default)]
    traces: Vec<Spanned<RawTrace>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    unit: String,
    label: String,
    /// `[id, x, y, facing, width, depth]` per base.
    bases: Vec<[f64; 6]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMark {
    hex: [i32; 2],
    label: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArea {
    kind: Spanned<String>,
    points: Spanned<Vec<Spanned<[f64; 2]>>>,
    #[serde(default)]
    level: Option<i32>,
    #[serde(default)]
    cover: Option<Spanned<String>>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    cols: Option<i32>,
    rows: Option<i32>,
    offset: Option<String>,
    width: Option<f64>,
    height: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSide {
    #[serde(default)]
    baseline: Option<String>,
    #[serde(default)]
    pools: BTreeMap<String, i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnit {
    id: Spanned<String>,
    side: Spanned<String>,
    #[serde(rename = "type")]
    kind: Spanned<String>,
    #[serde(default)]
    hex: Option<Spanned<[i32; 2]>>,
    #[serde(default)]
    at: Option<Spanned<[f64; 2]>>,
    #[serde(default)]
    facing: Option<Spanned<f64>>,
    /// A tabletop unit's formation (one of its type's `formations`).
    #[serde(default)]
    formation: Option<Spanned<String>>,
    #[serde(default)]
    strength: Option<Spanned<i32>>,
    #[serde(default)]
    max: Option<i32>,
    #[serde(default)]
    leader: Option<String>,
    #[serde(default)]
    props: BTreeMap<String, Value>,
    /// A tabletop unit's bases by place (0: empty), when it lost some.
    #[serde(default)]
    bases: Option<Spanned<Vec<u16>>>,
}

/// A number as YAML writes it (`.nan`, `.inf`), for errors about the file.
fn yaml_number(n: f64) -> String {
    match n {
        n if n.is_nan() => ".nan".into(),
        n if n.is_infinite() => if n > 0.0 { ".inf" } else { "-.inf" }.into(),
        n => crate::lua::format_number(n),
    }
}

/// The YAML parser's budgets for a scenario of `len` bytes.
///
/// The library's defaults (250 000 nodes, 1 000 000 events) are smaller than
/// what `:save` writes for a large battlefield (a 200x200 map with 20 000
/// units is about 500 000 nodes), so the node and event budgets grow with the
/// file: a node takes at least one byte of text and about two events, so a
/// file without aliases always fits. What the budgets are for stays guarded:
/// alias expansion (billion laughs) still trips the alias and anchor limits,
/// and the work stays linear in the file's size.
pub fn yaml_options(len: usize) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = budget.max_nodes.max(len.saturating_add(1));
    budget.max_events = budget.max_events.max(len.saturating_mul(2).saturating_add(16));
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// Turns a YAML value into a unit property.
pub fn prop_from_json(v: &Value) -> Option<Prop> {
    match v {
        Value::Bool(b) => Some(Prop::Bool(*b)),
        Value::Number(n) => n.as_f64().map(Prop::Num),
        Value::String(s) => Some(Prop::Str(s.as_str().into())),
        _ => None,
    }
}

impl Scenario {
    /// Reads and parses a scenario file (syntax and shape only).
    pub fn load(path: &Path) -> Result<Scenario, Box<LocatedError>> {
        let source = read_text(path, "scenario")?;
        Scenario::parse(path, source)
    }

    pub fn parse(path: &Path, source: String) -> Result<Scenario, Box<LocatedError>> {
        let raw: RawScenario = serde_saphyr::from_str_with_options(&source, yaml_options(source.len()))
            .map_err(|e| Box::new(yaml_error(path, &source, &e)))?;
        let _ = &raw.description;
        Ok(Scenario {
            path: path.to_path_buf(),
            name: if raw.name.is_empty() {
                path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default()
            } else {
                raw.name.clone()
            },
            ruleset: raw.ruleset.value.clone(),
            variant: raw.variant.as_ref().map(|v| v.value.clone()),
            seed: raw.seed,
            source,
            raw,
        })
    }

    fn err(&self, loc: Location, msg: impl Into<String>) -> Box<LocatedError> {
        Box::new(LocatedError::at(
            &self.path,
            &self.source,
            loc.line().max(1) as usize,
            loc.column().max(1) as usize,
            msg,
        ))
    }

    /// Location of the `variant:` line, for errors about it.
    pub fn variant_error(&self, msg: impl Into<String>) -> Box<LocatedError> {
        let loc = self.raw.variant.as_ref().map_or(self.raw.ruleset.referenced, |v| v.referenced);
        self.err(loc, msg)
    }

    /// Location of the `ruleset:` line, for errors about it.
    pub fn ruleset_error(&self, msg: impl Into<String>) -> Box<LocatedError> {
        self.err(self.raw.ruleset.referenced, msg)
    }

    /// Builds the world, checking every name against the ruleset.
    #[expect(
        clippy::too_many_lines,
        reason = "builds the world section by section in file order; each section is short"
    )]
    pub fn build(&self, rs: &Ruleset) -> Result<World, Box<LocatedError>> {
        let raw = &self.raw;
        let m = &raw.map.value;
        let map = match (m.cols, m.rows, m.width, m.height) {
            (Some(cols), Some(rows), None, None) => {
                if cols <= 0 || rows <= 0 || cols > 1000 || rows > 1000 {
                    return Err(self.err(raw.map.referenced, "cols and rows must be between 1 and 1000"));
                }
                let offset = match &m.offset {
                    None => OffsetKind::OddR,
                    Some(o) => o.parse().map_err(|e: String| self.err(raw.map.referenced, e))?,
                };
                Map::Hex { cols, rows, offset }
            }
            (None, None, Some(width), Some(height)) if m.offset.is_none() => {
                if !(width > 0.0 && height > 0.0 && width.is_finite() && height.is_finite()) {
                    return Err(self.err(
                        raw.map.referenced,
                        format!(
                            "width and height must be positive numbers of centimetres, not {} and {}",
                            yaml_number(width),
                            yaml_number(height)
                        ),
                    ));
                }
                Map::Table { width, height }
            }
            _ => {
                return Err(self.err(
                    raw.map.referenced,
                    "a map is either a hex map { cols, rows, offset } or a tabletop { width, height } in cm",
                ))
            }
        };
        let mut world = World::new(map);
        world.stacking = rs.stacking;
        for k in &rs.dice {
            world.dice.define(k.clone());
        }
        if let Some(seed) = self.seed {
            world.dice.seed(seed);
        }
        // sides
        for (name, s) in &raw.sides {
            let baseline = match &s.value.baseline {
                None => None,
                Some(b) => Some(Edge::parse(b).ok_or_else(|| {
                    self.err(s.referenced, format!("side '{name}': baseline '{b}' is not top, bottom, left or right"))
                })?),
            };
            world.sides.push(Side {
                name: name.as_str().into(),
                baseline,
                pools: s.value.pools.iter().map(|(k, v)| (Rc::from(k.as_str()), *v)).collect(),
            });
        }
        let side_names = || raw.sides.keys().cloned().collect::<Vec<_>>().join(", ");
        if let Some(first) = &raw.first {
            if !raw.sides.contains_key(&first.value) {
                return Err(
                    self.err(first.referenced, format!("no side named '{}' (sides: {})", first.value, side_names()))
                );
            }
            world.current_side = Some(first.value.as_str().into());
        } else {
            world.current_side = world.sides.first().map(|s| s.name.clone());
        }
        // sections
        let mut sections = Vec::new();
        for (name, range) in &raw.sections {
            let [a, b] = range.value;
            if a > b {
                return Err(
                    self.err(range.referenced, format!("section '{name}': first column {a} is after last column {b}"))
                );
            }
            if let Map::Hex { cols, .. } = world.map {
                if a < 0 || b >= cols {
                    return Err(self.err(
                        range.referenced,
                        format!(
                            "section '{name}': columns {a} to {b} run off the board (its columns are 0 to {})",
                            cols - 1
                        ),
                    ));
                }
            }
            sections.push(Section { name: name.as_str().into(), first_col: a, last_col: b });
        }
        sections.sort_by_key(|s| s.first_col);
        world.sections = Rc::new(sections);
        // terrain and tokens
        let hex_at = |world: &World, h: &Spanned<[i32; 2]>| -> Result<Hex, Box<LocatedError>> {
            let hex = Hex::new(h.value[0], h.value[1]);
            if !world.on_map(hex) {
                return Err(self.err(h.referenced, format!("hex {hex} is not on the map")));
            }
            Ok(hex)
        };
        let known = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>().join(", ");
        for (name, hexes) in &raw.terrain {
            if !rs.terrain.contains_key(name) {
                return Err(self.err(
                    hexes.referenced,
                    format!("unknown terrain '{name}' in ruleset '{}' (terrain: {})", rs.name, known(&rs.terrain)),
                ));
            }
            for h in &hexes.value {
                let hex = hex_at(&world, h)?;
                if let Some(prev) = world.terrain(hex) {
                    return Err(self.err(h.referenced, format!("hex {hex} already has terrain '{prev}'")));
                }
                world.set_terrain(hex, Some(name));
            }
        }
        for (name, hexes) in &raw.tokens {
            if !rs.tokens.iter().any(|t| t == name) {
                return Err(self.err(
                    hexes.referenced,
                    format!("unknown token '{name}' in ruleset '{}' (tokens: {})", rs.name, rs.tokens.join(", ")),
                ));
            }
            for h in &hexes.value {
                let hex = hex_at(&world, h)?;
                world.add_token(hex, name);
            }
        }
        self.build_tabletop(rs, &mut world)?;
        // units
        for u in &raw.units {
            let r = &u.value;
            if !raw.sides.contains_key(&r.side.value) {
                return Err(
                    self.err(r.side.referenced, format!("no side named '{}' (sides: {})", r.side.value, side_names()))
                );
            }
            let Some(ty) = rs.unit_types.get(&r.kind.value) else {
                return Err(self.err(
                    r.kind.referenced,
                    format!(
                        "unknown unit type '{}' in ruleset '{}' (types: {})",
                        r.kind.value,
                        rs.name,
                        known(&rs.unit_types)
                    ),
                ));
            };
            let type_strength = ty.get("strength").and_then(Value::as_i64).map(|v| v as i32);
            let max = r.max.or(type_strength);
            let strength = r.strength.as_ref().map(|s| s.value).or(max);
            let (Some(strength), Some(max)) = (strength, max) else {
                return Err(self.err(
                    r.kind.referenced,
                    format!(
                        "unit '{}': give a strength (unit type '{}' has no default strength)",
                        r.id.value, r.kind.value
                    ),
                ));
            };
            // Strength 0 is an eliminated unit, which stands nowhere (saved battlefields keep them).
            let least = if r.hex.is_none() && r.at.is_none() { 0 } else { 1 };
            if strength < least || strength > max {
                let loc = r.strength.as_ref().map_or(u.referenced, |s| s.referenced);
                return Err(self.err(
                    loc,
                    format!("unit '{}': strength {strength} must be between {least} and {max}", r.id.value),
                ));
            }
            let pos = match (&r.hex, &r.at, &world.map) {
                (Some(h), None, Map::Hex { .. }) => Position::Hex(hex_at(&world, h)?),
                (None, Some(at), Map::Table { .. }) => {
                    let p = Point::new(at.value[0], at.value[1]);
                    if !world.on_table(p) {
                        return Err(self.err(at.referenced, format!("point {p} is off the table")));
                    }
                    let facing = r.facing.as_ref().map_or(0.0, |f| f.value);
                    if !facing.is_finite() {
                        let loc = r.facing.as_ref().map_or(u.referenced, |f| f.referenced);
                        return Err(self.err(
                            loc,
                            format!(
                                "unit '{}': facing must be a number of degrees, not {}",
                                r.id.value,
                                yaml_number(facing)
                            ),
                        ));
                    }
                    Position::Table { at: p, facing: crate::tabletop::normalise(facing) }
                }
                (None, None, _) => Position::Off,
                (_, _, Map::Hex { .. }) => return Err(self.err(u.referenced, "on a hex map a unit has `hex: [q, r]`")),
                (_, _, Map::Table { .. }) => {
                    return Err(
                        self.err(u.referenced, "on a tabletop a unit has `at: [x, y]` in cm (and `facing` in degrees)")
                    )
                }
            };
            let mut props = Vec::new();
            if let Some(f) = &r.formation {
                let Some(spec) = world.board.tabletop.bases.get(r.kind.value.as_str()) else {
                    return Err(self.err(
                        f.referenced,
                        format!("unit '{}': type '{}' has no base size, so no formations", r.id.value, r.kind.value),
                    ));
                };
                if spec.files(Some(&f.value)).is_none() {
                    return Err(self.err(
                        f.referenced,
                        format!(
                            "unit '{}': type '{}' has no formation '{}' (formations: {})",
                            r.id.value,
                            r.kind.value,
                            f.value,
                            spec.formations.iter().map(|f| &*f.0).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                }
                props.push((Rc::from("formation"), Prop::Str(f.value.as_str().into())));
            }
            for (k, v) in &r.props {
                let p = prop_from_json(v).ok_or_else(|| {
                    self.err(
                        u.referenced,
                        format!("unit '{}': prop '{k}' must be a number, true/false or text", r.id.value),
                    )
                })?;
                props.push((Rc::from(k.as_str()), p));
            }
            let mut unit = Unit {
                id: r.id.value.as_str().into(),
                side: r.side.value.as_str().into(),
                kind: r.kind.value.as_str().into(),
                strength,
                max_strength: max,
                leader: r.leader.as_deref().map(Rc::from),
                pos,
                props,
                bases: Vec::new(),
            };
            if let Some(b) = &r.bases {
                if !matches!(world.map, Map::Table { .. }) {
                    return Err(self.err(b.referenced, "`bases` are for tabletop units"));
                }
                if b.value.len() > crate::tabletop::MAX_BASES as usize {
                    return Err(self.err(b.referenced, "too many places for bases"));
                }
                unit.set_bases(b.value.clone()).map_err(|e| self.err(b.referenced, e))?;
            }
            world.add_unit(unit).map_err(|e| {
                let loc = match e {
                    crate::battlefield::WorldError::DuplicateUnit(_) => r.id.referenced,
                    _ => r.hex.as_ref().map_or(u.referenced, |h| h.referenced),
                };
                self.err(loc, e.to_string())
            })?;
        }
        world.turn = raw.turn.unwrap_or(1);
        for m in &raw.marks {
            let hex = Hex::new(m.value.hex[0], m.value.hex[1]);
            if !world.on_map(hex) {
                return Err(self.err(m.referenced, format!("mark '{}': hex {hex} is not on the map", m.value.label)));
            }
            world.marks.push((hex, m.value.label.as_str().into()));
        }
        for t in &raw.traces {
            world.traces.push(self.trace(&world, t)?);
        }
        world.log = crate::log::EventLog::new();
        Ok(world)
    }

    /// A saved trace, checked: a unit of the scenario, and each base as
    /// `[id, x, y, facing, width, depth]` with a whole id and finite numbers.
    fn trace(&self, world: &World, t: &Spanned<RawTrace>) -> Result<crate::tabletop::Trace, Box<LocatedError>> {
        let r = &t.value;
        let Ok(i) = world.unit_index(&r.unit) else {
            return Err(self.err(t.referenced, format!("trace '{}': no unit '{}'", r.label, r.unit)));
        };
        let mut bases = Vec::with_capacity(r.bases.len());
        for [id, x, y, facing, width, depth] in r.bases.iter().copied() {
            let whole = id.fract() == 0.0 && (1.0..=crate::tabletop::MAX_BASES as f64).contains(&id);
            let finite = [x, y, facing, width, depth].iter().all(|v| v.is_finite());
            if !whole || !finite || width < 0.0 || depth < 0.0 {
                return Err(self.err(
                    t.referenced,
                    format!(
                        "trace '{}' of unit '{}': a base is [id, x, y, facing, width, depth] (a whole id from 1, \
                         finite numbers, width and depth from 0)",
                        r.label, r.unit
                    ),
                ));
            }
            bases.push((id as u16, crate::tabletop::Base::new(Point::new(x, y), facing, width, depth)));
        }
        Ok(crate::tabletop::Trace {
            label: r.label.as_str().into(),
            unit: world.units[i].id.clone(),
            bases: bases.into(),
        })
    }

    /// A tabletop's terrain areas and the unit types' base sizes, checked.
    fn build_tabletop(&self, rs: &Ruleset, world: &mut World) -> Result<(), Box<LocatedError>> {
        let raw = &self.raw;
        let mut layout = crate::tabletop::Layout::default();
        for (name, ty) in &rs.unit_types {
            match crate::tabletop::terrain::base_spec(name, ty) {
                Ok(Some(spec)) => {
                    layout.bases.insert(name.as_str().into(), spec);
                }
                Ok(None) => {}
                Err(e) => return Err(self.ruleset_error(format!("ruleset '{}': {e}", rs.name))),
            }
        }
        let is_table = matches!(world.map, Map::Table { .. });
        for a in &raw.areas {
            let r = &a.value;
            if !is_table {
                return Err(
                    self.err(a.referenced, "`areas` are for tabletops; a hex map has `terrain: { kind: [hexes] }`")
                );
            }
            let Some(kind) = rs.terrain.get(&r.kind.value) else {
                return Err(self.err(
                    r.kind.referenced,
                    format!(
                        "unknown terrain '{}' in ruleset '{}' (terrain: {})",
                        r.kind.value,
                        rs.name,
                        rs.terrain.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ));
            };
            let mut points = Vec::new();
            for p in &r.points.value {
                let pt = Point::new(p.value[0], p.value[1]);
                if !world.on_table(pt) {
                    return Err(self.err(p.referenced, format!("point {pt} is off the table")));
                }
                points.push(pt);
            }
            let area = crate::tabletop::Area {
                kind: r.kind.value.as_str().into(),
                points,
                level: r.level.or_else(|| kind.get("level").and_then(Value::as_i64).map(|l| l as i32)).unwrap_or(0),
                cover: r
                    .cover
                    .as_ref()
                    .map(|c| c.value.clone())
                    .or_else(|| kind.get("cover").and_then(Value::as_str).map(str::to_string))
                    .map(|c| c.as_str().into()),
                name: r.name.as_deref().map(Rc::from),
            };
            if let Err(e) = crate::tabletop::terrain::check_outline(&area.points) {
                return Err(self.err(r.points.referenced, format!("area '{}': {e}", r.kind.value)));
            }
            if let (Some(c), Some(classes)) = (&r.cover, rs.charts.get("cover_classes").and_then(Value::as_array)) {
                if !classes.iter().any(|x| x.as_str() == Some(c.value.as_str())) {
                    return Err(self.err(
                        c.referenced,
                        format!(
                            "unknown cover class '{}' (cover_classes: {})",
                            c.value,
                            classes.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                }
            }
            layout.areas.push(area);
        }
        world.board = Rc::new(crate::battlefield::Board { tabletop: layout, ..(*world.board).clone() });
        Ok(())
    }

    /// Applies the scenario's `params:` (after its variant), each checked
    /// against the ruleset's param types; errors point at the value.
    pub fn apply_params(&self, rs: &mut Ruleset) -> Result<(), Box<LocatedError>> {
        for (key, v) in &self.raw.params {
            let text = match &v.value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            rs.set_param(&format!("{key}={text}")).map_err(|e| self.err(v.referenced, e.to_string()))?;
        }
        Ok(())
    }
}
