//! Reference vectors for `sandtable::hex`: the Red Blob Games test suite
//! (<https://www.redblobgames.com/grids/hexagons/implementation.html>) mapped
//! to our direction numbering, and hand-checked line-of-sight cases.
//!
//! Geometry in the LOS comments uses the lattice of the module docs: a hex
//! `(q, r)` has its centre at `X = 2q + r, Y = 3r` (y down on screen), its
//! corners at the centre plus `(±1, ±1)` and `(0, ±2)`, and it is the region
//! `|dx| <= 1, |dx - dy| <= 2, |dx + dy| <= 2` around its centre. A point of
//! the segment is written with its parameter `t` (0 at `from`, 1 at `to`).

use sandtable::hex::{los, los_hexes, Crossing, Hex, Los, OffsetKind};

use Crossing::{Interior as I, Left as L, Right as R};

fn h(q: i32, r: i32) -> Hex {
    Hex::new(q, r)
}

/// Red Blob's cube constructor.
fn cube(q: i32, r: i32, s: i32) -> Hex {
    assert_eq!(q + r + s, 0);
    Hex::new(q, r)
}

/// Red Blob's fractional `hex_lerp` (cube space), returned as `(q, r)`.
fn lerp(a: (f64, f64), b: (f64, f64), t: f64) -> (f64, f64) {
    (a.0 * (1.0 - t) + b.0 * t, a.1 * (1.0 - t) + b.1 * t)
}

fn round(p: (f64, f64)) -> Hex {
    Hex::round(p.0, p.1)
}

// ---------------------------------------------------------------------------
// Red Blob Games reference vectors
// ---------------------------------------------------------------------------

#[test]
fn redblob_arithmetic() {
    assert_eq!(cube(1, -3, 2) + cube(3, -7, 4), cube(4, -10, 6));
    assert_eq!(cube(1, -3, 2) - cube(3, -7, 4), cube(-2, 4, -2));
    assert_eq!(cube(1, -3, 2) * 2, cube(2, -6, 4));
    assert_eq!(-cube(1, -3, 2), cube(-1, 3, -2));
    assert_eq!(cube(1, -3, 2).s(), 2);
}

#[test]
fn redblob_direction_and_neighbors() {
    // Red Blob direction i is our direction (6 - i) % 6 + 1.
    let ours = |i: u8| (6 - i) % 6 + 1;
    let redblob = [cube(1, 0, -1), cube(1, -1, 0), cube(0, -1, 1), cube(-1, 0, 1), cube(-1, 1, 0), cube(0, 1, -1)];
    for (i, d) in (0u8..).zip(redblob) {
        assert_eq!(Hex::direction(ours(i)), Some(d));
    }
    // hex_direction(2) == Hex(0, -1, 1)
    assert_eq!(Hex::direction(ours(2)), Some(cube(0, -1, 1)));
    // hex_neighbor(Hex(1, -2, 1), 2) == Hex(1, -3, 2)
    assert_eq!(cube(1, -2, 1).neighbor(ours(2)), Some(cube(1, -3, 2)));
    // hex_diagonal_neighbor(Hex(1, -2, 1), 3) == Hex(-1, -1, 2); Red Blob's
    // diagonal 3 is their directions 3 + 4, our 4 + 3.
    let diag = cube(1, -2, 1).neighbor(ours(3)).and_then(|x| x.neighbor(ours(4)));
    assert_eq!(diag, Some(cube(-1, -1, 2)));
}

#[test]
fn redblob_distance() {
    assert_eq!(cube(3, -7, 4).distance(cube(0, 0, 0)), 7);
    assert_eq!(cube(0, 0, 0).distance(cube(3, -7, 4)), 7);
    assert_eq!(cube(3, -7, 4).length(), 7);
}

#[test]
fn redblob_rotation() {
    assert_eq!(cube(1, -3, 2).rotate_right(), cube(3, -2, -1));
    assert_eq!(cube(1, -3, 2).rotate_left(), cube(-2, -1, 3));
}

#[test]
fn redblob_round() {
    let a = (0.0, 0.0);
    let b = (1.0, -1.0);
    let c = (0.0, -1.0);
    assert_eq!(round(lerp((0.0, 0.0), (10.0, -20.0), 0.5)), cube(5, -10, 5));
    assert_eq!(round(lerp(a, b, 0.499)), round(a));
    assert_eq!(round(lerp(a, b, 0.501)), round(b));
    let mix = |wa: f64, wb: f64, wc: f64| (a.0 * wa + b.0 * wb + c.0 * wc, a.1 * wa + b.1 * wb + c.1 * wc);
    assert_eq!(round(mix(0.4, 0.3, 0.3)), round(a));
    assert_eq!(round(mix(0.3, 0.3, 0.4)), round(c));
    assert_eq!(round(a), cube(0, 0, 0));
    assert_eq!(round(b), cube(1, -1, 0));
    assert_eq!(round(c), cube(0, -1, 1));
}

#[test]
fn redblob_linedraw() {
    assert_eq!(
        Hex::line(cube(0, 0, 0), cube(1, -5, 4)),
        vec![cube(0, 0, 0), cube(0, -1, 1), cube(0, -2, 2), cube(1, -3, 2), cube(1, -4, 3), cube(1, -5, 4),]
    );
    assert_eq!(Hex::line(h(2, 2), h(2, 2)), vec![h(2, 2)]);
}

#[test]
fn redblob_layout_pointy() {
    // hex_to_pixel with the pointy orientation, size 10, no origin offset,
    // then Red Blob's pixel_to_hex matrix and hex_round back.
    let hex = cube(3, 4, -7);
    let (x, y) = hex.to_pixel(10.0);
    let s3 = 3f64.sqrt();
    assert!((x - 10.0 * (s3 * 3.0 + s3 / 2.0 * 4.0)).abs() < 1e-9);
    assert!((y - 10.0 * 1.5 * 4.0).abs() < 1e-9);
    let (px, py) = (x / 10.0, y / 10.0);
    let q = s3 / 3.0 * px - 1.0 / 3.0 * py;
    let r = 2.0 / 3.0 * py;
    assert_eq!(Hex::round(q, r), hex);
}

#[test]
fn redblob_offset_vectors() {
    use OffsetKind::*;
    let a = cube(3, 4, -7);
    let b = (1, -3);
    for kind in [EvenQ, OddQ, EvenR, OddR] {
        let (col, row) = a.to_offset(kind);
        assert_eq!(Hex::from_offset(col, row, kind), a, "{}", kind.name());
        assert_eq!(Hex::from_offset(b.0, b.1, kind).to_offset(kind), b, "{}", kind.name());
    }
    // offset_from_cube / offset_to_cube
    assert_eq!(cube(1, 2, -3).to_offset(EvenQ), (1, 3));
    assert_eq!(cube(1, 2, -3).to_offset(OddQ), (1, 2));
    assert_eq!(Hex::from_offset(1, 3, EvenQ), cube(1, 2, -3));
    assert_eq!(Hex::from_offset(1, 2, OddQ), cube(1, 2, -3));
    // Hand-derived from Red Blob's formulas (odd-r: col = q + (r - (r&1))/2,
    // even-r: col = q + (r + (r&1))/2, odd-q/even-q likewise on rows), with
    // odd negative rows and columns where `% 2` would go wrong.
    assert_eq!(cube(1, 2, -3).to_offset(OddR), (2, 2));
    assert_eq!(cube(1, 2, -3).to_offset(EvenR), (2, 2));
    assert_eq!(h(1, -3).to_offset(OddR), (-1, -3));
    assert_eq!(h(1, -3).to_offset(EvenR), (0, -3));
    assert_eq!(h(-3, 1).to_offset(OddQ), (-3, -1));
    assert_eq!(h(-3, 1).to_offset(EvenQ), (-3, 0));
    // Red Blob's test offset (1, -3) in each layout.
    assert_eq!(Hex::from_offset(1, -3, OddR), h(3, -3));
    assert_eq!(Hex::from_offset(1, -3, EvenR), h(2, -3));
    assert_eq!(Hex::from_offset(1, -3, OddQ), h(1, -3));
    assert_eq!(Hex::from_offset(1, -3, EvenQ), h(1, -4));
    // Default and names.
    assert_eq!(OffsetKind::default(), OddR);
    assert_eq!("even-q".parse::<OffsetKind>(), Ok(EvenQ));
    assert!("odd_r".parse::<OffsetKind>().is_err());
}

#[test]
fn display_and_pixel() {
    assert_eq!(h(1, -2).to_string(), "(1,-2)");
    assert_eq!(h(0, 0).to_pixel(2.0), (0.0, 0.0));
    let (x, y) = h(0, 1).to_pixel(1.0);
    assert!((x - 3f64.sqrt() / 2.0).abs() < 1e-12 && (y - 1.5).abs() < 1e-12);
}

// ---------------------------------------------------------------------------
// Line of sight, hand-checked
// ---------------------------------------------------------------------------

/// LOS with the given obstructed hexes.
fn los_with(from: Hex, to: Hex, obstacles: &[Hex]) -> Los {
    los(from, to, |x| obstacles.contains(&x))
}

fn blocker(from: Hex, to: Hex, obstacles: &[Hex]) -> Option<Hex> {
    let got = los_with(from, to, obstacles);
    assert_eq!(got.clear, got.blocker.is_none());
    got.blocker
}

fn touched(list: &[(i32, i32, Crossing)]) -> Vec<(Hex, Crossing)> {
    list.iter().map(|&(q, r, c)| (h(q, r), c)).collect()
}

/// Case 1: Along direction 1: (0,0) -> (3,0) is the lattice segment (0,0)-(6,0),
/// through the centres of (1,0) and (2,0), crossing the vertical edges x = 1
/// and x = 3 at their midpoints. The hexes above and below, e.g. (1,-1)
/// [centre (1,-3)] and (0,1) [centre (1,3)], come no closer than their
/// corners at y = -1 and y = +1, so nothing is grazed.
#[test]
fn los_straight_direction_1() {
    let (a, b) = (h(0, 0), h(3, 0));
    assert_eq!(los_hexes(a, b), touched(&[(1, 0, I), (2, 0, I)]));
    assert_eq!(blocker(a, b, &[h(2, 0)]), Some(h(2, 0)));
    assert_eq!(blocker(a, b, &[h(1, -1), h(0, 1), h(2, -1), h(1, 1)]), None);
}

/// Case 2: Along direction 2: (0,0) -> (0,3) is (0,0)-(3,9), through the centres
/// (1,3) and (2,6) of (0,1) and (0,2); it crosses each shared edge at its
/// midpoint, so no corner is touched.
#[test]
fn los_straight_direction_2() {
    let (a, b) = (h(0, 0), h(0, 3));
    assert_eq!(los_hexes(a, b), touched(&[(0, 1, I), (0, 2, I)]));
    assert_eq!(blocker(a, b, &[h(0, 2)]), Some(h(0, 2)));
    assert_eq!(blocker(a, b, &[h(1, 1), h(-1, 2)]), None);
}

/// Case 3: Along direction 5 away from the origin: (2,-1) -> (2,-4), straight
/// through (2,-2) and (2,-3).
#[test]
fn los_straight_direction_5() {
    let (a, b) = (h(2, -1), h(2, -4));
    assert_eq!(los_hexes(a, b), touched(&[(2, -2, I), (2, -3, I)]));
    assert_eq!(blocker(a, b, &[h(2, -3), h(2, -2)]), Some(h(2, -2)));
}

/// Case 4: Adjacent hexes: the segment (0,0)-(2,0) only crosses the shared edge
/// x = 1 at its midpoint (1,0), far from any third hex: always clear.
#[test]
fn los_adjacent_always_clear() {
    for dir in 1..=6 {
        let b = h(4, -2).neighbor(dir).unwrap();
        assert!(los_hexes(h(4, -2), b).is_empty());
        assert_eq!(los(h(4, -2), b, |_| true), Los { clear: true, blocker: None });
    }
}

/// Case 5: The same hex: no segment, clear, and `obstructed` is never asked.
#[test]
fn los_same_hex() {
    let got = los(h(3, 3), h(3, 3), |_| panic!("must not be called"));
    assert!(got.clear);
    assert!(los_hexes(h(3, 3), h(3, 3)).is_empty());
}

/// Case 6: Edge run: (0,0) -> (1,1) is (0,0)-(3,3), the line y = x. It leaves
/// (0,0) at its corner (1,1), runs along the edge (1,1)-(2,2) shared by (1,0)
/// (centre (2,0), to the left of a viewer heading down-right) and (0,1)
/// (centre (1,3), on the right), and enters (1,1) at its corner (2,2). No
/// interior hex in between; one side obstructed is clear, both blocked.
#[test]
fn los_edge_run_short() {
    let (a, b) = (h(0, 0), h(1, 1));
    assert_eq!(los_hexes(a, b), touched(&[(1, 0, L), (0, 1, R)]));
    assert_eq!(blocker(a, b, &[h(1, 0)]), None);
    assert_eq!(blocker(a, b, &[h(0, 1)]), None);
    // Both: the two are level along the line; the left one is reported.
    assert_eq!(blocker(a, b, &[h(1, 0), h(0, 1)]), Some(h(1, 0)));
}

/// Case 7: The same edge run looked at the other way round: sides swap, the
/// rule (both needed) does not change.
#[test]
fn los_edge_run_reversed() {
    let (a, b) = (h(1, 1), h(0, 0));
    assert_eq!(los_hexes(a, b), touched(&[(0, 1, L), (1, 0, R)]));
    assert_eq!(blocker(a, b, &[h(0, 1)]), None);
    assert_eq!(blocker(a, b, &[h(1, 0), h(0, 1)]), Some(h(0, 1)));
}

/// Case 8: Longer edge run: (0,0) -> (2,2) is (0,0)-(6,6). Along y = x it runs on
/// the edge (1,1)-(2,2) between (1,0) [left] and (0,1) [right], through the
/// interior of (1,1) (centre (3,3), from its top-left corner (2,2) to its
/// bottom-right corner (4,4)), then along the edge (4,4)-(5,5) between (2,1)
/// [centre (5,3), left] and (1,2) [centre (4,6), right].
#[test]
fn los_edge_run_long() {
    let (a, b) = (h(0, 0), h(2, 2));
    assert_eq!(los_hexes(a, b), touched(&[(1, 0, L), (0, 1, R), (1, 1, I), (2, 1, L), (1, 2, R)]));
    // Both grazed hexes on the left: clear.
    assert_eq!(blocker(a, b, &[h(1, 0), h(2, 1)]), None);
    // A left one in the first pair and a right one in the second pair: the
    // two-sided rule applies anywhere along the line; first one reported.
    assert_eq!(blocker(a, b, &[h(1, 0), h(1, 2)]), Some(h(1, 0)));
    assert_eq!(blocker(a, b, &[h(2, 1), h(0, 1)]), Some(h(0, 1)));
    // The crossed hex blocks on its own.
    assert_eq!(blocker(a, b, &[h(1, 1)]), Some(h(1, 1)));
    // Interior hex plus a single-sided graze: the interior hex blocks.
    assert_eq!(blocker(a, b, &[h(1, 1), h(2, 1)]), Some(h(1, 1)));
}

/// Case 9: Two-sided graze whose second side comes after an obstructed interior
/// hex, on the (0,0) -> (2,2) run of case 8: (0,1) [right, grazed for t in
/// 1/6..1/3] comes before (1,1) [crossed for t in 1/3..2/3], and (2,1)
/// [left, 2/3..5/6] after it; the two-sided rule makes (0,1) the nearest
/// blocker. Likewise (1,0) with (1,2).
#[test]
fn los_graze_pair_reported_before_interior() {
    let (a, b) = (h(0, 0), h(2, 2));
    assert_eq!(blocker(a, b, &[h(0, 1), h(1, 1), h(2, 1)]), Some(h(0, 1)));
    assert_eq!(blocker(a, b, &[h(1, 1), h(1, 2), h(1, 0)]), Some(h(1, 0)));
}

/// Case 10: Vertical edge run: (0,0) -> (-3,6) is (0,0)-(0,18), straight down the
/// line x = 0. Hexes centred on x = 0 are crossed through their centres:
/// (-1,2) at (0,6) and (-2,4) at (0,12). In between, the line runs along the
/// vertical edges x = 0, y in 2..4, 8..10 and 14..16, each shared by the hex
/// centred at x = +1 (east: on the left of a viewer heading south) and the
/// one at x = -1 (west: on the right): (0,1)/(-1,1), (-1,3)/(-2,3),
/// (-2,5)/(-3,5).
#[test]
fn los_vertical_edge_run() {
    let (a, b) = (h(0, 0), h(-3, 6));
    assert_eq!(
        los_hexes(a, b),
        touched(&[(0, 1, L), (-1, 1, R), (-1, 2, I), (-1, 3, L), (-2, 3, R), (-2, 4, I), (-2, 5, L), (-3, 5, R),])
    );
    // All the eastern hexes obstructed: one side only, clear.
    assert_eq!(blocker(a, b, &[h(0, 1), h(-1, 3), h(-2, 5)]), None);
    // An eastern one near `from` and a western one near `to`: blocked.
    assert_eq!(blocker(a, b, &[h(0, 1), h(-3, 5)]), Some(h(0, 1)));
    assert_eq!(blocker(a, b, &[h(-2, 4), h(-1, 2)]), Some(h(-1, 2)));
}

/// Case 11: Vertical edge run upwards: (0,0) -> (2,-4) is (0,0)-(0,-12). Heading
/// north, the west hexes (0,-1) [centre (-1,-3)] and (1,-3) [(-1,-9)] are on
/// the left, the east hexes (1,-1) [(1,-3)] and (2,-3) [(1,-9)] on the right;
/// (1,-2) is crossed through its centre (0,-6).
#[test]
fn los_vertical_edge_run_up() {
    let (a, b) = (h(0, 0), h(2, -4));
    assert_eq!(los_hexes(a, b), touched(&[(0, -1, L), (1, -1, R), (1, -2, I), (1, -3, L), (2, -3, R)]));
    assert_eq!(blocker(a, b, &[h(2, -3), h(1, -1)]), None);
    assert_eq!(blocker(a, b, &[h(2, -3), h(0, -1)]), Some(h(0, -1)));
}

/// Case 12: Corner grazes: (0,0) -> (4,1) is (0,0)-(9,3), the line y = x/3. It
/// passes through the lattice points (3,1) and (6,2), which are corners:
/// (3,1) is the bottom-right corner of (1,0), the bottom-left of (2,0) and
/// the top of (1,1) [centre (3,3)]; the line goes from (1,0) into (2,0), so
/// (1,1) is only touched at its top corner, below the line: right. (6,2) is
/// the bottom corner of (3,0) [centre (6,0)], where the line passes from
/// (2,1) into (3,1): (3,0) is grazed above the line: left.
#[test]
fn los_corner_grazes() {
    let (a, b) = (h(0, 0), h(4, 1));
    assert_eq!(los_hexes(a, b), touched(&[(1, 0, I), (1, 1, R), (2, 0, I), (2, 1, I), (3, 0, L), (3, 1, I)]));
    assert_eq!(blocker(a, b, &[h(1, 1)]), None);
    assert_eq!(blocker(a, b, &[h(3, 0)]), None);
    // Corners on opposite sides, far apart along the line: blocked.
    assert_eq!(blocker(a, b, &[h(3, 0), h(1, 1)]), Some(h(1, 1)));
    // The same line extended to (8,2) repeats the pattern: grazes (1,1) R,
    // (3,0) L, (5,2) R, (7,1) L.
    let grazed: Vec<(Hex, Crossing)> = los_hexes(a, h(8, 2)).into_iter().filter(|&(_, c)| c != I).collect();
    assert_eq!(grazed, touched(&[(1, 1, R), (3, 0, L), (5, 2, R), (7, 1, L)]));
}

/// Case 13: Corner grazes on a steep line: (0,0) -> (-1,5) is (0,0)-(3,15), the
/// line x = y/5, through the corners (1,5) and (2,10). (1,5) is the top-left
/// corner of (0,2) [centre (2,6)] and the bottom corner of (0,1) [(1,3)], so
/// the third hex there, (-1,2) [centre (0,6)], west of the line, is grazed on
/// the right of a viewer heading south; at (2,10) the line passes from
/// (-1,3) [(1,9)] into (-1,4) [(2,12)] and grazes (0,3) [(3,9)] on the left.
#[test]
fn los_corner_grazes_steep() {
    let (a, b) = (h(0, 0), h(-1, 5));
    assert_eq!(los_hexes(a, b), touched(&[(0, 1, I), (-1, 2, R), (0, 2, I), (-1, 3, I), (0, 3, L), (-1, 4, I)]));
    assert_eq!(blocker(a, b, &[h(-1, 2), h(0, 3)]), Some(h(-1, 2)));
    assert_eq!(blocker(a, b, &[h(-1, 2)]), None);
}

/// Case 14: Long diagonal with no grazes: (0,0) -> (5,-3) is (0,0)-(7,-9), which
/// has no lattice point strictly inside (gcd(7, 9) = 1), so it touches no
/// corner. It crosses (1,-1) [centre (1,-3); at x = 1 the line is at
/// y = -9/7, inside], (2,-1) [(3,-3); at x = 3, y = -27/7, 6/7 above the
/// centre], (3,-2) and (4,-2) by symmetry about the midpoint. (1,0) is missed:
/// the line is above its top-left corner (1,-1) (y = -9/7 < -1 at x = 1).
#[test]
fn los_long_diagonal_5_m3() {
    let (a, b) = (h(0, 0), h(5, -3));
    let expected = touched(&[(1, -1, I), (2, -1, I), (3, -2, I), (4, -2, I)]);
    assert_eq!(los_hexes(a, b), expected);
    // Here the exact crossing agrees with the line draw.
    assert_eq!(Hex::line(a, b)[1..5].to_vec(), vec![h(1, -1), h(2, -1), h(3, -2), h(4, -2)]);
    assert_eq!(blocker(a, b, &[h(1, 0), h(4, -3), h(0, -1)]), None);
    assert_eq!(blocker(a, b, &[h(4, -2), h(3, -2)]), Some(h(3, -2)));
}

/// Case 15: Long diagonal crossing hexes the line draw skips: (0,0) -> (7,2) is
/// (0,0)-(16,6), y = 3x/8. Hex (1,1) [centre (3,3)]: relative to its centre
/// the segment is (-3 + 16t, -3 + 6t); |dx| <= 1 gives t in [1/8, 1/4],
/// |dx - dy| <= 2 gives t <= 1/5, |dx + dy| <= 2 gives t in [2/11, 4/11]:
/// the segment cuts across the top corner (3,1) of (1,1) (at x = 3 it is at
/// y = 9/8, just below the corner) for t in (2/11, 1/5), while the line draw
/// samples t = 1/9, 2/9 and never lands in (1,1). (6,1) is the mirror image
/// about the midpoint (8,3), for t in (4/5, 9/11).
#[test]
fn los_long_diagonal_7_2() {
    let (a, b) = (h(0, 0), h(7, 2));
    let line = Hex::line(a, b);
    assert!(!line.contains(&h(1, 1)) && !line.contains(&h(6, 1)));
    assert_eq!(
        los_hexes(a, b),
        touched(&[
            (1, 0, I),
            (1, 1, I),
            (2, 0, I),
            (2, 1, I),
            (3, 1, I),
            (4, 1, I),
            (5, 1, I),
            (5, 2, I),
            (6, 1, I),
            (6, 2, I),
        ])
    );
    assert_eq!(blocker(a, b, &[h(1, 1)]), Some(h(1, 1)));
    assert_eq!(blocker(a, b, &[h(6, 1)]), Some(h(6, 1)));
}

/// Case 16: A short clip the line draw misses (found by brute force over all
/// targets within 8 of the origin: the shortest missed clip there).
/// (0,0) -> (6,1) is (0,0)-(13,3). Relative to the centre (5,3) of (2,1) the
/// segment is (-5 + 13t, -3 + 3t): |dx| <= 1 for t in [4/13, 6/13],
/// |dx - dy| <= 2 for t <= 2/5, |dx + dy| <= 2 for t in [3/8, 5/8]. So it
/// cuts across the top corner (5,1) of (2,1) for t in (3/8, 2/5), about 0.28
/// hex sizes long (at x = 5 the line is at y = 15/13, just below the corner).
/// The line draw samples t = 2/7 and 3/7, on either side. (4,0) is the
/// mirror case (t in (3/5, 5/8)) across the bottom corner (8,2) of (4,0).
#[test]
fn los_short_clip_missed_by_line_draw() {
    let (a, b) = (h(0, 0), h(6, 1));
    let line = Hex::line(a, b);
    assert!(!line.contains(&h(2, 1)) && !line.contains(&h(4, 0)));
    let crossing = los_hexes(a, b);
    assert!(crossing.contains(&(h(2, 1), I)));
    assert!(crossing.contains(&(h(4, 0), I)));
    assert_eq!(blocker(a, b, &[h(2, 1)]), Some(h(2, 1)));
    assert_eq!(blocker(b, a, &[h(2, 1)]), Some(h(2, 1)));
    assert_eq!(blocker(a, b, &[h(4, 0)]), Some(h(4, 0)));
}

/// Case 17: The blocker reported is the nearest to `from`: along direction 1,
/// (0,0) -> (5,0) with (2,0) and (3,0) obstructed reports (2,0); from the
/// other end it reports (3,0).
#[test]
fn los_blocker_is_nearest() {
    let obstacles = [h(3, 0), h(2, 0)];
    assert_eq!(blocker(h(0, 0), h(5, 0), &obstacles), Some(h(2, 0)));
    assert_eq!(blocker(h(5, 0), h(0, 0), &obstacles), Some(h(3, 0)));
}

/// Case 18: `from` and `to` never block, even when obstructed.
#[test]
fn los_ends_never_block() {
    let (a, b) = (h(0, 0), h(3, 0));
    assert_eq!(blocker(a, b, &[a, b]), None);
    assert_eq!(blocker(a, h(1, 1), &[a, h(1, 1), h(1, 0)]), None);
}

/// Case 19: Through the origin: (-2,3) -> (2,-3) is (-1,9)-(1,-9), the line
/// x = -y/9, through the centre of (0,0) at its midpoint; no lattice point
/// other than (0,0) lies on it in between (gcd(2, 18) = 2), so no corner is
/// touched: exactly five hexes crossed.
#[test]
fn los_through_centre() {
    let (a, b) = (h(-2, 3), h(2, -3));
    assert_eq!(los_hexes(a, b), touched(&[(-1, 2, I), (-1, 1, I), (0, 0, I), (1, -1, I), (1, -2, I)]));
    assert_eq!(blocker(a, b, &[h(0, 0)]), Some(h(0, 0)));
    assert_eq!(blocker(a, b, &[h(0, 1), h(-1, 0), h(1, 0)]), None);
}

/// Case 20: `obstructed` is called at most once per hex and never for hexes the
/// segment does not touch: on the (0,0) -> (2,2) edge run with everything
/// obstructed, it is asked about (1,0) and (0,1) only (they decide).
#[test]
fn los_predicate_calls() {
    let mut asked = Vec::new();
    let got = los(h(0, 0), h(2, 2), |x| {
        asked.push(x);
        true
    });
    assert_eq!(got.blocker, Some(h(1, 0)));
    assert_eq!(asked, vec![h(1, 0), h(0, 1)]);
    let mut asked = Vec::new();
    let got = los(h(0, 0), h(2, 2), |x| {
        asked.push(x);
        false
    });
    assert!(got.clear);
    assert_eq!(asked, vec![h(1, 0), h(0, 1), h(1, 1), h(2, 1), h(1, 2)]);
}

/// Case 21: Direction to, for the record: the six directions and the exact ties
/// between them (lower number wins; the 6/1 tie goes to 1).
#[test]
fn direction_to_vectors() {
    let o = h(0, 0);
    assert_eq!(o.direction_to(h(3, 0)), Some(1));
    assert_eq!(o.direction_to(h(0, 2)), Some(2));
    assert_eq!(o.direction_to(h(-1, 1)), Some(3));
    assert_eq!(o.direction_to(h(-5, 0)), Some(4));
    assert_eq!(o.direction_to(h(0, -1)), Some(5));
    assert_eq!(o.direction_to(h(2, -2)), Some(6));
    assert_eq!(o.direction_to(h(1, 1)), Some(1));
    assert_eq!(o.direction_to(h(2, -1)), Some(1));
    assert_eq!(o.direction_to(h(-1, -1)), Some(4));
    assert_eq!(o.direction_to(o), None);
}
