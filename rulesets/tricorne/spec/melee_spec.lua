-- [Base] The base melee the take-ground document assumes (our complete
-- version): who may attack, dice, symbols that hit, retreats and rally
-- checks, lone leaders, retire and rally, First Strike and Ambush.
-- Jacobites attack down the board: the attacker at hex(5,5), the Government
-- defender at hex(5,6) (it retreats to hex(4,7) or hex(5,7)).

local units = require("spec/support/units")
local add, attacker = units.add, units.attacker

local function defender(kind, extra)
  return add("d", "government", kind, hex(5, 6), extra)
end

scenario("scenarios/field.yaml")

describe("[Base] who may attack in melee", function()
  it("an ordered unit attacks an adjacent enemy", function()
    add("a", "jacobite", "highland", hex(5, 5))
    defender("regular")
    add("far", "government", "regular", hex(5, 8))
    expect_error(function() melee.attack{ unit = "a", target = "d" } end, "rule error: a is not ordered this turn")
    world:unit("a").ordered = true
    expect_error(function() melee.attack{ unit = "a", target = "far" } end, "far is not adjacent to a")
  end)

  it("not a lone leader, not light artillery that moved, not a unit halted by terrain", function()
    add("L", "jacobite", "leader", hex(5, 5)).ordered = true
    defender("regular")
    expect_error(function() melee.attack{ unit = "L", target = "d" } end, "a lone leader does not attack")
    local guns = add("g", "jacobite", "light_artillery", hex(6, 5))
    guns.ordered, guns.moved = true, 1
    expect_error(function() melee.attack{ unit = "g", target = "d" } end, "moved this turn and may not combat after moving")
    local h = add("h", "jacobite", "highland", hex(4, 6))
    h.ordered, h.moved = true, 1 -- moved into the woods this turn: halted
    world:set_terrain(hex(4, 6), "woods")
    expect_error(function() melee.attack{ unit = "h", target = "d" } end, "h entered woods this turn and may not combat")
  end)
end)

describe("[Base] who may be attacked, and the call itself", function()
  it("only an enemy; a target and an attacker on the battlefield, errors at the caller's line", function()
    attacker("regular")
    add("f", "jacobite", "regular", hex(5, 6))
    local gone = add("gone", "government", "regular", hex(6, 5))
    world:eliminate(gone, "spec")
    expect_error(function() melee.attack{ unit = "a", target = "f" } end, "rule error: f is friendly")
    expect_error(function() melee.attack("a") end, "call melee.attack{unit=, target=}")
    local msg = expect_error(function() melee.attack{ unit = "a", target = "gone" } end, "target gone is not on the battlefield")
    expect(string.find(msg, "melee_spec.lua", 1, true) ~= nil):to_be(true)
    msg = expect_error(function() melee.attack{ unit = "nobody", target = "f" } end, "no unit 'nobody' (attacking unit)")
    expect(string.find(msg, "melee_spec.lua", 1, true) ~= nil):to_be(true)
  end)

  it("a unit halted by terrain may not make a bonus melee either (melee.can_strike)", function()
    local a = attacker("highland")
    local d = defender("regular")
    a.moved = 1
    world:set_terrain(hex(5, 5), "marsh")
    local ok, why = melee.can_strike(a, d, "bonus")
    expect(ok):to_be(false)
    expect(why):to_be("a entered marsh and may not combat again")
    expect(melee.can_strike(d, a, "battle_back")):to_be(true)
  end)

  it("only an ordered unit makes a bonus melee (melee.can_strike)", function()
    local a = add("a", "jacobite", "highland", hex(5, 5))
    local d = defender("regular")
    local ok, why = melee.can_strike(a, d, "bonus")
    expect(ok):to_be(false)
    expect(why):to_be("a is not ordered this turn: only an ordered unit attacks (game:order)")
    a.ordered = true
    expect(melee.can_strike(a, d, "bonus")):to_be(true)
  end)
end)

describe("[Base] melee dice", function()
  it("the type's melee dice, +1 full strength, +1 leader, +1 highland charge in an ordered attack", function()
    local a = attacker("highland", { leader = "Perth" })
    local d = defender("regular")
    expect(melee.dice(a, d, "attack").total):to_be(5)
    expect(melee.dice(a, d, "bonus").total):to_be(4)
    expect(melee.dice(a, d, "battle_back").total):to_be(4)
    expect(melee.dice(d, a, "battle_back").total):to_be(4) -- regular: 3 +1 full strength
    d.strength = 2
    expect(melee.dice(d, a, "battle_back").total):to_be(3)
  end)

  it("-1 for infantry that moved (not cavalry), minus the target hex's terrain by attacker class", function()
    local a = attacker("regular")
    local d = defender("regular")
    a.moved = 1
    world:set_terrain(hex(5, 6), "woods")
    expect(melee.dice(a, d, "attack").total):to_be(2) -- 3 +1 -1 moved -1 woods
    local c = add("c", "jacobite", "battle_cavalry", hex(6, 5))
    c.moved = 1
    expect(melee.dice(c, d, "attack").total):to_be(2) -- 3 +1, no moved penalty, -2 woods for cavalry
  end)

  it("card additions count", function()
    local a = attacker("regular")
    local d = defender("regular")
    expect(melee.dice(a, d, "attack", { command = 1, combat = 1 }).total):to_be(6)
  end)

  it("a lone leader has none: a rule error, not a count", function()
    add("Perth", "jacobite", "leader", hex(5, 5))
    local d = defender("regular")
    expect_error(function() melee.dice(world:unit("Perth"), d, "attack") end, "rule error: Perth (leader) has no melee dice")
  end)
end)

describe("[Base] melee hits", function()
  it("the target's symbol and sabres hit for units whose sabres hit", function()
    attacker("highland")
    defender("regular")
    dice.force("battle", { "infantry", "sabre", "cavalry", "artillery" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" }) -- d battles back with 3 (no longer full)
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.hits):to_be(2)
    expect(world:unit("d").strength):to_be(2)
  end)

  it("light cavalry's sabres miss", function()
    attacker("light_cavalry")
    defender("regular")
    dice.force("battle", { "infantry", "sabre", "sabre" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "artillery", "artillery" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.hits):to_be(1)
  end)

  it("flags make the defender retreat and take a rally check", function()
    attacker("highland")
    defender("regular")
    dice.force("battle", { "flag", "cavalry", "cavalry", "artillery" })
    answers{ hex(5, 7) }
    dice.force("battle", { "sabre", "cavalry" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.retreat.moved):to_be(1)
    expect(rec.attack.retreat.rally.passed):to_be(true)
    expect(world:unit("d").hex):to_be(hex(5, 7))
  end)

  it("a zero-dice attack has no effect", function()
    local a = attacker("militia", { strength = 1 }) -- 2 dice
    a.moved = 1
    defender("regular")
    world:set_terrain(hex(5, 6), "town") -- -1 moved, -2 town
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- d battles back
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.dice.total):to_be(0)
    expect(world:unit("d").strength):to_be(4)
  end)
end)

describe("[Base] a lone leader attacked in melee", function()
  it("falls to a sabre, even from light cavalry, a banner to the attacker", function()
    attacker("light_cavalry")
    add("Cope", "government", "leader", hex(5, 6))
    dice.force("battle", { "sabre", "flag", "flag" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.attack.lone_leader):to_be("casualty")
    expect(rec.attack.eliminated):to_be(true)
    expect(world:pool("jacobite", "medals")):to_be(1)
  end)

  it("an attack reduced to no dice leaves him where he is: no casualty, no retreat", function()
    local a = attacker("militia", { strength = 1 }) -- 2 dice
    a.moved = 1
    add("Cope", "government", "leader", hex(5, 6))
    world:set_terrain(hex(5, 6), "town") -- -1 moved, -2 town
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.attack.dice.total):to_be(0)
    expect(rec.attack.eliminated):to_be(false)
    expect(rec.attack.left):to_be(false)
    expect(world:unit("Cope").hex):to_be(hex(5, 6))
  end)

  it("without a sabre he retreats, flags or not", function()
    attacker("highland")
    add("Cope", "government", "leader", hex(5, 6))
    dice.force("battle", { "infantry", "infantry", "flag", "cavalry" })
    answers{ hex(4, 7), "stay" }
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.attack.lone_leader):to_be("retreated")
    expect(world:unit("Cope").hex):to_be(hex(4, 7))
  end)

  it("who cannot retreat is captured", function()
    attacker("highland")
    add("Cope", "government", "leader", hex(5, 6))
    add("x", "jacobite", "regular", hex(4, 7))
    add("y", "jacobite", "regular", hex(5, 7))
    dice.force("battle", { "infantry", "infantry", "flag", "cavalry" })
    answers{ "stay" }
    expect(melee.attack{ unit = "a", target = "Cope" }.attack.lone_leader):to_be("captured")
  end)
end)

describe("[Base] retire and rally", function()
  it("light cavalry may retire and rally: only cavalry symbols hit, flags are ignored, it retires and rallies", function()
    attacker("highland")
    defender("light_cavalry")
    answers{ "retire and rally" }
    dice.force("battle", { "cavalry", "sabre", "flag", "infantry" })
    answers{ hex(5, 7), hex(5, 8) }
    dice.force("battle", { "flag", "cavalry" }) -- rally check
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.reaction):to_be("retire and rally")
    expect(rec.attack.hits):to_be(1)
    expect(rec.attack.retired.moved):to_be(2)
    expect(rec.attack.retired.left):to_be(true)
    expect(rec.attack.retired.rally.passed):to_be(true)
    expect(world:unit("d").hex):to_be(hex(5, 8))
    expect(rec.battle_back):to_be_nil()
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(rec.no_bonus):to_be("the defender retired and rallied")
  end)

  it("a unit that retires but cannot move loses a block per hex and still does not battle back", function()
    add("a", "jacobite", "highland", hex(3, 9)).ordered = true
    add("d", "government", "light_cavalry", hex(3, 10)) -- the bottom row
    answers{ "retire and rally" }
    dice.force("battle", { "infantry", "infantry", "infantry", "infantry" })
    dice.force("battle", { "sabre", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.retired.lost):to_be(2)
    expect(rec.attack.retired.left):to_be(false)
    expect(world:unit("d").strength):to_be(2)
    expect(rec.battle_back):to_be_nil()
    expect(rec.no_battle_back):to_be("d retired and rallied")
  end)

  it("or stand and battle back", function()
    attacker("highland")
    defender("light_cavalry")
    answers{ "stand" }
    dice.force("battle", { "infantry", "infantry", "infantry", "infantry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "infantry" }) -- battle back, 2 +1 full strength
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back.hits):to_be(1)
  end)
end)

describe("[Base] First Strike and Ambush", function()
  it("the defender plays First Strike and strikes first; an attacker forced out makes no attack, and the defender never takes ground", function()
    attacker("regular")
    defender("regular")
    world:set_pool("government", "first_strike", 1)
    answers{ "first strike" }
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    answers{ hex(5, 4) }
    dice.force("battle", { "sabre", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.cancelled):to_be("is forced out of its hex by the first strike: no attack")
    expect(world:pool("government", "first_strike")):to_be(0)
    expect(world:unit("d").hex):to_be(hex(5, 6))
    expect(rec.attack):to_be_nil()
  end)

  it("an attacker that stands attacks; the defender who played the card does not battle back", function()
    attacker("highland")
    defender("regular")
    world:set_pool("government", "ambush", 1)
    answers{ "ambush" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- ambush: no effect
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- the attack: 1 hit
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.first_strike.how):to_be("first_strike")
    expect(rec.attack.hits):to_be(1)
    expect(rec.battle_back):to_be_nil()
    expect(rec.no_battle_back):to_be("d played ambush")
  end)

  it("an attacker that survives a first strike and wins may take ground (our default)", function()
    attacker("highland")
    defender("regular", { strength = 1 })
    world:set_pool("government", "first_strike", 1)
    answers{ "first strike" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground" } -- no enemy left adjacent: no bonus melee question
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.took_ground):to_be(hex(5, 6))
  end)

  it("the card is spent: a side holding two has one left", function()
    attacker("highland")
    defender("regular")
    world:set_pool("government", "first_strike", 2)
    answers{ "first strike" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    melee.attack{ unit = "a", target = "d" }
    expect(world:pool("government", "first_strike")):to_be(1)
  end)

  it("ambush dice are a param", function()
    local a = attacker("highland")
    local d = defender("regular")
    expect(melee.dice(d, a, "first_strike", nil, "ambush").total):to_be(4)
  end)
end)

describe("[Ground] [Bonus] [Back] the melee's steps are functions a designer can change", function()
  -- melee.resolve calls melee.reaction, melee.first_strike, melee.strike,
  -- melee.retreat, melee.take_ground, melee.bonus and melee.battle_back by
  -- name: replacing one (a house rule) changes every melee.
  local function with(name, fn, body)
    local old = melee[name]
    melee[name] = fn
    local ok, err = pcall(body)
    melee[name] = old
    if not ok then
      error(err, 0)
    end
  end

  it("a house rule for the battle back replaces melee.battle_back", function()
    attacker("regular")
    defender("regular")
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    with("battle_back", function(rec) rec.no_battle_back = "house rule: never" end, function()
      local rec = melee.attack{ unit = "a", target = "d" }
      expect(rec.no_battle_back):to_be("house rule: never")
    end)
  end)

  it("a house rule for taking ground replaces melee.take_ground, and the bonus melee follows it", function()
    attacker("highland")
    defender("regular", { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    with("take_ground", function(rec) rec.ground = "house rule: hold the line" end, function()
      local rec = melee.attack{ unit = "a", target = "d" }
      expect(rec.ground):to_be("house rule: hold the line")
      expect(rec.no_bonus):to_be("no ground taken")
    end)
  end)

  it("a house rule for the retreat replaces melee.retreat: flags ignored, so the defender stays and battles back", function()
    attacker("regular")
    defender("regular")
    dice.force("battle", { "flag", "flag", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    with("retreat", function(st) return st end, function()
      local rec = melee.attack{ unit = "a", target = "d" }
      expect(rec.attack.flags):to_be(2)
      expect(world:unit("d").hex):to_be(hex(5, 6))
      expect(rec.battle_back ~= nil):to_be(true)
    end)
  end)
end)

describe("[Base] First Strike and Ambush dice as params", function()
  scenario("scenarios/field.yaml", { set = { ["melee.first_strike_dice"] = 1, ["melee.ambush_dice"] = -1 } })

  it("a First Strike adds first_strike_dice, an Ambush ambush_dice, an attack neither", function()
    local a = attacker("highland")
    local d = defender("regular")
    expect(melee.dice(d, a, "first_strike", nil, "first strike").total):to_be(5)
    expect(melee.dice(d, a, "first_strike", nil, "ambush").total):to_be(3)
    expect(melee.dice(d, a, "battle_back").total):to_be(4)
  end)
end)

describe("[Base] First Strike with melee.take_ground_after_first_strike = false", function()
  scenario("scenarios/field.yaml", { set = { ["melee.take_ground_after_first_strike"] = false } })

  it("bars the attacker from taking ground after the defender struck first", function()
    attacker("highland")
    defender("regular", { strength = 1 })
    world:set_pool("government", "first_strike", 1)
    answers{ "first strike" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.took_ground):to_be_nil()
    expect(rec.ground):to_be("the defender struck first")
  end)
end)
