-- Battle attacks ([Base], [ArtDice], [Ours]; battle.lua): who may attack,
-- the approach and move-in within the unit's move, pre-battle fire by every
-- artillery in the battle on both sides, rounds until one side is gone, and
-- capture. Board: scripts/viktory/mountain_pass.yaml, B to play. A's
-- artillery a_art is on the mountain (4,3); A's town (5,3) holds a_inf1 and
-- a_inf2; A's cavalry a_cav stands alone on the plain (6,7).

scenario("viktory/mountain_pass.yaml")

local TOWN, MOUNTAIN, CAV = hex(5, 3), hex(4, 3), hex(6, 7)

local events = require("spec/support/events")
local decisions, rolls, refused = events.decisions, events.rolls, events.refused

describe("who attacks [Base]", function()
  it("lets only land units attack: a frigate, a town or a city cannot", function()
    turn.finish() -- C
    world:place("c_frig", hex(3, 3))
    refused(function() battle.declare{ target = hex(4, 2), attackers = { "c_frig" } } end, "c_frig (frigate) cannot make a battle attack")
    world:add_unit{ id = "c_town2", side = "C", type = "town", hex = hex(5, 1) }
    refused(function() battle.attack{ target = hex(4, 2), attackers = { "c_town2" } } end, "c_town2 (town) cannot make a battle attack")
  end)

  it("needs the approach and the move-in to fit the unit's move", function()
    -- b_inf1 (7,2) -> (6,2) -> (6,3) is two hexes, and moving in a third
    refused(function() battle.declare{ target = TOWN, attackers = { "b_inf1" }, paths = { b_inf1 = { hex(6, 2), hex(6, 3) } } } end, "b_inf1 (infantry) needs 3 hexes but has 2 of 2 left")
    -- one hex of approach and the move-in fit
    local standing = battle.declare{ target = TOWN, attackers = { "b_inf1" }, paths = { b_inf1 = { hex(6, 2) } } }
    expect(#standing):to_be(1)
    expect(world:unit("b_inf1").attacking):to_be("5,3")
  end)

  it("needs each approach to end beside the target, and enemy pieces on a land hex", function()
    refused(function() battle.declare{ target = TOWN, attackers = { "b_inf2" }, paths = { b_inf2 = { hex(6, 5) } } } end, "b_inf2 must end its approach beside (5,3) (it would stand at (6,5))")
    refused(function() battle.declare{ target = hex(6, 3), attackers = { "b_inf1" } } end, "(6,3) holds no enemy pieces to attack")
    refused(function() battle.declare{ target = TOWN, attackers = {} } end, "a battle attack needs at least one attacker")
    refused(function() battle.declare{ target = "x", attackers = { "b_inf1" } } end, "battle.declare needs target = a hex")
    world:place("c_frig", hex(3, 4))
    refused(function() battle.declare{ target = hex(3, 4), attackers = { "b_inf1" } } end, "battles are fought on land hexes; (3,4) is water")
  end)

  it("takes a single hex as an approach path, and declares no one whose approach ends under overwatch", function()
    local standing = battle.declare{ target = TOWN, attackers = { "b_inf1" }, paths = { b_inf1 = hex(6, 2) } }
    expect(world:unit("b_inf1").hex):to_be(hex(6, 2))
    expect(#standing):to_be(1)
    expect(world:log(1)[1]):to_be("B declares an attack on (5,3) by b_inf1")
    -- b_inf3's approach ends at (5,2), next to the mountain: a_art hits it there
    world:place("b_inf3", hex(6, 1))
    dice.force("d6", { 2 })
    answers{ "now" }
    standing = battle.declare{ target = TOWN, attackers = { "b_inf3" }, paths = { b_inf3 = { hex(5, 2) } } }
    expect(#standing):to_be(0)
    expect(world:unit("b_inf3").alive):to_be(false)
    expect(world:log(1)[1]):to_be("B's attack on (5,3): no attacker reached its hexside")
  end)
end)

describe("moving in [Base][OW-wait]", function()
  it("moves in only a declared attacker still beside the target", function()
    world:place("b_inf1", hex(6, 2))
    refused(function() battle.move_in("b_inf1") end, "b_inf1 has not been declared as an attacker")
    refused(function() battle.move_in("b_nobody") end, "no unit with id 'b_nobody'")
    battle.declare{ target = TOWN, attackers = { "b_inf1" } }
    world:place("b_inf1", hex(7, 2)) -- set aside (no move)
    refused(function() battle.move_in("b_inf1") end, "b_inf1 is not beside (5,3)")
  end)

  it("spends the unit's move: an approach and a move-in leave an infantry no hex to move after the battle", function()
    battle.declare{ target = TOWN, attackers = { "b_inf1" }, paths = { b_inf1 = { hex(6, 2) } } }
    answers{ "wait" }
    battle.move_in("b_inf1")
    expect(world:unit("b_inf1").moving_in):to_be("1:B@5,3") -- the attack it moved in for: turn and hex
    refused(function() battle.move_in("b_inf1") end, "b_inf1 has not been declared as an attacker") -- once
    dice.force("d6", { 1, 6, 6, 6 }) -- round 1: b_inf1 hits; A's two infantry and the town miss
    dice.force("d6", { 2, 6, 6 })    -- round 2: b_inf1 takes the last infantry; A misses
    answers{ "a_inf1" }
    expect(battle.resolve(TOWN).winner):to_be("B")
    refused(function() turn.move("b_inf1", hex(6, 3)) end, "b_inf1 (infantry) needs 1 hexes but has 0 of 2 left")
  end)

  it("takes a declared attacker out of the attack when it moves elsewhere", function()
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = TOWN, attackers = { "b_inf1" } }
    turn.move("b_inf1", hex(6, 3)) -- still beside the town, but no longer declared
    refused(function() battle.move_in("b_inf1") end, "b_inf1 has not been declared as an attacker")
  end)

  it("is a move: not after the unit's own bombard attack", function()
    world:place("b_art", hex(6, 3))
    battle.declare{ target = TOWN, attackers = { "b_art" } }
    dice.force("d6", { 6, 6 })
    battle.bombard{ unit = "b_art", target = TOWN }
    refused(function() battle.move_in("b_art") end, "b_art made a bombard attack this turn and cannot move afterwards")
  end)

  it("is a move: not after the reserve placement phase, which ends the turn", function()
    world:place("b_inf1", hex(6, 2))
    battle.declare{ target = TOWN, attackers = { "b_inf1" } }
    turn.place_reserve("infantry", hex(4, 2))
    refused(function() battle.move_in("b_inf1") end, "the reserve placement phase ends the turn: no battle after it")
    expect(world:unit("b_inf1").hex):to_be(hex(6, 2))
  end)
end)

describe("pre-battle fire [ArtDice]", function()
  it("is made by a lone attacking artillery: two dice, before round 1", function()
    world:place("b_art", hex(6, 6)) -- beside A's cavalry, far from a_art
    dice.force("d6", {
      6, 6, -- B's pre-battle fire: two dice, both miss (A has no artillery: no roll)
      6, -- round 1: b_art's one die misses
      2, -- a_cav's die hits
    })
    local rec = battle.attack{ target = CAV, attackers = { "b_art" } }
    expect(rec.prebattle):to_equal({ attacker_dice = 2, attacker_hits = 0, defender_dice = 0, defender_hits = 0 })
    expect(rolls()):to_equal({ "pre-battle fire by B (2)", "battle round 1 B (1)", "battle round 1 A (1)" })
    expect(rec.winner):to_be("A")
    expect(world:unit("b_art").alive):to_be(false)
    expect(tostring(rec)):to_be(table.concat({
      "battle at (6,7) by B against A",
      "  pre-battle fire: B 2 dice, 0 hits; A 0 dice, 0 hits",
      "  round 1: B 1 dice, 0 hits; A 1 dice, 1 hits",
      "  battle at (6,7): A holds it",
    }, "\n"))
  end)

  it("is made by a lone defending artillery, which rolls one die a round after it, plus the mountain's", function()
    world:place("b_inf1", hex(5, 2))
    battle.declare{ target = MOUNTAIN, attackers = { "b_inf1" } }
    answers{ "wait" } -- a_art's overwatch as b_inf1 moves into its hex
    battle.move_in("b_inf1")
    dice.force("d6", {
      6, 4, -- A's pre-battle fire: two dice, a miss
      5, -- round 1: b_inf1 misses
      6, 3, -- a_art's die and the mountain's: one hit
    })
    local rec = battle.resolve(MOUNTAIN)
    expect(rec.prebattle):to_equal({ attacker_dice = 0, attacker_hits = 0, defender_dice = 2, defender_hits = 0 })
    expect(rolls()):to_equal({ "pre-battle fire by A (2)", "battle round 1 B (1)", "battle round 1 A (2)" })
    expect(tostring(rec)):to_be(table.concat({
      "battle at (4,3) by B against A",
      "  pre-battle fire: B 0 dice, 0 hits; A 2 dice, 0 hits",
      "  round 1: B 1 dice, 0 hits; A 2 dice, 1 hits",
      "  battle at (4,3): A holds it",
    }, "\n"))
  end)

  it("rolls the attacker's dice first, then the defender's, from the one d6 queue; both fire before either loses", function()
    -- the README's "The order of the dice in a battle": B's artillery attacks
    -- A's on the mountain; each side's pre-battle fire kills the other's
    world:place("b_art", hex(5, 2))
    battle.declare{ target = MOUNTAIN, attackers = { "b_art" } }
    answers{ "wait" } -- a_art's overwatch as b_art moves into its hex
    battle.move_in("b_art")
    dice.force("d6", {
      1, 6, -- B's pre-battle fire, read first: a hit on a_art
      2, 6, -- A's, read next: a_art fires though B's hit already fell on it
    })
    local rec = battle.resolve(MOUNTAIN)
    expect(rolls()):to_equal({ "pre-battle fire by B (2)", "pre-battle fire by A (2)" })
    expect(rec.prebattle):to_equal({ attacker_dice = 2, attacker_hits = 1, defender_dice = 2, defender_hits = 1 })
    expect(world:unit("a_art").alive):to_be(false)
    expect(world:unit("b_art").alive):to_be(false)
    expect(rec.lost):to_equal({ "a_art", "b_art" }) -- the attacker's hits first
    expect(events.eliminated()):to_equal({ "a_art: pre-battle fire", "b_art: pre-battle fire" })
    expect(rec.rounds):to_be(0)
    expect(rec.winner):to_be("A") -- both sides lost at once: the defender keeps the hex
  end)

  it("does not happen when every attacker was lost moving in", function()
    world:place("b_inf1", hex(5, 2))
    battle.declare{ target = MOUNTAIN, attackers = { "b_inf1" } }
    dice.force("d6", { 1, 6 })
    answers{ "now" }
    expect(battle.move_in("b_inf1")):to_be(false)
    local rec = battle.resolve(MOUNTAIN)
    expect(rec.prebattle):to_be_nil()
    expect(rec.rounds):to_be(0)
    expect(rec.winner):to_be("A")
    expect(rolls()):to_equal({ "overwatch by a_art at b_inf1 (2)" }) -- a_art has no pre-battle fire at nobody
  end)
end)

describe("rounds and capture [Base][Ours]", function()
  it("counts only military units: a town of the attacker's own in the hex rolls no die", function()
    -- a scenario may start with both players' pieces in one hex
    world:add_unit{ id = "b_town2", side = "B", type = "town", hex = CAV }
    world:place("b_inf2", hex(6, 6))
    dice.force("d6", { 6, 6 }) -- round 1: b_inf2's one die, then a_cav's: both miss
    dice.force("d6", { 1, 6 }) -- round 2: b_inf2 hits
    local rec = battle.attack{ target = CAV, attackers = { "b_inf2" } }
    expect(rolls()):to_equal({ "battle round 1 B (1)", "battle round 1 A (1)", "battle round 2 B (1)", "battle round 2 A (1)" })
    expect(rec.winner):to_be("B")
  end)

  it("rolls a round in which no die hits again, and the record names the rounds without hits", function()
    world:place("b_inf2", hex(6, 6))
    dice.force("d6", { 6, 6 }) -- round 1: b_inf2's one die, then a_cav's: no hits
    dice.force("d6", { 5, 4 }) -- round 2: no hits
    dice.force("d6", { 1, 6 }) -- round 3: b_inf2 hits
    local rec = battle.attack{ target = CAV, attackers = { "b_inf2" } }
    expect(rec.rounds):to_be(3)
    expect(rec.winner):to_be("B")
    expect(events.eliminated()):to_equal({ "a_cav: battle round 3" })
    expect(rec.lines):to_equal({
      "rounds 1-2: no hits",
      "round 3: B 1 dice, 1 hits; A 1 dice, 0 hits",
      "battle at (6,7): B holds it",
    })
  end)

  it("counts the rounds without hits from the round after the last one with hits", function()
    world:add_unit{ id = "a_inf3", side = "A", type = "infantry", hex = CAV }
    world:place("b_inf2", hex(6, 6))
    dice.force("d6", { 3, 6, 6 }) -- round 1: b_inf2 hits on a 3 (not a Tactical Victory); A misses
    answers{ "a_inf3" }           -- A places its own loss
    dice.force("d6", { 6, 6 })    -- round 2: no hits
    dice.force("d6", { 6, 6 })    -- round 3: no hits
    dice.force("d6", { 6, 6 })    -- round 4: no hits
    dice.force("d6", { 6, 2 })    -- round 5: a_cav hits
    local rec = battle.attack{ target = CAV, attackers = { "b_inf2" } }
    expect(rec.rounds):to_be(5)
    expect(rec.winner):to_be("A")
    expect(decisions()[1].side):to_be("A")
    expect(events.eliminated()):to_equal({ "a_inf3: battle round 1", "b_inf2: battle round 5" })
    expect(rec.lines):to_equal({
      "round 1: B 1 dice, 1 hits; A 2 dice, 0 hits",
      "rounds 2-4: no hits",
      "round 5: B 1 dice, 0 hits; A 1 dice, 1 hits",
      "battle at (6,7): A holds it",
    })
  end)

  it("makes a single hit on a 1 in a battle round a Tactical Victory: the firer picks the casualty", function()
    world:add_unit{ id = "a_inf3", side = "A", type = "infantry", hex = CAV }
    world:place("b_inf2", hex(6, 6))
    dice.force("d6", { 1, 6, 6 }) -- round 1: b_inf2's one die is a 1; a_cav and a_inf3 miss
    answers{ "a_inf3" }           -- B picks (not its default, the dearest: a_cav)
    dice.force("d6", { 1, 6 })    -- round 2: b_inf2 takes the last unit
    local rec = battle.attack{ target = CAV, attackers = { "b_inf2" } }
    local d = decisions()
    expect(#d):to_be(1)
    expect(d[1].side):to_be("B")
    expect(d[1].request.chooser):to_be("firer")
    expect(d[1].default):to_be("a_cav")
    expect(d[1].prompt):to_be("Tactical Victory hit: pick A's unit lost (battle round 1)")
    expect(events.eliminated()):to_equal({ "a_inf3: battle round 1", "a_cav: battle round 2" })
    expect(rec.winner):to_be("B")
  end)

  it("takes an undefended town without a die rolled, even with artillery among the attackers", function()
    world:add_unit{ id = "a_town2", side = "A", type = "town", hex = hex(6, 2) }
    local rec = battle.attack{ target = hex(6, 2), attackers = { "b_inf1", "b_art" }, paths = { b_art = { hex(6, 3) } } }
    expect(rolls()):to_equal({})
    expect(rec.rounds):to_be(0)
    expect(rec.winner):to_be("B")
    expect(world:unit("a_town2").alive):to_be(false)
    expect(events.eliminated()):to_equal({ "a_town2: captured by B" })
    local t = world:unit("B_town_1")
    expect(t.type):to_be("town")
    expect(t.side):to_be("B")
    expect(t.hex):to_be(hex(6, 2))
    world:add_unit{ id = "a_town3", side = "A", type = "town", hex = hex(7, 4) }
    battle.attack{ target = hex(7, 4), attackers = { "b_inf2" } }
    expect(world:unit("B_town_2").hex):to_be(hex(7, 4))
  end)

  it("turns a captured city into a city of the winner's", function()
    world:place("b_art", hex(0, 0)) -- B's artillery out of reach of (8,2)
    world:place("c_inf1", hex(8, 3))
    turn.finish() -- C
    local rec = battle.attack{ target = hex(8, 2), attackers = { "c_inf1" } }
    expect(rec.winner):to_be("C")
    expect(world:unit("b_city").alive):to_be(false)
    local c = world:unit("C_city_1")
    expect(c.type):to_be("city")
    expect(c.hex):to_be(hex(8, 2))
    expect(rec.lines[#rec.lines - 1]):to_be("C captures the city at (8,2)")
  end)

  it("leaves the hex to the defender when both sides are lost in the same round", function()
    world:place("a_art", hex(6, 6)) -- out of the way: no overwatch
    world:place("b_inf1", hex(6, 2))
    world:place("b_inf2", hex(6, 3))
    dice.force("d6", {
      1, 1, -- round 1, B: two Tactical Victories
      1, 1, 6, -- A's two infantry and the town: two Tactical Victories
    })
    answers{ "a_inf1", "b_inf1" } -- each firer's first pick; the second hit has one unit left
    local rec = battle.attack{ target = TOWN, attackers = { "b_inf1", "b_inf2" } }
    for _, id in ipairs({ "a_inf1", "a_inf2", "b_inf1", "b_inf2" }) do
      expect(world:unit(id).alive):to_be(false)
    end
    expect(rec.winner):to_be("A")
    expect(world:unit("a_town").alive):to_be(true)
    expect(world:unit("B_town_1")):to_be_nil()
    expect(rec.lost):to_equal({ "a_inf1", "a_inf2", "b_inf1", "b_inf2" }) -- the attacker's hits first
    expect(events.eliminated()):to_equal({ "a_inf1: battle round 1", "a_inf2: battle round 1",
      "b_inf1: battle round 1", "b_inf2: battle round 1" })
    expect(tostring(rec)):to_be(table.concat({
      "battle at (5,3) by B against A",
      "  round 1: B 2 dice, 2 hits; A 3 dice, 2 hits",
      "  battle at (5,3): A holds it",
    }, "\n"))
    expect(decisions()[1].side):to_be("B")
    expect(decisions()[2].side):to_be("A")
  end)
end)

-- A battle on real dice: how many casualty choices come up is not known in
-- advance, so policies answer them (as in `sim`), and the spec checks what
-- holds whatever the dice: the battle runs until one side has no unit left
-- in the hex, and the hex (with the town) goes to the side left standing.
describe("a battle on real dice, its decisions answered by policies [Base]", function()
  it("ends with one side gone, whatever the dice, for several seeds", function()
    for seed = 1, 6 do
      scenario("viktory/mountain_pass.yaml", { seed = seed })
      policy("overwatch", function() return "wait" end)
      policy("viktory.casualty", function(options) return options[#options] end)
      world:place("a_art", hex(6, 6)) -- out of the way
      local rec = battle.attack{ target = TOWN, attackers = { "b_inf1", "b_inf2", "b_art" },
        paths = { b_inf1 = { hex(6, 2) }, b_inf2 = { hex(5, 4) }, b_art = { hex(6, 3) } } }
      local b = viktory.units_at(TOWN, { side = "B", military = true })
      local a = viktory.units_at(TOWN, { side = "A", military = true })
      expect(#a == 0 or #b == 0):to_be(true)
      expect(rec.winner):to_be(#b > 0 and "B" or "A")
      expect(viktory.settlement(TOWN, rec.winner) ~= nil):to_be(true)
      for _, e in ipairs(world:events()) do
        if e.event == "decision" then
          expect(e.by):to_be("policy")
        end
      end
    end
  end)
end)

-- The odds of a battle, over every outcome of its dice (`exact_odds`
-- enumerates them as `exact` does). One die per unit, a hit on hit_max (3)
-- or less: each die hits with probability 1/2. A round in which no die hits
-- changes nothing and is rolled again, so the rounds that count are those
-- with hits: under `exact` the record's `rounds` counts just those
-- (viktory.roll_round, and the README's rule table).
describe("the odds of a battle, over every outcome of its dice [Base]", function()
  it("one infantry against one cavalry on the plain: each side wins a third, and both fall a third", function()
    world:place("b_inf2", hex(6, 6))
    -- A round with hits: B hits alone, A hits alone, or both hit, each
    -- 1/4 of all rolls and so 1/3 of the rounds with hits. The first
    -- round with hits ends the battle; when both fall, A keeps the hex.
    local odds, d = exact_odds(function()
      local rec = battle.attack{ target = CAV, attackers = { "b_inf2" } }
      return {
        b_wins = rec.winner == "B",
        a_holds = rec.winner == "A",
        both_fall = not world:unit("b_inf2").alive and not world:unit("a_cav").alive,
        rounds = rec.rounds,
      }
    end)
    expect(d.fraction.b_wins):to_be("1/3")
    expect(d.fraction.a_holds):to_be("2/3")
    expect(d.fraction.both_fall):to_be("1/3")
    expect(d.fraction.rounds):to_be("1")
    -- the world is as it was: the attack was run on copies
    expect(world:unit("a_cav").alive):to_be(true)
    expect(world:unit("b_inf2").hex):to_be(hex(6, 6))
  end)

  it("one infantry against two units: A holds 20 times in 21, in 8/7 rounds with hits on average", function()
    world:add_unit{ id = "a_inf3", side = "A", type = "infantry", hex = CAV }
    world:place("b_inf2", hex(6, 6))
    policy("viktory.casualty", function(options) return options[1] end)
    -- Round 1, given some hit among B's 1 die and A's 2 (no hit: 1/2 x 1/4
    -- = 1/8, so each outcome is weighed by 8/7): A hits at least once
    -- (3/4 -> 6/7) and b_inf2 falls; or only B hits (1/2 x 1/4 = 1/8 ->
    -- 1/7) and one A unit falls, leaving one against one: B wins a third
    -- of those. P(B wins) = 1/7 x 1/3 = 1/21; rounds with hits: 1 with 6/7,
    -- 2 with 1/7, a mean of 8/7.
    local odds, d = exact_odds(function()
      local rec = battle.attack{ target = CAV, attackers = { "b_inf2" } }
      return { b_wins = rec.winner == "B", rounds = rec.rounds, two_rounds = rec.rounds == 2 }
    end)
    expect(d.fraction.b_wins):to_be("1/21")
    expect(d.fraction.rounds):to_be("8/7")
    expect(odds.rounds):to_be_close(8 / 7, 1e-12)
    expect(odds.two_rounds):to_be_close(1 / 7, 1e-12)
  end)
end)
