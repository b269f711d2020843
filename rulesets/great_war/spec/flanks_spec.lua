-- Boards with left and right baselines (scenarios/sideways.yaml: the allies
-- at the left edge, the central powers at the right). A left or right
-- baseline faces a hex side, so the template's arrow points straight at a
-- hex: template hex 1 is that hex whatever hex1_side says ([Combat],
-- reserve_artillery FIRST_DIR), and a retreat goes straight back or either
-- slant (lib/cc RETREAT_DIRS). Hex directions: 1 E, 2 SE, 3 SW, 4 W, 5 NW, 6 NE.

local cc = require("lib/cc")

local T = hex(5, 4)
local E, SE, SW, W, NW, NE = hex(6, 4), hex(5, 5), hex(4, 5), hex(4, 4), hex(5, 3), hex(6, 3)

-- The allies fire east at the right baseline: hex 1 is E, then clockwise.
local ALLIES_TEMPLATE = { on_target = T, arrow = "right", hex1_direction = 1, E, SE, SW, W, NW, NE }
-- The central powers fire west at the left baseline: hex 1 is W.
local CENTRAL_TEMPLATE = { on_target = T, arrow = "left", hex1_direction = 4, W, NW, NE, E, SE, SW }

local function put(id, side, at, strength)
  return world:add_unit{ id = id, side = side, type = "infantry", hex = at, strength = strength }
end

describe("the template on a flank board", function()
  scenario("scenarios/sideways.yaml")

  it("the left side fires at the right baseline: hex 1 is the hex straight ahead (east)", function()
    expect(reserve_artillery.template("allies", T)):to_equal(ALLIES_TEMPLATE)
    put("y", "central", E)
    dice.force("targeting", { 1 })
    dice.force("battle", { "burst" })
    local rec = reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 1 }
    expect(rec.shelled[1].hex):to_be(E)
    expect(world:unit("y").strength):to_be(3)
  end)

  it("the right side fires at the left baseline: hex 1 is west", function()
    expect(reserve_artillery.template("central", T)):to_equal(CENTRAL_TEMPLATE)
    expect(reserve_artillery.hex1_direction("central")):to_be(4)
  end)
end)

describe("the template on a flank board with hex 1 counterclockwise", function()
  scenario("scenarios/sideways.yaml", { variant = "left_handed_template" })

  it("is the same for both sides: a hex side has no left or right of the arrow", function()
    expect(params.reserve_artillery.hex1_side):to_be("counterclockwise")
    expect(reserve_artillery.template("allies", T)):to_equal(ALLIES_TEMPLATE)
    expect(reserve_artillery.template("central", T)):to_equal(CENTRAL_TEMPLATE)
  end)
end)

describe("retreats on a flank board", function()
  scenario("scenarios/sideways.yaml")

  -- Retreats a unit of `side` from T one hex, answering the choice with `answer`.
  local function retreat(side, answer)
    local u = put("u", side, T)
    answers{ answer }
    expect({ cc.retreat(u, 1, { by_side = world:opponent(side) }) }):to_equal({ 1, 0 })
    return u.hex
  end

  it("a left-side unit goes west by default, or south-west or north-west", function()
    expect(cc.retreat_directions("allies")):to_equal({ 4, 3, 5 })
    expect(retreat("allies", answers.default)):to_be(W)
  end)
  it("a left-side unit may go west", function() expect(retreat("allies", W)):to_be(W) end)
  it("a left-side unit may go south-west", function() expect(retreat("allies", SW)):to_be(SW) end)
  it("a left-side unit may go north-west", function() expect(retreat("allies", NW)):to_be(NW) end)
  it("but not away from its baseline", function()
    expect_error(function() retreat("allies", E) end, "is not one of the options")
  end)

  it("a right-side unit goes east by default, or south-east or north-east", function()
    expect(cc.retreat_directions("central")):to_equal({ 1, 2, 6 })
    expect(retreat("central", answers.default)):to_be(E)
  end)
  it("a right-side unit may go east", function() expect(retreat("central", E)):to_be(E) end)
  it("a right-side unit may go south-east", function() expect(retreat("central", SE)):to_be(SE) end)
  it("a right-side unit may go north-east", function() expect(retreat("central", NE)):to_be(NE) end)

  it("with one way open there is no question", function()
    local u = put("u", "central", T)
    put("b1", "allies", E)
    put("b2", "allies", NE)
    expect({ cc.retreat(u, 1, { by_side = "allies" }) }):to_equal({ 1, 0 })
    expect(u.hex):to_be(SE)
  end)
end)
