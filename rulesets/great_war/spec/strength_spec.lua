-- [Combat] HQ spending at its edges, pinned with the decision's own default
-- (answers.default), and data pins: tables the README's analysis numbers rest
-- on. A failing pin means the data changed: re-run the analysis in README.md
-- ("Analysis" and "Speed") and update the numbers there.

scenario("scenarios/range.yaml")

local T = hex(5, 4)

local function fire_default(side)
  answers{ answers.default }
  return reserve_artillery.fire{ side = side, target = T, card = "bombard" }
end

describe("the HQ decision's default", function()
  it("spends the battery's strength when the side holds more (4 of 10)", function()
    dice.force("targeting", { 1, 2, 3, 4 })
    local rec = fire_default("allies")
    expect(rec.hq):to_be(4)
    expect(world:pool("allies", "hq")):to_be(6)
  end)

  it("spends every token held when that is fewer than the strength (2 of strength 4)", function()
    world:set_pool("central", "hq", 2)
    dice.force("targeting", { 1, 2 })
    local rec = fire_default("central")
    expect(rec.hq):to_be(2)
    expect(world:pool("central", "hq")):to_be(0)
  end)

  it("spends exactly the tokens held when asked for all of them (3 of 3)", function()
    world:set_pool("allies", "hq", 3)
    dice.force("targeting", { 1, 2, 3 })
    local rec = reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 3 }
    expect(rec.hq):to_be(3)
    expect(world:pool("allies", "hq")):to_be(0)
    world:set_pool("allies", "hq", 3)
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 4 }
    end, "holds only 3")
  end)
end)

local ANALYSIS = " (README.md's analysis numbers move with this table: re-run them)"

describe("data pins", function()
  it("the battle die's faces: two soldiers and one each of burst, deadly, hq, flag" .. ANALYSIS, function()
    expect(dice.faces("battle")):to_equal({ "soldier", "burst", "deadly", "hq", "flag" })
    -- 6000 dice: a face on one side of six comes up 1000 times (sd 29), two sides 2000.
    dice.seed(7)
    local counts = { soldier = 0, burst = 0, deadly = 0, hq = 0, flag = 0 }
    for _ = 1, 6 do
      local roll = dice.roll(1000, "battle", "pin")
      for f in pairs(counts) do
        counts[f] += roll:count(f)
      end
    end
    expect(math.abs(counts.soldier - 2000) < 150):to_be(true)
    for _, f in ipairs({ "burst", "deadly", "hq", "flag" }) do
      expect(math.abs(counts[f] - 1000) < 120):to_be(true)
    end
  end)

  it("every terrain type's protection and flags" .. ANALYSIS, function()
    local t = ruleset.terrain
    expect(t.woods.protection):to_be(1)
    expect(t.woods.ignore_flags):to_be(0)
    expect(t.hills.protection):to_be(1)
    expect(t.trenches.ranged.protection):to_be(2)
    expect(t.trenches.ranged.ignore_flags):to_be(2)
    expect(t.trenches.close.protection):to_be(1)
    expect(t.trenches.close.ignore_flags):to_be(1)
    expect(t.town.protection):to_be(1)
    expect(t.town.ignore_flags):to_be(1)
    expect(t.lake.impassable):to_be(true)
    expect(ruleset.charts.token_terrain.crater.protection):to_be(1)
    expect(ruleset.charts.token_terrain.crater.ignore_flags):to_be(1)
  end)

  it("every unit type's figures and movement" .. ANALYSIS, function()
    local u = ruleset.unit_types
    expect({ u.infantry.strength, u.infantry.move, u.infantry.move_and_fight }):to_equal({ 4, 2, 1 })
    expect({ u.machine_gun.strength, u.machine_gun.move, u.machine_gun.move_and_fight }):to_equal({ 3, 1, 0 })
    expect({ u.mortar.strength, u.mortar.move, u.mortar.move_and_fight }):to_equal({ 3, 1, 0 })
    expect({ u.artillery.strength, u.artillery.move, u.artillery.move_and_fight }):to_equal({ 2, 1, 0 })
  end)
end)
