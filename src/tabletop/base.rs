//! Bases as oriented rectangles, and units as groups of bases.
//!
//! A base has a centre, a facing, a width (its frontage, across the facing)
//! and a depth (along the facing). Its front edge runs from its front-left to
//! its front-right corner; its flanks are its left and right edges.

use geo::{BooleanOps, ClosestPoint, Distance, Euclidean, Intersects};

use super::{normalise, polygon, Point, EPS};

/// One edge of a base or of a unit's footprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edge {
    Front,
    Right,
    Rear,
    Left,
}

impl Edge {
    pub const ALL: [Edge; 4] = [Edge::Front, Edge::Right, Edge::Rear, Edge::Left];

    /// `front`, `right`, `rear` or `left`.
    pub fn name(self) -> &'static str {
        match self {
            Edge::Front => "front",
            Edge::Right => "right",
            Edge::Rear => "rear",
            Edge::Left => "left",
        }
    }

    pub fn parse(s: &str) -> Option<Edge> {
        Edge::ALL.into_iter().find(|e| e.name() == s)
    }

    /// True for the left and right edges.
    pub fn is_flank(self) -> bool {
        matches!(self, Edge::Left | Edge::Right)
    }

    /// The edge's outward direction relative to the facing, in degrees.
    fn turn(self) -> f64 {
        match self {
            Edge::Front => 0.0,
            Edge::Right => 90.0,
            Edge::Rear => 180.0,
            Edge::Left => 270.0,
        }
    }
}

/// A straight segment from `a` to `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub a: Point,
    pub b: Point,
}

impl Segment {
    pub fn new(a: Point, b: Point) -> Segment {
        Segment { a, b }
    }

    pub fn length(&self) -> f64 {
        self.a.distance(self.b)
    }

    pub fn mid(&self) -> Point {
        self.a.mid(self.b)
    }

    pub(crate) fn line(&self) -> geo::Line<f64> {
        geo::Line::new(self.a.coord(), self.b.coord())
    }

    /// The closest distance from the segment to a point.
    pub fn distance_to(&self, p: Point) -> f64 {
        Euclidean.distance(&geo::Point::from(p.coord()), &self.line())
    }
}

/// A base: an oriented rectangle on the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Base {
    pub centre: Point,
    /// Degrees clockwise from east, in [0, 360).
    pub facing: f64,
    /// Frontage, across the facing (cm).
    pub width: f64,
    /// Along the facing (cm).
    pub depth: f64,
}

impl Base {
    pub fn new(centre: Point, facing: f64, width: f64, depth: f64) -> Base {
        Base { centre, facing: normalise(facing), width, depth }
    }

    /// A base placed by the midpoint of its front edge.
    pub fn from_front(front: Point, facing: f64, width: f64, depth: f64) -> Base {
        Base::new(front.travel(facing + 180.0, depth / 2.0), facing, width, depth)
    }

    /// Unit vectors along the facing and to the base's right.
    fn axes(&self) -> (Point, Point) {
        // The right is the facing turned 90 degrees clockwise: (-sin, cos).
        let fwd = Point::heading(self.facing);
        (fwd, Point::new(-fwd.y, fwd.x))
    }

    /// The point in the base's own frame: (ahead of the centre, right of the centre).
    pub fn local(&self, p: Point) -> (f64, f64) {
        let (fwd, right) = self.axes();
        let d = p.minus(self.centre);
        (d.dot(fwd), d.dot(right))
    }

    /// The table point at (ahead, right) in the base's own frame.
    pub fn at_local(&self, ahead: f64, right: f64) -> Point {
        let (fwd, r) = self.axes();
        self.centre.plus(fwd.scale(ahead)).plus(r.scale(right))
    }

    /// The midpoint of the front edge.
    pub fn front_mid(&self) -> Point {
        self.at_local(self.depth / 2.0, 0.0)
    }

    /// Corners: front-left, front-right, rear-right, rear-left.
    pub fn corners(&self) -> [Point; 4] {
        let (h, w) = (self.depth / 2.0, self.width / 2.0);
        let (fwd, r) = self.axes();
        let at = |ahead: f64, right: f64| self.centre.plus(fwd.scale(ahead)).plus(r.scale(right));
        [at(h, -w), at(h, w), at(-h, w), at(-h, -w)]
    }

    /// An edge, running left to right as seen from the base looking out
    /// through it (the front edge runs front-left to front-right, the right
    /// flank front-right to rear-right).
    pub fn edge(&self, e: Edge) -> Segment {
        let [fl, fr, rr, rl] = self.corners();
        match e {
            Edge::Front => Segment::new(fl, fr),
            Edge::Right => Segment::new(fr, rr),
            Edge::Rear => Segment::new(rr, rl),
            Edge::Left => Segment::new(rl, fl),
        }
    }

    /// The outward bearing of an edge.
    pub fn edge_bearing(&self, e: Edge) -> f64 {
        normalise(self.facing + e.turn())
    }

    pub fn area(&self) -> f64 {
        self.width * self.depth
    }

    pub fn polygon(&self) -> geo::Polygon<f64> {
        polygon(&self.corners())
    }

    /// True when `p` lies inside the base or on its edge.
    pub fn contains(&self, p: Point) -> bool {
        let (ahead, right) = self.local(p);
        ahead.abs() <= self.depth / 2.0 + EPS && right.abs() <= self.width / 2.0 + EPS
    }

    /// True when the two bases overlap or touch.
    pub fn touches(&self, o: &Base) -> bool {
        self.polygon().intersects(&o.polygon())
    }

    /// The closest distance between two bases (0 when they touch or
    /// overlap). Rectangles that no axis of either separates overlap;
    /// otherwise the closest pair of points has a corner of one of them.
    pub fn distance(&self, o: &Base) -> f64 {
        let (ca, cb) = (self.corners(), o.corners());
        let (fa, ra) = self.axes();
        let (fb, rb) = o.axes();
        let separated = [fa, ra, fb, rb].into_iter().any(|n| {
            let span = |cs: &[Point; 4]| {
                cs.iter()
                    .map(|c| c.dot(n))
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
            };
            let ((alo, ahi), (blo, bhi)) = (span(&ca), span(&cb));
            ahi < blo || bhi < alo
        });
        if !separated {
            return 0.0;
        }
        let a_to_b = ca.iter().map(|c| o.distance_to(*c)).fold(f64::INFINITY, f64::min);
        cb.iter().map(|c| self.distance_to(*c)).fold(a_to_b, f64::min)
    }

    /// The closest distance from the base to a point (0 inside): in the
    /// base's own frame, how far the point lies beyond each pair of edges.
    pub fn distance_to(&self, p: Point) -> f64 {
        let (ahead, right) = self.local(p);
        let beyond_ahead = (ahead.abs() - self.depth / 2.0).max(0.0);
        let beyond_right = (right.abs() - self.width / 2.0).max(0.0);
        beyond_ahead.hypot(beyond_right)
    }

    /// The pair of closest points, one on each base. Overlapping bases give
    /// the same point twice, inside both.
    pub fn closest_points(&self, o: &Base) -> (Point, Point) {
        let (pa, pb) = (self.polygon(), o.polygon());
        if pa.intersects(&pb) {
            let shared = pa.intersection(&pb);
            let p = geo::Centroid::centroid(&shared).map(|c| Point::new(c.x(), c.y())).unwrap_or(self.centre);
            return (p, p);
        }
        let mut best = (f64::INFINITY, self.centre, o.centre);
        let mut consider = |from: Point, on: &geo::Polygon<f64>, flip: bool| {
            if let geo::Closest::SinglePoint(q) | geo::Closest::Intersection(q) =
                on.exterior().closest_point(&geo::Point::from(from.coord()))
            {
                let q = Point::new(q.x(), q.y());
                let d = from.distance(q);
                if d < best.0 {
                    best = if flip { (d, q, from) } else { (d, from, q) };
                }
            }
        };
        for c in self.corners() {
            consider(c, &pb, false);
        }
        for c in o.corners() {
            consider(c, &pa, true);
        }
        (best.1, best.2)
    }

    /// The edge whose side of the base `p` lies on: the edge whose line `p`
    /// is furthest outside of (off a corner, the edge it is more clearly
    /// beyond; ties go front, then the flanks, then rear). A point inside the
    /// base gets the edge it is closest to.
    pub fn edge_towards(&self, p: Point) -> Edge {
        let (ahead, right) = self.local(p);
        let (h, w) = (self.depth / 2.0, self.width / 2.0);
        let beyond =
            [(Edge::Front, ahead - h), (Edge::Right, right - w), (Edge::Left, -right - w), (Edge::Rear, -ahead - h)];
        let mut best = beyond[0];
        for b in beyond {
            if b.1 > best.1 + EPS {
                best = b;
            }
        }
        best.0
    }

    /// The fraction (0..1) of the base's area inside a polygon.
    pub fn fraction_in(&self, poly: &geo::Polygon<f64>) -> f64 {
        self.fraction_in_outline(&super::ring_points(poly))
    }

    /// The fraction (0..1) of the base's area inside the polygon with this
    /// outline (its points in order, not closed): the polygon clipped to
    /// the base (a rectangle, so convex).
    pub fn fraction_in_outline(&self, outline: &[Point]) -> f64 {
        if self.area() <= 0.0 {
            return if polygon(outline).intersects(&geo::Point::from(self.centre.coord())) { 1.0 } else { 0.0 };
        }
        // Far apart: nothing to clip.
        if !super::BBox::around(outline.iter().copied()).meets(&super::BBox::of_bases(std::slice::from_ref(self))) {
            return 0.0;
        }
        (super::clip::area(&super::clip::clip_convex(outline, &self.corners())) / self.area()).clamp(0.0, 1.0)
    }

    /// The same base moved by (dx, dy) and turned `deg` clockwise about `about`.
    pub fn moved(&self, deg: f64, about: Point, dx: f64, dy: f64) -> Base {
        let c = self.centre.rotate(deg, about);
        Base::new(Point::new(c.x + dx, c.y + dy), self.facing + deg, self.width, self.depth)
    }
}

/// A unit type's bases: their size and the formations it can take.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseSpec {
    pub width: f64,
    pub depth: f64,
    /// Formation name and bases per rank (0: every base in one rank). The
    /// first is the default.
    pub formations: Vec<(std::rc::Rc<str>, u32)>,
}

impl BaseSpec {
    /// Bases per rank in a formation (`None`: no such formation).
    pub fn files(&self, formation: Option<&str>) -> Option<u32> {
        match formation {
            None => Some(self.formations.first().map_or(0, |f| f.1)),
            Some(name) => self.formations.iter().find(|f| &*f.0 == name).map(|f| f.1),
        }
    }
}

/// Lays out `count` bases of `width` x `depth` in ranks of `files` (0: one
/// rank), as a block centred on `centre` facing `facing`. The front rank comes
/// first, left to right; a short rear rank is centred. Also returns the
/// block's footprint (the rectangle around every base).
pub fn layout(centre: Point, facing: f64, count: u32, files: u32, width: f64, depth: f64) -> (Vec<Base>, Base) {
    let count = count.max(1);
    let files = if files == 0 { count } else { files.min(count) };
    let ranks = count.div_ceil(files);
    let block = Base::new(centre, facing, files as f64 * width, ranks as f64 * depth);
    let mut bases = Vec::with_capacity(count as usize);
    for i in 0..count {
        let (rank, file) = (i / files, i % files);
        let in_rank = files.min(count - rank * files);
        let ahead = block.depth / 2.0 - depth / 2.0 - rank as f64 * depth;
        let right = (file as f64 - (in_rank as f64 - 1.0) / 2.0) * width;
        bases.push(Base::new(block.at_local(ahead, right), facing, width, depth));
    }
    (bases, block)
}
