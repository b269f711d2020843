-- [Base] Retreats and rally checks (the Jacobite Rising retreat rules as
-- research base-rules.md reports them; the rally check is ours). The
-- Jacobites retreat up the board (NW/NE), the Government down (SW/SE).

local add = require("spec/support/units").add

local function flags(u, n)
  return retreat.flags(world:unit(u), n, "government", "spec")
end

scenario("scenarios/field.yaml")

describe("[Base] retreat hexes per flag", function()
  it("one hex per flag for grenadier, regular, highland infantry and artillery", function()
    for i, kind in ipairs({ "grenadier", "regular", "highland", "light_artillery" }) do
      local u = add("u" .. i, "jacobite", kind, hex(2 * i, 5), { strength = 3 })
      expect(retreat.per_flag(u)):to_be(1)
    end
  end)

  it("two hexes per flag for lowland infantry, cavalry and militia", function()
    for i, kind in ipairs({ "lowland", "light_cavalry", "battle_cavalry", "militia" }) do
      expect(retreat.per_flag(add("u" .. i, "jacobite", kind, hex(2 * i, 5)))):to_be(2)
    end
  end)

  it("a lowland unit retreats two hexes for one flag", function()
    add("j", "jacobite", "lowland", hex(5, 5))
    answers{ hex(5, 4), hex(5, 3) }
    dice.force("battle", { "sabre" }) -- rally: 2 dice -1 lowland
    local out = flags("j", 1)
    expect(out.moved):to_be(2)
    expect(world:unit("j").hex):to_be(hex(5, 3))
  end)
end)

describe("[Base] retreat direction", function()
  it("goes towards the unit's own baseline, its owner choosing the hex", function()
    add("j", "jacobite", "regular", hex(5, 5))
    answers{ hex(6, 4) }
    dice.force("battle", { "flag", "cavalry" })
    flags("j", 1)
    expect(world:unit("j").hex):to_be(hex(6, 4))
    add("g", "government", "regular", hex(3, 5))
    answers{ hex(2, 6) }
    dice.force("battle", { "flag", "cavalry" })
    retreat.flags(world:unit("g"), 1, "jacobite", "spec")
    expect(world:unit("g").hex):to_be(hex(2, 6))
  end)

  it("the first hex back (north-west for the Jacobites) is the default", function()
    add("j", "jacobite", "regular", hex(5, 5))
    answers{ answers.default }
    dice.force("battle", { "flag", "cavalry" })
    flags("j", 1)
    expect(world:unit("j").hex):to_be(hex(5, 4))
  end)

  it("never sideways: with both hexes back taken, the sideways hexes do not help", function()
    add("j", "jacobite", "regular", hex(5, 5))
    add("b1", "jacobite", "regular", hex(5, 4))
    add("b2", "government", "regular", hex(6, 4))
    dice.force("battle", { "sabre", "cavalry" })
    local out = flags("j", 1)
    expect(out.moved):to_be(0)
    expect(out.lost):to_be(1)
    expect(world:unit("j").hex):to_be(hex(5, 5))
  end)

  it("is blocked by impassable terrain only; other terrain has no effect", function()
    add("j", "jacobite", "regular", hex(5, 5))
    world:set_terrain(hex(5, 4), "river")
    world:set_terrain(hex(6, 4), "woods")
    dice.force("battle", { "sabre", "cavalry" })
    expect(flags("j", 1).moved):to_be(1)
    expect(world:unit("j").hex):to_be(hex(6, 4))
  end)
end)

describe("[Base] no flags, no retreat", function()
  it("no flag, or every flag ignored: no move and no rally check", function()
    add("j", "jacobite", "regular", hex(5, 5))
    add("gr", "jacobite", "grenadier", hex(2, 5))
    local none = { flags = 0, ignored = 0, hexes = 0, moved = 0, lost = 0, left = false }
    expect(flags("j", 0)):to_equal(none)
    expect(flags("gr", 1)):to_equal({ flags = 1, ignored = 1, hexes = 0, moved = 0, lost = 0, left = false })
  end)

  it("a unit already eliminated does not retreat", function()
    local j = add("j", "jacobite", "regular", hex(5, 5))
    world:eliminate(j, "spec")
    expect(retreat.flags(j, 2, "government", "spec")):to_equal({ flags = 2, ignored = 0, hexes = 0, moved = 0, lost = 0, left = false })
  end)
end)

describe("[Base] a retreat that cannot be made", function()
  it("costs one block per hex not taken, then a rally check although the unit did not move", function()
    add("g", "government", "regular", hex(3, 10)) -- the Government's own baseline row
    dice.force("battle", { "cavalry", "infantry" }) -- rally check failed
    local out = retreat.flags(world:unit("g"), 2, "jacobite", "spec")
    expect(out.moved):to_be(0)
    expect(out.lost):to_be(2)
    expect(out.rally.passed):to_be(false)
    expect(world:unit("g").strength):to_be(1) -- 2 hexes not taken, 1 rally
    expect(world:unit("g").hex):to_be(hex(3, 10))
  end)

  it("part-way: a lowland unit one row from the edge moves one hex and loses one block", function()
    add("g", "government", "lowland", hex(3, 9))
    answers{ hex(3, 10) }
    dice.force("battle", { "flag" })
    local out = retreat.flags(world:unit("g"), 1, "jacobite", "spec")
    expect(out.moved):to_be(1)
    expect(out.lost):to_be(1)
    expect(world:unit("g").strength):to_be(3)
  end)

  it("losing the last block to a blocked retreat gives the enemy a banner", function()
    add("g", "government", "regular", hex(3, 10), { strength = 1 })
    retreat.flags(world:unit("g"), 1, "jacobite", "spec")
    expect(world:unit("g").alive):to_be(false)
    expect(world:pool("jacobite", "medals")):to_be(1)
  end)
end)

describe("[Base] a blocked retreat with variant blocked_retreat_stays", function()
  scenario("scenarios/field.yaml", { variant = "blocked_retreat_stays" })

  it("costs nothing, and the rally check still follows", function()
    add("g", "government", "regular", hex(3, 10))
    dice.force("battle", { "sabre", "infantry" })
    local out = retreat.flags(world:unit("g"), 1, "jacobite", "spec")
    expect(out.lost):to_be(0)
    expect(out.rally.passed):to_be(true)
    expect(world:unit("g").strength):to_be(4)
  end)
end)

describe("[Base] leaders and retreats", function()
  it("a unit may retreat onto a lone friendly leader, who attaches; the retreat ends there", function()
    add("j", "jacobite", "lowland", hex(5, 5))
    add("Perth", "jacobite", "leader", hex(5, 4))
    add("b", "jacobite", "regular", hex(6, 4))
    dice.force("battle", { "sabre", "cavalry" }) -- rally: 1 lowland die +1 leader
    local out = flags("j", 1)
    expect(out.moved):to_be(1)
    expect(out.attached):to_be("Perth")
    expect(world:unit("j").hex):to_be(hex(5, 4))
    expect(world:unit("j").leader):to_be("Perth")
    expect(world:unit("Perth").alive):to_be(false) -- off the map: attached
  end)

  it("not onto an enemy leader", function()
    add("j", "jacobite", "regular", hex(5, 5))
    add("Cope", "government", "leader", hex(5, 4))
    dice.force("battle", { "sabre", "cavalry" })
    flags("j", 1)
    expect(world:unit("j").hex):to_be(hex(6, 4))
  end)

  it("an attached leader retreats with his unit", function()
    add("j", "jacobite", "regular", hex(5, 5), { leader = "Perth", strength = 3 })
    answers{ hex(5, 4) }
    dice.force("battle", { "sabre", "cavalry", "cavalry" })
    flags("j", 2) -- a leader lets the unit ignore one
    expect(world:unit("j").hex):to_be(hex(5, 4))
    expect(world:unit("j").leader):to_be("Perth")
  end)
end)

describe("[Base] flags a unit may ignore", function()
  it("grenadiers ignore one; highland infantry one at full strength only", function()
    add("gr", "government", "grenadier", hex(3, 5))
    expect(retreat.ignorable(world:unit("gr"))):to_be(1)
    add("h", "jacobite", "highland", hex(5, 5))
    expect(retreat.ignorable(world:unit("h"))):to_be(1)
    world:unit("h").strength = 3
    expect(retreat.ignorable(world:unit("h"))):to_be(0)
  end)

  it("an attached leader and a town each let a unit ignore one", function()
    add("j", "jacobite", "regular", hex(5, 5), { leader = "Perth" })
    expect(retreat.ignorable(world:unit("j"))):to_be(1)
    world:set_terrain(hex(5, 5), "town")
    expect(retreat.ignorable(world:unit("j"))):to_be(2)
  end)
end)

describe("[Base] rally checks", function()
  it("roll 2 dice, +1 grenadier, -1 lowland, +1 attached leader; a sabre or a flag passes", function()
    add("r", "government", "regular", hex(1, 5))
    add("gr", "government", "grenadier", hex(3, 5))
    add("lo", "jacobite", "lowland", hex(5, 5), { leader = "Perth" })
    dice.force("battle", { "flag", "infantry" })
    local a = retreat.rally_check(world:unit("r"), "jacobite", "spec")
    expect(a.dice):to_be(2)
    expect(a.passed):to_be(true)
    dice.force("battle", { "infantry", "cavalry", "artillery" })
    local b = retreat.rally_check(world:unit("gr"), "jacobite", "spec")
    expect(b.dice):to_be(3)
    expect(b.passed):to_be(false)
    expect(world:unit("gr").strength):to_be(3)
    dice.force("battle", { "sabre", "sabre" })
    expect(retreat.rally_check(world:unit("lo"), "government", "spec").dice):to_be(2)
  end)
end)

describe("[Base] rally checks with rally.dice = 0", function()
  scenario("scenarios/field.yaml", { set = { ["rally.dice"] = 0 } })

  it("a unit whose modifier takes its dice below none rolls none and fails", function()
    add("lo", "jacobite", "lowland", hex(5, 5))
    local r = retreat.rally_check(world:unit("lo"), "government", "spec")
    expect({ r.dice, #r.faces, r.passed, r.lost }):to_equal({ 0, 0, false, 1 })
    expect(world:unit("lo").strength):to_be(3)
  end)
end)

describe("[Base] rally checks with variant routing_rally", function()
  scenario("scenarios/field.yaml", { variant = "routing_rally" })

  it("a failed check routs the unit, a banner to the enemy", function()
    add("r", "government", "regular", hex(1, 5))
    dice.force("battle", { "infantry", "infantry" })
    retreat.rally_check(world:unit("r"), "jacobite", "spec")
    expect(world:unit("r").alive):to_be(false)
    expect(world:pool("jacobite", "medals")):to_be(1)
  end)
end)

describe("[Base] rally checks with variant steady_rally", function()
  scenario("scenarios/field.yaml", { variant = "steady_rally" })

  it("roll three dice", function()
    add("r", "government", "regular", hex(1, 5))
    dice.force("battle", { "infantry", "infantry", "sabre" })
    expect(retreat.rally_check(world:unit("r"), "jacobite", "spec").passed):to_be(true)
  end)
end)
