-- What a reader of the two documents checks first: the edge cases of
-- ranged-combat.txt and melee-take-ground.txt that the clause specs beside
-- this file do not reach, each written from the document's words.
-- On the bare field: the Government (bottom baseline) fires up the board; in
-- melee the Jacobite attacker stands at hex(5,5) and the Government defender
-- at hex(5,6), whose hexes back are hex(4,7) and hex(5,7).

local units = require("spec/support/units")
local attacker, gov, jac, firer = units.attacker, units.gov, units.jac, units.firer

scenario("scenarios/field.yaml")

describe("[Fire R0] [Fire R3] who a reader expects may be fired on", function()
  it("the firer's own hex never blocks its line of sight (\"a hex between\" the two)", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6))
    for _, terrain in ipairs({ "woods", "hill", "town" }) do
      world:set_terrain(hex(5, 8), terrain)
      dice.force("battle", { "cavalry", "cavalry", "cavalry" })
      expect(ranged.fire{ unit = "g1", target = "t", again = true }.dice.total):to_be(3)
    end
  end)

  it("a unit adjacent to an enemy unit may not fire at a distant lone leader either", function()
    firer("g1", "regular", hex(5, 8))
    jac("j", "regular", hex(6, 7))
    jac("Murray", "leader", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "g1", target = "Murray" } end,
      "g1 is adjacent to enemy unit j and may not fire on a more distant enemy")
  end)

  it("a lone leader must be in line of sight and in range like any target", function()
    firer("g1", "regular", hex(5, 8))
    gov("g2", "regular", hex(5, 7))
    jac("Murray", "leader", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "g1", target = "Murray" } end, "no line of sight from g1 to Murray")
    world:place(world:unit("g2"), nil)
    world:place(world:unit("Murray"), hex(5, 4))
    expect_error(function() ranged.fire{ unit = "g1", target = "Murray" } end, "Murray is 4 hexes away, beyond g1's range of 3")
  end)
end)

describe("[Fire R4] [Fire R6] dice and hits a reader counts by hand", function()
  it("a leader's die and the moved die together: 2 base +1 full strength +1 leader -1 moved", function()
    firer("g1", "regular", hex(5, 8), { leader = "Cope" }).moved = 1
    jac("t", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    local parts = {}
    for _, p in ipairs(rec.dice.parts) do
      table.insert(parts, p.n .. " " .. p.why)
    end
    expect(parts):to_equal({ "2 base at 2 hexes", "1 full strength", "1 leader Cope", "-1 moved" })
    expect(rec.dice.total):to_be(3)
  end)

  it("a unit at one block fires its base dice only", function()
    firer("g1", "regular", hex(5, 8), { strength = 1 })
    jac("t", "regular", hex(5, 5))
    dice.force("battle", { "infantry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.dice.total):to_be(1) -- 1 die at 3 hexes
    expect(world:unit("t").strength):to_be(3)
  end)
end)

describe("[Ground] [Bonus] what a reader tries after a melee", function()
  it("cavalry that eliminates a lone leader takes the hex he held and makes its bonus melee from it", function()
    local a = attacker("battle_cavalry")
    gov("Cope", "leader", hex(5, 6))
    gov("d2", "regular", hex(4, 7))
    dice.force("battle", { "sabre", "cavalry", "cavalry", "cavalry" }) -- one sabre: Cope falls
    answers{ "take ground", "d2" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- bonus melee: 3 +1 full, no moved die for cavalry
    answers{ "battle back" }
    dice.force("battle", { "infantry", "infantry", "infantry" }) -- d2 battles back at 3 blocks: infantry misses cavalry
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.attack.lone_leader):to_be("casualty")
    expect(world:pool("jacobite", "medals")):to_be(1)
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(a.hex):to_be(hex(5, 6))
    expect(rec.bonus.defender):to_be("d2")
    expect(rec.bonus.attack.dice.total):to_be(4)
    expect(world:unit("d2").strength):to_be(3)
    expect(rec.bonus.battle_back.dice.total):to_be(3)
  end)

  it("infantry with a leader that moved before its melee loses one die in its bonus melee, not two", function()
    local a = attacker("regular", { leader = "Perth" })
    a.moved = 1
    gov("d1", "regular", hex(5, 6), { strength = 1 })
    gov("d3", "regular", hex(6, 6))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- 3 +1 full +1 leader -1 moved
    answers{ "take ground", "d3" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- the same 4 after the ground taken
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.attack.dice.total):to_be(4)
    expect(rec.bonus.attack.dice.total):to_be(4)
    expect(a.moved):to_be(2)
  end)

  it("the bonus melee may fall on the original defender, still adjacent after its retreat", function()
    local a = attacker("battle_cavalry")
    gov("d", "regular", hex(5, 6))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" }) -- no hit, one flag
    answers{ hex(4, 7) }
    dice.force("battle", { "sabre", "cavalry" }) -- rally check passed
    answers{ "take ground", "d" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "infantry", "infantry", "infantry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(a.hex):to_be(hex(5, 6))
    expect(rec.bonus.defender):to_be("d")
    expect(world:unit("d").strength):to_be(3)
  end)

  it("lowland infantry with an attached leader may make a bonus melee; militia without one may not", function()
    local a = attacker("lowland", { leader = "Perth" })
    expect(melee.can_bonus(a)):to_be(true)
    local m = jac("m", "militia", hex(2, 2))
    m.ordered = true
    local ok, why = melee.can_bonus(m)
    expect(ok):to_be(false)
    expect(why):to_be("m is neither highland infantry, cavalry nor infantry with an attached leader")
  end)
end)

describe("[Back] what a reader tries with the battle back", function()
  it("a defender that ignores its flags keeps its hex and battles back", function()
    attacker("regular")
    local d = gov("d", "grenadier", hex(5, 6))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" }) -- the grenadier ignores one flag
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.retreat.ignored):to_be(1)
    expect(d.hex):to_be(hex(5, 6))
    expect(rec.took_ground):to_be_nil()
    expect(rec.battle_back.dice.total):to_be(4)
  end)

  it("a defender hemmed in by its own units loses a block, passes its rally check and battles back reduced", function()
    attacker("regular")
    local d = gov("d", "regular", hex(5, 6))
    gov("b1", "regular", hex(4, 7))
    gov("b2", "regular", hex(5, 7))
    dice.force("battle", { "infantry", "flag", "cavalry", "cavalry" }) -- 1 hit, 1 flag it cannot take
    dice.force("battle", { "sabre", "cavalry" })                        -- rally check passed
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })           -- 3 melee, no full-strength die
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(d.strength):to_be(2)
    expect(d.hex):to_be(hex(5, 6))
    expect(rec.attack.retreat.lost):to_be(1)
    expect(rec.battle_back.dice.total):to_be(3)
  end)

  it("a battle back that eliminates the attacker wins the defender a victory banner, and no ground", function()
    local a = attacker("regular", { strength = 1 })
    local d = gov("d", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" }) -- 3 melee at 1 block: no hit
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back.eliminated):to_be(true)
    expect(a.alive):to_be(false)
    expect(world:pool("government", "medals")):to_be(1)
    expect(d.hex):to_be(hex(5, 6))
    expect(rec.took_ground):to_be_nil()
    expect(rec.bonus):to_be_nil()
  end)
end)

-- Blocks lost to a blocked retreat or a failed rally check are no hits
-- (R6: "takes a hit"), so no leader casualty check follows them; but a
-- leader does not vanish with the unit they eliminate: he makes the check of
-- a leader whose unit is eliminated (1 die, 1 sabre) and, surviving, stands
-- alone and retreats.
describe("[Fire R6] [Base] an attached leader whose unit falls to a retreat or a rally check", function()
  local function hemmed_in(strength)
    firer("g1", "regular", hex(5, 8))
    local t = jac("t", "regular", hex(5, 6), { strength = strength, leader = "Murray" })
    jac("b1", "regular", hex(5, 5))
    jac("b2", "regular", hex(6, 5))
    return t
  end

  it("a blocked retreat that takes the last block: the leader's check, a banner when he falls", function()
    hemmed_in(1)
    dice.force("battle", { "flag", "flag", "cavalry" }) -- no hit; the leader ignores one flag, the other is blocked
    dice.force("battle", { "sabre" })                   -- his check: 1 die
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.eliminated):to_be(true)
    expect(rec.leader_check):to_be_nil() -- no hit, no check for the hit
    expect(rec.retreat.leader_check.outcome):to_be("casualty")
    expect(rec.retreat.leader_check.dice):to_be(1)
    expect(world:pool("government", "medals")):to_be(2) -- the unit and its leader
    expect(tostring(rec)):to_contain("  leader Murray: casualty check [sabre] -> casualty")
  end)

  it("a leader who survives it stands alone on the unit's hex and retreats, here onto a friendly unit", function()
    hemmed_in(1)
    dice.force("battle", { "flag", "flag", "cavalry" })
    dice.force("battle", { "flag" })
    answers{ hex(6, 5) } -- b1 or b2: he joins b2
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.retreat.leader_check.outcome):to_be("attached")
    expect(world:unit("b2").leader):to_be("Murray")
    expect(world:pool("government", "medals")):to_be(1)
  end)

  it("a failed rally check that takes the last block in melee: the leader survives, retreats, and the attacker takes ground", function()
    local a = attacker("regular")
    gov("d", "regular", hex(5, 6), { strength = 2, leader = "Cope" })
    dice.force("battle", { "infantry", "flag", "flag", "cavalry" }) -- 1 hit, 2 flags: Cope ignores one
    dice.force("battle", { "cavalry", "cavalry" })                  -- Cope's check for the hit: unhurt
    answers{ hex(5, 7) }
    dice.force("battle", { "cavalry", "cavalry", "infantry" })      -- rally check (2 +1 leader) failed: the last block
    dice.force("battle", { "cavalry" })                             -- Cope's check, his unit eliminated: unhurt
    answers{ hex(5, 8), "take ground" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(world:unit("d").alive):to_be(false)
    expect(rec.attack.retreat.rally.leader_check.outcome):to_be("retreated")
    expect(world:unit("Cope").hex):to_be(hex(5, 8))
    expect(world:unit("Cope").type):to_be("leader")
    expect(a.hex):to_be(hex(5, 6))
    expect(world:pool("jacobite", "medals")):to_be(1)
    expect(tostring(rec)):to_contain("\n    leader Cope: casualty check [cavalry] -> retreated\n")
  end)

  it("a unit that retires and rallies and fails its rally check at its last block: its leader's check", function()
    attacker("highland")
    gov("d", "light_cavalry", hex(5, 6), { strength = 2, leader = "Cope" })
    answers{ "retire and rally" }
    dice.force("battle", { "cavalry", "sabre", "flag", "infantry" }) -- 1 hit: only its own symbol
    dice.force("battle", { "cavalry", "cavalry" })                   -- Cope's check for the hit: unhurt
    answers{ hex(5, 7), hex(5, 8) }
    dice.force("battle", { "cavalry", "cavalry", "infantry" })       -- rally check failed: the last block
    dice.force("battle", { "sabre" })                                -- Cope falls
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.retired.rally.leader_check.outcome):to_be("casualty")
    expect(world:pool("jacobite", "medals")):to_be(2)
    expect(tostring(rec)):to_contain("\n    leader Cope: casualty check [sabre] -> casualty\n")
  end)

  it("a fire whose flag makes the unit retreat and fail its rally check at its last block: the leader's check", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6), { strength = 1, leader = "Murray" })
    dice.force("battle", { "flag", "flag", "cavalry" })          -- Murray ignores one flag
    answers{ hex(5, 5) }
    dice.force("battle", { "cavalry", "cavalry", "infantry" })   -- rally check (2 +1 leader) failed
    dice.force("battle", { "flag" })                             -- Murray's check: unhurt
    answers{ hex(5, 4) }
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.eliminated):to_be(true)
    expect(rec.retreat.rally.leader_check.outcome):to_be("retreated")
    expect(world:unit("Murray").hex):to_be(hex(5, 4))
    expect(tostring(rec)):to_contain("failed, lost 1\n  leader Murray: casualty check [flag] -> retreated")
  end)

  it("a melee whose flag the defender cannot take at its last block: the leader falls, the attacker takes ground", function()
    local a = attacker("regular")
    gov("d", "regular", hex(5, 6), { strength = 1, leader = "Cope" })
    gov("b1", "regular", hex(4, 7))
    gov("b2", "regular", hex(5, 7))
    dice.force("battle", { "flag", "flag", "cavalry", "cavalry" }) -- no hit; Cope ignores one flag, the other is blocked
    dice.force("battle", { "sabre" })
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.retreat.leader_check.outcome):to_be("casualty")
    expect(world:pool("jacobite", "medals")):to_be(2)
    expect(a.hex):to_be(hex(5, 6))
    expect(tostring(rec)):to_contain("lost 1 (blocked)\n    leader Cope: casualty check [sabre] -> casualty")
  end)

  it("a blocked retreat that leaves blocks: no leader check, the rally check follows", function()
    local t = hemmed_in(4)
    dice.force("battle", { "flag", "flag", "cavalry" })
    dice.force("battle", { "sabre", "cavalry", "cavalry" }) -- the rally check (2 +1 leader), passed
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(t.strength):to_be(3)
    expect(t.leader):to_be("Murray")
    expect(rec.retreat.leader_check):to_be_nil()
    expect(rec.retreat.rally.passed):to_be(true)
  end)
end)

describe("[Fire R6] [Base] with params.leaders.check_on_lost_blocks = true", function()
  scenario("scenarios/field.yaml", { set = { ["leaders.check_on_lost_blocks"] = true } })

  it("a block lost to a blocked retreat counts as a hit: the leader's check of a unit still standing", function()
    firer("g1", "regular", hex(5, 8))
    local t = jac("t", "regular", hex(5, 6), { leader = "Murray" })
    jac("b1", "regular", hex(5, 5))
    jac("b2", "regular", hex(6, 5))
    dice.force("battle", { "flag", "flag", "cavalry" })
    dice.force("battle", { "sabre", "sabre" })                     -- his check: 2 dice, 2 sabres
    dice.force("battle", { "cavalry", "cavalry" })                 -- the rally check, without him: failed
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.retreat.leader_check.outcome):to_be("casualty")
    expect(rec.retreat.leader_check.dice):to_be(2)
    expect(t.leader):to_be_nil()
    expect(t.strength):to_be(2) -- one block for the retreat, one for the rally check
    expect(world:pool("government", "medals")):to_be(1)
    expect(tostring(rec)):to_contain("rally check [cavalry cavalry] failed, lost 1\n  leader Murray: casualty check [sabre sabre] -> casualty")
  end)
end)
