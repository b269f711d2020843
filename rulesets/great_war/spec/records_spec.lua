-- [Hits] What a firing's record says, hex by hex: its numbers, the entries
-- of hexes rolled only for wire, units lost to a blocked retreat, and the
-- readable summary the record prints as (what a designer reads at the
-- prompt). On the bare range: the allies fire on T = hex(5,4); firing up,
-- template hex 1 is north-east (6,3), 2 east (6,4), 3 south-east (5,5),
-- 4 south-west (4,5), 5 west (4,4), 6 north-west (5,3). The top row is row 0.

local T = hex(5, 4)
local HEX1, HEX2, HEX3, HEX4 = hex(6, 3), hex(6, 4), hex(5, 5), hex(4, 5)
local EDGE = hex(5, 0) -- on the top edge: a central unit there cannot retreat
local BOTTOM = hex(1, 8) -- on the bottom edge: an allied unit there cannot retreat

local function put(id, side, at, terrain, strength)
  if terrain then
    world:set_terrain(at, terrain)
  end
  return world:add_unit{ id = id, side = side, type = "infantry", hex = at, strength = strength }
end

local function fire(target, hq)
  return reserve_artillery.fire{ side = "allies", target = target, card = "bombard", hq = hq }
end

scenario("scenarios/range.yaml")

describe("a unit lost to a blocked retreat", function()
  it("counts as eliminated and earns a medal, like one lost to hits", function()
    local x = put("x", "central", EDGE, nil, 1)
    dice.force("targeting", { 1, 1 }) -- two on target; hex 1 is off the map
    dice.force("battle", { "flag", "hq" })
    local rec = fire(EDGE, 2)
    expect(x.alive):to_be(false)
    local e = rec.shelled[1]
    expect({ e.hits, e.removed, e.retreat, e.retreat_losses, e.eliminated }):to_equal({ 0, 0, 0, 1, true })
    expect({ rec.figures_lost, rec.units_eliminated, rec.medals }):to_equal({ 1, 1, 1 })
    expect(world:pool("allies", "medals")):to_be(1)
  end)

  it("a blocked retreat that leaves figures is no elimination and no medal", function()
    local x = put("x", "central", EDGE)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "flag", "hq" })
    local rec = fire(EDGE, 2)
    expect(x.strength):to_be(3)
    expect({ rec.figures_lost, rec.units_eliminated, rec.medals }):to_equal({ 1, 0, 0 })
    expect(rec.shelled[1].eliminated):to_be(false)
    expect(world:pool("allies", "medals")):to_be(0)
  end)

  it("an own unit's figures lost to a blocked retreat count as own losses", function()
    local own = put("own", "allies", BOTTOM)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "flag", "soldier" })
    local rec = fire(BOTTOM, 2)
    expect(own.strength):to_be(2) -- one to the soldier, one to the blocked retreat
    expect({ rec.friendly_figures_lost, rec.figures_lost, rec.medals }):to_equal({ 2, 0, 0 })
  end)

  it("a unit a reaction eliminates during its retreat is the reaction's loss, not the firing's", function()
    local x = put("x", "central", T)
    on("enters", function(u)
      if u.id == "x" then
        world:eliminate(u, "mines")
      end
    end)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "flag", "hq" })
    answers{ answers.default }
    local rec = fire(T, 2)
    expect(x.alive):to_be(false)
    expect({ rec.figures_lost, rec.units_eliminated, rec.medals }):to_equal({ 0, 0, 0 })
  end)

  it("a unit eliminated by hits does not retreat, so its terrain ignores no flag", function()
    put("x", "central", T, "trenches", 1)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "burst", "flag" })
    local rec = fire(T, 2)
    local e = rec.shelled[1]
    expect({ e.eliminated, e.flags_ignored, e.retreat }):to_equal({ true, 0, 0 })
  end)
end)

describe("the entries of the record", function()
  it("a hex rolled only for its wire: no unit, nothing lost", function()
    world:add_token(T, "wire")
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "soldier", "flag" })
    local e = fire(T, 2).shelled[1]
    expect(e.rolled):to_be(true)
    expect(e.unit):to_be_nil()
    expect({ e.hits, e.removed, e.retreat, e.retreat_losses, e.flags_ignored }):to_equal({ 1, 0, 0, 0, 0 })
    expect({ e.eliminated, e.wire_removed, e.crater }):to_equal({ false, false, false })
    expect(world:has_token(T, "wire")):to_be(true)
  end)

  it("a burst on wire removes it, and the entry says so", function()
    world:add_token(T, "wire")
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "burst", "soldier" })
    local rec = fire(T, 2)
    expect(rec.shelled[1].wire_removed):to_be(true)
    expect(rec.wire_removed):to_be(1)
  end)
end)

describe("the printed record", function()
  it("says what happened in each hex, in the order resolved", function()
    world:set_pool("allies", "reserve_artillery", 6)
    put("x", "central", T, "woods")
    world:add_token(HEX1, "wire")
    put("y", "central", HEX2, nil, 1)
    put("z", "central", HEX3, "trenches")
    dice.force("targeting", { 1, 1, 2, 2, 3, 4 }) -- four on target; hexes 1 and 2 two dice, 3 and 4 one
    dice.force("battle", { "soldier", "soldier", "hq", "flag", "burst", "soldier", "burst", "burst", "flag" })
    answers{ hex(5, 3) } -- x retreats north-west
    local rec = fire(T, 6)
    expect(tostring(rec)):to_be(table.concat({
      "allies reserve artillery (Artillery Bombard) fires on (5,4): 6 HQ tokens",
      "  targeting dice: 1 1 2 2 3 4 -> 4 on target",
      "  on target (5,4): 4 dice [2 soldier, 1 hq, 1 flag] (protection 1) -> x: 1 hit, retreats 1; +1 HQ",
      "  hex 1 (6,3): 2 dice [1 soldier, 1 burst]; wire removed",
      "  hex 2 (6,4): 2 dice [2 burst] -> y: 2 hits, 1 figure lost, eliminated",
      "  hex 3 (5,5): 1 die [1 flag] (protection 2) -> z: 0 hits, ignores 1 flag",
      "  hex 4 (4,5): 1 die, not rolled (no unit or wire)",
      "  enemy figures lost 2, own figures lost 0, medals +1, HQ tokens +1",
    }, "\n"))
  end)

  it("a crater hit, a blocked retreat and a hex off the map", function()
    put("x", "central", EDGE)
    dice.force("targeting", { 1, 1, 1 }) -- three on target: a shell crater; hex 1 is off the map
    dice.force("battle", { "soldier", "flag", "deadly" })
    local rec = fire(EDGE, 3)
    expect(tostring(rec)):to_be(table.concat({
      "allies reserve artillery (Artillery Bombard) fires on (5,0): 3 HQ tokens",
      "  targeting dice: 1 1 1 -> 3 on target, shell crater placed",
      "  on target (5,0): 3 dice [1 soldier, 1 deadly, 1 flag] (shell crater: no terrain protection) -> x: 2 hits, loses 1 more (retreat blocked)",
      "  hex 1 (6,-1): 3 dice, not rolled (off the map)",
      "  enemy figures lost 3, own figures lost 0, medals +0, HQ tokens +0",
    }, "\n"))
  end)

  it("a crater that was there already; figures lost in the plural", function()
    world:add_token(T, "crater")
    put("x", "central", T, nil, 2)
    put("w", "central", HEX1, "trenches")
    dice.force("targeting", { 1, 1, 1 })
    dice.force("battle", { "burst", "burst", "burst", "flag", "flag", "hq" })
    local rec = fire(T, 3)
    expect(tostring(rec)):to_be(table.concat({
      "allies reserve artillery (Artillery Bombard) fires on (5,4): 3 HQ tokens",
      "  targeting dice: 1 1 1 -> 3 on target, shell crater (one was there)",
      "  on target (5,4): 3 dice [3 burst] (shell crater: no terrain protection) -> x: 3 hits, 2 figures lost, eliminated",
      "  hex 1 (6,3): 3 dice [1 hq, 2 flag] (protection 2) -> w: 0 hits, ignores 2 flags; +1 HQ",
      "  enemy figures lost 2, own figures lost 0, medals +1, HQ tokens +1",
    }, "\n"))
  end)
end)
