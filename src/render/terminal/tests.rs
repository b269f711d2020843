//! Tests of the terminal map.

use std::rc::Rc;

use super::*;
use crate::battlefield::{Section, Side};
use crate::unit::Unit;

fn world() -> World {
    let mut w = World::new(Map::Hex { cols: 4, rows: 3, offset: OffsetKind::OddR });
    w.sides = vec![
        Side { name: "allies".into(), baseline: None, pools: vec![] },
        Side { name: "central".into(), baseline: None, pools: vec![] },
    ];
    w.set_terrain(Hex::new(1, 0), Some("woods"));
    w.add_token(Hex::new(2, 1), "crater");
    w.add_unit(Unit {
        id: "a1".into(),
        side: "allies".into(),
        kind: "infantry".into(),
        strength: 4,
        max_strength: 4,
        leader: None,
        pos: Position::Hex(Hex::new(0, 0)),
        props: vec![],
        bases: Vec::new(),
    })
    .unwrap();
    w.add_unit(Unit {
        id: "c1".into(),
        side: "central".into(),
        kind: "machine_gun".into(),
        strength: 3,
        max_strength: 3,
        leader: Some("Haig".into()),
        pos: Position::Hex(Hex::new(2, 1)),
        props: vec![],
        bases: Vec::new(),
    })
    .unwrap();
    w.marks.push((Hex::new(1, 2), Rc::from("3")));
    w
}

#[test]
fn plain_map_shows_units_terrain_tokens_marks_and_labels() {
    let text = render(&world(), &MapOptions { color: false, width: 100, ..MapOptions::default() });
    assert!(!text.contains('\x1b'), "no colour codes in plain text:\n{text}");
    let lines: Vec<&str> = text.lines().collect();
    // Column labels over row 0, row labels on the left.
    assert!(lines[0].contains('0') && lines[0].contains('3'), "{text}");
    assert!(lines[2].starts_with("0  |Ain4 |"), "{text}");
    assert!(text.contains("Ain4"), "{text}");
    assert!(text.contains("Cmg3*"), "{text}");
    assert!(text.contains("wo"), "{text}");
    assert!(text.contains("  C|") || text.contains("  C |") || text.contains("C|"), "crater token:\n{text}");
    assert!(text.lines().nth(9).is_some_and(|l| l.contains("|  3  |")), "the mark inside its hex:\n{text}");
    assert!(!text.contains("/3\\"), "no mark on a shared top point:\n{text}");
    assert!(text.contains("1,0"), "empty hexes show coordinates:\n{text}");
    assert!(text.contains("mg machine_gun"), "{text}");
    assert!(text.contains("C crater"), "{text}");
}

#[test]
fn a_mark_keeps_to_its_hex_beside_terrain_and_tokens() {
    let mut w = world();
    w.add_token(Hex::new(1, 0), "wire");
    w.marks.push((Hex::new(1, 0), Rc::from("X")));
    let text = render(&w, &MapOptions { color: false, width: 100, ..MapOptions::default() });
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[3].contains("|woX W|"), "terrain, mark, token in the lower line:\n{text}");
    assert!(lines[1].chars().all(|c| " /\\".contains(c)), "the top edges carry no marks:\n{text}");
    let narrow = render(&w, &MapOptions { color: false, width: 20, ..MapOptions::default() });
    assert!(narrow.contains("|wXW|"), "narrow hexes too:\n{narrow}");
}

#[test]
fn side_pools_are_listed_under_the_map() {
    let mut w = world();
    w.sides[0].pools = vec![("hq".into(), 6), ("medals".into(), 2)];
    w.sides[1].pools = vec![("reserve_artillery".into(), 3)];
    let text = render(&w, &MapOptions { color: false, width: 100, ..MapOptions::default() });
    assert!(text.contains("pools of allies: hq 6, medals 2"), "{text}");
    assert!(text.contains("pools of central: reserve_artillery 3"), "{text}");
    let none = render(&world(), &MapOptions { color: false, width: 100, ..MapOptions::default() });
    assert!(!none.contains("pools"), "{none}");
}

#[test]
fn edges_are_shared_between_rows() {
    let text = render(&world(), &MapOptions { color: false, width: 100, ..MapOptions::default() });
    let lines: Vec<&str> = text.lines().collect();
    // The separator between rows 0 and 1 is a single zigzag.
    assert_eq!(lines[4].trim(), "\\   / \\   / \\   / \\   / \\", "{text}");
    // Every interior line has bars six columns apart.
    let bars: Vec<usize> = lines[2].match_indices('|').map(|(i, _)| i).collect();
    assert!(bars.windows(2).all(|w| w[1] - w[0] == 6), "{bars:?}\n{text}");
}

#[test]
fn narrow_terminals_get_narrow_hexes() {
    let wide = render(&world(), &MapOptions { color: false, width: 100, ..MapOptions::default() });
    let narrow = render(&world(), &MapOptions { color: false, width: 30, ..MapOptions::default() });
    let w = |t: &str| t.lines().take(12).map(str::len).max().unwrap_or(0);
    assert!(w(&narrow) < w(&wide), "{narrow}");
    assert!(narrow.contains("Ai4"), "{narrow}");
}

#[test]
fn section_lines_are_drawn() {
    let mut w = world();
    w.sections = Rc::new(vec![
        Section { name: "left".into(), first_col: 0, last_col: 1 },
        Section { name: "right".into(), first_col: 1, last_col: 3 },
    ]);
    let text = render(&w, &MapOptions { color: false, width: 100, ..MapOptions::default() });
    assert!(text.contains("left") && text.contains("right"), "{text}");
    assert!(text.lines().nth(3).is_some_and(|l| l.contains(':')), "{text}");
}

#[test]
fn colour_map_uses_ansi_and_keeps_the_text() {
    let text = render(&world(), &MapOptions { color: true, width: 100, ..MapOptions::default() });
    assert!(text.contains("\x1b["), "{text}");
    let stripped: String = {
        let mut s = String::new();
        let mut esc = false;
        for ch in text.chars() {
            if esc {
                esc = ch != 'm';
            } else if ch == '\x1b' {
                esc = true;
            } else {
                s.push(ch);
            }
        }
        s
    };
    assert!(stripped.contains("Ain4"), "{stripped}");
}

#[test]
fn tabletop_is_plotted() {
    let mut w = World::new(Map::Table { width: 120.0, height: 60.0 });
    w.sides = vec![Side { name: "french".into(), baseline: None, pools: vec![("morale".into(), 5)] }];
    w.add_unit(Unit {
        id: "b1".into(),
        side: "french".into(),
        kind: "line".into(),
        strength: 3,
        max_strength: 3,
        leader: None,
        pos: Position::Table { at: crate::tabletop::Point::new(30.0, 40.0), facing: 270.0 },
        props: vec![],
        bases: Vec::new(),
    })
    .unwrap();
    let text = render(&w, &MapOptions::default());
    assert!(text.contains("tabletop 120 x 60 cm"), "{text}");
    assert!(text.contains("F b1 [french line] 3/3 at (30, 40) cm facing 270"), "{text}");
    assert!(text.contains("pools of french: morale 5"), "{text}");
}

/// Issue 30: a terrain kind and a unit type never share an abbreviation
/// (tricorne's hill and highland were both "hi").
#[test]
fn terrain_and_unit_types_have_distinct_abbreviations() {
    let mut w = world();
    w.set_terrain(Hex::new(0, 0), Some("hill"));
    w.add_unit(Unit {
        id: "a2".into(),
        side: "allies".into(),
        kind: "highland".into(),
        strength: 4,
        max_strength: 4,
        leader: None,
        pos: Position::Hex(Hex::new(3, 0)),
        props: vec![],
        bases: Vec::new(),
    })
    .unwrap();
    let text = render(&w, &MapOptions { color: false, width: 100, ..MapOptions::default() });
    // The legend reads "ABBR NAME": the word before the name.
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == ',' || c == '|').collect();
    let legend = |name: &str| words.windows(2).find(|w| w[1] == name).map(|w| w[0].to_string());
    let (hill, highland) = (legend("hill"), legend("highland"));
    assert!(hill.is_some() && highland.is_some(), "both in the legend:\n{text}");
    assert_ne!(hill, highland, "{text}");
}
