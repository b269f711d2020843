//! Lines and zones across the table, and the bases they pass through.
//!
//! A battery's centre line (its "center of fire") runs from the midpoint of
//! its front edge along the bearing it fires on; its frontage zone is a strip
//! as wide as the battery along the same bearing. Either may be swung through
//! the battery's arc of fire. [`crossings`] lists the bases a line or zone
//! passes through, nearest first: that answers "fire through friendly
//! bases", "deep targets" and "the closest unit".

use geo::{Area, BooleanOps, Length};

use super::base::{Base, Segment};
use super::{angle_between, clip, ring_points, Point, EPS};

/// A line or a zone across the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Path {
    /// A straight line from `a` to `b`.
    Line(Segment),
    /// A strip `width` wide, centred on the line from `from`, running
    /// `length` cm along `bearing`.
    Zone { from: Point, bearing: f64, width: f64, length: f64 },
}

impl Path {
    /// A battery's centre line on `bearing`, `range` cm long.
    pub fn centre_line(battery: &Base, bearing: f64, range: f64) -> Path {
        let from = battery.front_mid();
        Path::Line(Segment::new(from, from.travel(bearing, range)))
    }

    /// A battery's frontage zone on `bearing`, `range` cm long.
    pub fn frontage_zone(battery: &Base, bearing: f64, range: f64) -> Path {
        Path::Zone { from: battery.front_mid(), bearing, width: battery.width, length: range }
    }

    /// True when `bearing` is within a battery's arc of fire of `angle`
    /// degrees (the bearings a centre line or zone may be swung to).
    pub fn may_swing(battery: &Base, bearing: f64, angle: f64) -> bool {
        angle_between(bearing, battery.facing) <= angle / 2.0 + 1e-9
    }

    /// Where the path starts and the bearing it runs on.
    pub fn start(&self) -> (Point, f64) {
        match *self {
            Path::Line(s) => (s.a, s.a.bearing(s.b)),
            Path::Zone { from, bearing, .. } => (from, bearing),
        }
    }

    /// The zone as a rectangle (a line has none).
    pub fn zone_rect(&self) -> Option<Base> {
        match *self {
            Path::Line(_) => None,
            Path::Zone { from, bearing, width, length } => {
                Some(Base::new(from.travel(bearing, length / 2.0), bearing, width, length))
            }
        }
    }

    /// The box around the path (a line's ends, a zone's corners).
    pub fn bbox(&self) -> super::BBox {
        match self {
            Path::Line(s) => super::BBox::around([s.a, s.b]),
            Path::Zone { .. } => super::BBox::around(self.outline()),
        }
    }

    /// The outline to draw: two points for a line, four corners for a zone.
    pub fn outline(&self) -> Vec<Point> {
        match self {
            Path::Line(s) => vec![s.a, s.b],
            Path::Zone { .. } => self.zone_rect().map(|r| r.corners().to_vec()).unwrap_or_default(),
        }
    }

    /// How far along the path a point lies (its distance ahead of the start).
    pub fn along(&self, p: Point) -> f64 {
        let (from, bearing) = self.start();
        p.minus(from).dot(Point::heading(bearing))
    }

    /// Where the path meets a base: (distance along where it enters, where it
    /// leaves, how much of it: the length of line inside the base, or the
    /// fraction of the base's area inside the zone). `None` if they miss.
    pub fn meets(&self, base: &Base) -> Option<(f64, f64, f64)> {
        match *self {
            Path::Line(s) if self.is_point() => base.contains(s.a).then_some((0.0, 0.0, 0.0)),
            Path::Line(s) => {
                // The base is a box in its own frame: clip the line to it there.
                let ((ua, va), (ub, vb)) = (base.local(s.a), base.local(s.b));
                let (t0, t1) = clip::segment_in_box(ua, va, ub, vb, base.depth / 2.0, base.width / 2.0)?;
                let len = s.length();
                Some((t0 * len, t1 * len, (t1 - t0) * len))
            }
            Path::Zone { .. } => {
                // Both are rectangles: the shared part is their convex clip.
                let shared = clip::clip_convex(&base.corners(), &self.zone_rect()?.corners());
                let area = clip::area(&shared);
                if area < 1e-9 {
                    return None;
                }
                let lo = shared.iter().map(|p| self.along(*p)).fold(f64::INFINITY, f64::min);
                let hi = shared.iter().map(|p| self.along(*p)).fold(f64::NEG_INFINITY, f64::max);
                Some((lo, hi, if base.area() > 0.0 { (area / base.area()).min(1.0) } else { 1.0 }))
            }
        }
    }

    fn is_point(&self) -> bool {
        matches!(self, Path::Line(s) if s.length() < EPS)
    }

    /// Where the path meets a polygon (a terrain area): (distance along where
    /// it enters, where it leaves, the length of line or the area of zone
    /// inside). `None` if they miss.
    pub fn meets_polygon(&self, poly: &geo::Polygon<f64>) -> Option<(f64, f64, f64)> {
        match *self {
            Path::Line(s) => {
                let lines = geo::MultiLineString::new(vec![geo::LineString::from(vec![s.a.coord(), s.b.coord()])]);
                let pieces = poly.clip(&lines, false);
                let mut range: Option<(f64, f64)> = None;
                let mut inside = 0.0;
                for piece in &pieces.0 {
                    inside += geo::Euclidean.length(piece);
                    for c in piece.coords() {
                        let t = self.along(Point::from_coord(*c));
                        range = Some(range.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
                    }
                }
                range.map(|(lo, hi)| (lo, hi, inside))
            }
            Path::Zone { .. } => {
                let rect = self.zone_rect()?;
                let shared = poly.intersection(&rect.polygon());
                let area = shared.unsigned_area();
                if area < 1e-9 {
                    return None;
                }
                let along: Vec<f64> = shared.0.iter().flat_map(ring_points).map(|p| self.along(p)).collect();
                let lo = along.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = along.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                Some((lo, hi, area))
            }
        }
    }
}

/// One base a path passes through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// The caller's key for the base (e.g. a unit's index).
    pub key: usize,
    /// The base's number within its unit (0 = first).
    pub base: usize,
    /// Distance along the path where it enters the base.
    pub from: f64,
    /// Distance along the path where it leaves the base.
    pub to: f64,
    /// The length of line inside the base, or the fraction of the base's
    /// area inside the zone.
    pub amount: f64,
}

/// The bases a path passes through, nearest the start first (ties by key,
/// then base number). `bases` holds (key, base number, base).
pub fn crossings(path: &Path, bases: &[(usize, usize, Base)]) -> Vec<Crossing> {
    let mut out: Vec<Crossing> = bases
        .iter()
        .filter_map(|(key, n, b)| {
            path.meets(b).map(|(from, to, amount)| Crossing { key: *key, base: *n, from, to, amount })
        })
        .collect();
    out.sort_by(|a, b| a.from.total_cmp(&b.from).then(a.key.cmp(&b.key)).then(a.base.cmp(&b.base)));
    out
}
