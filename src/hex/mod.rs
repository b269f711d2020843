//! Hex grid coordinates, geometry and line of sight.
//!
//! # Coordinates
//!
//! A [`Hex`] is an axial coordinate `(q, r)`; the third cube coordinate is
//! `s = -q - r`. Hexes are pointy-top and the screen's y axis grows
//! downwards, exactly as in the Red Blob Games hex guide
//! (<https://www.redblobgames.com/grids/hexagons/>): the centre of `(q, r)`
//! for hexes of size (centre-to-corner radius) `size` is
//! `x = size * sqrt(3) * (q + r / 2)`, `y = size * 1.5 * r`.
//!
//! # Direction numbering
//!
//! Directions are numbered **1 to 6, clockwise as seen on screen, starting
//! east**. This numbering is used everywhere in the crate ([`Hex::direction`],
//! [`Hex::neighbor`], the order of [`Hex::neighbors`] and [`Hex::ring`],
//! [`Hex::direction_to`], and rule templates):
//!
//! | direction | axial step `(q, r)` | on screen   | bearing (clockwise from east) |
//! |-----------|---------------------|-------------|-------------------------------|
//! | 1         | `(+1,  0)`          | east        | 0°                            |
//! | 2         | `( 0, +1)`          | south-east  | 60°                           |
//! | 3         | `(-1, +1)`          | south-west  | 120°                          |
//! | 4         | `(-1,  0)`          | west        | 180°                          |
//! | 5         | `( 0, -1)`          | north-west  | 240°                          |
//! | 6         | `(+1, -1)`          | north-east  | 300°                          |
//!
//! [`Hex::rotate_right`] turns direction `n` into direction `n + 1` (6 into 1)
//! and [`Hex::rotate_left`] the other way. Red Blob's implementation page
//! numbers its directions 0..5 the other way round; their direction `i` is
//! our direction `(6 - i) % 6 + 1`.
//!
//! # Line of sight
//!
//! [`los()`] and [`los_hexes`] use exact geometry, not a sampled line draw
//! (a lerp-and-round line misses hexes that the segment clips for a short
//! stretch, and picks a side arbitrarily when the segment runs along an
//! edge). The segment joins the centre of `from` to the centre of `to`. All
//! computations are done in the integer lattice `X = 2q + r`, `Y = 3r`
//! (pixel `x` scaled by `2 / sqrt(3)` and pixel `y` by 2, unit size), where
//! every centre and every corner has integer coordinates: the hexagon
//! centred at `(X, Y)` is `|x - X| <= 1, |(x - X) - (y - Y)| <= 2,
//! |(x - X) + (y - Y)| <= 2`. This map is affine and orientation preserving,
//! so incidence, "in the interior", "on the boundary" and left/right are
//! decided exactly with integer and rational arithmetic; no epsilon is
//! involved. See [`los()`] for the blocking rules.
//!
//! # Files
//!
//! Split by concern, as hexx's `src/hex/` folder: `mod.rs` holds [`Hex`],
//! its arithmetic and [`OffsetKind`]; `los.rs` the exact line-of-sight
//! geometry ([`los()`], [`los_hexes`], [`Los`], [`Crossing`], re-exported
//! here so their paths stay `crate::hex::*`); `tests.rs` the unit tests and
//! property laws. Red Blob's reference vectors are in `tests/hex_vectors.rs`.

mod los;
#[cfg(test)]
mod tests;

pub use los::{los, los_hexes, Crossing, Los};

use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};
use std::str::FromStr;

/// A hex in axial coordinates `(q, r)`, pointy-top; `s = -q - r`.
///
/// See the [module documentation](self) for the coordinate system and the
/// direction numbering (1..=6 clockwise from east).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Default)]
pub struct Hex {
    /// Axial column coordinate (grows towards the east).
    pub q: i32,
    /// Axial row coordinate (grows towards the south, i.e. down the screen).
    pub r: i32,
}

impl Hex {
    /// The six unit steps, indexed by direction number minus one:
    /// 1=(1,0) east, 2=(0,1) south-east, 3=(-1,1) south-west, 4=(-1,0) west,
    /// 5=(0,-1) north-west, 6=(1,-1) north-east (clockwise on screen).
    pub const DIRECTIONS: [Hex; 6] =
        [Hex::new(1, 0), Hex::new(0, 1), Hex::new(-1, 1), Hex::new(-1, 0), Hex::new(0, -1), Hex::new(1, -1)];

    /// Largest `|q|`, `|r|` or `|s|` a hex may have where hexes cross into
    /// Luau (2^23). Luau keeps a hex as three `f32`s, exact up to 2^24: with
    /// every coordinate within 2^23, neighbours, rings, lines and rotations of
    /// such hexes stay exact too, so no coordinate is ever rounded silently.
    pub const MAX_COORD: i32 = 1 << 23;

    /// The hex with axial coordinates `(q, r)`.
    pub const fn new(q: i32, r: i32) -> Hex {
        Hex { q, r }
    }

    /// The third cube coordinate, `-q - r`.
    pub const fn s(self) -> i32 {
        -self.q - self.r
    }

    /// True when `q`, `r` and `s` are all within [`Hex::MAX_COORD`].
    pub fn in_range(self) -> bool {
        let m = i64::from(Hex::MAX_COORD);
        let (q, r) = (i64::from(self.q), i64::from(self.r));
        q.abs() <= m && r.abs() <= m && (q + r).abs() <= m
    }

    /// How many hexes [`Hex::within`] gives for `radius`: `3r(r+1)+1`
    /// (saturating), so a caller can check the cost before building them.
    pub fn within_count(radius: u32) -> u64 {
        let r = u64::from(radius);
        r.saturating_mul(r + 1).saturating_mul(3).saturating_add(1)
    }

    fn to_hexx(self) -> hexx::Hex {
        hexx::Hex::new(self.q, self.r)
    }

    fn from_hexx(h: hexx::Hex) -> Hex {
        Hex::new(h.x, h.y)
    }

    /// The unit step for direction `dir` (1..=6, clockwise from east), or
    /// `None` when `dir` is outside 1..=6.
    pub fn direction(dir: u8) -> Option<Hex> {
        match dir {
            1..=6 => Some(Self::DIRECTIONS[usize::from(dir - 1)]),
            _ => None,
        }
    }

    /// The number of steps between `self` and `other` on the grid.
    pub fn distance(self, other: Hex) -> i32 {
        self.to_hexx().distance_to(other.to_hexx())
    }

    /// The distance from the origin `(0, 0)`.
    pub fn length(self) -> i32 {
        self.to_hexx().length()
    }

    /// The adjacent hex in direction `dir` (1..=6), or `None` when `dir` is
    /// outside 1..=6.
    pub fn neighbor(self, dir: u8) -> Option<Hex> {
        Self::direction(dir).map(|d| self + d)
    }

    /// The six adjacent hexes, in direction order 1..=6.
    pub fn neighbors(self) -> [Hex; 6] {
        Self::DIRECTIONS.map(|d| self + d)
    }

    /// The hexes at exactly `radius` steps from `self`.
    ///
    /// Radius 0 gives `[self]`. Otherwise there are `6 * radius` hexes,
    /// starting at `self + direction 1 * radius` (due east) and walking
    /// clockwise on screen, so `ring(1) == neighbors()`.
    pub fn ring(self, radius: u32) -> Vec<Hex> {
        // hexx's edge direction index i is our direction i + 1 (same axial
        // steps); its `clockwise: false` walks east -> south-east corner ->
        // ..., which is clockwise on our y-down screen (pinned by tests).
        self.to_hexx().custom_ring(radius, hexx::EdgeDirection::X, false).map(Hex::from_hexx).collect()
    }

    /// Every hex at distance `<= radius` from `self`: `self` first, then
    /// ring 1, ring 2, ... each in [`Hex::ring`] order; `3r(r+1)+1` hexes.
    pub fn within(self, radius: u32) -> Vec<Hex> {
        let n = radius as usize;
        let mut out = Vec::with_capacity(3 * n * (n + 1) + 1);
        out.push(self);
        for k in 1..=radius {
            out.extend(self.ring(k));
        }
        out
    }

    /// Rotates 60° counter-clockwise (on screen) about the origin: direction
    /// `n` becomes direction `n - 1` (1 becomes 6). Red Blob's
    /// `hex_rotate_left`: `(q, r, s) -> (-s, -q, -r)`.
    pub fn rotate_left(self) -> Hex {
        Hex::from_hexx(self.to_hexx().counter_clockwise())
    }

    /// Rotates 60° clockwise (on screen) about the origin: direction `n`
    /// becomes direction `n + 1` (6 becomes 1). Red Blob's
    /// `hex_rotate_right`: `(q, r, s) -> (-r, -s, -q)`.
    pub fn rotate_right(self) -> Hex {
        Hex::from_hexx(self.to_hexx().clockwise())
    }

    /// Rotates about `center` by `steps` times 60° clockwise on screen
    /// (negative `steps` turn counter-clockwise).
    pub fn rotate_around(self, center: Hex, steps: i32) -> Hex {
        let m = steps.rem_euclid(6).unsigned_abs();
        Hex::from_hexx(self.to_hexx().rotate_cw_around(center.to_hexx(), m))
    }

    /// The direction (1..=6) whose bearing is nearest to the bearing from the
    /// centre of `self` to the centre of `other`; `None` when they are equal.
    ///
    /// The comparison is exact (integer arithmetic). When `other` lies exactly
    /// between two directions (e.g. `(1, 1)` from the origin, between 1 and
    /// 2), the lower-numbered of the two wins; for the 6/1 tie that is 1. In
    /// other words, ties always go to the first direction in the order
    /// 1, 2, ..., 6.
    ///
    /// # Example
    /// ```
    /// # use sandtable::hex::Hex;
    /// let origin = Hex::new(0, 0);
    /// assert_eq!(origin.direction_to(Hex::new(3, -1)), Some(1)); // nearest east
    /// // (1, 1) lies exactly between directions 1 and 2: the lower one wins.
    /// assert_eq!(origin.direction_to(Hex::new(1, 1)), Some(1));
    /// // (-1, 2) lies between 2 and 3: 2.
    /// assert_eq!(origin.direction_to(Hex::new(-1, 2)), Some(2));
    /// // (2, -1) lies between 6 and 1: 1, the first in the order 1..=6.
    /// assert_eq!(origin.direction_to(Hex::new(2, -1)), Some(1));
    /// assert_eq!(origin.direction_to(origin), None);
    /// ```
    pub fn direction_to(self, other: Hex) -> Option<u8> {
        if self == other {
            return None;
        }
        // Bearings are compared through dot products with the six (equally
        // long) direction vectors; in lattice coordinates the Euclidean dot
        // product is proportional to 3*x1*x2 + y1*y2.
        let (x, y) = los::lattice(other);
        let (x0, y0) = los::lattice(self);
        let v = (x - x0, y - y0);
        let mut best = (0u8, i128::MIN);
        for (i, d) in (1u8..).zip(Self::DIRECTIONS) {
            let (dx, dy) = los::lattice(d);
            let score = 3 * i128::from(v.0) * i128::from(dx) + i128::from(v.1) * i128::from(dy);
            if score > best.1 {
                best = (i, score);
            }
        }
        Some(best.0)
    }

    /// Red Blob's line draw from `a` to `b`, inclusive of both ends:
    /// `N = distance(a, b)` steps, sampling `N + 1` points by linear
    /// interpolation in cube space between the centres nudged by
    /// `(1e-6, 2e-6, -3e-6)` (so that points exactly on an edge round
    /// consistently) and cube-rounding each sample.
    ///
    /// This is a drawing aid, not a line-of-sight test: see [`los()`].
    pub fn line(a: Hex, b: Hex) -> Vec<Hex> {
        let n = a.distance(b);
        // The s nudge (-3e-6) is implied by s = -q - r.
        let (aq, ar) = (f64::from(a.q) + 1e-6, f64::from(a.r) + 2e-6);
        let (bq, br) = (f64::from(b.q) + 1e-6, f64::from(b.r) + 2e-6);
        let step = 1.0 / f64::from(n.max(1));
        (0..=n)
            .map(|i| {
                let t = step * f64::from(i);
                Hex::round(aq + (bq - aq) * t, ar + (br - ar) * t)
            })
            .collect()
    }

    /// Cube rounding of the fractional axial coordinate `(fq, fr)` (with
    /// `fs = -fq - fr`): round each cube coordinate, then recompute the one
    /// that changed most from the other two. Gives the hex containing the
    /// point.
    pub fn round(fq: f64, fr: f64) -> Hex {
        let fs = -fq - fr;
        let (mut q, mut r, s) = (fq.round(), fr.round(), fs.round());
        let (dq, dr, ds) = ((q - fq).abs(), (r - fr).abs(), (s - fs).abs());
        if dq > dr && dq > ds {
            q = -r - s;
        } else if dr > ds {
            r = -q - s;
        }
        Hex::new(q as i32, r as i32)
    }

    /// The offset coordinate `(col, row)` of this hex in the given offset
    /// layout, matching Red Blob's conversions (including negative rows and
    /// columns).
    pub fn to_offset(self, kind: OffsetKind) -> (i32, i32) {
        let (q, r) = (self.q, self.r);
        match kind {
            OffsetKind::OddR => (q + floor_half(r), r),
            OffsetKind::EvenR => (q + ceil_half(r), r),
            OffsetKind::OddQ => (q, r + floor_half(q)),
            OffsetKind::EvenQ => (q, r + ceil_half(q)),
        }
    }

    /// The hex at offset coordinate `(col, row)` in the given offset layout;
    /// the inverse of [`Hex::to_offset`].
    pub fn from_offset(col: i32, row: i32, kind: OffsetKind) -> Hex {
        match kind {
            OffsetKind::OddR => Hex::new(col - floor_half(row), row),
            OffsetKind::EvenR => Hex::new(col - ceil_half(row), row),
            OffsetKind::OddQ => Hex::new(col, row - floor_half(col)),
            OffsetKind::EvenQ => Hex::new(col, row - ceil_half(col)),
        }
    }

    /// The pixel centre of this hex for pointy-top hexes of the given size
    /// (centre-to-corner), origin at the centre of `(0, 0)`, y down:
    /// `x = size * sqrt(3) * (q + r / 2)`, `y = size * 1.5 * r`.
    pub fn to_pixel(self, size: f64) -> (f64, f64) {
        let (q, r) = (f64::from(self.q), f64::from(self.r));
        (size * 3f64.sqrt() * (q + r / 2.0), size * 1.5 * r)
    }
}

/// `(n - (n & 1)) / 2`, i.e. `floor(n / 2)`: Red Blob's odd-offset term.
/// `n & 1` is 1 for every odd `n`, negative ones included, where `n % 2`
/// would be -1.
const fn floor_half(n: i32) -> i32 {
    (n - (n & 1)) / 2
}

/// `(n + (n & 1)) / 2`, i.e. `ceil(n / 2)`: Red Blob's even-offset term
/// (written so that it cannot overflow).
const fn ceil_half(n: i32) -> i32 {
    n - floor_half(n)
}

impl Add for Hex {
    type Output = Hex;
    fn add(self, rhs: Hex) -> Hex {
        Hex::new(self.q + rhs.q, self.r + rhs.r)
    }
}

impl Sub for Hex {
    type Output = Hex;
    fn sub(self, rhs: Hex) -> Hex {
        Hex::new(self.q - rhs.q, self.r - rhs.r)
    }
}

impl Neg for Hex {
    type Output = Hex;
    fn neg(self) -> Hex {
        Hex::new(-self.q, -self.r)
    }
}

impl Mul<i32> for Hex {
    type Output = Hex;
    fn mul(self, k: i32) -> Hex {
        Hex::new(self.q * k, self.r * k)
    }
}

impl fmt::Display for Hex {
    /// Formats as `(q,r)`, e.g. `(1,-2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.q, self.r)
    }
}

/// The four offset layouts of Red Blob's guide, for the `(col, row)` labels
/// printed maps use. The `-r` kinds offset alternate rows (the natural
/// choice for pointy-top hexes), the `-q` kinds alternate columns.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum OffsetKind {
    /// `odd-r`: odd rows are shoved right by half a hex (the default).
    #[default]
    OddR,
    /// `even-r`: even rows are shoved right by half a hex.
    EvenR,
    /// `odd-q`: odd columns are shoved down by half a hex.
    OddQ,
    /// `even-q`: even columns are shoved down by half a hex.
    EvenQ,
}

impl OffsetKind {
    /// The kind's name as accepted by [`FromStr`]: `"odd-r"`, `"even-r"`,
    /// `"odd-q"` or `"even-q"`.
    pub fn name(self) -> &'static str {
        match self {
            OffsetKind::OddR => "odd-r",
            OffsetKind::EvenR => "even-r",
            OffsetKind::OddQ => "odd-q",
            OffsetKind::EvenQ => "even-q",
        }
    }
}

impl FromStr for OffsetKind {
    type Err = String;

    /// Parses `"odd-r"`, `"even-r"`, `"odd-q"` or `"even-q"`; any other input
    /// is an error whose message lists the four.
    fn from_str(s: &str) -> Result<OffsetKind, String> {
        match s {
            "odd-r" => Ok(OffsetKind::OddR),
            "even-r" => Ok(OffsetKind::EvenR),
            "odd-q" => Ok(OffsetKind::OddQ),
            "even-q" => Ok(OffsetKind::EvenQ),
            _ => {
                Err(format!("unknown offset kind {s:?}: expected one of \"odd-r\", \"even-r\", \"odd-q\", \"even-q\""))
            }
        }
    }
}
