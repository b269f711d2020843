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
    expect(d.side):to_be("A")
    expect(d.prompt):to_contain("overwatch now or wait?")
    expect(d.prompt):to_contain("2 dice at B's b_inf1 (infantry)")
    expect(d.prompt):to_contain("a friendly town")
    expect(d.prompt):to_contain("P(at least one hit) 75%")
    expect(world:unit("b_inf1").alive):to_be(true) -- 4 and 5 miss
    expect(overwatch.spent(art())):to_be(true)
  end)

  it("rolls two dice when the enemy enters an adjacent hex holding a friendly unit", function()
    world:add_unit{ id = "a_inf3", side = "A", type = "infantry", hex = hex(4, 4) }
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = hex(4, 4), attackers = { "b_inf2" } }
    dice.force("d6", { 6, 3 })
    answers{ "now" }
    expect(battle.move_in("b_inf2")):to_be(false) -- the 3 hits
    expect(overwatch_rolls()):to_equal({ 2 })
    expect(decisions()[1].prompt):to_contain("a friendly unit")
  end)

  it("rolls two dice when the enemy enters an adjacent hex holding a friendly city", function()
    world:add_unit{ id = "a_city", side = "A", type = "city", hex = hex(4, 4) }
    world:place("b_inf2", hex(5, 4))
    battle.declare{ target = hex(4, 4), attackers = { "b_inf2" } }
    dice.force("d6", { 6, 6 })
    answers{ "now" }
    battle.move_in("b_inf2")
    expect(overwatch_rolls()):to_equal({ 2 })
    expect(decisions()[1].prompt):to_contain("a friendly city")
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
    expect(decisions()[2].prompt):to_contain("into its own hex")
  end)

  it("rolls one die when the enemy enters an adjacent hex with no friendly piece", function()
    world:place("b_inf1", hex(6, 2))
    dice.force("d6", { 1 })
    answers{ "now" }
    expect(turn.move("b_inf1", hex(5, 2))):to_be(false)
    expect(overwatch_rolls()):to_equal({ 1 })
    expect(decisions()[1].prompt):to_contain("1 die")
    expect(decisions()[1].prompt):to_contain("P(at least one hit) 50%")
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
    expect(d.prompt):to_contain("Tactical Victory")
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
    expect(d[1].prompt):to_contain("1 die")
    expect(d[2].prompt):to_contain("2 dice")
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
end)
