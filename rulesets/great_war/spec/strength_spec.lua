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

describe("the battery's strength and the HQ tokens held, at their edges", function()
  it("a battery of strength 1 fires one targeting die", function()
    world:set_pool("allies", "reserve_artillery", 1)
    dice.force("targeting", { 1 })
    local rec = reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 1 }
    expect(rec.hq):to_be(1)
    expect(reserve_artillery.battery("allies").strength):to_be(1)
  end)

  it("with one token held the decision offers 1 only, and takes it by default", function()
    world:set_pool("allies", "hq", 1)
    dice.force("targeting", { 1 })
    expect(fire_default("allies").hq):to_be(1)
    world:set_pool("allies", "hq", 3)
    answers{ 0 }
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard" }
    end, "the answer 0 is not one of the options (1, 2, 3)")
  end)

  it("spends exactly its strength when it holds more, and no more than it holds when that is fewer", function()
    world:set_pool("allies", "reserve_artillery", 3)
    dice.force("targeting", { 1, 2, 3 })
    expect(reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 3 }.hq):to_be(3)
    expect(world:pool("allies", "hq")):to_be(7)
    world:set_pool("allies", "hq", 2)
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 3 }
    end, "cannot spend 3 HQ tokens: allies holds only 2")
    dice.force("targeting", { 1, 2 })
    expect(reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 2 }.hq):to_be(2)
    expect(world:pool("allies", "hq")):to_be(0)
  end)
end)

-- A data pin fails with a message naming the README numbers that move with
-- the data (re-run the commands of README.md "An analysis question").
local function pin(what, actual, expected, moves)
  local ok = pcall(function() expect(actual):to_equal(expected) end)
  if not ok then
    local got = {}
    for i, v in ipairs(actual) do
      got[i] = tostring(v)
    end
    error(what .. " changed (now " .. table.concat(got, ", ") .. "): README.md's analysis numbers move with it: "
      .. moves .. "; re-run them and update README.md", 2)
  end
end

local FIGURES = "figures lost 1.2623 in the open and 0.9004 in woods (scripts/great_war/figures_lost_*.lua), "
  .. "1.193/0.830 and P(eliminated) 2.11%/0.56% (scripts/analysis/ra_open.lua, ra_woods.lua), "
  .. "0.921 for the trench line (scripts/analysis/ra_bombard.lua)"

describe("data pins, by the analysis numbers that rest on them", function()
  it("the battle die: soldier, soldier, burst, deadly, hq, flag", function()
    pin("the battle die's faces", dice.faces("battle"), { "soldier", "burst", "deadly", "hq", "flag" }, FIGURES)
  end)

  it("the targeting die: six numbers", function()
    pin("the targeting die", dice.faces("targeting"), { 1, 2, 3, 4, 5, 6 },
      "P(crater) 7/72 and on target 91/54 (scripts/great_war/crater_odds.lua), and every figures-lost number")
  end)

  it("every terrain type", function()
    local t = ruleset.terrain
    pin("woods", { t.woods.protection, t.woods.ignore_flags, t.woods.blocks_los, t.woods.stops }, { 1, 0, true, true },
      "figures lost 0.9004 in woods and 0.830 (ra_woods.lua)")
    pin("hills", { t.hills.protection, t.hills.ignore_flags, t.hills.blocks_los }, { 1, 0, true }, "none yet (no analysis script uses hills)")
    pin("trenches", { t.trenches.ranged.protection, t.trenches.ranged.ignore_flags, t.trenches.close.protection,
      t.trenches.close.ignore_flags }, { 2, 2, 1, 1 }, "0.921 for the trench line (ra_bombard.lua)")
    pin("town", { t.town.protection, t.town.ignore_flags, t.town.blocks_los }, { 1, 1, true }, "none yet (no analysis script uses towns)")
    pin("lake", { t.lake.protection, t.lake.ignore_flags, t.lake.impassable }, { 0, 0, true }, "none yet (retreats and moves only)")
    local crater = ruleset.charts.token_terrain.crater
    pin("the shell crater", { crater.protection, crater.ignore_flags }, { 1, 1 },
      "0.065 fewer figures lost with four_for_crater (ra_woods.lua) and the trench line's 0.921")
    local names = {}
    for name in pairs(t) do
      table.insert(names, name)
    end
    table.sort(names)
    pin("the terrain types", names, { "hills", "lake", "town", "trenches", "woods" }, "see each type above")
  end)

  it("every unit type", function()
    local u = ruleset.unit_types
    local function row(name)
      return { u[name].strength, u[name].move, u[name].move_and_fight }
    end
    pin("infantry", row("infantry"), { 4, 2, 1 }, FIGURES)
    pin("machine_gun", row("machine_gun"), { 3, 1, 0 }, "none yet (no analysis script fires on machine guns)")
    pin("mortar", row("mortar"), { 3, 1, 0 }, "none yet (no analysis script fires on mortars)")
    pin("artillery", row("artillery"), { 2, 1, 0 }, "none yet (no analysis script fires on artillery)")
  end)

  it("the command card deck: 30 cards, each section card's flank and orders", function()
    local c = ruleset.charts.cards
    local function row(name)
      local card = c[name]
      return { card.kind, card.section or "-", card.orders or 0, card.count, card.battlefield_only == true }
    end
    local DECK = "none (the analyses fire single shots), but every game the turn frame deals draws from it"
    pin("bombard", row("bombard"), { "bombard", "-", 0, 2, false }, DECK)
    pin("counter_attack", row("counter_attack"), { "tactic", "-", 0, 2, false }, DECK)
    for _, flank in ipairs({ "left", "centre", "right" }) do
      local probes = flank == "centre" and 5 or 4
      local attacks = flank == "centre" and 4 or 3
      pin("probe_" .. flank, row("probe_" .. flank), { "section", flank, 2, probes, false }, DECK)
      pin("attack_" .. flank, row("attack_" .. flank), { "section", flank, 3, attacks, false }, DECK)
      pin("advance_" .. flank, row("advance_" .. flank), { "section", flank, 2, 1, true }, DECK)
    end
    local n, names = 0, {}
    for name, card in pairs(c) do
      n += card.count
      table.insert(names, name)
    end
    table.sort(names)
    pin("the deck's size", { n, #names }, { 30, 11 }, DECK)
  end)

  it("the turn frame's params: hands of 5, 6 banners to win", function()
    pin("cc_turn params", { params.cc_turn.hand_size, params.cc_turn.victory_banners }, { 5, 6 },
      "none (the analyses fire single shots), but every scenario without its own notes plays with them")
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
end)
