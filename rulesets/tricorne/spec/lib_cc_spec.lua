-- [Base] The shared Command & Colors helpers (lib/cc.lua) on tricorne's
-- boards. Tricorne's rules use lib/cc's retreat directions, terrain flag
-- effects and hits with a banner for the last block; these cases also pin
-- the helpers it loads without calling in its own rules (the generic
-- retreat, HQ tokens, the battle die's face positions, flanks), so that a
-- change to the shared library is noticed by this ruleset's specs as well
-- as by great_war's. On the field the Government retreats south-west or
-- south-east, the Jacobites north-west or north-east.

local cc = require("lib/cc")
local add = require("spec/support/units").add

scenario("scenarios/field.yaml")

describe("[Base] lib/cc: dice, terrain, flanks and HQ tokens", function()
  it("the battle die's symbols in the order dice.counts gives them", function()
    expect(cc.face_positions("battle")):to_equal({ infantry = 1, cavalry = 2, artillery = 3, sabre = 4, flag = 5 })
  end)

  it("terrain values: none for no terrain; a number under a combat's name is no sub-table", function()
    expect(cc.terrain_value(nil, "ranged", "ignore_flags")):to_be(0)
    expect(cc.terrain_value(ruleset.terrain.town, "ranged", "ignore_flags")):to_be(1)
    expect(cc.terrain_value(ruleset.terrain.woods, "ranged", "ignore_flags")):to_be(0)
    expect(cc.terrain_value({ ranged = { ignore_flags = 2 }, ignore_flags = 1 }, "ranged", "ignore_flags")):to_be(2)
  end)

  it("flanks: the Government sits at the bottom, the Jacobites at the top (mirrored)", function()
    expect(cc.mirrored("government")):to_be(false)
    expect(cc.mirrored("jacobite")):to_be(true)
    expect(cc.board_section("jacobite", "centre")):to_be("centre")
  end)

  it("one HQ token per symbol; none adds nothing", function()
    cc.collect_hq("government", 2, "spec")
    expect(world:pool("government", cc.HQ_POOL)):to_be(2)
    cc.collect_hq("government", 1, "spec")
    expect(world:pool("government", cc.HQ_POOL)):to_be(3)
    local before = #world:events(1000)
    cc.collect_hq("government", 0, "spec")
    expect(#world:events(1000)):to_be(before)
  end)
end)

describe("[Base] lib/cc: the generic retreat", function()
  it("goes towards the baseline, its owner choosing between two free hexes", function()
    local j = add("j", "jacobite", "regular", hex(5, 5))
    expect(cc.can_retreat_into(hex(5, 4))):to_be(true)
    expect(cc.can_retreat_into(hex(5, 5))):to_be(false) -- taken
    expect(cc.can_retreat_into(hex(5, -1))):to_be(false) -- off the map
    answers{ hex(6, 4), answers.default }
    expect({ cc.retreat(j, 2, { by_side = "government" }) }):to_equal({ 2, 0 })
    expect(j.hex):to_be(hex(6, 3)) -- north-west by default on the second step
  end)

  it("takes the one free hex unasked; a retreat of no hexes does nothing", function()
    local j = add("j", "jacobite", "regular", hex(5, 5))
    add("b", "jacobite", "regular", hex(5, 4))
    expect({ cc.retreat(j, 0) }):to_equal({ 0, 0 })
    expect({ cc.retreat(j, 1) }):to_equal({ 1, 0 })
    expect(j.hex):to_be(hex(6, 4))
  end)

  it("blocked: a block lost per hex not taken, with its reason; the last gives the opponent a banner", function()
    local j = add("j", "jacobite", "regular", hex(5, 1))
    world:set_terrain(hex(6, 0), "river") -- impassable
    expect({ cc.retreat(j, 3, { by_side = "government", reason = "shelled" }) }):to_equal({ 1, 2 })
    expect(j.hex):to_be(hex(5, 0))
    expect(j.strength):to_be(2)
    expect(world:events(1)[1].reason):to_be("shelled: retreat blocked")
    expect({ cc.retreat(j, 2) }):to_equal({ 0, 2 })
    expect(j.alive):to_be(false)
    expect(world:pool("government", "medals")):to_be(1)
    expect(world:pool("jacobite", "medals")):to_be(0)
  end)

  it("blocked with blocked = stay: it simply stays", function()
    local j = add("j", "jacobite", "regular", hex(5, 0))
    expect({ cc.retreat(j, 2, { blocked = "stay" }) }):to_equal({ 0, 0 })
    expect(j.strength):to_be(4)
  end)

  it("stops where a reaction stops it", function()
    local j = add("j", "jacobite", "regular", hex(5, 5))
    on("enters", function(u)
      world:place(u, hex(0, 5))
    end)
    answers{ hex(5, 4) }
    expect({ cc.retreat(j, 2, { by_side = "government" }) }):to_equal({ 0, 0 })
    expect(j.hex):to_be(hex(0, 5))
  end)
end)

describe("[Base] lib/cc on a board turned sideways", function()
  scenario("scenarios/sideways.yaml")

  it("a left or right baseline has three directions back: straight back or either slant", function()
    local g = add("g", "government", "regular", hex(5, 5))
    local j = add("j", "jacobite", "regular", hex(8, 5))
    expect(cc.retreat_directions("government")):to_equal({ 4, 3, 5 })
    expect(cc.retreat_directions("jacobite")):to_equal({ 1, 2, 6 })
    answers{ hex(4, 6) }
    expect({ cc.retreat(g, 1, { by_side = "jacobite" }) }):to_equal({ 1, 0 })
    expect(g.hex):to_be(hex(4, 6))
    answers{ answers.default }
    expect({ cc.retreat(j, 1, { by_side = "government" }) }):to_equal({ 1, 0 })
    expect(j.hex):to_be(hex(9, 5)) -- straight back, east, by default
    world:place(j, hex(8, 5))
    answers{ hex(8, 6) }
    expect({ cc.retreat(j, 1, { by_side = "government" }) }):to_equal({ 1, 0 })
    expect(j.hex):to_be(hex(8, 6)) -- south-east
    world:place(j, hex(8, 5))
    answers{ hex(9, 4) }
    expect({ cc.retreat(j, 1, { by_side = "government" }) }):to_equal({ 1, 0 })
    expect(j.hex):to_be(hex(9, 4)) -- north-east
  end)

  it("with a third side, the banner for a unit's last block goes to the side that hit it", function()
    -- the sides in order: french, government, jacobite; the French's first
    -- other side is the Government, but here the Jacobites eliminate them
    local j = add("j", "jacobite", "regular", hex(4, 5))
    j.ordered = true
    add("f", "french", "regular", hex(6, 5), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "j", target = "f" }.eliminated):to_be(true)
    expect(world:pool("jacobite", "medals")):to_be(1)
    expect(world:pool("government", "medals")):to_be(0)
    -- a blocked retreat's last block: the banner to the side named by_side,
    -- not to the Jacobites' first other side (the French)
    local j2 = add("j2", "jacobite", "regular", hex(8, 5), { strength = 1 })
    world:place(j2, hex(10, 5)) -- the right edge, the Jacobites' own baseline: no hex back
    expect({ cc.retreat(j2, 1, { by_side = "government" }) }):to_equal({ 0, 1 })
    expect(world:pool("government", "medals")):to_be(1)
    expect(world:pool("french", "medals")):to_be(0)
  end)

  it("a side without a baseline neither retreats nor has flanks; a side on the left or right has no flanks", function()
    local f = add("f", "french", "regular", hex(6, 5))
    expect({ cc.retreat(f, 0) }):to_equal({ 0, 0 })
    expect_error(function() cc.retreat(f, 1) end, "side 'french' has no baseline, so its units cannot retreat")
    expect_error(function() cc.mirrored("french") end, "side 'french' has no baseline, so its left and right flanks are unknown")
    expect_error(function() cc.side_sections("french", hex(6, 5)) end, "side 'french' has no baseline, so its left and right flanks")
    expect_error(function() cc.in_side_section("french", hex(6, 5), "left") end, "side 'french' has no baseline, so its left")
    expect_error(function() cc.mirrored("government") end, "side 'government' has the left baseline, but the map's sections are ranges of columns")
    expect_error(function() cc.board_section("jacobite", "left") end, "side 'jacobite' has the right baseline")
  end)
end)
