-- The errors a designer meets when a call or a scenario cannot be read as
-- the rules ask, and the record's per-number counts: each found by the
-- mutation run (`sandtable test --mutate rulesets/great_war`), where a
-- removed check or field changed nothing any other spec saw. Plain errors,
-- not rule errors (rule_errors_spec holds those). On the bare range; the
-- target is hex(5,4).

local cc = require("lib/cc")

scenario("scenarios/range.yaml")

local T = hex(5, 4)

describe("a call the reserve artillery cannot read", function()
  it("fire without its table of arguments", function()
    expect_error(function() reserve_artillery.fire("allies") end, "call reserve_artillery.fire{side=, target=, card=, hq=}")
  end)

  it("fire with no side when no side has the turn", function()
    scenario("scenarios/noturn.yaml")
    expect(world:current_side()):to_be(nil)
    expect_error(function() reserve_artillery.fire{ target = T, card = "bombard" } end, "say which side fires")
  end)

  it("a target named by a unit id no unit has", function()
    expect_error(function() reserve_artillery.fire{ side = "allies", target = "nobody", card = "bombard" } end,
      "no unit 'nobody' to target")
  end)

  it("a target that is neither a hex nor a unit", function()
    expect_error(function() reserve_artillery.fire{ side = "allies", target = 7, card = "bombard" } end,
      "target must be a hex or an enemy unit, not number")
  end)

  it("a battery of a side the scenario does not have", function()
    expect_error(function() reserve_artillery.battery("neutrals") end, "neutrals")
  end)

  it("a card name the deck does not hold, listing the cards by name in order", function()
    local names = {}
    for name in pairs(ruleset.charts.cards) do
      table.insert(names, name)
    end
    table.sort(names)
    expect_error(function() reserve_artillery.card("barrage") end,
      "no command card named 'barrage' (cards: " .. table.concat(names, ", ") .. ")")
  end)
end)

describe("a scenario the template cannot be oriented in", function()
  it("fire needs the opponent's baseline to point the template's arrow", function()
    scenario("scenarios/nobaseline.yaml")
    expect_error(function() reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 1 } end,
      "cannot orient the targeting template: central has no baseline in this scenario")
  end)

  it("a side without a baseline has no flanks for a section card", function()
    scenario("scenarios/nobaseline.yaml")
    expect_error(function() reserve_artillery.can_order("probe_left", T, "central") end, "has no baseline")
    expect_error(function() cc.side_sections("central", T) end, "has no baseline")
  end)
end)

describe("the record and the map after a firing", function()
  it("counts the targeting dice on each number, 1 to 6", function()
    dice.force("targeting", { 2, 2, 5, 6 })
    local rec = reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 4 }
    expect(rec.counts):to_equal({ 0, 2, 0, 0, 1, 1 })
  end)

  it("names the unit it targeted in its printed summary", function()
    world:add_unit{ id = "x", side = "central", type = "infantry", hex = T }
    dice.force("targeting", { 1 })
    local rec = reserve_artillery.fire{ side = "allies", target = "x", card = "bombard", hq = 1 }
    expect(string.find(tostring(rec), "allies reserve artillery (Artillery Bombard) fires on (5,4) at x: 1 HQ tokens", 1, true) ~= nil)
      :to_be(true)
  end)

  it("marks only the latest firing's template on the map", function()
    dice.force("targeting", { 1 })
    reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 1 }
    dice.force("targeting", { 1 })
    reserve_artillery.fire{ side = "allies", target = hex(8, 4), card = "bombard", hq = 1 }
    local marked = {}
    for _, m in ipairs(world:marks()) do
      marked[tostring(m.hex or m[1])] = true
    end
    expect(marked[tostring(hex(8, 4))]):to_be(true)
    expect(marked[tostring(T)]):to_be(nil)
  end)
end)
