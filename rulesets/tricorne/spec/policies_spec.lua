-- Decisions answered by policies (as in `sim`): a policy receives the
-- request with its `default`, the option a player who takes the default
-- gets. Each decision whose default is its first option says so in the
-- request, so a policy can "take the default unless ..." (here: always).
-- The Jacobite attacker "a" stands at hex(5,5); the Government below it.

local units = require("spec/support/units")
local add, attacker = units.add, units.attacker

-- Queued answers come first, whatever decision asks (a policy answers only
-- when none is left), so these cases answer every decision by policy.
local function always(id, choice)
  policy(id, function() return choice end)
end

-- A policy for `id` that answers the request's default and counts its calls.
local asked = {}
local function takes_default(id)
  asked[id] = 0
  policy(id, function(options, request)
    asked[id] += 1
    expect(request.default):to_be(options[1])
    return request.default
  end)
end

scenario("scenarios/field.yaml")

describe("[Turn] [Ground] [Bonus] [Base] a policy sees each decision's default", function()
  it("which ordered unit fights next, and its target: the first of each", function()
    local g1 = add("g1", "government", "regular", hex(2, 8))
    local g2 = add("g2", "government", "regular", hex(3, 8))
    add("j1", "jacobite", "regular", hex(2, 6))
    add("j2", "jacobite", "regular", hex(3, 6))
    takes_default("cc_turn.combat")
    takes_default("tricorne.target")
    local g = turn.new{ deck = { "probe_centre", "probe_centre", "probe_centre" }, hand = 1, quiet = true }
    g:play("government", "probe_centre")
    g:order(g1)
    g:order(g2)
    dice.force("battle", { "cavalry", "cavalry", "cavalry" }) -- g1 at j1, 2 hexes
    dice.force("battle", { "cavalry", "cavalry" })            -- g2 at j1 too, 3 hexes
    local fought = g:fight()
    expect(fought[1]):to_be(g1)
    expect(asked["cc_turn.combat"]):to_be(1)
    expect(asked["tricorne.target"]):to_be(2)
  end)

  it("the hex a unit retreats to, and a lone leader's", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    add("Cope", "government", "leader", hex(6, 6))
    takes_default("tricorne.retreat")
    takes_default("tricorne.leader_retreat")
    always("tricorne.take_ground", "stay")
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "sabre", "cavalry" })
    melee.attack{ unit = "a", target = "d" }
    expect(world:unit("d").hex):to_be(hex(4, 7)) -- the first of (4,7) and (5,7)
    local b = add("b", "jacobite", "regular", hex(6, 5))
    b.ordered = true
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" }) -- no sabre: Cope retreats
    melee.attack{ unit = "b", target = "Cope" }
    expect(asked["tricorne.retreat"]):to_be(1)
    expect(asked["tricorne.leader_retreat"]):to_be(1)
  end)

  it("the target of a bonus melee: the first adjacent enemy", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    takes_default("tricorne.bonus_melee")
    always("tricorne.take_ground", "take ground")
    always("tricorne.battle_back", "decline")
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    dice.force("battle", { "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.bonus.defender):to_be("d2")
    expect(asked["tricorne.bonus_melee"]):to_be(1)
  end)
end)
