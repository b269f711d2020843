//! The spec helper `exact_odds(fn, opts?)`: exact means of what `fn`
//! returns over every outcome of the dice it looks at, on copies of the
//! world as it stands, which is put back afterwards.

use std::path::{Path, PathBuf};

use sandtable::lua::{render_error, HostOptions, ScenarioOverrides};

/// Runs spec `text` (written beside the `reacts` fixture, so
/// `scenario("scenario.yaml")` loads it) and returns each case's name and
/// error text, if it failed.
fn run(text: &str) -> Vec<(String, Option<String>)> {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reacts");
    for f in ["reacts.lua", "ruleset.yaml", "scenario.yaml"] {
        std::fs::copy(fixture.join(f), dir.path().join(f)).unwrap();
    }
    let path: PathBuf = dir.path().join("odds_spec.lua");
    std::fs::write(&path, text).unwrap();
    let r = sandtable::spec::run_file(&path, &HostOptions::default(), &ScenarioOverrides::default());
    r.cases.into_iter().map(|(name, e)| (name, e.map(|e| render_error(&e, false)))).collect()
}

/// Every case of `text` must pass; returns how many ran.
fn all_pass(text: &str) -> usize {
    let cases = run(text);
    let failed: Vec<String> = cases.iter().filter_map(|(n, e)| e.as_ref().map(|e| format!("{n}:\n{e}"))).collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    cases.len()
}

#[test]
fn known_distributions_come_out_as_exact_fractions() {
    let n = all_pass(
        r#"
it("a d6 hits on 5 or 6 one time in three", function()
  local odds, d = exact_odds(function()
    local r = dice.roll(1, "d6", "shot")
    return { hit = r:count_any{ 5, 6 } > 0 }
  end)
  expect(odds.hit):to_be_close(1 / 3, 1e-12)
  expect(d.fraction.hit):to_be("1/3")
  expect(d.present.hit):to_be(1)
  -- count_any branches on "5 or 6" or not: two leaves, not six
  expect(d.leaves):to_be(2)
end)

it("two d6 total 7 on average, and 7 one time in six", function()
  local odds, d = exact_odds(function() return dice.roll(2, "d6", "two").total end)
  expect(odds.value):to_be(7)
  expect(d.fraction.value):to_be("7")
  expect(d.dist.value[7]):to_be_close(1 / 6, 1e-12)
  expect(d.dist.value[2]):to_be_close(1 / 36, 1e-12)
  expect(d.leaves):to_be(21)
end)

it("roll_until: a die shows 1 given that one of the two does, 6 times in 11; its count is nil", function()
  -- P(first is 1 | some 1) = (1/6) / (1 - 25/36) = 6/11
  local odds, d = exact_odds(function()
    local rolls, tries = dice.roll_until({ 1, 1 }, "d6", { 1 }, "until a 1")
    return { first = rolls[1]:count(1), tries = tries }
  end)
  expect(d.fraction.first):to_be("6/11")
  expect(odds.tries):to_be_nil()
  expect(d.present.tries):to_be_nil()
end)

it("a metric returned only sometimes: its mean given it was returned, and how often it was", function()
  local odds, d = exact_odds(function()
    local r = dice.roll(1, "d6", "x")
    return { six = r:count(6) == 1 and 10 or nil }
  end)
  expect(odds.six):to_be(10)
  expect(d.present.six):to_be_close(1 / 6, 1e-12)
end)

it("dice forced inside the function are known and never branch", function()
  local odds, d = exact_odds(function()
    dice.force("d6", { 6 })
    return dice.roll(2, "d6", "one forced"):count(6)
  end)
  expect(d.fraction.value):to_be("7/6")
  expect(d.leaves):to_be(2)
end)

it("decisions take the answers queued inside the function, else a policy", function()
  local odds = exact_odds(function()
    answers{ "b" }
    local a = decide{ id = "pick", side = "blue", prompt = "pick", options = { "a", "b" } }
    local hit = dice.roll(1, "d6", "x"):count(6)
    return { b = a == "b", hit = hit }
  end)
  expect(odds.b):to_be(1)
  policy("pick", function(options) return options[1] end)
  local by_policy = exact_odds(function()
    local a = decide{ id = "pick", side = "blue", prompt = "pick", options = { "a", "b" } }
    return { b = a == "b" }
  end)
  expect(by_policy.b):to_be(0)
end)
"#,
    );
    assert_eq!(n, 6);
}

#[test]
fn the_world_subscriptions_and_policies_are_put_back() {
    all_pass(
        r#"
scenario("scenario.yaml")

it("after exact_odds the world is as it was, and the case goes on from it", function()
  local calls = { n = 0 }
  local before = #world:events()
  local odds = exact_odds(function()
    calls.n = 0
    -- a subscription made inside lasts one execution: never two at once
    on("enters", function() calls.n += 1 end)
    policy("pick", function(options) return options[2] end)
    local a1 = world:unit("a1")
    world:move(a1, hex(1, 0))
    local lost = dice.roll(1, "d6", "fire"):count(6) == 1
    if lost then world:eliminate(a1, "shot") end
    expect(world:recording()):to_be(false)
    return { lost = lost, entered = a1.entered, calls = calls.n }
  end)
  expect(odds.lost):to_be_close(1 / 6, 1e-12)
  expect(odds.entered):to_be(1)
  expect(odds.calls):to_be(1)
  -- put back: the unit, the log, the subscriptions, the policies, the dice
  local a1 = world:unit("a1")
  expect(a1.alive):to_be(true)
  expect(a1.hex):to_be(hex(0, 0))
  expect(a1.entered):to_be_nil()
  expect(#world:events()):to_be(before)
  calls.n = 0
  expect_error(function()
    decide{ id = "pick", side = "blue", prompt = "pick", options = { "a", "b" } }
  end, "no answer left")
  dice.force("d6", { 4 })
  expect(dice.roll(1, "d6", "after"):count(4)):to_be(1)
  world:move(a1, hex(1, 0))
  expect(a1.entered):to_be(1)
  expect(calls.n):to_be(0)
end)
"#,
    );
}

#[test]
fn what_it_refuses_and_how_it_says_so() {
    all_pass(
        r#"
it("a result that is not metrics", function()
  expect_error(function() exact_odds(function() return "x" end) end,
    "exact_odds: the function returned string for metric 'value'; metrics are numbers or booleans")
  expect_error(function() exact_odds(function() return { 1 } end) end,
    "the function returned a table with an integer key; name each metric")
  expect_error(function() exact_odds(function() end) end, "the function returned nothing")
  expect_error(function() exact_odds(function() return { r = dice.roll(1, "d6", "x") } end) end,
    "metrics are numbers or booleans")
end)

it("a tree past max_leaves", function()
  local odds, d = exact_odds(function() return dice.roll(1, "d6", "x").total end, { max_leaves = 6 })
  expect(d.leaves):to_be(6)
  expect_error(function() exact_odds(function() return dice.roll(1, "d6", "x").total end, { max_leaves = 5 }) end,
    "exact_odds: the function has more than 5 outcome leaves (max_leaves = 5)")
  expect_error(function() exact_odds(function() return 1 end, { max_leaves = 0 }) end,
    "max_leaves must be a whole number of 1 or more, not 0")
  expect_error(function() exact_odds(function() return 1 end, { leaves = 3 }) end,
    "unknown option `leaves` (the options are: max_leaves)")
end)

it("an execution that fails names where, and the outcomes that led there", function()
  expect_error(function()
    exact_odds(function()
      if dice.roll(1, "d6", "x").total == 3 then error("three is not allowed") end
      return 1
    end)
  end, "odds_spec.lua:26: three is not allowed (on the outcome path [2])")
end)

it("dice or answers waiting at the call, or left unused by an execution", function()
  dice.force("d6", { 2 })
  expect_error(function() exact_odds(function() return 1 end) end,
    "exact_odds: forced d6 results are waiting (2): force dice inside the function")
  dice.roll(1, "d6", "use it")
  answers{ "a" }
  expect_error(function() exact_odds(function() return 1 end) end, "exact_odds: answers are waiting")
  decide{ id = "pick", side = "blue", prompt = "pick", options = { "a", "b" } }
  expect_error(function() exact_odds(function() dice.force("d6", { 5 }); return 1 end) end,
    "an execution of the function left forced d6 results never rolled: 5")
  expect_error(function() exact_odds(function() answers{ "b" }; return 1 end) end,
    "an execution of the function left answers never used: \"b\"")
end)

it("what exact cannot enumerate", function()
  expect_error(function() exact_odds(function() dice.seed(3); return dice.roll(1, "d6", "x").total end) end,
    "the function reseeded the dice (dice.seed)")
  expect_error(function() exact_odds(function() return exact_odds(function() return 1 end).value end) end,
    "cannot run inside `exact` or inside another exact_odds")
  expect_error(function()
    exact_odds(function()
      dice.force("d6", { 1 })
      local rolls = dice.roll_until({ 1 }, "d6", { 1 }, "until")
      return rolls[1]:count(1)
    end)
  end, "are forced (dice.force), and exact cannot sum over the repeats")
  expect_error(function() exact_odds(function() scenario("scenario.yaml"); return 1 end) end,
    "or loaded a scenario, so its rolls cannot be enumerated")
end)
"#,
    );
}

#[test]
fn the_case_time_budget_holds_inside() {
    let cases = run(r#"
it("never ends", function()
  exact_odds(function() while true do end end)
end)
it("the next case runs", function()
  expect(exact_odds(function() return dice.roll(1, "d6", "x"):count(1) end).value):to_be_close(1 / 6, 1e-12)
end)
"#);
    assert_eq!(cases.len(), 2);
    let e = cases[0].1.as_deref().expect("the endless case fails");
    assert!(e.contains("time") || e.contains("budget"), "{e}");
    assert!(cases[1].1.is_none(), "{:?}", cases[1].1);
}
