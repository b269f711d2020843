//! The SVG map that `:map --svg FILE` writes: the same battlefield as the
//! terminal map, as a picture to keep, share or put in a rules document.
//!
//! Pointy-top hexes at their true positions (Red Blob's `to_pixel`), terrain
//! as fill colours, units as counters in their side's colour (type and
//! strength, id under it, a star for a leader), tokens as small badges, marks
//! as yellow discs at the top of their hex, section lines as dashed orange
//! edges, printed column/row labels, an optional line of sight, and a legend.

mod table;

#[cfg(test)]
mod tests;

use std::fmt::Write as _;

use super::{
    abbrev_of, abbreviate, marks_at, offset_kind, section_bar, side_index, terrain_colour, unit_on, LosLine, Names,
    SIDE_SVG,
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
    let legend_lines = legend_lines(world, &names, &type_ab, opts);
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

    // Labels: coordinates, terrain names, tokens.
    let _ = writeln!(s, r##"<g id="labels" font-size="8" fill="#55524a" text-anchor="middle">"##);
    for &h in &hexes {
        let (cx, cy) = centre(h);
        // A mark sits where the coordinates would.
        if !world.marks.iter().any(|(m, _)| *m == h) {
            let _ = writeln!(s, r#"<text x="{cx:.1}" y="{:.1}">{},{}</text>"#, cy - SIZE * 0.55, h.q, h.r);
        }
        if let Some(t) = world.terrain(h) {
            let _ = writeln!(
                s,
                r#"<text x="{cx:.1}" y="{:.1}" font-style="italic">{}</text>"#,
                cy + SIZE * 0.78,
                xml_escape(t)
            );
        }
        let toks = world.tokens(h);
        for (i, t) in toks.enumerate() {
            let y = cy + SIZE * 0.52 - 9.0 * i as f64;
            let label: String = t.chars().take(8).collect();
            let w = 6.0 + 5.0 * label.chars().count() as f64;
            let _ = writeln!(
                s,
                r##"<g data-token="{}"><rect x="{:.1}" y="{:.1}" width="{w:.1}" height="9" rx="2" fill="#3b3b3b"/><text x="{cx:.1}" y="{:.1}" fill="white">{}</text></g>"##,
                xml_escape(t),
                cx - w / 2.0,
                y - 7.0,
                y,
                xml_escape(&label)
            );
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
            r#"<g data-unit="{id}"><rect x="{:.1}" y="{:.1}" width="34" height="24" rx="3" fill="{colour}" stroke="black" stroke-width="1"/><text x="{cx:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="white">{} {}{}</text><text x="{cx:.1}" y="{:.1}" font-size="7" fill="white">{id}</text></g>"#,
            cx - 17.0,
            cy - 13.0,
            cy - 1.5,
            xml_escape(t),
            u.strength,
            if u.leader.is_some() { "★" } else { "" },
            cy + 8.0,
            id = xml_escape(&u.id)
        );
    }
    let _ = writeln!(s, "</g>");

    // Marks.
    let _ = writeln!(s, r#"<g id="marks" text-anchor="middle" font-size="10" font-weight="bold">"#);
    for &h in hexes.iter().filter(|h| world.marks.iter().any(|(m, _)| m == *h)) {
        let (cx, cy) = centre(h);
        let label = marks_at(world, h).unwrap_or_default();
        let r = 7.0 + 2.5 * (label.chars().count().saturating_sub(1)) as f64;
        let y = cy - SIZE * 0.72;
        let _ = writeln!(
            s,
            r##"<g data-mark="{}"><circle cx="{cx:.1}" cy="{y:.1}" r="{r:.1}" fill="#ffd21f" stroke="#6b5600"/><text x="{cx:.1}" y="{:.1}">{}</text></g>"##,
            xml_escape(&label),
            y + 3.5,
            xml_escape(&label)
        );
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
        let _ = writeln!(s, r#"<text x="{left}" y="{y:.1}">{line}</text>"#);
        y += 18.0;
    }
    let _ = writeln!(s, "</g>");
    s.push_str("</svg>\n");
    s
}

/// Legend lines, already escaped, with coloured `tspan`s.
fn legend_lines(world: &World, names: &Names, type_ab: &[String], opts: &SvgOptions) -> Vec<String> {
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
        lines.push(format!("Sides: {}", sides.join("  ")));
    }
    if !names.unit_types.is_empty() {
        let t: Vec<String> =
            names.unit_types.iter().zip(type_ab).map(|(n, a)| xml_escape(&format!("{a} {n}"))).collect();
        lines.push(format!("Units (type strength, ★ leader): {}", t.join(", ")));
    }
    if !names.terrain.is_empty() {
        let t: Vec<String> = names
            .terrain
            .iter()
            .map(|n| format!(r#"<tspan fill="{}">■</tspan> {}"#, terrain_colour(n).0, xml_escape(n)))
            .collect();
        lines.push(format!("Terrain: {}", t.join("  ")));
    }
    if let Some(los) = &opts.los {
        let verdict = match (los.clear, los.blocker) {
            (true, _) => "clear".to_string(),
            (false, Some(b)) => format!("blocked at {b}"),
            (false, None) => "blocked".to_string(),
        };
        lines.push(xml_escape(&format!("Line of sight {} to {}: {verdict}", los.from, los.to)));
    }
    if !world.sections.is_empty() {
        lines.push("Dashed orange edges are section lines; hexes show their axial q,r.".into());
    } else {
        lines.push("Hexes show their axial q,r (what hex(q, r) takes).".into());
    }
    lines
}
