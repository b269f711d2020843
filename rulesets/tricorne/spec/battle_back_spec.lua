-- [Back] Defending unit battle back (melee-take-ground.txt).
-- The Jacobite attacker stands at hex(5,5), the Government defender d at
-- hex(5,6) unless a case says otherwise.

local add = require("spec/support/units").add

local function ordered(id, kind, at, extra)
  local u = add(id, "jacobite", kind, at, extra)
  u.ordered = true
  return u
end

-- Rolls since the log was at `mark` events (world:events counts from the end).
local function rolls_in(events)
  local n = 0
  for _, e in ipairs(events) do
    if e.event == "roll" then
      n += 1
    end
  end
  return n
end

scenario("scenarios/field.yaml")

describe("[Back] the defender battles back", function()
  it("when it kept a block and its hex: the attacker now defends, taking hits, retreat and rally check", function()
    local a = ordered("a", "highland", hex(5, 5))
    add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- 1 hit
    answers{ "battle back" }
    dice.force("battle", { "infantry", "sabre", "flag" })                 -- 3 dice (d lost its full strength)
    answers{ hex(6, 4) }
    dice.force("battle", { "flag", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back.dice.total):to_be(3)
    expect(rec.battle_back.hits):to_be(2)
    expect(a.strength):to_be(2)
    expect(a.hex):to_be(hex(6, 4))
  end)

  it("with dice as a normal melee: leader, full strength, but never a highland charge", function()
    ordered("a", "regular", hex(5, 5))
    add("d", "government", "highland", hex(5, 6), { leader = "Forbes" })
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- 2 +1 full +1 leader
    local rec = melee.attack{ unit = "a", target = "d" }
    local whys = {}
    for _, p in ipairs(rec.battle_back.dice.parts) do
      table.insert(whys, p.why)
    end
    expect(whys):to_equal({ "melee", "full strength", "leader Forbes" })
  end)

  it("and the melee stops: no battle back against a battle back", function()
    ordered("a", "regular", hex(5, 5))
    add("d", "government", "regular", hex(5, 6))
    local before = #world:events(1000)
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- a keeps 3 blocks and its hex
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(world:unit("a").strength):to_be(3)
    expect(rolls_in(world:events(#world:events(1000) - before))):to_be(2)
    expect(rec.battle_back.battle_back):to_be_nil()
  end)

  it("against each of several attackers, one melee at a time", function()
    ordered("a1", "highland", hex(5, 5))
    ordered("a2", "highland", hex(6, 5))
    local d = add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- a1: 1 hit
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry" })             -- d battles back at a1
    local first = melee.attack{ unit = "a1", target = "d" }
    expect(first.battle_back.target):to_be("a1")
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- a2: 1 hit
    answers{ "battle back" }
    dice.force("battle", { "infantry", "infantry" })                       -- d (2 blocks) battles back at a2
    local second = melee.attack{ unit = "a2", target = "d" }
    expect(second.battle_back.target):to_be("a2")
    expect(second.battle_back.dice.total):to_be(3)
    expect(d.strength):to_be(2)
    expect(world:unit("a1").strength):to_be(3)
    expect(world:unit("a2").strength):to_be(2)
  end)
end)

describe("[Back] no battle back", function()
  it("by a defender forced out of its hex, even into a hex still adjacent to the attacker", function()
    local a = ordered("a", "regular", hex(4, 6))
    add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    answers{ hex(4, 7) } -- adjacent to a
    dice.force("battle", { "sabre", "cavalry" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(world:unit("d").hex:distance(a.hex)):to_be(1)
    expect(rec.battle_back):to_be_nil()
  end)

  it("by an eliminated defender", function()
    ordered("a", "regular", hex(5, 5))
    add("d", "government", "regular", hex(5, 6), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "stay" }
    expect(melee.attack{ unit = "a", target = "d" }.battle_back):to_be_nil()
  end)

  it("by a defender that played First Strike or Ambush (see melee_spec), nor may one be played against a battle back", function()
    ordered("a", "regular", hex(5, 5))
    add("d", "government", "regular", hex(5, 6))
    world:set_pool("jacobite", "first_strike", 1) -- the attacker's side holds a First Strike
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- d battles back: a is not asked
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back.hits):to_be(1)
    expect(world:pool("jacobite", "first_strike")):to_be(1)
  end)
end)

describe("[Back] a defender pinned against the board edge", function()
  it("loses a block per hex it cannot retreat, and battles back once it passes its rally check", function()
    local a = ordered("a", "highland", hex(3, 9))
    local d = add("d", "government", "regular", hex(3, 10)) -- the bottom row: nowhere to go
    dice.force("battle", { "flag", "flag", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "cavalry" })             -- rally check passed
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry" }) -- battle back with 2 blocks: 3 dice
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.retreat.lost):to_be(2)
    expect(d.strength):to_be(2)
    expect(d.hex):to_be(hex(3, 10))
    expect(rec.battle_back.hits):to_be(1)
    expect(a.strength):to_be(3)
  end)

  it("does not battle back when it failed its rally check", function()
    ordered("a", "highland", hex(3, 9))
    local d = add("d", "government", "regular", hex(3, 10))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "cavalry", "infantry" }) -- rally check failed
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(d.strength):to_be(2)
    expect(rec.battle_back):to_be_nil()
    expect(rec.no_battle_back):to_be("d could not retreat and failed its rally check")
  end)

  it("cannot take ground after a battle back that eliminates the attacker (see take_ground_spec)", function()
    ordered("a", "highland", hex(5, 5), { strength = 1 })
    local d = add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    melee.attack{ unit = "a", target = "d" }
    expect(d.hex):to_be(hex(5, 6))
  end)
end)

-- "The defending enemy unit MAY battle back": the defender's side decides
-- (decision tricorne.battle_back), by default it does.
local decisions = require("spec/support/units").decisions

describe("[Back] a defender halted by terrain", function()
  it("still battles back: terrain halts a unit's own combat after moving, and a bonus melee, not its battle back", function()
    ordered("a", "regular", hex(5, 5))
    local d = add("d", "government", "regular", hex(5, 6))
    world:set_terrain(hex(5, 6), "woods")
    d.moved = 1 -- it entered the woods this turn
    dice.force("battle", { "cavalry", "cavalry", "cavalry" }) -- 3 +1 -1 woods
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry" }) -- 3 +1 full -1 moved
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back.hits):to_be(1)
  end)
end)

describe("[Back] the defender may battle back", function()
  it("and may decline: no strike, no roll, and the record says so", function()
    local a = ordered("a", "regular", hex(5, 5))
    add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- 1 hit, d stays
    answers{ "decline" }
    local before = #world:events(1000)
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back):to_be_nil()
    expect(rec.no_battle_back):to_be("d chose not to battle back")
    expect(rolls_in(world:events(#world:events(1000) - before))):to_be(1)
    expect(a.strength):to_be(4)
    expect(string.find(tostring(rec), "no battle back: d chose not to battle back", 1, true) ~= nil):to_be(true)
  end)

  it("is the defender's decision, battle back or decline, and battles back by default", function()
    ordered("a", "regular", hex(5, 5))
    add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ answers.default }
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back.hits):to_be(1)
    local d = decisions("tricorne.battle_back")
    expect(#d):to_be(1)
    expect(d[1].side):to_be("government")
    expect(d[1].options):to_equal({ "battle back", "decline" })
    expect(d[1].default):to_be("battle back")
    expect(d[1].request.unit):to_be(world:unit("d"))
    expect(d[1].request.attacker):to_be(world:unit("a"))
  end)

  it("is not asked when the defender cannot battle back", function()
    ordered("a", "regular", hex(5, 5))
    add("d", "government", "regular", hex(5, 6), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "stay" }
    melee.attack{ unit = "a", target = "d" }
    expect(#decisions("tricorne.battle_back")):to_be(0)
  end)

  it("is answered by a policy like any decision (here: only at full strength)", function()
    policy("tricorne.battle_back", function(_, request)
      return request.unit.strength == 4 and "battle back" or "decline"
    end)
    ordered("a1", "regular", hex(5, 5))
    ordered("a2", "regular", hex(6, 5))
    add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- a1 misses
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- d battles back at full strength
    expect(melee.attack{ unit = "a1", target = "d" }.battle_back ~= nil):to_be(true)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- a2: 1 hit
    expect(melee.attack{ unit = "a2", target = "d" }.no_battle_back):to_be("d chose not to battle back")
  end)
end)
