//! Where text goes in the SVG pictures: how wide a line of text is, boxes,
//! and a label placer that keeps labels off each other and off the pieces.
//!
//! The SVG asks for Helvetica or Arial; Liberation Sans (what Chromium on
//! Debian draws them with) has the same advance widths, so the widths here
//! are Helvetica's (its AFM file, in thousandths of the font size). A box is
//! what a browser's `getBBox` gives for the text: the font's ascent above the
//! baseline and its descent under it, the advance widths across.

/// Advance widths of Helvetica, in 1/1000 em, for ASCII 32 (space) to 126 (`~`).
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, // 0-9
    278, 278, 584, 584, 584, 556, 1015, // : to @
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944,
    667, 667, 611, // A-Z
    278, 278, 278, 469, 556, 333, // [ to `
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722,
    500, 500, 500, // a-z
    334, 260, 334, 584, // { to ~
];

/// The font's ascent and descent, as fractions of its size (Liberation Sans).
pub const ASCENT: f64 = 0.905;
pub const DESCENT: f64 = 0.212;

/// How wide `text` is at `size` pixels (bold text is about 6% wider).
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let em: u32 = text
        .chars()
        .map(|c| match c as u32 {
            n @ 32..=126 => u32::from(HELVETICA[(n - 32) as usize]),
            // Stars, arrows, ellipses, accented letters: about a digit's width, or wider.
            0x2026 => 1000,
            0x2605 | 0x2691 | 0x25A0 => 800,
            _ => 600,
        })
        .sum();
    f64::from(em) / 1000.0 * size * if bold { 1.06 } else { 1.0 }
}

/// A box, from its top-left corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    /// The box of a line of text whose anchor is (x, baseline y).
    pub fn of_text(text: &str, x: f64, y: f64, size: f64, bold: bool, anchor: Anchor) -> Rect {
        let w = text_width(text, size, bold);
        let left = match anchor {
            Anchor::Start => x,
            Anchor::Middle => x - w / 2.0,
            Anchor::End => x - w,
        };
        Rect::new(left, y - ASCENT * size, w, (ASCENT + DESCENT) * size)
    }

    /// The smallest box holding all the points.
    pub fn around(points: impl IntoIterator<Item = (f64, f64)>) -> Option<Rect> {
        let mut it = points.into_iter();
        let (x0, y0) = it.next()?;
        let (mut a, mut b, mut c, mut d) = (x0, y0, x0, y0);
        for (x, y) in it {
            a = a.min(x);
            b = b.min(y);
            c = c.max(x);
            d = d.max(y);
        }
        Some(Rect::new(a, b, c - a, d - b))
    }

    pub fn right(&self) -> f64 {
        self.x + self.w
    }

    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }

    pub fn centre(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }

    /// Whether the two boxes share any area (touching edges do not count).
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }

    /// Whether `o` lies wholly inside this box.
    pub fn holds(&self, o: &Rect) -> bool {
        o.x >= self.x - 1e-9
            && o.y >= self.y - 1e-9
            && o.right() <= self.right() + 1e-9
            && o.bottom() <= self.bottom() + 1e-9
    }

    /// The box grown by `d` on every side.
    pub fn grow(&self, d: f64) -> Rect {
        Rect::new(self.x - d, self.y - d, self.w + 2.0 * d, self.h + 2.0 * d)
    }

    /// The union of two boxes.
    pub fn join(&self, o: &Rect) -> Rect {
        let x = self.x.min(o.x);
        let y = self.y.min(o.y);
        Rect::new(x, y, self.right().max(o.right()) - x, self.bottom().max(o.bottom()) - y)
    }

    /// The point of the box nearest to (px, py).
    pub fn nearest(&self, px: f64, py: f64) -> (f64, f64) {
        (px.clamp(self.x, self.right()), py.clamp(self.y, self.bottom()))
    }
}

/// Where a text's x is: its start, middle or end (SVG `text-anchor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// A label the placer put down: its box, and a leader line from the thing
/// it names to the box when the box had to move away from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub rect: Rect,
    pub leader: Option<((f64, f64), (f64, f64))>,
}

impl Placed {
    /// The baseline and x of a middle-anchored line of text of `size` in the box.
    pub fn text_at(&self, size: f64) -> (f64, f64) {
        (self.rect.x + self.rect.w / 2.0, self.rect.y + ASCENT * size)
    }
}

/// Puts labels where nothing else is: each label tries spots around its
/// anchor, nearest first, and takes the first that is inside the bounds and
/// clear of every box taken so far (pieces and earlier labels). A label
/// that found no spot near its thing gets a leader line back to it.
#[derive(Clone, Debug)]
pub struct Placer {
    taken: Vec<Rect>,
    bounds: Rect,
}

/// Directions tried around an anchor, in order of preference: under, over,
/// right, left, then the diagonals and the directions between.
const DIRECTIONS: [(f64, f64); 16] = [
    (0.0, 1.0),
    (0.0, -1.0),
    (1.0, 0.0),
    (-1.0, 0.0),
    (1.0, 1.0),
    (-1.0, 1.0),
    (1.0, -1.0),
    (-1.0, -1.0),
    (0.5, 1.0),
    (-0.5, 1.0),
    (0.5, -1.0),
    (-0.5, -1.0),
    (1.0, 0.5),
    (-1.0, 0.5),
    (1.0, -0.5),
    (-1.0, -0.5),
];

/// How far a label moves from where it wanted to be before it gets a leader line.
const LEADER_AFTER: f64 = 4.0;

impl Placer {
    /// A placer for labels that must stay inside `bounds`.
    pub fn new(bounds: Rect) -> Placer {
        Placer { taken: Vec::new(), bounds }
    }

    /// Marks a box as taken (a counter, a base, a title).
    pub fn block(&mut self, r: Rect) {
        self.taken.push(r);
    }

    /// Whether a box is free: inside the bounds and over nothing taken.
    pub fn is_free(&self, r: &Rect) -> bool {
        self.bounds.holds(r) && !self.taken.iter().any(|t| t.overlaps(r))
    }

    /// Places a `w` x `h` label: first at `want` (its box's top-left corner,
    /// where it belongs), else around `anchor` (the point it names), at
    /// `gap` from the anchor and then farther out, up to `reach`. Takes the
    /// box. When nothing is free, the label goes where it wanted to be.
    pub fn place(&mut self, want: Rect, anchor: (f64, f64), gap: f64, reach: f64) -> Placed {
        let placed = self.find(want, anchor, gap, reach);
        self.taken.push(placed.rect);
        placed
    }

    fn find(&self, want: Rect, anchor: (f64, f64), gap: f64, reach: f64) -> Placed {
        let (w, h) = (want.w, want.h);
        if self.is_free(&want) {
            return Placed { rect: want, leader: None };
        }
        let mut d = gap;
        while d <= reach {
            for (dx, dy) in DIRECTIONS {
                // The box's edge (or corner) nearest the anchor sits `d` away along the direction.
                let len = (dx * dx + dy * dy).sqrt();
                let (ux, uy) = (dx / len, dy / len);
                let (cx, cy) = (anchor.0 + ux * d, anchor.1 + uy * d);
                let x = if ux > 0.3 {
                    cx
                } else if ux < -0.3 {
                    cx - w
                } else {
                    cx - w / 2.0
                };
                let y = if uy > 0.3 {
                    cy
                } else if uy < -0.3 {
                    cy - h
                } else {
                    cy - h / 2.0
                };
                let r = Rect::new(x, y, w, h);
                if self.is_free(&r) {
                    let moved = (r.x - want.x).hypot(r.y - want.y);
                    let leader =
                        (moved > LEADER_AFTER && d > gap + 1e-9).then(|| (anchor, r.nearest(anchor.0, anchor.1)));
                    return Placed { rect: r, leader };
                }
            }
            d += (h * 0.75).max(3.0);
        }
        Placed { rect: want, leader: None }
    }
}

/// Lays out runs of items (an icon and a text each) across `width`, wrapping
/// onto indented lines: the legends. Returns each item's top-left corner,
/// line by line, and the height used.
pub fn flow(widths: &[f64], first_x: f64, indent: f64, width: f64, line_h: f64, gap: f64) -> (Vec<(f64, f64)>, f64) {
    let mut out = Vec::with_capacity(widths.len());
    let (mut x, mut y) = (first_x, 0.0);
    for &w in widths {
        if x + w > width && x > indent + 1e-9 {
            x = indent;
            y += line_h;
        }
        out.push((x, y));
        x += w + gap;
    }
    (out, y + line_h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_helvetica() {
        // "Hello" at 10 px: H 722, e 556, l 222, l 222, o 556 -> 2278/1000 * 10.
        assert!((text_width("Hello", 10.0, false) - 22.78).abs() < 1e-9);
        assert!(text_width("W", 12.0, false) > text_width("i", 12.0, false) * 3.0);
        assert!(text_width("ab", 10.0, true) > text_width("ab", 10.0, false));
        let r = Rect::of_text("ab", 100.0, 50.0, 10.0, false, Anchor::Middle);
        assert!((r.x + r.w / 2.0 - 100.0).abs() < 1e-9 && (r.y - (50.0 - 9.05)).abs() < 1e-9);
    }

    #[test]
    fn labels_avoid_what_is_taken_and_stay_inside() {
        let mut p = Placer::new(Rect::new(0.0, 0.0, 200.0, 200.0));
        p.block(Rect::new(90.0, 90.0, 20.0, 20.0));
        let want = Rect::new(80.0, 95.0, 40.0, 10.0);
        let a = p.place(want, (100.0, 100.0), 12.0, 80.0);
        assert!(!a.rect.overlaps(&Rect::new(90.0, 90.0, 20.0, 20.0)), "{a:?}");
        // A second label wanting the same spot goes elsewhere, also clear of the first.
        let b = p.place(want, (100.0, 100.0), 12.0, 80.0);
        assert!(!b.rect.overlaps(&a.rect) && !b.rect.overlaps(&Rect::new(90.0, 90.0, 20.0, 20.0)), "{a:?} {b:?}");
        // A free spot is taken as wanted, with no leader line.
        let c = p.place(Rect::new(5.0, 5.0, 20.0, 8.0), (15.0, 20.0), 4.0, 40.0);
        assert_eq!(c.rect, Rect::new(5.0, 5.0, 20.0, 8.0));
        assert!(c.leader.is_none());
        // Near an edge, the label stays inside the bounds.
        let d = p.place(Rect::new(190.0, 190.0, 30.0, 10.0), (195.0, 195.0), 4.0, 60.0);
        assert!(Rect::new(0.0, 0.0, 200.0, 200.0).holds(&d.rect), "{d:?}");
    }

    #[test]
    fn a_crowded_label_gets_a_leader_line() {
        let mut p = Placer::new(Rect::new(0.0, 0.0, 300.0, 300.0));
        // A ring of pieces round the anchor: the label must go past them.
        p.block(Rect::new(120.0, 120.0, 60.0, 60.0));
        let placed = p.place(Rect::new(130.0, 145.0, 40.0, 10.0), (150.0, 150.0), 8.0, 120.0);
        assert!(!placed.rect.overlaps(&Rect::new(120.0, 120.0, 60.0, 60.0)));
        let (from, to) = placed.leader.expect("a leader line");
        assert_eq!(from, (150.0, 150.0));
        assert_eq!(to, placed.rect.nearest(150.0, 150.0));
    }

    #[test]
    fn legends_wrap_to_the_width() {
        let (at, h) = flow(&[50.0, 50.0, 50.0], 10.0, 20.0, 130.0, 16.0, 5.0);
        assert_eq!(at, vec![(10.0, 0.0), (65.0, 0.0), (20.0, 16.0)]);
        assert_eq!(h, 32.0);
    }
}
