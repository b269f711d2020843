-- Command card sections belong to the player who plays them: each side's
-- left flank is on its own left as it sits at its own baseline (the Command
-- & Colors convention; lib/cc board_section, side_sections,
-- in_side_section). The bombardment board names its sections from the
-- bottom edge: left = offset columns 0-4, centre 4-8, right 8-12. The allies
-- sit at the bottom, the central powers at the top.

local cc = require("lib/cc")

scenario("great_war/bombardment.yaml")

describe("a side's sections (lib/cc)", function()
  it("are the board's for the bottom side and mirrored for the top side", function()
    expect(cc.mirrored("allies")):to_be(false)
    expect(cc.mirrored("central")):to_be(true)
    expect(cc.board_section("allies", "left")):to_be("left")
    expect(cc.board_section("central", "left")):to_be("right")
    expect(cc.board_section("central", "right")):to_be("left")
    expect(cc.board_section("central", "centre")):to_be("centre")
  end)

  it("name a hex as each side sees it; a section line hex is in both", function()
    -- a6 at (7,5) is offset column 9: the board's right
    expect(cc.side_sections("allies", hex(7, 5))):to_equal({ "right" })
    expect(cc.side_sections("central", hex(7, 5))):to_equal({ "left" })
    expect(cc.in_side_section("central", hex(7, 5), "left")):to_be(true)
    expect(cc.in_side_section("central", hex(7, 5), "right")):to_be(false)
    -- c3 at (7,2) is offset column 8: the centre/right line
    expect(cc.side_sections("central", hex(7, 2))):to_equal({ "centre", "left" })
    expect(cc.in_side_section("central", hex(7, 2), "centre")):to_be(true)
  end)
end)

describe("the reserve artillery ordered by a section card", function()
  it("by the bottom side: Probe Right Flank reaches the board's right", function()
    dice.force("targeting", { 1 }) -- hex 1 of (9,2) is (10,1): empty
    local rec = reserve_artillery.fire{ side = "allies", target = "c5", card = "probe_right", hq = 1 }
    expect(rec.orders_used):to_be(1)
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = "c5", card = "probe_left", hq = 1 }
    end, "rule error: target (9,2) is in the right section, but Probe Left Flank orders the left section")
  end)

  it("by the top side: its Probe Left Flank reaches the board's right, not the board's left", function()
    world:set_current_side("central")
    dice.force("targeting", { 4 }) -- hex 4 of (7,5), firing down, is (8,4): empty
    local rec = reserve_artillery.fire{ side = "central", target = "a6", card = "probe_left", hq = 1 }
    expect(rec.target):to_be(hex(7, 5))
    expect(rec.orders_used):to_be(1)
    -- a5 at (0,7) is offset column 3: the board's left, central's right
    expect_error(function()
      reserve_artillery.fire{ side = "central", target = "a5", card = "probe_left", hq = 1 }
    end, "rule error: target (0,7) is in the right section (as central sees the board from the top), "
      .. "but Probe Left Flank orders the left section")
    expect(reserve_artillery.can_order("probe_right", hex(0, 7), "central")):to_be(true)
    expect(reserve_artillery.can_order("probe_right", hex(0, 7))):to_be(true) -- the side whose turn it is
    expect(reserve_artillery.can_order("probe_right", hex(0, 7), "allies")):to_be(false)
  end)
end)

describe("a side at a left or right baseline", function()
  scenario("scenarios/sideways.yaml")

  it("has no flanks among column sections: a clear error, for both sides", function()
    expect_error(function() cc.in_side_section("allies", hex(3, 3), "left") end,
      "allies has no left/centre/right flanks")
    expect_error(function() cc.board_section("central", "left") end, "'central' has the right baseline")
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = hex(3, 3), card = "probe_left", hq = 1 }
    end, "has the left baseline")
  end)

  it("may still fire with Artillery Bombard, which names no section", function()
    dice.force("targeting", { 1 })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(5, 4), card = "bombard", hq = 1 }
    expect(rec.order):to_equal({ 1 })
  end)
end)
