//! A tabletop unit's bases as they stand, computed once and kept by the world
//! (`World::unit_shape`) until the unit moves, turns or loses bases, and the
//! axis-aligned boxes that reject far shapes before any clipping.

use super::{Base, Point, EPS};

/// An axis-aligned box around a shape: two shapes whose boxes miss cannot
/// meet, which a few comparisons tell before any polygon is clipped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BBox {
    pub lo: Point,
    pub hi: Point,
}

impl BBox {
    /// The box around these points (empty: a box that meets nothing).
    pub fn around(points: impl IntoIterator<Item = Point>) -> BBox {
        let mut b =
            BBox { lo: Point::new(f64::INFINITY, f64::INFINITY), hi: Point::new(f64::NEG_INFINITY, f64::NEG_INFINITY) };
        for p in points {
            b.lo = Point::new(b.lo.x.min(p.x), b.lo.y.min(p.y));
            b.hi = Point::new(b.hi.x.max(p.x), b.hi.y.max(p.y));
        }
        b
    }

    /// The box around the bases' corners.
    pub fn of_bases(bases: &[Base]) -> BBox {
        BBox::around(bases.iter().flat_map(Base::corners))
    }

    /// Whether the boxes touch or overlap (with `EPS` to spare, so that
    /// rounding never rejects shapes that the exact test would let meet).
    pub fn meets(&self, o: &BBox) -> bool {
        self.lo.x <= o.hi.x + EPS && o.lo.x <= self.hi.x + EPS && self.lo.y <= o.hi.y + EPS && o.lo.y <= self.hi.y + EPS
    }
}

/// Where a tabletop unit's bases stand: each base in place order (front
/// rank first, left to right) with its id, the footprint around them and
/// their box. Also one base on its own (a base table: no ids).
#[derive(Debug, PartialEq)]
pub struct UnitShape {
    pub bases: Vec<Base>,
    /// The bases' ids, one per base (empty for a base table).
    pub ids: Vec<u16>,
    pub footprint: Base,
    pub bbox: BBox,
}

impl UnitShape {
    pub fn new(bases: Vec<Base>, ids: Vec<u16>, footprint: Base) -> UnitShape {
        let bbox = BBox::of_bases(std::slice::from_ref(&footprint));
        UnitShape { bases, ids, footprint, bbox }
    }

    /// One base on its own.
    pub fn single(b: Base) -> UnitShape {
        UnitShape::new(vec![b], Vec::new(), b)
    }
}
