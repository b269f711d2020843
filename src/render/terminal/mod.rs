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
//! the terrain, a mark in the middle (the first character of its label) and
//! the tokens on the right, so every hex keeps its own mark inside its
//! edges; bars drawn as `:` are section lines. Each side's pools (HQ tokens,
//! medals, ...) are listed under the map with the legend. Hexes are six characters apart, or four when
//! that does not fit the terminal. Colours (terrain as background, units in
//! their side's colour) only when asked for; the text alone carries
//! everything, so a piped map reads the same.

mod table;

#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use super::{
    abbrev_of, abbreviate, marks_at, offset_kind, pools_text, section_bar, side_index, side_letters, side_pools,
    terrain_colour, unit_on, Names, SIDE_ANSI,
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
    /// What the ruleset says about drawing its pieces (carried units).
    pub draw: super::Draw,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions { color: false, width: 100, draw: super::Draw::default() }
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
        Map::Table { width, height } => table::render_table(world, width, height, opts),
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

    // Terrain and unit types share one set of abbreviations: "hi" must not
    // be both the hill and the highland infantry (issue 30).
    let both: Vec<&str> = names.terrain.iter().chain(&names.unit_types).map(String::as_str).collect();
    let mut terrain_ab = abbreviate(&both, if wide { 2 } else { 1 });
    let type_ab = terrain_ab.split_off(names.terrain.len());
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
        // The middle column is the mark's; terrain keeps the columns left of it, tokens those right of it.
        let middle = cell.w / 2;
        let mark = marks_at(world, h);
        let room = if mark.is_some() || terrain.is_some() { cell.w - middle - 1 } else { cell.w };
        for (i, ch) in toks.iter().rev().take(room).enumerate() {
            line2[cell.w - 1 - i] = (*ch, if color { Style::fg(TOKEN).bold().on(bg) } else { Style::PLAIN });
        }
        if let Some(label) = mark {
            let ch = label.chars().next().unwrap_or('*');
            let st = if color { Style { fg: Some(16), bg: Some(220), bold: true } } else { Style::PLAIN };
            line2[middle] = (ch, st);
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
        v.push("(in the middle of the hex's lower line)".into());
        items.push(v);
    }
    for (side, pools) in side_pools(world) {
        let mut v = vec![format!("pools of {side}:")];
        // One word per pool, so a long list wraps between pools.
        let n = pools.len();
        v.extend(pools.iter().enumerate().map(|(i, p)| {
            let one = pools_text(std::slice::from_ref(p));
            if i + 1 < n {
                one + ","
            } else {
                one
            }
        }));
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
        .map(|u| format!("{} ({})", u.id, super::off_map_note(world, &opts.draw, u)))
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
