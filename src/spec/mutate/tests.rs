//! Tests of the mutant generator.

use super::*;

fn changes(src: &str) -> Vec<String> {
    compiling(lua_mutants(src)).into_iter().map(|m| format!("{}:{} {}", m.line, m.col, m.change)).collect()
}

#[test]
fn operators_numbers_and_keywords_each_give_one_mutant() {
    let src = "local function f(a, b)\n  if a <= b and not (a == 2) then return -1 end\n  return a + b * 3 > 0 or false\nend\nreturn f\n";
    assert_eq!(
        changes(src),
        vec![
            "2:8 `<=` -> `<`",
            "2:13 `and` -> `or`",
            "2:17 `not` removed",
            "2:24 `==` -> `~=`",
            "2:27 `2` -> `3`",
            "2:27 `2` -> `1`",
            "2:35 early `return` removed",
            "2:43 `1` -> `2`",
            "2:43 `1` -> `0`",
            "3:12 `+` -> `-`",
            "3:16 `*` -> `/`",
            "3:18 `3` -> `4`",
            "3:18 `3` -> `2`",
            "3:20 `>` -> `>=`",
            "3:22 `0` -> `1`",
            "3:24 `or` -> `and`",
            "3:27 `false` -> `true`",
        ]
    );
}

#[test]
fn a_mutant_changes_only_its_token() {
    let m = lua_mutants("x = a ~= b -- not this\n");
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].source, "x = a == b -- not this\n");
}

#[test]
fn notes_for_the_log_are_not_mutated() {
    assert_eq!(
        changes("world:note(\"x \" .. (n == 1 and \"a\" or \"b\"))\nreturn n > 1\n"),
        vec!["2:10 `>` -> `>=`", "2:12 `1` -> `2`", "2:12 `1` -> `0`"]
    );
}

#[test]
fn error_levels_are_not_mutated() {
    assert_eq!(changes("error(\"bad \" .. f(1), 2)\n"), vec!["1:19 `1` -> `2`", "1:19 `1` -> `0`"]);
}

#[test]
fn unary_minus_and_comments_are_left_alone() {
    assert!(changes("local x = -y --[[ a < b ]]\nreturn x\n").is_empty());
}

#[test]
fn params_step_within_their_range() {
    let yaml = "name: t\ntitle: T\nmodules: []\nparams:\n  m:\n    n: { default: 1, min: 1, max: 3, doc: d }\n    on: { default: true, doc: d }\n";
    let rs = Ruleset::parse(Path::new("t/ruleset.yaml"), yaml).expect("parses");
    let got: Vec<String> =
        param_mutants(&rs, yaml, "ruleset.yaml").into_iter().map(|m| format!("{} {}", m.line, m.change)).collect();
    assert_eq!(got, vec!["6 param m.n: 1 -> 2", "7 param m.on: true -> false"]);
}
