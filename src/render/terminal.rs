//! The terminal hex map that `:map` prints.
//!
//! Hexes are pointy-top, drawn where their axial coordinates put them (so a
//! map of any offset layout keeps its true shape), with shared edges:
//!
//! ```text
//!        0     1     2
//!      / \   / \   / \
//!  0  |Ain4 |  2,0|  Cin3|
//!     |tr  W|     |wo    |
//!      \   / \   / \   / \
//! ```
//!
//! The first line inside a hex is its unit (side letter, type, strength, `*`
//! for a leader) or, when empty, its axial `q,r` — what `hex(q, r)` takes, so
//! a designer can read coordinates straight off the map. The second line is
//! the terrain and the tokens. A mark sits at the hex's top point; bars drawn
//! as `:` are section lines. Hexes are six characters apart, or four when
//! that does not fit the terminal. Colours (terrain as background, units in
//! their side's colour) only when asked for; the text alone carries
//! everything, so a piped map reads the same.

use std::fmt::Write as _;

use super::{
    abbrev_of, abbreviate, marks_at, offset_kind, section_bar, side_index, side_letters, terrain_colour, unit_on,
    Names, SIDE_ANSI,
};
use crate::battlefield::{Map, World};
use crate::hex::{Hex, OffsetKind};
use crate::unit::Position;

/// How to draw the map.
#[derive(Clone, Debug)]
pub struct MapOptions {
    /// ANSI colours (only on a terminal, and not under `NO_COLOR`).
    pub color: bool,
    /// Columns available; the map narrows its hexes to fit when it can.
    pub width: usize,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions { color: false, width: 100 }
    }
}

#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Style {
    fg: Option<u8>,
    bg: Option<u8>,
    bold: bool,
}

impl Style {
    const PLAIN: Style = Style { fg: None, bg: None, bold: false };
    fn fg(c: u8) -> Style {
        Style { fg: Some(c), ..Style::PLAIN }
    }
    fn on(self, bg: Option<u8>) -> Style {
        Style { bg: bg.or(self.bg), ..self }
    }
    fn bold(self) -> Style {
        Style { bold: true, ..self }
    }
    fn sgr(self) -> String {
        let mut codes = vec!["0".to_string()];
        if self.bold {
            codes.push("1".into());
        }
        if let Some(f) = self.fg {
            codes.push(format!("38;5;{f}"));
        }
        if let Some(b) = self.bg {
            codes.push(format!("48;5;{b}"));
        }
        format!("\x1b[{}m", codes.join(";"))
    }
}

const EDGE: u8 = 245;
const SECTION: u8 = 220;
const DIM: u8 = 244;
const TOKEN: u8 = 231;

/// A grid of styled characters that grows as it is written.
#[derive(Default)]
struct Canvas {
    rows: Vec<Vec<(char, Style)>>,
}

impl Canvas {
    fn put(&mut self, x: usize, y: usize, ch: char, style: Style) {
        if self.rows.len() <= y {
            self.rows.resize_with(y + 1, Vec::new);
        }
        let row = &mut self.rows[y];
        if row.len() <= x {
            row.resize(x + 1, (' ', Style::PLAIN));
        }
        row[x] = (ch, style);
    }

    fn text(&mut self, x: usize, y: usize, s: &str, style: Style) {
        for (i, ch) in s.chars().enumerate() {
            self.put(x + i, y, ch, style);
        }
    }

    /// Paints the background of cells without changing their characters.
    fn fill_bg(&mut self, x: usize, y: usize, n: usize, bg: u8) {
        for i in 0..n {
            self.put(x + i, y, ' ', Style::PLAIN.on(Some(bg)));
        }
    }

    fn render(&self, color: bool) -> String {
        let mut out = String::new();
        for row in &self.rows {
            let end = row.iter().rposition(|(c, s)| *c != ' ' || (color && s.bg.is_some())).map_or(0, |i| i + 1);
            let mut current = Style::PLAIN;
            for &(ch, style) in &row[..end] {
                if color && style != current {
                    out.push_str(&style.sgr());
                    current = style;
                }
                out.push(ch);
            }
            if color && current != Style::PLAIN {
                out.push_str("\x1b[0m");
            }
            out.push('\n');
        }
        out
    }
}

/// Sizes of one hex cell: `w` characters inside, `stride` from bar to bar.
#[derive(Clone, Copy)]
struct Cell {
    w: usize,
    stride: usize,
    half: usize,
    /// Column of the top edges from the left bar (the bottom ones sit at `half - a`).
    a: usize,
}

impl Cell {
    fn new(w: usize) -> Cell {
        let stride = w + 1;
        let half = stride / 2;
        Cell { w, stride, half, a: half.div_ceil(2) }
    }
    fn b(self) -> usize {
        self.half - self.a
    }
}

/// Draws the world as text. A tabletop gets a scaled plot instead of hexes.
pub fn render(world: &World, opts: &MapOptions) -> String {
    match world.map {
        Map::Hex { .. } => render_hex(world, opts),
        Map::Table { width, height } => render_table(world, width, height, opts),
    }
}

fn centred(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n >= w {
        return s.chars().take(w).collect();
    }
    let left = (w - n) / 2;
    format!("{}{}{}", " ".repeat(left), s, " ".repeat(w - n - left))
}

#[expect(
    clippy::too_many_lines,
    reason = "draws the map row by row, each cell from the same layers, in one character grid"
)]
fn render_hex(world: &World, opts: &MapOptions) -> String {
    let hexes = world.hexes();
    if hexes.is_empty() {
        return "(the map has no hexes)\n".into();
    }
    let kind = offset_kind(world);
    let names = Names::of(world);
    let half_x = |h: Hex| 2 * h.q + h.r;
    let xmin = hexes.iter().map(|&h| half_x(h)).min().unwrap_or(0);
    let xmax = hexes.iter().map(|&h| half_x(h)).max().unwrap_or(0);
    let rmin = hexes.iter().map(|h| h.r).min().unwrap_or(0);
    let rmax = hexes.iter().map(|h| h.r).max().unwrap_or(0);
    let label_w = [rmin, rmax].iter().map(|r| r.to_string().len()).max().unwrap_or(1);
    let margin = label_w + 2;
    let width_for = |c: Cell| margin + (xmax - xmin) as usize * c.half + c.stride + 1;
    let cell = if width_for(Cell::new(5)) <= opts.width { Cell::new(5) } else { Cell::new(3) };
    let wide = cell.w >= 5;

    let terrain_ab =
        abbreviate(&names.terrain.iter().map(String::as_str).collect::<Vec<_>>(), if wide { 2 } else { 1 });
    let type_ab =
        abbreviate(&names.unit_types.iter().map(String::as_str).collect::<Vec<_>>(), if wide { 2 } else { 1 });
    let token_ab: Vec<String> = abbreviate(&names.tokens.iter().map(String::as_str).collect::<Vec<_>>(), 1)
        .into_iter()
        .map(|s| s.to_uppercase())
        .collect();
    let letters = side_letters(world);
    let letter_of = |side: &str| letters.iter().find(|(n, _)| n == side).map_or('?', |(_, l)| *l);

    let header = if world.sections.is_empty() { 1 } else { 2 };
    let col = |h: Hex| margin + (half_x(h) - xmin) as usize * cell.half;
    let top = |h: Hex| header + (h.r - rmin) as usize * 3;
    let mut c = Canvas::default();
    let color = opts.color;
    let edge = if color { Style::fg(EDGE) } else { Style::PLAIN };

    // Column labels (and section names) over the first row, for row-offset layouts.
    let row_layout = matches!(kind, OffsetKind::OddR | OffsetKind::EvenR);
    if row_layout {
        if let Map::Hex { cols, .. } = world.map {
            let first_row = rmin;
            for cidx in 0..cols {
                let h = Hex::from_offset(cidx, first_row, kind);
                let label = cidx.to_string();
                let centre = col(h) + cell.half;
                let x = centre + 1 - label.len().div_ceil(2).max(1);
                c.text(x, header - 1, &label, if color { Style::fg(DIM) } else { Style::PLAIN });
            }
            for s in world.sections.iter() {
                let a = col(Hex::from_offset(s.first_col.max(0), first_row, kind)) + cell.half;
                let b = col(Hex::from_offset(s.last_col.min(cols - 1), first_row, kind)) + cell.half;
                if b <= a {
                    continue;
                }
                let st = if color { Style::fg(SECTION) } else { Style::PLAIN };
                for x in a..=b {
                    c.put(x, 0, '-', st);
                }
                c.put(a, 0, '|', st);
                c.put(b, 0, '|', st);
                let name = format!(" {} ", s.name);
                let room = b - a - 1;
                if name.chars().count() <= room {
                    c.text(a + 1 + (room - name.chars().count()) / 2, 0, &name, st.bold());
                }
            }
        }
    }

    for &h in &hexes {
        let (x, y) = (col(h), top(h));
        let terrain = world.terrain(h).map(|t| t.to_string());
        let bg = if color { terrain.as_deref().map(|t| terrain_colour(t).1) } else { None };
        // Interior background first, so that text keeps it.
        if let Some(bg) = bg {
            c.fill_bg(x + 1, y + 1, cell.w, bg);
            c.fill_bg(x + 1, y + 2, cell.w, bg);
        }
        // Edges.
        c.put(x + cell.a, y, '/', edge);
        c.put(x + cell.stride - cell.a, y, '\\', edge);
        c.put(x + cell.b(), y + 3, '\\', edge);
        c.put(x + cell.stride - cell.b(), y + 3, '/', edge);
        let west = h + Hex::new(-1, 0);
        let east = h + Hex::new(1, 0);
        for (bx, other, left) in [(x, west, true), (x + cell.stride, east, false)] {
            let line =
                world.on_map(other) && if left { section_bar(world, other, h) } else { section_bar(world, h, other) };
            let (ch, st) =
                if line { (':', if color { Style::fg(SECTION).bold() } else { Style::PLAIN }) } else { ('|', edge) };
            // Both hexes beside a bar reach the same verdict, so drawing it twice is harmless.
            c.put(bx, y + 1, ch, st);
            c.put(bx, y + 2, ch, st);
        }
        // Mark at the top point.
        if let Some(label) = marks_at(world, h) {
            let ch = label.chars().next().unwrap_or('*');
            let st = if color { Style { fg: Some(16), bg: Some(220), bold: true } } else { Style::PLAIN };
            c.put(x + cell.half, y, ch, st);
        }
        // Line 1: unit, or the coordinates.
        if let Some(u) = unit_on(world, h) {
            let t = abbrev_of(&names.unit_types, &type_ab, &u.kind);
            let mut s = format!("{}{}{}", letter_of(&u.side), t, u.strength);
            if s.chars().count() > cell.w {
                s = format!("{}{}", letter_of(&u.side), u.strength);
            }
            if u.leader.is_some() && s.chars().count() < cell.w {
                s.push('*');
            }
            // A stack (rulesets with `stacking: true`): the first unit and how many more.
            let more = world.units.iter().filter(|o| o.alive() && o.pos == u.pos).count() - 1;
            if more > 0 {
                let tail = format!("+{more}");
                while s.chars().count() + tail.len() > cell.w && s.chars().count() > 1 {
                    s.pop();
                }
                s.push_str(&tail);
            }
            let st = if color { Style::fg(SIDE_ANSI[side_index(world, &u.side)]).bold().on(bg) } else { Style::PLAIN };
            c.text(x + 1, y + 1, &centred(&s, cell.w), st);
            if let Some(bg) = bg {
                // Keep the terrain colour under the padding.
                for i in 0..cell.w {
                    let (ch, mut s2) = c.rows[y + 1][x + 1 + i];
                    s2.bg = Some(bg);
                    c.rows[y + 1][x + 1 + i] = (ch, s2);
                }
            }
        } else {
            let coords = format!("{},{}", h.q, h.r);
            if coords.len() <= cell.w {
                let st = if color { Style::fg(DIM).on(bg) } else { Style::PLAIN };
                c.text(x + 1, y + 1, &centred(&coords, cell.w), st);
            }
        }
        // Line 2: terrain on the left, tokens on the right.
        let mut line2: Vec<(char, Style)> = vec![(' ', Style::PLAIN.on(bg)); cell.w];
        if let Some(t) = &terrain {
            let ab = abbrev_of(&names.terrain, &terrain_ab, t);
            for (i, ch) in ab.chars().enumerate().take(cell.w) {
                line2[i] = (ch, if color { Style::fg(231).on(bg) } else { Style::PLAIN });
            }
        }
        let toks: Vec<char> =
            world.tokens(h).map(|t| abbrev_of(&names.tokens, &token_ab, t).chars().next().unwrap_or('?')).collect();
        let room = cell.w.saturating_sub(if terrain.is_some() {
            if wide {
                3
            } else {
                2
            }
        } else {
            0
        });
        for (i, ch) in toks.iter().rev().take(room).enumerate() {
            line2[cell.w - 1 - i] = (*ch, if color { Style::fg(TOKEN).bold().on(bg) } else { Style::PLAIN });
        }
        for (i, (ch, st)) in line2.into_iter().enumerate() {
            c.put(x + 1 + i, y + 2, ch, st);
        }
    }

    // Row labels.
    for r in rmin..=rmax {
        let y = header + (r - rmin) as usize * 3 + 1;
        let label = format!("{r:>label_w$}");
        c.text(0, y, &label, if color { Style::fg(DIM) } else { Style::PLAIN });
    }

    let mut out = c.render(color);
    out.push_str(&legend(world, &names, &terrain_ab, &type_ab, &token_ab, &letters, kind, opts));
    out
}

/// The lines under the map that say what every abbreviation means.
#[expect(clippy::too_many_arguments)]
fn legend(
    world: &World,
    names: &Names,
    terrain_ab: &[String],
    type_ab: &[String],
    token_ab: &[String],
    letters: &[(String, char)],
    kind: OffsetKind,
    opts: &MapOptions,
) -> String {
    let color = opts.color;
    let paint = |s: &str, st: Style| if color { format!("{}{s}\x1b[0m", st.sgr()) } else { s.to_string() };
    let mut items: Vec<Vec<String>> = Vec::new();
    let sides: Vec<String> = letters
        .iter()
        .map(|(n, l)| {
            let st = Style::fg(SIDE_ANSI[side_index(world, n)]).bold();
            format!("{} {n}", paint(&l.to_string(), st))
        })
        .collect();
    if !sides.is_empty() {
        let mut v = vec!["sides:".to_string()];
        v.extend(sides);
        items.push(v);
    }
    if !names.unit_types.is_empty() {
        let mut v = vec!["units:".to_string()];
        v.extend(names.unit_types.iter().zip(type_ab).map(|(n, a)| format!("{a} {n}")));
        v.push(if world.stacking {
            "(side, type, strength; * leader; +N: N more units in the hex)".into()
        } else {
            "(side, type, strength; * leader)".into()
        });
        items.push(v);
    }
    if !names.terrain.is_empty() {
        let mut v = vec!["terrain:".to_string()];
        v.extend(names.terrain.iter().zip(terrain_ab).map(|(n, a)| {
            let swatch = paint(a, Style::fg(231).on(Some(terrain_colour(n).1)));
            format!("{swatch} {n}")
        }));
        items.push(v);
    }
    if !names.tokens.is_empty() {
        let mut v = vec!["tokens:".to_string()];
        v.extend(names.tokens.iter().zip(token_ab).map(|(n, a)| format!("{a} {n}")));
        items.push(v);
    }
    if !world.marks.is_empty() {
        let mut v = vec!["marks:".to_string()];
        for (h, label) in &world.marks {
            v.push(format!("{label} {h}"));
        }
        v.push("(at the hex's top point)".into());
        items.push(v);
    }
    let mut note =
        vec!["empty hexes show q,r for hex(q, r);".to_string(), format!("labels are {} columns and rows", kind.name())];
    if !world.sections.is_empty() {
        let secs: Vec<String> =
            world.sections.iter().map(|s| format!("{} {}-{}", s.name, s.first_col, s.last_col)).collect();
        note.push(format!("':' bars are section lines ({})", secs.join(", ")));
    }
    items.push(note);
    let off: Vec<String> = world
        .units
        .iter()
        .filter(|u| !u.alive())
        .map(|u| if u.strength == 0 { format!("{} (eliminated)", u.id) } else { format!("{} (off the board)", u.id) })
        .collect();
    if !off.is_empty() {
        let mut v = vec!["not on the map:".to_string()];
        v.extend(off);
        items.push(v);
    }
    let width = opts.width.max(40);
    let mut out = String::new();
    for words in items {
        let mut line = String::from(" ");
        let mut len = 1;
        for w in words {
            let wlen = visible_len(&w);
            if len + 1 + wlen > width && len > 1 {
                out.push_str(line.trim_end());
                out.push('\n');
                line = String::from("   ");
                len = 3;
            }
            line.push(' ');
            line.push_str(&w);
            len += 1 + wlen;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Length of text without its ANSI escape sequences.
fn visible_len(s: &str) -> usize {
    let mut n = 0;
    let mut in_esc = false;
    for ch in s.chars() {
        if in_esc {
            if ch == 'm' {
                in_esc = false;
            }
        } else if ch == '\x1b' {
            in_esc = true;
        } else {
            n += 1;
        }
    }
    n
}

/// A tabletop has no hexes: a coarse grid scaled to the table shows terrain
/// areas (their key letter, `^` for ground above level 0), marked arcs and
/// zones (`.`), marked lines (`*`) and the units' bases (side letter; `x` for
/// an eliminated unit), then lists units, areas and marks exactly.
#[expect(
    clippy::too_many_lines,
    reason = "draws the coarse grid and then its lists of units, areas and marks, all from one scale"
)]
fn render_table(world: &World, width: f64, height: f64, opts: &MapOptions) -> String {
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
    out
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::battlefield::{Section, Side};
    use crate::unit::Unit;

    fn world() -> World {
        let mut w = World::new(Map::Hex { cols: 4, rows: 3, offset: OffsetKind::OddR });
        w.sides = vec![
            Side { name: "allies".into(), baseline: None, pools: vec![] },
            Side { name: "central".into(), baseline: None, pools: vec![] },
        ];
        w.set_terrain(Hex::new(1, 0), Some("woods"));
        w.add_token(Hex::new(2, 1), "crater");
        w.add_unit(Unit {
            id: "a1".into(),
            side: "allies".into(),
            kind: "infantry".into(),
            strength: 4,
            max_strength: 4,
            leader: None,
            pos: Position::Hex(Hex::new(0, 0)),
            props: vec![],
        })
        .unwrap();
        w.add_unit(Unit {
            id: "c1".into(),
            side: "central".into(),
            kind: "machine_gun".into(),
            strength: 3,
            max_strength: 3,
            leader: Some("Haig".into()),
            pos: Position::Hex(Hex::new(2, 1)),
            props: vec![],
        })
        .unwrap();
        w.marks.push((Hex::new(1, 2), Rc::from("3")));
        w
    }

    #[test]
    fn plain_map_shows_units_terrain_tokens_marks_and_labels() {
        let text = render(&world(), &MapOptions { color: false, width: 100 });
        assert!(!text.contains('\x1b'), "no colour codes in plain text:\n{text}");
        let lines: Vec<&str> = text.lines().collect();
        // Column labels over row 0, row labels on the left.
        assert!(lines[0].contains('0') && lines[0].contains('3'), "{text}");
        assert!(lines[2].starts_with("0  |Ain4 |"), "{text}");
        assert!(text.contains("Ain4"), "{text}");
        assert!(text.contains("Cmg3*"), "{text}");
        assert!(text.contains("wo"), "{text}");
        assert!(text.contains("  C|") || text.contains("  C |") || text.contains("C|"), "crater token:\n{text}");
        assert!(text.contains("/3\\"), "mark at the top point:\n{text}");
        assert!(text.contains("1,0"), "empty hexes show coordinates:\n{text}");
        assert!(text.contains("mg machine_gun"), "{text}");
        assert!(text.contains("C crater"), "{text}");
    }

    #[test]
    fn edges_are_shared_between_rows() {
        let text = render(&world(), &MapOptions { color: false, width: 100 });
        let lines: Vec<&str> = text.lines().collect();
        // The separator between rows 0 and 1 is a single zigzag.
        assert_eq!(lines[4].trim(), "\\   / \\   / \\   / \\   / \\", "{text}");
        // Every interior line has bars six columns apart.
        let bars: Vec<usize> = lines[2].match_indices('|').map(|(i, _)| i).collect();
        assert!(bars.windows(2).all(|w| w[1] - w[0] == 6), "{bars:?}\n{text}");
    }

    #[test]
    fn narrow_terminals_get_narrow_hexes() {
        let wide = render(&world(), &MapOptions { color: false, width: 100 });
        let narrow = render(&world(), &MapOptions { color: false, width: 30 });
        let w = |t: &str| t.lines().take(12).map(str::len).max().unwrap_or(0);
        assert!(w(&narrow) < w(&wide), "{narrow}");
        assert!(narrow.contains("Ai4"), "{narrow}");
    }

    #[test]
    fn section_lines_are_drawn() {
        let mut w = world();
        w.sections = Rc::new(vec![
            Section { name: "left".into(), first_col: 0, last_col: 1 },
            Section { name: "right".into(), first_col: 1, last_col: 3 },
        ]);
        let text = render(&w, &MapOptions { color: false, width: 100 });
        assert!(text.contains("left") && text.contains("right"), "{text}");
        assert!(text.lines().nth(3).is_some_and(|l| l.contains(':')), "{text}");
    }

    #[test]
    fn colour_map_uses_ansi_and_keeps_the_text() {
        let text = render(&world(), &MapOptions { color: true, width: 100 });
        assert!(text.contains("\x1b["), "{text}");
        let stripped: String = {
            let mut s = String::new();
            let mut esc = false;
            for ch in text.chars() {
                if esc {
                    esc = ch != 'm';
                } else if ch == '\x1b' {
                    esc = true;
                } else {
                    s.push(ch);
                }
            }
            s
        };
        assert!(stripped.contains("Ain4"), "{stripped}");
    }

    #[test]
    fn tabletop_is_plotted() {
        let mut w = World::new(Map::Table { width: 120.0, height: 60.0 });
        w.sides = vec![Side { name: "french".into(), baseline: None, pools: vec![] }];
        w.add_unit(Unit {
            id: "b1".into(),
            side: "french".into(),
            kind: "line".into(),
            strength: 3,
            max_strength: 3,
            leader: None,
            pos: Position::Table { at: crate::tabletop::Point::new(30.0, 40.0), facing: 270.0 },
            props: vec![],
        })
        .unwrap();
        let text = render(&w, &MapOptions::default());
        assert!(text.contains("tabletop 120 x 60 cm"), "{text}");
        assert!(text.contains("F b1 [french line] 3/3 at (30, 40) cm facing 270"), "{text}");
    }
}
