-- [Bonus] Bonus melee (melee-take-ground.txt, "Bonus Melee").
-- The Jacobite attacker starts at hex(5,5); d1 at hex(5,6) is its first
-- target; from hex(5,6) the enemies d2 at hex(4,7) and d3 at hex(6,6) are
-- adjacent (d3 is not adjacent to hex(5,5)).

local units = require("spec/support/units")
local add, attacker = units.add, units.attacker

local function targets(d1_strength)
  add("d1", "government", "regular", hex(5, 6), { strength = d1_strength })
  add("d2", "government", "regular", hex(4, 7))
  add("d3", "government", "regular", hex(6, 6))
end

-- The first melee, 4 highland dice, eliminating d1 (1 block).
local function eliminate_d1()
  dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
end

scenario("scenarios/field.yaml")

describe("[Bonus] after taking ground", function()
  it("a chain: highland infantry takes ground, makes a bonus melee and takes ground again", function()
    local a = attacker("highland")
    targets(1)
    eliminate_d1()
    answers{ "take ground", "d2" }
    -- the bonus melee: 2 +1 full strength -1 moved (taking ground), no highland charge
    dice.force("battle", { "flag", "cavalry" })
    answers{ hex(4, 8) }                          -- d2 retreats
    dice.force("battle", { "sabre", "cavalry" }) -- and rallies
    answers{ "take ground" }                      -- a takes ground again; no second bonus
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(rec.bonus.defender):to_be("d2")
    expect(rec.bonus.attack.dice.total):to_be(2)
    expect(rec.bonus.took_ground):to_be(hex(4, 7))
    expect(rec.bonus.no_bonus):to_be("a already made its bonus melee this turn")
    expect(a.hex):to_be(hex(4, 7))
    expect(world:unit("d2").hex):to_be(hex(4, 8))
  end)

  it("dice as a normal melee: taking ground counts as moving, so infantry loses a die", function()
    attacker("regular", { leader = "Perth" })
    targets(1)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry", "cavalry" }) -- 3 +1 +1 leader
    answers{ "take ground", "d3" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- 3 +1 +1 -1 moved
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- d3 battles back
    local rec = melee.attack{ unit = "a", target = "d1" }
    local whys = {}
    for _, p in ipairs(rec.bonus.attack.dice.parts) do
      table.insert(whys, p.why)
    end
    expect(whys):to_equal({ "melee", "full strength", "leader Perth", "moved" })
    expect(rec.bonus.battle_back.how):to_be("battle_back")
  end)

  it("cavalry may make one; it need not move on to the same enemy", function()
    attacker("battle_cavalry")
    add("d1", "government", "regular", hex(5, 6))
    add("d3", "government", "regular", hex(6, 6))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    answers{ hex(5, 7) }                          -- d1 retreats, adjacent to hex(5,6) again
    dice.force("battle", { "sabre", "cavalry" })
    answers{ "take ground", "d3" }                -- d3 rather than d1
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- no moved penalty for cavalry
    answers{ "battle back" }
    dice.force("battle", { "artillery", "artillery", "artillery", "artillery" }) -- d3 battles back
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(tricorne.adjacent_enemies(world:unit("a"))[1].id):to_be("d3")
    expect(rec.bonus.defender):to_be("d3")
    expect(rec.bonus.attack.dice.total):to_be(4)
  end)

  it("the first adjacent enemy is the default target", function()
    attacker("highland")
    targets(1)
    eliminate_d1()
    answers{ "take ground", answers.default }
    dice.force("battle", { "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.bonus.defender):to_be(tricorne.adjacent_enemies(world:unit("a"))[1].id)
  end)

  it("is optional", function()
    local a = attacker("highland")
    targets(1)
    eliminate_d1()
    answers{ "take ground", "none" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.bonus):to_be_nil()
    expect(rec.no_bonus):to_be("the attacker declined")
    expect(a.bonus_done):to_be_nil()
  end)
end)

describe("[Bonus] no bonus melee", function()
  it("for infantry without an attached leader that is not highland", function()
    attacker("regular")
    targets(1)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.no_bonus):to_be("a is neither highland infantry, cavalry nor infantry with an attached leader")
  end)

  it("without taking ground, even with enemies adjacent", function()
    attacker("highland")
    targets(1)
    eliminate_d1()
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.no_bonus):to_be("no ground taken")
  end)

  it("with no enemy adjacent to the hex taken: nothing to attack, and no question", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    eliminate_d1()
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(rec.no_bonus):to_be("no enemy adjacent")
    expect(#units.decisions("tricorne.bonus_melee")):to_be(0)
  end)

  it("a second time in a turn", function()
    local a = attacker("highland")
    a.bonus_done = true
    targets(1)
    eliminate_d1()
    answers{ "take ground" }
    expect(melee.attack{ unit = "a", target = "d1" }.no_bonus):to_be("a already made its bonus melee this turn")
  end)

  it("out of terrain that halts combat (see take_ground_spec: woods)", function()
    attacker("highland")
    targets(1)
    world:set_terrain(hex(5, 6), "marsh")
    dice.force("battle", { "infantry", "cavalry", "cavalry" }) -- 4 dice -1 marsh
    answers{ "take ground" }
    expect(melee.attack{ unit = "a", target = "d1" }.no_bonus):to_be("a entered marsh and may not combat again")
  end)

  it("after the defender retired and rallied, even if it was then eliminated", function()
    attacker("highland")
    add("d1", "government", "light_cavalry", hex(5, 6), { strength = 2 })
    add("d2", "government", "regular", hex(4, 7))
    answers{ "retire and rally" }
    dice.force("battle", { "cavalry", "infantry", "infantry", "infantry" }) -- only the cavalry symbol hits
    answers{ hex(5, 8) } -- d2 holds hex(4,7): the first step to hex(5,7) is the only one
    dice.force("battle", { "infantry", "infantry" }) -- rally failed: its last block
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(world:unit("d1").alive):to_be(false)
    expect(rec.no_bonus):to_be("the defender retired and rallied")
  end)

  it("and a unit's melee and bonus melee are one call, finished before the next unit's", function()
    attacker("highland")
    targets(1)
    local b = add("b", "jacobite", "highland", hex(7, 5))
    b.ordered = true
    eliminate_d1()
    answers{ "take ground", "d3" }
    dice.force("battle", { "infantry", "infantry" })            -- bonus on d3: 2 dice, 2 hits
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })   -- d3 (2 blocks) battles back
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.bonus.battle_back.how):to_be("battle_back")
    expect(world:unit("d3").strength):to_be(2)
    -- only now may b fight d3
    dice.force("battle", { "infantry", "infantry", "cavalry", "cavalry" })
    answers{ "take ground" }
    local second = melee.attack{ unit = "b", target = "d3" }
    expect(second.attack.eliminated):to_be(true)
  end)
end)

describe("[Bonus] with variant no_bonus_melee", function()
  scenario("scenarios/field.yaml", { variant = "no_bonus_melee" })

  it("no unit makes a bonus melee", function()
    attacker("highland")
    targets(1)
    eliminate_d1()
    answers{ "take ground" }
    expect(melee.attack{ unit = "a", target = "d1" }.no_bonus):to_be("bonus melee is off (melee.bonus_melee)")
  end)
end)
