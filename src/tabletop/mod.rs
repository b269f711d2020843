//! Tabletop geometry for miniatures rules, in centimetres (the Lua global
//! `tabletop`).
//!
//! The table's origin is its top-left corner, x grows to the right and y grows
//! down (like a screen and like the hex map). Bearings and facings are degrees
//! clockwise from the +x axis ("east"), normalised to [0, 360). A base's
//! *right* is its facing plus 90 degrees.
//!
//! The parts:
//! - [`base`]: bases as oriented rectangles, their edges, distances and
//!   closest points; units as groups of bases in a formation ([`layout`]).
//! - [`arc`]: arcs that open from a point or from an edge (a battery's arc of
//!   fire from its outer front corners, a target's enfilade arc), and how much
//!   of a point, segment or base lies inside one.
//! - [`zone`]: lines and zones (a battery's centre line and its frontage zone
//!   swung through its arc) and which bases they pass through, in order.
//! - [`terrain`]: terrain areas as polygons with a kind, an elevation level
//!   and a cover class; how much of a base lies in each.
//! - [`trace`]: where a unit's bases stood at a moment a rule remembers.
//! - [`shape`]: a unit's bases as they stand (kept by the world until the
//!   unit moves, turns or loses bases) and boxes for quick rejection.
//!
//! Polygon work (intersections, clipping, areas, distances) is done with the
//! `geo` crate; this module only builds the shapes.

pub mod arc;
pub mod base;
pub mod clip;
pub mod shape;
pub mod terrain;
pub mod trace;
pub mod zone;

#[cfg(test)]
mod tests;

use std::fmt;

use serde::{Deserialize, Serialize};

/// The largest size, distance or coordinate the tabletop takes, in cm (10
/// km, far past any table). Past it, areas and squared distances lose their
/// digits: a 1e300 cm base's area is infinite, and its fraction inside an
/// arc NaN.
pub const MAX_CM: f64 = 1e6;

pub use arc::Arc;
pub use base::{layout, Base, BaseSpec, Edge, Segment};
pub use shape::{BBox, UnitShape};
pub use terrain::{Area, Layout, TableMark};
pub use trace::Trace;
pub use zone::{crossings, Crossing, Path};

/// A tiny length (cm) that absorbs rounding in comparisons.
pub const EPS: f64 = 1e-9;

/// The most bases a unit may have on a tabletop (base ids are 1..=this).
pub const MAX_BASES: i32 = 4096;

/// A point on the table, in centimetres.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub const fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Straight-line distance in centimetres.
    pub fn distance(self, other: Point) -> f64 {
        (other.x - self.x).hypot(other.y - self.y)
    }

    /// Bearing from self to other, degrees clockwise from east in [0, 360).
    pub fn bearing(self, other: Point) -> f64 {
        normalise((other.y - self.y).atan2(other.x - self.x).to_degrees())
    }

    /// The point `dist` cm away along `bearing`.
    pub fn travel(self, bearing: f64, dist: f64) -> Point {
        let a = bearing.to_radians();
        Point::new(self.x + dist * a.cos(), self.y + dist * a.sin())
    }

    /// The unit vector along a bearing.
    pub fn heading(bearing: f64) -> Point {
        Point::new(0.0, 0.0).travel(bearing, 1.0)
    }

    pub fn plus(self, o: Point) -> Point {
        Point::new(self.x + o.x, self.y + o.y)
    }

    pub fn minus(self, o: Point) -> Point {
        Point::new(self.x - o.x, self.y - o.y)
    }

    pub fn scale(self, k: f64) -> Point {
        Point::new(self.x * k, self.y * k)
    }

    pub fn dot(self, o: Point) -> f64 {
        self.x * o.x + self.y * o.y
    }

    /// The midpoint of self and o.
    pub fn mid(self, o: Point) -> Point {
        Point::new((self.x + o.x) / 2.0, (self.y + o.y) / 2.0)
    }

    /// Rotates the point by `deg` degrees clockwise about `about`.
    pub fn rotate(self, deg: f64, about: Point) -> Point {
        let (s, c) = deg.to_radians().sin_cos();
        let d = self.minus(about);
        Point::new(about.x + d.x * c - d.y * s, about.y + d.x * s + d.y * c)
    }

    pub(crate) fn coord(self) -> geo::Coord<f64> {
        geo::Coord { x: self.x, y: self.y }
    }

    pub(crate) fn from_coord(c: geo::Coord<f64>) -> Point {
        Point::new(c.x, c.y)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({:.1}cm,{:.1}cm)", self.x, self.y)
    }
}

/// Normalises an angle to [0, 360).
pub fn normalise(deg: f64) -> f64 {
    let d = deg.rem_euclid(360.0);
    if d >= 360.0 {
        0.0
    } else {
        d
    }
}

/// Smallest absolute difference between two bearings, in [0, 180].
pub fn angle_between(a: f64, b: f64) -> f64 {
    let d = (normalise(a) - normalise(b)).abs();
    d.min(360.0 - d)
}

/// True when `target` lies within an arc of `arc` degrees centred on `facing`
/// as seen from `from` (edges included, with a small tolerance for rounding).
/// An arc of 360 or more takes in everything; the point itself is inside.
pub fn in_arc(from: Point, facing: f64, arc: f64, target: Point) -> bool {
    if arc >= 360.0 || from.distance(target) < EPS {
        return true;
    }
    angle_between(from.bearing(target), facing) <= arc / 2.0 + 1e-9
}

/// A polygon from points (closed by geo).
pub(crate) fn polygon(points: &[Point]) -> geo::Polygon<f64> {
    geo::Polygon::new(geo::LineString::from(points.iter().map(|p| p.coord()).collect::<Vec<_>>()), vec![])
}

/// The points of a polygon's outer ring, without the closing repeat.
pub(crate) fn ring_points(p: &geo::Polygon<f64>) -> Vec<Point> {
    let mut pts: Vec<Point> = p.exterior().coords().map(|c| Point::from_coord(*c)).collect();
    if pts.len() > 1 && pts.first() == pts.last() {
        pts.pop();
    }
    pts
}

/// The points of a polygon's outer ring (for drawing).
pub fn ring_points_of(p: &geo::Polygon<f64>) -> Vec<Point> {
    ring_points(p)
}
