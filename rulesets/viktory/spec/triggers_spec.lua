-- What triggers overwatch and what does not ([OW-trigger]), and who answers
-- first with several players ([Ours]). Board: scripts/viktory/mountain_pass.yaml
-- (a_art on the mountain (4,3); water (3,3) and (3,4) beside it; B's town
-- (4,2) beside it; a road (8,1) (7,1) (6,1) (5,2) (5,3) ...). B to play.

scenario("viktory/mountain_pass.yaml")

local events = require("spec/support/events")
local decisions = events.decisions

local function rolls()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "roll" then
      table.insert(out, e.reason .. " (" .. e.n .. ")")
    end
  end
  return out
end

describe("moving out [OW-trigger]", function()
  it("is not triggered by a unit moving out of an adjacent hex to a more distant one", function()
    world:place("b_inf1", hex(5, 2)) -- placed next to the mountain (no move, no trigger)
    turn.move("b_inf1", { hex(6, 1), hex(7, 1) })
    expect(#decisions()):to_be(0) -- strict: an unexpected question would fail the case
    expect(overwatch.spent(world:unit("a_art"))):to_be(false)
  end)

  it("is triggered by a move from one adjacent hex to another", function()
    world:place("b_inf1", hex(5, 2))
    answers{ "wait" }
    turn.move("b_inf1", hex(4, 2)) -- into B's own town, still next to the mountain
    expect(#decisions()):to_be(1)
    expect(decisions()[1].request.dice):to_be(1) -- B's town is no friendly piece of A's
    expect(decisions()[1].request.near):to_be("no friendly piece")
  end)
end)

-- The hexes a unit's moves entered, in order (the log's move events).
local function steps(id)
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "move" and e.unit == id then
      table.insert(out, tostring(e.to))
    end
  end
  return out
end

-- "Overwatch takes place immediately upon a unit triggering it by
-- movement": every step into a watched hex is a trigger of its own, and a
-- hit that destroys the mover ends its move there.
describe("a move through several watched hexes [OW-trigger][OW-wait]", function()
  it("asks again at each watched hex of one move: A waits at the first and fires at the second", function()
    world:place("b_inf1", hex(6, 1)) -- two hexes from the mountain
    dice.force("d6", { 2 })
    answers{ "wait", "now" } -- (5,2), then B's town (4,2): both next to the mountain
    expect(turn.move("b_inf1", { hex(5, 2), hex(4, 2) })):to_be(false)
    local d = decisions()
    expect(#d):to_be(2)
    expect(d[1].request.hex):to_be(hex(5, 2))
    expect(d[2].request.hex):to_be(hex(4, 2))
    expect(d[2].request.mover):to_be("b_inf1")
    expect(d[2].request.dice):to_be(1)
    expect(steps("b_inf1")):to_equal({ "(5,2)", "(4,2)" })
    expect(events.eliminated()):to_equal({ "b_inf1: overwatch by a_art" })
  end)

  it("ends the move where a hit destroys the mover: it never takes the rest of its path", function()
    world:place("b_inf1", hex(6, 1))
    dice.force("d6", { 1 })
    answers{ "now" }
    expect(turn.move("b_inf1", { hex(5, 2), hex(4, 2) })):to_be(false)
    expect(#decisions()):to_be(1) -- not asked again at (4,2): b_inf1 never got there
    expect(steps("b_inf1")):to_equal({ "(5,2)" })
    expect(world:unit("b_inf1").hex):to_be_nil()
  end)

  it("sinks a frigate in the middle of its move: it and its cargo never reach the next hex", function()
    turn.finish() -- C's turn; c_frig at (2,6) carries c_inf2 and c_inf3
    dice.force("d6", { 3 })
    answers{ "now" } -- (3,4), water next to the mountain: one die, a hit
    expect(turn.move("c_frig", { hex(2, 5), hex(3, 4), hex(3, 3) })):to_be(false)
    expect(steps("c_frig")):to_equal({ "(2,5)", "(3,4)" })
    expect(#decisions()):to_be(1)
    for _, id in ipairs({ "c_frig", "c_inf2", "c_inf3" }) do
      expect(world:unit(id).alive):to_be(false)
    end
  end)

  it("goes on after a miss; an artillery that fired is not asked again, another player's is asked at its own hex", function()
    world:add_unit{ id = "c_art", side = "C", type = "artillery", hex = hex(5, 1) }
    world:place("b_inf1", hex(7, 1)) -- on the road
    dice.force("d6", { 6, 5 })
    answers{ "now", "now" }
    -- (6,1) is next to c_art only; (5,2) next to both c_art and the mountain
    local arrived, shots = turn.move("b_inf1", { hex(6, 1), hex(5, 2) })
    expect(arrived):to_be(true)
    local d = decisions()
    expect(#d):to_be(2)
    expect(d[1].side):to_be("C")
    expect(d[1].request.hex):to_be(hex(6, 1))
    expect(d[2].side):to_be("A")
    expect(d[2].request.hex):to_be(hex(5, 2))
    expect(tostring(shots)):to_be("c_art overwatch at b_inf1 in (6,1): 1 die [6], 0 hits\n"
      .. "a_art overwatch at b_inf1 in (5,2): 1 die [5], 0 hits")
    expect(steps("b_inf1")):to_equal({ "(6,1)", "(5,2)" })
  end)
end)

describe("roads [OW-trigger]", function()
  it("is triggered by a unit moving along a road past the artillery", function()
    -- three road hexes: infantry moves 2, +1 along a road (turn.road_bonus)
    dice.force("d6", { 3 })
    answers{ "now" }
    expect(turn.move("b_inf3", { hex(7, 1), hex(6, 1), hex(5, 2) })):to_be(false)
    expect(rolls()):to_equal({ "overwatch by a_art at b_inf3 (1)" })
  end)

  it("gives the road bonus only when every step runs along road hexes", function()
    expect_error(function()
      turn.move("b_inf1", { hex(6, 2), hex(6, 1), hex(7, 0) })
    end, "needs 3 hexes but has 2 of 2 left")
  end)
end)

describe("reserve placement [OW-trigger]", function()
  it("is not triggered when a reserve is placed in a town next to the artillery", function()
    local u = turn.place_reserve("infantry", hex(4, 2))
    expect(u.hex):to_be(hex(4, 2))
    expect(u.side):to_be("B")
    expect(#decisions()):to_be(0)
    expect(world:pool("B", "reserves")):to_be(0)
  end)

  it("while a unit moving into the same town is a trigger, and a hit falls on the unit, never the town", function()
    world:place("b_inf1", hex(5, 1))
    dice.force("d6", { 3 })
    answers{ "now" } -- one die (B's town is no friendly piece of A's); the 3 hits, and b_inf1 is the only unit to take it
    expect(turn.move("b_inf1", hex(4, 2))):to_be(false)
    expect(#decisions()):to_be(1)
    expect(world:unit("b_town").alive):to_be(true)
  end)

  it("is not triggered by any move in the reserve placement phase, even one a script makes", function()
    turn.place_reserve("infantry", hex(8, 2))
    world:place("b_inf1", hex(6, 2))
    world:move("b_inf1", hex(5, 2)) -- next to the mountain
    expect(#decisions()):to_be(0)
    expect(overwatch.spent(world:unit("a_art"))):to_be(false)
  end)

  it("is not triggered by a unit of a player whose turn it is not (moved by a script)", function()
    world:place("c_inf1", hex(6, 2))
    world:move("c_inf1", hex(5, 2))
    expect(#decisions()):to_be(0)
  end)
end)

describe("frigates [OW-trigger]", function()
  it("is triggered by a unit loading onto a frigate in an adjacent hex, and fires at the unit, not the frigate", function()
    turn.finish() -- C's turn
    world:place("c_frig", hex(3, 4)) -- water next to the mountain, carrying c_inf2 and c_inf3
    world:place("c_inf1", hex(2, 4)) -- land two hexes from the mountain, next to the frigate
    dice.force("d6", { 1 })
    answers{ "now" }
    expect(turn.load("c_inf1", "c_frig")):to_be(false)
    local d = decisions()[1]
    expect(d.request.mover):to_be("c_inf1")
    expect(d.request.loading):to_be(true)
    expect(d.request.targets):to_equal({ "c_inf1" })
    expect(d.prompt):to_contain("c_inf1 (infantry, boarding c_frig)")
    expect(world:unit("c_inf1").alive):to_be(false)
    expect(world:unit("c_frig").alive):to_be(true)
    expect(world:unit("c_frig").cargo):to_be("c_inf2,c_inf3")
    expect(world:unit("c_inf2").strength):to_be(1)
  end)

  it("is not triggered by a unit next to the artillery boarding a frigate two hexes from it: that is moving out", function()
    world:add_unit{ id = "b_frig", side = "B", type = "frigate", hex = hex(3, 2) } -- water two hexes from the mountain
    world:place("b_inf1", hex(4, 2)) -- B's town, next to the mountain and to the frigate
    expect(turn.load("b_inf1", "b_frig")):to_be(true)
    expect(#decisions()):to_be(0)
    expect(world:unit("b_frig").cargo):to_be("b_inf1")
    expect(overwatch.spent(world:unit("a_art"))):to_be(false)
  end)

  it("lets the owner wait on the loading and sink the frigate as it moves to another adjacent hex", function()
    turn.finish()
    world:place("c_frig", hex(3, 4))
    world:place("c_inf1", hex(2, 4))
    dice.force("d6", { 2 })
    answers{ "wait", "now" }
    expect(turn.load("c_inf1", "c_frig")):to_be(true)
    expect(world:unit("c_frig").cargo):to_be("c_inf2,c_inf3,c_inf1")
    expect(world:unit("c_inf1").aboard):to_be("c_frig")
    expect(world:unit("c_inf1").hex):to_be_nil() -- aboard: off the map
    expect(turn.move("c_frig", hex(3, 3))):to_be(false) -- adjacent to adjacent: a trigger
    expect(decisions()[2].request.mover_type):to_be("frigate")
    expect(decisions()[2].request.carrying):to_be(3)
    expect(decisions()[2].request.targets):to_equal({ "c_frig" })
    for _, id in ipairs({ "c_frig", "c_inf1", "c_inf2", "c_inf3" }) do
      expect(world:unit(id).strength):to_be(0)
    end
    expect(events.eliminated()):to_equal({ "c_inf2: overwatch by a_art (aboard c_frig)",
      "c_inf3: overwatch by a_art (aboard c_frig)", "c_inf1: overwatch by a_art (aboard c_frig)",
      "c_frig: overwatch by a_art" })
  end)

  it("lands a unit that boarded earlier as a landing, not a boarding", function()
    turn.finish() -- C
    world:place("c_inf1", hex(3, 6))
    turn.load("c_inf1", "c_frig") -- far from the mountain
    turn.finish() -- A
    turn.finish() -- B
    turn.finish() -- C
    world:place("c_frig", hex(3, 4))
    answers{ "wait" }
    expect(turn.unload("c_inf1", hex(4, 4))):to_be(true)
    local d = decisions()[1]
    expect(d.request.mover):to_be("c_inf1")
    expect(d.request.loading):to_be(false)
    expect(d.prompt):to_contain("C's c_inf1 (infantry) moving next to it")
  end)

  it("is triggered by a unit landing from a frigate next to the artillery", function()
    turn.finish()
    world:place("c_frig", hex(3, 4))
    turn.move("c_frig", hex(2, 5)) -- no trigger: moving away
    expect(#decisions()):to_be(0)
    world:place("c_frig", hex(3, 4))
    answers{ "wait" }
    expect(turn.unload("c_inf2", hex(4, 4))):to_be(true) -- lands next to the mountain
    expect(#decisions()):to_be(1)
    expect(decisions()[1].prompt):to_be("overwatch now or wait? a_art at (4,3) can fire 1 die at C's c_inf2 (infantry) moving next to it, into a hex with no friendly piece (4,4); P(at least one hit) 50%, every hit a Tactical Victory on c_inf2")
    expect(world:unit("c_frig").cargo):to_be("c_inf3")
    answers{ "wait" }
    turn.move("c_frig", hex(3, 3)) -- from one adjacent hex to another, carrying one
    expect(decisions()[2].request.carrying):to_be(1)
    expect(decisions()[2].prompt):to_contain("C's c_frig (frigate carrying 1) moving")
  end)
end)

describe("carried artillery [OW][Base]", function()
  it("has no overwatch while aboard a frigate: it is off the map, defending no hex", function()
    world:add_unit{ id = "c_art", side = "C", type = "artillery", props = { aboard = "c_frig" } }
    world:unit("c_frig").cargo = "c_inf2,c_inf3,c_art"
    world:place("c_frig", hex(4, 1)) -- on the water passage, two hexes from the mountain
    world:place("b_inf1", hex(6, 1))
    turn.move("b_inf1", hex(5, 1)) -- next to the frigate's hex, not to a_art
    expect(#decisions()):to_be(0)
    expect(overwatch.status()):to_be(table.concat({
      "a_art (A) at (4,3): ready",
      "b_art (B) at (7,3): its own turn: no overwatch",
    }, "\n"))
  end)
end)

describe("several players [Ours]", function()
  it("asks every threatened player, in turn order after the mover: C before A on B's turn", function()
    world:add_unit{ id = "c_art", side = "C", type = "artillery", hex = hex(5, 1) }
    world:place("b_inf1", hex(6, 2))
    answers{ "wait", "wait" }
    turn.move("b_inf1", hex(5, 2)) -- next to both the mountain and (5,1)
    local d = decisions()
    expect(#d):to_be(2)
    expect(d[1].side):to_be("C")
    expect(d[2].side):to_be("A")
  end)

  it("asks no one after the mover is destroyed; the later artillery keep their overwatch", function()
    world:add_unit{ id = "c_art", side = "C", type = "artillery", hex = hex(5, 1) }
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 1 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2))
    expect(#decisions()):to_be(1)
    expect(overwatch.spent(world:unit("c_art"))):to_be(true)
    expect(overwatch.spent(world:unit("a_art"))):to_be(false)
  end)

  it("gives each artillery of one player its own shot, in id order", function()
    world:add_unit{ id = "a_art2", side = "A", type = "artillery", hex = hex(5, 1) }
    world:add_unit{ id = "a_a1", side = "A", type = "artillery", hex = hex(6, 1) } -- placed last, first by id
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6, 6, 6 })
    answers{ "now", "now", "now" }
    turn.move("b_inf1", hex(5, 2))
    expect(rolls()):to_equal({ "overwatch by a_a1 at b_inf1 (1)", "overwatch by a_art at b_inf1 (1)",
      "overwatch by a_art2 at b_inf1 (1)" })
  end)
end)

describe("map marks and status", function()
  it("are not drawn with overwatch.marks off: the scenario's marks stay", function()
    scenario("viktory/mountain_pass.yaml", { set = { ["overwatch.marks"] = false } })
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2))
    local labels = {}
    for _, m in ipairs(world:marks()) do
      labels[tostring(m.hex)] = m.label
    end
    expect(labels["(4,3)"]):to_be("W a_art ready")
  end)

  it("are cleared and not drawn when overwatch is not in play", function()
    scenario("viktory/mountain_pass.yaml", { variant = "base_game" })
    turn.finish()
    expect(#world:marks()):to_be(0)
  end)

  it("are redrawn when a shot is fired, not after a wait nor after another unit's step: a mark of a script's own stays till then", function()
    local function label_at(h)
      for _, m in ipairs(world:marks()) do
        if m.hex == h and m.label == "a script's mark" then
          return m.label
        end
      end
      return nil
    end
    world:mark(hex(6, 7), "a script's mark")
    world:place("b_inf1", hex(6, 2))
    answers{ "wait" }
    turn.move("b_inf1", hex(5, 2)) -- a trigger, and A waits
    expect(label_at(hex(6, 7))):to_be("a script's mark")
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(4, 2)) -- A fires: the marks are drawn again
    expect(label_at(hex(6, 7))):to_be_nil()
  end)

  it("follow an artillery that moves", function()
    world:move("a_art", hex(4, 4)) -- a script moves A's artillery on B's turn
    local labels = {}
    for _, m in ipairs(world:marks()) do
      labels[tostring(m.hex)] = m.label
    end
    expect(labels["(4,4)"]):to_be("W a_art ready")
    expect(labels["(4,3)"]):to_be("o a_art")
  end)

  it("says each artillery's overwatch state in overwatch.status()", function()
    world:add_unit{ id = "c_art", side = "C", type = "artillery", hex = hex(5, 1) }
    world:place("b_inf1", hex(6, 1))
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(6, 0)) -- next to c_art only
    expect(overwatch.status()):to_be(table.concat({
      "a_art (A) at (4,3): ready",
      "b_art (B) at (7,3): its own turn: no overwatch",
      "c_art (C) at (5,1): spent this turn",
    }, "\n"))
  end)
end)

describe("map marks", function()
  it("shows each defending artillery's ring and whether its overwatch is spent", function()
    overwatch.show()
    local labels = {}
    for _, m in ipairs(world:marks()) do
      labels[tostring(m.hex)] = m.label
    end
    expect(labels["(4,3)"]):to_be("W a_art ready")
    expect(labels["(3,4)"]):to_be("o a_art")
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2))
    labels = {}
    for _, m in ipairs(world:marks()) do
      labels[tostring(m.hex)] = m.label
    end
    expect(labels["(4,3)"]):to_be("X a_art spent")
    turn.finish() -- C's turn: ready again; B's artillery now shows too
    labels = {}
    for _, m in ipairs(world:marks()) do
      labels[tostring(m.hex)] = m.label
    end
    expect(labels["(4,3)"]):to_be("W a_art ready")
    expect(labels["(7,3)"]):to_be("W b_art ready")
  end)
end)
