//! Tests of the svg map.

use std::rc::Rc;

use super::*;
use crate::battlefield::{Section, Side};
use crate::unit::Unit;

fn world() -> World {
    let mut w = World::new(Map::Hex { cols: 5, rows: 4, offset: OffsetKind::OddR });
    w.sides = vec![
        Side { name: "allies".into(), baseline: None, pools: vec![] },
        Side { name: "central".into(), baseline: None, pools: vec![] },
    ];
    w.sections = Rc::new(vec![
        Section { name: "left".into(), first_col: 0, last_col: 2 },
        Section { name: "right".into(), first_col: 2, last_col: 4 },
    ]);
    w.set_terrain(Hex::new(1, 1), Some("woods"));
    w.add_token(Hex::new(2, 2), "wire");
    w.add_unit(Unit {
        id: "a<1>".into(),
        side: "allies".into(),
        kind: "infantry".into(),
        strength: 4,
        max_strength: 4,
        leader: None,
        pos: Position::Hex(Hex::new(0, 3)),
        props: vec![],
    })
    .unwrap();
    w.marks.push((Hex::new(3, 0), Rc::from("6")));
    w
}

#[test]
fn svg_has_every_layer_and_escapes_text() {
    let los = LosLine { from: Hex::new(0, 3), to: Hex::new(3, 0), clear: false, blocker: Some(Hex::new(1, 1)) };
    let svg = render(&world(), &SvgOptions { title: Some("A & B".into()), los: Some(los) });
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<polygon").count(), 20);
    assert!(svg.contains(r#"data-terrain="woods""#));
    assert!(svg.contains(r#"data-unit="a&lt;1&gt;""#), "ids are escaped");
    assert!(svg.contains(r#"data-token="wire""#));
    assert!(svg.contains(r#"data-mark="6""#));
    assert!(svg.contains(r#"data-section="left""#) && svg.contains(r#"data-section="right""#));
    assert!(svg.contains(r#"data-clear="false""#) && svg.contains(r#"data-blocker="1,1""#));
    assert!(svg.contains("A &amp; B"));
    assert!(svg.contains("blocked at (1,1)"));
    assert!(!svg.contains("NaN"));
}

#[test]
fn tabletop_svg() {
    let mut w = World::new(Map::Table { width: 100.0, height: 50.0 });
    w.sides = vec![Side { name: "x".into(), baseline: None, pools: vec![] }];
    let svg = render(&w, &SvgOptions::default());
    assert!(svg.contains("<rect") && svg.trim_end().ends_with("</svg>"));
}

#[test]
fn tabletop_svg_draws_bases_areas_and_marks() {
    use crate::tabletop::{Area, BaseSpec, Point, TableMark};
    let mut w = World::new(Map::Table { width: 100.0, height: 50.0 });
    w.sides = vec![Side { name: "x".into(), baseline: None, pools: vec![] }];
    let mut board = (*w.board).clone();
    board
        .tabletop
        .bases
        .insert("line".into(), BaseSpec { width: 4.0, depth: 2.0, formations: vec![("line".into(), 0)] });
    board.tabletop.areas.push(Area {
        kind: "woods".into(),
        points: vec![Point::new(10.0, 10.0), Point::new(30.0, 10.0), Point::new(20.0, 30.0)],
        level: 1,
        cover: Some("heavy".into()),
        name: None,
    });
    w.board = Rc::new(board);
    w.add_unit(Unit {
        id: "b1".into(),
        side: "x".into(),
        kind: "line".into(),
        strength: 3,
        max_strength: 3,
        leader: None,
        pos: Position::Table { at: Point::new(50.0, 25.0), facing: 270.0 },
        props: vec![],
    })
    .unwrap();
    w.table_marks.push(TableMark {
        label: "arc".into(),
        points: vec![Point::new(1.0, 1.0), Point::new(5.0, 1.0), Point::new(3.0, 4.0)],
        closed: true,
    });
    let svg = render(&w, &SvgOptions::default());
    assert_eq!(svg.matches("<polygon").count(), 1 + 3 + 1, "{svg}");
    assert!(svg.contains(r#"data-area="woods""#) && svg.contains("woods L1 (heavy)"));
    assert!(svg.contains(r#"data-table-mark="arc""#));
    assert!(svg.contains(r#"data-unit="b1""#) && !svg.contains("<circle"));
    assert!(!svg.contains("NaN"));
}
