//! The SVG picture of a tabletop (bases as rotated rectangles, arcs and
//! zones a rule marked) that `:map --svg FILE` writes when the map is a table.

use super::*;

/// A tabletop picture, to scale: terrain areas (shaded by elevation level,
/// labelled with kind and cover), units as their bases with the front edge
/// drawn thick, and the shapes rules marked (arcs of fire, frontage zones,
/// centre lines). A unit whose type has no base size is a circle with a
/// facing tick.
#[expect(
    clippy::too_many_lines,
    reason = "draws the table layer by layer (areas, marks, bases, scale) in one coordinate frame"
)]
pub(super) fn render_table(world: &World, width: f64, height: f64, opts: &SvgOptions) -> String {
    let scale = (900.0 / width).min(600.0 / height).max(1.0);
    let (left, top) = (20.0, if opts.title.is_some() { 48.0 } else { 20.0 });
    let (w, h) = (width * scale, height * scale);
    let px = |p: crate::tabletop::Point| (left + p.x * scale, top + p.y * scale);
    let pts = |ps: &[crate::tabletop::Point]| {
        ps.iter().map(|p| px(*p)).map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")
    };
    let layout = &world.board.tabletop;
    let pools = crate::render::side_pools(world);
    let legend_lines = 2 + usize::from(!layout.areas.is_empty()) + pools.len();
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
    let mut py = ly + if layout.areas.is_empty() { 34.0 } else { 50.0 };
    for (side, p) in &pools {
        let _ = writeln!(
            s,
            r#"<text x="{left}" y="{py:.1}" font-size="11">{}</text>"#,
            xml_escape(&format!("Pools of {side}: {}", crate::render::pools_text(p)))
        );
        py += 16.0;
    }
    s.push_str("</svg>\n");
    s
}
