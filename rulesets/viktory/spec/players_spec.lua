-- Players in turn order ([Base]: 2 to 8 players in seat order; [Ours]:
-- overwatch with several players asks them in turn order after the mover).
-- The seats are the sides' `seat` pools; sides without one come after,
-- by name. Board: scripts/viktory/mountain_pass.yaml (seats A 1, B 2,
-- C 3), B to play; here the seats are changed so that the turn order is
-- not the names' order.

scenario("viktory/mountain_pass.yaml")

local events = require("spec/support/events")
local decisions, refused = events.decisions, events.refused

describe("seat order [Base]", function()
  it("orders the players by seat, not by name", function()
    world:set_pool("B", "seat", 1)
    world:set_pool("A", "seat", 2)
    world:set_pool("C", "seat", 3)
    expect(viktory.players()):to_equal({ "B", "A", "C" })
    expect(viktory.players_after("B")):to_equal({ "A", "C" })
    expect(viktory.players_after("C")):to_equal({ "B", "A" })
    expect(turn.finish()):to_be("A")
    expect(world:turn()):to_be(1)
    expect(turn.finish()):to_be("C")
    expect(turn.finish()):to_be("B")
    expect(world:turn()):to_be(2)
  end)

  it("puts sides without a seat after the seated ones, by name", function()
    world:set_pool("A", "seat", 0)
    world:set_pool("B", "seat", 0)
    world:set_pool("C", "seat", 5)
    expect(viktory.players()):to_equal({ "C", "A", "B" })
  end)

  it("puts sides without a seat after the seated ones, however high the seats", function()
    world:set_pool("A", "seat", 0)
    world:set_pool("B", "seat", 5000)
    world:set_pool("C", "seat", 1000)
    expect(viktory.players()):to_equal({ "C", "B", "A" })
  end)

  it("says so on a board without players, where there is no turn to finish or start", function()
    scenario("fixtures/no_players.yaml")
    refused(function() turn.finish() end, "there is no player's turn to finish: the scenario has no sides (Viktory has 2 to 8 players)")
    refused(function() turn.start() end, "there is no player to start a turn for: the scenario has no sides (Viktory has 2 to 8 players)")
  end)

  it("starts a named player's next turn: a new round when it sits before the current player, the same round after it", function()
    -- seats A 1, B 2, C 3; round 1, B to play
    expect(turn.start("C")):to_be("C")
    expect(world:turn()):to_be(1)
    expect(turn.start("A")):to_be("A")
    expect(world:turn()):to_be(2)
    turn.move("a_cav", hex(5, 7))
    expect(world:pool("A", "phase")):to_be(3)
    expect(turn.start("A")):to_be("A") -- the current player again: its own turn restarted, the same round
    expect(world:turn()):to_be(2)
    expect(world:pool("A", "phase")):to_be(1)
    expect(turn.moves_used(world:unit("a_cav"))):to_be(1)
    refused(function() turn.start("D") end, "rule error: there is no player 'D' (the players: A, B, C)")
  end)

  it("starts each player's turn in the bombard phase, and leaves the last one in reserve placement", function()
    turn.move("b_inf2", hex(6, 5))
    expect(world:pool("B", "phase")):to_be(3)
    turn.finish()
    expect(world:pool("B", "phase")):to_be(4)
    expect(world:pool("C", "phase")):to_be(1)
    expect(turn.phase()):to_be("bombard")
  end)
end)

describe("overwatch with several players [OW][Ours]", function()
  it("asks the threatened players in turn order after the mover: A before C when A sits next", function()
    world:set_pool("B", "seat", 1)
    world:set_pool("A", "seat", 2)
    world:set_pool("C", "seat", 3)
    world:add_unit{ id = "c_art", side = "C", type = "artillery", hex = hex(5, 1) }
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6, 5 })
    answers{ "now", "now" }
    turn.move("b_inf1", hex(5, 2)) -- next to the mountain (4,3) and to (5,1)
    local d = decisions()
    expect(#d):to_be(2)
    expect(d[1].side):to_be("A")
    expect(d[2].side):to_be("C")
    -- both shots are spent for B's turn; each is ready again on the next enemy turn
    expect(overwatch.spent(world:unit("a_art"))):to_be(true)
    expect(overwatch.spent(world:unit("c_art"))):to_be(true)
    turn.finish() -- A's turn: C's artillery is ready again
    expect(overwatch.spent(world:unit("c_art"))):to_be(false)
  end)

  it("gives each player's artillery one shot per enemy turn: C fires on B's turn and again on A's", function()
    world:add_unit{ id = "c_art", side = "C", type = "artillery", hex = hex(5, 1) }
    world:place("b_inf1", hex(6, 1))
    dice.force("d6", { 6, 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(6, 0)) -- next to (5,1) only
    turn.finish() -- C
    turn.finish() -- A
    world:place("a_inf1", hex(6, 1))
    answers{ "now" }
    turn.move("a_inf1", hex(5, 2)) -- next to (5,1); a_art is A's own
    local d = decisions()
    expect(#d):to_be(2)
    expect(d[1].side):to_be("C")
    expect(d[2].side):to_be("C")
  end)
end)
