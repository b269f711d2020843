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

/// The number in attribute `name` of the first element after `from` in `svg`.
fn attr(svg: &str, from: usize, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let at = svg[from..].find(&key).map(|i| from + i + key.len()).unwrap_or_else(|| panic!("no {name} after {from}"));
    let end = svg[at..].find('"').unwrap() + at;
    svg[at..end].parse().unwrap()
}

/// Whether a circle lies inside the pointy-top hex with centre (hx, hy).
fn circle_in_hex(x: f64, y: f64, r: f64, hx: f64, hy: f64) -> bool {
    let apothem = SIZE * 3f64.sqrt() / 2.0;
    (0..6).all(|i| {
        let a = (60.0 * f64::from(i)).to_radians();
        (x - hx) * a.cos() + (y - hy) * a.sin() + r <= apothem + 1e-9
    })
}

#[test]
fn marks_sit_inside_their_hex_and_labels_clear_the_counter() {
    let mut w = world();
    // A unit, terrain, three tokens and a mark on one hex.
    w.set_terrain(Hex::new(0, 3), Some("trenches_and_more"));
    for t in ["wire", "crater", "smoke", "mud"] {
        w.add_token(Hex::new(0, 3), t);
    }
    w.marks.push((Hex::new(0, 3), Rc::from("X")));
    let svg = render(&w, &SvgOptions::default());
    let (hx, hy) = centre_of(&svg, "0,3");
    for mark in [r#"data-mark="X""#, r#"data-mark="6""#] {
        let m = svg.find(mark).unwrap();
        let (x, y, r) = (attr(&svg, m, "cx"), attr(&svg, m, "cy"), attr(&svg, m, "r"));
        let owner = if mark.contains('X') { (hx, hy) } else { centre_of(&svg, "3,0") };
        assert!(circle_in_hex(x, y, r, owner.0, owner.1), "{mark} at ({x},{y}) r {r} leaves its hex {owner:?}");
    }
    // The counter, the terrain label and the badges do not overlap.
    let u = svg.find("data-unit=").unwrap();
    let (ux, uy, uw, uh) = (attr(&svg, u, "x"), attr(&svg, u, "y"), attr(&svg, u, "width"), attr(&svg, u, "height"));
    let t = svg.find(r#"data-terrain-label="trenches_and_more""#).unwrap();
    let label_top = attr(&svg, svg[..t].rfind("<text").unwrap(), "y") - 7.0;
    assert!(label_top > uy + uh, "the terrain label ({label_top}) is under the counter ({})", uy + uh);
    assert!(svg.contains(">trench…<"), "a long terrain name is cut to fit its hex");
    let m = svg.find(r#"data-mark="X""#).unwrap();
    assert!(attr(&svg, m, "cy") + attr(&svg, m, "r") <= uy + 1.5, "the mark sits over the counter");
    // This hex's badges (another hex has a token too).
    let badges: Vec<usize> = svg
        .match_indices("<g data-token=")
        .map(|(i, _)| i)
        .filter(|&i| (attr(&svg, i, "x") - hx).abs() < SIZE && (attr(&svg, i, "y") - hy).abs() < SIZE)
        .collect();
    assert_eq!(badges.len(), 2, "{svg}");
    for b in &badges {
        let bx = attr(&svg, *b, "x");
        assert!(bx >= ux + uw, "badge at {bx} right of the counter ending at {}", ux + uw);
        let by = attr(&svg, *b, "y");
        for (x, y) in [(bx, by), (bx + BADGE_W, by), (bx, by + BADGE_W), (bx + BADGE_W, by + BADGE_W)] {
            assert!(circle_in_hex(x, y, 0.0, hx, hy), "badge corner ({x},{y}) outside its hex ({hx},{hy})");
        }
    }
    assert!(svg.contains(">+2<"), "four tokens: two badges and +2");
}

/// The centre of the hex with `data-hex="q,r"`.
fn centre_of(svg: &str, hex: &str) -> (f64, f64) {
    let at = svg.find(&format!(r#"data-hex="{hex}""#)).unwrap();
    let start = svg[..at].rfind("points=\"").unwrap() + 8;
    let points = &svg[start..start + svg[start..].find('"').unwrap()];
    let xy: Vec<(f64, f64)> = points
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    (xy.iter().map(|p| p.0).sum::<f64>() / 6.0, xy.iter().map(|p| p.1).sum::<f64>() / 6.0)
}

#[test]
fn the_legend_shows_token_badges_marks_and_pools() {
    let mut w = world();
    w.sides[0].pools = vec![("hq".into(), 6), ("medals".into(), 1)];
    w.sides[1].pools = vec![("banners".into(), 2)];
    let svg = render(&w, &SvgOptions::default());
    let legend = &svg[svg.find(r#"<g id="legend""#).unwrap()..];
    assert!(legend.contains(">Tokens:<") && legend.contains(">W<") && legend.contains(">wire<"), "{legend}");
    assert!(legend.contains(">Marks:<") && legend.contains(r#"data-mark="6""#) && legend.contains(">at (3,0)<"));
    assert!(legend.contains("Pools of allies: hq 6, medals 1"), "{legend}");
    assert!(legend.contains("Pools of central: banners 2"), "{legend}");
}

#[test]
fn tabletop_svg() {
    let mut w = World::new(Map::Table { width: 100.0, height: 50.0 });
    w.sides = vec![Side { name: "x".into(), baseline: None, pools: vec![("medals".into(), 2)] }];
    let svg = render(&w, &SvgOptions::default());
    assert!(svg.contains("<rect") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("Pools of x: medals 2"), "{svg}");
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
