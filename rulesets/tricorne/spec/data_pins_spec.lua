-- Data pins: ruleset.yaml's tables as README.md ("Data in ruleset.yaml")
-- states them, the published game's numbers and ours alike. Each was found
-- unchecked by the mutation run (`sandtable test --mutate rulesets/tricorne`
-- changes every number, name and switch of the data one at a time). A
-- failing pin means the data changed: change README.md with it, and the
-- analyses that rest on it.

local function pin(what, actual, expected)
  local ok, err = pcall(function() expect(actual):to_equal(expected) end)
  if not ok then
    error(what .. " is not as README.md states it: " .. tostring(err) .. "; change README.md with the data", 2)
  end
end

-- strength, class, melee, ranged dice by range, move, retreat, flags
-- ignored, rally modifier, sabres hit.
local function row(name)
  local u = ruleset.unit_types[name]
  return { u.strength, u.class, u.melee or 0, u.ranged or "none", u.move, u.retreat or 0, u.ignore_flags or 0,
    u.rally or 0, u.sabres_hit == true }
end

describe("the unit types (README: the game's numbers, and ours)", function()
  it("infantry: melee dice, ranged dice at 2, 3 hexes, flags ignored, rally, retreat", function()
    pin("grenadier", row("grenadier"), { 4, "infantry", 3, { 2, 1 }, 1, 1, 1, 1, true })
    pin("regular", row("regular"), { 4, "infantry", 3, { 2, 1 }, 1, 1, 0, 0, true })
    pin("guard", row("guard"), { 4, "infantry", 3, { 2, 1 }, 1, 1, 2, 2, true })
    pin("highland", row("highland"), { 4, "infantry", 2, { 2, 1 }, 2, 1, 0, 0, true })
    pin("lowland", row("lowland"), { 4, "infantry", 2, { 2, 1 }, 1, 2, 0, -1, true })
    pin("militia", row("militia"), { 4, "infantry", 2, { 1, 1 }, 1, 2, 0, -1, false })
  end)

  it("the highlanders' own rules: charge, bonus melee, one flag at full strength, fire only after 1 hex", function()
    local h = ruleset.unit_types.highland
    pin("highland extras", { h.highland_charge == true, h.bonus_melee == true, h.ignore_flags_full, h.move_and_fire },
      { true, true, 1, 1 })
  end)

  it("cavalry, artillery and a lone leader", function()
    pin("light_cavalry", row("light_cavalry"), { 4, "cavalry", 2, "none", 2, 2, 0, 0, false })
    pin("battle_cavalry", row("battle_cavalry"), { 4, "cavalry", 3, "none", 2, 2, 0, 0, true })
    pin("light_artillery", row("light_artillery"), { 4, "artillery", 2, { 2, 1, 1, 1 }, 1, 1, 0, 0, true })
    local lc, bc = ruleset.unit_types.light_cavalry, ruleset.unit_types.battle_cavalry
    pin("cavalry extras", { lc.bonus_melee == true, lc.retire_and_rally == true, bc.bonus_melee == true }, { true, true, true })
    pin("no combat after moving", { ruleset.unit_types.light_artillery.move_and_fight, ruleset.unit_types.leader.move_and_fight },
      { 0, 0 })
    local l = ruleset.unit_types.leader
    pin("leader", { l.strength, l.class, l.move }, { 1, "leader", 3 })
  end)
end)

describe("the terrain (README: all ours)", function()
  it("woods, hill, town, marsh and river", function()
    local t = ruleset.terrain
    pin("woods", { t.woods.ranged, t.woods.melee.infantry, t.woods.melee.cavalry, t.woods.melee.artillery,
      t.woods.blocks_los, t.woods.stops }, { 1, 1, 2, 1, true, true })
    pin("hill", { t.hill.ranged or 0, t.hill.melee, t.hill.blocks_los, t.hill.stops or false }, { 0, 1, true, false })
    pin("town", { t.town.ranged, t.town.melee.infantry, t.town.melee.cavalry, t.town.melee.artillery, t.town.blocks_los,
      t.town.stops, t.town.ignore_flags }, { 1, 2, 3, 1, true, true, 1 })
    pin("marsh", { t.marsh.ranged or 0, t.marsh.melee, t.marsh.stops, t.marsh.blocks_los or false }, { 0, 1, true, false })
    pin("river", { t.river.impassable }, { true })
  end)
end)

describe("the Command card deck (README: all ours, 23 cards)", function()
  it("Scout, Probe and Attack for each flank, and one General Advance", function()
    local c = ruleset.charts.cards
    local function card(name)
      return { c[name].kind, c[name].section or table.concat(c[name].sections, "/"), c[name].orders, c[name].count }
    end
    for _, flank in ipairs({ "left", "centre", "right" }) do
      pin("scout_" .. flank, card("scout_" .. flank), { "section", flank, 1, 2 })
      pin("probe_" .. flank, card("probe_" .. flank), { "section", flank, 2, flank == "centre" and 4 or 3 })
      pin("attack_" .. flank, card("attack_" .. flank), { "section", flank, 3, 2 })
    end
    pin("general_advance", card("general_advance"), { "section", "left/centre/right", 4, 1 })
    local n = 0
    for _, x in pairs(c) do
      n += x.count
    end
    pin("the deck's size", { n }, { 23 })
  end)
end)
