//! The SVG map that `:map --svg FILE` writes: the same battlefield as the
//! terminal map, as a picture to keep, share or put in a rules document.
//!
//! Pointy-top hexes at their true positions (Red Blob's `to_pixel`), terrain
//! as fill colours, units as counters in their side's colour (type and
//! strength, id under it, a star for a leader), tokens as lettered badges to
//! the counter's right, marks as yellow discs above the counter, the terrain's
//! name under it (everything inside its own hex, nothing overlapping), section
//! lines as dashed orange edges, printed column/row labels, an optional line
//! of sight, and a legend (sides, unit types, terrain, token badges, marks,
//! each side's pools).

mod table;

#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use super::{
    abbrev_of, abbreviate, marks_at, offset_kind, pools_text, section_bar, side_index, side_pools, terrain_colour,
    unit_on, LosLine, Names, SIDE_SVG,
};
use crate::battlefield::{Map, World};
use crate::hex::{Hex, OffsetKind};
use crate::unit::Position;

/// What to add to the picture.
#[derive(Clone, Debug, Default)]
pub struct SvgOptions {
    /// A title drawn at the top (the scenario's name).
    pub title: Option<String>,
    /// A line of sight to draw, with the ruleset's verdict.
    pub los: Option<LosLine>,
}

/// Hex size: centre to corner, in SVG units (pixels).
const SIZE: f64 = 30.0;
const PAPER: &str = "#f3efe2";
/// A unit counter: its size and the top's offset from the hex centre.
const COUNTER_W: f64 = 32.0;
const COUNTER_H: f64 = 20.0;
const COUNTER_TOP: f64 = -11.0;
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
/// Width of a legend character (12-pixel text), for placing legend icons.
const LEGEND_CHAR: f64 = 6.6;

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

fn corners(cx: f64, cy: f64) -> String {
    (0..6)
        .map(|i| {
            let a = (60.0 * i as f64 - 30.0).to_radians();
            format!("{:.1},{:.1}", cx + SIZE * a.cos(), cy + SIZE * a.sin())
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

#[expect(
    clippy::too_many_lines,
    reason = "draws the map layer by layer (terrain, tokens, units, marks, legend) in one coordinate frame"
)]
fn render_hex(world: &World, opts: &SvgOptions) -> String {
    let hexes = world.hexes();
    let names = Names::of(world);
    let kind = offset_kind(world);
    let type_ab = abbreviate(&names.unit_types.iter().map(String::as_str).collect::<Vec<_>>(), 3);
    let token_ab = token_letters(&names);
    let (left, top) = (48.0, if opts.title.is_some() { 78.0 } else { 52.0 });
    let px = |h: Hex| h.to_pixel(SIZE);
    let xs: Vec<f64> = hexes.iter().map(|&h| px(h).0).collect();
    let ys: Vec<f64> = hexes.iter().map(|&h| px(h).1).collect();
    let xmin = xs.iter().cloned().fold(f64::INFINITY, f64::min);
    let xmax = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let ymin = ys.iter().cloned().fold(f64::INFINITY, f64::min);
    let ymax = ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let (xmin, xmax, ymin, ymax) = if hexes.is_empty() { (0.0, 0.0, 0.0, 0.0) } else { (xmin, xmax, ymin, ymax) };
    let hw = SIZE * 3f64.sqrt() / 2.0;
    let ox = left + hw - xmin;
    let oy = top + SIZE - ymin;
    let centre = |h: Hex| {
        let (x, y) = px(h);
        (x + ox, y + oy)
    };
    let map_w = xmax - xmin + 2.0 * hw;
    let map_h = ymax - ymin + 2.0 * SIZE;
    let legend_lines = legend_lines(world, &names, &type_ab, &token_ab, opts);
    let width = (left + map_w + 24.0).max(420.0);
    let height = top + map_h + 24.0 + 18.0 * legend_lines.len() as f64;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    if let Some(t) = &opts.title {
        let _ = writeln!(s, r#"<text x="{left}" y="26" font-size="18" font-weight="bold">{}</text>"#, xml_escape(t));
    }

    // Hexes.
    let _ = writeln!(s, r##"<g id="hexes" stroke="#8a8577" stroke-width="1">"##);
    for &h in &hexes {
        let (cx, cy) = centre(h);
        let fill = world.terrain(h).map_or(PAPER, |t| terrain_colour(t).0);
        let terrain = world.terrain(h).map(|t| format!(r#" data-terrain="{}""#, xml_escape(t))).unwrap_or_default();
        let _ =
            writeln!(s, r#"<polygon points="{}" fill="{fill}" data-hex="{},{}"{terrain}/>"#, corners(cx, cy), h.q, h.r);
    }
    let _ = writeln!(s, "</g>");

    // Section lines: the vertical edge between two hexes in different sections.
    let _ = writeln!(s, r##"<g id="sections" stroke="#e07b00" stroke-width="3" stroke-dasharray="6 4">"##);
    for &h in &hexes {
        let east = h + Hex::new(1, 0);
        if world.on_map(east) && section_bar(world, h, east) {
            let (cx, cy) = centre(h);
            let x = cx + hw;
            let _ = writeln!(
                s,
                r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}"/>"#,
                cy - SIZE / 2.0,
                cy + SIZE / 2.0
            );
        }
    }
    let _ = writeln!(s, "</g>");

    // Inside each hex, top to bottom: the coordinates (or the mark) over the
    // counter, the counter in the middle with the token badges to its right,
    // the terrain's name under it, so that nothing overlaps and nothing
    // leaves its hex.
    let _ = writeln!(s, r##"<g id="labels" font-size="8" fill="#55524a" text-anchor="middle">"##);
    for &h in &hexes {
        let (cx, cy) = centre(h);
        // A mark sits where the coordinates would.
        if !world.marks.iter().any(|(m, _)| *m == h) {
            let _ = writeln!(s, r#"<text x="{cx:.1}" y="{:.1}">{},{}</text>"#, cy - 15.0, h.q, h.r);
        }
        if let Some(t) = world.terrain(h) {
            let _ = writeln!(
                s,
                r#"<text x="{cx:.1}" y="{:.1}" font-style="italic" data-terrain-label="{}">{}</text>"#,
                cy + 20.0,
                xml_escape(t),
                xml_escape(&fit(t, TERRAIN_CHARS))
            );
        }
        let toks: Vec<&str> = world.tokens(h).map(|t| &**t).collect();
        let shown = if toks.len() > MAX_BADGES { MAX_BADGES - 1 } else { toks.len() };
        for (i, t) in toks.iter().take(shown).enumerate() {
            let letter = abbrev_of(&names.tokens, &token_ab, t);
            s.push_str(&badge(cx + BADGE_X, cy + BADGE_Y + BADGE_STEP * i as f64, letter, Some(t)));
        }
        if toks.len() > shown {
            let more = format!("+{}", toks.len() - shown);
            s.push_str(&badge(cx + BADGE_X, cy + BADGE_Y + BADGE_STEP * shown as f64, &more, None));
        }
    }
    let _ = writeln!(s, "</g>");

    // Units.
    let _ = writeln!(s, r#"<g id="units" text-anchor="middle">"#);
    for &h in &hexes {
        let Some(u) = unit_on(world, h) else { continue };
        let (cx, cy) = centre(h);
        let colour = SIDE_SVG[side_index(world, &u.side)];
        let t = abbrev_of(&names.unit_types, &type_ab, &u.kind);
        let _ = writeln!(
            s,
            r#"<g data-unit="{id}"><rect x="{:.1}" y="{:.1}" width="{COUNTER_W}" height="{COUNTER_H}" rx="3" fill="{colour}" stroke="black" stroke-width="1"/><text x="{cx:.1}" y="{:.1}" font-size="10" font-weight="bold" fill="white">{} {}{}</text><text x="{cx:.1}" y="{:.1}" font-size="6.5" fill="white">{id}</text></g>"#,
            cx - COUNTER_W / 2.0,
            cy + COUNTER_TOP,
            cy + 0.5,
            xml_escape(t),
            u.strength,
            if u.leader.is_some() { "★" } else { "" },
            cy + 7.0,
            id = xml_escape(&u.id)
        );
    }
    let _ = writeln!(s, "</g>");

    // Marks: a disc over the counter, inside the hex.
    let _ = writeln!(s, r#"<g id="marks" text-anchor="middle" font-weight="bold">"#);
    for &h in hexes.iter().filter(|h| world.marks.iter().any(|(m, _)| m == *h)) {
        let (cx, cy) = centre(h);
        let label = marks_at(world, h).unwrap_or_default();
        s.push_str(&mark_disc(cx, cy + MARK_Y, &label));
    }
    let _ = writeln!(s, "</g>");

    // Line of sight.
    if let Some(los) = &opts.los {
        let (x1, y1) = centre(los.from);
        let (x2, y2) = centre(los.to);
        let colour = if los.clear { "#1a9c3c" } else { "#d11f1f" };
        let _ = writeln!(
            s,
            r#"<g id="los" data-clear="{}"><line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{colour}" stroke-width="3" stroke-linecap="round"/><circle cx="{x1:.1}" cy="{y1:.1}" r="4" fill="{colour}"/><circle cx="{x2:.1}" cy="{y2:.1}" r="4" fill="{colour}"/>"#,
            los.clear
        );
        if let Some(b) = los.blocker {
            let (bx, by) = centre(b);
            let d = SIZE * 0.35;
            let _ = writeln!(
                s,
                r#"<path data-blocker="{},{}" d="M{:.1},{:.1} L{:.1},{:.1} M{:.1},{:.1} L{:.1},{:.1}" stroke="{colour}" stroke-width="4"/>"#,
                b.q,
                b.r,
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

    // Printed labels: rows on the left, columns and sections on top.
    let _ = writeln!(s, r##"<g id="grid-labels" font-size="11" fill="#333" text-anchor="middle">"##);
    if let Map::Hex { cols, rows, .. } = world.map {
        let row_layout = matches!(kind, OffsetKind::OddR | OffsetKind::EvenR);
        for r in 0..rows {
            let h = Hex::from_offset(0, r, kind);
            let (cx, cy) = centre(h);
            let x = if row_layout { left - 14.0 } else { cx - hw - 12.0 };
            let _ = writeln!(s, r#"<text x="{x:.1}" y="{:.1}">{r}</text>"#, cy + 4.0);
        }
        for c in 0..cols {
            let h = Hex::from_offset(c, 0, kind);
            let (cx, cy) = centre(h);
            let _ = writeln!(s, r#"<text x="{cx:.1}" y="{:.1}">{c}</text>"#, cy - SIZE - 6.0);
        }
        for sec in world.sections.iter() {
            let a = centre(Hex::from_offset(sec.first_col.max(0), 0, kind));
            let b = centre(Hex::from_offset(sec.last_col.min(cols - 1), 0, kind));
            let y = a.1 - SIZE - 22.0;
            let _ = writeln!(
                s,
                r##"<g data-section="{}"><line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e07b00" stroke-width="2"/><text x="{:.1}" y="{:.1}" fill="#e07b00" font-weight="bold">{}</text></g>"##,
                xml_escape(&sec.name),
                a.0 + 3.0,
                b.0 - 3.0,
                (a.0 + b.0) / 2.0,
                y - 4.0,
                xml_escape(&sec.name)
            );
        }
    }
    let _ = writeln!(s, "</g>");

    // Legend.
    let _ = writeln!(s, r##"<g id="legend" font-size="12" fill="#222">"##);
    let mut y = top + map_h + 24.0;
    for line in &legend_lines {
        match line {
            Legend::Text(text) => {
                let _ = writeln!(s, r#"<text x="{left}" y="{y:.1}">{text}</text>"#);
            }
            Legend::Icons { title, items } => {
                let _ = writeln!(s, r#"<text x="{left}" y="{y:.1}">{}</text>"#, xml_escape(title));
                let mut x = left + LEGEND_CHAR * title.chars().count() as f64 + 8.0;
                for (icon, text) in items {
                    let w = match icon {
                        Icon::Token(letter) => {
                            s.push_str(&badge(x, y - 10.0, letter, None));
                            BADGE_W
                        }
                        Icon::Mark(label) => {
                            s.push_str(&mark_disc(x + 7.0, y - 4.0, label));
                            14.0
                        }
                    };
                    x += w + 4.0;
                    let _ = writeln!(s, r#"<text x="{x:.1}" y="{y:.1}">{}</text>"#, xml_escape(text));
                    x += LEGEND_CHAR * text.chars().count() as f64 + 12.0;
                }
            }
        }
        y += 18.0;
    }
    let _ = writeln!(s, "</g>");
    s.push_str("</svg>\n");
    s
}

/// One line of the legend: text (already escaped, with coloured `tspan`s),
/// or a title followed by icons as the map draws them, each with its meaning.
enum Legend {
    Text(String),
    Icons { title: String, items: Vec<(Icon, String)> },
}

/// An icon drawn in the legend.
enum Icon {
    Token(String),
    Mark(String),
}

/// Legend lines: sides, unit types, terrain, tokens, marks, pools, the line
/// of sight and a note on the labels.
fn legend_lines(
    world: &World,
    names: &Names,
    type_ab: &[String],
    token_ab: &[String],
    opts: &SvgOptions,
) -> Vec<Legend> {
    let mut lines = Vec::new();
    let sides: Vec<String> = world
        .sides
        .iter()
        .map(|sd| {
            format!(
                r#"<tspan fill="{}" font-weight="bold">■ {}</tspan>"#,
                SIDE_SVG[side_index(world, &sd.name)],
                xml_escape(&sd.name)
            )
        })
        .collect();
    if !sides.is_empty() {
        lines.push(Legend::Text(format!("Sides: {}", sides.join("  "))));
    }
    if !names.unit_types.is_empty() {
        let t: Vec<String> =
            names.unit_types.iter().zip(type_ab).map(|(n, a)| xml_escape(&format!("{a} {n}"))).collect();
        lines.push(Legend::Text(format!("Units (type strength, ★ leader): {}", t.join(", "))));
    }
    if !names.terrain.is_empty() {
        let t: Vec<String> = names
            .terrain
            .iter()
            .map(|n| format!(r#"<tspan fill="{}">■</tspan> {}"#, terrain_colour(n).0, xml_escape(n)))
            .collect();
        lines.push(Legend::Text(format!("Terrain: {}", t.join("  "))));
    }
    if !names.tokens.is_empty() {
        let items = names.tokens.iter().zip(token_ab).map(|(n, a)| (Icon::Token(a.clone()), n.clone())).collect();
        lines.push(Legend::Icons { title: "Tokens:".into(), items });
    }
    if !world.marks.is_empty() {
        let mut labels: Vec<(String, Vec<String>)> = Vec::new();
        for (h, label) in &world.marks {
            match labels.iter_mut().find(|(l, _)| **l == **label) {
                Some((_, hexes)) => hexes.push(h.to_string()),
                None => labels.push((label.to_string(), vec![h.to_string()])),
            }
        }
        let items = labels.into_iter().map(|(l, hexes)| (Icon::Mark(l), format!("at {}", hexes.join(" ")))).collect();
        lines.push(Legend::Icons { title: "Marks:".into(), items });
    }
    for (side, pools) in side_pools(world) {
        lines.push(Legend::Text(xml_escape(&format!("Pools of {side}: {}", pools_text(&pools)))));
    }
    if let Some(los) = &opts.los {
        let verdict = match (los.clear, los.blocker) {
            (true, _) => "clear".to_string(),
            (false, Some(b)) => format!("blocked at {b}"),
            (false, None) => "blocked".to_string(),
        };
        lines.push(Legend::Text(xml_escape(&format!("Line of sight {} to {}: {verdict}", los.from, los.to))));
    }
    if !world.sections.is_empty() {
        lines.push(Legend::Text("Dashed orange edges are section lines; hexes show their axial q,r.".into()));
    } else {
        lines.push(Legend::Text("Hexes show their axial q,r (what hex(q, r) takes).".into()));
    }
    lines
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
    let data = name.map(|n| format!(r#" data-token="{}""#, xml_escape(n))).unwrap_or_default();
    let title = name.map(|n| format!("<title>{}</title>", xml_escape(n))).unwrap_or_default();
    format!(
        r##"<g{data}>{title}<rect x="{x:.1}" y="{y:.1}" width="{BADGE_W}" height="{BADGE_W}" rx="1.5" fill="#3b3b3b"/><text x="{:.1}" y="{:.1}" font-size="7" font-weight="bold" fill="white" text-anchor="middle">{}</text></g>
"##,
        x + BADGE_W / 2.0,
        y + BADGE_W - 2.0,
        xml_escape(letter)
    )
}

/// A mark: a yellow disc centred at (cx, cy) with the mark's label (its
/// first three characters; the whole label in `data-mark`).
fn mark_disc(cx: f64, cy: f64, label: &str) -> String {
    let n = label.chars().count().clamp(1, 3);
    let r = MARK_R + 1.25 * (n - 1) as f64;
    let size = if n == 1 { 9 } else { 7 };
    format!(
        r##"<g data-mark="{}"><circle cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="#ffd21f" stroke="#6b5600"/><text x="{cx:.1}" y="{:.1}" font-size="{size}" font-weight="bold" text-anchor="middle">{}</text></g>
"##,
        xml_escape(label),
        cy + f64::from(size) * 0.35,
        xml_escape(&label.chars().take(3).collect::<String>())
    )
}
