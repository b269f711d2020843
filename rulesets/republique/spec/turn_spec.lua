-- The player turn (turn.lua): "1 Command 2 Maneuver [3 Artillery/Skirmish]
-- 4 Assault 5 Panic Test", chapter 3's phase split into the skirmish fire
-- step, the artillery fire segment, then leader injuries and panic hits
-- ("Conduct the following steps after all skirmish and artillery fire for
-- the turn has been resolved"). "An artillery battery may only fire once
-- each player turn (twice each full turn)."

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add

local function steps_logged()
  local out = {}
  for _, line in ipairs(world:log(100)) do
    local step = string.match(line, "turn %d+, %a+: (%a+)")
    if step then
      table.insert(out, step)
    end
  end
  return out
end

describe("a player turn", function()
  it("walks the steps in the document's order, then the other side's turn starts", function()
    expect(turn.start("french")):to_be("french")
    expect(turn.step()):to_be("command")
    for _, want in ipairs({ "maneuver", "skirmish", "artillery", "injuries", "assault", "panic" }) do
      expect((turn.next())):to_be(want)
      expect(turn.step()):to_be(want)
    end
    expect((turn.next())):to_be("command")
    expect(world:current_side()):to_be("austrian")
    expect(world:turn()):to_be(1)
    expect(steps_logged()):to_equal({ "command", "maneuver", "skirmish", "artillery", "injuries", "assault", "panic",
      "command" })
  end)

  it("counts a full turn as both sides' player turns", function()
    turn.start("french")
    expect(turn.finish()):to_be("austrian")
    expect(world:turn()):to_be(1)
    expect(turn.finish()):to_be("french")
    expect(world:turn()):to_be(2)
  end)

  it("lets each side's batteries fire once in each player turn's artillery phase", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 38, 90)
    turn.start("french")
    turn.to("artillery")
    dice.force("d10", { 1, 1 })
    artillery.fire{ battery = b }
    artillery.fire{ battery = e }
    expect_error(function() artillery.fire{ battery = b } end, "once each player turn")
    turn.finish()
    turn.to("artillery")
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = b }.target):to_be("e")
  end)

  it("lands the skirmish hits when the skirmish step ends, and battery hits when the segment ends", function()
    local sk = add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    local a = add("a", "austrian", "line_infantry", 60, 47, 90)
    add("b", "french", "foot_battery", 80, 60, 270)
    local e = add("e", "austrian", "foot_battery", 80, 50, 90)
    turn.start("french")
    turn.to("skirmish")
    dice.force("d10", { 10 })
    skirmish.fire(sk, a)
    expect(a.morale):to_be_nil()
    turn.next()
    expect(turn.step()):to_be("artillery")
    expect(a.morale):to_be("disordered")
    dice.force("d10", { 10 })
    artillery.fire{ battery = "b" } -- canister 4 points: 2M1B on the battery e
    expect(e.damaged):to_be_nil()
    local name, after = turn.next()
    expect(name):to_be("injuries")
    expect(e.damaged):to_be(true)
    expect(after):to_equal({ injuries = {}, panic = {} })
  end)

  it("tests the leaders near units fired upon in the injuries step", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("a", "austrian", "line_infantry", 60, 50, 90)
    add("l", "austrian", "general", 60, 44, 90)
    turn.start("french")
    turn.to("artillery")
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    dice.force("d10", { 3 })
    local after = turn.to("injuries")
    expect(#after.injuries):to_be(1)
    expect(after.injuries[1].leader):to_be("l")
    expect(#tabletop.traces("fired_upon")):to_be(0)
  end)

  it("counts bases lost nearby afresh in the next player turn (leaders.new_turn is part of it)", function()
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 50, 90, nil, 2)
    local l = add("l", "austrian", "general", 60, 44, 90)
    turn.start("french")
    turn.to("artillery")
    dice.force("d10", { 10 })
    artillery.fire{ battery = "b" } -- heavy canister 6 points: 3M1B
    local mods = leaders.modifiers(l)
    expect(units.modifier(mods, "lost nearby")):to_be(1)
    turn.finish()
    expect(units.modifier(leaders.modifiers(l), "lost nearby")):to_be(0)
  end)

  it("refuses to go back, to an unknown step, or to walk before a turn starts", function()
    expect_error(function() turn.next() end, "no turn has started")
    expect_error(function() turn.to("artillery") end, "no turn has started")
    expect_error(function() turn.finish() end, "no turn has started")
    expect_error(function() turn.start("prussian") end, "no side 'prussian'")
    turn.start("austrian")
    turn.to("artillery")
    expect_error(function() turn.to("maneuver") end, "comes before it")
    expect_error(function() turn.to("artillery") end, "comes before it")
    expect_error(function() turn.to("lunch") end, "no step 'lunch'")
    expect(world:current_side()):to_be("austrian")
  end)

  it("resets what a new turn resets: moves, and passing fire's count", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local t = add("t", "austrian", "line_infantry", 40, 45, 0, nil, 2)
    turn.start("austrian")
    world:move(t, { x = 56, y = 45 })     -- 6.3 cm inside the arc
    expect(t.moved):to_be(true)
    turn.finish()                            -- the French player turn
    expect(t.moved):to_be_nil()
    world:move(t, { x = 58, y = 45 })     -- 2 cm more: a new turn, not 8
    expect(b.passed_fire):to_be_nil()
  end)
end)

describe("finishing a player turn", function()
  it("does what every step left does: hits on batteries land, leaders test", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 90)
    add("l", "austrian", "general", 64, 45, 90)
    turn.start("french")
    turn.to("artillery")
    dice.force("d10", { 10, 5 })
    artillery.fire{ battery = "b" } -- canister 4 points: 2M1B on e, held back
    expect(e.damaged):to_be_nil()
    expect(turn.finish()):to_be("austrian")
    expect(e.damaged):to_be(true)
    local tested = false
    for _, line in ipairs(world:log(60)) do
      if string.find(line, "l injury test", 1, true) then tested = true end
    end
    expect(tested):to_be(true)
  end)
end)
