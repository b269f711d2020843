-- [Ground] Taking ground (melee-take-ground.txt, "Taking Ground").
-- The Jacobite attacker stands at hex(5,5), the Government defender at
-- hex(5,6); the Government retreats to hex(4,7) or hex(5,7).

local units = require("spec/support/units")
local add, attacker = units.add, units.attacker

scenario("scenarios/field.yaml")

describe("[Ground] a successful melee lets the attacker take ground", function()
  it("ordered infantry that eliminates the defender may advance into its hex; that counts as moving", function()
    local a = attacker("regular")
    add("d", "government", "regular", hex(5, 6), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(a.hex):to_be(hex(5, 6))
    expect(a.moved):to_be(1)
  end)

  it("ordered cavalry that forces the defender to retreat may advance", function()
    local a = attacker("battle_cavalry")
    add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "flag", "cavalry", "cavalry", "cavalry" })
    answers{ hex(4, 7) }
    dice.force("battle", { "sabre", "cavalry" })
    answers{ "take ground", "none" } -- d at hex(4,7) is adjacent again: decline the bonus melee
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(a.hex):to_be(hex(5, 6))
  end)

  it("is never mandatory: the attacker may stay", function()
    local a = attacker("regular")
    add("d", "government", "regular", hex(5, 6), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "stay" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.took_ground):to_be_nil()
    expect(rec.ground):to_be("the attacker chose to stay")
    expect(a.hex):to_be(hex(5, 5))
  end)

  it("follows terrain movement rules: into woods the unit stops and may not combat again", function()
    local a = attacker("highland")
    add("d", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    world:set_terrain(hex(5, 6), "woods")
    dice.force("battle", { "infantry", "cavalry", "cavalry" }) -- 4 dice, -1 woods
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(tricorne.halted(a)):to_be(true)
    expect(rec.no_bonus):to_be("a entered woods and may not combat again")
  end)

  it("after a lone leader retreats or is eliminated", function()
    local a = attacker("highland")
    add("Cope", "government", "leader", hex(5, 6))
    dice.force("battle", { "infantry", "infantry", "flag", "cavalry" })
    answers{ hex(5, 7), "take ground", "none" } -- Cope retreats to hex(5,7), adjacent again
    local rec = melee.attack{ unit = "a", target = "Cope" }
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(a.hex):to_be(hex(5, 6))
  end)

  it("after the defender completes its retire and rally (see melee_spec: retire and rally)", function()
    local a = attacker("highland")
    add("d", "government", "light_cavalry", hex(5, 6))
    answers{ "retire and rally" }
    dice.force("battle", { "infantry", "infantry", "infantry", "infantry" })
    answers{ hex(4, 7), hex(3, 8) }
    dice.force("battle", { "cavalry", "cavalry" }) -- failed rally check: still, ground may be taken
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.attack.retired.rally.passed):to_be(false)
    expect(a.hex):to_be(hex(5, 6))
  end)
end)

describe("[Ground] taking ground is movement: melee.can_take_ground", function()
  it("never into an occupied or impassable hex, never by a unit not ordered or halted by terrain", function()
    local a = attacker("highland")
    add("d", "government", "regular", hex(5, 6))
    expect(melee.can_take_ground(a, hex(4, 6))):to_be(true)
    local ok, why = melee.can_take_ground(a, hex(5, 6))
    expect({ ok, why }):to_equal({ false, "(5,6) is not vacant" })
    world:set_terrain(hex(4, 6), "river")
    ok, why = melee.can_take_ground(a, hex(4, 6))
    expect({ ok, why }):to_equal({ false, "(4,6) is impassable" })
    ok, why = melee.can_take_ground(a, hex(6, 4), true)
    expect(ok):to_be(true) -- after a First Strike, by default (take_ground_after_first_strike)
    a.moved = 1
    world:set_terrain(hex(5, 5), "woods")
    ok, why = melee.can_take_ground(a, hex(6, 4))
    expect({ ok, why }):to_equal({ false, "a was halted by terrain this turn" })
    a.ordered = nil
    ok, why = melee.can_take_ground(a, hex(6, 4))
    expect({ ok, why }):to_equal({ false, "a is not ordered" })
  end)
end)

describe("[Ground] no taking ground", function()
  it("after ranged combat: no question is asked and the firer stays", function()
    local g = add("g", "government", "regular", hex(5, 8))
    g.ordered = true
    add("t", "jacobite", "regular", hex(5, 6), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g", target = "t" }
    expect(rec.eliminated):to_be(true)
    expect(g.hex):to_be(hex(5, 8))
    expect(rec.took_ground):to_be_nil()
  end)

  it("for ordered artillery attacking in melee", function()
    local a = attacker("light_artillery")
    add("d", "government", "regular", hex(5, 6), { strength = 1 })
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.ground):to_be("light_artillery never takes ground")
    expect(a.hex):to_be(hex(5, 5))
  end)

  it("for a defender battling back, even when it eliminates the attacker", function()
    attacker("highland", { strength = 1 })
    local d = add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" }) -- highland at 1 block: 2 +1 charge
    answers{ "battle back" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.battle_back.eliminated):to_be(true)
    expect(d.hex):to_be(hex(5, 6))
  end)

  it("for a defender that struck first with First Strike or Ambush (see melee_spec)", function()
    attacker("regular", { strength = 1 })
    local d = add("d", "government", "regular", hex(5, 6))
    world:set_pool("government", "ambush", 1)
    answers{ "ambush" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(rec.cancelled):to_be("is eliminated by the first strike: no attack")
    expect(d.hex):to_be(hex(5, 6))
  end)
end)

describe("[Ground] [Bonus] an advance that does not reach the vacated hex", function()
  -- "If a unit does not take ground and move onto the vacant hex, it
  -- forfeits the opportunity to make a bonus melee": an `enters` reaction
  -- (a designer's rule) may stop or eliminate the advancing unit.
  it("eliminated by a reaction on the way: no ground taken, no bonus melee, and the record says why", function()
    local a = attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    on("enters", function(u, h)
      if u.id == "a" and h == hex(5, 6) then world:eliminate(u, "a mine") end
    end)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground" } -- no bonus melee is asked after it
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(a.alive):to_be(false)
    expect(rec.took_ground):to_be_nil()
    expect(rec.ground):to_be("a was eliminated advancing into (5,6)")
    expect(rec.bonus):to_be_nil()
    expect(rec.no_bonus):to_be("no ground taken")
    expect(string.find(tostring(rec), "a does not take ground (a was eliminated advancing into (5,6))", 1, true) ~= nil):to_be(true)
  end)

  it("stopped by a reaction and put back: no ground taken, no movement counted, no bonus melee", function()
    local a = attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    on("enters", function(u, h)
      if u.id == "a" and h == hex(5, 6) then world:place(u, hex(5, 5)) end
    end)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(a.hex):to_be(hex(5, 5))
    expect(a.moved or 0):to_be(0)
    expect(rec.took_ground):to_be_nil()
    expect(rec.ground):to_be("a's advance into (5,6) was stopped at (5,5)")
    expect(rec.no_bonus):to_be("no ground taken")
    expect(a.bonus_done):to_be_nil()
  end)

  it("a bonus melee's advance stopped the same way ends the melee without an error", function()
    local a = attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7), { strength = 1 })
    on("enters", function(u, h)
      if u.id == "a" and h == hex(4, 7) then world:eliminate(u, "a mine") end
    end)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground", "d2" }
    dice.force("battle", { "infantry", "cavalry" }) -- the bonus melee eliminates d2
    answers{ "take ground" }
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.took_ground):to_be(hex(5, 6))
    expect(rec.bonus.took_ground):to_be_nil()
    expect(rec.bonus.ground):to_be("a was eliminated advancing into (4,7)")
    expect(a.alive):to_be(false)
  end)
end)
