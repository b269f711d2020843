//! Tabletop geometry for miniatures rules, in centimetres.
//!
//! The table's origin is its top-left corner, x grows to the right and y grows
//! down (like a screen and like the hex map). Bearings and facings are degrees
//! clockwise from the +x axis ("east"), normalised to [0, 360).

use std::fmt;

use serde::{Deserialize, Serialize};

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
    if arc >= 360.0 || from.distance(target) < 1e-9 {
        return true;
    }
    angle_between(from.bearing(target), facing) <= arc / 2.0 + 1e-9
}

/// A rectangle (a base) centred on `centre`, `width` along the facing's
/// perpendicular (the frontage) and `depth` along the facing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub centre: Point,
    pub width: f64,
    pub depth: f64,
    pub facing: f64,
}

impl Rect {
    /// True when `p` lies inside the rectangle or on its edge.
    pub fn contains(&self, p: Point) -> bool {
        let a = self.facing.to_radians();
        let (dx, dy) = (p.x - self.centre.x, p.y - self.centre.y);
        // Coordinates in the base's own frame: `along` the facing, `across` it.
        let along = dx * a.cos() + dy * a.sin();
        let across = -dx * a.sin() + dy * a.cos();
        along.abs() <= self.depth / 2.0 + 1e-9 && across.abs() <= self.width / 2.0 + 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_bearing() {
        let a = Point::new(0.0, 0.0);
        assert_eq!(a.distance(Point::new(3.0, 4.0)), 5.0);
        assert!((a.bearing(Point::new(0.0, 10.0)) - 90.0).abs() < 1e-9); // down the table
        assert!((a.bearing(Point::new(-1.0, 0.0)) - 180.0).abs() < 1e-9);
        assert!((a.bearing(Point::new(0.0, -1.0)) - 270.0).abs() < 1e-9);
    }

    #[test]
    fn arcs_wrap_around_east() {
        let o = Point::new(0.0, 0.0);
        // facing 350, 90 degree arc covers 305..35
        assert!(in_arc(o, 350.0, 90.0, Point::new(10.0, 1.0)));
        assert!(in_arc(o, 350.0, 90.0, Point::new(10.0, -6.0)));
        assert!(!in_arc(o, 350.0, 90.0, Point::new(0.0, 10.0)));
        // edge of the arc counts
        assert!(in_arc(o, 0.0, 90.0, Point::new(10.0, 10.0)));
    }

    #[test]
    fn rotated_base_contains() {
        let base = Rect { centre: Point::new(10.0, 10.0), width: 4.0, depth: 2.0, facing: 90.0 };
        assert!(base.contains(Point::new(11.9, 10.9)));
        assert!(!base.contains(Point::new(10.0, 11.5)));
        assert!(base.contains(Point::new(8.0, 10.0)));
    }
}
