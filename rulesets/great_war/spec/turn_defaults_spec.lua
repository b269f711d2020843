-- lib/cc_turn's own defaults, for a ruleset that sets no `cc_turn` params and
-- no `move` for its unit types (a ruleset of two unit types,
-- spec/scenarios/bare, stands in for one): 6 victory banners win, hands are
-- of 5 cards, an ordered unit moves 1 hex. And the frame refuses a battle
-- when the ruleset gave it no combat rule. (lib/README.md lists these
-- defaults; great_war's own values are pinned in strength_spec.)

local cc_turn = require("lib/cc_turn")

local CARDS = { scout = { kind = "section", section = "left", orders = 1, count = 20 } }

describe("the turn frame in a ruleset without its params", function()
  it("plays to 6 banners, deals hands of 5, and moves a unit 1 hex", function()
    scenario("scenarios/bare/scenario.yaml")
    expect(params.cc_turn):to_be(nil)
    local g = cc_turn.new{ cards = CARDS, combat = function() end }
    expect(g.victory):to_be(6)
    expect(#g.hands.blue):to_be(5)
    expect(#g.hands.red):to_be(5)
    expect(g:movement(world:unit("b1"))):to_be(1)
  end)

  it("is built with no options at all, and then refuses a battle for want of a combat rule", function()
    scenario("scenarios/bare/scenario.yaml")
    local g = cc_turn.new()
    expect_error(function() g:battle("b1") end, "the ruleset gives no combat rule")
  end)
end)
