-- [RA] The reserve artillery token: strength per side, not a battlefield unit,
-- ranged fire only with no range or line-of-sight limit, never a target;
-- ordering by Artillery Bombard or one order of a section card; the key rule
-- that it combats first.

scenario("great_war/bombardment.yaml")

describe("the reserve artillery token", function()
  it("has the strength the scenario gives each side", function()
    expect(reserve_artillery.battery("allies").strength):to_be(4)
    expect(reserve_artillery.battery("central").strength):to_be(3)
    expect(tostring(reserve_artillery.battery("allies"))):to_be("allies reserve artillery (strength 4)")
  end)

  it("is not a battlefield unit: no unit, no hex, no figures on the map", function()
    expect(world:unit("allies.reserve_artillery")):to_be_nil()
    for _, u in ipairs(world:units{}) do
      expect(reserve_artillery.is_battery(u)):to_be(false)
    end
    expect(reserve_artillery.battery("allies").hex):to_be_nil()
  end)

  it("fires with no range or line of sight limit", function()
    -- c6 at (6,1) is six rows from the nearest allied unit, behind the
    -- central trench line, the town and the woods.
    local a4 = world:unit("a4")
    expect(a4.hex:distance(hex(6, 1)) > 5):to_be(true)
    expect((world:los(a4.hex, hex(6, 1)))):to_be(false)
    dice.force("targeting", { 2, 2 })
    dice.force("battle", { "burst", "burst" })
    local rec = reserve_artillery.fire{ side = "allies", target = "c6", card = "bombard", hq = 2 }
    expect(rec.target):to_be(hex(6, 1))
    expect(rec.target_unit):to_be("c6")
    expect(world:unit("c6").strength):to_be(1)
  end)
end)

describe("targeting the reserve artillery", function()
  it("is a rule error for a battlefield unit's combat (check_target)", function()
    local battery = reserve_artillery.battery("central")
    expect_error(function() reserve_artillery.check_target(battery) end,
      "central.reserve_artillery cannot be targeted")
    expect_error(function() reserve_artillery.check_target("allies.reserve_artillery") end, "cannot be targeted")
    expect_error(function() reserve_artillery.check_target("reserve_artillery") end, "not a battlefield unit")
    local c1 = world:unit("c1")
    expect(reserve_artillery.check_target(c1)):to_be(c1)
  end)

  it("is a rule error for the opposing reserve artillery, and nothing is spent", function()
    expect_error(function()
      reserve_artillery.fire{ side = "central", target = reserve_artillery.battery("allies"), card = "bombard", hq = 2 }
    end, "opposing reserve artillery")
    expect(world:pool("central", "hq")):to_be(4)
  end)

  it("must be an enemy unit or a hex", function()
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = "a1", card = "bombard", hq = 1 }
    end, "a1 belongs to allies")
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = hex(40, 40), card = "bombard", hq = 1 }
    end, "not on the map")
    expect_error(function()
      reserve_artillery.fire{ side = "allies", card = "bombard", hq = 1 }
    end, "give a target")
  end)
end)

describe("ordering the reserve artillery", function()
  it("by Artillery Bombard may target any hex anywhere", function()
    dice.force("targeting", { 2 }) -- hex 2 (east) of (12,0) is off the map
    local rec = reserve_artillery.fire{ side = "allies", target = hex(12, 0), card = "bombard", hq = 1 }
    expect(rec.order):to_equal({ 2 })
    expect(rec.orders_used):to_be(0)
    expect(rec.shelled[1].why):to_be("off the map")
  end)

  it("by a section card, on a target in the card's section", function()
    dice.force("targeting", { 6 }) -- hex 6 (6,2) is empty
    local rec = reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "probe_centre", hq = 1 }
    expect(rec.card):to_be("Probe Centre")
    expect(rec.orders_used):to_be(1) -- one of the card's orders goes to the battery
  end)

  it("by a section card, not on a target outside the card's section", function()
    -- c5 at (9,2) is offset column 10: right section only
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = "c5", card = "probe_left", hq = 1 }
    end, "target (9,2) is in the right section, but Probe Left Flank orders the left section")
    expect(world:pool("allies", "hq")):to_be(6)
    local ok, why = reserve_artillery.can_order("attack_centre", hex(9, 2))
    expect(ok):to_be(false)
    expect(why):to_contain("right section")
  end)

  it("by a section card, on a section line hex, which belongs to both sections", function()
    -- c3 at (7,2) is offset column 8: the centre/right line
    expect(world:sections(hex(7, 2))):to_equal({ "centre", "right" })
    expect(reserve_artillery.can_order("probe_centre", hex(7, 2))):to_be(true)
    expect(reserve_artillery.can_order("probe_right", hex(7, 2))):to_be(true)
    expect(reserve_artillery.can_order("probe_left", hex(7, 2))):to_be(false)
    dice.force("targeting", { 5, 5 })
    dice.force("battle", { "burst", "hq" }) -- on target (two 5s); hex 5 (6,2) is empty
    local rec = reserve_artillery.fire{ side = "allies", target = "c3", card = "probe_right", hq = 2 }
    expect(rec.order):to_equal({ "on_target", 5 })
    expect(world:unit("c3").strength):to_be(3)
  end)

  it("a section card may also be given as a table", function()
    expect(reserve_artillery.can_order({ kind = "section", section = "left" }, hex(3, 2))):to_be(true)
    expect(reserve_artillery.can_order({ section = "right" }, hex(3, 2))):to_be(false)
  end)

  it("not by a section card that orders battlefield units only", function()
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "advance_centre", hq = 1 }
    end, "orders battlefield units only")
    expect(world:pool("allies", "hq")):to_be(6)
  end)

  it("not by another tactic card, nor without a card", function()
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "counter_attack", hq = 1 }
    end, "does not order the reserve artillery")
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = hex(6, 3), hq = 1 }
    end, "say which command card")
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "charge", hq = 1 }
    end, "no command card named 'charge'")
  end)
end)

describe("key rule: the reserve artillery combats first", function()
  it("comes first in the turn's combat order, the others keeping theirs", function()
    local a1, a3, a4 = world:unit("a1"), world:unit("a3"), world:unit("a4")
    local battery = reserve_artillery.battery("allies")
    local order = reserve_artillery.combat_order({ a1, a3, battery, a4 })
    expect(order[1]):to_be(battery)
    expect(order[2]):to_be(a1)
    expect(order[3]):to_be(a3)
    expect(order[4]):to_be(a4)
  end)

  it("also when the ordered units are named by id", function()
    expect(reserve_artillery.combat_order({ "a1", "a3", "allies.reserve_artillery" }))
      :to_equal({ "allies.reserve_artillery", "a1", "a3" })
    expect(reserve_artillery.combat_order({ "a1", "a3" })):to_equal({ "a1", "a3" })
  end)
end)
