//! The key under an SVG map: rows of items (an icon as the map draws it, and
//! what it means), each row led by its title, wrapped to the picture's width
//! so that nothing runs off its right edge.

use std::fmt::Write as _;

use super::{badge, mark_disc, xml_escape, BADGE_W};
use crate::render::place::{flow, text_width, ASCENT};

/// Legend text size and line height.
pub(super) const FONT: f64 = 12.0;
pub(super) const LINE: f64 = 18.0;
/// Space between items, and the indent of a row's wrapped lines.
const GAP: f64 = 14.0;
const INDENT: f64 = 16.0;

/// An icon drawn before an item's text.
#[derive(Clone, Debug)]
pub(super) enum Icon {
    /// A filled square (a terrain's colour).
    Swatch(String),
    /// A unit counter in a side's colour.
    Counter(String),
    /// A leader's round token (hex map) in a side's colour.
    Leader(String),
    /// A leader's flag (tabletop) in a side's colour.
    Flag(String),
    /// A token badge with its letter.
    Badge(String),
    /// A mark's yellow disc with its short form.
    Disc(String),
    /// The count of a stack, as drawn left of its counter.
    Stack(usize),
    /// The count of units aboard a carrier, as drawn left of its counter.
    Cargo(usize),
    /// A translucent orange outline (a marked arc or zone).
    Zone,
    /// A dashed red line (a marked line).
    Line,
    /// A line of sight: green when clear, red when blocked.
    Los(bool),
    /// A scale bar this many pixels long.
    Scale(f64),
}

impl Icon {
    fn width(&self) -> f64 {
        match self {
            Icon::Swatch(_) | Icon::Leader(_) => 10.0,
            Icon::Counter(_) | Icon::Zone => 16.0,
            Icon::Flag(_) => 11.0,
            Icon::Badge(_) => BADGE_W,
            Icon::Disc(k) => 2.0 * super::disc_radius(k),
            Icon::Stack(_) | Icon::Cargo(_) => super::SLOT_W,
            Icon::Line | Icon::Los(_) => 18.0,
            Icon::Scale(px) => *px,
        }
    }

    /// Draws the icon with its left edge at `x`, centred on the line whose
    /// text has its baseline at `base`.
    fn draw(&self, x: f64, base: f64) -> String {
        let mid = base - 4.0;
        match self {
            Icon::Swatch(c) => {
                format!(
                    r##"<rect x="{x:.1}" y="{:.1}" width="10" height="10" fill="{c}" stroke="#555" stroke-width="0.5"/>"##,
                    mid - 5.0
                )
            }
            Icon::Counter(c) => format!(
                r#"<rect x="{x:.1}" y="{:.1}" width="16" height="10" rx="2" fill="{c}" stroke="black" stroke-width="0.8"/>"#,
                mid - 5.0
            ),
            Icon::Leader(c) => format!(
                r#"<circle cx="{:.1}" cy="{mid:.1}" r="5" fill="{c}" stroke="black" stroke-width="0.8"/>"#,
                x + 5.0
            ),
            Icon::Flag(c) => super::table::flag(x + 1.0, mid + 6.0, c, 0.75),
            Icon::Badge(l) => badge(x, mid - BADGE_W / 2.0, l, None),
            Icon::Disc(k) => mark_disc(x + super::disc_radius(k), mid, k, None, false),
            Icon::Stack(n) => super::stack_badge(x, mid - super::SLOT_H / 2.0, *n, None),
            Icon::Cargo(n) => super::cargo_badge(x, mid - super::SLOT_H / 2.0, *n, "#333", None),
            Icon::Zone => format!(
                r##"<rect x="{x:.1}" y="{:.1}" width="16" height="10" fill="#f0a020" fill-opacity="0.3" stroke="#d07000" stroke-width="1.2"/>"##,
                mid - 5.0
            ),
            Icon::Line => format!(
                r##"<line x1="{x:.1}" y1="{mid:.1}" x2="{:.1}" y2="{mid:.1}" stroke="#c00000" stroke-width="1.5" stroke-dasharray="5,2"/>"##,
                x + 18.0
            ),
            Icon::Los(clear) => format!(
                r#"<line x1="{x:.1}" y1="{mid:.1}" x2="{:.1}" y2="{mid:.1}" stroke="{}" stroke-width="3" stroke-linecap="round"/>"#,
                x + 18.0,
                super::los_colour(*clear)
            ),
            Icon::Scale(px) => format!(
                r#"<path d="M{x:.1},{:.1} V{:.1} H{:.1} V{:.1}" fill="none" stroke="black" stroke-width="1.5"/>"#,
                mid - 4.0,
                mid + 1.0,
                x + px,
                mid - 4.0
            ),
        }
    }
}

/// One item of the legend: an icon (or none) and its text, which may be
/// bold and coloured (a side's name in its colour).
#[derive(Clone, Debug)]
pub(super) struct Item {
    pub icon: Option<Icon>,
    pub text: String,
    pub fill: Option<String>,
    pub bold: bool,
}

impl Item {
    pub fn text(text: impl Into<String>) -> Item {
        Item { icon: None, text: text.into(), fill: None, bold: false }
    }

    pub fn with(icon: Icon, text: impl Into<String>) -> Item {
        Item { icon: Some(icon), text: text.into(), fill: None, bold: false }
    }

    fn width(&self) -> f64 {
        let icon = self.icon.as_ref().map_or(0.0, |i| i.width() + 4.0);
        icon + text_width(&self.text, FONT, self.bold)
    }
}

/// A row of the legend: its title (`Sides:`; empty for a plain note) and items.
#[derive(Clone, Debug)]
pub(super) struct Row {
    pub title: String,
    pub items: Vec<Item>,
}

impl Row {
    pub fn new(title: impl Into<String>, items: Vec<Item>) -> Row {
        Row { title: title.into(), items }
    }

    /// A row of one sentence, which wraps between words.
    pub fn note(text: &str) -> Row {
        Row { title: String::new(), items: vec![Item::text(text)] }
    }
}

/// An item too wide for a line is cut between words into items that fit
/// (the first keeps the icon).
fn split_to_fit(item: &Item, room: f64) -> Vec<Item> {
    if item.width() <= room {
        return vec![item.clone()];
    }
    let mut out: Vec<Item> = Vec::new();
    let mut cur = Item { text: String::new(), ..item.clone() };
    for word in item.text.split(' ') {
        let mut next = cur.clone();
        if !next.text.is_empty() {
            next.text.push(' ');
        }
        next.text.push_str(word);
        if next.width() > room && !cur.text.is_empty() {
            out.push(cur);
            cur = Item { icon: None, text: word.to_string(), ..item.clone() };
        } else {
            cur = next;
        }
    }
    out.push(cur);
    out
}

/// Draws the rows from `top` down, between `left` and `left + width`.
/// Returns the SVG and the height used. Every item is one `data-label`
/// group, so a test can check from the DOM that none overlaps another.
pub(super) fn draw(rows: &[Row], left: f64, top: f64, width: f64) -> (String, f64) {
    let mut s = String::new();
    let mut y = top;
    let right = left + width;
    let _ = writeln!(s, r##"<g id="legend" font-size="{FONT}" fill="#222">"##);
    for row in rows {
        let title_w = if row.title.is_empty() { 0.0 } else { text_width(&row.title, FONT, true) + 8.0 };
        if !row.title.is_empty() {
            let _ = writeln!(
                s,
                r#"<text x="{left:.1}" y="{:.1}" font-weight="bold" data-label="legend">{}</text>"#,
                y + ASCENT * FONT + 2.0,
                xml_escape(&row.title)
            );
        }
        let items: Vec<Item> = row.items.iter().flat_map(|i| split_to_fit(i, width - INDENT)).collect();
        let widths: Vec<f64> = items.iter().map(Item::width).collect();
        let indent = if row.title.is_empty() { left } else { left + INDENT };
        let (at, h) = flow(&widths, left + title_w, indent, right, LINE, GAP);
        for (item, (x, dy)) in items.iter().zip(at) {
            let base = y + dy + ASCENT * FONT + 2.0;
            let _ = write!(s, r#"<g data-label="legend">"#);
            let mut tx = x;
            if let Some(icon) = &item.icon {
                s.push_str(&icon.draw(x, base));
                tx += icon.width() + 4.0;
            }
            let fill = item.fill.as_deref().map(|f| format!(r#" fill="{f}""#)).unwrap_or_default();
            let bold = if item.bold { r#" font-weight="bold""# } else { "" };
            let _ = writeln!(s, r#"<text x="{tx:.1}" y="{base:.1}"{fill}{bold}>{}</text></g>"#, xml_escape(&item.text));
        }
        y += h.max(LINE);
    }
    s.push_str("</g>\n");
    (s, y - top)
}
