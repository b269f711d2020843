-- The turn frame ([Base], turn.lua): moves within a unit's allowance, roads
-- ([Ours] bonus), frigates loading and landing (each a one-hex move of the
-- land unit), reserve placement. Board: scripts/viktory/mountain_pass.yaml,
-- B to play. The road runs (8,1) (7,1) (6,1) (5,2) (5,3) (5,4) (5,5).

scenario("viktory/mountain_pass.yaml")

local events = require("spec/support/events")
local decisions, refused = events.decisions, events.refused

describe("moves [Base]", function()
  it("never enters a hex holding a single enemy piece", function()
    world:place("b_inf1", hex(7, 6))
    refused(function() turn.move("b_inf1", hex(6, 7)) end, "b_inf1 cannot move into (6,7): enemy pieces hold it (attack it with battle.declare)")
  end)

  it("refuses unknown units, towns, other players' units and off-map steps, on the caller's line", function()
    refused(function() turn.move("b_nobody", hex(6, 5)) end, "no unit with id 'b_nobody'")
    refused(function() turn.move(nil, hex(6, 5)) end, "a unit (or its id) is required")
    refused(function() turn.move("b_town", hex(5, 2)) end, "b_town is a town: towns and cities do not move")
    refused(function() turn.move("a_cav", hex(7, 6)) end, "a_cav belongs to A, but it is B's turn")
    refused(function() turn.move("b_inf2", hex(6, 9)) end, "b_inf2 cannot move to (6,9): off the map")
    expect(turn.allowance(world:unit("b_town"))):to_be(0)
    refused(function() turn.move("b_inf2", hex(6, 6)) end, "b_inf2 cannot move to (6,6): not adjacent to (6,4)")
    viktory.lose("b_inf1", "test")
    refused(function() turn.move("b_inf1", hex(6, 2)) end, "b_inf1 is not on the map")
    turn.finish() -- C
    refused(function() turn.move("c_inf2", hex(3, 6)) end, "c_inf2 is aboard c_frig: unload it with turn.unload")
  end)

  it("checks a path without moving: the whole move fits, a hex more is refused on the caller's line", function()
    local b_inf1 = world:unit("b_inf1") -- at (7,2), an infantry: 2 hexes
    turn.check_move(b_inf1, { hex(6, 2), hex(6, 3) })
    expect(b_inf1.hex):to_be(hex(7, 2))
    refused(function() turn.check_move(b_inf1, { hex(6, 2), hex(6, 3), hex(6, 4) }) end, "b_inf1 (infantry) needs 3 hexes but has 2 of 2 left")
    refused(function() turn.check_move(b_inf1, { hex(6, 2) }, 2) end, "b_inf1 (infantry) needs 3 hexes but has 2 of 2 left")
  end)

  it("gives the road bonus only to a move that starts on the road too", function()
    world:add_token(hex(6, 2), "road") -- b_inf1's hex (7,2) is not a road hex; its three steps are
    refused(function() turn.move("b_inf1", { hex(6, 2), hex(6, 1), hex(7, 1) }) end, "b_inf1 (infantry) needs 3 hexes but has 2 of 2 left")
    -- starting on the road at (8,1), a step off the road loses the bonus
    refused(function() turn.move("b_inf3", { hex(7, 1), hex(7, 0), hex(6, 0) }) end, "b_inf3 (infantry) needs 3 hexes but has 2 of 2 left")
    -- and one hex of bonus, not two: four road hexes are too many
    world:add_token(hex(9, 0), "road")
    world:place("b_inf3", hex(9, 0))
    refused(function() turn.move("b_inf3", { hex(8, 1), hex(7, 1), hex(6, 1), hex(6, 2) }) end, "b_inf3 (infantry) needs 4 hexes but has 3 of 3 left")
  end)
end)

describe("frigates [Base][Ours]", function()
  it("load a land unit for one hex of its move: one with a hex left boards, one with none does not", function()
    turn.finish() -- C
    world:place("c_inf1", hex(3, 6))
    turn.move("c_inf1", hex(3, 5)) -- one hex, to a hex next to the frigate at (2,6)
    expect(turn.load("c_inf1", "c_frig")):to_be(true) -- the second hex
    world:add_unit{ id = "c_inf4", side = "C", type = "infantry", hex = hex(4, 6) }
    turn.move("c_inf4", { hex(3, 6), hex(3, 5) })
    world:unit("c_frig").cargo = "c_inf2,c_inf3" -- room again
    refused(function() turn.load("c_inf4", "c_frig") end, "c_inf4 has no move left this turn to board a frigate")
  end)

  it("land a carried unit for one hex of its move, and the frigate's cargo empties", function()
    turn.finish() -- C
    world:place("c_frig", hex(2, 5))
    expect(turn.unload("c_inf2", hex(1, 5))):to_be(true)
    expect(turn.unload("c_inf3", hex(1, 5))):to_be(true)
    expect(world:unit("c_frig").cargo):to_be_nil()
    turn.move("c_inf2", hex(1, 4)) -- its second hex
    refused(function() turn.move("c_inf2", hex(0, 4)) end, "c_inf2 (infantry) needs 1 hexes but has 0 of 2 left")
  end)

  it("carry a unit that boarded with a hex left to land with it, and no further", function()
    turn.finish() -- C
    world:place("c_inf1", hex(3, 5))
    turn.load("c_inf1", "c_frig")
    expect(turn.unload("c_inf1", hex(3, 6))):to_be(true)
    refused(function() turn.move("c_inf1", hex(3, 7)) end, "c_inf1 (infantry) needs 1 hexes but has 0 of 2 left")
  end)

  it("land a unit only with a hex of its move left", function()
    turn.finish() -- C
    world:place("c_inf1", hex(3, 6))
    turn.move("c_inf1", hex(3, 5))
    turn.load("c_inf1", "c_frig") -- its second hex
    refused(function() turn.unload("c_inf1", hex(3, 6)) end, "c_inf1 has no move left this turn to land")
  end)

  it("neither load nor land after the reserve placement phase, and no unit moves after it", function()
    turn.finish() -- C
    world:place("c_inf1", hex(3, 5))
    turn.place_reserve("infantry", hex(1, 6))
    refused(function() turn.load("c_inf1", "c_frig") end, "the reserve placement phase ends the turn: no move after it")
    refused(function() turn.unload("c_inf2", hex(3, 6)) end, "the reserve placement phase ends the turn: no move after it")
    refused(function() turn.move("c_inf1", hex(3, 6)) end, "the reserve placement phase ends the turn: no move after it")
  end)

  it("refuse a unit that bombarded this turn, and other players' units, on the caller's line", function()
    world:place("c_inf1", hex(3, 5))
    refused(function() turn.load("c_inf1", "c_frig") end, "c_inf1 belongs to C, but it is B's turn")
    refused(function() turn.unload("c_inf2", hex(3, 6)) end, "c_frig belongs to C, but it is B's turn")
    turn.finish() -- C
    world:add_unit{ id = "c_art", side = "C", type = "artillery", hex = hex(3, 5) }
    world:place("b_inf2", hex(4, 4))
    dice.force("d6", { 6, 6 })
    battle.bombard{ unit = "c_art", target = hex(4, 4) }
    refused(function() turn.load("c_art", "c_frig") end, "c_art made a bombard attack this turn and cannot move afterwards")
  end)

  it("refuse what cannot board or land, on the caller's line", function()
    turn.finish() -- C
    refused(function() turn.load("c_town", "c_frig") end, "only land units board a frigate, not c_town (town)")
    world:add_unit{ id = "c_frig2", side = "C", type = "frigate", hex = hex(2, 5) }
    refused(function() turn.load("c_frig2", "c_frig") end, "only land units board a frigate, not c_frig2 (frigate)")
    refused(function() turn.load("c_inf1", "c_cav") end, "c_cav is not a frigate")
    refused(function() turn.load("c_inf1", "c_frig") end, "c_inf1 must stand on a hex next to c_frig at (2,6) to board it")
    refused(function() turn.load("b_inf1", "c_frig") end, "b_inf1 cannot board C's frigate c_frig")
    refused(function() turn.load("c_nobody", "c_frig") end, "no unit with id 'c_nobody'")
    refused(function() turn.load("c_inf1", "c_nobody") end, "no unit with id 'c_nobody'")
    refused(function() turn.unload("c_inf2", hex(4, 6)) end, "c_inf2 can only land on a land hex next to c_frig at (2,6)")
    refused(function() turn.unload("c_inf2", hex(2, 5)) end, "c_inf2 can only land on a land hex next to c_frig at (2,6)")
    refused(function() turn.unload("c_inf1", hex(1, 6)) end, "c_inf1 is not aboard a frigate")
    refused(function() turn.unload("c_nobody", hex(1, 6)) end, "no unit with id 'c_nobody'")
    world:add_unit{ id = "b_inf9", side = "B", type = "infantry", hex = hex(3, 6) }
    refused(function() turn.unload("c_inf2", hex(3, 6)) end, "c_inf2 cannot land on (3,6): enemy pieces hold it")
  end)
end)

describe("reserve placement [Base]", function()
  it("places several reserves, artillery too, each taking one from the pool", function()
    world:set_pool("B", "reserves", 3)
    local a = turn.place_reserve("artillery", hex(4, 2))
    expect(a.id):to_be("B_artillery_r1")
    expect(world:pool("B", "reserves")):to_be(2)
    local i1 = turn.place_reserve("infantry", hex(8, 2))
    local i2 = turn.place_reserve("infantry", hex(8, 2))
    expect(i1.id):to_be("B_infantry_r1")
    expect(i2.id):to_be("B_infantry_r2")
    expect(world:pool("B", "reserves")):to_be(0)
    expect(#decisions()):to_be(0) -- (4,2) is next to A's artillery: no overwatch
  end)

  it("places only infantry, cavalry or artillery, on the caller's line", function()
    refused(function() turn.place_reserve("frigate", hex(4, 2)) end, "reserves placed in towns and cities are infantry, cavalry or artillery, not frigate")
    refused(function() turn.place_reserve("infantry", hex(5, 3)) end, "holds none of B's")
  end)
end)

-- viktory.unit, viktory.violation and turn.enter_phase are public: a
-- designer's script may call them without the level argument the ruleset
-- passes, and the error must then name the script's line.
describe("helpers a designer's script may call [Base]", function()
  it("name the caller's line when given no level: a unit looked up, a rule error", function()
    refused(function() viktory.unit("b_nobody") end, "no unit with id 'b_nobody'")
    refused(function() viktory.unit(nil) end, "a unit (or its id) is required")
    refused(function() viktory.violation("a rule of the designer's own") end, "rule error: a rule of the designer's own")
  end)

  it("name the caller's line when given no level: a phase after the reserve placement phase", function()
    turn.place_reserve("infantry", hex(8, 2))
    refused(function() turn.enter_phase("move") end, "rule error: the reserve placement phase ends the turn: no move after it (call turn.finish())")
  end)

  it("name the caller's line when given no level: a phase out of the strict order", function()
    scenario("viktory/mountain_pass.yaml", { variant = "strict_order" })
    turn.enter_phase("move")
    refused(function() turn.enter_phase("bombard") end, "rule error: a bombard after the move phase: the turn goes bombard attacks, then battles, then other moves (turn.strict_order)")
  end)
end)
