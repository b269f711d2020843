-- The shared Command & Colors helpers in rulesets/lib/cc.lua: retreats (our
-- defaults where the reserve artillery document defers to a Retreat section
-- we do not have), terrain effects, hits and medals, HQ tokens. On the bare
-- range: central retreats towards the top row, the allies towards the bottom.

local cc = require("lib/cc")

local function unit(id, side, at, strength)
  return world:add_unit{ id = id, side = side, type = "infantry", hex = at, strength = strength }
end

local function retreat_opts()
  return { blocked = params.retreat.blocked, by_side = "allies", reason = "spec" }
end

scenario("scenarios/range.yaml")

describe("battle dice", function()
  it("symbols come in the die's order of first appearance", function()
    expect(cc.face_positions("battle")):to_equal({ soldier = 1, burst = 2, deadly = 3, hq = 4, flag = 5 })
  end)
end)

describe("terrain effects", function()
  it("take the best of the hex's terrain and its terrain-like tokens", function()
    world:set_terrain(hex(5, 4), "woods")
    expect({ cc.terrain_effects(hex(5, 4)) }):to_equal({ 1, 0, false })
    world:add_token(hex(5, 4), "crater")
    expect({ cc.terrain_effects(hex(5, 4)) }):to_equal({ 1, 1, false })
    world:set_terrain(hex(6, 4), "lake")
    expect({ cc.terrain_effects(hex(6, 4)) }):to_equal({ 0, 0, true })
    expect({ cc.terrain_effects(hex(7, 4)) }):to_equal({ 0, 0, false })
  end)
end)

describe("hits and medals", function()
  it("remove one figure per hit, never more than the unit has, with a medal for the last", function()
    local x = unit("x", "central", hex(5, 4), 2)
    expect({ cc.apply_hits(x, 1, "allies", "spec") }):to_equal({ 1, false })
    expect({ cc.apply_hits(x, 5, "allies", "spec") }):to_equal({ 1, true })
    expect(world:pool("allies", "medals")):to_be(1)
    expect({ cc.apply_hits(unit("y", "central", hex(7, 4)), 0, "allies", "spec") }):to_equal({ 0, false })
  end)

  it("HQ symbols add tokens to the rolling side", function()
    cc.collect_hq("central", 2, "spec")
    expect(world:pool("central", "hq")):to_be(12)
  end)
end)

describe("a retreat", function()
  it("goes towards the unit's own baseline, the owner choosing between two free hexes", function()
    local x = unit("x", "central", hex(5, 4))
    answers{ hex(6, 3) }
    expect({ cc.retreat(x, 1, retreat_opts()) }):to_equal({ 1, 0 })
    expect(x.hex):to_be(hex(6, 3))
    local a = unit("a", "allies", hex(5, 6))
    answers{ hex(4, 7) }
    cc.retreat(a, 1, retreat_opts())
    expect(a.hex):to_be(hex(4, 7))
  end)

  it("takes the only free hex without asking", function()
    local x = unit("x", "central", hex(5, 4))
    unit("block", "central", hex(5, 3))
    cc.retreat(x, 1, retreat_opts())
    expect(x.hex):to_be(hex(6, 3))
  end)

  it("goes one hex per flag, step by step", function()
    local x = unit("x", "central", hex(5, 4))
    answers{ hex(5, 3), hex(6, 2) }
    expect({ cc.retreat(x, 2, retreat_opts()) }):to_equal({ 2, 0 })
    expect(x.hex):to_be(hex(6, 2))
  end)

  it("that is blocked costs one figure per hex not retreated", function()
    local x = unit("x", "central", hex(5, 4))
    unit("b1", "central", hex(5, 3))
    world:set_terrain(hex(6, 3), "lake") -- impassable
    expect({ cc.retreat(x, 2, retreat_opts()) }):to_equal({ 0, 2 })
    expect(x.strength):to_be(2)
    expect(x.hex):to_be(hex(5, 4))
  end)

  it("off its own baseline is blocked, and losing the last figure is a medal", function()
    local x = unit("x", "central", hex(5, 0), 1)
    expect({ cc.retreat(x, 1, retreat_opts()) }):to_equal({ 0, 1 })
    expect(x.alive):to_be(false)
    expect(world:pool("allies", "medals")):to_be(1)
  end)

  it("from a reserve artillery flag follows the same rules", function()
    local x = unit("x", "central", hex(5, 4))
    unit("b1", "central", hex(5, 3))
    unit("b2", "central", hex(6, 3))
    dice.force("targeting", { 1, 1 }) -- hex 1 (6,3) is b2: it is shelled after x's retreat
    dice.force("battle", { "flag", "hq", "hq", "hq" })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(5, 4), card = "bombard", hq = 2 }
    expect(rec.shelled[1].retreat):to_be(0)
    expect(rec.shelled[1].retreat_losses):to_be(1)
    expect(rec.figures_lost):to_be(1)
    expect(x.strength):to_be(3)
  end)
end)

describe("a blocked retreat with variant blocked_retreat_stays", function()
  scenario("scenarios/range.yaml", { variant = "blocked_retreat_stays" })

  it("costs nothing: the unit stays", function()
    local x = unit("x", "central", hex(5, 0))
    expect({ cc.retreat(x, 1, { blocked = params.retreat.blocked }) }):to_equal({ 0, 0 })
    expect(x.strength):to_be(4)
  end)

  it("from a reserve artillery flag costs nothing either", function()
    local x = unit("x", "central", hex(5, 4))
    unit("b1", "central", hex(5, 3))
    unit("b2", "central", hex(6, 3))
    dice.force("targeting", { 1, 1 }) -- hex 1 (6,3) is b2
    dice.force("battle", { "flag", "hq", "hq", "hq" })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(5, 4), card = "bombard", hq = 2 }
    expect(rec.shelled[1].retreat):to_be(0)
    expect(rec.shelled[1].retreat_losses):to_be(0)
    expect(rec.figures_lost):to_be(0)
    expect(x.strength):to_be(4)
  end)
end)

describe("retreats with variant long_retreats", function()
  scenario("scenarios/range.yaml", { variant = "long_retreats" })

  it("go two hexes per flag", function()
    local x = world:add_unit{ id = "x", side = "central", type = "infantry", hex = hex(5, 4) }
    dice.force("targeting", { 2, 2 }) -- hex 2 (6,4) stays empty
    dice.force("battle", { "flag", "hq" })
    answers{ hex(5, 3), hex(5, 2) }
    local rec = reserve_artillery.fire{ side = "allies", target = hex(5, 4), card = "bombard", hq = 2 }
    expect(rec.shelled[1].retreat):to_be(2)
    expect(x.hex):to_be(hex(5, 2))
  end)
end)
