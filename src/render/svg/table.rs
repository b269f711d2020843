//! The SVG picture of a tabletop (bases as rotated rectangles, arcs and
//! zones a rule marked) that `:map --svg FILE` writes and `:view` shows when
//! the map is a table.
//!
//! The picture shows the part of the table where things are (fit to
//! content: a small scene on a large table fills the picture), to scale,
//! with a scale bar. Every label (units, leaders, marks, terrain areas) goes
//! through the label placer: it sits where it belongs when that spot is
//! free, else nearby with a leader line back to its piece, never over a base
//! or another label.

use super::*;
use crate::render::place::{Placed, Placer, ASCENT};
use crate::tabletop::{Base, Point};
use crate::unit::Position;

/// The picture's map area is at most this big, in pixels.
const MAX_W: f64 = 880.0;
const MAX_H: f64 = 560.0;
/// Label sizes.
const UNIT_FONT: f64 = 10.0;
const MARK_FONT: f64 = 10.0;
const AREA_FONT: f64 = 10.0;
/// How far a label looks for a free spot, in pixels.
const REACH: f64 = 140.0;

/// The part of the table the picture shows, in centimetres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct View {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl View {
    fn w(&self) -> f64 {
        self.x1 - self.x0
    }
    fn h(&self) -> f64 {
        self.y1 - self.y0
    }
    /// Whether this is the whole table.
    fn whole(&self, width: f64, height: f64) -> bool {
        self.x0 <= 0.0 && self.y0 <= 0.0 && self.x1 >= width && self.y1 >= height
    }
}

/// What the picture must show: every base, leader and terrain area, and
/// the marks near them (an arc of fire reaches the table's edge: it is shown
/// as far as a quarter of the scene's size, at least 10 cm, past the
/// pieces), with a margin; the whole table when that is most of it, or when
/// the table is empty. Never less than 30 x 20 cm (or the table, if smaller).
pub(crate) fn view_of(world: &World, width: f64, height: f64) -> View {
    let layout = &world.board.tabletop;
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for u in &world.units {
        let Position::Table { at, .. } = u.pos else { continue };
        match layout.unit_bases(u) {
            Ok((bases, _)) => pts.extend(bases.iter().flat_map(|b| b.corners()).map(|p| (p.x, p.y))),
            Err(_) => pts.push((at.x, at.y)),
        }
    }
    for a in &layout.areas {
        pts.extend(a.points.iter().map(|p| (p.x, p.y)));
    }
    let table = Rect::new(0.0, 0.0, width, height);
    let marks = world.table_marks.iter().flat_map(|m| m.points.iter().map(|p| (p.x, p.y)));
    // Marks are kept within reach of the pieces (or the table, with no pieces).
    let reach = match Rect::around(pts.iter().copied()) {
        Some(c) => c.grow((0.25 * c.w.max(c.h)).max(10.0)),
        None => table,
    };
    let clamp = |(x, y): (f64, f64), r: &Rect| (x.clamp(r.x, r.right()), y.clamp(r.y, r.bottom()));
    let marks: Vec<(f64, f64)> = marks.map(|p| clamp(clamp(p, &reach), &table)).collect();
    pts.extend(marks);
    let whole = View { x0: 0.0, y0: 0.0, x1: width, y1: height };
    let Some(b) = Rect::around(pts) else { return whole };
    let margin = (0.08 * b.w.max(b.h)).max(4.0);
    let mut v = View {
        x0: (b.x - margin).max(0.0),
        y0: (b.y - margin).max(0.0),
        x1: (b.right() + margin).min(width),
        y1: (b.bottom() + margin).min(height),
    };
    // Grow a tiny view to a readable size, about its middle, inside the table.
    for (lo, hi, least, max) in [(&mut v.x0, &mut v.x1, 30.0f64, width), (&mut v.y0, &mut v.y1, 20.0, height)] {
        let least = least.min(max);
        if *hi - *lo < least {
            let mid = ((*lo + *hi) / 2.0).clamp(least / 2.0, max - least / 2.0);
            *lo = mid - least / 2.0;
            *hi = mid + least / 2.0;
        }
    }
    if v.w() >= 0.75 * width && v.h() >= 0.75 * height {
        whole
    } else {
        v
    }
}

/// A round scale-bar length: the longest of 1, 2, 5, 10, 20, 50... cm that
/// is at most `most` pixels long at `scale` pixels per cm.
fn scale_bar(scale: f64, most: f64) -> f64 {
    let mut best = 1.0;
    for decade in [1.0, 10.0, 100.0, 1000.0] {
        for step in [1.0, 2.0, 5.0] {
            if step * decade * scale <= most {
                best = step * decade;
            }
        }
    }
    best
}

/// A leader's flag standing at (x, y): a pole and a pennant in the side's colour.
pub(super) fn flag(x: f64, y: f64, colour: &str, k: f64) -> String {
    format!(
        r#"<path d="M{x:.1},{y:.1} V{:.1}" stroke="black" stroke-width="1.3"/><path d="M{x:.1},{:.1} L{:.1},{:.1} L{x:.1},{:.1} Z" fill="{colour}" stroke="black" stroke-width="0.7"/><circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="black"/>"#,
        y - 15.0 * k,
        y - 15.0 * k,
        x + 11.0 * k,
        y - 11.5 * k,
        y - 8.0 * k,
        1.8 * k
    )
}

/// A label the placer put down, as SVG: the text (with a white halo so it
/// reads over terrain and marks) and its leader line.
fn label_svg(s: &mut String, placed: &Placed, text: &str, size: f64, fill: &str, kind: &str, italic: bool) {
    if let Some(((x1, y1), (x2, y2))) = placed.leader {
        let _ = writeln!(
            s,
            r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#555" stroke-width="0.8" data-leader="{kind}"/>"##
        );
    }
    let (x, y) = placed.text_at(size);
    let style = if italic { r#" font-style="italic""# } else { "" };
    let _ = writeln!(
        s,
        r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="middle" fill="{fill}"{style} stroke="white" stroke-width="3" stroke-linejoin="round" paint-order="stroke" data-label="{kind}">{}</text>"#,
        xml_escape(text)
    );
}

/// A tabletop picture, to scale: terrain areas (shaded by elevation level,
/// labelled with kind and cover), units as their bases with the front edge
/// drawn thick, leaders as flags, and the shapes rules marked (arcs of fire,
/// frontage zones, centre lines). A unit whose type has no base size is a
/// circle with a facing tick.
#[expect(
    clippy::too_many_lines,
    reason = "draws the table layer by layer (areas, marks, bases, labels, legend) in one coordinate frame"
)]
pub(super) fn render_table(world: &World, width: f64, height: f64, opts: &SvgOptions) -> String {
    let view = view_of(world, width, height);
    let scale = (MAX_W / view.w()).min(MAX_H / view.h());
    let (left, top) = (20.0, if opts.title.is_some() { 44.0 } else { 16.0 });
    let (w, h) = (view.w() * scale, view.h() * scale);
    let px = |p: Point| (left + (p.x - view.x0) * scale, top + (p.y - view.y0) * scale);
    let pts =
        |ps: &[Point]| ps.iter().map(|p| px(*p)).map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ");
    let layout = &world.board.tabletop;
    let draw = &opts.draw;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<defs><clipPath id="table"><rect x="{left}" y="{top}" width="{w:.1}" height="{h:.1}"/></clipPath></defs>"##
    );
    // The table (grey past its edges, when the view reaches them), and what the view shows of it.
    let (tx0, ty0) = px(Point::new(0.0, 0.0));
    let (tx1, ty1) = px(Point::new(width, height));
    let _ = writeln!(
        s,
        r##"<g id="table-view" data-cm="{left} {top} {} {} {scale:.4}" clip-path="url(#table)"><rect x="{left}" y="{top}" width="{w:.1}" height="{h:.1}" fill="#cfcfc4"/><rect x="{tx0:.1}" y="{ty0:.1}" width="{:.1}" height="{:.1}" fill="#dfe8c8" stroke="#555"/>"##,
        view.x0,
        view.y0,
        tx1 - tx0,
        ty1 - ty0
    );
    // Terrain: lower levels first so hills' crests sit on top.
    let mut order: Vec<usize> = (0..layout.areas.len()).collect();
    order.sort_by_key(|&i| layout.areas[i].level);
    for &i in &order {
        let a = &layout.areas[i];
        let (fill, _) = terrain_colour(&a.kind);
        let opacity = (0.45 + 0.15 * a.level.max(0) as f64).min(0.9);
        let name = a.name.as_deref().map(|n| format!(r#" data-name="{}""#, xml_escape(n))).unwrap_or_default();
        let _ = writeln!(
            s,
            r##"<g data-area="{kind}" data-level="{lvl}"{name}><polygon points="{p}" fill="{fill}" fill-opacity="{opacity:.2}" stroke="#555" stroke-width="1"/></g>"##,
            kind = xml_escape(&a.kind),
            lvl = a.level,
            p = pts(&a.points),
        );
    }
    // Marks: zones and arcs translucent, lines dashed; faded when an earlier action left them.
    for m in &world.table_marks {
        let old = opts.earlier.as_ref().is_some_and(|e| e.table.contains(m));
        let fade =
            if old { format!(r#" class="mark faded" opacity="{FADED}""#) } else { r#" class="mark fresh""#.into() };
        let shape = if m.closed {
            format!(
                r##"<polygon points="{}" fill="#f0a020" fill-opacity="0.18" stroke="#d07000" stroke-width="1.5"/>"##,
                pts(&m.points)
            )
        } else {
            format!(
                r##"<polyline points="{}" fill="none" stroke="#c00000" stroke-width="1.5" stroke-dasharray="6,3"/>"##,
                pts(&m.points)
            )
        };
        let _ = writeln!(s, r#"<g data-table-mark="{}"{fade}>{shape}</g>"#, xml_escape(&m.label));
    }
    // Units: bases to scale (front edge thick), leaders as flags. Each is a
    // box the labels keep off.
    let mut placer = Placer::new(Rect::new(left, top, w, h));
    let mut unit_labels: Vec<(Rect, (f64, f64), String)> = Vec::new();
    let mut leader_labels: Vec<(Rect, (f64, f64), String)> = Vec::new();
    for u in &world.units {
        let Position::Table { at, facing } = u.pos else { continue };
        let colour = SIDE_SVG[side_index(world, &u.side)];
        let id = xml_escape(&u.id);
        let tip = xml_escape(&super::describe(u));
        let text = format!("{} {}", u.id, u.strength);
        if is_leader(draw, u) {
            let (x, y) = px(at);
            let _ = writeln!(
                s,
                r#"<g data-unit="{id}" data-leader-flag="1"><title>{tip}</title>{}</g>"#,
                flag(x, y, colour, 1.0)
            );
            placer.block(Rect::new(x - 2.5, y - 16.0, 14.5, 18.5));
            let tw = text_width(&u.id, UNIT_FONT, false);
            let want = Rect::new(x + 13.0, y - 15.0, tw, (ASCENT + crate::render::place::DESCENT) * UNIT_FONT);
            leader_labels.push((want, (x + 6.0, y - 10.0), u.id.to_string()));
            continue;
        }
        match layout.unit_bases(u) {
            Ok((bases, foot)) => {
                let _ = write!(s, r#"<g data-unit="{id}"><title>{tip}</title>"#);
                for b in &bases {
                    let front = b.edge(crate::tabletop::Edge::Front);
                    let ((x1, y1), (x2, y2)) = (px(front.a), px(front.b));
                    let _ = write!(
                        s,
                        r#"<polygon points="{}" fill="{colour}" fill-opacity="0.85" stroke="black" stroke-width="0.8"/><line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="black" stroke-width="2.5"/>"#,
                        pts(&b.corners())
                    );
                    placer.block(base_box(b, &px));
                }
                s.push_str("</g>\n");
                // The label wants to sit behind the unit's rear edge.
                let rear = px(foot.at_local(-foot.depth / 2.0, 0.0));
                let (bx, by) = px(foot.at_local(-foot.depth / 2.0 - 7.0 / scale, 0.0));
                let want = Rect::of_text(&text, bx, by + 3.5, UNIT_FONT, false, crate::render::place::Anchor::Middle);
                unit_labels.push((want, rear, text));
            }
            Err(_) => {
                let (x, y) = px(at);
                let a = facing.to_radians();
                let _ = writeln!(
                    s,
                    r#"<g data-unit="{id}"><title>{tip}</title><circle cx="{x:.1}" cy="{y:.1}" r="9" fill="{colour}" stroke="black"/><line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{:.1}" stroke="black" stroke-width="2"/></g>"#,
                    x + 14.0 * a.cos(),
                    y + 14.0 * a.sin(),
                );
                placer.block(Rect::new(x - 14.0, y - 14.0, 28.0, 28.0));
                let want = Rect::of_text(&text, x, y + 24.0, UNIT_FONT, false, crate::render::place::Anchor::Middle);
                unit_labels.push((want, (x, y + 9.0), text));
            }
        }
    }
    // Labels, most important first: units, leaders, marks, terrain areas.
    let mut labels = String::new();
    for (want, anchor, text) in &unit_labels {
        let p = placer.place(*want, *anchor, 3.0, REACH);
        label_svg(&mut labels, &p, text, UNIT_FONT, "#111", "unit", false);
    }
    for (want, anchor, text) in &leader_labels {
        let p = placer.place(*want, *anchor, 6.0, REACH);
        label_svg(&mut labels, &p, text, UNIT_FONT, "#111", "leader", true);
    }
    for m in &world.table_marks {
        // A zone is labelled at its far end, a line at its end, an arc in its middle (kept on the table).
        let n = m.points.len().max(1) as f64;
        let at = if m.closed && m.points.len() == 4 {
            m.points[0].mid(m.points[1])
        } else if !m.closed {
            m.points.last().copied().unwrap_or_default()
        } else {
            m.points.iter().fold(Point::default(), |acc, p| acc.plus(*p)).scale(1.0 / n)
        };
        let at = Point::new(at.x.clamp(view.x0 + 2.0, view.x1 - 2.0), at.y.clamp(view.y0 + 2.0, view.y1 - 2.0));
        let (lx, ly) = px(at);
        let want = Rect::of_text(&m.label, lx, ly - 3.0, MARK_FONT, false, crate::render::place::Anchor::Middle);
        let p = placer.place(want, (lx, ly), 4.0, REACH);
        let fill = if m.closed { "#a04000" } else { "#b00000" };
        label_svg(&mut labels, &p, &m.label, MARK_FONT, fill, "mark", false);
    }
    for &i in &order {
        let a = &layout.areas[i];
        let c = a.points.iter().fold(Point::default(), |acc, p| acc.plus(*p)).scale(1.0 / a.points.len().max(1) as f64);
        let (cx, cy) = px(c);
        let mut label = a.name.as_deref().map_or_else(|| a.kind.to_string(), str::to_string);
        if a.level != 0 {
            let _ = write!(label, " L{}", a.level);
        }
        if let Some(cov) = &a.cover {
            let _ = write!(label, " ({cov})");
        }
        let want = Rect::of_text(&label, cx, cy + 3.5, AREA_FONT, false, crate::render::place::Anchor::Middle);
        let p = placer.place(want, (cx, cy), 4.0, REACH);
        label_svg(&mut labels, &p, &label, AREA_FONT, "#222", "area", true);
    }
    s.push_str(&labels);
    s.push_str("</g>\n");

    // The key under the table.
    let rows = table_legend(world, width, height, &view, scale, opts);
    let legend_top = top + h + 12.0;
    let page_w = w + 2.0 * left;
    let (legend, legend_h) = legend::draw(&rows, left, legend_top, page_w - 2.0 * left);
    let mut out = String::new();
    header(&mut out, page_w, legend_top + legend_h + 10.0, left, opts.title.as_deref());
    out.push_str(&s);
    out.push_str(&legend);
    out.push_str("</svg>\n");
    out
}

/// The box a base covers on the picture (a turned base's corners, boxed).
fn base_box(b: &Base, px: &impl Fn(Point) -> (f64, f64)) -> Rect {
    Rect::around(b.corners().iter().map(|p| px(*p))).unwrap_or(Rect::new(0.0, 0.0, 0.0, 0.0))
}

/// The tabletop's key: the scale bar, the sides, what the shapes mean, the
/// marks by label, terrain areas, pools, and units not on the table.
fn table_legend(world: &World, width: f64, height: f64, view: &View, scale: f64, opts: &SvgOptions) -> Vec<Row> {
    let draw = &opts.draw;
    let mut rows = Vec::new();
    let bar = scale_bar(scale, 160.0);
    let cm = crate::lua::format_number(bar);
    let scale_text = match draw.metres_per_cm {
        Some(m) => format!("{cm} cm = {} m", crate::lua::format_number(bar * m)),
        None => format!("{cm} cm"),
    };
    let mut scale_items = vec![Item::with(Icon::Scale(bar * scale), scale_text)];
    if !view.whole(width, height) {
        scale_items.push(Item::text(format!(
            "showing x {}-{}, y {}-{} of the {} x {} cm table",
            crate::lua::format_number(view.x0.round()),
            crate::lua::format_number(view.x1.round()),
            crate::lua::format_number(view.y0.round()),
            crate::lua::format_number(view.y1.round()),
            crate::lua::format_number(width),
            crate::lua::format_number(height)
        )));
    }
    rows.push(Row::new("Scale:", scale_items));
    rows.extend(sides_row(world, Icon::Counter));
    let mut units = vec![Item::text("bases to scale, front edge thick, labelled id strength")];
    if world.units.iter().any(|u| u.pos != Position::Off && is_leader(draw, u)) {
        units.push(Item::with(Icon::Flag("#555".into()), format!("leader ({})", draw.leaders.join(", "))));
    }
    rows.push(Row::new("Units:", units));
    if !world.table_marks.is_empty() {
        let mut items: Vec<Item> = Vec::new();
        for m in &world.table_marks {
            let icon = if m.closed { Icon::Zone } else { Icon::Line };
            if !items.iter().any(|i| i.text == *m.label) {
                items.push(Item::with(icon, m.label.to_string()));
            }
        }
        rows.push(Row::new("Marks:", items));
    }
    if !world.board.tabletop.areas.is_empty() {
        rows.push(Row::note(
            "Terrain areas: kind or name, Ln = elevation level, (cover class); higher levels are darker.",
        ));
    }
    rows.extend(pools_rows(world));
    rows.extend(absent_rows(world, draw));
    rows
}
