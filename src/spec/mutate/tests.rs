//! Tests of the mutant generators.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::data::{data_mutants, param_mutants};
use super::lua::{compiles, lua_mutants, Reach};
use super::{plan_of, run, Budgets, Cases, Kills, Kind, Mutant, Reached, Run, Settings, Sites, What};
use crate::lua::{HostOptions, ScenarioOverrides};
use crate::ruleset::Ruleset;
use crate::spec::{coverage, SpecFile};

fn changes(src: &str) -> Vec<String> {
    lua_mutants(src)
        .into_iter()
        .filter(|m| compiles(&m.apply(src)))
        .map(|m| format!("{}:{} {}", m.line, m.col, m.change))
        .collect()
}

#[test]
fn operators_numbers_and_keywords_each_give_their_mutants() {
    let src = "local function f(a, b)\n  if a <= b and not (a == 2) then return -1 end\n  return a + b * 3 > 0 or false\nend\nreturn f\n";
    assert_eq!(
        changes(src),
        vec![
            "2:8 `<=` -> `<`",
            "2:8 `<=` -> `>=`",
            "2:13 `and` -> `or`",
            "2:17 `not` removed",
            "2:24 `==` -> `~=`",
            "2:27 `2` -> `3`",
            "2:27 `2` -> `1`",
            "2:35 early `return` removed",
            "2:42 unary `-` removed",
            "2:43 `1` -> `2`",
            "2:43 `1` -> `0`",
            "3:12 `+` -> `-`",
            "3:16 `*` -> `/`",
            "3:18 `3` -> `4`",
            "3:18 `3` -> `2`",
            "3:20 `>` -> `>=`",
            "3:20 `>` -> `<`",
            "3:22 `0` -> `1`",
            "3:24 `or` -> `and`",
            "3:27 `false` -> `true`",
        ]
    );
}

#[test]
fn the_operators_the_first_mutator_missed() {
    let src = "local t = {}\nlocal x = 7 % 3 ^ 2\nlocal s = \"a\" .. x\nlocal n = #t.list\nlocal y = math.min(1.5, x)\nif s == \"hq\" then y = 0 end\nreturn y\n";
    assert_eq!(
        changes(src),
        vec![
            "2:11 `7` -> `8`",
            "2:11 `7` -> `6`",
            "2:13 `%` -> `*`",
            "2:15 `3` -> `4`",
            "2:15 `3` -> `2`",
            "2:17 `^` -> `*`",
            "2:19 `2` -> `3`",
            "2:19 `2` -> `1`",
            "3:15 `..` -> `.. \"~\" ..`",
            "4:11 `#t.list` -> `#t.list - 1`",
            "5:16 `math.min` -> `math.max`",
            "5:20 `1.5` -> `0`",
            "5:20 `1.5` -> `3`",
            "6:6 `==` -> `~=`",
            "6:9 `\"hq\"` -> `\"~hq\"`",
            "6:23 `0` -> `1`",
        ]
    );
    let m = lua_mutants(src).into_iter().find(|m| m.change.starts_with("`#")).unwrap();
    assert!(m.apply(src).contains("local n = (#t.list - 1)\n"));
}

#[test]
fn call_and_assignment_statements_can_be_removed() {
    let src = "local function f(u, n)\n  world:eliminate(u)\n  n = n +\n    1\n  spend(n)\n  return n\nend\nreturn f\n";
    let got = changes(src);
    assert!(got.contains(&"2:3 call removed: `world:eliminate(u)`".to_string()), "{got:?}");
    assert!(got.contains(&"3:3 assignment removed: `n = n + 1`".to_string()), "{got:?}");
    assert!(got.contains(&"5:3 call removed: `spend(n)`".to_string()), "{got:?}");
    // A removal keeps the lines below where they were.
    let m = lua_mutants(src).into_iter().find(|m| m.change.starts_with("assignment")).unwrap();
    assert_eq!(m.apply(src).lines().count(), src.lines().count());
}

#[test]
fn a_mutant_changes_only_its_token() {
    let src = "x = a ~= b -- not this\n";
    let m: Vec<_> = lua_mutants(src).into_iter().filter(|m| !m.change.contains("removed")).collect();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].apply(src), "x = a == b -- not this\n");
}

#[test]
fn notes_for_the_log_are_not_mutated() {
    assert_eq!(
        changes("world:note(\"x \" .. (n == 1 and \"a\" or \"b\"))\nreturn n > 1\n"),
        vec!["2:10 `>` -> `>=`", "2:10 `>` -> `<`", "2:12 `1` -> `2`", "2:12 `1` -> `0`"]
    );
}

#[test]
fn error_levels_are_not_mutated_and_messages_are_told_apart() {
    let src = "error(\"bad \" .. f(1), 2)\n";
    assert_eq!(
        changes(src),
        vec![
            "1:1 call removed: `error(\"bad \" .. f(1), 2)`",
            "1:14 `..` -> `.. \"~\" ..`",
            "1:19 `1` -> `2`",
            "1:19 `1` -> `0`"
        ]
    );
    let reach: Vec<Reach> = lua_mutants(src).into_iter().map(|m| m.reach).collect();
    assert_eq!(reach, vec![Reach::Code, Reach::Message, Reach::Message, Reach::Message]);
}

#[test]
fn comments_are_left_alone() {
    assert!(changes("local x = y --[[ a < b ]]\nreturn x\n").is_empty());
}

#[test]
fn params_step_within_their_range() {
    let yaml = "name: t\ntitle: T\nmodules: []\nparams:\n  m:\n    n: { default: 1, min: 1, max: 3, doc: d }\n    on: { default: true, doc: d }\n";
    let rs = Ruleset::parse(Path::new("t/ruleset.yaml"), yaml).expect("parses");
    let got: Vec<String> = param_mutants(&rs, yaml).into_iter().map(|m| format!("{} {}", m.line, m.change)).collect();
    assert_eq!(got, vec!["6 param m.n: 1 -> 2", "7 param m.on: true -> false"]);
}

#[test]
fn data_mutants_change_numbers_faces_cells_names_and_switches() {
    let yaml = "name: t\nmodules: []\ndice:\n  battle: [foot, foot, horse, flag]\n  d6: 6\nterrain:\n  woods: { ranged: 1, blocks_los: true, doc: \"trees\" }\nunit_types:\n  a: { strength: 4, class: foot }\n  b: { strength: 3, class: horse }\ncharts:\n  row: [\"-\", \"1M\", \"1M\"]\n";
    let got: Vec<String> = data_mutants(Path::new("t/ruleset.yaml"), yaml)
        .into_iter()
        .map(|m| format!("{}:{} {} [{}]", m.line, m.col, m.change, m.with))
        .collect();
    assert_eq!(
        got,
        vec![
            "4:12 die battle: face 1 foot -> horse [horse]",
            "4:12 die battle: face 1 foot -> flag [flag]",
            "4:24 die battle: face 3 horse -> foot [foot]",
            "4:24 die battle: face 3 horse -> flag [flag]",
            "4:31 die battle: face 4 flag -> foot [foot]",
            "4:31 die battle: face 4 flag -> horse [horse]",
            "5:7 die d6 sides: 6 -> 7 [7]",
            "5:7 die d6 sides: 6 -> 5 [5]",
            "7:20 terrain.woods.ranged: 1 -> 2 [2]",
            "7:20 terrain.woods.ranged: 1 -> 0 [0]",
            "7:35 terrain.woods.blocks_los: true -> false [false]",
            "9:18 unit_types.a.strength: 4 -> 5 [5]",
            "9:18 unit_types.a.strength: 4 -> 3 [3]",
            "9:28 unit_types.a.class: foot -> horse [horse]",
            "10:18 unit_types.b.strength: 3 -> 4 [4]",
            "10:18 unit_types.b.strength: 3 -> 2 [2]",
            "10:28 unit_types.b.class: horse -> foot [foot]",
            "12:9 charts.row[1]: - -> 1M (its neighbour) [1M]",
        ]
    );
}

/// A ruleset of its own in a fresh folder: `m.lua`, a unit type's number
/// and a param in ruleset.yaml, a scenario, and a spec of five cases: the
/// first calls `m.double`, the second reads the strength from Lua, the
/// fourth has Rust read it (a scenario and a unit placed at its type's
/// strength), the fifth reads the param; the third reads nothing.
fn case_ruleset(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sandtable-mutspeed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("spec")).unwrap();
    std::fs::write(
        dir.join("ruleset.yaml"),
        "name: cases\ntitle: Cases\nmodules: [m]\nunit_types:\n  foot: { strength: 4 }\n\
         params:\n  m:\n    bonus: { default: 1, doc: added }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("scenario.yaml"),
        "name: Two sides\nruleset: .\nmap: { cols: 4, rows: 4, offset: odd-r }\n\
         sides:\n  blue: { baseline: bottom }\n  red: { baseline: top }\nfirst: blue\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("m.lua"),
        "local m = {}\nfunction m.double(n)\n  return n * 2\nend\nfunction m.strength()\n  return ruleset.unit_types.foot.strength\nend\n\
         function m.plus(n)\n  return n + params.m.bonus\nend\nreturn m\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spec/m_spec.lua"),
        "describe(\"m\", function()\n  it(\"doubles\", function() expect(m.double(3)):to_be(6) end)\n  \
         it(\"reads the strength\", function() expect(m.strength()):to_be(4) end)\n  \
         it(\"adds\", function() expect(1 + 1):to_be(2) end)\n  \
         it(\"places a unit at its type's strength\", function()\n    scenario(\"../scenario.yaml\")\n    \
         expect(world:add_unit{ id = \"u\", side = \"blue\", type = \"foot\", hex = hex(0, 0) }.strength):to_be(4)\n  end)\n  \
         it(\"adds the bonus\", function() expect(m.plus(1)):to_be(2) end)\nend)\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_mutant_runs_only_the_cases_that_ran_its_line_or_read_its_datum() {
    let dir = case_ruleset("plan");
    let spec = SpecFile::of(dir.join("spec/m_spec.lua"));
    let scope = coverage::scope_of(std::slice::from_ref(&spec), false).unwrap().unwrap();
    let runs = coverage::run_files(
        std::slice::from_ref(&spec),
        Some(&scope),
        &HostOptions { track_data: true, ..Default::default() },
        &ScenarioOverrides::default(),
    );
    let cov = coverage::total(&runs, Some(&scope));
    let reached = Reached::new(&runs);
    let module = crate::lua::display_path(&crate::layers::files::canonical(&dir.join("m.lua")));
    let m_at = |line: u32, kind: Kind, datum: Option<&str>| Mutant {
        file: module.clone(),
        line,
        col: 1,
        change: String::new(),
        kind,
        shown: String::new(),
        what: What::Param(String::new()),
        datum: datum.map(str::to_string),
    };
    // Line 3 (`n * 2`) runs in the first case only; line 6 in the second.
    let code = |line| Mutant {
        what: What::Edit { path: PathBuf::new(), start: 0, end: 0, with: String::new() },
        ..m_at(line, Kind::Code, None)
    };
    let only = |cases: &[usize]| Some(vec![(0, Cases::Only(cases.iter().copied().collect::<BTreeSet<usize>>()))]);
    assert_eq!(plan_of(&code(3), &reached, &runs, &cov), only(&[0]));
    assert_eq!(plan_of(&code(6), &reached, &runs, &cov), only(&[1]));
    // The unit type's strength: read by Lua in the second case, by Rust
    // alone in the fourth (the scenario's units, the unit placed); the
    // cases that never read it are not run.
    assert_eq!(plan_of(&m_at(5, Kind::Data, Some("unit_types")), &reached, &runs, &cov), only(&[1, 3]));
    assert_eq!(plan_of(&m_at(5, Kind::Data, Some("params.m")), &reached, &runs, &cov), only(&[4]));
    // A section no read is tracked for (the dice) can reach any case.
    assert_eq!(plan_of(&m_at(5, Kind::Data, Some("dice")), &reached, &runs, &cov), Some(vec![(0, Cases::All)]));

    // The whole run: each mutant is killed by a case that reads what it
    // changes, and a strength of 5 also by the unit Rust placed.
    let report = run_one(spec);
    let outcome = |change: &str| {
        report.results.iter().find(|(m, _)| m.change == change).map(|(_, o)| o.clone()).unwrap_or_else(|| {
            panic!("no mutant {change}: {:?}", report.results.iter().map(|(m, _)| &m.change).collect::<Vec<_>>())
        })
    };
    assert!(outcome("`*` -> `/`").killed());
    assert!(outcome("`2` -> `3`").killed());
    assert!(outcome("unit_types.foot.strength: 4 -> 5").killed());
    assert!(outcome("unit_types.foot.strength: 4 -> 3").killed());
    assert!(outcome("param m.bonus: 1 -> 2").killed());
    assert!(outcome("param m.bonus: 1 -> 0").killed());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A datum read only by Rust (the unit placed at its type's strength) is
/// tracked: its mutant is killed by the one case that reads it.
#[test]
fn a_datum_read_only_from_rust_is_tracked_and_kills() {
    let dir = case_ruleset("rust");
    // The Lua read of the strength (the second case) gone: only Rust reads it.
    let spec_path = dir.join("spec/m_spec.lua");
    let text =
        std::fs::read_to_string(&spec_path).unwrap().replace("expect(m.strength()):to_be(4)", "expect(4):to_be(4)");
    std::fs::write(&spec_path, text).unwrap();
    let spec = SpecFile::of(spec_path);
    let scope = coverage::scope_of(std::slice::from_ref(&spec), false).unwrap().unwrap();
    let options = HostOptions { track_data: true, ..Default::default() };
    let runs = coverage::run_files(std::slice::from_ref(&spec), Some(&scope), &options, &ScenarioOverrides::default());
    assert_eq!(
        runs[0].case_reads.iter().filter(|(_, r)| r.contains("unit_types")).map(|(c, _)| *c).collect::<Vec<_>>(),
        vec![3]
    );
    assert!(runs[0].outside_reads.is_empty(), "{:?}", runs[0].outside_reads);
    let report = run_one(spec);
    let strength = report.results.iter().find(|(m, _)| m.change == "unit_types.foot.strength: 4 -> 5").expect("mutant");
    assert!(matches!(&strength.1, super::Outcome::Killed(_)), "{:?}", strength.1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_mutant_that_loops_for_ever_is_stopped_by_the_budget_of_a_case_and_counted_so() {
    let dir = std::env::temp_dir().join(format!("sandtable-mutspeed-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("spec")).unwrap();
    std::fs::write(dir.join("ruleset.yaml"), "name: loops\ntitle: Loops\nmodules: [m]\n").unwrap();
    std::fs::write(
        dir.join("m.lua"),
        "local m = {}\nfunction m.count(n)\n  local i = 0\n  while i < n do\n    i = i + 1\n  end\n  return i\nend\nreturn m\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spec/m_spec.lua"),
        "describe(\"m\", function()\n  it(\"counts\", function() expect(m.count(3)):to_be(3) end)\nend)\n",
    )
    .unwrap();
    let spec = SpecFile::of(dir.join("spec/m_spec.lua"));
    let settings = Settings { jobs: 1, budget: Some(std::time::Duration::from_millis(300)), ..Default::default() };
    let report = run(&[spec], &HostOptions::default(), &ScenarioOverrides::default(), &settings).expect("runs");
    let outcome =
        |change: &str| report.results.iter().find(|(m, _)| m.change == change).map(|(_, o)| o.clone()).expect("mutant");
    // `i - 1` never reaches 3: the case runs into its budget, a kill by the
    // time budget (the clean case took far less than a quarter of it).
    assert!(matches!(outcome("`+` -> `-`"), super::Outcome::TimedOut(_)), "{:?}", outcome("`+` -> `-`"));
    // `i <= n` ends, one too far: an ordinary kill.
    assert!(matches!(outcome("`<` -> `<=`"), super::Outcome::Killed(_)), "{:?}", outcome("`<` -> `<=`"));
    assert!(report.results.iter().all(|(_, o)| !matches!(o, super::Outcome::Undecided(_))));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The order a mutant's cases run in: only the cases of its plan, each
/// once, so that a survivor has run every case that reached its line; the
/// killer of the last mutant of the same site first, on its own.
#[test]
fn a_mutant_tries_only_its_plan_each_case_once_the_likeliest_killer_first() {
    let dir = case_ruleset("order");
    let files = vec![SpecFile::of(dir.join("spec/m_spec.lua"))];
    let scope = coverage::scope_of(&files, false).unwrap().unwrap();
    let overrides = ScenarioOverrides::default();
    let runs =
        coverage::run_files(&files, Some(&scope), &HostOptions { track_data: true, ..Default::default() }, &overrides);
    let cov = coverage::total(&runs, Some(&scope));
    let reached = Reached::new(&runs);
    let texts = super::read_specs(&files).unwrap();
    let budgets: Vec<Budgets> = runs.iter().map(|r| Budgets::of(r, None, None)).collect();
    let stats = Kills::new(&runs);
    let options = HostOptions::default();
    let run = Run {
        files: &files,
        texts: &texts,
        options: &options,
        overrides: &overrides,
        budgets: &budgets,
        runs: &runs,
        reached: &reached,
        cov: &cov,
        stats: &stats,
        parsed: crate::lua::ParseShare::new(),
    };
    let module = crate::lua::display_path(&crate::layers::files::canonical(&dir.join("m.lua")));
    let at = |line: u32, kind: Kind, datum: Option<&str>, change: &str| Mutant {
        file: module.clone(),
        line,
        col: 1,
        change: change.to_string(),
        kind,
        shown: String::new(),
        what: What::Edit { path: PathBuf::new(), start: 0, end: 0, with: String::new() },
        datum: datum.map(str::to_string),
    };
    let order_of = |m: &Mutant| run.order(m, &Sites::of(m, &cov), &plan_of(m, &reached, &runs, &cov).expect("reached"));
    let cases_in = |order: &[(usize, Cases)]| -> Vec<usize> {
        let mut all: Vec<usize> = order
            .iter()
            .flat_map(|(f, c)| match c {
                Cases::All => run.every_case(*f).into_iter().collect::<Vec<_>>(),
                Cases::Only(s) => s.iter().copied().collect(),
            })
            .collect();
        all.sort_unstable();
        all
    };
    let one = |c: usize| (0, Cases::Only(BTreeSet::from([c])));
    let only = |cases: &[usize]| (0, Cases::Only(cases.iter().copied().collect::<BTreeSet<usize>>()));

    // A plan of every case (as for a datum also read outside the cases):
    // the cases that read the strength themselves run before the others.
    let strength = at(5, Kind::Data, Some("unit_types"), "unit_types.foot.strength: 4 -> 5");
    assert_eq!(run.direct(&strength, 0), BTreeSet::from([1, 3]));
    let all = vec![(0, Cases::All)];
    assert_eq!(run.order(&strength, &Sites::of(&strength, &cov), &all), vec![only(&[1, 3]), only(&[0, 2, 4])]);

    // Line 3 (`n * 2`) runs in the first case only: that case alone, even
    // after another case killed a mutant of the same line.
    let double = at(3, Kind::Code, None, "`*` -> `/`");
    assert_eq!(order_of(&double), vec![one(0)]);
    stats.record(&Sites::of(&double, &cov), 0, Some(4));
    assert_eq!(order_of(&double), vec![one(0)]);

    // A die face reaches every case: the case that killed the last mutant
    // of the same die runs first, on its own, then every other case once.
    let face = |change: &str| at(5, Kind::Data, Some("dice"), change);
    assert_eq!(cases_in(&order_of(&face("die d6: face 1 1 -> 2"))), vec![0, 1, 2, 3, 4]);
    stats.record(&Sites::of(&face("die d6: face 1 1 -> 2"), &cov), 0, Some(2));
    let order = order_of(&face("die d6: face 2 2 -> 3"));
    assert_eq!(order[0], one(2), "{order:?}");
    assert_eq!(cases_in(&order), vec![0, 1, 2, 3, 4], "every case once: {order:?}");

    let _ = std::fs::remove_dir_all(&dir);
}

/// Each case's budget is ten times what it took clean, at least a second:
/// a loop in a quick case stops long before ten times a slow case.
#[test]
fn each_case_gets_ten_times_its_own_clean_time_at_least_a_second() {
    use std::time::Duration;
    let run = coverage::FileRun {
        path: PathBuf::from("spec/x_spec.lua"),
        passed: 2,
        failed: 0,
        coverage: coverage::Coverage::default(),
        took: Duration::from_millis(3250),
        case_took: [(0, Duration::from_millis(5)), (1, Duration::from_millis(3000))].into_iter().collect(),
        outside_took: Duration::from_millis(245),
        cases: Vec::new(),
        outside: BTreeSet::new(),
        case_reads: Vec::new(),
        outside_reads: BTreeSet::new(),
    };
    let b = Budgets::of(&run, None, None);
    assert_eq!((b.cases[&0], b.cases[&1]), (1000, 30000));
    assert_eq!(b.outside, Duration::from_millis(2450));
    // `--mutant-budget` for every part; `--time-limit` caps them all.
    let b = Budgets::of(&run, Some(Duration::from_millis(300)), None);
    assert_eq!((b.cases[&0], b.cases[&1], b.outside), (300, 300, Duration::from_millis(300)));
    let b = Budgets::of(&run, None, Some(2000));
    assert_eq!((b.cases[&0], b.cases[&1], b.outside), (1000, 2000, Duration::from_millis(2000)));
}

/// The whole mutation run of one spec file, on one thread.
fn run_one(spec: SpecFile) -> super::Report {
    run(&[spec], &HostOptions::default(), &ScenarioOverrides::default(), &Settings { jobs: 1, ..Default::default() })
        .expect("runs")
}
