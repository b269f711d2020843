//! Tests of the tabletop geometry: worked cases, then properties (sampling
//! agrees with the exact fractions; moving and turning a whole scene changes
//! no distance, fraction or order).

use proptest::prelude::*;

use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

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
fn a_base_has_corners_edges_and_a_front() {
    // Facing down the table (90): its front is at larger y, its right is to -x.
    let b = Base::new(Point::new(10.0, 10.0), 90.0, 4.0, 2.0);
    let [fl, fr, rr, rl] = b.corners();
    assert!(close(fl.x, 12.0) && close(fl.y, 11.0), "{fl}");
    assert!(close(fr.x, 8.0) && close(fr.y, 11.0), "{fr}");
    assert!(close(rr.x, 8.0) && close(rr.y, 9.0), "{rr}");
    assert!(close(rl.x, 12.0) && close(rl.y, 9.0), "{rl}");
    assert!(close(b.front_mid().y, 11.0));
    assert!(b.contains(Point::new(11.9, 10.9)));
    assert!(!b.contains(Point::new(10.0, 11.5)));
    let f = Base::from_front(Point::new(10.0, 11.0), 90.0, 4.0, 2.0);
    assert!(close(f.centre.x, 10.0) && close(f.centre.y, 10.0));
    assert!(close(b.edge_bearing(Edge::Right), 180.0));
    assert_eq!(b.edge_towards(Point::new(10.0, 30.0)), Edge::Front);
    assert_eq!(b.edge_towards(Point::new(-5.0, 10.0)), Edge::Right);
    assert_eq!(b.edge_towards(Point::new(30.0, 9.0)), Edge::Left);
    assert_eq!(b.edge_towards(Point::new(10.0, 0.0)), Edge::Rear);
}

#[test]
fn distance_between_bases_is_between_closest_points() {
    let a = Base::new(Point::new(0.0, 0.0), 0.0, 4.0, 2.0);
    let b = Base::new(Point::new(10.0, 0.0), 0.0, 4.0, 2.0);
    // a's front edge is at x = 1, b's rear edge at x = 9
    assert!(close(a.distance(&b), 8.0));
    let (pa, pb) = a.closest_points(&b);
    assert!(close(pa.distance(pb), 8.0));
    assert!(close(pa.x, 1.0) && close(pb.x, 9.0));
    // A corner-to-corner gap
    let c = Base::new(Point::new(4.0, 6.0), 0.0, 2.0, 2.0);
    assert!(close(a.distance(&c), (2.0f64 * 2.0 + 3.0 * 3.0).sqrt()), "{}", a.distance(&c));
    // overlapping bases touch
    let d = Base::new(Point::new(1.0, 0.0), 45.0, 4.0, 2.0);
    assert!(a.touches(&d));
    assert_eq!(a.distance(&d), 0.0);
}

#[test]
fn formations_lay_bases_out_in_ranks() {
    // Four bases in line facing east: one rank, front edge at x = 11.
    let (bases, block) = layout(Point::new(10.0, 10.0), 0.0, 4, 0, 4.0, 2.0);
    assert_eq!(bases.len(), 4);
    assert!(close(block.width, 16.0) && close(block.depth, 2.0));
    assert!(bases.iter().all(|b| close(b.centre.x, 10.0)));
    // left to right when facing east is -y to +y
    assert!(close(bases[0].centre.y, 4.0) && close(bases[3].centre.y, 16.0));
    // Column of two: 2 ranks, front rank first.
    let (bases, block) = layout(Point::new(10.0, 10.0), 0.0, 3, 2, 4.0, 2.0);
    assert!(close(block.width, 8.0) && close(block.depth, 4.0));
    assert!(close(bases[0].centre.x, 11.0) && close(bases[2].centre.x, 9.0));
    // the short rear rank is centred
    assert!(close(bases[2].centre.y, 10.0));
}

#[test]
fn arc_of_fire_opens_from_the_front_corners() {
    // A battery 4 wide facing east at the origin: front edge x = 1, y in -2..2.
    let bat = Base::new(Point::new(0.0, 0.0), 0.0, 4.0, 2.0);
    let arc = Arc::of_fire(&bat, 60.0);
    assert!(arc.contains(Point::new(1.0, 2.0))); // the corner itself
    assert!(arc.contains(Point::new(11.0, 2.0 + 10.0 * 30f64.to_radians().tan() - 1e-6)));
    assert!(!arc.contains(Point::new(11.0, 2.0 + 10.0 * 30f64.to_radians().tan() + 1e-3)));
    assert!(!arc.contains(Point::new(0.5, 0.0))); // behind the front edge
                                                  // A point straight ahead of a corner is inside even close in.
    assert!(arc.contains(Point::new(1.5, -2.0)));
}

#[test]
fn frontage_fraction_in_an_enfilade_arc() {
    // A line of infantry facing north (270), 16 wide, 2 deep, centred at (50, 50).
    let (_, target) = layout(Point::new(50.0, 50.0), 270.0, 4, 0, 4.0, 2.0);
    // A battery off its right flank (east), facing west at it.
    let bat = Base::new(Point::new(80.0, 50.0), 180.0, 4.0, 2.0);
    let edge = target.edge_towards(bat.centre);
    assert_eq!(edge, Edge::Right);
    let arc = Arc::from_edge(&target, edge, 60.0);
    assert!(close(arc.frontage_fraction(&bat), 1.0));
    // Slide the battery up the table until half its frontage is outside:
    // the arc's edge at x = 79 (21 cm beyond the flank at x = 58) is
    // 1 + 21 tan 30 from the centre line.
    let off = 1.0 + 21.0 * 30f64.to_radians().tan();
    let half_out = Base::new(Point::new(80.0, 50.0 - off), 180.0, 4.0, 2.0);
    assert!((arc.frontage_fraction(&half_out) - 0.5).abs() < 1e-6, "{}", arc.frontage_fraction(&half_out));
    // Behind the flank line nothing is inside.
    let behind = Base::new(Point::new(50.0, 80.0), 270.0, 4.0, 2.0);
    let rear_edge = target.edge_towards(behind.centre);
    assert_eq!(rear_edge, Edge::Rear);
    assert_eq!(arc.frontage_fraction(&behind), 0.0);
}

#[test]
fn lines_and_zones_list_the_bases_they_cross_in_order() {
    let bat = Base::new(Point::new(0.0, 50.0), 0.0, 4.0, 2.0);
    let line = zone::Path::centre_line(&bat, 0.0, 100.0);
    let a = Base::new(Point::new(30.0, 50.0), 180.0, 4.0, 2.0);
    let b = Base::new(Point::new(20.0, 51.0), 180.0, 4.0, 2.0);
    let c = Base::new(Point::new(40.0, 60.0), 180.0, 4.0, 2.0); // off the line, in no zone
    let d = Base::new(Point::new(25.0, 53.5), 180.0, 4.0, 2.0); // in the zone, off the line
    let all = [(0, 0, a), (1, 0, b), (2, 0, c), (3, 0, d)];
    let hit: Vec<usize> = crossings(&line, &all).iter().map(|x| x.key).collect();
    assert_eq!(hit, vec![1, 0]);
    let zone = zone::Path::frontage_zone(&bat, 0.0, 100.0);
    let through = crossings(&zone, &all);
    let keys: Vec<usize> = through.iter().map(|x| x.key).collect();
    assert_eq!(keys, vec![1, 3, 0]);
    assert!(close(through[0].from, 18.0));
    assert!(close(through[1].amount, 0.125), "{}", through[1].amount);
}

#[test]
fn terrain_areas_cover_parts_of_bases_and_stack_levels() {
    let hill = Area {
        kind: "hill".into(),
        points: vec![Point::new(0.0, 0.0), Point::new(20.0, 0.0), Point::new(20.0, 20.0), Point::new(0.0, 20.0)],
        level: 1,
        cover: None,
        name: None,
    };
    let crest = Area {
        kind: "hill".into(),
        points: vec![Point::new(5.0, 5.0), Point::new(10.0, 5.0), Point::new(10.0, 10.0)],
        level: 2,
        cover: None,
        name: None,
    };
    let layout = Layout { areas: vec![hill, crest], bases: Default::default() };
    assert_eq!(layout.level_at(Point::new(1.0, 1.0)), 1);
    assert_eq!(layout.level_at(Point::new(9.0, 6.0)), 2);
    assert_eq!(layout.level_at(Point::new(30.0, 6.0)), 0);
    // A base half over the hill's east edge.
    let b = Base::new(Point::new(20.0, 10.0), 0.0, 4.0, 2.0);
    let over = layout.overlaps(&b);
    assert_eq!(over.len(), 1);
    assert!(close(over[0].1, 0.5));
}

// ---- properties ----

fn point() -> impl Strategy<Value = Point> {
    (-50.0..50.0f64, -50.0..50.0f64).prop_map(|(x, y)| Point::new(x, y))
}

fn base() -> impl Strategy<Value = Base> {
    (point(), 0.0..360.0f64, 1.0..10.0f64, 0.5..6.0f64).prop_map(|(c, f, w, d)| Base::new(c, f, w, d))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The exact frontage fraction agrees with sampling the front edge.
    #[test]
    fn arc_fraction_agrees_with_sampling(target in base(), bat in base(), edge in 0usize..4, angle in 10.0..170.0f64) {
        let arc = Arc::from_edge(&target, Edge::ALL[edge], angle);
        let exact = arc.frontage_fraction(&bat);
        let s = bat.edge(Edge::Front);
        let n = 2000;
        let inside = (0..n).filter(|i| {
            let t = (*i as f64 + 0.5) / n as f64;
            arc.contains(s.a.plus(s.b.minus(s.a).scale(t)))
        }).count();
        prop_assert!((exact - inside as f64 / n as f64).abs() < 2.0 / n as f64 + 1e-6, "exact {} sampled {}", exact, inside as f64 / n as f64);
    }

    /// The area fraction agrees with sampling the base on a grid.
    #[test]
    fn area_fraction_agrees_with_sampling(target in base(), other in base(), angle in 10.0..170.0f64) {
        let arc = Arc::of_fire(&target, angle);
        let exact = arc.area_fraction(&other);
        let n = 60;
        let mut inside = 0;
        for i in 0..n {
            for j in 0..n {
                let p = other.at_local(((i as f64 + 0.5) / n as f64 - 0.5) * other.depth, ((j as f64 + 0.5) / n as f64 - 0.5) * other.width);
                if arc.contains(p) { inside += 1; }
            }
        }
        prop_assert!((exact - inside as f64 / (n * n) as f64).abs() < 0.04, "exact {} sampled {}", exact, inside as f64 / (n * n) as f64);
    }

    /// Distances between bases are the distances between their closest points,
    /// never more than between any two corners, and symmetric.
    #[test]
    fn base_distance_is_closest(a in base(), b in base()) {
        let d = a.distance(&b);
        prop_assert!((d - b.distance(&a)).abs() < 1e-6);
        let (pa, pb) = a.closest_points(&b);
        prop_assert!((pa.distance(pb) - d).abs() < 1e-6, "{} vs {}", pa.distance(pb), d);
        for p in a.corners() { for q in b.corners() { prop_assert!(d <= p.distance(q) + 1e-9); } }
    }

    /// Turning and moving a whole scene changes no distance, fraction, edge or order.
    #[test]
    fn scenes_are_invariant_under_rotation_and_translation(
        bat in base(), others in proptest::collection::vec(base(), 1..6),
        turn in 0.0..360.0f64, dx in -100.0..100.0f64, dy in -100.0..100.0f64, swing in -30.0..30.0f64,
    ) {
        let about = Point::new(3.0, -7.0);
        let mv = |b: &Base| b.moved(turn, about, dx, dy);
        let bat2 = mv(&bat);
        let others2: Vec<Base> = others.iter().map(mv).collect();
        // Fractions agree to 1e-4 (0.01% of a frontage): the polygon clipping
        // rounds differently once the scene is turned (seen: 2.7e-6).
        for (o, o2) in others.iter().zip(&others2) {
            prop_assert!((bat.distance(o) - bat2.distance(o2)).abs() < 1e-6);
            let (e, e2) = (o.edge_towards(bat.centre), o2.edge_towards(bat2.centre));
            let arc = Arc::from_edge(o, e, 60.0);
            let arc2 = Arc::from_edge(o2, e2, 60.0);
            prop_assert!((arc.frontage_fraction(&bat) - arc2.frontage_fraction(&bat2)).abs() < 1e-4, "{} vs {} edge {:?}", arc.frontage_fraction(&bat), arc2.frontage_fraction(&bat2), e);
            prop_assert!((Arc::of_fire(&bat, 60.0).area_fraction(o) - Arc::of_fire(&bat2, 60.0).area_fraction(o2)).abs() < 1e-5);
        }
        let keyed = |bs: &[Base]| bs.iter().enumerate().map(|(i, b)| (i, 0, *b)).collect::<Vec<_>>();
        let zone = zone::Path::frontage_zone(&bat, bat.facing + swing, 200.0);
        let zone2 = zone::Path::frontage_zone(&bat2, bat2.facing + swing, 200.0);
        // The same bases are crossed, and the turned scene's order is an
        // order of the first scene's distances: two bases crossed at the same
        // distance (to rounding) may come either way round.
        let order = |z: &zone::Path, bs: &[Base]| crossings(z, &keyed(bs)).iter().map(|c| (c.key, c.from)).collect::<Vec<_>>();
        let (o1, o2) = (order(&zone, &others), order(&zone2, &others2));
        let keys = |o: &[(usize, f64)]| { let mut k: Vec<usize> = o.iter().map(|x| x.0).collect(); k.sort(); k };
        prop_assert_eq!(keys(&o1), keys(&o2));
        let from1 = |key: usize| o1.iter().find(|x| x.0 == key).map(|x| x.1).unwrap_or(f64::NAN);
        for w in o2.windows(2) {
            prop_assert!(from1(w[0].0) <= from1(w[1].0) + 1e-6, "{:?} before {:?} in {:?}", w[0], w[1], o1);
        }
    }
}

#[test]
fn wide_arcs_from_a_point_agree_with_in_arc() {
    let o = Point::new(10.0, 10.0);
    for angle in [90.0, 180.0, 270.0, 359.0] {
        let arc = Arc::from_point(o, 45.0, angle);
        let poly = arc.polygon(100.0);
        for deg in (0..360).step_by(7) {
            let p = o.travel(deg as f64, 20.0);
            let inside_poly = geo::Intersects::intersects(&poly, &geo::Point::from(p.coord()));
            assert_eq!(arc.contains(p), in_arc(o, 45.0, angle, p), "{angle} {deg}");
            // away from the boundary rays the polygon agrees too
            if (angle_between(deg as f64, 45.0) - angle / 2.0).abs() > 1.0 {
                assert_eq!(inside_poly, arc.contains(p), "polygon {angle} {deg}");
            }
        }
    }
}

#[test]
fn paths_meet_terrain_polygons() {
    let river =
        polygon(&[Point::new(0.0, 50.0), Point::new(15.0, 50.0), Point::new(15.0, 52.0), Point::new(0.0, 52.0)]);
    let line = zone::Path::Line(Segment::new(Point::new(7.5, 60.0), Point::new(7.5, 30.0)));
    let (from, to, len) = line.meets_polygon(&river).expect("crosses");
    assert!(close(from, 8.0) && close(to, 10.0) && close(len, 2.0), "{from} {to} {len}");
    let zone = zone::Path::Zone { from: Point::new(20.0, 60.0), bearing: 270.0, width: 4.0, length: 30.0 };
    assert!(zone.meets_polygon(&river).is_none());
    let zone = zone::Path::Zone { from: Point::new(14.0, 60.0), bearing: 270.0, width: 4.0, length: 30.0 };
    let (_, _, area) = zone.meets_polygon(&river).expect("overlaps");
    assert!(close(area, 3.0 * 2.0), "{area}");
}
