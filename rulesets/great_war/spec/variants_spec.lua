-- Every variant of ruleset.yaml, on both sides of the threshold it moves,
-- each loaded inside its own case: `scenario(path, {variant=})` in an `it`
-- lasts for that case only (the last describe checks that the params are
-- back). On the bare range: the allies fire on T = hex(5,4); template hex 1
-- is (6,3).

local T = hex(5, 4)
local HEX1 = hex(6, 3)
local RANGE = "scenarios/range.yaml"

local function put(id, side, at, terrain, strength)
  if terrain then
    world:set_terrain(at, terrain)
  end
  return world:add_unit{ id = id, side = side, type = "infantry", hex = at, strength = strength }
end

local function fire(hq)
  return reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = hq }
end

scenario(RANGE)

describe("on_target_needs_three", function()
  it("two dice on a number are not on target, three are", function()
    scenario(RANGE, { variant = "on_target_needs_three" })
    dice.force("targeting", { 2, 2, 5 })
    expect(fire(3).on_target):to_be(0)
    dice.force("targeting", { 2, 2, 2 })
    local rec = fire(3)
    expect(rec.on_target):to_be(3)
    expect(rec.crater):to_be(true)
  end)
end)

describe("four_for_crater", function()
  it("three dice on a number make no crater, four do", function()
    scenario(RANGE, { variant = "four_for_crater" })
    dice.force("targeting", { 3, 3, 3, 1 })
    local rec = fire(4)
    expect({ rec.on_target, rec.crater }):to_equal({ 3, false })
    expect(world:has_token(T, "crater")):to_be(false)
    dice.force("targeting", { 3, 3, 3, 3 })
    expect(fire(4).crater_placed):to_be(true)
  end)
end)

describe("no_friendly_fire", function()
  it("an own unit alone in a hex is not rolled; an enemy unit still is", function()
    scenario(RANGE, { variant = "no_friendly_fire" })
    put("own", "allies", HEX1)
    put("x", "central", T)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "burst", "burst" })
    local rec = fire(2)
    expect(rec.order):to_equal({ "on_target", 1 })
    expect(rec.shelled[2].rolled):to_be(false)
    expect(rec.shelled[2].why):to_be("only a friendly unit, friendly_fire off")
    expect(world:unit("own").strength):to_be(4)
    expect(world:unit("x").strength):to_be(2)
  end)
end)

describe("the wire variants", function()
  it("lasting_wire: even a burst leaves the wire", function()
    scenario(RANGE, { variant = "lasting_wire" })
    world:add_token(T, "wire")
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "burst", "deadly" })
    expect(fire(2).wire_removed):to_be(0)
    expect(world:has_token(T, "wire")):to_be(true)
  end)

  it("wire_cut_by_hits: no hit leaves the wire, one hit (a soldier) removes it", function()
    scenario(RANGE, { variant = "wire_cut_by_hits" })
    world:add_token(T, "wire")
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "flag", "hq" })
    expect(fire(2).wire_removed):to_be(0)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "soldier", "flag" })
    expect(fire(2).wire_removed):to_be(1)
    expect(world:has_token(T, "wire")):to_be(false)
  end)
end)

describe("crater_keeps_flag_terrain", function()
  it("a crater hit strips the protection but the trench still cancels flags", function()
    scenario(RANGE, { variant = "crater_keeps_flag_terrain" })
    local x = put("x", "central", T, "trenches")
    dice.force("targeting", { 1, 1, 1 })
    dice.force("battle", { "soldier", "flag", "flag" })
    local e = fire(3).shelled[1]
    expect({ e.hits, e.flags_ignored, e.retreat }):to_equal({ 1, 2, 0 })
    expect(x.hex):to_be(T)
  end)
end)

describe("long_retreats and blocked_retreat_stays", function()
  it("long_retreats: one flag is two hexes", function()
    scenario(RANGE, { variant = "long_retreats" })
    local x = put("x", "central", T)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "flag", "hq" })
    answers{ answers.default, answers.default }
    expect(fire(2).shelled[1].retreat):to_be(2)
    expect(x.hex):to_be(T + hex.direction(5) + hex.direction(5))
  end)

  it("blocked_retreat_stays: a unit that cannot retreat keeps its figures", function()
    scenario(RANGE, { variant = "blocked_retreat_stays" })
    local x = put("x", "central", hex(5, 0))
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "flag", "hq" })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(5, 0), card = "bombard", hq = 2 }
    expect({ rec.figures_lost, rec.shelled[1].retreat_losses }):to_equal({ 0, 0 })
    expect(x.strength):to_be(4)
  end)
end)

describe("a reaction subscribed inside a case", function()
  local calls = 0
  it("reacts during that case", function()
    on("enters", function() calls += 1 end)
    local u = world:add_unit{ id = "u", side = "allies", type = "infantry", hex = T }
    world:move(u, HEX1)
    expect(calls):to_be(1)
  end)

  it("is gone in the next one", function()
    local u = world:add_unit{ id = "u", side = "allies", type = "infantry", hex = T }
    world:move(u, HEX1)
    expect(calls):to_be(1)
  end)
end)

describe("after every case above", function()
  it("the params are the defaults again (a variant loaded in an `it` does not leak)", function()
    expect(ruleset.variant):to_be_nil()
    expect(params.reserve_artillery.on_target_at):to_be(2)
    expect(params.reserve_artillery.crater_at):to_be(3)
    expect(params.reserve_artillery.friendly_fire):to_be(true)
    expect(params.reserve_artillery.wire_removed_by):to_be("burst")
    expect(params.reserve_artillery.crater_ignores_flag_terrain):to_be(true)
    expect(params.retreat.hexes_per_flag):to_be(1)
    expect(params.retreat.blocked):to_be("lose_figure")
  end)
end)
