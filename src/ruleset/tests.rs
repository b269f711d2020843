//! Tests of ruleset manifests.

use super::*;

const SRC: &str = "name: demo\ndice:\n  battle: [infantry, infantry, flag]\n  d8: 8\nparams:\n  fire:\n    crater_at: { default: 3, min: 2, max: 6, doc: dice on one number that make a crater }\n    mode: { default: a, choices: [a, b], doc: which mode }\nvariants:\n  hard:\n    doc: craters need four\n    set: { fire.crater_at: 4 }\n";

#[test]
fn params_are_typed_by_default_and_checked() {
    let mut rs = Ruleset::parse(Path::new("demo.yaml"), SRC).unwrap();
    assert_eq!(rs.value("fire.crater_at"), Some(&Value::from(3)));
    rs.set_param("fire.crater_at=5").unwrap();
    assert_eq!(rs.value("fire.crater_at"), Some(&Value::from(5)));
    assert!(rs.set_param("fire.crater_at=9").is_err());
    assert!(rs.set_param("fire.crater_at=x").is_err());
    assert!(rs.set_param("fire.mode=c").is_err());
    let e = rs.set_param("fire.nope=1").unwrap_err().to_string();
    assert!(e.contains("fire.crater_at"), "{e}");
    rs.apply_variant("hard").unwrap();
    assert_eq!(rs.value("fire.crater_at"), Some(&Value::from(4)));
    assert_eq!(rs.dice.len(), 2);
}

#[test]
fn bad_variant_is_located() {
    let bad = SRC.replace("fire.crater_at: 4", "fire.crater_at: 40");
    let e = Ruleset::parse(Path::new("demo.yaml"), &bad).unwrap_err();
    let RulesetError::Located(l) = e else { panic!("not located: {e}") };
    assert_eq!((l.line, l.column), (12, 28));
    assert!(l.message.contains("above the maximum"), "{}", l.message);
}

#[test]
fn syntax_error_is_located() {
    let e = Ruleset::parse(Path::new("demo.yaml"), "name: [demo\n").unwrap_err();
    assert!(matches!(e, RulesetError::Located(_)), "{e}");
}
