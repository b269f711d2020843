-- Overwatch, clause by clause (rules document "Artillery Characteristics";
-- tags [OW], [OW-dice], [OW-wait], [OW-trigger], [Ours] in overwatch.lua).
-- Board: scripts/viktory/mountain_pass.yaml. A's artillery a_art is on the
-- mountain (4,3); around it: A's town (5,3) E, (4,4) SE, water (3,4) SW and
-- (3,3) W, B's town (4,2) NW, (5,2) NE (a road hex). It is B's turn.

scenario("viktory/mountain_pass.yaml")

local MOUNTAIN, TOWN = hex(4, 3), hex(5, 3)

local decisions = require("spec/support/events").decisions

local function overwatch_rolls()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "roll" and string.find(e.reason, "^overwatch") then
      table.insert(out, e.n)
    end
  end
  return out
end

local function art()
  return world:unit("a_art")
end

describe("overwatch dice [OW-dice]", function()
  it("rolls two dice when the enemy enters an adjacent hex with a friendly town", function()
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = TOWN, attackers = { "b_inf1" } }
    dice.force("d6", { 4, 5 })
    answers{ "now" }
    battle.move_in("b_inf1")
    expect(overwatch_rolls()):to_equal({ 2 })
    local d = decisions()[1]
    expect(d.id):to_be("overwatch")
    expect(d.side):to_be("A")
    expect(d.options):to_equal({ "now", "wait" })
    expect(d.default):to_be("now")
    expect(d.request.artillery):to_be("a_art")
    expect(d.request.mover):to_be("b_inf1")
    expect(d.request.mover_type):to_be("infantry")
    expect(d.request.dice):to_be(2)
    expect(d.request.near):to_be("friendly town")
    expect(d.request.p_hit):to_be(0.75)
    expect(d.request.hex):to_be(TOWN)
    expect(d.request.targets):to_equal({ "b_inf1" })
    expect(d.prompt):to_be("overwatch now or wait? a_art at (4,3) can fire 2 dice at B's b_inf1 (infantry) moving next to it, into a hex with a friendly town (5,3); P(at least one hit) 75%, every hit a Tactical Victory on b_inf1")
    expect(world:unit("b_inf1").alive):to_be(true) -- 4 and 5 miss
    expect(overwatch.spent(art())):to_be(true)
  end)

  it("the prompt rounds P(at least one hit) to the nearest percent", function()
    scenario("viktory/mountain_pass.yaml", { set = { ["viktory.hit_max"] = 2 } }) -- a die hits on 1-2
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = TOWN, attackers = { "b_inf1" } }
    dice.force("d6", { 4, 5 })
    answers{ "now" }
    battle.move_in("b_inf1")
    local d = decisions()[1]
    expect(d.request.p_hit):to_be_close(5 / 9, 1e-9) -- 55.6%
    expect(d.prompt):to_contain("P(at least one hit) 56%")
  end)

  it("rolls two dice when the enemy enters an adjacent hex holding a friendly unit", function()
    world:add_unit{ id = "a_inf3", side = "A", type = "infantry", hex = hex(4, 4) }
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = hex(4, 4), attackers = { "b_inf2" } }
    dice.force("d6", { 6, 3 })
    answers{ "now" }
    expect(battle.move_in("b_inf2")):to_be(false) -- the 3 hits
    expect(overwatch_rolls()):to_equal({ 2 })
    expect(decisions()[1].request.near):to_be("friendly unit")
    expect(decisions()[1].request.dice):to_be(2)
  end)

  it("rolls two dice when the enemy enters an adjacent hex holding a friendly city", function()
    world:add_unit{ id = "a_city", side = "A", type = "city", hex = hex(4, 4) }
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = hex(4, 4), attackers = { "b_inf2" } }
    dice.force("d6", { 6, 6 })
    answers{ "now" }
    battle.move_in("b_inf2")
    expect(overwatch_rolls()):to_equal({ 2 })
    expect(decisions()[1].request.near):to_be("friendly city")
  end)

  it("rolls two dice when the enemy enters the artillery's own hex", function()
    world:place("b_inf1", hex(5, 2))
    world:place("b_inf2", hex(4, 4))
    battle.declare{ target = MOUNTAIN, attackers = { "b_inf1" } }
    dice.force("d6", { 5, 6 })
    answers{ "wait", "now" }
    battle.declare{ target = MOUNTAIN, attackers = { "b_inf2" } }
    battle.move_in("b_inf1") -- waits
    battle.move_in("b_inf2") -- fires
    expect(overwatch_rolls()):to_equal({ 2 })
    expect(decisions()[2].request.near):to_be("own hex")
    expect(decisions()[2].request.dice):to_be(2)
    expect(decisions()[2].prompt):to_contain("moving into its own hex (4,3)")
  end)

  it("rolls one die when the enemy enters an adjacent hex with no friendly piece", function()
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 1 })
    answers{ "now" }
    expect(turn.move("b_inf1", hex(5, 2))):to_be(false)
    expect(overwatch_rolls()):to_equal({ 1 })
    expect(decisions()[1].request.dice):to_be(1)
    expect(decisions()[1].request.near):to_be("no friendly piece")
    expect(decisions()[1].request.p_hit):to_be(0.5)
    expect(decisions()[1].prompt):to_contain("can fire 1 die at")
  end)

  it("makes every overwatch hit a Tactical Victory: the artillery's owner picks, even on a 3", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_art", hex(6, 3))
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = TOWN, attackers = { "b_art", "b_inf1", "b_inf2" } }
    dice.force("d6", { 3, 6 })
    answers{ "wait", "wait", "now", "b_art" }
    battle.move_in("b_art")
    battle.move_in("b_inf1")
    battle.move_in("b_inf2")
    local d = decisions()[4]
    expect(d.side):to_be("A")
    expect(d.id):to_be("viktory.casualty")
    expect(d.request.chooser):to_be("firer")
    expect(world:unit("b_art").alive):to_be(false)
    expect(world:unit("b_inf2").alive):to_be(true)
  end)

end)

describe("one artillery's answer [OW-wait]", function()
  it("says whether it fired: not when the owner waits, and yes when it fires", function()
    world:place("b_inf1", hex(5, 2))
    answers{ "wait" }
    expect(overwatch.offer(art(), world:unit("b_inf1"), hex(5, 2))):to_be(false)
    expect(overwatch.spent(art())):to_be(false)
    dice.force("d6", { 6 })
    answers{ "now" }
    expect(overwatch.offer(art(), world:unit("b_inf1"), hex(5, 2))):to_be(true)
    expect(overwatch.spent(art())):to_be(true)
  end)
end)

describe("once per enemy player's turn [OW]", function()
  it("is spent for the rest of that player's turn once it fires, and ready again on the next player's turn", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_inf2", hex(6, 1))
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2)) -- fires and misses
    turn.move("b_inf2", hex(5, 1))
    turn.move("b_inf1", hex(4, 2)) -- adjacent again: not asked (no answer is queued)
    expect(#decisions()):to_be(1)
    expect(world:unit("a_art").overwatch_spent):to_be("1:B")
    turn.finish()
    expect(world:current_side()):to_be("C")
    expect(overwatch.spent(art())):to_be(false)
    world:place("c_inf1", hex(5, 4))
    answers{ "wait" }
    turn.move("c_inf1", hex(4, 4))
    expect(#decisions()):to_be(2)
    expect(decisions()[2].side):to_be("A")
  end)

  it("is ready again in a new round of the same player's turn", function()
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2)) -- fires and misses
    expect(overwatch.spent(art())):to_be(true)
    world:set_turn(world:turn() + 1) -- round 2, still B to play
    expect(overwatch.spent(art())):to_be(false)
    expect(viktory.turn_key()):to_be("2:B")
  end)

  it("takes nothing from the artillery's own turn: spent on B's turn, it bombards on A's and is ready again on B's next", function()
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2)) -- A fires and misses
    turn.finish() -- C
    turn.finish() -- A, round 2
    dice.force("d6", { 4, 2 })
    local rec = battle.bombard{ unit = "a_art", target = hex(5, 2) }
    expect(rec.dice):to_be(2)
    expect(rec.hits):to_be(1)
    expect(world:unit("b_inf1").alive):to_be(false)
    turn.finish() -- B, round 2: a_art bombarded on its own turn, and its overwatch is ready
    world:place("b_inf3", hex(6, 1))
    answers{ "wait" }
    turn.move("b_inf3", hex(5, 2))
    expect(#decisions()):to_be(2)
    expect(decisions()[2].side):to_be("A")
    expect(decisions()[2].request.mover):to_be("b_inf3")
  end)

  it("is ready again on the player's next turn however it is started: turn.start(side) too", function()
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2)) -- A fires and misses
    turn.start("A")
    turn.start("B") -- B's next turn
    expect(overwatch.spent(art())):to_be(false)
    answers{ "wait", "wait" }
    turn.move("b_inf1", { hex(4, 2), hex(5, 2) }) -- a new turn: two hexes again, next to the mountain at each
    expect(#decisions()):to_be(3)
  end)

  it("is not triggered by its own player's moves", function()
    turn.finish() -- C
    turn.finish() -- A, round 2
    expect(world:current_side()):to_be("A")
    expect(world:turn()):to_be(2)
    turn.move("a_cav", { hex(5, 7), hex(4, 7) })
    turn.move("a_inf1", hex(5, 2)) -- next to its own artillery
    expect(#decisions()):to_be(0)
  end)
end)

describe("waiting [OW-wait]", function()
  it("passes on the approach to the hexsides and fires when the attackers move in", function()
    world:place("b_inf3", hex(6, 1))
    world:place("b_inf1", hex(6, 2))
    -- b_inf3's approach to the hexside (5,2) is next to the mountain: one die offered; A waits
    dice.force("d6", { 2, 6, 5, 5, 5 })
    answers{ "wait", "wait", "now", "b_inf1" }
    battle.declare{ target = TOWN, attackers = { "b_inf3", "b_inf1" }, paths = { b_inf3 = { hex(5, 2) } } }
    battle.move_in("b_inf3") -- two dice offered; A waits
    battle.move_in("b_inf1") -- two dice; A fires: one hit, A picks b_inf1
    expect(overwatch_rolls()):to_equal({ 2 })
    expect(world:unit("b_inf1").alive):to_be(false)
    local d = decisions()
    expect(d[1].request.dice):to_be(1)
    expect(d[2].request.dice):to_be(2)
    -- the battle comes after: b_inf3 alone against two infantry and the town
    local rec = battle.resolve(TOWN)
    expect(rec.winner):to_be("A")
  end)

  it("strikes before the mover's own bombard attack", function()
    world:place("b_art", hex(6, 2))
    dice.force("d6", { 2 })
    answers{ "now" }
    local rec = battle.bombard{ unit = "b_art", path = { hex(5, 2) }, target = TOWN }
    expect(rec.fired):to_be(false)
    expect(world:unit("b_art").alive):to_be(false)
    expect(overwatch_rolls()):to_equal({ 1 })
    expect(rec.lines[#rec.lines]):to_be("b_art was stopped on its way and makes no bombard attack")
    expect(require("spec/support/events").eliminated()):to_equal({ "b_art: overwatch by a_art" })
  end)

  it("is not triggered by a bombard attack made without moving: only movement triggers it", function()
    world:place("b_art", hex(5, 2)) -- placed next to the mountain and the town (no move, no trigger)
    dice.force("d6", { 6, 6 })
    local rec = battle.bombard{ unit = "b_art", target = TOWN }
    expect(rec.fired):to_be(true)
    expect(rec.overwatch):to_be_nil()
    expect(#decisions()):to_be(0)
    expect(overwatch.spent(art())):to_be(false)
  end)

  it("when it misses, the mover's bombard attack follows", function()
    world:place("b_art", hex(6, 2))
    dice.force("d6", { 5, 3, 4 })
    answers{ "now", "a_inf1" } -- the bombard's hit is a Tactical Victory: B picks
    local rec = battle.bombard{ unit = "b_art", path = { hex(5, 2) }, target = TOWN }
    expect(rec.fired):to_be(true)
    expect(rec.dice):to_be(2)
    expect(rec.hits):to_be(1)
    expect(world:unit("a_inf1").alive):to_be(false)
    -- the roll order in the log: overwatch, then the bombard
    local reasons = {}
    for _, e in ipairs(world:events()) do
      if e.event == "roll" then
        table.insert(reasons, e.reason)
      end
    end
    expect(reasons):to_equal({ "overwatch by a_art at b_art", "b_art bombards (5,3)" })
  end)

  it("strikes before pre-battle fire, and pre-battle fire follows a miss", function()
    world:place("b_art", hex(6, 3))
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = TOWN, attackers = { "b_inf1", "b_art" } }
    dice.force("d6", {
      6, 6, -- overwatch at b_art: misses
      5, 4, -- B's pre-battle fire (A has no artillery in the town): misses
      6, 6, 6, 6, 6, -- round 1: B two dice, A three: no hits
      6, 6, 1, 1, 1, -- round 2: A's three Tactical Victories
    })
    answers{ "wait", "now", "b_art" }
    battle.move_in("b_inf1")
    battle.move_in("b_art")
    local rec = battle.resolve(TOWN)
    expect(rec.rounds):to_be(2)
    expect(rec.winner):to_be("A")
    expect(rec.prebattle.attacker_dice):to_be(2)
    local reasons = {}
    for _, e in ipairs(world:events()) do
      if e.event == "roll" then
        table.insert(reasons, e.reason)
      end
    end
    expect(reasons[1]):to_be("overwatch by a_art at b_art")
    expect(reasons[2]):to_be("pre-battle fire by B")
  end)

  it("strikes before a battle attack by units already adjacent that move in", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_inf2", hex(6, 3))
    dice.force("d6", {
      1, 2, -- overwatch as b_inf1 moves in: two hits, and b_inf1 is the only B unit in the town yet
      6, -- round 1: b_inf2 misses
      6, 6, 1, -- A's two infantry and the town: one hit
    })
    answers{ "now" }
    -- both attackers stand beside the town already: no approach
    local rec = battle.attack{ target = TOWN, attackers = { "b_inf1", "b_inf2" } }
    expect(world:unit("b_inf1").alive):to_be(false)
    expect(rec.rounds):to_be(1)
    expect(rec.winner):to_be("A")
    local reasons = {}
    for _, e in ipairs(world:events()) do
      if e.event == "roll" then
        table.insert(reasons, e.reason)
      end
    end
    expect(reasons):to_equal({ "overwatch by a_art at b_inf1", "battle round 1 B", "battle round 1 A" })
  end)

  -- "If units are already in an adjacent hex and move into the same hex
  -- to Battle Attack": the artillery's own hex. Overwatch is a bombard
  -- attack; pre-battle fire is part of the battle, so the artillery that
  -- fired overwatch still makes it (the document takes neither away).
  it("strikes units moving into the artillery's own hex before the battle, and the artillery still makes its pre-battle fire", function()
    world:place("b_inf1", hex(5, 2)) -- both already next to the mountain
    world:place("b_inf3", hex(4, 4))
    dice.force("d6", {
      6, 6, -- overwatch as b_inf1 moves in: two dice (its own hex), both miss
      1, 6, -- A's pre-battle fire: two dice, one Tactical Victory: A picks b_inf3
      6, -- round 1: b_inf1's die misses
      2, 6, -- a_art's die and the mountain's: one hit
    })
    answers{ "now", "b_inf3" } -- b_inf3 moves in after: a_art is spent, not asked
    local rec = battle.attack{ target = MOUNTAIN, attackers = { "b_inf1", "b_inf3" } }
    expect(require("spec/support/events").rolls()):to_equal({ "overwatch by a_art at b_inf1 (2)", "pre-battle fire by A (2)",
      "battle round 1 B (1)", "battle round 1 A (2)" })
    local d = decisions()
    expect(#d):to_be(2)
    expect(d[1].request.near):to_be("own hex")
    expect(d[2].request.chooser):to_be("firer")
    expect(d[2].options):to_equal({ "b_inf1", "b_inf3" })
    expect(rec.prebattle.defender_dice):to_be(2)
    expect(rec.lost):to_equal({ "b_inf3", "b_inf1" })
    expect(rec.winner):to_be("A")
    expect(world:unit("a_art").alive):to_be(true)
  end)
end)

-- "one Bombard Attack ... at a unit that moves into an adjacent or same
-- hex"; "a decision must immediately be made about taking the first
-- available opportunity or waiting"; the example picks B's artillery among
-- the attackers moving in. The targets are the units making the
-- triggering move (overwatch.targets = "movers", the default).
describe("who a shot may hit [OW][OW-trigger][OW-wait]", function()
  it("the attackers moving in for one attack count together: waiting on two, A may hit any of the three", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_art", hex(6, 3))
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = TOWN, attackers = { "b_inf1", "b_inf2", "b_art" } }
    dice.force("d6", { 3, 6 })
    answers{ "wait", "wait", "now", "b_inf1" }
    battle.move_in("b_inf1")
    battle.move_in("b_inf2")
    battle.move_in("b_art")
    local d = decisions()
    expect(d[1].request.targets):to_equal({ "b_inf1" })
    expect(d[2].request.targets):to_equal({ "b_inf1", "b_inf2" })
    expect(d[3].request.targets):to_equal({ "b_art", "b_inf1", "b_inf2" })
    expect(d[3].prompt):to_contain("every hit a Tactical Victory on one of b_art, b_inf1, b_inf2")
    expect(d[4].options):to_equal({ "b_art", "b_inf1", "b_inf2" })
    expect(world:unit("b_inf1").alive):to_be(false)
  end)

  it("an attacker still on its hexside is no target when an earlier one moves in", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_art", hex(6, 3))
    battle.declare{ target = TOWN, attackers = { "b_inf1", "b_art" } }
    dice.force("d6", { 1, 1 })
    answers{ "now" } -- two hits, one unit to take them: no casualty question
    expect(battle.move_in("b_inf1")):to_be(false)
    expect(decisions()[1].request.targets):to_equal({ "b_inf1" })
    expect(world:unit("b_art").alive):to_be(true)
    expect(#decisions()):to_be(1)
  end)

  it("a unit that moved there on its own, which A let pass, is no target of a later mover's shot", function()
    world:place("b_inf1", hex(6, 2))
    world:place("b_inf3", hex(6, 1))
    answers{ "wait" }
    expect(turn.move("b_inf1", hex(5, 2))):to_be(true) -- one die offered; A waits
    dice.force("d6", { 1 })
    answers{ "now" }
    expect(turn.move("b_inf3", hex(5, 2))):to_be(false) -- the hit can only fall on b_inf3
    expect(decisions()[2].request.targets):to_equal({ "b_inf3" })
    expect(#decisions()):to_be(2)
    expect(world:unit("b_inf1").alive):to_be(true)
  end)

  it("attackers that moved in on an earlier turn, their battle never resolved, are not moving in with a new attack", function()
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = TOWN, attackers = { "b_inf1" } }
    answers{ "wait" }
    battle.move_in("b_inf1") -- and B never resolves the battle
    turn.finish() -- C
    turn.finish() -- A
    turn.finish() -- B again, round 2
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = TOWN, attackers = { "b_inf2" } }
    dice.force("d6", { 1, 6 })
    answers{ "now" } -- one hit, one target: no casualty question
    battle.move_in("b_inf2")
    expect(decisions()[2].request.targets):to_equal({ "b_inf2" })
    expect(world:unit("b_inf1").alive):to_be(true)
    expect(world:unit("b_inf2").alive):to_be(false)
  end)

  it("units of an attack that was resolved move in no longer: a later move into the hex is alone", function()
    world:place("b_inf1", hex(6, 6)) -- beside A's lone cavalry at (6,7), far from the mountain
    dice.force("d6", { 1, 6 }) -- round 1: b_inf1 hits, a_cav misses
    local rec = battle.attack{ target = hex(6, 7), attackers = { "b_inf1" } }
    expect(rec.winner):to_be("B")
    expect(rec.overwatch):to_be_nil() -- no shot was fired
    expect(world:unit("b_inf1").moving_in):to_be_nil()
    expect(world:unit("b_inf1").attacking):to_be_nil()
  end)
end)

describe("a move reports its overwatch shots with their rolls [OW]", function()
  it("turn.move returns whether the unit arrived, then the shots, each a line with its dice", function()
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 1 })
    answers{ "now" }
    local arrived, shots = turn.move("b_inf1", hex(5, 2))
    expect(arrived):to_be(false)
    expect(#shots):to_be(1)
    expect(shots[1].faces):to_equal({ 1 })
    expect(shots[1].hits):to_be(1)
    expect(shots[1].lost):to_equal({ "b_inf1" })
    expect(shots[1].roll):to_be_nil() -- a shot holds only its own fields, faces among them
    expect(tostring(shots)):to_be("a_art overwatch at b_inf1 in (5,2): 1 die [1], 1 hit, lost b_inf1")
    expect(world:log(1)[1]):to_be("a_art overwatch at b_inf1 in (5,2): 1 die [1], 1 hit, lost b_inf1")
  end)

  it("a shot emits overwatch_fired(artillery, mover, hex, hits) for a ruleset's own reactions", function()
    local seen = {}
    on("overwatch_fired", function(a, mover, h, hits)
      table.insert(seen, a.id .. " " .. mover.id .. " " .. tostring(h) .. " " .. hits)
    end)
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 1 })
    answers{ "now" }
    turn.move("b_inf1", hex(5, 2))
    expect(seen):to_equal({ "a_art b_inf1 (5,2) 1" })
  end)

  -- A script walks a unit next to the mountain with world:move: A fires (a
  -- miss). No move of the ruleset made that shot, so none reports it.
  local function script_shot(id, path)
    dice.force("d6", { 6 })
    answers{ "now" }
    world:move(world:unit(id), path)
    expect(overwatch.spent(art())):to_be(true)
  end

  it("each move reports only its own shots, not one a script's world:move triggered: turn.move", function()
    script_shot("b_inf1", { hex(6, 2), hex(5, 2) })
    expect(select("#", turn.move("b_inf3", hex(7, 1)))):to_be(1)
  end)

  it("... battle.declare", function()
    script_shot("b_inf1", { hex(6, 2), hex(5, 2) })
    expect(select("#", battle.declare{ target = TOWN, attackers = { "b_inf2" }, paths = { b_inf2 = { hex(5, 4) } } })):to_be(1)
  end)

  it("... battle.move_in", function()
    battle.declare{ target = TOWN, attackers = { "b_inf2" }, paths = { b_inf2 = { hex(5, 4) } } }
    script_shot("b_inf1", { hex(6, 2), hex(5, 2) })
    expect(select("#", battle.move_in("b_inf2"))):to_be(1)
  end)

  it("... battle.bombard's record", function()
    script_shot("b_inf1", { hex(6, 2), hex(5, 2) })
    dice.force("d6", { 6, 6 })
    expect(battle.bombard{ unit = "b_art", path = { hex(6, 3) }, target = TOWN }.overwatch):to_be_nil()
  end)

  it("... turn.load", function()
    turn.finish() -- C
    script_shot("c_inf1", { hex(4, 5), hex(4, 4) })
    expect(select("#", turn.load("c_cav", "c_frig"))):to_be(1)
  end)

  it("... turn.unload", function()
    turn.finish() -- C
    script_shot("c_inf1", { hex(4, 5), hex(4, 4) })
    expect(select("#", turn.unload("c_inf2", hex(1, 6)))):to_be(1)
  end)

  it("battle.attack's record shows a shot at an approach too", function()
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 6 }) -- A fires one die as b_inf1 approaches to (5,2), next to the mountain: a miss
    answers{ "now" }
    dice.force("d6", { 6, 1, 6, 6 }) -- round 1: b_inf1 misses; A's two infantry and the town hit it
    local rec = battle.attack{ target = TOWN, attackers = { "b_inf1" }, paths = { b_inf1 = { hex(5, 2) } } }
    expect(#rec.overwatch):to_be(1)
    expect(rec.lines[1]):to_be("overwatch: a_art overwatch at b_inf1 in (5,2): 1 die [6], 0 hits")
  end)

  it("a move that triggers no shot returns only whether it arrived", function()
    world:place("b_inf1", hex(6, 2))
    answers{ "wait" }
    expect(select("#", turn.move("b_inf1", hex(5, 2)))):to_be(1)
  end)

  it("battle.move_in, the attack's record and the bombard's record show the shots too", function()
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = TOWN, attackers = { "b_inf1" } }
    dice.force("d6", { 5, 4 })
    answers{ "now" }
    local arrived, shots = battle.move_in("b_inf1")
    expect(arrived):to_be(true)
    expect(tostring(shots)):to_be("a_art overwatch at b_inf1 in (5,3): 2 dice [4 5], 0 hits") -- faces in order
    turn.finish() -- C attacks the town with its infantry; A fires at it as it moves in
    dice.force("d6", { 6, 6, 6, 6, 6 })
    answers{ "now" }
    local rec = battle.attack{ target = TOWN, attackers = { "c_inf1" }, paths = { c_inf1 = { hex(5, 4) } } }
    expect(#rec.overwatch):to_be(1)
    expect(rec.lines[1]):to_be("overwatch: a_art overwatch at c_inf1 in (5,3): 2 dice [6 6], 0 hits")
    turn.finish() -- A
    turn.finish() -- B, round 2: its artillery bombards after a move next to the mountain
    dice.force("d6", { 6, 6, 6 })
    answers{ "now" }
    world:place("b_art", hex(6, 2))
    rec = battle.bombard{ unit = "b_art", path = { hex(5, 2) }, target = TOWN }
    expect(rec.lines[1]):to_be("overwatch: a_art overwatch at b_art in (5,2): 1 die [6], 0 hits")
  end)
end)

