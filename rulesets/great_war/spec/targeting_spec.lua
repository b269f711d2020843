-- [Combat] HQ tokens buy targeting dice; the targeting template (arrow
-- towards the opponent's baseline, hexes 1..6 clockwise); each targeting die
-- on its numbered hex. On the bare range; the target is hex(5,4).

local T = hex(5, 4)

local function rolls_of(kind)
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "roll" and e.kind == kind then
      table.insert(out, e)
    end
  end
  return out
end

local function last_decision()
  local d = nil
  for _, e in ipairs(world:events()) do
    if e.event == "decision" then d = e end
  end
  return d
end

scenario("scenarios/range.yaml")

describe("HQ tokens", function()
  it("are spent, one targeting die rolled for each", function()
    dice.force("targeting", { 1, 2, 3 }) -- all around an empty target: nothing to shell
    local rec = reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 3 }
    expect(rec.hq):to_be(3)
    expect(world:pool("allies", "hq")):to_be(7)
    local r = rolls_of("targeting")
    expect(#r):to_be(1) -- one pool
    expect(r[1].n):to_be(3)
    expect(#rolls_of("battle")):to_be(0)
  end)

  it("are a decision when the number is not given: 1 up to the battery's strength", function()
    answers{ 2 }
    dice.force("targeting", { 5, 6 })
    local rec = reserve_artillery.fire{ side = "allies", target = T, card = "bombard" }
    expect(rec.hq):to_be(2)
    local d = last_decision()
    expect(d.side):to_be("allies")
    expect(d.options):to_equal({ "1", "2", "3", "4" })
    expect(world:pool("allies", "hq")):to_be(8)
  end)

  it("never more than the side holds", function()
    world:set_pool("allies", "hq", 2)
    answers{ 2 }
    dice.force("targeting", { 5, 6 })
    reserve_artillery.fire{ side = "allies", target = T, card = "bombard" }
    expect(last_decision().options):to_equal({ "1", "2" })
    expect(world:pool("allies", "hq")):to_be(0)
  end)

  it("may not exceed the battery's strength or the tokens held, nor be below one", function()
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 5 }
    end, "has strength 4, the most that may be spent")
    world:set_pool("allies", "hq", 2)
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 3 }
    end, "allies holds only 2")
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 0 }
    end, "whole number of HQ tokens from 1")
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 1.5 }
    end, "whole number")
    expect(world:pool("allies", "hq")):to_be(2) -- nothing spent by a refused order
  end)

  it("cannot be spent without any, nor without a reserve artillery", function()
    world:set_pool("allies", "hq", 0)
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = T, card = "bombard" }
    end, "holds no HQ tokens")
    world:set_pool("central", "reserve_artillery", 0)
    expect_error(function()
      reserve_artillery.fire{ side = "central", target = T, card = "bombard", hq = 1 }
    end, "central has no reserve artillery")
  end)
end)

describe("the targeting template", function()
  it("points up for the allies (central's baseline is the top): hex 1 north-east, then clockwise", function()
    expect(reserve_artillery.hex1_direction("allies")):to_be(6)
    local t = reserve_artillery.template("allies", T)
    expect(t.arrow):to_be("top")
    expect({ t[1], t[2], t[3], t[4], t[5], t[6] }):to_equal({
      hex(6, 3), hex(6, 4), hex(5, 5), hex(4, 5), hex(4, 4), hex(5, 3),
    })
  end)

  it("points down for the central powers: hex 1 south-west, then clockwise", function()
    expect(reserve_artillery.hex1_direction("central")):to_be(3)
    local t = reserve_artillery.template("central", T)
    expect(t.arrow):to_be("bottom")
    expect({ t[1], t[2], t[3], t[4], t[5], t[6] }):to_equal({
      hex(4, 5), hex(4, 4), hex(5, 3), hex(6, 3), hex(6, 4), hex(5, 5),
    })
  end)

  it("is marked on the map: T on target, 1..6 around, only on the map", function()
    dice.force("targeting", { 1 })
    reserve_artillery.fire{ side = "allies", target = hex(12, 0), card = "bombard", hq = 1 }
    local labels = {}
    for _, m in ipairs(world:marks()) do
      labels[m.label] = m.hex
    end
    expect(labels["T"]):to_be(hex(12, 0))
    expect(labels["1"]):to_be_nil() -- (13,-1) is off the map
    expect(labels["2"]):to_be_nil() -- (13,0) too
    expect(labels["3"]):to_be(hex(12, 1))
    expect(labels["4"]):to_be(hex(11, 1))
    expect(labels["5"]):to_be(hex(11, 0))
    expect(labels["6"]):to_be_nil()
  end)

  it("sets each targeting die on its numbered hex: one battle die per targeting die there", function()
    world:set_pool("allies", "reserve_artillery", 6)
    local t = reserve_artillery.template("allies", T)
    for k = 1, 6 do
      world:add_unit{ id = "x" .. k, side = "central", type = "infantry", hex = t[k] }
    end
    dice.force("targeting", { 6, 5, 4, 3, 2, 1 })
    dice.force("battle", { "hq", "hq", "hq", "hq", "hq", "hq" })
    local rec = reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = 6 }
    expect(rec.on_target):to_be(0)
    expect(rec.order):to_equal({ 1, 2, 3, 4, 5, 6 })
    local r = rolls_of("battle")
    for k = 1, 6 do
      expect(r[k].n):to_be(1)
      expect(r[k].reason):to_contain("hex " .. k .. " " .. tostring(t[k]))
      expect(rec.shelled[k].unit):to_be("x" .. k)
    end
    expect(rec.hq_gained):to_be(6)
  end)
end)

describe("the template with hex 1 counterclockwise of the arrow (variant left_handed_template)", function()
  scenario("scenarios/range.yaml", { variant = "left_handed_template" })

  it("starts at the north-west hex when firing up", function()
    expect(params.reserve_artillery.hex1_side):to_be("counterclockwise")
    local t = reserve_artillery.template("allies", T)
    expect({ t[1], t[2], t[3], t[4], t[5], t[6] }):to_equal({
      hex(5, 3), hex(6, 3), hex(6, 4), hex(5, 5), hex(4, 5), hex(4, 4),
    })
  end)

  it("starts at the south-east hex when firing down", function()
    local t = reserve_artillery.template("central", T)
    expect(t[1]):to_be(hex(5, 5))
    expect(t[2]):to_be(hex(4, 5))
  end)
end)
