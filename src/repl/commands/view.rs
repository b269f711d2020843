//! The commands that only look: `:map`, `:units`, `:sides`, `:log` (and the
//! line of sight `:map` draws).

use super::*;
use crate::render::{pools_text, side_pools};

impl Session {
    /// What the loaded ruleset says about drawing its pieces (`draw:`).
    pub(crate) fn draw_hints(&self) -> crate::render::Draw {
        self.host.state.ruleset.borrow().as_ref().map(|r| r.draw.clone()).unwrap_or_default()
    }

    /// Asks the ruleset (through Lua, so a custom rule counts) whether a sees b.
    pub(super) fn line_of_sight(&self, a: Hex, b: Hex) -> Result<LosLine, CmdError> {
        let r = self.host.guarded(|lua| {
            let world: Table = lua.globals().get("world")?;
            let los: Function = world.get("los")?;
            let (clear, blocker): (bool, Value) = los.call((world.clone(), hex_value(a), hex_value(b)))?;
            let blocker = match blocker {
                Value::Nil => None,
                v => Some(crate::lua::hex_from_value(&v)?),
            };
            Ok((clear, blocker))
        });
        let (clear, blocker) = r.map_err(|e| CmdError::Script(ScriptError::from_lua(&e)))?;
        Ok(LosLine { from: a, to: b, clear, blocker })
    }

    pub(super) fn map(&mut self, args: &[String]) -> Result<(), CmdError> {
        let mut svg_file: Option<PathBuf> = None;
        let mut los: Option<(String, String)> = None;
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "--svg" => {
                    svg_file = Some(args.get(i + 1).ok_or_else(|| Self::usage("map"))?.into());
                    i += 2;
                }
                "--los" => {
                    let (a, b) = (args.get(i + 1), args.get(i + 2));
                    match (a, b) {
                        (Some(a), Some(b)) => los = Some((a.clone(), b.clone())),
                        _ => return Err(CmdError::Text("usage: :map --los A B (hexes as q,r or unit ids)".into())),
                    }
                    i += 3;
                }
                other => {
                    return Err(CmdError::Text(format!("unknown option '{other}' (:map [--svg FILE] [--los A B])")))
                }
            }
        }
        let los = match los {
            Some((a, b)) => {
                let (ha, hb) = {
                    let w = self.host.state.world.borrow();
                    // The line is drawn on the map: both ends must be on it.
                    let on_map = |given: &str| -> Result<Hex, CmdError> {
                        let h = parse_hex(&w, given).map_err(CmdError::Text)?;
                        if !w.on_map(h) {
                            let map = match w.map {
                                Map::Hex { cols, rows, offset } => {
                                    format!("{cols} columns by {rows} rows, {}", offset.name())
                                }
                                Map::Table { .. } => "a tabletop, which has no hexes".into(),
                            };
                            return Err(CmdError::Text(format!(":map --los: hex {h} is not on the map ({map})")));
                        }
                        Ok(h)
                    };
                    (on_map(&a)?, on_map(&b)?)
                };
                Some(self.line_of_sight(ha, hb)?)
            }
            None => None,
        };
        if let Some(l) = &los {
            self.live_los(l);
        }
        let verdict = los.as_ref().map(|l| match (l.clear, l.blocker) {
            (true, _) => format!("line of sight {} -> {}: clear", l.from, l.to),
            (false, Some(b)) => format!("line of sight {} -> {}: blocked at {b}", l.from, l.to),
            (false, None) => format!("line of sight {} -> {}: blocked", l.from, l.to),
        });
        if let Some(path) = svg_file {
            let text = {
                let w = self.host.state.world.borrow();
                let opts = SvgOptions {
                    title: Some(self.scenario_name.clone()).filter(|t| !t.is_empty()),
                    los,
                    draw: self.draw_hints(),
                    earlier: None,
                };
                svg::render(&w, &opts)
            };
            crate::files::write(&path, text.as_bytes())
                .map_err(|e| CmdError::Text(format!("cannot write {}: {e}", path.display())))?;
            let verdict = verdict.map(|v| format!(" ({v})")).unwrap_or_default();
            self.say(&format!("wrote {}{verdict}", path.display()));
            return Ok(());
        }
        let text = {
            let w = self.host.state.world.borrow();
            let opts = MapOptions { color: self.color, width: self.width, draw: self.draw_hints() };
            match &los {
                // Show the line on a copy: the crossed hexes, its ends, the blocker.
                Some(l) => {
                    let mut copy = w.clone();
                    copy.marks.clear();
                    for (h, _) in crate::hex::los_hexes(l.from, l.to) {
                        if h != l.from && h != l.to {
                            copy.marks.push((h, ".".into()));
                        }
                    }
                    copy.marks.push((l.from, "A".into()));
                    copy.marks.push((l.to, "B".into()));
                    if let Some(b) = l.blocker {
                        copy.marks.retain(|(h, _)| *h != b);
                        copy.marks.push((b, "X".into()));
                    }
                    terminal::render(&copy, &opts)
                }
                None => terminal::render(&w, &opts),
            }
        };
        self.say(&text);
        if let Some(v) = verdict {
            self.say(&v);
        }
        Ok(())
    }

    pub(super) fn units(&mut self, side: Option<&str>) -> Result<(), CmdError> {
        let w = self.host.state.world.borrow();
        if let Some(s) = side {
            w.side_index(s).map_err(|e| CmdError::Text(e.to_string()))?;
        }
        let rows: Vec<[String; 7]> = w
            .units
            .iter()
            .filter(|u| side.is_none_or(|s| &*u.side == s))
            .map(|u| {
                let pos = match u.pos {
                    Position::Off if u.strength == 0 => "eliminated".to_string(),
                    p => p.to_string(),
                };
                let props: Vec<String> = u.props.iter().map(|(k, v)| format!("{k}={v}")).collect();
                [
                    u.id.to_string(),
                    u.side.to_string(),
                    u.kind.to_string(),
                    format!("{}/{}", u.strength, u.max_strength),
                    pos,
                    u.leader.as_deref().unwrap_or("").to_string(),
                    props.join(" "),
                ]
            })
            .collect();
        let pools: Vec<(String, Vec<(String, i64)>)> =
            side_pools(&w).into_iter().filter(|(n, _)| side.is_none_or(|s| n == s)).collect();
        drop(w);
        let mut out = if rows.is_empty() {
            "(no units)\n".to_string()
        } else {
            text_table(&["id", "side", "type", "strength", "at", "leader", "props"], &rows, self.color)
        };
        // The sides' pools (HQ tokens, medals, ...) under the units.
        for (name, p) in &pools {
            let _ = writeln!(out, "  pools of {name}: {}", pools_text(p));
        }
        self.say(&out);
        Ok(())
    }

    /// `:sides`: each side with its units, baseline, whose turn it is and its
    /// pools (HQ tokens, medals, battery strength, victory banners, ...).
    pub(super) fn sides(&mut self) -> Result<(), CmdError> {
        let w = self.host.state.world.borrow();
        let rows: Vec<[String; 4]> = w
            .sides
            .iter()
            .map(|s| {
                let mine = || w.units.iter().filter(|u| u.side == s.name);
                let name = if w.current_side.as_deref() == Some(&*s.name) {
                    format!("{} (to play)", s.name)
                } else {
                    s.name.to_string()
                };
                [
                    name,
                    format!("{}/{}", mine().filter(|u| u.alive()).count(), mine().count()),
                    s.baseline.map_or("-", |b| b.name()).to_string(),
                    if s.pools.is_empty() {
                        "-".to_string()
                    } else {
                        s.pools.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
                    },
                ]
            })
            .collect();
        let turn = w.turn;
        drop(w);
        if rows.is_empty() {
            self.say("(no sides)");
            return Ok(());
        }
        let mut out = text_table(&["side", "units", "baseline", "pools"], &rows, self.color);
        let _ = writeln!(out, "  turn {turn}; units: on the battlefield/all; world:pool(side, name) reads a pool");
        self.say(&out);
        Ok(())
    }

    pub(super) fn log(&mut self, args: &[String]) -> Result<(), CmdError> {
        let n = match args.first() {
            None => 20,
            Some(a) => a.parse::<usize>().map_err(|_| Self::usage("log"))?,
        };
        let w = self.host.state.world.borrow();
        let total = w.log.events.len();
        if total == 0 {
            drop(w);
            self.say("(no events yet)");
            return Ok(());
        }
        let mut out = String::new();
        let first = total.saturating_sub(n);
        if first > 0 {
            let _ = writeln!(out, "  … {first} earlier event{}", if first == 1 { "" } else { "s" });
        }
        for (i, e) in w.log.events.iter().enumerate().skip(first) {
            let _ = writeln!(out, "  {:>4}  {e}", i + 1);
        }
        drop(w);
        self.say(&out);
        Ok(())
    }
}

/// A table with a bold header (on a terminal), columns as wide as their widest cell.
fn text_table<const N: usize>(header: &[&str; N], rows: &[[String; N]], color: bool) -> String {
    let mut widths = header.map(str::len);
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::from(" ");
        for (i, c) in cells.iter().enumerate() {
            let _ = write!(s, " {:<w$}", c, w = widths[i]);
        }
        s.trim_end().to_string()
    };
    let mut out = String::new();
    let head = line(&header.map(String::from));
    if color {
        let _ = writeln!(out, "\x1b[1m{head}\x1b[0m");
    } else {
        let _ = writeln!(out, "{head}");
    }
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
    out
}
