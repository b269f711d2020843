-- [Base] Leaders (leaders.lua): attaching, lone leaders attacked in melee and
-- their retreat, leaders lost. The Jacobite attacker stands at hex(5,5); the
-- Government leader Cope alone at hex(5,6) retreats down the board, to
-- hex(4,7) or hex(5,7).

local units = require("spec/support/units")
local add, attacker = units.add, units.attacker

local function cope()
  return add("Cope", "government", "leader", hex(5, 6))
end

-- The attacker's melee dice: no sabre, so the lone leader is not hit and retreats.
local function miss_him()
  dice.force("battle", { "infantry", "infantry", "flag", "cavalry" })
end

scenario("scenarios/field.yaml")

describe("[Base] attaching a leader", function()
  it("only to a unit of his side without a leader", function()
    local u = add("u", "government", "regular", hex(2, 8), { leader = "Hawley" })
    local v = add("v", "jacobite", "regular", hex(2, 4))
    local l = cope()
    expect_error(function() leaders.attach(u, l) end, "rule error: u already has leader Hawley attached")
    expect_error(function() leaders.attach(v, l) end, "rule error: leader Cope cannot attach to an enemy unit")
    expect(l.hex):to_be(hex(5, 6))
  end)
end)

describe("[Base] a lone leader attacked in melee retreats", function()
  it("onto a friendly unit without a leader: he attaches to it and the retreat ends", function()
    attacker("regular")
    local l = cope()
    local h = add("h", "government", "regular", hex(4, 7))
    add("x", "government", "regular", hex(5, 7), { leader = "Hawley" }) -- has a leader: not a way back
    miss_him()
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.attack.lone_leader):to_be("attached")
    expect({ rec.attack.hits, rec.attack.flags, rec.attack.removed, rec.attack.eliminated, rec.attack.left })
      :to_equal({ 0, 0, 0, false, true })
    expect(h.leader):to_be("Cope")
    expect(l.alive):to_be(false) -- off the map: attached
    expect(rec.took_ground):to_be(hex(5, 6))
  end)

  it("not onto a unit with a leader, another lone leader or an enemy: then he is captured, a banner to the attacker", function()
    attacker("regular")
    local l = cope()
    add("x", "government", "regular", hex(4, 7), { leader = "Hawley" })
    add("Loudoun", "government", "leader", hex(5, 7))
    miss_him()
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.attack.lone_leader):to_be("captured")
    expect({ rec.attack.eliminated, rec.attack.left }):to_equal({ true, true })
    expect(l.alive):to_be(false)
    expect(world:pool("jacobite", "medals")):to_be(1)
  end)

  it("not off the board: on his own baseline row he is captured", function()
    add("a", "jacobite", "regular", hex(3, 9)).ordered = true
    local l = add("Cope", "government", "leader", hex(3, 10))
    miss_him()
    answers{ "take ground" }
    expect(melee.attack{ unit = "a", target = "Cope" }.attack.lone_leader):to_be("captured")
    expect(l.alive):to_be(false)
  end)

  it("with one hex back he takes it unasked", function()
    attacker("regular")
    local l = cope()
    add("x", "government", "regular", hex(4, 7), { leader = "Hawley" })
    miss_him()
    answers{ "take ground" }
    melee.attack{ unit = "a", target = "Cope" }
    expect(l.hex):to_be(hex(5, 7))
  end)

  it("the first hex back is the default", function()
    attacker("regular")
    local l = cope()
    miss_him()
    answers{ answers.default, "take ground" }
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(l.hex):to_be(hex(4, 7))
    expect({ rec.attack.lone_leader, rec.attack.eliminated }):to_equal({ "retreated", false })
  end)

  it("a lone leader plays no First Strike or Ambush: he is not asked", function()
    attacker("regular")
    cope()
    world:set_pool("government", "first_strike", 1)
    world:set_pool("government", "ambush", 1)
    miss_him()
    answers{ hex(4, 7), "take ground" }
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.reaction):to_be("stand")
    expect(world:pool("government", "first_strike")):to_be(1)
  end)

  it("an attack with no dice does not move him, and he does not battle back", function()
    local a = attacker("militia", { strength = 1 })
    a.moved = 1
    local l = cope()
    world:set_terrain(hex(5, 6), "town") -- 2 -1 moved -2 town: no dice
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.attack.dice.total):to_be(0)
    expect(rec.attack.lone_leader):to_be_nil()
    expect({ rec.attack.hits, rec.attack.flags, rec.attack.removed, rec.attack.eliminated, rec.attack.left })
      :to_equal({ 0, 0, 0, false, false })
    expect(l.hex):to_be(hex(5, 6))
    expect(rec.battle_back):to_be_nil()
    expect(rec.no_battle_back):to_be("a lone leader does not attack or battle back in melee")
  end)
end)

describe("[Base] a leader lost", function()
  it("a leader who joined a unit on its retreat and then falls is eliminated, a banner to the enemy", function()
    add("g1", "government", "regular", hex(5, 8)).ordered = true
    local j = add("j", "jacobite", "regular", hex(5, 6))
    local perth = add("Perth", "jacobite", "leader", hex(5, 5))
    add("b", "jacobite", "regular", hex(6, 5))
    dice.force("battle", { "flag", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "cavalry", "cavalry" })
    ranged.fire{ unit = "g1", target = "j" }
    expect(j.leader):to_be("Perth")
    world:place(world:unit("g1"), hex(5, 7)) -- two hexes from j at hex(5,5)
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "sabre" }) -- two sabres: a casualty
    local rec = ranged.fire{ unit = "g1", target = "j", again = true } -- a second fire, on purpose
    expect(rec.leader_check.outcome):to_be("casualty")
    expect(j.leader):to_be_nil()
    expect(perth.strength):to_be(0)
    expect(world:pool("government", "medals")):to_be(1)
  end)
end)
