-- What the records of ranged.fire and melee.attack say: their fields and the
-- summary they print as (what a designer reads at the prompt and in the
-- log), the map marks, and the quiet path (no marks, no summary note) that
-- analysis uses. The Government fires up the board from hex(5,8); the
-- Jacobite attacker of a melee stands at hex(5,5), its target at hex(5,6).

local units = require("spec/support/units")
local add, attacker, firer = units.add, units.attacker, units.firer

local function lines(...)
  return table.concat({ ... }, "\n")
end

scenario("scenarios/field.yaml")

describe("[Fire R5] [Fire R6] [Fire R7] a fire's record and summary", function()
  it("a fire reduced to no dice rolls nothing and says so", function()
    firer("g1", "regular", hex(5, 8), { strength = 2 }).moved = 1
    add("t", "jacobite", "regular", hex(5, 5))
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect({ rec.hits, rec.flags, rec.removed, rec.eliminated }):to_equal({ 0, 0, 0, false })
    expect(tostring(rec)):to_be(lines(
      "g1 fires at t (3 hexes): 0 dice (+1 base at 3 hexes, -1 moved)",
      "  no dice: the fire has no effect"))
  end)

  it("hits, flags, blocks lost, an elimination with its banner and the leader's check", function()
    firer("g1", "regular", hex(5, 8))
    add("t", "jacobite", "regular", hex(5, 6), { strength = 2, leader = "Murray" })
    dice.force("battle", { "infantry", "infantry", "flag" })
    dice.force("battle", { "sabre" }) -- the unit is gone: one die, a sabre fells him
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect({ rec.hits, rec.flags, rec.removed, rec.eliminated }):to_equal({ 2, 1, 2, true })
    expect(rec.retreat):to_be_nil() -- an eliminated unit does not retreat
    expect(tostring(rec)):to_be(lines(
      "g1 fires at t (2 hexes): 3 dice (+2 base at 2 hexes, +1 full strength)",
      "  rolled [infantry infantry flag]: 2 hits, 1 flag",
      "  t loses 2 blocks, eliminated: a victory banner for government",
      "  leader Murray: casualty check [sabre] -> casualty"))
  end)

  it("one hit and no flag; flags all ignored", function()
    firer("g1", "regular", hex(5, 8))
    firer("g2", "regular", hex(2, 8))
    add("t", "jacobite", "regular", hex(5, 6))
    add("gr", "jacobite", "grenadier", hex(2, 6))
    dice.force("battle", { "infantry", "cavalry", "sabre" })
    expect(tostring(ranged.fire{ unit = "g1", target = "t" })):to_be(lines(
      "g1 fires at t (2 hexes): 3 dice (+2 base at 2 hexes, +1 full strength)",
      "  rolled [infantry cavalry sabre]: 1 hit, 0 flags",
      "  t loses 1 block"))
    dice.force("battle", { "infantry", "infantry", "flag" })
    local rec = ranged.fire{ unit = "g2", target = "gr" }
    expect({ rec.retreat.flags, rec.retreat.ignored, rec.retreat.hexes, rec.retreat.left }):to_equal({ 1, 1, 0, false })
    expect(tostring(rec)):to_be(lines(
      "g2 fires at gr (2 hexes): 3 dice (+2 base at 2 hexes, +1 full strength)",
      "  rolled [infantry infantry flag]: 2 hits, 1 flag",
      "  gr loses 2 blocks",
      "  flags 1, all ignored"))
  end)

  it("a blocked retreat: blocks lost, a failed rally check", function()
    firer("g1", "regular", hex(5, 2))
    local t = add("t", "jacobite", "regular", hex(5, 0)) -- the Jacobites' own baseline row
    dice.force("battle", { "flag", "cavalry", "cavalry" })
    dice.force("battle", { "infantry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(t.strength):to_be(2)
    expect(rec.eliminated):to_be(false)
    expect({ rec.retreat.hexes, rec.retreat.moved, rec.retreat.lost, rec.retreat.left }):to_equal({ 1, 0, 1, false })
    expect(tostring(rec)):to_be(lines(
      "g1 fires at t (2 hexes): 3 dice (+2 base at 2 hexes, +1 full strength)",
      "  rolled [cavalry cavalry flag]: 0 hits, 1 flag",
      "  t loses 0 blocks",
      "  flags 1, ignored 0, retreats 1 hex: moved 0, lost 1 (blocked); rally check [infantry cavalry] failed, lost 1"))
  end)

  it("a unit that loses its last block to a blocked retreat is eliminated", function()
    firer("g1", "regular", hex(5, 2))
    add("t", "jacobite", "regular", hex(5, 0), { strength = 1 })
    dice.force("battle", { "flag", "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.eliminated):to_be(true)
    expect(rec.retreat.left):to_be(true)
    expect(world:pool("government", "medals")):to_be(1)
  end)

  it("a melee's defender that loses its last block to a blocked retreat is eliminated too", function()
    add("a", "jacobite", "regular", hex(3, 9)).ordered = true
    add("d", "government", "regular", hex(3, 10), { strength = 1 }) -- the bottom row: no hex back
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect({ rec.attack.hits, rec.attack.eliminated, rec.attack.left }):to_equal({ 0, true, true })
    expect(rec.battle_back):to_be_nil()
  end)

  it("a retreat onto a lone friendly leader who joins; a passed rally check", function()
    firer("g1", "regular", hex(5, 8))
    add("t", "jacobite", "regular", hex(5, 6))
    add("Perth", "jacobite", "leader", hex(5, 5))
    add("b", "jacobite", "regular", hex(6, 5))
    dice.force("battle", { "flag", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "cavalry", "cavalry" }) -- 2 dice +1 for Perth, now attached
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect({ rec.retreat.moved, rec.retreat.lost, rec.retreat.attached, rec.retreat.left }):to_equal({ 1, 0, "Perth", true })
    expect({ rec.retreat.rally.passed, rec.retreat.rally.lost }):to_equal({ true, 0 })
    expect(tostring(rec)):to_be(lines(
      "g1 fires at t (2 hexes): 3 dice (+2 base at 2 hexes, +1 full strength)",
      "  rolled [cavalry cavalry flag]: 0 hits, 1 flag",
      "  t loses 0 blocks",
      "  flags 1, ignored 0, retreats 1 hex: moved 1, joined leader Perth; rally check [cavalry cavalry sabre] passed"))
  end)

  it("a single die is a roll like any other", function()
    firer("g1", "regular", hex(5, 8), { strength = 2 })
    add("t", "jacobite", "regular", hex(5, 5)) -- 3 hexes: 1 die
    dice.force("battle", { "infantry" })
    expect(tostring(ranged.fire{ unit = "g1", target = "t" })):to_be(lines(
      "g1 fires at t (3 hexes): 1 dice (+1 base at 3 hexes)",
      "  rolled [infantry]: 1 hit, 0 flags",
      "  t loses 1 block"))
  end)

  it("fire at a lone leader: a casualty check and nothing else", function()
    firer("g1", "regular", hex(5, 8))
    add("Murray", "jacobite", "leader", hex(5, 6))
    dice.force("battle", { "sabre", "flag" })
    local rec = ranged.fire{ unit = "g1", target = "Murray" }
    expect(rec.leader_target):to_be(true)
    expect({ rec.hits, rec.flags, rec.removed, rec.eliminated, #rec.faces }):to_equal({ 0, 0, 0, false, 0 })
    expect(rec.leader_check.dice):to_be(2)
    expect(tostring(rec)):to_be(lines(
      "g1 fires at Murray (2 hexes): 3 dice (+2 base at 2 hexes, +1 full strength)",
      "  lone leader: casualty check [sabre flag] -> unhurt"))
  end)
end)

describe("[Fire R1] the map marks and the summary note; the quiet path has neither", function()
  it("marks the firer F and the target T and notes the summary in the log", function()
    firer("g1", "regular", hex(5, 8))
    add("t", "jacobite", "regular", hex(5, 6))
    world:mark(hex(0, 0), "old")
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    local marks = world:marks()
    expect(#marks):to_be(2)
    expect({ marks[1].hex, marks[1].label, marks[2].hex, marks[2].label }):to_equal({ hex(5, 8), "F", hex(5, 6), "T" })
    expect(world:log(1)[1]):to_be(tostring(rec))
  end)

  it("quiet = true: no marks, no note, the same outcome", function()
    firer("g1", "regular", hex(5, 8))
    local t = add("t", "jacobite", "regular", hex(5, 6))
    add("Murray", "jacobite", "leader", hex(6, 6))
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    local before = #world:log(1000)
    local rec = ranged.fire{ unit = "g1", target = "t", quiet = true }
    expect(rec.hits):to_be(1)
    expect(t.strength):to_be(3)
    expect(#world:marks()):to_be(0)
    for _, l in ipairs(world:log(#world:log(1000) - before)) do
      expect(string.find(l, "fires at t (", 1, true)):to_be_nil()
    end
    dice.force("battle", { "sabre", "flag" })
    before = #world:log(1000)
    ranged.fire{ unit = "g1", target = "Murray", quiet = true, again = true }
    expect(#world:marks()):to_be(0)
    for _, l in ipairs(world:log(#world:log(1000) - before)) do
      expect(string.find(l, "fires at Murray (", 1, true)):to_be_nil()
    end
  end)
end)

describe("[Base] [Ground] [Bonus] [Back] a melee's record and summary", function()
  it("an elimination, the leader's check, taking ground, a bonus melee and its battle back", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1, leader = "Cope" })
    add("d2", "government", "regular", hex(4, 7))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "flag" })            -- Cope survives his unit
    answers{ hex(5, 7), "take ground", "d2" }   -- Cope retreats; a takes ground, then attacks d2
    dice.force("battle", { "infantry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.bonus.no_bonus):to_be_nil() -- the bonus melee did not take ground: nothing more to say
    expect(tostring(rec)):to_be(lines(
      "melee: a attacks d1",
      "  a melees d1: 4 dice (+2 melee, +1 full strength, +1 highland charge)",
      "    rolled [infantry cavalry cavalry cavalry]",
      "    1 hit, d1 loses 1, eliminated",
      "    leader Cope: casualty check [flag] -> retreated",
      "  a takes ground: (5,6)",
      "  bonus melee: a attacks d2",
      "    a bonus melee on d2: 2 dice (+2 melee, +1 full strength, -1 moved)",
      "      rolled [infantry cavalry]",
      "      1 hit, d2 loses 1",
      "    d2 battles back against a: 3 dice (+3 melee)",
      "      rolled [infantry cavalry cavalry]",
      "      1 hit, a loses 1"))
  end)

  it("retire and rally; the attacker stays", function()
    attacker("highland")
    add("d", "government", "light_cavalry", hex(5, 6))
    answers{ "retire and rally" }
    dice.force("battle", { "cavalry", "sabre", "flag", "infantry" })
    answers{ hex(5, 7), hex(5, 8) }
    dice.force("battle", { "flag", "cavalry" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.flags):to_be(0) -- a retiring unit ignores flags
    expect(tostring(rec)):to_be(lines(
      "melee: a attacks d (d: retire and rally)",
      "  a melees d: 4 dice (+2 melee, +1 full strength, +1 highland charge)",
      "    rolled [infantry cavalry sabre flag]",
      "    1 hit, d loses 1",
      "    retires 2 hexes: moved 2; rally check [cavalry flag] passed",
      "  a does not take ground (the attacker chose to stay)",
      "  no bonus melee: no ground taken"))
  end)

  it("a first strike that forces the attacker out", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    world:set_pool("government", "first_strike", 1)
    answers{ "first strike" }
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    answers{ hex(5, 4) }
    dice.force("battle", { "sabre", "cavalry" })
    expect(tostring(melee.attack{ unit = "a", target = "d" })):to_be(lines(
      "melee: a attacks d (d: first strike)",
      "  d strikes first at a: 4 dice (+3 melee, +1 full strength)",
      "    rolled [cavalry cavalry cavalry flag]",
      "    0 hits, a loses 0",
      "    flags 1, ignored 0, retreats 1 hex: moved 1; rally check [cavalry sabre] passed",
      "  a is forced out of its hex by the first strike: no attack"))
  end)

  it("an attack with no dice, then the battle back", function()
    local a = attacker("militia", { strength = 1 })
    a.moved = 1
    add("d", "government", "regular", hex(5, 6))
    world:set_terrain(hex(5, 6), "town")
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    expect(tostring(melee.attack{ unit = "a", target = "d" })):to_be(lines(
      "melee: a attacks d",
      "  a melees d: 0 dice (+2 melee, -1 moved, -2 target in town)",
      "    no dice: no effect",
      "  d battles back against a: 4 dice (+3 melee, +1 full strength)",
      "    rolled [cavalry cavalry cavalry cavalry]",
      "    0 hits, a loses 0"))
  end)

  it("a lone leader who retreats; artillery does not take ground", function()
    attacker("light_artillery")
    add("Cope", "government", "leader", hex(5, 6))
    dice.force("battle", { "infantry", "infantry", "flag" })
    answers{ hex(5, 7) }
    expect(tostring(melee.attack{ unit = "a", target = "Cope" })):to_be(lines(
      "melee: a attacks Cope",
      "  a melees Cope: 3 dice (+2 melee, +1 full strength)",
      "    rolled [infantry infantry flag]",
      "    lone leader: retreated",
      "  a does not take ground (light_artillery never takes ground)",
      "  no bonus melee: no ground taken"))
  end)

  it("a pinned defender that fails its rally check; flags all ignored", function()
    add("a", "jacobite", "regular", hex(3, 9)).ordered = true
    add("d", "government", "regular", hex(3, 10))
    dice.force("battle", { "flag", "flag", "cavalry", "cavalry" })
    dice.force("battle", { "cavalry", "infantry" })
    expect(tostring(melee.attack{ unit = "a", target = "d" })):to_be(lines(
      "melee: a attacks d",
      "  a melees d: 4 dice (+3 melee, +1 full strength)",
      "    rolled [cavalry cavalry flag flag]",
      "    0 hits, d loses 0",
      "    flags 2, ignored 0, retreats 2 hexes: moved 0, lost 2 (blocked); rally check [infantry cavalry] failed, lost 1",
      "  no battle back: d could not retreat and failed its rally check"))
    add("b", "jacobite", "regular", hex(5, 5)).ordered = true
    add("g", "government", "grenadier", hex(5, 6))
    dice.force("battle", { "flag", "infantry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(tostring(melee.attack{ unit = "b", target = "g" })):to_be(lines(
      "melee: b attacks g",
      "  b melees g: 4 dice (+3 melee, +1 full strength)",
      "    rolled [infantry cavalry cavalry flag]",
      "    1 hit, g loses 1",
      "    flags 1, all ignored",
      "  g battles back against b: 3 dice (+3 melee)",
      "    rolled [cavalry cavalry cavalry]",
      "    0 hits, b loses 0"))
  end)

  it("one die; one hex of retreat blocked", function()
    attacker("militia", { strength = 1 })
    add("d", "government", "regular", hex(5, 6))
    world:set_terrain(hex(5, 6), "marsh") -- 2 -1 marsh: one die
    dice.force("battle", { "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    expect(tostring(melee.attack{ unit = "a", target = "d" })):to_be(lines(
      "melee: a attacks d",
      "  a melees d: 1 dice (+2 melee, -1 target in marsh)",
      "    rolled [cavalry]",
      "    0 hits, d loses 0",
      "  d battles back against a: 4 dice (+3 melee, +1 full strength)",
      "    rolled [cavalry cavalry cavalry cavalry]",
      "    0 hits, a loses 0"))
    add("b", "jacobite", "regular", hex(3, 9)).ordered = true
    add("e", "government", "regular", hex(3, 10))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "b", target = "e" }
    expect(string.find(tostring(rec), "flags 1, ignored 0, retreats 1 hex: moved 0, lost 1 (blocked); rally check [cavalry sabre] passed", 1, true) ~= nil):to_be(true)
  end)

  it("a bonus melee whose attacker stays says no more about bonus melees", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground", "d2" }
    dice.force("battle", { "infantry", "cavalry" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.bonus.ground):to_be("the attacker chose to stay")
    expect(rec.bonus.no_bonus):to_be_nil()
  end)

  it("the log names each roll by its strike: strikes first at, melees, bonus melee on, battles back against", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    world:set_pool("government", "ambush", 1)
    answers{ "ambush" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })             -- d1's ambush misses
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- a eliminates d1
    answers{ "take ground", "d2" }
    dice.force("battle", { "cavalry", "cavalry" })                         -- the bonus melee misses
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })   -- d2 battles back
    local before = #world:events(1000)
    melee.attack{ unit = "a", target = "d1" }
    local reasons = {}
    for _, e in ipairs(world:events(#world:events(1000) - before)) do
      if e.event == "roll" then
        table.insert(reasons, e.reason)
      end
    end
    expect(reasons):to_equal({ "d1 strikes first at a", "a melees d1", "a bonus melee on d2", "d2 battles back against a" })
  end)

  it("a retreat onto a lone leader in melee names him", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    add("Cope", "government", "leader", hex(4, 7))
    add("x", "government", "regular", hex(5, 7))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "cavalry", "cavalry" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(string.find(tostring(rec), "retreats 1 hex: moved 1, joined leader Cope; rally check [cavalry cavalry sabre] passed", 1, true) ~= nil):to_be(true)
  end)

  it("marks the attacker A and the defender D and notes the summary once; quiet = true does neither", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    add("e", "government", "regular", hex(6, 5))
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    world:mark(hex(0, 0), "old") -- a melee clears the marks of what came before
    local before = #world:log(1000)
    local rec = melee.attack{ unit = "a", target = "d" }
    local marks = world:marks()
    expect(#marks):to_be(2)
    expect({ marks[1].hex, marks[1].label, marks[2].hex, marks[2].label }):to_equal({ hex(5, 5), "A", hex(5, 6), "D" })
    expect(world:log(1)[1]):to_be(tostring(rec))
    local notes = 0
    for _, l in ipairs(world:log(#world:log(1000) - before)) do
      if string.find(l, "melee: a attacks", 1, true) then
        notes += 1
      end
    end
    expect(notes):to_be(1)
    world:clear_marks()
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    before = #world:log(1000)
    melee.attack{ unit = "a", target = "e", quiet = true, again = true }
    expect(#world:marks()):to_be(0)
    for _, l in ipairs(world:log(#world:log(1000) - before)) do
      expect(string.find(l, "melee: a attacks", 1, true)):to_be_nil()
    end
  end)

  it("a melee cancelled by a first strike is noted too, unless quiet", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    world:set_pool("government", "first_strike", 2)
    answers{ "first strike" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "flag" })
    answers{ hex(5, 4) }
    dice.force("battle", { "sabre", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(world:log(1)[1]):to_be(tostring(rec))
    world:place(world:unit("a"), hex(5, 5))
    world:clear_marks()
    answers{ "first strike" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "flag" })
    answers{ hex(5, 4) }
    dice.force("battle", { "sabre", "cavalry" })
    local before = #world:log(1000)
    melee.attack{ unit = "a", target = "d", quiet = true, again = true }
    expect(#world:marks()):to_be(0)
    for _, l in ipairs(world:log(#world:log(1000) - before)) do
      expect(string.find(l, "melee: a attacks", 1, true)):to_be_nil()
    end
  end)
end)

-- The events of kind `kind` ("roll", "hit", "eliminate", "pool") logged from
-- event number `from` on, as "unit-or-side: reason" lines.
local function reasons(kind, from)
  local out = {}
  local events = world:events()
  for i = from + 1, #events do
    local e = events[i]
    if e.event == kind then
      table.insert(out, tostring(e.unit or e.side) .. ": " .. e.reason)
    end
  end
  return out
end

describe("[Fire R5] [Base] the log says why each roll, loss and card was made", function()
  it("a fire's roll, its hit and the leader's casualty check name the fire", function()
    firer("g1", "regular", hex(5, 8))
    add("t", "jacobite", "regular", hex(5, 6), { leader = "Murray" })
    local from = #world:events()
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "sabre" })
    ranged.fire{ unit = "g1", target = "t" }
    expect(reasons("roll", from)):to_equal({ "nil: g1 fires at t", "nil: g1 fires at t: leader casualty check" })
    expect(reasons("hit", from)):to_equal({ "t: g1 fires at t" })
  end)

  it("fire at a lone leader rolls his casualty check", function()
    firer("g1", "regular", hex(5, 8))
    add("Murray", "jacobite", "leader", hex(5, 6))
    local from = #world:events()
    dice.force("battle", { "sabre", "sabre" })
    ranged.fire{ unit = "g1", target = "Murray" }
    expect(reasons("roll", from)):to_equal({ "nil: g1 fires at Murray: fire at lone leader" })
    expect(reasons("eliminate", from)):to_equal({ "Murray: g1 fires at Murray" })
  end)

  it("a blocked retreat's lost block and a failed rally check name the fire that forced them", function()
    firer("g1", "regular", hex(5, 2))
    add("t", "jacobite", "regular", hex(5, 0))
    local from = #world:events()
    dice.force("battle", { "flag", "cavalry", "cavalry" })
    dice.force("battle", { "infantry", "cavalry" })
    ranged.fire{ unit = "g1", target = "t" }
    expect(reasons("roll", from)):to_equal({ "nil: g1 fires at t", "nil: g1 fires at t: rally check t" })
    expect(reasons("hit", from)):to_equal({ "t: g1 fires at t: retreat blocked", "t: g1 fires at t: rally check failed" })
  end)

  it("a retire and rally that cannot move: its lost blocks and its rally check say so", function()
    add("a", "jacobite", "highland", hex(3, 9)).ordered = true
    add("d", "government", "light_cavalry", hex(3, 10)) -- the bottom row
    local from = #world:events()
    answers{ "retire and rally" }
    dice.force("battle", { "infantry", "infantry", "infantry", "infantry" })
    dice.force("battle", { "sabre", "cavalry" })
    melee.attack{ unit = "a", target = "d" }
    expect(reasons("roll", from)):to_equal({ "nil: a melees d", "nil: a melees d: retire and rally: rally check d" })
    expect(reasons("hit", from)):to_equal({ "d: a melees d: retire and rally: retreat blocked" })
  end)

  it("a lone leader who cannot retreat is captured by the melee", function()
    attacker("highland")
    add("Cope", "government", "leader", hex(5, 6))
    add("x", "jacobite", "regular", hex(4, 7))
    add("y", "jacobite", "regular", hex(5, 7))
    local from = #world:events()
    dice.force("battle", { "infantry", "infantry", "flag", "cavalry" })
    answers{ "stay" }
    melee.attack{ unit = "a", target = "Cope" }
    expect(reasons("eliminate", from)):to_equal({ "Cope: a melees Cope: leader cannot retreat" })
  end)

  it("a First Strike and a Combat card are spent by the unit that plays them", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    world:set_pool("government", "first_strike", 1)
    local from = #world:events()
    answers{ "first strike" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- d strikes first
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- a attacks; d does not battle back
    melee.attack{ unit = "a", target = "d" }
    expect(reasons("pool", from)):to_equal({ "government: d plays first strike" })
    firer("g1", "regular", hex(5, 8))
    add("t", "jacobite", "regular", hex(7, 6))
    world:set_pool("government", "extra_fire", 1)
    from = #world:events()
    answers{ "extra_fire" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    ranged.fire{ unit = "g1", target = "t" }
    expect(reasons("pool", from)):to_equal({ "government: g1 plays Extra Fire" })
  end)
end)
