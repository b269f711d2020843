-- Casualties ([Base], [ArtDice], [Ours]; viktory.take_losses): Tactical
-- Victory hits come first and the firer picks each casualty; the owner picks
-- for the other hits; by default (a player who takes the default) the firer
-- takes the dearest unit and the owner loses its cheapest, equal values by id.
-- Board: scripts/viktory/mountain_pass.yaml, B to play.

scenario("viktory/mountain_pass.yaml")

local events = require("spec/support/events")
local decisions, refused = events.decisions, events.refused

local function add(id, kind)
  return world:add_unit{ id = id, side = "B", type = kind, hex = hex(8, 4) }
end

describe("casualty choices [Base][Ours]", function()
  it("offers the firer the dearest units first and the owner its cheapest, and those are the defaults", function()
    local units = { add("bx_inf", "infantry"), add("by_cav", "cavalry"), add("bz_art", "artillery"), add("bw_cav", "cavalry") }
    answers{ answers.default, answers.default }
    local lost = viktory.take_losses{ units = units, hits = 2, selective = 1, firer = "A", owner = "B", reason = "test" }
    expect({ lost[1].id, lost[2].id }):to_equal({ "bz_art", "bx_inf" })
    local d = decisions()
    expect(d[1].side):to_be("A")
    expect(d[1].id):to_be("viktory.casualty")
    expect(d[1].request.chooser):to_be("firer")
    expect(d[1].default):to_be("bz_art")
    expect(d[1].prompt):to_be("Tactical Victory hit: pick B's unit lost (test)")
    expect(d[1].options):to_equal({ "bz_art", "bw_cav", "by_cav", "bx_inf" })
    expect(d[2].side):to_be("B")
    expect(d[2].request.chooser):to_be("owner")
    expect(d[2].default):to_be("bx_inf")
    expect(d[2].prompt):to_be("hit: pick your unit lost (test)")
    expect(d[2].options):to_equal({ "bx_inf", "bw_cav", "by_cav" })
    expect(world:unit("bz_art").alive):to_be(false)
    expect(world:unit("bw_cav").alive):to_be(true)
  end)

  it("tells a policy each choice's default in the request: the dearest for the firer, the cheapest for the owner", function()
    local units = { add("bx_inf", "infantry"), add("bz_art", "artillery") }
    policy("viktory.casualty", function(_, request)
      return request.default
    end)
    local lost = viktory.take_losses{ units = units, hits = 1, selective = 1, firer = "A", owner = "B", reason = "test" }
    expect(lost[1].id):to_be("bz_art")
    units = { add("by_inf", "infantry"), add("bw_art", "artillery") }
    lost = viktory.take_losses{ units = units, hits = 1, selective = 0, firer = "A", owner = "B", reason = "test" }
    expect(lost[1].id):to_be("by_inf")
  end)

  it("loses a unit by id, and refuses an unknown one on the caller's line", function()
    viktory.lose("b_inf1", "test")
    expect(world:unit("b_inf1").alive):to_be(false)
    refused(function() viktory.lose("b_nobody", "test") end, "no unit with id 'b_nobody'")
  end)

  it("asks no one when a hit has one unit to fall on, and stops when no unit is left", function()
    local units = { add("bx_inf", "infantry") }
    local lost = viktory.take_losses{ units = units, hits = 3, selective = 3, firer = "A", owner = "B", reason = "test" }
    expect(#lost):to_be(1)
    expect(#decisions()):to_be(0)
  end)

  it("places hits given without a Tactical Victory count as the owner's: the owner picks every one", function()
    local units = { add("bx_inf", "infantry"), add("bz_art", "artillery") }
    answers{ answers.default }
    local lost = viktory.take_losses{ units = units, hits = 1, firer = "A", owner = "B", reason = "test" }
    expect(lost[1].id):to_be("bx_inf")
    expect(decisions()[1].side):to_be("B")
    expect(decisions()[1].request.chooser):to_be("owner")
  end)

  it("sinks a frigate with the units aboard, but loses none twice: one a script already took off is not lost again", function()
    world:eliminate("c_inf2", "lost at sea") -- a designer's script; the frigate's cargo still names it
    viktory.lose("c_frig", "overwatch by a_art")
    expect(events.eliminated()):to_equal({ "c_inf2: lost at sea", "c_inf3: overwatch by a_art (aboard c_frig)",
      "c_frig: overwatch by a_art" })
  end)

  it("by default, an overwatch hit takes the dearest unit in the hex: B's artillery", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_art", hex(6, 3))
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = hex(5, 3), attackers = { "b_inf1", "b_art", "b_inf2" } }
    dice.force("d6", { 2, 6 })
    answers{ "wait", "wait", "now", answers.default }
    battle.move_in("b_inf1")
    battle.move_in("b_art")
    battle.move_in("b_inf2")
    expect(world:unit("b_art").alive):to_be(false)
    expect(decisions()[4].options):to_equal({ "b_art", "b_inf1", "b_inf2" })
  end)
end)
