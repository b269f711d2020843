//! Tests of the world and the board.

use super::*;
use crate::hex::OffsetKind;

fn unit(id: &str, h: Hex) -> Unit {
    Unit {
        id: id.into(),
        side: "allies".into(),
        kind: "infantry".into(),
        strength: 4,
        max_strength: 4,
        leader: None,
        pos: Position::Hex(h),
        props: Vec::new(),
        bases: Vec::new(),
    }
}

#[test]
fn hits_clamp_and_eliminate() {
    let mut w = World::default();
    let i = w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
    assert_eq!(w.hit(i, 3, "test"), 3);
    assert_eq!(w.hit(i, 3, "test"), 1);
    assert_eq!(w.units[i].pos, Position::Off);
    assert!(w.unit_at(Hex::new(2, 2)).is_none());
}

#[test]
fn stacking_lets_units_share_a_hex() {
    let mut w = World { stacking: true, ..World::default() };
    let a = w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
    let b = w.add_unit(unit("b", Hex::new(2, 2))).unwrap();
    w.add_unit(unit("c", Hex::new(3, 2))).unwrap();
    assert_eq!(w.check_path(a, &[Hex::new(3, 2), Hex::new(4, 2)]), Ok(()));
    assert_eq!(w.step(a, Hex::new(3, 2), false), Ok(Hex::new(2, 2)));
    assert_eq!(w.place(b, Position::Hex(Hex::new(3, 2))), Ok(()));
    // unit_at still answers with the first living unit on the hex
    assert_eq!(w.unit_at(Hex::new(3, 2)), Some(a));
    w.stacking = false;
    assert!(w.step(a, Hex::new(2, 2), false).is_ok());
    assert!(w.step(a, Hex::new(3, 2), false).is_err(), "without stacking the hex is occupied");
}

#[test]
fn steps_must_be_adjacent_free_and_on_map() {
    let mut w = World::default();
    let a = w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
    w.add_unit(unit("b", Hex::new(3, 2))).unwrap();
    assert!(w.step(a, Hex::new(3, 2), false).is_err());
    assert!(w.step(a, Hex::new(4, 2), false).is_err());
    assert_eq!(w.step(a, Hex::new(2, 3), false), Ok(Hex::new(2, 2)));
    assert!(w.add_unit(unit("a", Hex::new(5, 5))).is_err());
}

#[test]
fn copies_share_the_board_until_written() {
    let mut w = World::default();
    w.set_terrain(Hex::new(1, 1), Some("woods"));
    let mut copy = w.clone();
    assert!(Rc::ptr_eq(&w.board, &copy.board));
    copy.add_token(Hex::new(1, 1), "crater");
    assert!(!w.has_token(Hex::new(1, 1), "crater"));
    assert!(copy.has_token(Hex::new(1, 1), "crater"));
    copy.set_terrain(Hex::new(1, 1), None);
    assert!(!Rc::ptr_eq(&w.board, &copy.board));
    assert_eq!(w.terrain(Hex::new(1, 1)).map(|t| &**t), Some("woods"));
}

#[test]
fn tokens_keep_their_hex_order_and_placing_order() {
    let mut t = Tokens::default();
    let (a, b, c) = (Hex::new(2, 1), Hex::new(0, 3), Hex::new(1, 1));
    t.add(a, "wire");
    t.add(b, "crater");
    t.add(a, "crater");
    t.add(c, "wire");
    t.add(a, "wire");
    assert_eq!(t.on(a).map(|x| &**x).collect::<Vec<_>>(), ["wire", "crater", "wire"]);
    assert!(t.has(b, "crater") && !t.has(b, "wire") && !t.has(Hex::new(9, 9), "wire"));
    let hexes: Vec<Hex> = t.iter().map(|(h, _)| h).collect();
    assert!(hexes.windows(2).all(|p| p[0] <= p[1]), "sorted by hex: {hexes:?}");
    assert!(t.remove(a, "wire"));
    assert_eq!(t.on(a).map(|x| &**x).collect::<Vec<_>>(), ["crater", "wire"]);
    assert!(!t.remove(b, "wire"));
    let mut u = Tokens::default();
    u.reset_from(&t);
    assert_eq!(u, t);
}

/// A world with something in every field, unlike the default.
fn busy_world() -> World {
    let mut w = World {
        map: Map::Hex { cols: 8, rows: 6, offset: OffsetKind::EvenQ },
        sections: Rc::new(vec![Section { name: "left".into(), first_col: 0, last_col: 3 }]),
        current_side: Some("allies".into()),
        turn: 3,
        dice: DiceBox::new(7),
        ..World::default()
    };
    w.add_unit(unit("a", Hex::new(2, 2))).unwrap();
    w.set_terrain(Hex::new(1, 1), Some("woods"));
    w.add_token(Hex::new(1, 1), "crater");
    w.marks.push((Hex::new(2, 2), "1".into()));
    w.note("set up");
    w.traces.push(crate::tabletop::Trace {
        label: "lost".into(),
        unit: "a".into(),
        bases: vec![(2, crate::tabletop::Base::new(Point::new(1.0, 2.0), 90.0, 4.0, 1.5))].into(),
    });
    w
}

#[test]
fn same_as_sees_every_field() {
    let w = busy_world();
    assert!(w.same_as(&w.clone()));
    assert!(World::default().same_as(&World::default()));
    // One change per field, each touching that field only.
    type Change = (&'static str, fn(&mut World));
    let changes: [Change; 15] = [
        ("map", |w| w.map = Map::Table { width: 10.0, height: 10.0 }),
        ("board", |w| w.set_terrain(Hex::new(3, 3), Some("hills"))),
        ("tokens", |w| w.tokens.add(Hex::new(2, 1), "wire")),
        ("sections", |w| w.sections = Rc::new(Vec::new())),
        ("sides", |w| w.sides.push(Side { name: "axis".into(), baseline: None, pools: Vec::new() })),
        ("units", |w| w.units[0].strength = 1),
        ("current_side", |w| w.current_side = None),
        ("turn", |w| w.turn += 1),
        ("dice", |w| w.dice.seed(8)),
        ("log", |w| w.note("more")),
        ("marks", |w| w.marks.clear()),
        ("stacking", |w| w.stacking = !w.stacking),
        ("table_marks", |w| {
            w.table_marks.push(crate::tabletop::TableMark { label: "arc".into(), points: Vec::new(), closed: true })
        }),
        ("traces", |w| w.traces.clear()),
        ("a unit's bases", |w| w.units[0].bases = vec![1, 0, 3, 4]),
    ];
    for (field, change) in changes {
        let mut other = w.clone();
        change(&mut other);
        assert!(!w.same_as(&other), "a change to {field} went unseen");
        assert!(!other.same_as(&w), "a change to {field} went unseen (reversed)");
    }
    // A board copied on write but equal again is the same.
    let mut other = w.clone();
    other.set_terrain(Hex::new(3, 3), Some("hills"));
    other.set_terrain(Hex::new(3, 3), None);
    assert!(w.same_as(&other));
}

#[test]
fn reset_from_equals_a_clone_and_keeps_shared_parts_shared() {
    let template = busy_world();
    let mut w = World::default();
    w.add_unit(unit("z", Hex::new(0, 0))).unwrap();
    w.marks.push((Hex::new(0, 0), "x".into()));
    w.log.recording = false;
    w.reset_from(&template);
    assert!(w.same_as(&template));
    assert!(Rc::ptr_eq(&w.board, &template.board));
    assert!(Rc::ptr_eq(&w.sections, &template.sections));
    assert_eq!(w.log.events.len(), template.log.events.len());
    assert_eq!(w.log.recording, template.log.recording);
    assert_eq!(w.units, template.units);
    // A trial that changes everything is undone by the next reset.
    w.hit(0, 1, "test");
    w.clear_traces(None);
    w.add_token(Hex::new(4, 4), "wire");
    w.dice.seed(1);
    w.set_terrain(Hex::new(1, 1), None);
    w.turn = 9;
    assert!(!w.same_as(&template));
    w.reset_from(&template);
    assert!(w.same_as(&template));
    assert!(Rc::ptr_eq(&w.board, &template.board));
}

#[test]
fn section_lines_belong_to_both() {
    let w = World {
        sections: Rc::new(vec![
            Section { name: "left".into(), first_col: 0, last_col: 4 },
            Section { name: "centre".into(), first_col: 4, last_col: 8 },
        ]),
        ..World::default()
    };
    let h = Hex::from_offset(4, 3, OffsetKind::OddR);
    assert_eq!(w.sections_of(h).len(), 2);
}

#[test]
fn tabletop_legs_move_turn_and_stay_on_the_table() {
    let mut w = World { map: Map::Table { width: 100.0, height: 60.0 }, ..World::default() };
    let mut u = unit("a", Hex::new(0, 0));
    u.pos = Position::Table { at: Point::new(10.0, 10.0), facing: 90.0 };
    let i = w.add_unit(u).unwrap();
    assert_eq!(w.leg(i, Point::new(20.0, 10.0), 450.0, false), Ok((Point::new(10.0, 10.0), 90.0)));
    assert_eq!(w.units[i].pos, Position::Table { at: Point::new(20.0, 10.0), facing: 90.0 });
    let off = w.check_legs(i, &[(Point::new(30.0, 10.0), 0.0), (Point::new(130.0, 10.0), 0.0)]);
    assert!(matches!(off, Err(WorldError::BadMove { ref why, .. }) if why.contains("off the 100 x 60 cm table")));
    assert!(w.leg(i, Point::new(f64::NAN, 1.0), 0.0, false).is_err());
    let mut off_table = unit("h", Hex::new(1, 1));
    off_table.pos = Position::Off;
    let h = w.add_unit(off_table).unwrap();
    assert!(w.leg(h, Point::new(1.0, 1.0), 0.0, false).is_err(), "a unit off the table has no legs");
}

#[test]
fn reset_from_puts_sides_and_pools_back() {
    let side = |name: &str, pools: &[(&str, i64)]| Side {
        name: name.into(),
        baseline: Some(Edge::Bottom),
        pools: pools.iter().map(|(k, v)| (Rc::from(*k), *v)).collect(),
    };
    let template = World {
        sides: vec![side("allies", &[("hq", 6), ("medals", 0)]), side("central", &[("hq", 4)])],
        ..busy_world()
    };
    let mut w = World::default();
    w.reset_from(&template);
    assert!(w.same_as(&template));
    // Pool values, a new pool, a baseline: all put back, names shared.
    w.add_pool("allies", "hq", -4, "test").unwrap();
    w.set_pool("central", "reserve", 2).unwrap();
    w.sides[1].baseline = None;
    assert!(!w.same_as(&template));
    w.reset_from(&template);
    assert!(w.same_as(&template));
    for (a, b) in w.sides.iter().zip(&template.sides) {
        assert!(Rc::ptr_eq(&a.name, &b.name));
        assert!(a.pools.iter().zip(&b.pools).all(|((x, _), (y, _))| Rc::ptr_eq(x, y)));
    }
    // A world with fewer sides, or other ones, becomes the template's too.
    let mut other = World { sides: vec![side("reds", &[("gold", 1), ("hq", 2), ("x", 3)])], ..World::default() };
    other.reset_from(&template);
    assert!(other.same_as(&template));
}

/// A four-base unit on a 100 x 60 cm table.
fn table_world() -> (World, usize) {
    let mut w = World { map: Map::Table { width: 100.0, height: 60.0 }, ..World::default() };
    let mut u = unit("a", Hex::new(0, 0));
    u.pos = Position::Table { at: Point::new(50.0, 30.0), facing: 270.0 };
    let i = w.add_unit(u).unwrap();
    (w, i)
}

/// [`table_world`] with a board that lays infantry out as 4 × 1.5 cm bases
/// in a line.
fn laid_out_table_world() -> (World, usize) {
    let (mut w, i) = table_world();
    let mut layout = crate::tabletop::Layout::default();
    layout.bases.insert(
        "infantry".into(),
        crate::tabletop::BaseSpec { width: 4.0, depth: 1.5, formations: vec![("line".into(), 0)] },
    );
    w.board = Rc::new(Board { tabletop: layout, ..Board::default() });
    (w, i)
}

#[test]
fn tabletop_losses_remove_named_bases_and_the_rest_stay() {
    let (mut w, i) = table_world();
    assert!(w.units[i].bases.is_empty(), "a whole unit carries no list");
    assert_eq!(w.remove_bases(i, &[2], "fire"), Ok(1));
    assert_eq!(w.units[i].strength, 3);
    assert_eq!(w.units[i].bases, [1, 0, 3, 4]);
    assert_eq!(w.units[i].base_ids().collect::<Vec<_>>(), [(0, 1), (2, 3), (3, 4)]);
    // A base it no longer has, or one named twice, changes nothing.
    assert!(w.remove_bases(i, &[2], "again").is_err());
    assert!(w.remove_bases(i, &[3, 3], "twice").is_err());
    assert_eq!(w.units[i].strength, 3);
    // An unnamed loss takes the highest-numbered base.
    assert_eq!(w.hit(i, 1, "fire"), 1);
    assert_eq!(w.units[i].bases, [1, 0, 3, 0]);
    // Refilled: the lowest free ids, into the empty places first.
    w.set_strength(i, 4, "reinforced").unwrap();
    assert!(w.units[i].bases.is_empty(), "1, 2, 3, 4 in order is the default again");
    w.remove_bases(i, &[1, 3], "fire").unwrap();
    w.close_up(i);
    assert_eq!(w.units[i].bases, [2, 4]);
    assert_eq!(w.remove_bases(i, &[2, 4], "fire"), Ok(2));
    assert!(!w.units[i].alive());
    assert!(w.units[i].bases.is_empty());
    // A hex map has no base ids.
    let mut hexes = World::default();
    let h = hexes.add_unit(unit("h", Hex::new(1, 1))).unwrap();
    assert!(hexes.remove_bases(h, &[1], "x").is_err());
    assert_eq!(hexes.hit(h, 1, "x"), 1);
    assert!(hexes.units[h].bases.is_empty());
}

#[test]
fn a_tabletop_unit_that_lost_bases_keeps_the_others_in_place() {
    let (mut w, i) = laid_out_table_world();
    let (before, _) = w.board.tabletop.unit_bases(&w.units[i]).unwrap();
    w.remove_bases(i, &[1], "fire").unwrap();
    let (after, footprint) = w.board.tabletop.unit_bases(&w.units[i]).unwrap();
    assert_eq!(after, before[1..]);
    assert!((footprint.width - 12.0).abs() < 1e-9);
    assert!(footprint.centre.distance(before[2].centre) < 1e-9, "around the three left");
    // A trace remembers where they stood; the loss changes nothing in it.
    assert_eq!(w.trace(i, "fired_upon", None), Ok(3));
    assert_eq!(w.trace(i, "lost", Some(&[3])), Ok(1));
    assert!(w.trace(i, "lost", Some(&[1])).is_err(), "base 1 is gone");
    w.hit(i, 3, "fire");
    assert_eq!(w.traces.len(), 2);
    assert_eq!(
        w.traces[0].bases.iter().map(|(id, b)| (*id, b.centre)).collect::<Vec<_>>(),
        [(2, before[1].centre), (3, before[2].centre), (4, before[3].centre)]
    );
    w.clear_traces(Some("lost"));
    assert_eq!(w.traces.len(), 1);
    w.clear_traces(None);
    assert!(w.traces.is_empty());
}

#[test]
fn a_tabletop_unit_has_at_most_max_bases() {
    let (mut w, _) = table_world();
    let mut big = unit("big", Hex::new(0, 0));
    big.max_strength = crate::tabletop::MAX_BASES + 1;
    assert!(w.add_unit(big).is_err());
}

/// `World::unit_shape` keeps a unit's layout only while the unit stands as
/// it was laid out: a move, a turn, a lost base or a reset to a template
/// gives the layout of the unit as it is now.
#[test]
fn unit_shapes_follow_the_unit_and_the_resets() {
    let (mut w, i) = laid_out_table_world();
    let template = w.clone();
    let fresh = |w: &World| {
        let (bases, footprint) = w.board.tabletop.unit_bases(&w.units[i]).unwrap();
        crate::tabletop::UnitShape::new(bases, w.units[i].base_ids().map(|(_, id)| id).collect(), footprint)
    };
    let first = w.unit_shape(i).unwrap();
    assert!(Rc::ptr_eq(&first, &w.unit_shape(i).unwrap()), "kept while nothing changes");
    assert_eq!(*first, fresh(&w));
    let crate::unit::Position::Table { at, .. } = w.units[i].pos else { panic!("on the table") };
    w.units[i].pos = crate::unit::Position::Table { at: Point::new(at.x + 5.0, at.y), facing: 90.0 };
    assert_eq!(*w.unit_shape(i).unwrap(), fresh(&w), "moved and turned");
    assert_ne!(*w.unit_shape(i).unwrap(), *first);
    w.remove_bases(i, &[2], "fire").unwrap();
    assert_eq!(*w.unit_shape(i).unwrap(), fresh(&w), "a base lost");
    assert_eq!(w.unit_shape(i).unwrap().ids, [1, 3, 4]);
    w.reset_from(&template);
    assert_eq!(*w.unit_shape(i).unwrap(), *first, "reset");
    // The layout the unit had is kept too: the same `Rc` again (answers
    // kept for that shape hold after a trial), until newer layouts push it out.
    assert!(Rc::ptr_eq(&first, &w.unit_shape(i).unwrap()), "the same shape after the reset");
    for step in 1..=4 {
        w.units[i].pos = crate::unit::Position::Table { at: Point::new(at.x + step as f64, at.y), facing: 0.0 };
        assert_eq!(*w.unit_shape(i).unwrap(), fresh(&w), "moved {step}");
    }
    w.reset_from(&template);
    let again = w.unit_shape(i).unwrap();
    assert_eq!(*again, *first, "reset after many moves");
    assert!(!Rc::ptr_eq(&first, &again), "four newer layouts pushed the first out");
    assert!(w.same_as(&template), "the cache is no part of the state");
}
