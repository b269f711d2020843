//! The SVG map that `:map --svg FILE` writes: the same battlefield as the
//! terminal map, as a picture to keep, share or put in a rules document.
//!
//! Pointy-top hexes at their true positions (Red Blob's `to_pixel`), terrain
//! as fill colours, units as counters in their side's colour (type and
//! strength, id under it, a star for a leader), tokens as small badges, marks
//! as yellow discs at the top of their hex, section lines as dashed orange
//! edges, printed column/row labels, an optional line of sight, and a legend.

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
        Map::Table { width, height } => render_table(world, width, height, opts),
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

/// A tabletop picture, to scale: terrain areas (shaded by elevation level,
/// labelled with kind and cover), units as their bases with the front edge
/// drawn thick, and the shapes rules marked (arcs of fire, frontage zones,
/// centre lines). A unit whose type has no base size is a circle with a
/// facing tick.
#[expect(
    clippy::too_many_lines,
    reason = "draws the table layer by layer (areas, marks, bases, scale) in one coordinate frame"
)]
fn render_table(world: &World, width: f64, height: f64, opts: &SvgOptions) -> String {
    let scale = (900.0 / width).min(600.0 / height).max(1.0);
    let (left, top) = (20.0, if opts.title.is_some() { 48.0 } else { 20.0 });
    let (w, h) = (width * scale, height * scale);
    let px = |p: crate::tabletop::Point| (left + p.x * scale, top + p.y * scale);
    let pts = |ps: &[crate::tabletop::Point]| {
        ps.iter().map(|p| px(*p)).map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")
    };
    let layout = &world.board.tabletop;
    let legend_lines = 2 + usize::from(!layout.areas.is_empty());
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" font-family="Helvetica, Arial, sans-serif">"#,
        w + 2.0 * left,
        h + top + 24.0 + 16.0 * legend_lines as f64
    );
    if let Some(t) = &opts.title {
        let _ = writeln!(s, r#"<text x="{left}" y="30" font-size="18" font-weight="bold">{}</text>"#, xml_escape(t));
    }
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="white"/>"##);
    let _ = writeln!(
        s,
        r##"<defs><clipPath id="table"><rect x="{left}" y="{top}" width="{w:.1}" height="{h:.1}"/></clipPath></defs>"##
    );
    let _ =
        writeln!(s, r##"<rect x="{left}" y="{top}" width="{w:.1}" height="{h:.1}" fill="#dfe8c8" stroke="#555"/>"##);
    // Everything on the table is clipped to it (arcs reach past its edges).
    s.push_str("<g clip-path=\"url(#table)\">\n");
    // Terrain: lower levels first so hills' crests sit on top.
    let mut order: Vec<usize> = (0..layout.areas.len()).collect();
    order.sort_by_key(|&i| layout.areas[i].level);
    for i in order {
        let a = &layout.areas[i];
        let (fill, _) = terrain_colour(&a.kind);
        let opacity = (0.45 + 0.15 * a.level.max(0) as f64).min(0.9);
        let c = a
            .points
            .iter()
            .fold(crate::tabletop::Point::default(), |acc, p| acc.plus(*p))
            .scale(1.0 / a.points.len().max(1) as f64);
        let (cx, cy) = px(c);
        let mut label = a.name.as_deref().map_or_else(|| a.kind.to_string(), str::to_string);
        if a.level != 0 {
            let _ = write!(label, " L{}", a.level);
        }
        if let Some(cov) = &a.cover {
            let _ = write!(label, " ({cov})");
        }
        let _ = writeln!(
            s,
            r##"<g data-area="{kind}" data-level="{lvl}"><polygon points="{p}" fill="{fill}" fill-opacity="{opacity:.2}" stroke="#555" stroke-width="1"/><text x="{cx:.1}" y="{cy:.1}" font-size="10" text-anchor="middle" fill="#222">{label}</text></g>"##,
            kind = xml_escape(&a.kind),
            lvl = a.level,
            p = pts(&a.points),
            label = xml_escape(&label),
        );
    }
    // Marks: zones and arcs translucent, lines dashed. A zone is labelled at
    // its far end, a line at its end, an arc in its middle (kept on the table).
    let mut labels = Vec::new();
    for m in &world.table_marks {
        let n = m.points.len().max(1) as f64;
        let at = if m.closed && m.points.len() == 4 {
            m.points[0].mid(m.points[1])
        } else if !m.closed {
            m.points.last().copied().unwrap_or_default()
        } else {
            m.points.iter().fold(crate::tabletop::Point::default(), |acc, p| acc.plus(*p)).scale(1.0 / n)
        };
        let at = crate::tabletop::Point::new(at.x.clamp(2.0, width - 2.0), at.y.clamp(2.0, height - 2.0));
        let (lx, ly) = px(at);
        labels.push((lx, ly, m.label.clone()));
        if m.closed {
            let _ = writeln!(
                s,
                r##"<g data-table-mark="{l}"><polygon points="{p}" fill="#f0a020" fill-opacity="0.18" stroke="#d07000" stroke-width="1.5"/></g>"##,
                l = xml_escape(&m.label),
                p = pts(&m.points),
            );
        } else {
            let _ = writeln!(
                s,
                r##"<g data-table-mark="{l}"><polyline points="{p}" fill="none" stroke="#c00000" stroke-width="1.5" stroke-dasharray="6,3"/></g>"##,
                l = xml_escape(&m.label),
                p = pts(&m.points),
            );
        }
    }
    for u in &world.units {
        let Position::Table { at, facing } = u.pos else { continue };
        let colour = SIDE_SVG[side_index(world, &u.side)];
        let id = xml_escape(&u.id);
        match layout.unit_bases(u) {
            Ok((bases, foot)) => {
                let _ = write!(s, r#"<g data-unit="{id}">"#);
                for b in &bases {
                    let front = b.edge(crate::tabletop::Edge::Front);
                    let ((x1, y1), (x2, y2)) = (px(front.a), px(front.b));
                    let _ = write!(
                        s,
                        r#"<polygon points="{}" fill="{colour}" fill-opacity="0.85" stroke="black" stroke-width="0.8"/><line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="black" stroke-width="2.5"/>"#,
                        pts(&b.corners())
                    );
                }
                // The label sits behind the unit's rear edge.
                let (lx, ly) = px(foot.at_local(-foot.depth / 2.0 - 6.0 / scale - 1.0, 0.0));
                let _ = writeln!(
                    s,
                    r#"<text x="{lx:.1}" y="{:.1}" font-size="10" text-anchor="middle">{id} {}</text></g>"#,
                    ly + 3.0,
                    u.strength
                );
            }
            Err(_) => {
                let (x, y) = px(at);
                let a = facing.to_radians();
                let _ = writeln!(
                    s,
                    r#"<g data-unit="{id}"><circle cx="{x:.1}" cy="{y:.1}" r="9" fill="{colour}" stroke="black"/><line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{:.1}" stroke="black" stroke-width="2"/><text x="{x:.1}" y="{:.1}" font-size="10" text-anchor="middle">{id} {}</text></g>"#,
                    x + 14.0 * a.cos(),
                    y + 14.0 * a.sin(),
                    y + 22.0,
                    u.strength,
                );
            }
        }
    }
    for (lx, ly, l) in labels {
        let _ = writeln!(
            s,
            r##"<text x="{lx:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#a04000">{}</text>"##,
            ly - 3.0,
            xml_escape(&l)
        );
    }
    s.push_str("</g>\n");
    // Legend: the scale bar (10 cm) and what the shapes mean.
    let ly = top + h + 20.0;
    let _ = writeln!(
        s,
        r#"<g data-legend="scale"><line x1="{left}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="black" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="11">10 cm ({} m at 36 m/cm)</text></g>"#,
        left + 10.0 * scale,
        left + 10.0 * scale + 6.0,
        ly + 4.0,
        360
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{:.1}" font-size="11">Bases to scale in their side's colour, front edge thick. Orange: arcs and zones a rule marked; dashed red: lines.</text>"#,
        ly + 18.0
    );
    if !layout.areas.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{left}" y="{:.1}" font-size="11">Terrain areas: kind or name, Ln = elevation level, (cover class); higher levels are darker.</text>"#,
            ly + 34.0
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::battlefield::{Section, Side};
    use crate::unit::Unit;

    fn world() -> World {
        let mut w = World::new(Map::Hex { cols: 5, rows: 4, offset: OffsetKind::OddR });
        w.sides = vec![
            Side { name: "allies".into(), baseline: None, pools: vec![] },
            Side { name: "central".into(), baseline: None, pools: vec![] },
        ];
        w.sections = Rc::new(vec![
            Section { name: "left".into(), first_col: 0, last_col: 2 },
            Section { name: "right".into(), first_col: 2, last_col: 4 },
        ]);
        w.set_terrain(Hex::new(1, 1), Some("woods"));
        w.add_token(Hex::new(2, 2), "wire");
        w.add_unit(Unit {
            id: "a<1>".into(),
            side: "allies".into(),
            kind: "infantry".into(),
            strength: 4,
            max_strength: 4,
            leader: None,
            pos: Position::Hex(Hex::new(0, 3)),
            props: vec![],
        })
        .unwrap();
        w.marks.push((Hex::new(3, 0), Rc::from("6")));
        w
    }

    #[test]
    fn svg_has_every_layer_and_escapes_text() {
        let los = LosLine { from: Hex::new(0, 3), to: Hex::new(3, 0), clear: false, blocker: Some(Hex::new(1, 1)) };
        let svg = render(&world(), &SvgOptions { title: Some("A & B".into()), los: Some(los) });
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polygon").count(), 20);
        assert!(svg.contains(r#"data-terrain="woods""#));
        assert!(svg.contains(r#"data-unit="a&lt;1&gt;""#), "ids are escaped");
        assert!(svg.contains(r#"data-token="wire""#));
        assert!(svg.contains(r#"data-mark="6""#));
        assert!(svg.contains(r#"data-section="left""#) && svg.contains(r#"data-section="right""#));
        assert!(svg.contains(r#"data-clear="false""#) && svg.contains(r#"data-blocker="1,1""#));
        assert!(svg.contains("A &amp; B"));
        assert!(svg.contains("blocked at (1,1)"));
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn tabletop_svg() {
        let mut w = World::new(Map::Table { width: 100.0, height: 50.0 });
        w.sides = vec![Side { name: "x".into(), baseline: None, pools: vec![] }];
        let svg = render(&w, &SvgOptions::default());
        assert!(svg.contains("<rect") && svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn tabletop_svg_draws_bases_areas_and_marks() {
        use crate::tabletop::{Area, BaseSpec, Point, TableMark};
        let mut w = World::new(Map::Table { width: 100.0, height: 50.0 });
        w.sides = vec![Side { name: "x".into(), baseline: None, pools: vec![] }];
        let mut board = (*w.board).clone();
        board
            .tabletop
            .bases
            .insert("line".into(), BaseSpec { width: 4.0, depth: 2.0, formations: vec![("line".into(), 0)] });
        board.tabletop.areas.push(Area {
            kind: "woods".into(),
            points: vec![Point::new(10.0, 10.0), Point::new(30.0, 10.0), Point::new(20.0, 30.0)],
            level: 1,
            cover: Some("heavy".into()),
            name: None,
        });
        w.board = Rc::new(board);
        w.add_unit(Unit {
            id: "b1".into(),
            side: "x".into(),
            kind: "line".into(),
            strength: 3,
            max_strength: 3,
            leader: None,
            pos: Position::Table { at: Point::new(50.0, 25.0), facing: 270.0 },
            props: vec![],
        })
        .unwrap();
        w.table_marks.push(TableMark {
            label: "arc".into(),
            points: vec![Point::new(1.0, 1.0), Point::new(5.0, 1.0), Point::new(3.0, 4.0)],
            closed: true,
        });
        let svg = render(&w, &SvgOptions::default());
        assert_eq!(svg.matches("<polygon").count(), 1 + 3 + 1, "{svg}");
        assert!(svg.contains(r#"data-area="woods""#) && svg.contains("woods L1 (heavy)"));
        assert!(svg.contains(r#"data-table-mark="arc""#));
        assert!(svg.contains(r#"data-unit="b1""#) && !svg.contains("<circle"));
        assert!(!svg.contains("NaN"));
    }
}
