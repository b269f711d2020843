-- Base-game facts the overwatch document assumes ([Base], viktory.lua,
-- turn.lua, battle.lua): d6 hits on 1-3, Tactical Victory on a 1, moves,
-- frigates, turn order, the reserve placement phase, defence dice.
-- Board: scripts/viktory/mountain_pass.yaml, B to play.

scenario("viktory/mountain_pass.yaml")

local TOWN = hex(5, 3)

local decisions = require("spec/support/events").decisions

describe("dice [Base]", function()
  it("hits on 1 to 3 of a d6", function()
    dice.force("d6", { 1, 2, 3, 4, 5, 6 })
    local hits, selective = viktory.roll(6, "test")
    expect(hits):to_be(3)
    expect(selective):to_be(1)
  end)

  it("lets the firer pick on a 1 (Tactical Victory) and the owner on a 2 or 3", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_inf2", hex(6, 3))
    world:place("a_art", hex(6, 6)) -- out of the way: no overwatch here
    battle.declare{ target = TOWN, attackers = { "b_inf1", "b_inf2" } }
    battle.move_in("b_inf1")
    battle.move_in("b_inf2")
    dice.force("d6", {
      1, 2, -- B: a Tactical Victory (B picks) and an ordinary hit (A picks)
      6, 6, 6, -- A misses
    })
    answers{ "a_inf2" }
    local rec = battle.resolve(TOWN)
    local d = decisions()
    expect(d[1].side):to_be("B")
    expect(d[1].request.chooser):to_be("firer")
    expect(#d):to_be(1) -- the second hit has one unit left to take it: no choice
    expect(rec.winner):to_be("B")
  end)
end)

describe("moves [Base]", function()
  it("lets infantry and artillery move 2, cavalry 3 and frigates 5", function()
    expect(turn.allowance(world:unit("b_inf1"))):to_be(2)
    expect(turn.allowance(world:unit("b_art"))):to_be(2)
    expect(turn.allowance(world:unit("a_cav"))):to_be(3)
    expect(turn.allowance(world:unit("c_frig"))):to_be(5)
    turn.move("b_inf2", { hex(6, 5), hex(7, 5) })
    expect_error(function()
      turn.move("b_inf2", hex(8, 5))
    end, "needs 1 hexes but has 0 of 2 left")
  end)

  it("moves step by step over several calls within the allowance", function()
    turn.finish() -- C
    turn.finish() -- A
    turn.move("a_cav", hex(7, 6))
    turn.move("a_cav", hex(7, 5))
    turn.move("a_cav", hex(8, 4))
    expect_error(function()
      turn.move("a_cav", hex(8, 3))
    end, "has 0 of 3 left")
  end)

  it("keeps land units off water and frigates off land", function()
    expect_error(function()
      turn.move("b_inf3", { hex(7, 1), hex(6, 1), hex(5, 1), hex(4, 1) })
    end, "b_inf3 cannot enter water hex (4,1) (land units cross water aboard a frigate: turn.load)")
    turn.finish()
    expect_error(function()
      turn.move("c_frig", hex(3, 6))
    end, "c_frig is a frigate and cannot enter land hex (3,6)")
    answers{ "wait", "wait" } -- the frigate passes the mountain at (3,4) and (3,3)
    expect(turn.move("c_frig", { hex(2, 5), hex(3, 4), hex(3, 3), hex(3, 2), hex(4, 1) })):to_be(true) -- 5 hexes
    expect_error(function()
      turn.move("c_frig", hex(4, 0))
    end, "has 0 of 5 left")
  end)

  it("lets only the player whose turn it is move, and never into enemy pieces", function()
    expect_error(function()
      turn.move("c_inf1", hex(5, 4))
    end, "but it is B's turn")
    expect_error(function()
      turn.move("b_inf1", hex(6, 2))
      turn.move("b_inf1", TOWN)
    end, "enemy pieces hold it")
  end)
end)

describe("frigates [Base]", function()
  it("carry at most three land units", function()
    turn.finish() -- C
    world:place("c_inf1", hex(1, 6))
    expect(turn.load("c_inf1", "c_frig")):to_be(true)
    expect(world:unit("c_frig").cargo):to_be("c_inf2,c_inf3,c_inf1")
    world:add_unit{ id = "c_inf4", side = "C", type = "infantry", hex = hex(1, 6) }
    expect_error(function()
      turn.load("c_inf4", "c_frig")
    end, "c_frig already carries 3 units, its most (turn.frigate_capacity)")
  end)
end)

describe("the turn [Base]", function()
  it("goes round the players in seat order, a new round after the last", function()
    expect(world:current_side()):to_be("B")
    expect(turn.finish()):to_be("C")
    expect(turn.finish()):to_be("A")
    expect(world:turn()):to_be(2)
    expect(turn.finish()):to_be("B")
  end)

  it("allows bombard attacks after moves unless strict order is on (the order is a recommendation)", function()
    turn.move("b_inf2", hex(6, 5))
    dice.force("d6", { 6, 6 })
    battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = TOWN }
    expect(turn.phase()):to_be("move")
  end)

  it("ends with the reserve placement phase: no moves after it", function()
    turn.place_reserve("infantry", hex(4, 2))
    expect(turn.phase()):to_be("reserve")
    expect_error(function()
      turn.move("b_inf2", hex(6, 5))
    end, "the reserve placement phase ends the turn")
  end)

  it("places reserves only in the player's own towns and cities", function()
    expect_error(function()
      turn.place_reserve("infantry", TOWN)
    end, "reserves are placed in the player's own towns and cities; (5,3) holds none of B's")
    turn.place_reserve("cavalry", hex(8, 2))
    expect_error(function()
      turn.place_reserve("cavalry", hex(8, 2))
    end, "B has no reserve units left to place (pool 'reserves')")
  end)
end)

describe("defence dice [Ours]", function()
  it("gives the defender extra dice: town 1, city 2, forest 1, mountain 1, added up", function()
    expect(battle.defence_dice(TOWN, "A")):to_be(1)
    expect(battle.defence_dice(TOWN, "B")):to_be(0) -- not B's town
    expect(battle.defence_dice(hex(8, 2), "B")):to_be(2)
    expect(battle.defence_dice(hex(7, 4), "B")):to_be(1) -- forest
    expect(battle.defence_dice(hex(4, 3), "A")):to_be(1) -- mountain
    world:add_unit{ id = "a_town2", side = "A", type = "town", hex = hex(7, 4) }
    expect(battle.defence_dice(hex(7, 4), "A")):to_be(2)
  end)
end)
