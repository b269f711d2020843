-- [3.2] Artillery fire: the four steps, who may fire, the arc of fire from
-- the outer front corners, no fire through friends, simultaneous fire.
-- [3.2 Save] Saving fire.

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add
local duel = units.duel

describe("the four steps of artillery fire", function()
  it("reads fire points by range bracket, rolls 1D10 and applies the chart's hits", function()
    local b, a = duel()
    expect(tabletop.distance(b, a)):to_be_close(7.75, 1e-9)
    expect((artillery.bracket(b, a))):to_be(1) -- canister
    dice.force("d10", { 8 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("a")
    expect(rec.points):to_be(4)          -- foot battery at canister range
    expect(rec.roll):to_be(8)
    expect(rec.result):to_be("1M1B")     -- the 3-4 point row, die 8
    expect(a.morale):to_be("disordered")
    expect(a.strength):to_be(3)
    expect(b.fired):to_be(true)
  end)

  it("reads a modified die below 1 as no effect and above 10 as 10", function()
    expect(artillery.result(4, 0).text):to_be("-")
    expect(artillery.result(4, 13).text):to_be(artillery.result(4, 10).text)
    expect(artillery.result(0, 10).text):to_be("-")
    expect(artillery.result(20, 10).text):to_be("4M3B")
  end)

  it("marks the arc of fire, the frontage zone and the centre of fire for the maps", function()
    duel()
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    local labels = {}
    for _, m in ipairs(tabletop.marks()) do
      labels[m.label] = m.closed
    end
    expect(labels["b arc of fire"]):to_be(true)
    expect(labels["b frontage zone"]):to_be(true)
    expect(labels["b centre of fire"]):to_be(false)
    -- The duel's target faces the battery: no enfilade arc to show.
    for label in pairs(labels) do
      expect(label:find("enfilade")):to_be(nil)
    end
  end)

  it("marks the target's enfilade arc when the battery stands in it", function()
    scenario("republique/enfilade_column.yaml")
    local rec = units.fire("fb1", 1)
    expect(rec.notes[1]:find("enfilade x2", 1, true) ~= nil):to_be(true)
    local arc
    for _, m in ipairs(tabletop.marks()) do
      if m.label == "col left enfilade arc" then
        arc = m
      end
    end
    expect(arc ~= nil):to_be(true)
    expect(arc.closed):to_be(true)
  end)
end)

describe("who may fire", function()
  it("fires once each player turn", function()
    duel()
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    expect_error(function() artillery.fire{ battery = "b" } end, "once each player turn")
  end)

  it("does not fire limbered", function()
    local b = duel()
    b.limbered = true
    expect_error(function() artillery.fire{ battery = "b" } end, "limbered batteries may not fire")
  end)

  it("does not fire shaken or worse; rattled still fires", function()
    local b = duel()
    b.morale = "shaken"
    expect_error(function() artillery.fire{ battery = "b" } end, "shaken or worse")
    b.morale = "rattled"
    expect(artillery.why_not(b)):to_be_nil()
  end)

  it("is silenced when damaged and with any morale hit", function()
    local b = duel()
    b.damaged = true
    expect(artillery.why_not(b)):to_be_nil()
    b.morale = "disordered"
    expect_error(function() artillery.fire{ battery = "b" } end, "silenced")
  end)

  it("only fires at targets inside the 60 degree arc from its outer front corners", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    -- Front corners at (57.5, 58.5) and (62.5, 58.5); 20 cm ahead the arc
    -- reaches 20 tan 30 = 11.5 cm beyond each corner: x from 46 to 74.
    local inside = add("in", "austrian", "line_infantry", 76.5, 38.5, 90, nil, 1)   -- spans x 74.5..78.5: 0 inside
    expect(#artillery.candidates(b)):to_be(0)
    world:place(inside, { x = 75.5, y = 38.5, facing = 90 })                          -- spans 73.5..77.5
    expect(#artillery.candidates(b)):to_be(1)
    expect(tabletop.arc_contains(tabletop.arc_of_fire(b, 60), tabletop.point(62.5 + 19.25 * math.tan(math.rad(30)) - 0.01, 39.25))):to_be(true)
  end)

  it("may not fire through or over friendly bases in its frontage zone", function()
    duel()
    add("sk", "french", "skirmishers", 60, 54, 270, { parent = "x" })
    expect_error(function() artillery.fire{ battery = "b" } end, "may not fire through or over friendly sk")
  end)

  it("is not blocked by a massed battery touching it at the side", function()
    duel()
    add("b2", "french", "foot_battery", 65, 60, 270)
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.target):to_be("a")
  end)
end)

describe("simultaneous fire", function()
  it("holds back hits on batteries until the end of the phase", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 90)
    artillery.begin_phase()
    dice.force("d10", { 10, 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.result):to_be("2M1B")
    expect(e.damaged):to_be_nil()
    expect(e.morale):to_be_nil()
    -- e still fires with its phase-start status
    expect(artillery.why_not(e)):to_be_nil()
    artillery.fire{ battery = "e" }
    artillery.end_phase()
    expect(e.damaged):to_be(true)
    expect(e.morale):to_be("rattled")
  end)

  it("applies them at once to a battery that prolonged in the preceding movement", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 90, { prolonged = true })
    units.fire("b", 10)
    expect(e.damaged):to_be(true)
  end)

  it("destroys a damaged battery with a second base hit", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 90, { damaged = true })
    units.fire("b", 10)
    artillery.end_phase()
    expect(e.alive):to_be(false)
  end)
end)

describe("saving fire", function()
  it("skips this phase and doubles the next fire, then is spent", function()
    local b = duel()
    artillery.save_fire(b)
    expect_error(function() artillery.fire{ battery = "b" } end, "saving its fire")
    local rec = units.fire("b", 1)
    expect(rec.points):to_be(8)
    expect(b.saved_fire):to_be_nil()
  end)

  it("is lost when the battery moves or changes facing", function()
    local b = duel()
    artillery.save_fire(b)
    artillery.begin_phase()
    b.facing = 275
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(4)
  end)

  it("needs an ordered, stationary battery in command radius, and one marker at most", function()
    local b = duel()
    b.morale = "disordered"
    expect_error(function() artillery.save_fire(b) end, "only an ordered battery")
    b.morale = nil
    b.moved = true
    expect_error(function() artillery.save_fire(b) end, "stationary")
    b.moved = nil
    b.in_command = false
    expect_error(function() artillery.save_fire(b) end, "out of command radius")
    b.in_command = nil
    artillery.save_fire(b)
    artillery.begin_phase()
    expect_error(function() artillery.save_fire(b) end, "one marker at most")
  end)

  it("gives the assault bonus to each battery still holding it, and every battery involved loses it", function()
    local b = duel()
    local b2 = add("b2", "french", "foot_battery", 65, 60, 270)
    local b3 = add("b3", "french", "foot_battery", 70, 60, 270)
    artillery.save_fire(b)
    artillery.save_fire(b2)
    artillery.begin_phase()
    local bonus, with = artillery.assault_contact({ b, b2, b3 }, "incidental")
    expect(bonus):to_be(2) -- the default bonus, 1 per battery
    expect(with):to_equal({ "b", "b2" })
    expect(b.saved_fire):to_be_nil()
    expect(b2.saved_fire):to_be_nil()
    -- spent: a second contact brings nothing, and the next fire is not doubled
    expect((artillery.assault_contact(b, "primary"))):to_be(0)
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(4)
  end)

  it("gives no assault bonus to a battery that lost its saved fire by moving", function()
    local b = duel()
    artillery.save_fire(b)
    artillery.begin_phase()
    world:move(b, { x = 60, y = 60, facing = 280 })
    expect((artillery.assault_contact(b))):to_be(0)
    expect_error(function() artillery.assault_contact(b, "flank") end, "primary")
  end)
end)

describe("the four steps at their edges", function()
  it("reads a modified die of exactly 1 on the chart, and nothing at all below it", function()
    expect(artillery.result(12, 1).text):to_be("1M")
    expect(artillery.result(12, 0)):to_equal({ morale = 0, bases = 0, text = "-" })
    expect(artillery.result(0, 5)):to_equal({ morale = 0, bases = 0, text = "-" })
  end)

  it("counts a target exactly at a bracket's limit in that bracket", function()
    -- the line's front edge at y 50.5: exactly 8 cm from the battery's front (58.5)
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local a = add("a", "austrian", "line_infantry", 60, 49.75, 90)
    expect(tabletop.distance(b, a)):to_be(8)
    expect((artillery.bracket(b, a))):to_be(1)
    world:place(a, { x = 60, y = 49.7, facing = 90 })
    expect((artillery.bracket(b, a))):to_be(2)
  end)

  it("reaches the 60 degree arc's edge: a unit 0.1 cm inside it is a candidate", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    -- rear edge at y 37.75: there the arc's right ray is at x 62.5 + 20.75 tan 30
    -- (a 59 degree arc would stop 0.24 cm short of the unit's corner)
    local edge = 62.5 + 20.75 * math.tan(math.rad(30))
    add("in", "austrian", "line_infantry", edge - 0.1 + 2, 38.5, 90, nil, 1)
    expect(#artillery.candidates(b)):to_be(1)
  end)
end)

describe("what a battery may fire at", function()
  it("never takes its own side's units or enemy leaders for targets", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("friend", "french", "line_infantry", 68, 50, 90, nil, 1) -- in the arc, off the frontage zone
    add("ney", "austrian", "general", 60, 52, 90)
    expect(#artillery.candidates(b)):to_be(0)
    add("a", "austrian", "line_infantry", 60, 40, 90)
    local c = artillery.candidates(b)
    expect(#c):to_be(1)
    expect(c[1].unit.id):to_be("a")
  end)

  it("fires past friendly units that stand beyond the target in the frontage zone", function()
    duel()
    add("behind", "french", "line_infantry", 60, 40, 270, nil, 1)
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.target):to_be("a")
  end)

  it("names the leader's freedom in the error only when a leader is attached", function()
    duel()
    add("c", "austrian", "line_infantry", 75, 50, 90, nil, 1)
    local msg = expect_error(function() artillery.fire{ battery = "b", target = "c" } end, "must fire at its main target a")
    expect(string.find(msg, "leader", 1, true)):to_be_nil()
  end)
end)

describe("simultaneous fire at the end of the phase", function()
  it("applies one held-back morale hit, and leaves units nobody hit as they were", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 38, 90) -- medium range: 2 points
    local a = add("a", "austrian", "line_infantry", 30, 20, 90)
    expect(units.fire("b", 5).result):to_be("1M")
    expect(e.morale):to_be_nil()
    artillery.end_phase()
    expect(e.morale):to_be("disordered")
    expect(e.damaged):to_be_nil()
    expect(b.alive and a.alive):to_be(true)
    expect(b.morale):to_be_nil()
    expect(b.damaged):to_be_nil()
    expect(a.morale):to_be_nil()
    expect(a.strength):to_be(4)
  end)

  it("destroys a battery that takes two base hits in the phase", function()
    local b = add("b", "french", "heavy_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 90)
    artillery.save_fire(b)
    expect(units.fire("b", 10).result):to_be("4M2B") -- heavy canister 6, saved x2 = 12
    expect(e.alive):to_be(true)
    artillery.end_phase()
    expect(e.alive):to_be(false)
  end)

  it("a prolonged battery that takes only morale hits keeps its guns", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 38, 90, { prolonged = true })
    units.fire("b", 5) -- 1M
    expect(e.alive):to_be(true)
    expect(e.damaged):to_be_nil()
    expect(e.morale):to_be("disordered")
  end)

  it("a prolonged damaged battery is destroyed by one base hit at once, an undamaged one by two", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 90, { prolonged = true, damaged = true })
    local h = add("h", "french", "heavy_battery", 46, 60, 270)
    local e2 = add("e2", "austrian", "foot_battery", 46, 50, 90, { prolonged = true })
    artillery.begin_phase()
    artillery.save_fire(h)
    dice.force("d10", { 8 })
    expect(artillery.fire{ battery = "b" }.result):to_be("1M1B")
    expect(e.alive):to_be(false)
    expect(units.fire("h", 10).result):to_be("4M2B")
    expect(e2.alive):to_be(false)
  end)

  it("passing fire is not the phase's simultaneous fire: a battery it hits is damaged at once", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 0, { limbered = true })
    artillery.begin_phase()
    dice.force("d10", { 10 })
    artillery.passing_fire{ battery = "b", target = "e", move_bearing = 0, in_arc_cm = 9 }
    expect(e.damaged):to_be(true)
  end)
end)

describe("saving fire, more", function()
  it("may be saved afresh by a battery that turned since it saved (the old marker is gone)", function()
    local b = duel()
    artillery.save_fire(b)
    artillery.begin_phase()
    b.facing = 275
    artillery.save_fire(b)
    expect(b.saving):to_be(true)
  end)

  it("takes a battery's id in an assault contact too, and gives 1 per battery holding it", function()
    local b = duel()
    artillery.save_fire(b)
    artillery.begin_phase()
    local bonus, with = artillery.assault_contact("b", "primary")
    expect(bonus):to_be(1)
    expect(with):to_equal({ "b" })
  end)
end)

-- [3.2] "At the start of the Artillery Fire segment ... any ordered,
-- stationary artillery battery may be announced as saving fire. The
-- battery may not fire that phase and must remain completely stationary."
-- "If a battery with saved fire moves in any way, the saved fire status is
-- lost (this includes changing facing or prolonging)."
describe("saving fire: when, and only while stationary", function()
  it("is announced at the start of the segment: not once another battery has fired", function()
    local b = duel()
    add("b2", "french", "foot_battery", 70, 60, 270)
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    expect_error(function() artillery.save_fire("b2") end, "at the start of the artillery fire segment")
    expect(world:unit("b2").saved_fire):to_be_nil()
  end)

  it("is not open to a battery that has fired this segment", function()
    local b = duel()
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    expect_error(function() artillery.save_fire(b) end, "b has fired in it")
    -- so the next segment's fire is not doubled
    expect(units.fire("b", 1).points):to_be(4)
  end)

  it("may be announced by several batteries before any fires", function()
    local b = duel()
    local b2 = add("b2", "french", "foot_battery", 70, 60, 270)
    artillery.save_fire(b)
    artillery.save_fire(b2)
    expect(b.saving and b2.saving):to_be(true)
  end)

  it("is not open to a battery turned this turn by a move (world:move)", function()
    local b = duel()
    world:move(b, { x = 60, y = 60, facing = 275 })
    expect_error(function() artillery.save_fire(b) end, "stationary")
  end)

  it("is lost when the battery pivots (moves.pivot), and a pivoted battery may not save", function()
    local b = duel()
    artillery.save_fire(b)
    artillery.begin_phase()
    moves.pivot(b, 280)
    expect(b.facing):to_be(280)
    expect(b.saved_fire):to_be_nil()
    expect_error(function() artillery.save_fire(b) end, "stationary")
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(4)
  end)

  it("lets a battery that stood still save again in the next turn's segment", function()
    local b = duel()
    moves.pivot(b, 275)
    artillery.new_turn()
    artillery.begin_phase()
    artillery.save_fire(b)
    expect(b.saving):to_be(true)
  end)
end)

describe("pivoting", function()
  it("turns an unlimbered battery in place, through world:move (a leg)", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local legs = 0
    local id = on("leaves", function() legs += 1 end)
    moves.pivot(b, 300)
    off(id)
    expect(legs):to_be(1)
    expect(b.pos.x):to_be(60)
    expect(b.pos.y):to_be(60)
    expect(b.moved):to_be(true)
  end)

  it("refuses a limbered battery and a facing that is not a number", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270, { limbered = true })
    expect_error(function() moves.pivot(b, 300) end, "is limbered")
    b.limbered = nil
    expect_error(function() moves.pivot(b, "north") end, "give the new facing in degrees")
    expect_error(function() moves.pivot("nobody", 10) end, "no unit 'nobody'")
  end)
end)

describe("what the log says", function()
  local function said(text)
    for _, line in ipairs(world:log(200)) do
      if string.find(line, text, 1, true) then
        return true
      end
    end
    return false
  end

  it("notes a lost saved fire only for a battery that had it", function()
    local b = duel()
    dice.force("d10", { 1 })
    artillery.fire{ battery = b }
    moves.move("a", { x = 50, y = 50 })
    moves.pivot(b, 275) -- a battery without saved fire turns
    expect(said("loses its saved fire")):to_be(false)
    artillery.new_turn()
    artillery.begin_phase()
    artillery.save_fire(b)
    moves.pivot(b, 270)
    expect(said("b moves and loses its saved fire")):to_be(true)
  end)

  it("notes how a battery's fire points were made, the range first", function()
    local _, a = duel()
    tabletop.set_formation(a, "square")
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.notes):to_equal({ "b foot at canister range: 4, enfilade x2 (square)" })
  end)
end)

describe("passing fire's morale", function()
  it("takes the battery's morale as it stands, even in the artillery segment", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 45, 0, nil, 2)
    artillery.begin_phase()
    b.morale = "disordered" -- since the segment began
    dice.force("d10", { 1 })
    local rec = artillery.passing_fire{ battery = b, target = "t", move_bearing = 0, in_arc_cm = 9 }
    expect(rec.notes[1]):to_contain("disordered /2")
  end)
end)

describe("saving and passing fire, by the letter", function()
  it("stays lost when the battery turns back to where it saved (moving in any way loses it)", function()
    local b = duel()
    artillery.save_fire("b")
    artillery.begin_phase()
    b.facing = 275
    expect(artillery.has_saved_fire("b")):to_be(false)
    b.facing = 270
    expect(artillery.has_saved_fire(b)):to_be(false)
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(4)
  end)

  it("is no longer saving fire once an assault took its saved fire: it may pass fire in the enemy's movement", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 45, 0, nil, 2)
    artillery.begin_phase()
    artillery.save_fire(b)
    artillery.assault_contact(b, "primary")
    dice.force("d10", { 1 })
    expect(artillery.passing_fire{ battery = b, target = "t", move_bearing = 0, in_arc_cm = 9 }.target):to_be("t")
  end)

  it("misses only the following artillery phase after passing fire", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 45, 0, nil, 2)
    dice.force("d10", { 1 })
    artillery.passing_fire{ battery = b, target = "t", move_bearing = 0, in_arc_cm = 9 }
    artillery.begin_phase()
    expect(artillery.why_not("b")):to_be("it conducted passing fire and may not fire this phase")
    artillery.new_turn()
    artillery.begin_phase()
    expect(artillery.why_not("b")):to_be_nil()
  end)

  it("notes saved fire and damage among the point modifiers", function()
    local b = duel()
    artillery.save_fire(b)
    artillery.begin_phase()
    b.damaged = true
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.notes):to_equal({ "b foot at canister range: 4, saved fire x2, damaged /2" })
  end)
end)

describe("the fire's bracket, marks and turn", function()
  it("fires massed batteries in the nearest of their brackets", function()
    -- b1 15.26 cm from t (close), b2 beside it 16.2 cm (medium)
    add("b1", "french", "foot_battery", 60, 60, 270)
    add("b2", "french", "foot_battery", 65, 60, 270)
    add("t", "austrian", "line_infantry", 55, 42.5, 90, nil, 1)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ batteries = { "b2", "b1" } }
    expect(rec.bracket):to_be("close")
    expect(rec.points):to_be(5) -- 3 at close range and 2 at medium
  end)

  it("draws the centre of fire 10 cm past the target, and clears the last fire's marks", function()
    local b, a = duel()
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    artillery.begin_phase()
    world:place(a, { x = 60, y = 45, facing = 90 })
    dice.force("d10", { 1 })
    artillery.fire{ battery = b }
    local n, line = 0, nil
    for _, m in ipairs(tabletop.marks()) do
      n += 1
      if m.label == "b centre of fire" then
        line = m.points
      end
    end
    expect(n):to_be(3)
    local p, q = line[1], line[#line]
    expect(math.sqrt((q.x - p.x) ^ 2 + (q.y - p.y) ^ 2)):to_be_close(tabletop.distance(b, a) + 10, 1e-9)
  end)

  it("marks the target's enfilade arc once for massed batteries on the same flank", function()
    scenario("republique/enfilade_column.yaml")
    local fb1 = world:unit("fb1")
    add("fb2", "french", "foot_battery", fb1.pos.x, fb1.pos.y - 5, fb1.facing)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    artillery.fire{ batteries = { "fb1", "fb2" } }
    local arcs = 0
    for _, m in ipairs(tabletop.marks()) do
      if string.find(m.label, "enfilade arc", 1, true) then
        arcs += 1
      end
    end
    expect(arcs):to_be(1)
  end)

  it("lets a battery that fired in its own player turn pass fire in the enemy's", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local t = add("t", "austrian", "line_infantry", 40, 45, 0, nil, 2)
    add("a", "austrian", "line_infantry", 60, 50, 90, nil, 1)
    expect(units.fire(b, 1).target):to_be("a")
    artillery.end_phase()
    expect(turn.step()):to_be("injuries")
    artillery.new_turn() -- the Austrian player turn
    answers{ "fire" }
    dice.force("d10", { 1 })
    world:move(t, { x = 62, y = 45 })
    expect(b.passed_fire):to_be(true)
  end)

  it("counts a mover's cm inside the arc on the battery, under passing:<id>", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local t = add("t", "austrian", "line_infantry", 40, 45, 0, nil, 2)
    world:move(t, { x = 56, y = 45 })
    expect(b:get("passing:t")):to_be_close(6.3, 0.1)
  end)

  it("names the artillery leader in its modifier", function()
    local b = duel()
    add("l", "french", "general", 60, 63, 270, { artillery_officer = true, rating = 1, attached_to = "b" })
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = b }
    expect(rec.modifiers[1].name):to_be("artillery leader l")
  end)
end)
