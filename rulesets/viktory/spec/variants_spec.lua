-- Variants of the overwatch and artillery rules (ruleset.yaml variants:).
-- Each case loads the scenario with its variant; they live in their own
-- file because a variant loaded inside a case stays in force for the
-- file's later cases.

local refused = require("spec/support/events").refused

describe("overwatch.targets = mover (variant overwatch_mover_only)", function()
  it("lets overwatch hits fall only on the unit that moved", function()
    scenario("viktory/mountain_pass.yaml", { variant = "overwatch_mover_only" })
    world:place("b_inf1", hex(6, 2))
    world:place("b_art", hex(6, 3))
    battle.declare{ target = hex(5, 3), attackers = { "b_art", "b_inf1" } }
    dice.force("d6", { 3, 2 })
    answers{ "wait", "now" }
    battle.move_in("b_art")
    battle.move_in("b_inf1") -- two hits, but only b_inf1 can take one: no casualty choice
    expect(world:unit("b_inf1").alive):to_be(false)
    expect(world:unit("b_art").alive):to_be(true)
  end)
end)

describe("overwatch.targets = hex (variant overwatch_whole_hex)", function()
  it("lets overwatch hits fall on any of the mover's units in the entered hex, those there before too", function()
    scenario("viktory/mountain_pass.yaml", { variant = "overwatch_whole_hex" })
    world:place("b_inf1", hex(6, 2))
    world:place("b_inf3", hex(6, 1))
    answers{ "wait" }
    turn.move("b_inf1", hex(5, 2))
    dice.force("d6", { 1 })
    answers{ "now", "b_inf1" }
    turn.move("b_inf3", hex(5, 2))
    expect(world:unit("b_inf1").alive):to_be(false)
    expect(world:unit("b_inf3").alive):to_be(true)
  end)

  it("counts an attacker that moved in on an earlier turn, its battle never resolved, with a new attack's", function()
    scenario("viktory/mountain_pass.yaml", { variant = "overwatch_whole_hex" })
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = hex(5, 3), attackers = { "b_inf1" } }
    answers{ "wait" }
    battle.move_in("b_inf1") -- and B never resolves the battle
    turn.finish() -- C
    turn.finish() -- A
    turn.finish() -- B again, round 2
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = hex(5, 3), attackers = { "b_inf2" } }
    dice.force("d6", { 6, 6 })
    answers{ "now" }
    battle.move_in("b_inf2")
    local d = require("spec/support/events").decisions()
    expect(d[2].request.targets):to_equal({ "b_inf1", "b_inf2" })
  end)

  it("never on a town or city: a unit moving into its own town next to the artillery takes the hit", function()
    scenario("viktory/mountain_pass.yaml", { variant = "overwatch_whole_hex" })
    world:place("b_inf1", hex(5, 1))
    dice.force("d6", { 3 })
    answers{ "now" } -- one target, b_inf1: no casualty question
    expect(turn.move("b_inf1", hex(4, 2))):to_be(false)
    expect(world:unit("b_town").alive):to_be(true)
  end)
end)

describe("the base game (variant base_game)", function()
  it("has artillery bombard with one die, and a 2 lets the owner pick", function()
    scenario("viktory/mountain_pass.yaml", { variant = "base_game" })
    dice.force("d6", { 2 })
    answers{ "a_inf1" }
    local rec = battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = hex(5, 3) }
    expect(rec.dice):to_be(1)
    local d
    for _, e in ipairs(world:events()) do
      if e.event == "decision" then
        d = e
      end
    end
    expect(d.side):to_be("A") -- a 2 is an ordinary hit: the owner picks
  end)

  it("has artillery fire one die before a battle", function()
    scenario("viktory/mountain_pass.yaml", { variant = "base_game" })
    world:place("b_art", hex(6, 6)) -- beside A's lone cavalry at (6,7)
    dice.force("d6", { 5, 6, 2 }) -- pre-battle: one die, a miss; round 1: b_art misses, a_cav hits
    local rec = battle.attack{ target = hex(6, 7), attackers = { "b_art" } }
    expect(rec.lines[1]):to_be("pre-battle fire: B 1 dice, 0 hits; A 0 dice, 0 hits")
    expect(rec.rounds):to_be(1)
  end)

  it("has no overwatch", function()
    scenario("viktory/mountain_pass.yaml", { variant = "base_game" })
    world:place("b_inf1", hex(6, 2))
    turn.move("b_inf1", hex(5, 2)) -- no question asked
    expect(overwatch.spent(world:unit("a_art"))):to_be(false)
  end)
end)

describe("strict turn order (variant strict_order)", function()
  it("refuses a bombard attack after a move", function()
    scenario("viktory/mountain_pass.yaml", { variant = "strict_order" })
    turn.move("b_inf2", hex(6, 5))
    refused(function() battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = hex(5, 3) } end, "rule error: a bombard after the move phase")
  end)

  it("allows bombard attacks, then battles, then moves, and several of each in a row", function()
    scenario("viktory/mountain_pass.yaml", { variant = "strict_order" })
    dice.force("d6", { 6, 6 })
    battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = hex(5, 3) }
    battle.declare{ target = hex(5, 3), attackers = { "b_inf1" }, paths = { b_inf1 = { hex(6, 2) } } }
    answers{ "wait" }
    battle.move_in("b_inf1")
    turn.move("b_inf2", hex(6, 5))
    turn.move("b_inf2", hex(7, 5))
    expect(turn.phase()):to_be("move")
  end)

  it("refuses a bombard attack after a battle", function()
    scenario("viktory/mountain_pass.yaml", { variant = "strict_order" })
    battle.declare{ target = hex(5, 3), attackers = { "b_inf1" }, paths = { b_inf1 = { hex(6, 2) } } }
    refused(function() battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = hex(5, 3) } end, "rule error: a bombard after the battle phase")
  end)

  it("refuses a battle after a move", function()
    scenario("viktory/mountain_pass.yaml", { variant = "strict_order" })
    turn.move("b_inf2", hex(6, 5))
    refused(function() battle.declare{ target = hex(5, 3), attackers = { "b_inf1" }, paths = { b_inf1 = { hex(6, 2) } } } end, "rule error: a battle after the move phase")
  end)
end)
