//! Unit tests and property laws for [`super`]: coordinates, rotations,
//! offsets, the line draw and exact line of sight (checked against a
//! brute-force classification and a reference blocking rule).

use super::los::{clip, lattice, touches, Frac};
use super::*;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

fn h(q: i32, r: i32) -> Hex {
    Hex::new(q, r)
}

/// Brute-force reference for `los_hexes`: classify every hex in a region
/// that certainly contains every touched hex.
fn los_hexes_brute(from: Hex, to: Hex) -> Vec<(Hex, Crossing)> {
    let n = u32::try_from(from.distance(to)).unwrap();
    touches(from, to, from.within(2 * n + 2)).into_iter().map(|t| (t.hex, t.crossing)).collect()
}

#[test]
fn direction_numbering_is_clockwise_from_east_on_screen() {
    for (i, d) in Hex::DIRECTIONS.iter().enumerate() {
        let (x, y) = d.to_pixel(1.0);
        // atan2 with y down gives the clockwise bearing on screen.
        let bearing = y.atan2(x).to_degrees().rem_euclid(360.0);
        assert!((bearing - 60.0 * i as f64).abs() < 1e-9, "dir {}", i + 1);
        assert_eq!(Hex::direction(i as u8 + 1), Some(*d));
    }
    assert_eq!(Hex::direction(0), None);
    assert_eq!(Hex::direction(7), None);
    assert_eq!(h(2, 3).neighbor(0), None);
    assert_eq!(h(2, 3).neighbor(2), Some(h(2, 4)));
    assert_eq!(h(0, 0).neighbors(), Hex::DIRECTIONS);
}

#[test]
fn rotations_step_direction_numbers() {
    for i in 0..6 {
        let d = Hex::DIRECTIONS[i];
        assert_eq!(d.rotate_right(), Hex::DIRECTIONS[(i + 1) % 6]);
        assert_eq!(d.rotate_left(), Hex::DIRECTIONS[(i + 5) % 6]);
    }
    let c = h(2, -1);
    assert_eq!(h(3, -1).rotate_around(c, 1), h(2, 0));
    assert_eq!(h(3, -1).rotate_around(c, -1), h(3, -2));
    assert_eq!(h(3, -1).rotate_around(c, 3), h(1, -1));
    assert_eq!(h(3, -1).rotate_around(c, 6), h(3, -1));
    assert_eq!(h(3, -1).rotate_around(c, -7), h(3, -2));
}

#[test]
fn ring_and_within_order() {
    let c = h(1, 2);
    assert_eq!(c.ring(0), vec![c]);
    assert_eq!(c.ring(1), c.neighbors().to_vec());
    let expected: Vec<Hex> =
        [(2, 0), (1, 1), (0, 2), (-1, 2), (-2, 2), (-2, 1), (-2, 0), (-1, -1), (0, -2), (1, -2), (2, -2), (2, -1)]
            .iter()
            .map(|&(q, r)| c + h(q, r))
            .collect();
    assert_eq!(c.ring(2), expected);
    let mut w = vec![c];
    w.extend(c.ring(1));
    w.extend(c.ring(2));
    assert_eq!(c.within(2), w);
    assert_eq!(c.within(0), vec![c]);
}

#[test]
fn direction_to_exact_and_ties() {
    let o = Hex::default();
    assert_eq!(o.direction_to(o), None);
    for (i, d) in Hex::DIRECTIONS.iter().enumerate() {
        assert_eq!(o.direction_to(*d * 4), Some(i as u8 + 1));
    }
    // Exactly between two directions: the lower-numbered wins, 6/1 -> 1.
    assert_eq!(o.direction_to(h(1, 1)), Some(1)); // between 1 and 2
    assert_eq!(o.direction_to(h(-1, 2)), Some(2)); // between 2 and 3
    assert_eq!(o.direction_to(h(-2, 1)), Some(3)); // between 3 and 4
    assert_eq!(o.direction_to(h(-1, -1)), Some(4)); // between 4 and 5
    assert_eq!(o.direction_to(h(1, -2)), Some(5)); // between 5 and 6
    assert_eq!(o.direction_to(h(2, -1)), Some(1)); // between 6 and 1
                                                   // Just off a tie.
    assert_eq!(o.direction_to(h(3, 2)), Some(1));
    assert_eq!(o.direction_to(h(2, 3)), Some(2));
    assert_eq!(o.direction_to(h(3, -1)), Some(1));
    assert_eq!(o.direction_to(h(3, -2)), Some(6));
    assert_eq!(h(5, 5).direction_to(h(5, 4)), Some(5));
}

#[test]
fn offset_negative_rows_and_columns() {
    // Row -1 is odd: odd-r shoves it right, so axial (0,-1) is column -1.
    assert_eq!(h(0, -1).to_offset(OffsetKind::OddR), (-1, -1));
    assert_eq!(h(0, -1).to_offset(OffsetKind::EvenR), (0, -1));
    assert_eq!(h(-1, 0).to_offset(OffsetKind::OddQ), (-1, -1));
    assert_eq!(h(-1, 0).to_offset(OffsetKind::EvenQ), (-1, 0));
    assert_eq!(Hex::from_offset(-1, -1, OffsetKind::OddR), h(0, -1));
    assert_eq!(Hex::from_offset(0, -1, OffsetKind::EvenR), h(0, -1));
    assert_eq!(Hex::from_offset(-1, -1, OffsetKind::OddQ), h(-1, 0));
    assert_eq!(Hex::from_offset(-1, 0, OffsetKind::EvenQ), h(-1, 0));
    // The halving helpers do not overflow at the extremes.
    assert_eq!(floor_half(i32::MAX), (i32::MAX - 1) / 2);
    assert_eq!(ceil_half(i32::MAX), i32::MAX / 2 + 1);
    assert_eq!(floor_half(i32::MIN), i32::MIN / 2);
    assert_eq!(ceil_half(-3), -1);
    assert_eq!(floor_half(-3), -2);
    for kind in [OffsetKind::OddR, OffsetKind::EvenR, OffsetKind::OddQ, OffsetKind::EvenQ] {
        assert_eq!(kind.name().parse::<OffsetKind>(), Ok(kind));
    }
    assert_eq!(OffsetKind::default(), OffsetKind::OddR);
    let err = "odd".parse::<OffsetKind>().unwrap_err();
    for name in ["odd-r", "even-r", "odd-q", "even-q"] {
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn display() {
    assert_eq!(h(1, -2).to_string(), "(1,-2)");
    assert_eq!(Hex::default().to_string(), "(0,0)");
}

#[test]
fn clip_basics() {
    // Segment from (0,0) to (1,1) runs along the edge (1,1)-(2,2) of the
    // hexes (1,0) and (0,1), for t in [1/3, 2/3].
    let a = lattice(h(0, 0));
    let d = lattice(h(1, 1));
    let (interior, lo, hi) = clip(a, d, lattice(h(1, 0))).unwrap();
    assert!(!interior);
    assert_eq!((lo, hi), (Frac::new(1, 3), Frac::new(2, 3)));
    assert!(clip(a, d, lattice(h(1, -1))).is_none());
    let (interior, lo, hi) = clip(a, lattice(h(3, 0)), lattice(h(1, 0))).unwrap();
    assert!(interior);
    assert_eq!((lo, hi), (Frac::new(1, 6), Frac::new(1, 2)));
}

#[test]
fn los_calls_obstructed_at_most_once_and_never_on_ends() {
    for a in h(0, 0).within(4) {
        for b in h(0, 0).within(4) {
            let mut calls: HashMap<Hex, u32> = HashMap::new();
            let _ = los(a, b, |x| {
                *calls.entry(x).or_default() += 1;
                true
            });
            assert!(calls.values().all(|&n| n == 1));
            assert!(!calls.contains_key(&a) && !calls.contains_key(&b));
            let mut calls: HashMap<Hex, u32> = HashMap::new();
            let _ = los(a, b, |x| {
                *calls.entry(x).or_default() += 1;
                (x.q + 2 * x.r).rem_euclid(3) == 0
            });
            assert!(calls.values().all(|&n| n == 1));
        }
    }
}

fn small_hex() -> impl Strategy<Value = Hex> {
    (-8i32..=8, -8i32..=8).prop_map(|(q, r)| Hex::new(q, r))
}

fn any_hex() -> impl Strategy<Value = Hex> {
    (-100_000i32..=100_000, -100_000i32..=100_000).prop_map(|(q, r)| Hex::new(q, r))
}

fn any_kind() -> impl Strategy<Value = OffsetKind> {
    prop_oneof![Just(OffsetKind::OddR), Just(OffsetKind::EvenR), Just(OffsetKind::OddQ), Just(OffsetKind::EvenQ),]
}

fn obstacles() -> impl Strategy<Value = HashSet<Hex>> {
    prop::collection::hash_set(small_hex(), 0..60)
}

proptest! {
    #[test]
    fn add_sub_inverse(a in any_hex(), b in any_hex()) {
        prop_assert_eq!(a + b - b, a);
        prop_assert_eq!(a - b + b, a);
        prop_assert_eq!(a + -a, Hex::default());
        prop_assert_eq!(a * 3, a + a + a);
    }

    #[test]
    fn distance_metric(a in any_hex(), b in any_hex(), c in any_hex()) {
        prop_assert_eq!(a.distance(b), b.distance(a));
        prop_assert!(a.distance(c) <= a.distance(b) + b.distance(c));
        prop_assert_eq!(a.distance(b), (a - b).length());
        let cube = ((a.q - b.q).abs() + (a.r - b.r).abs() + (a.s() - b.s()).abs()) / 2;
        prop_assert_eq!(a.distance(b), cube);
    }

    #[test]
    fn rotations(a in any_hex(), c in any_hex(), k in -20i32..20) {
        let mut x = a;
        for _ in 0..6 {
            x = x.rotate_right();
        }
        prop_assert_eq!(x, a);
        prop_assert_eq!(a.rotate_right().rotate_left(), a);
        prop_assert_eq!(a.rotate_left().rotate_right(), a);
        prop_assert_eq!(a.rotate_around(c, k).rotate_around(c, -k), a);
        prop_assert_eq!(a.rotate_around(c, k).distance(c), a.distance(c));
        prop_assert_eq!(a.rotate_around(c, 1), (a - c).rotate_right() + c);
        prop_assert_eq!(a.rotate_around(c, -1), (a - c).rotate_left() + c);
    }

    #[test]
    fn rings_and_within(c in any_hex(), n in 0u32..12) {
        let ring = c.ring(n);
        prop_assert_eq!(ring.len(), if n == 0 { 1 } else { 6 * n as usize });
        prop_assert!(ring.iter().all(|x| x.distance(c) == n as i32));
        prop_assert_eq!(ring[0], c + Hex::DIRECTIONS[0] * n as i32);
        prop_assert_eq!(ring.iter().collect::<HashSet<_>>().len(), ring.len());
        if n > 0 {
            // Consecutive (cyclically) ring hexes are adjacent.
            for i in 0..ring.len() {
                prop_assert_eq!(ring[i].distance(ring[(i + 1) % ring.len()]), 1);
            }
        }
        let within = c.within(n);
        prop_assert_eq!(within.len(), 3 * (n as usize) * (n as usize + 1) + 1);
        prop_assert_eq!(within.iter().collect::<HashSet<_>>().len(), within.len());
        prop_assert!(within.iter().all(|x| x.distance(c) <= n as i32));
    }

    #[test]
    fn offset_round_trips(a in any_hex(), col in -1000i32..1000, row in -1000i32..1000, kind in any_kind()) {
        let (c, r) = a.to_offset(kind);
        prop_assert_eq!(Hex::from_offset(c, r, kind), a);
        prop_assert_eq!(Hex::from_offset(col, row, kind).to_offset(kind), (col, row));
    }

    #[test]
    fn offset_matches_layout(a in any_hex()) {
        // Independent check against the shoved-row/column pictures.
        let (x, _) = a.to_pixel(1.0);
        let s3 = 3f64.sqrt();
        let (col, row) = a.to_offset(OffsetKind::OddR);
        prop_assert!((x - s3 * (f64::from(col) + 0.5 * f64::from(row.rem_euclid(2)))).abs() < 1e-6);
        let (col, row) = a.to_offset(OffsetKind::EvenR);
        prop_assert!((x - s3 * (f64::from(col) - 0.5 * f64::from(row.rem_euclid(2)))).abs() < 1e-6);
        // Flat-top layout: y = sqrt3 * (r + q / 2).
        let y_flat = s3 * (f64::from(a.r) + f64::from(a.q) / 2.0);
        let (col, row) = a.to_offset(OffsetKind::OddQ);
        prop_assert_eq!(col, a.q);
        prop_assert!((y_flat - s3 * (f64::from(row) + 0.5 * f64::from(col.rem_euclid(2)))).abs() < 1e-6);
        let (col, row) = a.to_offset(OffsetKind::EvenQ);
        prop_assert!((y_flat - s3 * (f64::from(row) - 0.5 * f64::from(col.rem_euclid(2)))).abs() < 1e-6);
    }

    #[test]
    fn round_of_centre_and_pixel(a in any_hex(), dq in -0.3f64..0.3, dr in -0.3f64..0.3) {
        prop_assert_eq!(Hex::round(f64::from(a.q), f64::from(a.r)), a);
        // Small offsets (cube distance < 1/2 along every axis) stay inside.
        if (dq + dr).abs() < 0.45 {
            prop_assert_eq!(Hex::round(f64::from(a.q) + dq, f64::from(a.r) + dr), a);
        }
    }

    #[test]
    fn line_draw_properties(a in any_hex(), d in small_hex()) {
        let b = a + d;
        let line = Hex::line(a, b);
        prop_assert_eq!(line.len(), a.distance(b) as usize + 1);
        prop_assert_eq!(line[0], a);
        prop_assert_eq!(*line.last().unwrap(), b);
        for w in line.windows(2) {
            prop_assert_eq!(w[0].distance(w[1]), 1);
        }
    }

    #[test]
    fn direction_to_matches_float_bearing(a in small_hex(), b in small_hex()) {
        prop_assume!(a != b);
        let (x0, y0) = a.to_pixel(1.0);
        let (x1, y1) = b.to_pixel(1.0);
        let bearing = (y1 - y0).atan2(x1 - x0).to_degrees().rem_euclid(360.0);
        let sector = bearing / 60.0;
        // Skip near-ties, which the exact rule settles.
        prop_assume!((sector.fract() - 0.5).abs() > 1e-6);
        let expected = (sector.round() as u8) % 6 + 1;
        prop_assert_eq!(a.direction_to(b), Some(expected));
    }

    #[test]
    fn los_hexes_match_brute_force(a in small_hex(), b in small_hex()) {
        let fast = los_hexes(a, b);
        prop_assert_eq!(&fast, &los_hexes_brute(a, b));
        // Every interior hex is within distance 1 of the line draw.
        let line = Hex::line(a, b);
        for (x, c) in &fast {
            if *c == Crossing::Interior {
                prop_assert!(line.iter().any(|l| l.distance(*x) <= 1));
            }
        }
        // The reversed segment touches the same hexes, sides swapped.
        let mut back: Vec<(Hex, Crossing)> = los_hexes(b, a)
            .into_iter()
            .map(|(x, c)| (x, match c {
                Crossing::Left => Crossing::Right,
                Crossing::Right => Crossing::Left,
                Crossing::Interior => Crossing::Interior,
            }))
            .collect();
        let mut fwd = fast.clone();
        back.sort_by_key(|&(x, _)| x);
        fwd.sort_by_key(|&(x, _)| x);
        prop_assert_eq!(fwd, back);
    }

    #[test]
    fn los_symmetric(a in small_hex(), b in small_hex(), obs in obstacles()) {
        let ab = los(a, b, |x| obs.contains(&x));
        let ba = los(b, a, |x| obs.contains(&x));
        prop_assert_eq!(ab.clear, ba.clear);
        prop_assert_eq!(ab.clear, ab.blocker.is_none());
        if let Some(x) = ab.blocker {
            prop_assert!(obs.contains(&x));
            prop_assert!(x != a && x != b);
        }
    }

    #[test]
    fn los_matches_reference_rule(a in small_hex(), b in small_hex(), obs in obstacles()) {
        // Straightforward (eager) statement of the rule.
        let touched = los_hexes(a, b);
        let is_obs = |x: &Hex| obs.contains(x);
        let left = touched.iter().any(|(x, c)| *c == Crossing::Left && is_obs(x));
        let right = touched.iter().any(|(x, c)| *c == Crossing::Right && is_obs(x));
        let expected = touched
            .iter()
            .find(|(x, c)| is_obs(x) && (*c == Crossing::Interior || (left && right)))
            .map(|(x, _)| *x);
        let got = los(a, b, |x| obs.contains(&x));
        prop_assert_eq!(got.blocker, expected);
    }

    #[test]
    fn los_never_blocked_by_ends(a in small_hex(), b in small_hex()) {
        let got = los(a, b, |x| x == a || x == b);
        prop_assert!(got.clear);
    }

    #[test]
    fn los_clear_without_obstructions(a in any_hex(), d in small_hex()) {
        let got = los(a, a + d, |_| false);
        prop_assert_eq!(got, Los { clear: true, blocker: None });
    }

    #[test]
    fn adjacent_and_same_always_clear(a in any_hex(), dir in 1u8..=6) {
        let b = a.neighbor(dir).unwrap();
        prop_assert!(los_hexes(a, b).is_empty());
        prop_assert!(los(a, b, |_| true).clear);
        prop_assert!(los(a, a, |_| true).clear);
    }
}
