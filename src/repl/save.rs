//! `:save`: the battlefield as scenario YAML that `:open` (and `--scenario`)
//! load back to the same world.
//!
//! It writes the scenario format of `src/scenario.rs`: map, sections, sides
//! and pools, whose turn it is, terrain, tokens, units (strength, leader,
//! props, eliminated ones with strength 0), plus the state a scenario file
//! otherwise would not carry: the turn number, param values changed from the
//! ruleset's defaults and variant, and the marks. What it cannot carry is
//! said in the file's header: the event log, dice queued with `:force`, and
//! the dice generator's position (dice restart from the saved seed).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::battlefield::{Map, World};
use crate::hex::Hex;
use crate::lua::format_number;
use crate::ruleset::Ruleset;
use crate::unit::{Position, Prop};

/// What a save needs besides the world.
pub struct SaveInfo<'a> {
    /// The scenario's name.
    pub name: &'a str,
    /// The ruleset, for its name, variant and changed params.
    pub ruleset: Option<&'a Ruleset>,
    /// The seed the dice restart from.
    pub seed: Option<u64>,
    /// Where the world came from, for the header.
    pub source: Option<&'a Path>,
    /// The file being written, so a ruleset outside `rulesets/` is named relative to it.
    pub target: &'a Path,
}

/// A YAML scalar for text: plain when that reads back as the same string,
/// double-quoted (JSON style, which YAML accepts) otherwise.
pub fn yaml_str(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ' | '/'))
        && !s.ends_with(' ')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n" | "nan" | "inf"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    }
}

fn yaml_json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => yaml_str(s),
        other => other.to_string(),
    }
}

fn hexes(list: &[Hex]) -> String {
    let items: Vec<String> = list.iter().map(|h| format!("[{}, {}]", h.q, h.r)).collect();
    format!("[{}]", items.join(", "))
}

/// How the file names its ruleset: by name when `rulesets/<name>` finds it,
/// else by a path relative to the saved file (or absolute).
fn ruleset_ref(rs: &Ruleset, target: &Path) -> String {
    let same = |p: &Path| p.canonicalize().ok() == rs.dir.join("ruleset.yaml").canonicalize().ok();
    if let Some(folder) = rs.dir.file_name().and_then(|n| n.to_str()) {
        if crate::ruleset::find(folder).is_ok_and(|p| same(&p)) {
            return folder.to_string();
        }
    }
    let dir = rs.dir.canonicalize().unwrap_or_else(|_| rs.dir.clone());
    let base = target.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    if let Some(base) = base.and_then(|b| b.canonicalize().ok()) {
        if let Ok(rel) = dir.strip_prefix(&base) {
            let rel = rel.display().to_string();
            return if rel.is_empty() { ".".into() } else { format!("./{rel}") };
        }
        // A sibling or cousin folder: climb with `..`.
        let mut up = base.as_path();
        let mut climbs = 0;
        while let Some(parent) = up.parent() {
            climbs += 1;
            up = parent;
            if let Ok(rel) = dir.strip_prefix(up) {
                return format!("{}{}", "../".repeat(climbs), rel.display());
            }
        }
    }
    dir.display().to_string()
}

/// Param values that differ from the ruleset's defaults with its variant applied.
fn changed_params(rs: &Ruleset) -> Vec<(String, serde_json::Value)> {
    let variant_set: BTreeMap<&str, &serde_json::Value> = rs
        .variant
        .as_ref()
        .and_then(|v| rs.variants.get(v))
        .map(|v| v.set.iter().map(|(k, val)| (k.as_str(), val)).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (module, defs) in &rs.params {
        for (name, def) in defs {
            let key = format!("{module}.{name}");
            let expected = variant_set.get(key.as_str()).copied().unwrap_or(&def.default);
            if let Some(v) = rs.value(&key) {
                if v != expected {
                    out.push((key, v.clone()));
                }
            }
        }
    }
    out
}

/// A Lua string literal.
pub fn lua_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The world as scenario YAML.
#[expect(clippy::too_many_lines, reason = "writes the scenario YAML section by section, in the order the file is read")]
pub fn scenario_yaml(world: &World, info: &SaveInfo) -> String {
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# A battlefield saved by the sandtable REPL{}.",
        info.source.map(|p| format!(" (from {})", p.display())).unwrap_or_default()
    );
    let _ = writeln!(y, "# Open it with `:open FILE` or `sandtable repl --scenario FILE`. Not saved: the");
    let _ = writeln!(y, "# event log, dice queued with :force, and how far the dice had rolled (they");
    let _ = writeln!(y, "# restart from `seed`).");
    let _ = writeln!(y, "name: {}", yaml_str(info.name));
    if let Some(rs) = info.ruleset {
        let _ = writeln!(y, "ruleset: {}", yaml_str(&ruleset_ref(rs, info.target)));
        if let Some(v) = &rs.variant {
            let _ = writeln!(y, "variant: {}", yaml_str(v));
        }
        let params = changed_params(rs);
        if !params.is_empty() {
            let _ = writeln!(y, "params:");
            for (k, v) in params {
                let _ = writeln!(y, "  {}: {}", yaml_str(&k), yaml_json(&v));
            }
        }
    }
    if let Some(seed) = info.seed {
        let _ = writeln!(y, "seed: {seed}");
    }
    let _ = writeln!(y, "turn: {}", world.turn);
    match world.map {
        Map::Hex { cols, rows, offset } => {
            let _ = writeln!(y, "map: {{ cols: {cols}, rows: {rows}, offset: {} }}", offset.name());
        }
        Map::Table { width, height } => {
            let _ = writeln!(y, "map: {{ width: {}, height: {} }}", format_number(width), format_number(height));
        }
    }
    if !world.sections.is_empty() {
        let items: Vec<String> = world
            .sections
            .iter()
            .map(|s| format!("{}: [{}, {}]", yaml_str(&s.name), s.first_col, s.last_col))
            .collect();
        let _ = writeln!(y, "sections: {{ {} }}", items.join(", "));
    }
    if !world.sides.is_empty() {
        let _ = writeln!(y, "sides:");
        for s in &world.sides {
            let mut parts = Vec::new();
            if let Some(b) = s.baseline {
                parts.push(format!("baseline: {}", b.name()));
            }
            let mut pools: Vec<(&str, i64)> = s.pools.iter().map(|(k, v)| (&**k, *v)).collect();
            pools.sort();
            if !pools.is_empty() {
                let p: Vec<String> = pools.iter().map(|(k, v)| format!("{}: {v}", yaml_str(k))).collect();
                parts.push(format!("pools: {{ {} }}", p.join(", ")));
            }
            let _ = writeln!(y, "  {}: {{ {} }}", yaml_str(&s.name), parts.join(", "));
        }
    }
    if let Some(first) = &world.current_side {
        let _ = writeln!(y, "first: {}", yaml_str(first));
    }
    let mut terrain: BTreeMap<&str, Vec<Hex>> = BTreeMap::new();
    for (h, t) in &world.board.terrain {
        terrain.entry(t).or_default().push(*h);
    }
    if !terrain.is_empty() {
        let _ = writeln!(y, "terrain:");
        for (t, list) in terrain {
            let _ = writeln!(y, "  {}: {}", yaml_str(t), hexes(&list));
        }
    }
    let mut tokens: BTreeMap<&str, Vec<Hex>> = BTreeMap::new();
    for (h, t) in world.tokens.iter() {
        tokens.entry(t).or_default().push(h);
    }
    if !tokens.is_empty() {
        let _ = writeln!(y, "tokens:");
        for (t, list) in tokens {
            let _ = writeln!(y, "  {}: {}", yaml_str(t), hexes(&list));
        }
    }
    if !world.board.tabletop.areas.is_empty() {
        let _ = writeln!(y, "areas:");
        for a in &world.board.tabletop.areas {
            let pts: Vec<String> =
                a.points.iter().map(|p| format!("[{}, {}]", format_number(p.x), format_number(p.y))).collect();
            let mut parts = vec![format!("kind: {}", yaml_str(&a.kind)), format!("points: [{}]", pts.join(", "))];
            parts.push(format!("level: {}", a.level));
            if let Some(c) = &a.cover {
                parts.push(format!("cover: {}", yaml_str(c)));
            }
            if let Some(n) = &a.name {
                parts.push(format!("name: {}", yaml_str(n)));
            }
            let _ = writeln!(y, "  - {{ {} }}", parts.join(", "));
        }
    }
    if !world.units.is_empty() {
        let _ = writeln!(y, "units:");
        for u in &world.units {
            let mut parts = vec![
                format!("id: {}", yaml_str(&u.id)),
                format!("side: {}", yaml_str(&u.side)),
                format!("type: {}", yaml_str(&u.kind)),
            ];
            match u.pos {
                Position::Hex(h) => parts.push(format!("hex: [{}, {}]", h.q, h.r)),
                Position::Table { at, facing } => {
                    parts.push(format!("at: [{}, {}]", format_number(at.x), format_number(at.y)));
                    parts.push(format!("facing: {}", format_number(facing)));
                }
                Position::Off => {}
            }
            parts.push(format!("strength: {}", u.strength));
            parts.push(format!("max: {}", u.max_strength));
            if let Some(l) = &u.leader {
                parts.push(format!("leader: {}", yaml_str(l)));
            }
            if !u.props.is_empty() {
                let mut props: Vec<(&str, &Prop)> = u.props.iter().map(|(k, v)| (&**k, v)).collect();
                props.sort_by(|a, b| a.0.cmp(b.0));
                let p: Vec<String> = props
                    .iter()
                    .map(|(k, v)| {
                        let val = match v {
                            Prop::Bool(b) => b.to_string(),
                            Prop::Num(n) => format_number(*n),
                            Prop::Str(s) => yaml_str(s),
                        };
                        format!("{}: {val}", yaml_str(k))
                    })
                    .collect();
                parts.push(format!("props: {{ {} }}", p.join(", ")));
            }
            let _ = writeln!(y, "  - {{ {} }}", parts.join(", "));
        }
    }
    if !world.marks.is_empty() {
        let _ = writeln!(y, "marks:");
        for (h, label) in &world.marks {
            let _ = writeln!(y, "  - {{ hex: [{}, {}], label: {} }}", h.q, h.r, yaml_str(label));
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_quote_only_when_needed() {
        assert_eq!(yaml_str("allies"), "allies");
        assert_eq!(yaml_str("machine_gun"), "machine_gun");
        assert_eq!(yaml_str("yes"), "\"yes\"");
        assert_eq!(yaml_str("3"), "\"3\"");
        assert_eq!(yaml_str("a: b"), "\"a: b\"");
        assert_eq!(yaml_str("#1"), "\"#1\"");
        assert_eq!(yaml_str(""), "\"\"");
        assert_eq!(yaml_str("it's \"x\""), "\"it's \\\"x\\\"\"");
    }
}
