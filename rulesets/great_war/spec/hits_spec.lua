-- [Hits] Hits, figures, victory medals, HQ tokens, flags and retreats, wire,
-- and which hexes are rolled at all. On the bare range: the allies fire on
-- T = hex(5,4); template hex 1 is (6,3) (north-east), 4 is (4,5).

local T = hex(5, 4)
local HEX1 = hex(6, 3)

local function put(id, side, at, terrain, strength)
  if terrain then
    world:set_terrain(at, terrain)
  end
  return world:add_unit{ id = id, side = side, type = "infantry", hex = at, strength = strength }
end

local function fire(hq)
  return reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = hq }
end

local function events_named(name)
  local out = {}
  for i, e in ipairs(world:events()) do
    if e.event == name then
      table.insert(out, i)
    end
  end
  return out
end

scenario("scenarios/range.yaml")

describe("hits on target", function()
  it("come from every burst and deadly side, and from soldiers the terrain does not cancel", function()
    local x = put("x", "central", T, "woods")
    dice.force("targeting", { 1, 1, 2, 2 }) -- four dice on target; hexes 1 and 2 are empty
    dice.force("battle", { "burst", "deadly", "soldier", "soldier" })
    local rec = fire(4)
    expect(rec.on_target):to_be(4)
    expect(rec.shelled[1].hits):to_be(3) -- burst + deadly + (2 soldiers - 1 woods)
    expect(x.strength):to_be(1)
  end)

  it("in the open, every soldier hits", function()
    local x = put("x", "central", T)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "soldier", "soldier" })
    fire(2)
    expect(x.strength):to_be(2)
  end)
end)

describe("hits around the template", function()
  it("come from bursts, not from the deadly side", function()
    local y = put("y", "central", HEX1)
    dice.force("targeting", { 1 })
    dice.force("battle", { "deadly" })
    fire(1)
    expect(y.strength):to_be(4)
    dice.force("targeting", { 1 })
    dice.force("battle", { "burst" })
    fire(1)
    expect(y.strength):to_be(3)
  end)

  it("come from soldiers the terrain does not cancel", function()
    local y = put("y", "central", HEX1, "woods")
    dice.force("targeting", { 1, 1 }) -- two on target (empty: not rolled), two on hex 1
    dice.force("battle", { "soldier", "soldier" })
    local rec = fire(2)
    expect(rec.order):to_equal({ "on_target", 1 })
    expect(rec.shelled[1].rolled):to_be(false)
    expect(rec.shelled[2].dice):to_be(2)
    expect(y.strength):to_be(3)
  end)
end)

describe("figures and medals", function()
  it("one figure per hit; hits beyond the unit's figures do nothing", function()
    local x = put("x", "central", T, nil, 2)
    dice.force("targeting", { 1, 1, 1, 1 }) -- four on target (a crater too)
    dice.force("battle", { "burst", "burst", "burst", "burst" })
    local rec = fire(4)
    expect(rec.shelled[1].hits):to_be(4)
    expect(rec.shelled[1].removed):to_be(2)
    expect(rec.figures_lost):to_be(2)
    expect(x.alive):to_be(false)
  end)

  it("the last figure gives the firing side a victory medal", function()
    put("x", "central", T, nil, 1)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "burst", "hq" })
    local rec = fire(2)
    expect(rec.medals):to_be(1)
    expect(rec.units_eliminated):to_be(1)
    expect(world:pool("allies", "medals")):to_be(1)
    expect(world:pool("central", "medals")):to_be(0)
  end)

  it("shells hit the firing side's own units too, and their loss is a medal for the opponent", function()
    local own = put("own", "allies", HEX1, nil, 1)
    dice.force("targeting", { 1 })
    dice.force("battle", { "burst" })
    local rec = fire(1)
    expect(own.alive):to_be(false)
    expect(rec.friendly_figures_lost):to_be(1)
    expect(rec.figures_lost):to_be(0)
    expect(rec.medals):to_be(0)
    expect(world:pool("central", "medals")):to_be(1)
  end)
end)

describe("HQ symbols", function()
  it("each give the firing side an HQ token", function()
    put("x", "central", T)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "hq", "hq" })
    local rec = fire(2)
    expect(rec.hq_gained):to_be(2)
    expect(world:pool("allies", "hq")):to_be(10 - 2 + 2)
    expect(world:pool("central", "hq")):to_be(10)
  end)
end)

describe("flags", function()
  it("make the unit retreat after its casualties are removed", function()
    local x = put("x", "central", T)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "burst", "flag" })
    answers{ hex(5, 3) } -- central retreats towards the top: (5,3) or (6,3)
    local rec = fire(2)
    expect(x.strength):to_be(3)
    expect(x.hex):to_be(hex(5, 3))
    expect(rec.shelled[1].retreat):to_be(1)
    local hit, retreat = events_named("hit"), events_named("retreat")
    expect(#retreat):to_be(1)
    expect(hit[1] < retreat[1]):to_be(true)
  end)

  it("do nothing to a unit the hits eliminated", function()
    local x = put("x", "central", T, nil, 1)
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "burst", "flag" })
    fire(2)
    expect(x.alive):to_be(false)
    expect(#events_named("retreat")):to_be(0)
  end)

  it("are ignored as far as the terrain allows (trenches against ranged fire: two)", function()
    local x = put("x", "central", T, "trenches")
    dice.force("targeting", { 1, 1 })
    dice.force("battle", { "flag", "flag" })
    local rec = fire(2)
    expect(x.hex):to_be(T)
    expect(rec.shelled[1].flags_ignored):to_be(2)
    -- four on target; hexes 2 (6,4) and 3 (5,5) stay empty
    dice.force("targeting", { 2, 2, 3, 3 })
    dice.force("battle", { "flag", "flag", "flag", "hq" })
    answers{ hex(5, 3) }
    rec = fire(4)
    expect(rec.shelled[1].flags_ignored):to_be(2)
    expect(x.hex):to_be(hex(5, 3)) -- the third flag: one hex back
  end)

  it("are ignored on a hex with a shell crater token (it acts as terrain)", function()
    local x = put("x", "central", HEX1)
    world:add_token(HEX1, "crater")
    dice.force("targeting", { 1 })
    dice.force("battle", { "flag" })
    local rec = fire(1)
    expect(x.hex):to_be(HEX1)
    expect(rec.shelled[1].flags_ignored):to_be(1)
    dice.force("targeting", { 1 })
    dice.force("battle", { "soldier" }) -- the crater's protection cancels it
    fire(1)
    expect(x.strength):to_be(4)
  end)

  it("finish one hex's retreat before the next hex is shelled, even into that hex", function()
    -- The central powers fire down on T: hex 4 is (6,3), hex 5 is (6,4).
    -- An allied unit on hex 4 retreats towards the bottom, into hex 5,
    -- which is then shelled with it in place.
    local a = put("a", "allies", hex(6, 3))
    put("blocker", "allies", T) -- its other way back, (5,4), is taken
    dice.force("targeting", { 4, 5 })
    dice.force("battle", { "flag", "burst" })
    local rec = reserve_artillery.fire{ side = "central", target = T, card = "bombard", hq = 2 }
    expect(rec.order):to_equal({ 4, 5 })
    expect(rec.shelled[1].unit):to_be("a")
    expect(rec.shelled[1].retreat):to_be(1)
    expect(rec.shelled[2].unit):to_be("a")
    expect(a.hex):to_be(hex(6, 4))
    expect(a.strength):to_be(3)
  end)
end)

describe("hexes that are not rolled", function()
  it("a hex with no unit and no wire token gets no battle dice", function()
    dice.force("targeting", { 1, 1, 4 })
    local rec = fire(3)
    expect(rec.order):to_equal({ "on_target", 1, 4 })
    for _, e in ipairs(rec.shelled) do
      expect(e.rolled):to_be(false)
    end
    expect(#events_named("roll")):to_be(1) -- the targeting dice only
  end)

  it("a hex with only wire is rolled, and its HQ symbols count", function()
    world:add_token(HEX1, "wire")
    dice.force("targeting", { 1 })
    dice.force("battle", { "hq" })
    local rec = fire(1)
    expect(rec.shelled[1].rolled):to_be(true)
    expect(rec.hq_gained):to_be(1)
    expect(world:has_token(HEX1, "wire")):to_be(true)
  end)
end)

describe("wire", function()
  it("is cleared by a burst around the template, by a burst or deadly side on target", function()
    world:add_token(HEX1, "wire")
    world:add_token(T, "wire")
    dice.force("targeting", { 1, 1, 1 }) -- three on target (a crater) and three on hex 1
    dice.force("battle", { "deadly", "hq", "hq", "soldier", "deadly", "burst" })
    local rec = fire(3)
    expect(world:has_token(T, "wire")):to_be(false)
    expect(world:has_token(HEX1, "wire")):to_be(false)
    expect(rec.wire_removed):to_be(2)
  end)

  it("is not cleared by soldiers or the deadly side around the template", function()
    world:add_token(HEX1, "wire")
    dice.force("targeting", { 1 })
    dice.force("battle", { "soldier" })
    fire(1)
    dice.force("targeting", { 1 })
    dice.force("battle", { "deadly" })
    fire(1)
    expect(world:has_token(HEX1, "wire")):to_be(true)
  end)
end)

describe("wire with variant lasting_wire", function()
  scenario("scenarios/range.yaml", { variant = "lasting_wire" })
  it("is never cleared", function()
    world:add_token(HEX1, "wire")
    dice.force("targeting", { 1 })
    dice.force("battle", { "burst" })
    fire(1)
    expect(world:has_token(HEX1, "wire")):to_be(true)
  end)
end)

describe("wire with variant wire_cut_by_hits", function()
  scenario("scenarios/range.yaml", { variant = "wire_cut_by_hits" })
  it("is cleared by any hit, a soldier in the open too", function()
    world:add_token(HEX1, "wire")
    dice.force("targeting", { 1 })
    dice.force("battle", { "soldier" })
    fire(1)
    expect(world:has_token(HEX1, "wire")):to_be(false)
  end)
end)

describe("own units with variant no_friendly_fire", function()
  scenario("scenarios/range.yaml", { variant = "no_friendly_fire" })
  it("are not shelled: their hex is not rolled", function()
    local own = put("own", "allies", HEX1)
    dice.force("targeting", { 1 })
    local rec = fire(1)
    expect(rec.shelled[1].rolled):to_be(false)
    expect(rec.shelled[1].why):to_contain("friendly")
    expect(own.strength):to_be(4)
  end)
end)
