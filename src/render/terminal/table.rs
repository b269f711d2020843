//! The terminal picture of a tabletop (centimetre positions, bases as
//! rectangles) that `:map` prints when the map is a table.

use super::*;

/// A tabletop has no hexes: a coarse grid scaled to the table shows terrain
/// areas (their key letter, `^` for ground above level 0), marked arcs and
/// zones (`.`), marked lines (`*`) and the units' bases (side letter; `x` for
/// an eliminated unit), then lists units, areas and marks exactly.
#[expect(
    clippy::too_many_lines,
    reason = "draws the coarse grid and then its lists of units, areas and marks, all from one scale"
)]
pub(super) fn render_table(world: &World, width: f64, height: f64, opts: &MapOptions) -> String {
    use crate::tabletop::{Point, Segment};
    let cols = opts.width.clamp(30, 100) - 4;
    let rows = ((cols as f64) * height / width / 2.0).round().clamp(4.0, 40.0) as usize;
    let (cw, ch) = (width / cols as f64, height / rows as f64);
    let centre = |x: usize, y: usize| Point::new((x as f64 + 0.5) * cw, (y as f64 + 0.5) * ch);
    let cell = |p: Point| {
        (
            ((p.x / cw).floor().clamp(0.0, (cols - 1) as f64)) as usize,
            ((p.y / ch).floor().clamp(0.0, (rows - 1) as f64)) as usize,
        )
    };
    let letters = side_letters(world);
    let layout = &world.board.tabletop;
    let mut grid = vec![vec![' '; cols]; rows];
    // Terrain areas, lower levels first.
    let kinds: Vec<&str> = {
        let mut k: Vec<&str> = layout.areas.iter().map(|a| &*a.kind).collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    let keys = abbreviate(&kinds, 1);
    let mut order: Vec<usize> = (0..layout.areas.len()).collect();
    order.sort_by_key(|&i| layout.areas[i].level);
    let kind_names: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
    // An area's key: its kind's letter, or `^` for raised ground.
    let area_key = |a: &crate::tabletop::Area| {
        if a.level > 0 && a.cover.is_none() {
            '^'
        } else {
            abbrev_of(&kind_names, &keys, &a.kind).chars().next().unwrap_or('?')
        }
    };
    for &i in &order {
        let a = &layout.areas[i];
        let key = area_key(a);
        for (y, row) in grid.iter_mut().enumerate() {
            for (x, c) in row.iter_mut().enumerate() {
                if a.contains(centre(x, y)) {
                    *c = key;
                }
            }
        }
    }
    // Marks.
    for m in &world.table_marks {
        if m.closed && m.points.len() > 2 {
            let area =
                crate::tabletop::Area { kind: "".into(), points: m.points.clone(), level: 0, cover: None, name: None };
            for (y, row) in grid.iter_mut().enumerate() {
                for (x, c) in row.iter_mut().enumerate() {
                    if area.contains(centre(x, y)) {
                        *c = '.';
                    }
                }
            }
        } else {
            for w2 in m.points.windows(2) {
                let seg = Segment::new(w2[0], w2[1]);
                let steps = (seg.length() / cw.min(ch) * 2.0).ceil().max(1.0) as usize;
                for k in 0..=steps {
                    let t = k as f64 / steps as f64;
                    let (x, y) = cell(seg.a.plus(seg.b.minus(seg.a).scale(t)));
                    grid[y][x] = '*';
                }
            }
        }
    }
    let mut lines = Vec::new();
    for u in &world.units {
        if let Position::Table { at, facing } = u.pos {
            let letter = letters.iter().find(|(n, _)| **n == *u.side).map_or('?', |(_, l)| *l);
            let mark = if u.alive() { letter } else { 'x' };
            let mut bases_note = String::new();
            if let Ok((bases, foot)) = layout.unit_bases(u) {
                for (y, row) in grid.iter_mut().enumerate() {
                    for (x, c) in row.iter_mut().enumerate() {
                        if bases.iter().any(|b| b.contains(centre(x, y))) {
                            *c = mark;
                        }
                    }
                }
                let formation = match u.prop("formation") {
                    Some(crate::unit::Prop::Str(f)) => f.to_string(),
                    _ => layout
                        .bases
                        .get(&u.kind)
                        .and_then(|s| s.formations.first())
                        .map_or(String::new(), |f| f.0.to_string()),
                };
                let _ = write!(
                    bases_note,
                    ", {} base{} in {formation}, {} x {} cm",
                    bases.len(),
                    if bases.len() == 1 { "" } else { "s" },
                    crate::lua::format_number((foot.width * 10.0).round() / 10.0),
                    crate::lua::format_number((foot.depth * 10.0).round() / 10.0)
                );
            }
            let (x, y) = cell(at);
            grid[y][x] = mark;
            lines.push(format!(
                "  {letter} {} [{} {}] {}/{} at ({}, {}) cm facing {}{bases_note}",
                u.id,
                u.side,
                u.kind,
                u.strength,
                u.max_strength,
                crate::lua::format_number(at.x),
                crate::lua::format_number(at.y),
                crate::lua::format_number(facing)
            ));
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "tabletop {} x {} cm (one character ~ {} cm across)",
        crate::lua::format_number(width),
        crate::lua::format_number(height),
        crate::lua::format_number((cw * 10.0).round() / 10.0)
    );
    let _ = writeln!(out, "  +{}+", "-".repeat(cols));
    for row in grid {
        let _ = writeln!(out, "  |{}|", row.into_iter().collect::<String>());
    }
    let _ = writeln!(out, "  +{}+", "-".repeat(cols));
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    for a in &layout.areas {
        let key = area_key(a);
        let _ = writeln!(
            out,
            "  {key} {}{} level {}{}",
            a.kind,
            a.name.as_deref().map_or(String::new(), |n| format!(" \"{n}\"")),
            a.level,
            a.cover.as_deref().map_or(String::new(), |c| format!(", {c} cover"))
        );
    }
    for m in &world.table_marks {
        let _ = writeln!(out, "  {} mark: {}", if m.closed { '.' } else { '*' }, m.label);
    }
    for (side, pools) in crate::render::side_pools(world) {
        let _ = writeln!(out, "  pools of {side}: {}", crate::render::pools_text(&pools));
    }
    out
}
