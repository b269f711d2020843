//! `:save`: the battlefield as scenario YAML that `:open` (and `--scenario`)
//! load back to the same world.
//!
//! It writes the scenario format of `src/scenario.rs`: map, sections, sides
//! and pools, whose turn it is, terrain, tokens, units (strength, leader,
//! props, a tabletop unit's bases by place, eliminated ones with strength 0),
//! the traces of where bases stood, plus the state a scenario file
//! otherwise would not carry: the turn number, param values changed from the
//! ruleset's defaults and variant, and the marks. What it cannot carry is
//! said in the file's header: the event log, dice queued with `:force`, and
//! the dice generator's position (dice restart from the saved seed).
//!
//! What it writes, `:open` reads: [`check_savable`] refuses a world holding a
//! number YAML cannot carry back (NaN or an infinity in a facing, a position,
//! a prop or an outline), naming the unit and field; long lists (terrain,
//! tokens, outlines, props) are wrapped over several lines; and the file is
//! written by [`crate::files::write`], whole or not at all, so a failed
//! write (a full disk) leaves the previous save whole.

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

/// Columns a written line aims to stay within (items longer than that get a line each).
const LINE: usize = 120;

/// A flow collection (`[a, b]` or `{ a, b }`) of `items`, wrapped at about
/// [`LINE`] columns; lines after the first start with `indent` spaces. `col`
/// is the column the collection starts at.
fn flow(items: &[String], open: &str, close: &str, col: usize, indent: usize) -> String {
    let mut out = String::from(open);
    let mut at = col + open.len();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
            at += 1;
            if at + 1 + item.len() > LINE {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                at = indent;
            } else {
                out.push(' ');
                at += 1;
            }
        }
        out.push_str(item);
        at += item.len();
    }
    out.push_str(close);
    out
}

fn hexes(list: &[Hex], col: usize) -> String {
    let items: Vec<String> = list.iter().map(|h| format!("[{}, {}]", h.q, h.r)).collect();
    flow(&items, "[", "]", col, 4)
}

/// A finite number as YAML reads it back exactly: an integer when it is
/// one, else Rust's shortest round-trip form (`0.1`, `1e20`, `1e-7`).
pub fn yaml_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n:?}")
    }
}

/// Refuses a world holding a number a save could not carry back (NaN or an
/// infinity): names where it is, so the person can fix it and save again.
pub fn check_savable(world: &World) -> Result<(), String> {
    let bad = |what: String, v: f64| {
        Err(format!(
            "{what} is {}: a save could not be opened again, so nothing was written; set it to a finite number and :save again",
            format_number(v)
        ))
    };
    if let Map::Table { width, height } = world.map {
        for (name, v) in [("width", width), ("height", height)] {
            if !v.is_finite() {
                return bad(format!("the table's {name}"), v);
            }
        }
    }
    for u in &world.units {
        if let Position::Table { at, facing } = u.pos {
            for (name, v) in [("x position", at.x), ("y position", at.y), ("facing", facing)] {
                if !v.is_finite() {
                    return bad(format!("unit '{}': its {name}", u.id), v);
                }
            }
        }
        let mut props: Vec<(&str, &Prop)> = u.props.iter().map(|(k, v)| (&**k, v)).collect();
        props.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in props {
            if let Prop::Num(n) = v {
                if !n.is_finite() {
                    return bad(format!("unit '{}': prop '{k}'", u.id), *n);
                }
            }
        }
    }
    for (i, a) in world.board.tabletop.areas.iter().enumerate() {
        for p in &a.points {
            for v in [p.x, p.y] {
                if !v.is_finite() {
                    let name = a.name.as_deref().map_or_else(|| format!("area {}", i + 1), |n| format!("area '{n}'"));
                    return bad(format!("{name}: a point of its outline"), v);
                }
            }
        }
    }
    Ok(())
}

/// How the file names its ruleset: by name when the search path finds it
/// by its name, else by a path relative to the saved file (or absolute, or
/// the bundled one's `(bundled)/...`).
fn ruleset_ref(rs: &Ruleset, target: &Path) -> String {
    use crate::layers::files;
    let same = |p: &Path| files::canonical(p) == files::canonical(&rs.dir.join("ruleset.yaml"));
    if let Some(folder) = rs.dir.file_name().and_then(|n| n.to_str()) {
        if crate::ruleset::find(folder).is_ok_and(|p| same(&p)) {
            return folder.to_string();
        }
    }
    if files::is_bundled(&rs.dir) {
        return rs.dir.display().to_string();
    }
    let dir = files::canonical(&rs.dir);
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
            let _ = writeln!(y, "map: {{ width: {}, height: {} }}", yaml_number(width), yaml_number(height));
        }
    }
    if !world.sections.is_empty() {
        let items: Vec<String> = world
            .sections
            .iter()
            .map(|s| format!("{}: [{}, {}]", yaml_str(&s.name), s.first_col, s.last_col))
            .collect();
        let _ = writeln!(y, "sections: {}", flow(&items, "{ ", " }", 10, 4));
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
                parts.push(format!("pools: {}", flow(&p, "{ ", " }", 4, 8)));
            }
            let _ = writeln!(y, "  {}: {}", yaml_str(&s.name), flow(&parts, "{ ", " }", 4, 6));
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
            let key = yaml_str(t);
            let _ = writeln!(y, "  {key}: {}", hexes(&list, key.len() + 4));
        }
    }
    let mut tokens: BTreeMap<&str, Vec<Hex>> = BTreeMap::new();
    for (h, t) in world.tokens.iter() {
        tokens.entry(t).or_default().push(h);
    }
    if !tokens.is_empty() {
        let _ = writeln!(y, "tokens:");
        for (t, list) in tokens {
            let key = yaml_str(t);
            let _ = writeln!(y, "  {key}: {}", hexes(&list, key.len() + 4));
        }
    }
    if !world.board.tabletop.areas.is_empty() {
        let _ = writeln!(y, "areas:");
        for a in &world.board.tabletop.areas {
            let pts: Vec<String> =
                a.points.iter().map(|p| format!("[{}, {}]", yaml_number(p.x), yaml_number(p.y))).collect();
            let mut parts =
                vec![format!("kind: {}", yaml_str(&a.kind)), format!("points: {}", flow(&pts, "[", "]", 12, 6))];
            parts.push(format!("level: {}", a.level));
            if let Some(c) = &a.cover {
                parts.push(format!("cover: {}", yaml_str(c)));
            }
            if let Some(n) = &a.name {
                parts.push(format!("name: {}", yaml_str(n)));
            }
            let _ = writeln!(y, "  - {}", flow(&parts, "{ ", " }", 4, 6));
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
                    parts.push(format!("at: [{}, {}]", yaml_number(at.x), yaml_number(at.y)));
                    parts.push(format!("facing: {}", yaml_number(facing)));
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
                            Prop::Num(n) => yaml_number(*n),
                            Prop::Str(s) => yaml_str(s),
                        };
                        format!("{}: {val}", yaml_str(k))
                    })
                    .collect();
                parts.push(format!("props: {}", flow(&p, "{ ", " }", 4, 8)));
            }
            if !u.bases.is_empty() {
                let ids: Vec<String> = u.bases.iter().map(u16::to_string).collect();
                parts.push(format!("bases: {}", flow(&ids, "[", "]", 12, 8)));
            }
            let _ = writeln!(y, "  - {}", flow(&parts, "{ ", " }", 4, 6));
        }
    }
    if !world.marks.is_empty() {
        let _ = writeln!(y, "marks:");
        for (h, label) in &world.marks {
            let _ = writeln!(y, "  - {{ hex: [{}, {}], label: {} }}", h.q, h.r, yaml_str(label));
        }
    }
    if !world.traces.is_empty() {
        let _ = writeln!(y, "traces:");
        for t in &world.traces {
            let bases: Vec<String> = t
                .bases
                .iter()
                .map(|(id, b)| {
                    let n = [b.centre.x, b.centre.y, b.facing, b.width, b.depth].map(yaml_number);
                    format!("[{id}, {}]", n.join(", "))
                })
                .collect();
            let parts = vec![
                format!("unit: {}", yaml_str(&t.unit)),
                format!("label: {}", yaml_str(&t.label)),
                format!("bases: {}", flow(&bases, "[", "]", 12, 8)),
            ];
            let _ = writeln!(y, "  - {}", flow(&parts, "{ ", " }", 4, 6));
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

    #[test]
    fn a_world_holding_nan_or_infinity_is_not_saved() {
        // The Lua API refuses such numbers; this guard keeps a save openable
        // whatever put them there.
        let mut world = World::new(Map::Table { width: 100.0, height: 80.0 });
        let mut unit = crate::unit::Unit {
            id: "a".into(),
            side: "blue".into(),
            kind: "infantry".into(),
            strength: 1,
            max_strength: 1,
            leader: None,
            pos: Position::Table { at: crate::tabletop::Point::new(1.0, 2.0), facing: f64::NAN },
            props: Vec::new(),
            bases: Vec::new(),
        };
        world.units.push(unit.clone());
        let err = check_savable(&world).unwrap_err();
        assert!(err.starts_with("unit 'a': its facing is NaN"), "{err}");
        unit.pos = Position::Table { at: crate::tabletop::Point::new(1.0, 2.0), facing: 0.0 };
        unit.props.push(("morale".into(), Prop::Num(f64::INFINITY)));
        world.units[0] = unit;
        let err = check_savable(&world).unwrap_err();
        assert!(err.starts_with("unit 'a': prop 'morale' is inf"), "{err}");
        world.units[0].props.clear();
        assert!(check_savable(&world).is_ok());
    }

    #[test]
    fn numbers_read_back_exactly() {
        for n in [0.0, 4.0, -3.0, 0.1, 1.0 / 3.0, 1e20, -1e-7, 123_456.789, f64::MAX, f64::MIN_POSITIVE] {
            let text = yaml_number(n);
            let back: f64 = serde_saphyr::from_str(&text).unwrap_or(f64::NAN);
            assert_eq!(back, n, "{n} written as {text}");
        }
    }

    #[test]
    fn long_lists_wrap() {
        let list: Vec<Hex> = (0..1000).map(|i| Hex::new(i, -i)).collect();
        let text = hexes(&list, 9);
        assert!(text.lines().count() > 50);
        assert!(text.lines().all(|l| l.len() <= LINE + 1), "{text}");
        let back: Vec<[i32; 2]> = serde_saphyr::from_str(&text).unwrap_or_default();
        assert_eq!(back.len(), 1000);
        assert_eq!(back[999], [999, -999]);
    }
}
