//! The SVG map that `:map --svg FILE` writes and `:view` shows: the same
//! battlefield as the terminal map, as a picture to keep, share or put in a
//! rules document.
//!
//! Pointy-top hexes at their true positions (Red Blob's `to_pixel`), terrain
//! as fill colours, units as counters in their side's colour (type and
//! strength, id under it, a star for an attached leader), a leader alone as
//! a round token, a stack as its top counter with the others' edges showing
//! under it and its count left of it, a carrier's cargo counted there too,
//! tokens as lettered badges right of the counter, marks as yellow discs
//! above it, the terrain's name under it: everything inside its own hex and
//! nothing over anything else. Then section lines as dashed orange edges,
//! printed column/row labels, an optional line of sight (under the
//! counters), and a legend wrapped to the picture's width (sides, unit
//! types, stacks and cargo, terrain, token badges, marks, pools, carried and
//! absent units).
//!
//! Every piece of text that could collide is in an element with a
//! `data-label` attribute, so a test can read their boxes from the DOM and
//! check that no two overlap (tests/view.rs does, in Chromium).

mod legend;
pub(super) mod table;

#[cfg(test)]
mod tests;

use std::fmt::Write as _;
use std::rc::Rc;

use legend::{Icon, Item, Row};

use super::place::{text_width, Rect};
use super::{
    abbrev_of, abbreviate, is_leader, mark_key, off_map_note, offset_kind, section_bar, side_index, side_pools,
    terrain_colour, Draw, LosLine, Names, Pieces, SIDE_SVG,
};
use crate::battlefield::{Map, World};
use crate::hex::{Hex, OffsetKind};
use crate::tabletop::TableMark;
use crate::unit::Unit;

/// What to add to the picture.
#[derive(Clone, Debug, Default)]
pub struct SvgOptions {
    /// A title drawn at the top (the scenario's name).
    pub title: Option<String>,
    /// A line of sight to draw, with the ruleset's verdict.
    pub los: Option<LosLine>,
    /// What the ruleset says about drawing its pieces (leaders, carriers, scale).
    pub draw: Draw,
    /// Marks that were already there before the last action: drawn faded
    /// (the live view), so that the last action's own marks stand out.
    pub earlier: Option<EarlierMarks>,
}

/// The marks of an earlier state of the world (see [`SvgOptions::earlier`]).
#[derive(Clone, Debug, Default)]
pub struct EarlierMarks {
    pub hex: Vec<(Hex, Rc<str>)>,
    pub table: Vec<TableMark>,
}

impl EarlierMarks {
    pub fn of(world: &World) -> EarlierMarks {
        EarlierMarks { hex: world.marks.clone(), table: world.table_marks.clone() }
    }
}

/// Hex size: centre to corner, in SVG units (pixels).
const SIZE: f64 = 30.0;
const PAPER: &str = "#f3efe2";
/// A unit counter: its size and the top's offset from the hex centre.
const COUNTER_W: f64 = 32.0;
const COUNTER_H: f64 = 20.0;
const COUNTER_TOP: f64 = -11.0;
/// The text of a counter fits inside this width (narrower type names shrink).
const COUNTER_TEXT_W: f64 = 29.0;
/// The edges of the counters under the top one of a stack: this far apart,
/// at most this many drawn.
const STACK_STEP: f64 = 1.75;
const STACK_SHOWN: usize = 2;
/// The slot left of the counter for a stack's count and a carrier's cargo.
const SLOT_W: f64 = 8.5;
const SLOT_H: f64 = 8.5;
/// Token badges: their side, where the first goes (from the hex centre, right
/// of the counter) and the step down to the next; at most this many per hex.
const BADGE_W: f64 = 7.5;
const BADGE_X: f64 = 17.0;
const BADGE_Y: f64 = -10.5;
const BADGE_STEP: f64 = 8.5;
const MAX_BADGES: usize = 3;
/// A mark's disc: its centre above the hex centre and its radius (one character).
const MARK_Y: f64 = -19.0;
const MARK_R: f64 = 6.5;
/// The longest terrain name written in full under the counter.
const TERRAIN_CHARS: usize = 7;
/// How faded the marks left by earlier actions are.
const FADED: f64 = 0.35;

/// Escapes text for SVG content and attributes.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

fn corners(cx: f64, cy: f64, size: f64) -> String {
    (0..6)
        .map(|i| {
            let a = (60.0 * i as f64 - 30.0).to_radians();
            format!("{:.1},{:.1}", cx + size * a.cos(), cy + size * a.sin())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Draws the world as an SVG document.
pub fn render(world: &World, opts: &SvgOptions) -> String {
    match world.map {
        Map::Hex { .. } => render_hex(world, opts),
        Map::Table { width, height } => table::render_table(world, width, height, opts),
    }
}

/// The SVG's opening: its size, a white page, and the title over it.
fn header(s: &mut String, width: f64, height: f64, left: f64, title: Option<&str>) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="Helvetica, Arial, sans-serif">"#
    );
    // The page first, then the title on it.
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    if let Some(t) = title {
        let _ = writeln!(
            s,
            r#"<text id="title" x="{left}" y="26" font-size="18" font-weight="bold" data-label="title">{}</text>"#,
            xml_escape(t)
        );
    }
}

/// Where the hex map's pieces go.
struct Frame {
    hexes: Vec<Hex>,
    left: f64,
    top: f64,
    ox: f64,
    oy: f64,
    map_w: f64,
    map_h: f64,
}

impl Frame {
    fn new(world: &World, titled: bool) -> Frame {
        let hexes = world.hexes();
        let (left, top) = (48.0, if titled { 78.0 } else { 52.0 });
        let pts: Vec<(f64, f64)> = hexes.iter().map(|h| h.to_pixel(SIZE)).collect();
        let b = Rect::around(pts).unwrap_or(Rect::new(0.0, 0.0, 0.0, 0.0));
        let hw = SIZE * 3f64.sqrt() / 2.0;
        Frame {
            hexes,
            left,
            top,
            ox: left + hw - b.x,
            oy: top + SIZE - b.y,
            map_w: b.w + 2.0 * hw,
            map_h: b.h + 2.0 * SIZE,
        }
    }

    fn centre(&self, h: Hex) -> (f64, f64) {
        let (x, y) = h.to_pixel(SIZE);
        (x + self.ox, y + self.oy)
    }
}

fn render_hex(world: &World, opts: &SvgOptions) -> String {
    let f = Frame::new(world, opts.title.is_some());
    let names = Names::of(world);
    let type_ab = abbreviate(&names.unit_types.iter().map(String::as_str).collect::<Vec<_>>(), 3);
    let token_ab = token_letters(&names);
    let width = (f.left + f.map_w + 24.0).max(520.0);

    let pieces = Pieces::of(world, &opts.draw);
    let mut body = String::new();
    hex_layer(&mut body, world, &f);
    if let Some(los) = &opts.los {
        los_layer(&mut body, &f, los);
    }
    hex_labels(&mut body, world, &f, &names, &token_ab);
    units_layer(&mut body, world, &f, &pieces, &names, &type_ab, &opts.draw);
    marks_layer(&mut body, world, &f, opts.earlier.as_ref());
    grid_labels(&mut body, world, &f);

    let rows = legend_rows(world, &pieces, &names, &type_ab, &token_ab, opts);
    let legend_top = f.top + f.map_h + 16.0;
    let (legend, legend_h) = legend::draw(&rows, f.left, legend_top, width - f.left - 16.0);
    let height = legend_top + legend_h + 12.0;

    let mut s = String::new();
    header(&mut s, width, height, f.left, opts.title.as_deref());
    s.push_str(&body);
    s.push_str(&legend);
    s.push_str("</svg>\n");
    s
}

/// The hexes (terrain fills) and the section lines between them.
fn hex_layer(s: &mut String, world: &World, f: &Frame) {
    let _ = writeln!(s, r##"<g id="hexes" stroke="#8a8577" stroke-width="1">"##);
    for &h in &f.hexes {
        let (cx, cy) = f.centre(h);
        let fill = world.terrain(h).map_or(PAPER, |t| terrain_colour(t).0);
        let terrain = world.terrain(h).map(|t| format!(r#" data-terrain="{}""#, xml_escape(t))).unwrap_or_default();
        let _ = writeln!(
            s,
            r#"<polygon points="{}" fill="{fill}" data-hex="{},{}"{terrain}/>"#,
            corners(cx, cy, SIZE),
            h.q,
            h.r
        );
    }
    let _ = writeln!(s, "</g>");
    // Section lines: the vertical edge between two hexes in different sections.
    let _ = writeln!(s, r##"<g id="sections" stroke="#e07b00" stroke-width="3" stroke-dasharray="6 4">"##);
    for &h in &f.hexes {
        let east = h + Hex::new(1, 0);
        if world.on_map(east) && section_bar(world, h, east) {
            let (cx, cy) = f.centre(h);
            let x = cx + SIZE * 3f64.sqrt() / 2.0;
            let _ = writeln!(
                s,
                r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}"/>"#,
                cy - SIZE / 2.0,
                cy + SIZE / 2.0
            );
        }
    }
    let _ = writeln!(s, "</g>");
}

fn los_colour(clear: bool) -> &'static str {
    if clear {
        "#1a9c3c"
    } else {
        "#d11f1f"
    }
}

/// The line of sight, under the counters so that it never hides their text;
/// a blocking hex gets a red outline and a cross reaching past its counter.
fn los_layer(s: &mut String, f: &Frame, los: &LosLine) {
    let (x1, y1) = f.centre(los.from);
    let (x2, y2) = f.centre(los.to);
    let colour = los_colour(los.clear);
    let _ = writeln!(
        s,
        r#"<g id="los" data-clear="{}"><line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{colour}" stroke-width="3" stroke-linecap="round" stroke-opacity="0.85"/><circle cx="{x1:.1}" cy="{y1:.1}" r="5" fill="{colour}"/><circle cx="{x2:.1}" cy="{y2:.1}" r="5" fill="{colour}"/>"#,
        los.clear
    );
    if let Some(b) = los.blocker {
        let (bx, by) = f.centre(b);
        let d = SIZE * 0.55;
        let _ = writeln!(
            s,
            r#"<g data-blocker="{},{}"><polygon points="{}" fill="none" stroke="{colour}" stroke-width="3"/><path d="M{:.1},{:.1} L{:.1},{:.1} M{:.1},{:.1} L{:.1},{:.1}" stroke="{colour}" stroke-width="4"/></g>"#,
            b.q,
            b.r,
            corners(bx, by, SIZE - 2.0),
            bx - d,
            by - d,
            bx + d,
            by + d,
            bx - d,
            by + d,
            bx + d,
            by - d
        );
    }
    let _ = writeln!(s, "</g>");
}

/// Inside each hex, top to bottom: the coordinates (or the mark) over the
/// counter, the token badges right of the counter, the terrain's name under
/// it, so that nothing overlaps and nothing leaves its hex.
fn hex_labels(s: &mut String, world: &World, f: &Frame, names: &Names, token_ab: &[String]) {
    let _ = writeln!(s, r##"<g id="labels" font-size="8" fill="#55524a" text-anchor="middle">"##);
    for &h in &f.hexes {
        let (cx, cy) = f.centre(h);
        // A mark sits where the coordinates would.
        if !world.marks.iter().any(|(m, _)| *m == h) {
            let _ = writeln!(s, r#"<text x="{cx:.1}" y="{:.1}" data-label="coords">{},{}</text>"#, cy - 15.0, h.q, h.r);
        }
        if let Some(t) = world.terrain(h) {
            let _ = writeln!(
                s,
                r#"<text x="{cx:.1}" y="{:.1}" font-style="italic" data-label="terrain" data-terrain-label="{}">{}</text>"#,
                cy + 20.0,
                xml_escape(t),
                xml_escape(&fit(t, TERRAIN_CHARS))
            );
        }
        let toks: Vec<&str> = world.tokens(h).map(|t| &**t).collect();
        let shown = if toks.len() > MAX_BADGES { MAX_BADGES - 1 } else { toks.len() };
        for (i, t) in toks.iter().take(shown).enumerate() {
            let letter = abbrev_of(&names.tokens, token_ab, t);
            s.push_str(&badge(cx + BADGE_X, cy + BADGE_Y + BADGE_STEP * i as f64, letter, Some(t)));
        }
        if toks.len() > shown {
            let more = format!("+{}", toks.len() - shown);
            s.push_str(&badge(cx + BADGE_X, cy + BADGE_Y + BADGE_STEP * shown as f64, &more, None));
        }
    }
    let _ = writeln!(s, "</g>");
}

/// The units: on each hex the top unit of its stack, the edges of up to two
/// more under it, and left of it the stack's count and the carrier's cargo.
fn units_layer(
    s: &mut String,
    world: &World,
    f: &Frame,
    pieces: &Pieces,
    names: &Names,
    type_ab: &[String],
    draw: &Draw,
) {
    let _ = writeln!(s, r#"<g id="units" text-anchor="middle">"#);
    for &h in &f.hexes {
        let stack = pieces.stack(h);
        let Some(top) = stack.first() else { continue };
        let (cx, cy) = f.centre(h);
        let (x, y) = (cx - COUNTER_W / 2.0, cy + COUNTER_TOP);
        let ids: Vec<&str> = stack.iter().map(|u| &*u.id).collect();
        let _ = write!(
            s,
            r#"<g data-unit="{}" data-at="{},{}" data-stack="{}" data-label="counter"><title>{}</title>"#,
            xml_escape(&top.id),
            h.q,
            h.r,
            xml_escape(&ids.join(" ")),
            xml_escape(&stack.iter().map(|u| describe(u)).collect::<Vec<_>>().join("\n"))
        );
        // The edges of the units under the top one, each in its side's colour.
        for (i, under) in stack.iter().enumerate().skip(1).take(STACK_SHOWN).rev() {
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{COUNTER_W}" height="{COUNTER_H}" rx="3" fill="{}" stroke="black" stroke-width="0.8"/>"#,
                y + STACK_STEP * i as f64,
                SIDE_SVG[side_index(world, &under.side)]
            );
        }
        let colour = SIDE_SVG[side_index(world, &top.side)];
        if is_leader(draw, top) {
            leader_token(s, cx, cy, colour, top);
        } else {
            let t = abbrev_of(&names.unit_types, type_ab, &top.kind);
            counter(s, cx, cy, colour, top, t);
        }
        s.push_str("</g>\n");
        // Left of the counter: how many units the hex holds, and how many the top one carries.
        let mut row = 0.0;
        if stack.len() > 1 {
            s.push_str(&stack_badge(x - 1.0 - SLOT_W, cy + BADGE_Y, stack.len(), Some(&ids.join(", "))));
            row += 1.0;
        }
        let cargo = pieces.cargo(top);
        if !cargo.is_empty() {
            let aboard: Vec<&str> = cargo.iter().map(|u| &*u.id).collect();
            let tip = format!("aboard {}: {}", top.id, aboard.join(", "));
            let y = cy + BADGE_Y + (SLOT_H + 1.0) * row;
            s.push_str(&cargo_badge(x - 1.0 - SLOT_W, y, cargo.len(), colour, Some(&tip)));
        }
    }
    let _ = writeln!(s, "</g>");
}

/// A unit in words, for tooltips: `c1: central infantry 4/4, leader Cope`.
fn describe(u: &Unit) -> String {
    let mut t = format!("{}: {} {} {}/{}", u.id, u.side, u.kind, u.strength, u.max_strength);
    if let Some(l) = &u.leader {
        let _ = write!(t, ", leader {l}");
    }
    t
}

/// A unit's counter: type and strength (a star for an attached leader), its
/// id under them, both shrunk to fit the counter.
fn counter(s: &mut String, cx: f64, cy: f64, colour: &str, u: &Unit, kind: &str) {
    let line = format!("{kind} {}{}", u.strength, if u.leader.is_some() { "★" } else { "" });
    let size = fitted(&line, 10.0, true);
    let id_size = fitted(&u.id, 6.5, false);
    let _ = write!(
        s,
        r#"<rect x="{:.1}" y="{:.1}" width="{COUNTER_W}" height="{COUNTER_H}" rx="3" fill="{colour}" stroke="black" stroke-width="1"/><text x="{cx:.1}" y="{:.1}" font-size="{size:.1}" font-weight="bold" fill="white">{}</text><text x="{cx:.1}" y="{:.1}" font-size="{id_size:.1}" fill="white">{}</text>"#,
        cx - COUNTER_W / 2.0,
        cy + COUNTER_TOP,
        cy + 0.5,
        xml_escape(&line),
        cy + 7.0,
        xml_escape(&u.id)
    );
}

/// A leader alone on its hex (a unit type of `draw: { leaders }`): a round
/// token with a star and its id, where a counter would be.
fn leader_token(s: &mut String, cx: f64, cy: f64, colour: &str, u: &Unit) {
    let id_size = fitted(&u.id, 6.5, false).min(6.5);
    let _ = write!(
        s,
        r#"<circle cx="{cx:.1}" cy="{:.1}" r="{:.1}" fill="{colour}" stroke="black" stroke-width="1"/><text x="{cx:.1}" y="{:.1}" font-size="9" fill="white">★</text><text x="{cx:.1}" y="{:.1}" font-size="{id_size:.1}" fill="white">{}</text>"#,
        cy + COUNTER_TOP + COUNTER_H / 2.0,
        COUNTER_H / 2.0,
        cy - 1.5,
        cy + 5.5,
        xml_escape(&u.id)
    );
}

/// The font size (at most `size`) at which `text` fits a counter.
fn fitted(text: &str, size: f64, bold: bool) -> f64 {
    let w = text_width(text, size, bold);
    if w <= COUNTER_TEXT_W {
        size
    } else {
        (size * COUNTER_TEXT_W / w).max(4.0)
    }
}

/// How many units a hex holds: a white box with the count, left of the counter.
fn stack_badge(x: f64, y: f64, n: usize, ids: Option<&str>) -> String {
    let title = ids.map(|t| format!("<title>{n} units: {}</title>", xml_escape(t))).unwrap_or_default();
    let data = if ids.is_some() { r#" data-label="stack""# } else { "" };
    format!(
        r##"<g data-stack-count="{n}"{data}>{title}<rect x="{x:.1}" y="{y:.1}" width="{SLOT_W}" height="{SLOT_H}" rx="1.5" fill="white" stroke="black" stroke-width="0.8"/><text x="{:.1}" y="{:.1}" font-size="7" font-weight="bold" fill="black" text-anchor="middle">{n}</text></g>
"##,
        x + SLOT_W / 2.0,
        y + SLOT_H - 2.0
    )
}

/// How many units a carrier has aboard: `+N` in a box of its side's colour.
fn cargo_badge(x: f64, y: f64, n: usize, colour: &str, tip: Option<&str>) -> String {
    let title = tip.map(|t| format!("<title>{}</title>", xml_escape(t))).unwrap_or_default();
    let data = if tip.is_some() { r#" data-label="cargo""# } else { "" };
    format!(
        r##"<g data-cargo-count="{n}"{data}>{title}<rect x="{x:.1}" y="{y:.1}" width="{SLOT_W}" height="{SLOT_H}" rx="1.5" fill="white" stroke="{colour}" stroke-width="1.5"/><text x="{:.1}" y="{:.1}" font-size="6.5" font-weight="bold" fill="black" text-anchor="middle">+{n}</text></g>
"##,
        x + SLOT_W / 2.0,
        y + SLOT_H - 2.0
    )
}

/// Marks: a disc over the counter, inside the hex; faded when an earlier
/// action left it.
fn marks_layer(s: &mut String, world: &World, f: &Frame, earlier: Option<&EarlierMarks>) {
    let _ = writeln!(s, r#"<g id="marks" text-anchor="middle" font-weight="bold">"#);
    for &h in &f.hexes {
        let labels: Vec<&Rc<str>> = world.marks.iter().filter(|(m, _)| *m == h).map(|(_, l)| l).collect();
        if labels.is_empty() {
            continue;
        }
        let mut keys: Vec<String> = Vec::new();
        for l in &labels {
            let k = mark_key(l);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        let key: String = keys.join(",").chars().take(3).collect();
        let full: Vec<&str> = labels.iter().map(|l| &***l).collect();
        let old = earlier.is_some_and(|e| labels.iter().all(|l| e.hex.iter().any(|(m, el)| *m == h && el == *l)));
        let (cx, cy) = f.centre(h);
        s.push_str(&mark_disc(cx, cy + MARK_Y, &key, Some(&full.join("; ")), old));
    }
    let _ = writeln!(s, "</g>");
}

/// Printed labels: rows on the left, columns and sections on top.
fn grid_labels(s: &mut String, world: &World, f: &Frame) {
    let _ = writeln!(s, r##"<g id="grid-labels" font-size="11" fill="#333" text-anchor="middle">"##);
    let Map::Hex { cols, rows, .. } = world.map else {
        let _ = writeln!(s, "</g>");
        return;
    };
    let kind = offset_kind(world);
    let row_layout = matches!(kind, OffsetKind::OddR | OffsetKind::EvenR);
    let hw = SIZE * 3f64.sqrt() / 2.0;
    for r in 0..rows {
        let (cx, cy) = f.centre(Hex::from_offset(0, r, kind));
        let x = if row_layout { f.left - 14.0 } else { cx - hw - 12.0 };
        let _ = writeln!(s, r#"<text x="{x:.1}" y="{:.1}" data-label="grid">{r}</text>"#, cy + 4.0);
    }
    for c in 0..cols {
        let (cx, cy) = f.centre(Hex::from_offset(c, 0, kind));
        let _ = writeln!(s, r#"<text x="{cx:.1}" y="{:.1}" data-label="grid">{c}</text>"#, cy - SIZE - 6.0);
    }
    for sec in world.sections.iter() {
        let a = f.centre(Hex::from_offset(sec.first_col.max(0), 0, kind));
        let b = f.centre(Hex::from_offset(sec.last_col.min(cols - 1), 0, kind));
        let y = a.1 - SIZE - 22.0;
        let _ = writeln!(
            s,
            r##"<g data-section="{}"><line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e07b00" stroke-width="2"/><text x="{:.1}" y="{:.1}" fill="#e07b00" font-weight="bold" data-label="section">{}</text></g>"##,
            xml_escape(&sec.name),
            a.0 + 3.0,
            b.0 - 3.0,
            (a.0 + b.0) / 2.0,
            y - 4.0,
            xml_escape(&sec.name)
        );
    }
    let _ = writeln!(s, "</g>");
}

/// The key's first rows, shared by the hex map and the tabletop: each side
/// in its colour (the one to play said so).
fn sides_row(world: &World, icon: impl Fn(String) -> Icon) -> Option<Row> {
    let items: Vec<Item> = world
        .sides
        .iter()
        .map(|sd| {
            let colour = SIDE_SVG[side_index(world, &sd.name)].to_string();
            let to_play = world.current_side.as_deref() == Some(&*sd.name);
            let text = if to_play { format!("{} (to play)", sd.name) } else { sd.name.to_string() };
            Item { icon: Some(icon(colour.clone())), text, fill: Some(colour), bold: true }
        })
        .collect();
    (!items.is_empty()).then(|| Row::new("Sides:", items))
}

/// Each side's pools, one row per side.
fn pools_rows(world: &World) -> Vec<Row> {
    side_pools(world)
        .into_iter()
        .map(|(side, pools)| {
            Row::new(format!("Pools of {side}:"), pools.iter().map(|(k, v)| Item::text(format!("{k} {v}"))).collect())
        })
        .collect()
}

/// Units not on the battlefield: those aboard a carrier (under the carrier's
/// name and place), then the others (eliminated, off the board).
fn absent_rows(world: &World, draw: &Draw) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let mut others: Vec<Item> = Vec::new();
    for u in world.units.iter().filter(|u| !u.alive()) {
        match super::carrier_of(world, draw, u) {
            Some(_) => {
                // "aboard c_frig at (2,6)" -> "Aboard c_frig at (2,6):"
                let title = format!("Aboard {}:", off_map_note(world, draw, u).trim_start_matches("aboard "));
                let item = Item::text(format!("{} ({} {} {})", u.id, u.side, u.kind, u.strength));
                match rows.iter_mut().find(|r| r.title == title) {
                    Some(r) => r.items.push(item),
                    None => rows.push(Row::new(title, vec![item])),
                }
            }
            None => others.push(Item::text(format!("{} ({})", u.id, off_map_note(world, draw, u)))),
        }
    }
    if !others.is_empty() {
        rows.push(Row::new("Not on the map:", others));
    }
    rows
}

/// The legend: sides, unit types (leaders, stacks and cargo), terrain,
/// tokens, marks, pools, the line of sight, units not on the map, and a note
/// on the labels.
fn legend_rows(
    world: &World,
    pieces: &Pieces,
    names: &Names,
    type_ab: &[String],
    token_ab: &[String],
    opts: &SvgOptions,
) -> Vec<Row> {
    let draw = &opts.draw;
    let mut rows: Vec<Row> = sides_row(world, Icon::Counter).into_iter().collect();
    if !names.unit_types.is_empty() {
        let mut items: Vec<Item> = Vec::new();
        for (n, a) in names.unit_types.iter().zip(type_ab) {
            if draw.leaders.iter().any(|l| l == n) {
                items.push(Item::with(Icon::Leader("#555".into()), format!("{n} (a leader alone)")));
            } else {
                items.push(Item::text(format!("{a} {n}")));
            }
        }
        items.push(Item::text("(type strength; ★ an attached leader)"));
        if pieces.tallest() > 1 {
            items.push(Item::with(Icon::Stack(pieces.tallest()), "units in the hex (a stack: the top one drawn)"));
        }
        if pieces.any_cargo() {
            items.push(Item::with(Icon::Cargo(1), "units aboard it (listed below)"));
        }
        rows.push(Row::new("Units:", items));
    }
    if !names.terrain.is_empty() {
        let items = names
            .terrain
            .iter()
            .map(|n| Item::with(Icon::Swatch(terrain_colour(n).0.to_string()), n.clone()))
            .collect();
        rows.push(Row::new("Terrain:", items));
    }
    if !names.tokens.is_empty() {
        let items =
            names.tokens.iter().zip(token_ab).map(|(n, a)| Item::with(Icon::Badge(a.clone()), n.clone())).collect();
        rows.push(Row::new("Tokens:", items));
    }
    if !world.marks.is_empty() {
        let mut labels: Vec<(String, Vec<String>)> = Vec::new();
        for (h, label) in &world.marks {
            match labels.iter_mut().find(|(l, _)| **l == **label) {
                Some((_, hexes)) => hexes.push(h.to_string()),
                None => labels.push((label.to_string(), vec![h.to_string()])),
            }
        }
        let items = labels
            .into_iter()
            .map(|(l, hexes)| {
                let key = mark_key(&l);
                let text =
                    if key == l { format!("at {}", hexes.join(" ")) } else { format!("{l} at {}", hexes.join(" ")) };
                Item::with(Icon::Disc(key), text)
            })
            .collect();
        rows.push(Row::new("Marks:", items));
    }
    rows.extend(pools_rows(world));
    if let Some(los) = &opts.los {
        let verdict = match (los.clear, los.blocker) {
            (true, _) => "clear".to_string(),
            (false, Some(b)) => format!("blocked at {b}"),
            (false, None) => "blocked".to_string(),
        };
        let item = Item::with(Icon::Los(los.clear), format!("{} to {}: {verdict}", los.from, los.to));
        rows.push(Row::new("Line of sight:", vec![item]));
    }
    rows.extend(absent_rows(world, draw));
    rows.push(Row::note(if world.sections.is_empty() {
        "Hexes show their axial q,r (what hex(q, r) takes)."
    } else {
        "Hexes show their axial q,r (what hex(q, r) takes); dashed orange edges are section lines."
    }));
    rows
}

/// Token letters: one upper-case letter per token name, as on the terminal map.
fn token_letters(names: &Names) -> Vec<String> {
    abbreviate(&names.tokens.iter().map(String::as_str).collect::<Vec<_>>(), 1)
        .into_iter()
        .map(|s| s.to_uppercase())
        .collect()
}

/// `text` cut to `n` characters, an ellipsis marking the cut.
fn fit(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    let mut s: String = text.chars().take(n.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// A token badge: a dark square with the token's letter, its top-left corner
/// at (x, y); `name` (the token's full name) goes in `data-token` and a tooltip.
fn badge(x: f64, y: f64, letter: &str, name: Option<&str>) -> String {
    let data = name.map(|n| format!(r#" data-token="{}" data-label="token""#, xml_escape(n))).unwrap_or_default();
    let title = name.map(|n| format!("<title>{}</title>", xml_escape(n))).unwrap_or_default();
    format!(
        r##"<g{data}>{title}<rect x="{x:.1}" y="{y:.1}" width="{BADGE_W}" height="{BADGE_W}" rx="1.5" fill="#3b3b3b"/><text x="{:.1}" y="{:.1}" font-size="7" font-weight="bold" fill="white" text-anchor="middle">{}</text></g>
"##,
        x + BADGE_W / 2.0,
        y + BADGE_W - 2.0,
        xml_escape(letter)
    )
}

/// The radius of a mark's disc for its short form.
fn disc_radius(key: &str) -> f64 {
    MARK_R + 1.25 * (key.chars().count().clamp(1, 3) - 1) as f64
}

/// A mark: a yellow disc centred at (cx, cy) with the mark's short form; the
/// whole label (when given) in `data-mark` and a tooltip. `old` draws it
/// faded.
fn mark_disc(cx: f64, cy: f64, key: &str, label: Option<&str>, old: bool) -> String {
    let n = key.chars().count().clamp(1, 3);
    let r = disc_radius(key);
    let size = if n == 1 { 9 } else { 7 };
    let (attrs, title) = match label {
        Some(l) => (
            format!(
                r#" data-mark="{}" data-label="mark" class="mark {}"{}"#,
                xml_escape(l),
                if old { "faded" } else { "fresh" },
                if old { format!(r#" opacity="{FADED}""#) } else { String::new() },
            ),
            format!("<title>{}</title>", xml_escape(l)),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        r##"<g{attrs}>{title}<circle cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="#ffd21f" stroke="#6b5600"/><text x="{cx:.1}" y="{:.1}" font-size="{size}" font-weight="bold" text-anchor="middle">{}</text></g>
"##,
        cy + f64::from(size) * 0.35,
        xml_escape(&key.chars().take(3).collect::<String>())
    )
}
