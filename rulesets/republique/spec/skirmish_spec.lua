-- [3.1] Skirmishers: opposed and unopposed markers, harassing fire, targets,
-- results at the end of the step.

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add

describe("opposed skirmishers", function()
  it("oppose enemy markers within 8 cm in any direction", function()
    add("sk1", "french", "skirmishers", 50, 50, 270, { parent = "f1" })
    add("ask1", "austrian", "skirmishers", 50, 44, 90, { parent = "a1" })
    add("ask9", "austrian", "skirmishers", 80, 44, 90, { parent = "a1" })
    skirmish.begin_step()
    expect(skirmish.pair_off("french")):to_equal({ "ask1", "sk1" })
    expect(world:unit("ask9").opposed):to_be_nil()
  end)

  it("with uneven numbers, the phasing player decides which markers are opposed", function()
    add("sk1", "french", "skirmishers", 50, 50, 270, { parent = "f1" })
    add("ask1", "austrian", "skirmishers", 50, 44, 90, { parent = "a1" })
    add("ask2", "austrian", "skirmishers", 56, 44, 90, { parent = "a1" })
    skirmish.begin_step()
    answers{ "ask2" }
    expect(skirmish.pair_off("french")):to_equal({ "ask2", "sk1" })
    expect(world:unit("ask1").opposed):to_be_nil()
  end)

  it("may not fire when opposed", function()
    local sk = add("sk1", "french", "skirmishers", 50, 50, 270, { parent = "f1" })
    add("ask1", "austrian", "skirmishers", 50, 44, 90, { parent = "a1" })
    add("a1", "austrian", "light_infantry", 50, 47, 90)
    skirmish.begin_step()
    skirmish.pair_off("french")
    expect(sk.opposed):to_be(true)
    expect_error(function() skirmish.fire("sk1", "a1") end, "opposed by enemy skirmishers")
  end)
end)

describe("harassing fire", function()
  local function setup(dy)
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    local t = add("t", "austrian", "line_infantry", 60, 50 - dy, 90)
    skirmish.begin_step()
    return t
  end

  it("scores a morale hit at short range on the chart's number, at the end of the step", function()
    local t = setup(3) -- 1.75 cm apart
    dice.force("d10", { 6 })
    local r = skirmish.fire("sk", "t")
    expect(r.hit):to_be(true)
    expect(r.need):to_be(6)
    expect(t.morale):to_be_nil()
    skirmish.end_step()
    expect(t.morale):to_be("disordered")
  end)

  it("needs more at long range and misses below it", function()
    local t = setup(7.5) -- 6.25 cm apart
    dice.force("d10", { 7 })
    local r = skirmish.fire("sk", "t")
    expect(r.need):to_be(8)
    expect(r.hit):to_be(false)
    skirmish.end_step()
    expect(t.morale):to_be_nil()
  end)

  it("fires once per turn and only within range", function()
    setup(3)
    dice.force("d10", { 1 })
    skirmish.fire("sk", "t")
    expect_error(function() skirmish.fire("sk", "t") end, "once per turn")
    add("sk2", "french", "skirmishers", 60, 65, 270, { parent = "f1" })
    expect_error(function() skirmish.fire("sk2", "t") end, "out of skirmish range")
  end)

  it("never fires at skirmish markers, but may at their parent light regiment", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    add("ask", "austrian", "skirmishers", 70, 49, 90, { parent = "lt" })
    add("lt", "austrian", "light_infantry", 60, 46, 90)
    skirmish.begin_step()
    expect_error(function() skirmish.fire("sk", "ask") end, "cannot fire at other skirmish markers")
    dice.force("d10", { 9 })
    expect(skirmish.fire("sk", "lt").hit):to_be(true)
  end)

  it("hits artillery batteries too, at the end of the step", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    local b = add("ab", "austrian", "foot_battery", 60, 45, 90)
    skirmish.begin_step()
    dice.force("d10", { 10 })
    skirmish.fire("sk", "ab")
    expect(b.morale):to_be_nil()
    skirmish.end_step()
    expect(b.morale):to_be("disordered")
  end)
end)

describe("opposed skirmishers, more", function()
  it("oppose markers exactly 8 cm apart, and 7.5, but not 8.5", function()
    -- markers 1 cm deep: centres 9 cm apart leave 8 cm between the bases
    add("f8", "french", "skirmishers", 20, 50, 270, { parent = "f1" })
    add("a8", "austrian", "skirmishers", 20, 41, 90, { parent = "a1" })
    add("f75", "french", "skirmishers", 50, 50, 270, { parent = "f1" })
    add("a75", "austrian", "skirmishers", 50, 41.5, 90, { parent = "a1" })
    add("f85", "french", "skirmishers", 80, 50, 270, { parent = "f1" })
    add("a85", "austrian", "skirmishers", 80, 40.5, 90, { parent = "a1" })
    skirmish.begin_step()
    expect(skirmish.pair_off("french")):to_equal({ "a75", "a8", "f75", "f8" })
  end)

  it("lets the phasing player pick each opposed marker among those left (two of three)", function()
    add("f1", "french", "skirmishers", 50, 50, 270, { parent = "x" })
    add("f2", "french", "skirmishers", 56, 50, 270, { parent = "x" })
    add("a1", "austrian", "skirmishers", 47, 44, 90, { parent = "y" })
    add("a2", "austrian", "skirmishers", 53, 44, 90, { parent = "y" })
    add("a3", "austrian", "skirmishers", 59, 44, 90, { parent = "y" })
    skirmish.begin_step()
    answers{ "a1", "a3" }
    expect(skirmish.pair_off("french")):to_equal({ "a1", "a3", "f1", "f2" })
    expect(world:unit("a1").opposed and world:unit("a3").opposed):to_be(true)
    expect(world:unit("a2").opposed):to_be_nil()
    expect(units.asked()[2]):to_equal({ "a2", "a3" })
  end)
end)

describe("harassing fire, more", function()
  it("uses the short range band up to exactly 4 cm", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    add("t", "austrian", "line_infantry", 60, 44.75, 90) -- front edge 45.5: 4 cm from the marker's 49.5
    skirmish.begin_step()
    dice.force("d10", { 6 })
    local r = skirmish.fire("sk", "t")
    expect(r.need):to_be(6)
    expect(r.hit):to_be(true)
  end)
end)

-- [3.1] "A skirmish marker may declare any enemy skirmish marker in any
-- direction and within 8cm of it to be opposed ... If uneven numbers of
-- hostile skirmishers are opposing each other, the phasing (attacking)
-- player decides which markers are considered opposed, and which are
-- considered unopposed." Counted among the markers that face each other,
-- not over the whole table.
describe("opposed skirmishers, group by group", function()
  -- Two groups far apart: on the left two French markers face one Austrian;
  -- on the right one French marker faces two Austrians. Three against three
  -- over the table, but uneven in each group.
  units.each_layout("asks the phasing player in each uneven group", function(s)
    s.add("f1", "french", "skirmishers", -22, 3, 270, { parent = "x" })
    s.add("f2", "french", "skirmishers", -16, 3, 270, { parent = "x" })
    s.add("a1", "austrian", "skirmishers", -19, -3, 90, { parent = "y" })
    s.add("f3", "french", "skirmishers", 19, 3, 270, { parent = "x" })
    s.add("a2", "austrian", "skirmishers", 16, -3, 90, { parent = "y" })
    s.add("a3", "austrian", "skirmishers", 22, -3, 90, { parent = "y" })
    skirmish.begin_step()
    answers{ "f2", "a3" }
    expect(skirmish.pair_off("french")):to_equal({ "a1", "a3", "f2", "f3" })
    expect(world:unit("f1").opposed):to_be_nil()
    expect(world:unit("a2").opposed):to_be_nil()
    expect(units.asked()):to_equal({ { "f1", "f2" }, { "a2", "a3" } })
  end)

  units.each_layout("asks group by group in the order of their markers' ids, whichever side holds the first", function(s)
    -- the right group holds b1 (French), the first id of all; the left one
    -- d1, the first Austrian id: the right group is asked first
    s.add("c1", "french", "skirmishers", -22, 3, 270, { parent = "x" })
    s.add("c2", "french", "skirmishers", -16, 3, 270, { parent = "x" })
    s.add("d1", "austrian", "skirmishers", -19, -3, 90, { parent = "y" })
    s.add("b1", "french", "skirmishers", 19, 3, 270, { parent = "x" })
    s.add("d2", "austrian", "skirmishers", 16, -3, 90, { parent = "y" })
    s.add("d3", "austrian", "skirmishers", 22, -3, 90, { parent = "y" })
    skirmish.begin_step()
    answers{ "d3", "c2" }
    expect(skirmish.pair_off("french")):to_equal({ "b1", "c2", "d1", "d3" })
    expect(units.asked()):to_equal({ { "d2", "d3" }, { "c1", "c2" } })
  end)

  it("asks nothing when each group is even, and opposes every marker", function()
    add("f1", "french", "skirmishers", 30, 50, 270, { parent = "x" })
    add("a1", "austrian", "skirmishers", 30, 44, 90, { parent = "y" })
    add("f2", "french", "skirmishers", 90, 40, 270, { parent = "x" })
    add("a2", "austrian", "skirmishers", 90, 34, 90, { parent = "y" })
    skirmish.begin_step()
    expect(skirmish.pair_off("french")):to_equal({ "a1", "a2", "f1", "f2" })
  end)

  it("offers only markers that leave a full pairing possible, and defaults to the phasing side", function()
    -- f1 reaches a1 and a2; f2 and f3 reach a2 only. Two pairs at most, so
    -- two of the three French markers are opposed, and f2 and f3 cannot
    -- both be (only a2 is left for them)
    add("f1", "french", "skirmishers", 50, 50, 270, { parent = "x" })
    add("a1", "austrian", "skirmishers", 46, 44, 90, { parent = "y" })
    add("a2", "austrian", "skirmishers", 54, 44, 90, { parent = "y" })
    add("f2", "french", "skirmishers", 62, 44, 270, { parent = "x" })
    add("f3", "french", "skirmishers", 60, 49, 270, { parent = "x" })
    skirmish.begin_step()
    answers{ "f2" } -- then f1 is the only one left that pairs: not asked
    expect(skirmish.pair_off()):to_equal({ "a1", "a2", "f1", "f2" })
    expect(units.asked()):to_equal({ { "f1", "f2", "f3" } })
    expect(units.decisions()[1].side):to_be("french")
  end)
end)

describe("opposed skirmishers, both sides uneven in one group", function()
  it("lets the phasing player pick the first marker's side's opposed markers, then the other side's", function()
    -- a1 reaches every French marker and f1 every Austrian one; no other
    -- pair is in reach: two pairs at most, of three markers a side
    add("a1", "austrian", "skirmishers", 60, 40, 90, { parent = "y" })
    add("z1", "austrian", "skirmishers", 52, 51, 90, { parent = "y" })
    add("z2", "austrian", "skirmishers", 68, 51, 90, { parent = "y" })
    add("f1", "french", "skirmishers", 60, 47, 270, { parent = "x" })
    add("f2", "french", "skirmishers", 52, 36, 270, { parent = "x" })
    add("f3", "french", "skirmishers", 68, 36, 270, { parent = "x" })
    skirmish.begin_step()
    answers{ "a1", "z2", "f1", "f3" }
    expect(skirmish.pair_off("french")):to_equal({ "a1", "f1", "f3", "z2" })
    expect(units.asked()):to_equal({ { "a1", "z1", "z2" }, { "z1", "z2" }, { "f1", "f2", "f3" }, { "f2", "f3" } })
  end)
end)

describe("the end of the skirmish step", function()
  it("lands each hit once: a second end_step changes nothing", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    local t = add("t", "austrian", "line_infantry", 60, 47, 90)
    skirmish.begin_step()
    dice.force("d10", { 10 })
    skirmish.fire("sk", "t")
    skirmish.end_step()
    skirmish.end_step()
    expect(t.morale):to_be("disordered")
  end)
end)
