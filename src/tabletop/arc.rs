//! Arcs: the wedge of table that opens from a point, or from an edge, by a
//! given angle. A battery's arc of fire opens from its front edge (its rays
//! leave the outer front corners, each turned half the angle outwards); a
//! target's enfilade arc opens the same way from the edge of the target that
//! faces the battery.

use geo::{BooleanOps, Length};

use super::base::{Base, Edge, Segment};
use super::{in_arc, normalise, polygon, Point, EPS};

/// A wedge opening along `bearing` by `angle` degrees in all, from the
/// segment `left`..`right` (left and right as seen looking along the
/// bearing; the same point twice for an arc from a point).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arc {
    pub left: Point,
    pub right: Point,
    pub bearing: f64,
    pub angle: f64,
}

impl Arc {
    /// An arc from a point.
    pub fn from_point(at: Point, bearing: f64, angle: f64) -> Arc {
        Arc { left: at, right: at, bearing: normalise(bearing), angle }
    }

    /// An arc from a segment, opening to the segment's left-to-right
    /// direction turned 90 degrees anticlockwise (so a base's front edge,
    /// front-left to front-right, opens along the facing).
    pub fn from_segment(left: Point, right: Point, angle: f64) -> Arc {
        if left.distance(right) < EPS {
            return Arc::from_point(left, 0.0, angle);
        }
        Arc { left, right, bearing: normalise(left.bearing(right) - 90.0), angle }
    }

    /// The arc opening from one edge of a base (or a unit's footprint).
    pub fn from_edge(base: &Base, edge: Edge, angle: f64) -> Arc {
        let s = base.edge(edge);
        Arc { left: s.a, right: s.b, bearing: base.edge_bearing(edge), angle }
    }

    /// A battery's arc of fire: `angle` degrees from its outer front corners.
    pub fn of_fire(base: &Base, angle: f64) -> Arc {
        Arc::from_edge(base, Edge::Front, angle)
    }

    fn mid(&self) -> Point {
        self.left.mid(self.right)
    }

    fn half_width(&self) -> f64 {
        self.left.distance(self.right) / 2.0
    }

    /// True when `p` lies inside the arc or on its boundary.
    pub fn contains(&self, p: Point) -> bool {
        if self.angle >= 360.0 {
            return true;
        }
        let half = self.half_width();
        if half < EPS {
            return in_arc(self.left, self.bearing, self.angle, p);
        }
        let d = p.minus(self.mid());
        let ahead = d.dot(Point::heading(self.bearing));
        let across = d.dot(Point::heading(self.bearing + 90.0));
        if ahead < -1e-7 {
            return false;
        }
        if self.angle >= 180.0 {
            return true;
        }
        across.abs() <= half + ahead.max(0.0) * (self.angle / 2.0).to_radians().tan() + 1e-7
    }

    /// The arc as a polygon reaching `reach` cm ahead of its start (a fan of
    /// 15-degree steps for arcs of 180 degrees or more).
    pub fn polygon(&self, reach: f64) -> geo::Polygon<f64> {
        polygon(&self.outline(reach))
    }

    /// The points of [`Arc::polygon`], in order (not closed).
    pub fn outline(&self, reach: f64) -> Vec<Point> {
        let half = self.angle.min(359.0) / 2.0;
        if half < 90.0 {
            let r = reach / half.to_radians().cos();
            let far_right = self.right.travel(self.bearing + half, r);
            let far_left = self.left.travel(self.bearing - half, r);
            return if self.half_width() < EPS {
                vec![self.left, far_right, far_left]
            } else {
                vec![self.left, self.right, far_right, far_left]
            };
        }
        let steps = (2.0 * half / 15.0).ceil().max(2.0) as usize;
        let mut pts = vec![self.left, self.right];
        for i in 0..=steps {
            let b = self.bearing + half - 2.0 * half * i as f64 / steps as f64;
            let from = if b - self.bearing >= 0.0 { self.right } else { self.left };
            pts.push(from.travel(b, reach * 1.5));
        }
        pts
    }

    /// The fraction (0..1) of a segment's length inside the arc. A segment of
    /// no length counts 1 when its point is inside.
    pub fn segment_fraction(&self, s: Segment) -> f64 {
        let len = s.length();
        if len < EPS {
            return if self.contains(s.a) { 1.0 } else { 0.0 };
        }
        let reach = self.mid().distance(s.a).max(self.mid().distance(s.b)) * 2.0 + len + 10.0;
        let poly = self.polygon(reach);
        let lines = geo::MultiLineString::new(vec![geo::LineString::from(vec![s.a.coord(), s.b.coord()])]);
        let inside: f64 = poly.clip(&lines, false).0.iter().map(|l| geo::Euclidean.length(l)).sum();
        (inside / len).clamp(0.0, 1.0)
    }

    /// The fraction (0..1) of a base's frontage (its front edge) inside the arc.
    pub fn frontage_fraction(&self, base: &Base) -> f64 {
        self.segment_fraction(base.edge(Edge::Front))
    }

    /// The fraction (0..1) of the bases' area (all together) inside the arc.
    pub fn area_fraction_of(&self, bases: &[Base]) -> f64 {
        let total: f64 = bases.iter().map(Base::area).sum();
        if total <= 0.0 {
            return 0.0;
        }
        bases.iter().map(|b| self.area_fraction(b) * b.area()).sum::<f64>() / total
    }

    /// The fraction (0..1) of a base's area inside the arc.
    pub fn area_fraction(&self, base: &Base) -> f64 {
        let reach = base.corners().iter().map(|c| self.mid().distance(*c)).fold(0.0, f64::max) * 2.0 + 10.0;
        base.fraction_in_outline(&self.outline(reach))
    }
}
