//! Tests of the commands' helpers.

use super::*;

#[test]
fn help_columns_wrap() {
    let text =
        columns(&[("short".into(), "one two three four five six"), ("a much longer first column".into(), "doc")], 40);
    assert_eq!(text, "  short  one two three four five six\n  a much longer first column\n         doc\n");
    assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
}

#[test]
fn args_split_with_quotes() {
    assert_eq!(split_args(" a  'b c' \"\" d").unwrap(), ["a", "b c", "", "d"]);
    assert!(split_args("'open").is_err());
}

#[test]
fn declared_locals_are_found() {
    let d = declared_names("local a, b = 1 for i, v in pairs(t) do end function f(x, y) end local function g() end");
    for n in ["a", "b", "i", "v", "x", "y", "g"] {
        assert!(d.contains(&n.to_string()), "{n} in {d:?}");
    }
}

#[test]
fn hexes_from_text() {
    let w = World::default();
    assert_eq!(parse_hex(&w, "3,4"), Ok(Hex::new(3, 4)));
    assert_eq!(parse_hex(&w, "(3,-4)"), Ok(Hex::new(3, -4)));
    assert_eq!(parse_hex(&w, "hex(1, 2)"), Ok(Hex::new(1, 2)));
    assert!(parse_hex(&w, "nowhere").is_err());
}
