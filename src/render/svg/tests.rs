//! Tests of the svg map.

use std::rc::Rc;

use super::*;
use crate::battlefield::{Section, Side};
use crate::unit::Position;
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
        bases: Vec::new(),
    })
    .unwrap();
    w.marks.push((Hex::new(3, 0), Rc::from("6")));
    w
}

#[test]
fn svg_has_every_layer_and_escapes_text() {
    let los = LosLine { from: Hex::new(0, 3), to: Hex::new(3, 0), clear: false, blocker: Some(Hex::new(1, 1)) };
    let svg = render(&world(), &SvgOptions { title: Some("A & B".into()), los: Some(los), ..SvgOptions::default() });
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"));
    // 20 hexes, and the blocking hex's outline.
    assert_eq!(svg.matches("<polygon").count(), 21);
    assert!(svg.contains(r#"data-terrain="woods""#));
    assert!(svg.contains(r#"data-unit="a&lt;1&gt;""#), "ids are escaped");
    assert!(svg.contains(r#"data-token="wire""#));
    assert!(svg.contains(r#"data-mark="6""#));
    assert!(svg.contains(r#"data-section="left""#) && svg.contains(r#"data-section="right""#));
    assert!(svg.contains(r#"data-clear="false""#) && svg.contains(r#"data-blocker="1,1""#));
    assert!(svg.contains("A &amp; B"));
    assert!(svg.contains("blocked at (1,1)"));
    assert!(!svg.contains("NaN"));
    // The title is drawn after the white page, so that it shows.
    assert!(svg.find(r#"fill="white""#).unwrap() < svg.find("A &amp; B").unwrap());
    // The line of sight goes under the counters, never over their text.
    assert!(svg.find(r#"<g id="los""#).unwrap() < svg.find(r#"<g id="units""#).unwrap());
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
    assert!(legend.contains(">Marks:<") && legend.contains(">6<") && legend.contains(">at (3,0)<"), "{legend}");
    assert!(legend.contains(">Pools of allies:<") && legend.contains(">hq 6<") && legend.contains(">medals 1<"));
    assert!(legend.contains(">Pools of central:<") && legend.contains(">banners 2<"), "{legend}");
    assert!(
        legend.contains(">Sides:<") && legend.contains(">allies<") && legend.contains(">central<"),
        "a key for sides"
    );
}

#[test]
fn tabletop_svg() {
    let mut w = World::new(Map::Table { width: 100.0, height: 50.0 });
    w.sides = vec![Side { name: "x".into(), baseline: None, pools: vec![("medals".into(), 2)] }];
    let svg = render(&w, &SvgOptions::default());
    assert!(svg.contains("<rect") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(">Pools of x:<") && svg.contains(">medals 2<"), "{svg}");
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
        bases: Vec::new(),
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

/// A unit on a hex.
fn unit(id: &str, side: &str, kind: &str, at: Position) -> Unit {
    Unit {
        id: id.into(),
        side: side.into(),
        kind: kind.into(),
        strength: 1,
        max_strength: 1,
        leader: None,
        pos: at,
        props: vec![],
        bases: Vec::new(),
    }
}

#[test]
fn stacks_show_their_count_and_carriers_their_cargo() {
    let mut w = world();
    w.stacking = true;
    let at = Position::Hex(Hex::new(2, 1));
    for (id, kind) in [("s1", "infantry"), ("s2", "artillery"), ("s3", "infantry")] {
        w.add_unit(unit(id, "central", kind, at)).unwrap();
    }
    w.add_unit(unit("frig", "allies", "frigate", Position::Hex(Hex::new(3, 2)))).unwrap();
    for id in ["p1", "p2"] {
        let mut u = unit(id, "allies", "infantry", Position::Off);
        u.props.push(("aboard".into(), crate::unit::Prop::Str("frig".into())));
        w.add_unit(u).unwrap();
    }
    let draw = Draw { carrier: Some("aboard".into()), ..Draw::default() };
    let svg = render(&w, &SvgOptions { draw: draw.clone(), ..SvgOptions::default() });
    // One counter for the stack, naming all three, the two under it drawn as edges, and its count.
    assert!(svg.contains(r#"data-unit="s1" data-at="2,1" data-stack="s1 s2 s3""#), "{svg}");
    assert!(!svg.contains(r#"data-unit="s2""#));
    assert!(svg.contains(r#"data-stack-count="3""#));
    let g = svg.find(r#"data-unit="s1""#).unwrap();
    let counter = &svg[g..g + svg[g..].find("</g>").unwrap()];
    assert_eq!(counter.matches("<rect").count(), 3, "the top counter and two edges under it: {counter}");
    // The frigate carries two: a +2 badge, and the legend names them under it.
    assert!(svg.contains(r#"data-cargo-count="2""#) && svg.contains(">+2<"));
    assert!(svg.contains("<title>aboard frig: p1, p2</title>"), "{svg}");
    assert!(svg.contains(">Aboard frig at (3,2):<") && svg.contains(">p1 (allies infantry 1)<"), "{svg}");
    assert!(!svg.contains("off the board"), "carried units are not lost: {svg}");
    // Without the ruleset's `carrier`, they are simply off the board.
    let plain = render(&w, &SvgOptions::default());
    assert!(plain.contains(">p1 (off the board)<") && !plain.contains("data-cargo-count"));
    // The terminal map says the same.
    let text = crate::render::terminal::render(&w, &crate::render::terminal::MapOptions { draw, ..Default::default() });
    assert!(text.contains("p1 (aboard frig at (3,2))"), "{text}");
}

#[test]
fn leaders_are_round_tokens_and_marks_say_what_they_are() {
    let mut w = world();
    w.add_unit(unit("Perth", "central", "leader", Position::Hex(Hex::new(4, 1)))).unwrap();
    w.marks.push((Hex::new(1, 2), Rc::from("W a_art ready")));
    w.marks.push((Hex::new(2, 2), Rc::from("o a_art")));
    w.marks.push((Hex::new(2, 3), Rc::from("o a_art")));
    let draw = Draw { leaders: vec!["leader".into()], ..Draw::default() };
    let svg = render(&w, &SvgOptions { draw, ..SvgOptions::default() });
    let g = svg.find(r#"data-unit="Perth""#).unwrap();
    let token = &svg[g..g + svg[g..].find("</g>").unwrap()];
    assert!(token.contains("<circle") && !token.contains("<rect") && token.contains("★"), "{token}");
    // On the map, a mark's short form; in the legend, the whole label and where.
    assert!(svg.contains(r#"data-mark="W a_art ready""#) && svg.contains(">W<"));
    let legend = &svg[svg.find(r#"<g id="legend""#).unwrap()..];
    assert!(legend.contains(">W a_art ready at (1,2)<"), "{legend}");
    assert!(legend.contains(">o a_art at (2,2) (2,3)<"), "{legend}");
    assert!(legend.contains("leader (a leader alone)"), "{legend}");
}

/// The `width` of the root `<svg>`.
fn svg_width(svg: &str) -> f64 {
    attr(svg, 0, "width")
}

#[test]
fn the_legend_wraps_to_the_picture() {
    let mut w = World::new(Map::Hex { cols: 3, rows: 2, offset: OffsetKind::OddR });
    w.sides = vec![Side { name: "a".into(), baseline: None, pools: vec![] }];
    let kinds = ["battle_cavalry", "grenadier", "highland", "light_artillery", "light_cavalry", "lowland", "militia"];
    for (i, k) in kinds.iter().enumerate() {
        let q = i as i32 % 3;
        let r = i as i32 / 3 % 2;
        let mut u = unit(&format!("u{i}"), "a", k, Position::Hex(Hex::new(q, r)));
        if i >= 6 {
            u.pos = Position::Off;
        }
        w.add_unit(u).unwrap();
    }
    let svg = render(&w, &SvgOptions::default());
    let width = svg_width(&svg);
    // Every legend text ends inside the picture.
    let legend = &svg[svg.find(r#"<g id="legend""#).unwrap()..];
    let mut texts = 0;
    for (i, _) in legend.match_indices("<text ") {
        let x = attr(legend, i, "x");
        let end = legend[i..].find("</text>").unwrap() + i;
        let content = &legend[legend[i..end].find('>').unwrap() + i + 1..end];
        let bold = legend[i..end].contains("bold");
        let right = x + crate::render::place::text_width(content, legend::FONT, bold);
        assert!(right <= width, "'{content}' ends at {right}, past the picture's width {width}");
        texts += 1;
    }
    assert!(texts > 8, "{legend}");
}

#[test]
fn marks_left_by_an_earlier_action_are_faded() {
    let w = world();
    let mut before = w.clone();
    before.marks.clear();
    let fresh = render(&w, &SvgOptions { earlier: Some(EarlierMarks::of(&before)), ..SvgOptions::default() });
    assert!(fresh.contains(r#"class="mark fresh""#) && !fresh.contains("faded"));
    let old = render(&w, &SvgOptions { earlier: Some(EarlierMarks::of(&w)), ..SvgOptions::default() });
    assert!(old.contains(r#"class="mark faded" opacity="0.35""#), "{old}");
}

/// A tabletop of `width` x `height` with two units of type `line` and an area.
fn table_world(width: f64, height: f64, at: [(f64, f64); 2]) -> World {
    use crate::tabletop::{Area, BaseSpec, Point};
    let mut w = World::new(Map::Table { width, height });
    w.sides = vec![
        Side { name: "x".into(), baseline: None, pools: vec![] },
        Side { name: "y".into(), baseline: None, pools: vec![] },
    ];
    let mut board = (*w.board).clone();
    board
        .tabletop
        .bases
        .insert("line".into(), BaseSpec { width: 4.0, depth: 2.0, formations: vec![("line".into(), 0)] });
    board.tabletop.areas.push(Area {
        kind: "woods".into(),
        points: vec![
            Point::new(at[0].0 - 2.0, at[0].1 - 2.0),
            Point::new(at[0].0 + 6.0, at[0].1 - 2.0),
            Point::new(at[0].0 + 2.0, at[0].1 + 5.0),
        ],
        level: 0,
        cover: None,
        name: Some("Copse".into()),
    });
    w.board = Rc::new(board);
    for (i, (x, y)) in at.iter().enumerate() {
        let mut u = unit(&format!("u{i}"), if i == 0 { "x" } else { "y" }, "line", Position::Off);
        u.pos = Position::Table { at: Point::new(*x, *y), facing: 270.0 };
        u.strength = 4;
        w.add_unit(u).unwrap();
    }
    w
}

#[test]
fn a_small_scene_on_a_large_table_fills_the_picture() {
    let w = table_world(400.0, 300.0, [(100.0, 100.0), (115.0, 104.0)]);
    let v = table::view_of(&w, 400.0, 300.0);
    assert!(v.x1 - v.x0 < 100.0 && v.y1 - v.y0 < 100.0, "the view fits the scene: {v:?}");
    assert!(v.x0 <= 96.0 && v.x1 >= 119.0, "and holds it: {v:?}");
    let svg = render(&w, &SvgOptions { title: Some("Scene".into()), ..SvgOptions::default() });
    // The scale bar says how long it is, and that this is part of the table.
    assert!(svg.contains(">Scale:<") && svg.contains("showing x "), "{svg}");
    assert!(svg.contains(" cm<") || svg.contains(" cm "), "{svg}");
    // The title is on the page, after the white background.
    assert!(svg.find(r#"fill="white""#).unwrap() < svg.find(">Scene<").unwrap());
    // A whole table in view says nothing of showing part of it.
    let whole = table_world(60.0, 40.0, [(10.0, 10.0), (50.0, 30.0)]);
    let svg = render(&whole, &SvgOptions::default());
    assert!(!svg.contains("showing x"), "{svg}");
}

#[test]
fn tabletop_labels_keep_off_each_other_and_the_bases() {
    use crate::tabletop::{Point, TableMark};
    // Two units side by side, marks with the same anchor, a leader between them.
    let mut w = table_world(120.0, 80.0, [(50.0, 60.0), (55.0, 60.0)]);
    for (i, label) in ["u0 arc of fire", "u1 arc of fire"].iter().enumerate() {
        let x = 50.0 + 5.0 * i as f64;
        w.table_marks.push(TableMark {
            label: (*label).into(),
            points: vec![Point::new(x, 59.0), Point::new(x - 30.0, 0.0), Point::new(x + 30.0, 0.0)],
            closed: true,
        });
    }
    let mut general = unit("ney", "x", "general", Position::Off);
    general.pos = Position::Table { at: Point::new(52.5, 63.0), facing: 270.0 };
    w.add_unit(general).unwrap();
    let draw = Draw { leaders: vec!["general".into()], metres_per_cm: Some(36.0), ..Draw::default() };
    let svg = render(&w, &SvgOptions { draw, ..SvgOptions::default() });
    assert!(svg.contains(r#"data-leader-flag="1""#), "a leader is a flag, not a tiny unit: {svg}");
    assert!(svg.contains(" m<"), "the scale bar in metres: {svg}");
    // Every placed label's box, from its text, font size 10, middle-anchored.
    let mut boxes: Vec<(String, Rect)> = Vec::new();
    for (i, _) in svg.match_indices("<text ") {
        let end = svg[i..].find("</text>").unwrap() + i;
        let tag = &svg[i..end];
        if !tag.contains(r#"data-label="unit""#)
            && !tag.contains(r#"data-label="mark""#)
            && !tag.contains(r#"data-label="leader""#)
            && !tag.contains(r#"data-label="area""#)
        {
            continue;
        }
        let content = tag[tag.find('>').unwrap() + 1..].to_string();
        let r = Rect::of_text(
            &content,
            attr(&svg, i, "x"),
            attr(&svg, i, "y"),
            10.0,
            false,
            crate::render::place::Anchor::Middle,
        );
        boxes.push((content, r));
    }
    assert_eq!(boxes.len(), 2 + 2 + 1 + 1, "{boxes:?}");
    for (i, (a, ra)) in boxes.iter().enumerate() {
        for (b, rb) in &boxes[i + 1..] {
            assert!(!ra.overlaps(rb), "'{a}' {ra:?} overlaps '{b}' {rb:?}");
        }
    }
    // No label lies on a base.
    let bases: Vec<Rect> = svg
        .match_indices(r#"<polygon points=""#)
        .filter(|(i, _)| svg[*i..].find("/>").is_some_and(|e| svg[*i..*i + e].contains("fill-opacity=\"0.85\"")))
        .map(|(i, k)| {
            let p = &svg[i + k.len()..i + k.len() + svg[i + k.len()..].find('"').unwrap()];
            Rect::around(p.split_whitespace().map(|xy| {
                let (x, y) = xy.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            }))
            .unwrap()
        })
        .collect();
    assert_eq!(bases.len(), 8, "two units of four bases");
    for (t, r) in &boxes {
        for b in &bases {
            assert!(!r.overlaps(b), "'{t}' {r:?} lies on a base {b:?}");
        }
    }
}
