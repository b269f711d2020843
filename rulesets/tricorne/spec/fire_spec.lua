-- Ranged combat (ranged-combat.txt), clause by clause. On the bare field:
-- the Government (bottom baseline) fires up the board at the Jacobites (top
-- baseline); g1, a regular, stands at hex(5,8) unless a case says otherwise.

local units = require("spec/support/units")
local gov, jac, firer = units.gov, units.jac, units.firer

scenario("scenarios/field.yaml")

describe("[Fire R0] who may fire, and at whom", function()
  it("cavalry may not fire", function()
    firer("c1", "light_cavalry", hex(5, 8))
    jac("j1", "regular", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "c1", target = "j1" } end, "rule error: c1 is cavalry")
  end)

  it("a lone leader may not fire", function()
    firer("L", "leader", hex(5, 8))
    jac("j1", "regular", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "L", target = "j1" } end, "a lone leader may not engage in ranged combat")
  end)

  it("infantry and artillery fire; only an ordered unit fires", function()
    gov("g1", "regular", hex(5, 8))
    jac("j1", "regular", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "g1", target = "j1" } end, "g1 is not ordered this turn")
    world:unit("g1").ordered = true
    dice.force("battle", { "cavalry", "artillery", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "j1" }.hits):to_be(0)
    firer("a1", "light_artillery", hex(8, 8))
    dice.force("battle", { "infantry", "cavalry" })
    expect(ranged.fire{ unit = "a1", target = "j1" }.hits):to_be(1)
  end)

  it("light artillery that moved may not fire", function()
    firer("a1", "light_artillery", hex(5, 8)).moved = 1
    jac("j1", "regular", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "a1", target = "j1" } end, "moved this turn and may not combat after moving")
  end)

  it("may target an enemy in any direction, sideways or back towards its own lines", function()
    firer("g1", "regular", hex(5, 8))
    jac("e", "regular", hex(7, 8)) -- two hexes east, same row
    jac("s", "regular", hex(4, 10)) -- two hexes down the board, behind g1
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "e" }.range):to_be(2)
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "s", again = true }.range):to_be(2) -- a second fire, on purpose
  end)

  it("never at an adjacent enemy", function()
    firer("g1", "regular", hex(5, 8))
    jac("j1", "regular", hex(5, 7))
    expect_error(function() ranged.fire{ unit = "g1", target = "j1" } end, "j1 is adjacent to g1: ranged combat may not be used against an adjacent enemy")
  end)

  it("a unit adjacent to an enemy unit may not fire at a more distant one", function()
    firer("g1", "regular", hex(5, 8))
    jac("near", "highland", hex(6, 7))
    jac("far", "regular", hex(4, 7) + hex(0, -1)) -- hex(4,6), two hexes away
    expect_error(function() ranged.fire{ unit = "g1", target = "far" } end, "g1 is adjacent to enemy unit near and may not fire on a more distant enemy")
  end)

  it("an adjacent lone enemy leader does not stop distant fire (he is not a unit)", function()
    firer("g1", "regular", hex(5, 8))
    jac("Perth", "leader", hex(6, 7))
    jac("far", "regular", hex(4, 6)) -- 3 hexes: 1 die + 1 full strength
    dice.force("battle", { "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "far" }.hits):to_be(0)
  end)

  it("only at an enemy", function()
    firer("g1", "regular", hex(5, 8))
    gov("g2", "regular", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "g1", target = "g2" } end, "g2 is friendly")
  end)
end)

describe("[Fire R6] a miss", function()
  it("removes no block, and the log records no hit (\"for each hit scored, 1 block is removed\")", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "artillery", "sabre" })
    local before = #world:events(1000)
    expect(ranged.fire{ unit = "g1", target = "t" }.removed):to_be(0)
    for _, e in ipairs(world:events(#world:events(1000) - before)) do
      expect(e.event == "hit"):to_be(false)
    end
  end)

  it("ranged.dice counts no card dice when it is given none", function()
    local g1 = firer("g1", "regular", hex(5, 8))
    local t = jac("t", "regular", hex(5, 6))
    expect(ranged.dice(g1, t).total):to_be(3) -- 2 at 2 hexes, +1 full strength
    expect(#ranged.dice(g1, t).parts):to_be(2)
  end)
end)

describe("[Fire R0] a unit without ranged weapons has no range", function()
  it("cavalry and lone leaders reach no hex; a regular 3, light artillery 5", function()
    expect(ranged.max_range(gov("c1", "light_cavalry", hex(1, 8)))):to_be(0)
    expect(ranged.max_range(gov("L", "leader", hex(2, 8)))):to_be(0)
    expect(ranged.max_range(gov("g1", "regular", hex(3, 8)))):to_be(3)
    expect(ranged.max_range(gov("a1", "light_artillery", hex(4, 8)))):to_be(5)
  end)

  it("so ranged.dice gives no dice, but a rule error, for cavalry or a target adjacent or out of range", function()
    local c = gov("c1", "light_cavalry", hex(1, 8))
    local g = gov("g1", "regular", hex(5, 8))
    local t = jac("t", "regular", hex(1, 6))
    expect_error(function() ranged.dice(c, t) end, "rule error: c1 (light_cavalry) has no ranged weapons: it has no ranged dice")
    world:place(t, hex(5, 4))
    expect_error(function() ranged.dice(g, t) end, "rule error: t is 4 hexes from g1: its ranged dice are for 2 to 3 hexes")
    world:place(t, hex(5, 7))
    expect_error(function() ranged.dice(g, t) end, "t is 1 hex from g1")
    world:place(t, hex(5, 5))
    expect(ranged.dice(g, t).base):to_be(1) -- the last entry of the table: 3 hexes
  end)
end)

describe("[Fire R1] one firer against one target, resolved completely, in the player's order", function()
  it("names a firer and a target that are on the battlefield, or says which is not, at the caller's line", function()
    firer("g1", "regular", hex(5, 8))
    local gone = jac("gone", "regular", hex(5, 6))
    world:eliminate(gone, "spec")
    expect_error(function() ranged.fire("g1") end, "call ranged.fire{unit=, target=}")
    local msg = expect_error(function() ranged.fire{ unit = "nobody", target = "gone" } end, "no unit 'nobody' (firing unit)")
    expect(string.find(msg, "fire_spec.lua", 1, true) ~= nil):to_be(true)
    msg = expect_error(function() ranged.fire{ unit = "g1", target = "gone" } end, "target gone is not on the battlefield")
    expect(string.find(msg, "fire_spec.lua", 1, true) ~= nil):to_be(true)
    msg = expect_error(function() ranged.fire{ unit = 7, target = "gone" } end, "firing unit must be a unit or a unit id, not number")
    expect(string.find(msg, "fire_spec.lua", 1, true) ~= nil):to_be(true)
  end)

  it("refuses several firers or targets in one fire", function()
    firer("g1", "regular", hex(5, 8))
    firer("g2", "regular", hex(6, 8))
    jac("j1", "regular", hex(5, 6))
    expect_error(function() ranged.fire{ unit = { "g1", "g2" }, target = "j1" } end, "rule error: one firer against one target per fire")
    jac("j2", "regular", hex(6, 6))
    expect_error(function() ranged.fire{ unit = "g1", target = { "j1", "j2" } } end, "rule error: one firer against one target per fire")
  end)

  it("several units against one target fire one at a time: the second sees the first's retreat", function()
    firer("g1", "regular", hex(5, 8))
    firer("g2", "regular", hex(4, 8))
    jac("j1", "regular", hex(5, 6))
    -- g1: a flag; j1 retreats (NW or NE: it chooses NW, hex(5,5)) and rallies
    dice.force("battle", { "flag", "cavalry", "cavalry" })
    answers{ hex(5, 5) }
    dice.force("battle", { "sabre", "artillery" }) -- rally check passed
    local first = ranged.fire{ unit = "g1", target = "j1" }
    expect(first.retreat.moved):to_be(1)
    -- g2 now fires at 3 hexes: 1 die + 1 full strength
    dice.force("battle", { "infantry", "cavalry" })
    local second = ranged.fire{ unit = "g2", target = "j1" }
    expect(second.range):to_be(3)
    expect(second.dice.total):to_be(2)
    expect(world:unit("j1").strength):to_be(3)
  end)
end)

describe("[Fire R2] range", function()
  it("counts the target's hex and not the firer's; beyond the table's last entry is out of range", function()
    firer("g1", "regular", hex(5, 8))
    jac("j3", "regular", hex(5, 5))
    dice.force("battle", { "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "j3" }
    expect(rec.range):to_be(3)
    expect(rec.dice.base):to_be(1)
    world:place(world:unit("j3"), hex(5, 4))
    expect_error(function() ranged.fire{ unit = "g1", target = "j3" } end, "j3 is 4 hexes away, beyond g1's range of 3")
  end)

  it("light artillery reaches 5 hexes", function()
    firer("a1", "light_artillery", hex(5, 8))
    jac("j5", "regular", hex(5, 3))
    dice.force("battle", { "infantry", "cavalry" })
    expect(ranged.fire{ unit = "a1", target = "j5" }.dice.total):to_be(2) -- 1 at 5 hexes, +1 full strength
    world:place(world:unit("j5"), hex(5, 2))
    expect_error(function() ranged.fire{ unit = "a1", target = "j5" } end, "beyond a1's range of 5")
  end)
end)

describe("[Fire R3] line of sight", function()
  it("is blocked by a unit of either side between firer and target", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 5))
    gov("g2", "regular", hex(5, 7))
    expect_error(function() ranged.fire{ unit = "g1", target = "t" } end, "no line of sight from g1 to t: blocked at (5,7) (unit g2)")
    world:place(world:unit("g2"), nil)
    jac("j2", "regular", hex(5, 6))
    expect_error(function() ranged.fire{ unit = "g1", target = "t" } end, "blocked at (5,6) (unit j2)")
  end)

  it("is blocked by a lone leader of either side", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6))
    gov("Cope", "leader", hex(5, 7))
    expect_error(function() ranged.fire{ unit = "g1", target = "t" } end, "blocked at (5,7) (unit Cope)")
  end)

  it("is blocked by terrain that blocks sight, but never by the target's own hex", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6))
    world:set_terrain(hex(5, 7), "woods")
    expect_error(function() ranged.fire{ unit = "g1", target = "t" } end, "blocked at (5,7) (woods)")
    world:set_terrain(hex(5, 7), "hill")
    expect_error(function() ranged.fire{ unit = "g1", target = "t" } end, "blocked at (5,7) (hill)")
    world:set_terrain(hex(5, 7), nil)
    world:set_terrain(hex(5, 6), "woods")
    dice.force("battle", { "infantry", "flag" }) -- 2 dice: woods takes one
    answers{ hex(5, 5) }
    dice.force("battle", { "sabre", "sabre" })
    expect(ranged.fire{ unit = "g1", target = "t" }.hits):to_be(1)
  end)

  it("along a hex edge is clear with one side obstructed and blocked with both", function()
    firer("g1", "regular", hex(2, 8))
    jac("t", "regular", hex(3, 6)) -- the line runs between hex(2,7) and hex(3,7)
    gov("right", "regular", hex(3, 7))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "t" }.hits):to_be(0)
    world:set_terrain(hex(2, 7), "woods")
    expect_error(function() ranged.fire{ unit = "g1", target = "t" } end, "no line of sight from g1 to t")
  end)

  it("treats the side edge of the battlefield as an obstruction", function()
    -- offset column 0: hex(-4,8) and hex(-3,6); the line runs between the
    -- board's left edge (hex(-4,7) is off the map) and hex(-3,7)
    firer("g1", "regular", hex(-4, 8))
    jac("t", "regular", hex(-3, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "t" }.hits):to_be(0) -- the edge alone: one side only
    gov("g2", "regular", hex(-3, 7))
    expect_error(function() ranged.fire{ unit = "g1", target = "t" } end, "blocked at (-4,7) (the side edge of the battlefield)")
  end)
end)

describe("[Fire R4] dice", function()
  it("base dice by range, +1 at full strength", function()
    firer("g1", "regular", hex(5, 8))
    firer("g2", "regular", hex(2, 8), { strength = 3 })
    jac("t", "regular", hex(5, 6))
    jac("u", "regular", hex(2, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "t" }.dice.total):to_be(3)
    dice.force("battle", { "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g2", target = "u" }.dice.total):to_be(2)
  end)

  it("+1 with a leader attached to infantry, none for artillery", function()
    firer("g1", "regular", hex(5, 8), { leader = "Cope" })
    firer("g2", "regular", hex(2, 8))
    firer("a1", "light_artillery", hex(8, 8), { leader = "Hawley" })
    jac("t", "regular", hex(5, 6))
    jac("u", "regular", hex(2, 6))
    jac("v", "regular", hex(8, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local with = ranged.fire{ unit = "g1", target = "t" }
    expect(with.dice.total):to_be(4)
    expect(with.dice.parts[3].why):to_be("leader Cope")
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g2", target = "u" }.dice.total):to_be(3)
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "a1", target = "v" }.dice.total):to_be(3) -- 2 + full strength, no leader die
  end)

  it("adds Command and Combat card dice, then takes off moved infantry and the target's terrain", function()
    firer("g1", "regular", hex(5, 8)).moved = 1
    jac("t", "regular", hex(5, 6))
    world:set_terrain(hex(5, 6), "town")
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "t", cards = { command = 1, combat = 1 } }
    -- 2 base +1 full +1 command +1 combat -1 moved -1 town
    expect(rec.dice.total):to_be(3)
    local whys = {}
    for _, p in ipairs(rec.dice.parts) do
      table.insert(whys, p.why)
    end
    expect(whys):to_equal({ "base at 2 hexes", "full strength", "Command card", "Combat card", "moved", "target in town" })
  end)

  it("at zero dice a fire at a lone leader has no effect either: no casualty check", function()
    firer("g1", "regular", hex(5, 8), { strength = 2 }).moved = 1
    local l = jac("Murray", "leader", hex(5, 5)) -- 3 hexes: 1 die, -1 moved = 0
    local rec = ranged.fire{ unit = "g1", target = "Murray" }
    expect(rec.dice.total):to_be(0)
    expect(rec.leader_check):to_be_nil()
    expect(rec.eliminated):to_be(false)
    expect(l.alive):to_be(true)
    expect(tostring(rec)):to_be("g1 fires at Murray (3 hexes): 0 dice (+1 base at 3 hexes, -1 moved)\n  no dice: the fire has no effect")
  end)

  it("at zero or fewer dice rolls nothing and has no effect", function()
    firer("g1", "regular", hex(5, 8), { strength = 2 }).moved = 1
    jac("t", "regular", hex(5, 5)) -- 3 hexes: 1 die, -1 moved = 0
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.dice.raw):to_be(0)
    expect(rec.dice.total):to_be(0)
    expect(#rec.faces):to_be(0)
    expect(world:unit("t").strength):to_be(4)
  end)
end)

describe("[Fire R4] dice with variant one_die_minimum", function()
  scenario("scenarios/field.yaml", { variant = "one_die_minimum" })

  it("a fire reduced to nothing still rolls one die", function()
    firer("g1", "regular", hex(5, 8), { strength = 2 }).moved = 1
    jac("t", "regular", hex(5, 5))
    dice.force("battle", { "infantry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.dice.raw):to_be(0)
    expect(rec.dice.total):to_be(1)
    expect(world:unit("t").strength):to_be(3)
  end)

  it("a fire at a lone leader reduced to nothing still makes his casualty check", function()
    firer("g1", "regular", hex(5, 8), { strength = 2 }).moved = 1
    jac("Murray", "leader", hex(5, 5))
    dice.force("battle", { "sabre", "sabre" })
    local rec = ranged.fire{ unit = "g1", target = "Murray" }
    expect(rec.leader_check.outcome):to_be("casualty")
    expect(rec.eliminated):to_be(true)
  end)
end)

describe("[Fire R6] hits", function()
  it("one hit per symbol matching the target; sabres and other symbols miss at range", function()
    firer("g1", "regular", hex(5, 8))
    firer("a1", "light_artillery", hex(8, 8))
    jac("inf", "regular", hex(5, 6))
    jac("cav", "light_cavalry", hex(8, 6))
    dice.force("battle", { "infantry", "sabre", "artillery" })
    expect(ranged.fire{ unit = "g1", target = "inf" }.hits):to_be(1)
    dice.force("battle", { "cavalry", "infantry", "sabre" })
    expect(ranged.fire{ unit = "a1", target = "cav" }.hits):to_be(1)
    expect(world:unit("inf").strength):to_be(3)
    expect(world:unit("cav").strength):to_be(3)
  end)

  it("hits artillery with artillery symbols", function()
    firer("g1", "regular", hex(5, 8))
    jac("guns", "light_artillery", hex(5, 6))
    dice.force("battle", { "artillery", "artillery", "infantry" })
    expect(ranged.fire{ unit = "g1", target = "guns" }.removed):to_be(2)
  end)

  it("the last block gives the firer a victory banner; surplus hits do nothing", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6), { strength = 1 })
    dice.force("battle", { "infantry", "infantry", "flag" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.hits):to_be(2)
    expect(rec.removed):to_be(1)
    expect(rec.eliminated):to_be(true)
    expect(world:pool("government", "medals")):to_be(1)
    expect(world:pool("jacobite", "medals")):to_be(0)
  end)

  it("a hit on a unit with an attached leader calls a leader casualty check", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6), { leader = "Murray" })
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "sabre" }) -- the check: two sabres
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.leader_check.dice):to_be(2)
    expect(#rec.leader_check.faces):to_be(2)
    expect(rec.leader_check.outcome):to_be("casualty")
    expect(world:unit("t").leader):to_be_nil()
    expect(world:pool("government", "medals")):to_be(1)
  end)

  it("no hit, no leader casualty check; a survived check keeps the leader", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6), { leader = "Murray" })
    dice.force("battle", { "cavalry", "cavalry", "cavalry" }) -- no hits, no check rolled
    expect(ranged.fire{ unit = "g1", target = "t" }.leader_check):to_be_nil()
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "flag" })
    expect(ranged.fire{ unit = "g1", target = "t", again = true }.leader_check.outcome):to_be("unhurt")
    expect(world:unit("t").leader):to_be("Murray")
  end)

  it("a leader whose unit is eliminated checks with one die, then stands alone and retreats", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6), { strength = 1, leader = "Murray" })
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    dice.force("battle", { "flag" }) -- one die, no sabre: he survives
    answers{ hex(5, 5) }
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.eliminated):to_be(true)
    expect(rec.leader_check.dice):to_be(1)
    expect(rec.leader_check.outcome):to_be("retreated")
    expect(world:unit("Murray").hex):to_be(hex(5, 5))
    expect(world:unit("Murray").type):to_be("leader")
    expect(world:unit("t").leader):to_be_nil() -- he is no longer with the unit that fell
  end)

  it("fire at a lone leader is a leader casualty check", function()
    firer("g1", "regular", hex(5, 8))
    jac("Murray", "leader", hex(5, 6))
    dice.force("battle", { "sabre", "flag" })
    local rec = ranged.fire{ unit = "g1", target = "Murray" }
    expect(rec.leader_check.outcome):to_be("unhurt")
    dice.force("battle", { "sabre", "sabre" })
    rec = ranged.fire{ unit = "g1", target = "Murray", again = true }
    expect(rec.eliminated):to_be(true)
    expect(world:unit("Murray").alive):to_be(false)
    expect(world:pool("government", "medals")):to_be(1)
  end)
end)

describe("[Fire R7] retreats and rally checks", function()
  it("flags, after the hits, make the target retreat per flag and take a rally check", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "regular", hex(5, 6))
    dice.force("battle", { "infantry", "flag", "flag" })
    answers{ hex(5, 5), hex(6, 4) }
    dice.force("battle", { "cavalry", "infantry" }) -- rally check failed: one more block
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.retreat.moved):to_be(2)
    expect(rec.retreat.rally.passed):to_be(false)
    expect(world:unit("t").hex):to_be(hex(6, 4))
    expect(world:unit("t").strength):to_be(2)
  end)

  it("a flag is no hit and ignored flags cause no retreat and no rally check", function()
    firer("g1", "regular", hex(5, 8))
    jac("t", "grenadier", hex(5, 6)) -- grenadiers ignore one flag
    dice.force("battle", { "flag", "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.hits):to_be(0)
    expect(rec.retreat.ignored):to_be(1)
    expect(rec.retreat.rally):to_be_nil()
    expect(world:unit("t").hex):to_be(hex(5, 6))
  end)
end)
