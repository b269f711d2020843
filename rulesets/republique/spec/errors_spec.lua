-- Clear errors for calls the rules refuse: each names the rule that was
-- broken (chapter 3 throughout: [3.1] skirmish fire, [3.2] artillery fire
-- and saving fire, [3.6] injury tests; moves.lua's battery moves).

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add
local duel = units.duel

describe("artillery fire refuses", function()
  it("a call with no battery, a unit that is not a battery, an id that is no unit", function()
    duel()
    expect_error(function() artillery.fire{} end, "give battery= or batteries=")
    expect_error(function() artillery.fire{ battery = "a" } end, "a is a line_infantry, not an artillery battery")
    expect_error(function() artillery.fire{ battery = "nobody" } end, "no unit 'nobody'")
  end)

  it("a battery with nothing in its arc and range", function()
    add("b", "french", "foot_battery", 60, 60, 90) -- facing off the table's bottom edge
    add("a", "austrian", "line_infantry", 60, 40, 90)
    artillery.begin_phase()
    expect_error(function() artillery.fire{ battery = "b" } end, "has no target in its arc of fire and range")
  end)

  it("passing fire at a unit beyond the battery's range", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("x", "austrian", "line_infantry", 60, 45, 90, nil, 1)
    add("t", "austrian", "line_infantry", 60, 10, 0, nil, 2) -- 47.75 cm: beyond long range (42)
    artillery.begin_phase()
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", move_bearing = 0, in_arc_cm = 9 }
    end, "t is out of b's range")
  end)

  it("saving fire for a battery standing limbered", function()
    local b = duel()
    b.limbered = true
    expect_error(function() artillery.save_fire(b) end, "it is limbered")
  end)

  it("passing fire that the fire itself refuses, with the reason", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 45, 0, nil, 2)
    add("sk", "french", "skirmishers", 60, 54, 270, { parent = "x" })
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", move_bearing = 0, in_arc_cm = 9 }
    end, "may not fire through or over friendly sk")
  end)

  it("prints a fire record as one line", function()
    duel()
    dice.force("d10", { 8 })
    expect(tostring(artillery.fire{ battery = "b" })):to_be("b -> a: 4 points, die 8 (+0) = 8: 1M1B")
  end)
end)

describe("other calls refuse", function()
  it("an injury test of a unit that is not a leader", function()
    duel()
    expect_error(function() leaders.injury_test("a") end, "a is not a leader")
  end)

  it("limbering a unit that is not a battery, or a battery twice", function()
    local b, a = duel()
    expect_error(function() moves.limber(a) end, "a is a line_infantry, not an artillery battery")
    moves.limber(b)
    expect_error(function() moves.limber(b) end, "already limbered")
  end)

  it("skirmish fire from a unit that is not a marker, at its own side, or at a leader", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    add("own", "french", "line_infantry", 60, 53, 270)
    add("ney", "austrian", "general", 60, 47, 90)
    skirmish.begin_step()
    expect_error(function() skirmish.fire("own", "ney") end, "own is not a skirmish marker")
    expect_error(function() skirmish.fire("sk", "own") end, "own is on sk's own side")
    expect_error(function() skirmish.fire("sk", "ney") end, "not leaders")
  end)
end)
