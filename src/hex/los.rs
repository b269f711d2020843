//! Exact line of sight between hex centres: [`los`] applies the blocking
//! rules to the hexes [`los_hexes`] finds.
//!
//! The geometry (the integer lattice `X = 2q + r`, `Y = 3r`, and why no
//! epsilon is needed) is described in the [parent module](super). Here:
//! [`lattice`] maps a hex centre into it, [`clip`] clips the segment against
//! one hexagon with exact rationals ([`Frac`]), and [`touches`] classifies
//! and orders the candidate hexes along the line.

use std::cmp::Ordering;

use super::Hex;

/// Outcome of a line-of-sight check.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Los {
    /// True when nothing blocks the line.
    pub clear: bool,
    /// The blocking hex nearest to `from` along the line; `None` when clear.
    pub blocker: Option<Hex>,
}

/// How the centre-to-centre segment meets a hex (see [`los_hexes`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Crossing {
    /// The segment passes through the hex's interior.
    Interior,
    /// The segment only touches the hex's boundary (runs along one of its
    /// edges, or passes exactly through one of its corners), and the hex lies
    /// on the left of the line, looking from `from` towards `to` on screen.
    Left,
    /// As [`Crossing::Left`], with the hex on the right of the line.
    Right,
}

/// Line of sight from the centre of `from` to the centre of `to`.
///
/// Every hex other than `from` and `to` that the segment touches is
/// classified as in [`los_hexes`]:
/// - an [`Crossing::Interior`] hex blocks when `obstructed(hex)`;
/// - grazed hexes ([`Crossing::Left`] / [`Crossing::Right`]: the segment
///   runs along an edge or through a corner of them) block only when at
///   least one obstructed grazed hex lies on the left of the line **and** at
///   least one on the right, anywhere along the line. In particular, when
///   the line runs along the edge shared by two hexes it is blocked by them
///   only if both are obstructed.
///
/// `from` and `to` never block (`obstructed` is never called on them), so
/// `from == to` and adjacent hexes are always clear. `blocker` is the first
/// blocking hex along the line from `from` (for the two-sided graze case, the
/// first obstructed grazed hex; of the two hexes along the same edge, the one
/// on the left). `obstructed` is called at most once per hex, in line order,
/// and only as far as needed to decide.
pub fn los(from: Hex, to: Hex, mut obstructed: impl FnMut(Hex) -> bool) -> Los {
    let touched = los_hexes(from, to);
    let blocked = |hex: Hex| Los { clear: false, blocker: Some(hex) };
    // Index in `touched` of the first obstructed grazed hex on each side.
    let mut first_left: Option<usize> = None;
    let mut first_right: Option<usize> = None;
    for (i, &(hex, crossing)) in touched.iter().enumerate() {
        match crossing {
            Crossing::Interior => {
                if !obstructed(hex) {
                    continue;
                }
                // An obstructed grazed hex already seen on one side blocks
                // before this one if the other side has one further on.
                let earlier = match (first_left, first_right) {
                    (Some(j), None) => Some((j, Crossing::Right)),
                    (None, Some(j)) => Some((j, Crossing::Left)),
                    _ => None,
                };
                if let Some((j, other)) = earlier {
                    if touched[i + 1..].iter().any(|&(h, c)| c == other && obstructed(h)) {
                        return blocked(touched[j].0);
                    }
                }
                return blocked(hex);
            }
            Crossing::Left | Crossing::Right => {
                let (mine, theirs) = if crossing == Crossing::Left {
                    (&mut first_left, first_right)
                } else {
                    (&mut first_right, first_left)
                };
                if mine.is_none() && obstructed(hex) {
                    *mine = Some(i);
                    if let Some(j) = theirs {
                        // j < i: the other side's first is the earlier one.
                        return blocked(touched[j].0);
                    }
                }
            }
        }
    }
    Los { clear: true, blocker: None }
}

/// The hexes other than `from` and `to` that the segment from the centre of
/// `from` to the centre of `to` crosses or grazes, each with how, in order
/// along the line from `from` (by where the segment first touches them; the
/// two hexes along the same edge come left first). For display and
/// debugging; [`los`] applies the blocking rules to this list.
///
/// Computed exactly (see the [module documentation](super)); candidates are
/// the hexes within distance 1 of [`Hex::line`], which is a superset of the
/// touched hexes.
pub fn los_hexes(from: Hex, to: Hex) -> Vec<(Hex, Crossing)> {
    let mut candidates: Vec<Hex> =
        Hex::line(from, to).into_iter().flat_map(|h| std::iter::once(h).chain(h.neighbors())).collect();
    candidates.sort_unstable();
    candidates.dedup();
    touches(from, to, candidates).into_iter().map(|t| (t.hex, t.crossing)).collect()
}

/// The LOS lattice point of a hex centre: pixel coordinates at unit size with
/// x scaled by `2 / sqrt(3)` and y by 2, i.e. `(2q + r, 3r)`. Corners are the
/// centre plus `(±1, ±1)` and `(0, ±2)`.
pub(super) fn lattice(h: Hex) -> (i64, i64) {
    let (q, r) = (i64::from(h.q), i64::from(h.r));
    (2 * q + r, 3 * r)
}

/// An exact rational `n / d` with `d > 0`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frac {
    n: i64,
    d: i64,
}

impl Frac {
    const ZERO: Frac = Frac { n: 0, d: 1 };
    const ONE: Frac = Frac { n: 1, d: 1 };

    pub(super) fn new(n: i64, d: i64) -> Frac {
        debug_assert!(d != 0);
        if d < 0 {
            Frac { n: -n, d: -d }
        } else {
            Frac { n, d }
        }
    }
}

impl PartialEq for Frac {
    fn eq(&self, other: &Frac) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Frac {}

impl PartialOrd for Frac {
    fn partial_cmp(&self, other: &Frac) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Frac {
    fn cmp(&self, other: &Frac) -> Ordering {
        (i128::from(self.n) * i128::from(other.d)).cmp(&(i128::from(other.n) * i128::from(self.d)))
    }
}

/// One hex touched by the LOS segment, with the parameter interval
/// `[enter, exit]` (0 at `from`, 1 at `to`) of the segment inside it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Touch {
    pub(super) hex: Hex,
    pub(super) crossing: Crossing,
    enter: Frac,
    exit: Frac,
}

/// Clips the segment `a + t d`, `t` in `[0, 1]`, against the closed hexagon
/// centred at `c` (lattice coordinates). Returns `None` when they do not
/// meet, else whether the segment meets the open hexagon (its interior) and
/// the closed parameter interval of the intersection.
pub(super) fn clip(a: (i64, i64), d: (i64, i64), c: (i64, i64)) -> Option<(bool, Frac, Frac)> {
    let p = (a.0 - c.0, a.1 - c.1);
    // The hexagon relative to its centre: |x| <= 1, |x - y| <= 2, |x + y| <= 2.
    let slabs = [(p.0, d.0, 1), (p.0 - p.1, d.0 - d.1, 2), (p.0 + p.1, d.0 + d.1, 2)];
    let (mut lo, mut hi) = (Frac::ZERO, Frac::ONE);
    let mut open = true;
    for (start, speed, k) in slabs {
        if speed == 0 {
            match start.abs().cmp(&k) {
                Ordering::Greater => return None,
                Ordering::Equal => open = false,
                Ordering::Less => {}
            }
        } else {
            let t1 = Frac::new(-k - start, speed);
            let t2 = Frac::new(k - start, speed);
            let (enter, exit) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
            lo = lo.max(enter);
            hi = hi.min(exit);
        }
    }
    // The open slabs give the same bounds, strictly: the interior is met iff
    // the (closed) interval has positive length and no slab was only touched.
    (lo <= hi).then_some((open && lo < hi, lo, hi))
}

/// Classifies each candidate (other than `from` and `to`) against the
/// segment between their centres and returns those touched, in line order.
pub(super) fn touches(from: Hex, to: Hex, candidates: impl IntoIterator<Item = Hex>) -> Vec<Touch> {
    if from == to {
        return Vec::new();
    }
    let a = lattice(from);
    let b = lattice(to);
    let d = (b.0 - a.0, b.1 - a.1);
    let mut out: Vec<Touch> = candidates
        .into_iter()
        .filter(|&h| h != from && h != to)
        .filter_map(|hex| {
            let c = lattice(hex);
            let (interior, enter, exit) = clip(a, d, c)?;
            let crossing = if interior {
                Crossing::Interior
            } else {
                // A grazed hex lies wholly on one side of the line, so its
                // centre is strictly on that side. With y down on screen a
                // positive cross product means clockwise, i.e. the right.
                let cross = i128::from(d.0) * i128::from(c.1 - a.1) - i128::from(d.1) * i128::from(c.0 - a.0);
                debug_assert!(cross != 0);
                if cross < 0 {
                    Crossing::Left
                } else {
                    Crossing::Right
                }
            };
            Some(Touch { hex, crossing, enter, exit })
        })
        .collect();
    let rank = |c: Crossing| match c {
        Crossing::Left => 0,
        Crossing::Right => 1,
        Crossing::Interior => 2,
    };
    out.sort_by(|x, y| {
        x.enter
            .cmp(&y.enter)
            .then(x.exit.cmp(&y.exit))
            .then(rank(x.crossing).cmp(&rank(y.crossing)))
            .then(x.hex.cmp(&y.hex))
    });
    out
}
