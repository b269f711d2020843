-- Artillery dice ([ArtDice]): two dice each for bombard attacks and
-- pre-battle fire, every hit a Tactical Victory (the artillery's owner picks
-- the casualty). Board: scripts/viktory/mountain_pass.yaml, B to play.

scenario("viktory/mountain_pass.yaml")

local TOWN = hex(5, 3)

local events = require("spec/support/events")
local decisions, refused = events.decisions, events.refused

describe("bombard attacks [ArtDice][Base]", function()
  it("rolls two dice, and the firer picks the casualty even on a 3", function()
    dice.force("d6", { 3, 6 })
    answers{ "a_inf2" }
    local rec = battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = TOWN }
    expect(rec.dice):to_be(2)
    expect(rec.hits):to_be(1)
    expect(rec.lost):to_equal({ "a_inf2" })
    expect(require("spec/support/events").eliminated()):to_equal({ "a_inf2: b_art bombard attack" })
    local d = decisions()[1]
    expect(d.side):to_be("B")
    expect(d.id):to_be("viktory.casualty")
    expect(d.request.chooser):to_be("firer")
  end)

  it("is made only from an adjacent hex", function()
    expect_error(function()
      battle.bombard{ unit = "b_art", target = TOWN }
    end, "bombard attacks are made from an adjacent hex: (5,3) is not next to (7,3)")
  end)

  it("stops the artillery moving afterwards this turn", function()
    dice.force("d6", { 6, 6 })
    local rec = battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = TOWN }
    expect(tostring(rec)):to_be("bombard at (5,3) by B against A\n  b_art bombards (5,3): 2 dice, 0 hits")
    expect_error(function()
      turn.move("b_art", hex(6, 2))
    end, "b_art made a bombard attack this turn and cannot move afterwards")
    expect_error(function()
      battle.bombard{ unit = "b_art", target = TOWN }
    end, "b_art has already made its bombard attack this turn")
  end)

  it("may follow a move, the two within the artillery's move", function()
    turn.move("b_art", hex(7, 2)) -- one hex
    dice.force("d6", { 6, 6 })
    local rec = battle.bombard{ unit = "b_art", path = { hex(6, 2) }, target = TOWN } -- and the second
    expect(rec.fired):to_be(true)
    expect(world:unit("b_art").hex):to_be(hex(6, 2))
    turn.finish() -- C
    turn.finish() -- A
    turn.finish() -- B, round 2
    refused(function() battle.bombard{ unit = "b_art", path = { hex(6, 3), hex(6, 4), hex(5, 4) }, target = TOWN } end, "b_art (artillery) needs 3 hexes but has 2 of 2 left")
  end)

  it("hits only military units: a lone infantry in a town is the only casualty, with no choice to make", function()
    world:place("a_inf2", hex(6, 6)) -- a_inf1 stays alone with A's town
    dice.force("d6", { 3, 6 })
    local rec = battle.bombard{ unit = "b_art", path = hex(6, 3), target = TOWN } -- a path of one hex
    expect(rec.lost):to_equal({ "a_inf1" })
    expect(#decisions()):to_be(0)
    expect(world:unit("a_town").alive):to_be(true)
    expect(tostring(rec)):to_be("bombard at (5,3) by B against A\n  b_art bombards (5,3): 2 dice, 1 hits, lost a_inf1")
  end)

  it("needs enemy military units on the target hex, and an artillery or a frigate to make it", function()
    world:add_unit{ id = "a_town2", side = "A", type = "town", hex = hex(6, 2) }
    refused(function() battle.bombard{ unit = "b_art", path = { hex(7, 2) }, target = hex(6, 2) } end, "no enemy units on (6,2) to bombard")
    refused(function() battle.bombard{ unit = "b_inf1", target = hex(6, 2) } end, "b_inf1 is infantry: only artillery and frigates make bombard attacks")
    refused(function() battle.bombard{ unit = "b_nobody", target = hex(6, 2) } end, "no unit with id 'b_nobody'")
    refused(function() battle.bombard{ unit = "b_art", target = "x" } end, "battle.bombard needs target = a hex")
    refused(function() battle.bombard{ unit = "b_art", path = { hex(6, 9) }, target = hex(6, 2) } end, "b_art cannot move to (6,9): off the map")
  end)

  it("is not made after the reserve placement phase", function()
    turn.place_reserve("infantry", hex(4, 2))
    refused(function() battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = TOWN } end, "the reserve placement phase ends the turn: no bombard after it")
  end)

  it("by a frigate rolls battle.frigate_dice with ordinary hits: the owner picks on a 2", function()
    turn.finish() -- C
    turn.finish() -- A
    world:add_unit{ id = "a_frig", side = "A", type = "frigate", hex = hex(3, 2) }
    world:place("b_inf1", hex(4, 2))
    world:place("b_inf3", hex(4, 2))
    dice.force("d6", { 2 })
    answers{ "b_inf3" }
    local rec = battle.bombard{ unit = "a_frig", target = hex(4, 2) }
    expect(rec.dice):to_be(1)
    expect(rec.lost):to_equal({ "b_inf3" })
    expect(decisions()[1].side):to_be("B")
    expect(world:unit("b_town").alive):to_be(true) -- a town is never a casualty
  end)
end)

describe("pre-battle fire [ArtDice]", function()
  it("rolls two dice per artillery in the battle, every hit the firer's pick", function()
    world:place("b_art", hex(6, 3))
    world:place("b_inf1", hex(6, 2))
    world:add_unit{ id = "a_art2", side = "A", type = "artillery", hex = TOWN }
    battle.declare{ target = TOWN, attackers = { "b_art", "b_inf1" } }
    answers{ "wait", "wait", "wait", "wait" } -- a_art (on the mountain) and a_art2 (in the town) let both move in
    battle.move_in("b_art")
    battle.move_in("b_inf1")
    dice.force("d6", {
      1, 3, -- B's pre-battle fire: two hits, B picks both
      2, 6, -- A's pre-battle fire (a_art2): one hit, A picks
      5, -- round 1: B's b_inf1 misses
      6, 6, -- A's last infantry and the town: miss
      1, -- round 2: b_inf1 hits a_inf2, the last defender
      6, 6,
    })
    answers{ "a_art2", "a_inf1", "b_art" }
    local rec = battle.resolve(TOWN)
    expect(rec.prebattle):to_equal({ attacker_dice = 2, attacker_hits = 2, defender_dice = 2, defender_hits = 1 })
    local d = decisions()
    expect(d[5].side):to_be("B")
    expect(d[6].side):to_be("B")
    expect(d[7].side):to_be("A")
    expect(rec.winner):to_be("B")
    expect(rec.rounds):to_be(2)
    -- B takes the town: A's town piece is replaced by one of B's
    expect(world:unit("a_town").alive):to_be(false)
    expect(world:unit("B_town_1").hex):to_be(TOWN)
  end)

end)
