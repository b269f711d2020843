-- [3.2 Limbered] [3.2 Save] [3.2 Prolong] moves that touch artillery fire
-- (moves.lua), and [3.5 Pass] passing fire as a reaction to those moves
-- (artillery.on_leg, through world:move's `leaves` events).

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add
local modifier = units.modifier

-- A foot battery at (60, 60) facing up the table; at y = 45 its arc of fire
-- spans x 49.7..70.3. An Austrian two-base line at (40, 45) facing east,
-- about to march across the battery's front.
local function crossing(ty)
  local b = add("b", "french", "foot_battery", 60, 60, 270)
  local t = add("t", "austrian", ty or "line_infantry", 40, 45, 0, nil, 2)
  artillery.new_turn()
  return b, t
end

describe("moves on the tabletop", function()
  it("walk leg by leg; a leg off the table moves nothing", function()
    local t = add("t", "austrian", "line_infantry", 40, 20, 0, nil, 2)
    local legs = {}
    local id = on("leaves", function(u, from, to)
      table.insert(legs, string.format("%g,%g->%g,%g@%g", from.x, from.y, to.x, to.y, to.facing))
    end)
    expect(moves.move(t, { { x = 50, y = 20 }, { x = 50, y = 10, facing = 270 } })):to_be(true)
    off(id)
    expect(legs):to_equal({ "40,20->50,20@0", "50,20->50,10@270" })
    expect_error(function() moves.move(t, { { x = 60, y = 10 }, { x = 130, y = 10 } }) end, "off the 120 x 80 cm table")
    expect(t.pos.x):to_be(50)
    expect(t.facing):to_be(270)
  end)
end)

describe("limbering and unlimbering", function()
  it("a limbered battery may not fire until it unlimbers", function()
    local b = crossing()
    add("a", "austrian", "line_infantry", 60, 50, 90)
    moves.limber(b)
    artillery.begin_phase()
    expect_error(function() artillery.fire{ battery = "b" } end, "limbered batteries may not fire")
    moves.unlimber(b, 270)
    expect(artillery.why_not(b)):to_be_nil()
  end)

  it("limbered, a battery moves along legs; unlimbered it may only prolong", function()
    local b = crossing()
    expect_error(function() moves.move(b, { x = 60, y = 70 }) end, "moves only by prolonging")
    moves.limber(b)
    expect(moves.move(b, { { x = 60, y = 70 }, { x = 80, y = 70, facing = 0 } })):to_be(true)
    expect(b.pos.x):to_be(80)
    expect(b.facing):to_be(0)
    moves.unlimber(b, 270)
    expect(b.facing):to_be(270)
    expect_error(function() moves.unlimber(b) end, "not limbered")
  end)

  it("limbering, unlimbering and turning each lose saved fire", function()
    local b = crossing()
    artillery.save_fire(b)
    moves.limber(b)
    expect(b.saved_fire):to_be_nil()
    moves.unlimber(b)
    b.moved = nil
    artillery.save_fire(b)
    world:move(b, { x = 60, y = 60, facing = 275 }) -- a turn in place is a move
    expect(b.saved_fire):to_be_nil()
  end)
end)

describe("prolonging", function()
  it("moves an unlimbered battery up to prolong_cm and loses its saved fire", function()
    local b = crossing()
    artillery.save_fire(b)
    moves.prolong(b, { x = 60, y = 56 })
    expect(b.pos.y):to_be(56)
    expect(b.saved_fire):to_be_nil()
    expect(b.prolonged):to_be(true)
    expect_error(function() moves.prolong(b, { { x = 60, y = 53 }, { x = 62, y = 53 } }) end, "at most 4 cm, not 5.0")
    moves.limber(b)
    expect_error(function() moves.prolong(b, { x = 60, y = 55 }) end, "only unlimbered guns prolong")
  end)

  it("loses simultaneous fire: hits on a battery that prolonged land at once in the next phase", function()
    add("f", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 62, 48, 90)
    moves.prolong(e, { x = 60, y = 48 })
    units.fire("f", 10) -- canister, 4 points, die 10: 2M1B
    expect(e.damaged):to_be(true)
    expect(e.morale):to_be("rattled")
    -- so it cannot answer in the same phase: damaged with morale hits
    expect_error(function() artillery.fire{ battery = "e" } end, "silenced")
    artillery.end_phase()
    expect(e.prolonged):to_be_nil()
  end)
end)

describe("passing fire as a reaction to moves", function()
  it("is offered once the move has spent 8 cm inside the arc across the front, and fires at -2", function()
    local b, t = crossing()
    -- leg 1 ends at x 53: 3.3 cm inside the arc, not yet 8; leg 2 to x 60
    -- makes 10.3 cm. The battery's side chooses to fire; die 10 - 2 = 8 with
    -- 6 points (close range 3, x2: the battery lies in t's right-flank
    -- enfilade arc) reads 2M1B.
    answers{ "fire" }
    dice.force("d10", { 10 })
    expect(world:move(t, { { x = 53, y = 45 }, { x = 60, y = 45 }, { x = 75, y = 45 } })):to_be(true)
    expect(t.pos.x):to_be(75)
    expect(t.strength):to_be(1)
    expect(t.morale):to_be("rattled")
    expect(b.passed_fire):to_be(true)
    expect(#units.decisions()):to_be(1)
    -- it misses the next artillery phase and gets no saved fire from it
    artillery.begin_phase()
    expect_error(function() artillery.fire{ battery = "b" } end, "conducted passing fire")
    expect_error(function() artillery.save_fire(b) end, "no saved fire")
  end)

  it("reports the -2 in the fire record", function()
    local b, t = crossing()
    world:place(t, { x = 60, y = 45, facing = 0 })
    dice.force("d10", { 5 })
    local rec = artillery.passing_fire{ battery = b, target = "t", from = { x = 40, y = 45 }, to = { x = 60, y = 45 } }
    expect(modifier(rec, "passing fire")):to_be(-2)
  end)

  it("holds when the side declines, and does not ask again this turn", function()
    local b, t = crossing()
    answers{ "hold" }
    world:move(t, { x = 60, y = 45 })
    world:move(t, { x = 68, y = 45 })
    expect(t.strength):to_be(2)
    expect(b.passed_fire):to_be_nil()
  end)

  it("is not offered for a move straight at the battery, nor for too little of the move in the arc", function()
    local _, t = crossing()
    world:place(t, { x = 60, y = 30, facing = 90 })
    world:move(t, { x = 60, y = 44 })             -- head-on: 0 degrees from perpendicular
    world:place(t, { x = 40, y = 45, facing = 0 })
    world:move(t, { x = 55, y = 45 })             -- across, but 5.3 cm inside
    expect(t.strength):to_be(2)
  end)

  it("needs 15 cm of a cavalry move", function()
    local _, c = crossing("cavalry")
    world:move(c, { x = 60, y = 45 })             -- 10.3 cm inside: not yet
    answers{ "fire" }
    dice.force("d10", { 1 })
    world:move(c, { x = 66, y = 45 })             -- 16.3 cm
    expect(world:unit("b").passed_fire):to_be(true)
  end)

  it("is not open to a battery holding saved fire", function()
    local b, t = crossing()
    artillery.save_fire(b)
    world:move(t, { x = 75, y = 45 })
    expect(t.strength):to_be(2)
  end)

  it("stops the move of a unit it destroys", function()
    local _, t = crossing()
    t.strength = 1
    answers{ "fire" }
    dice.force("d10", { 10 })
    expect(world:move(t, { { x = 60, y = 45 }, { x = 75, y = 45 } })):to_be(false)
    expect(t.alive):to_be(false)
  end)
end)

describe("passing fire as a reaction to moves, more", function()
  it("is offered with exactly 8 cm of the move inside the arc, not 7.3", function()
    local _, t = crossing()
    world:place(t, { x = 52, y = 45, facing = 0 })
    answers{ "hold" }
    world:move(t, { x = 60, y = 45 })              -- 8 cm, all of it inside the arc
    expect(#units.decisions()):to_be(1)
  end)

  it("counts every bit of the move, however short a leg: 7.5 cm, then half a centimetre more", function()
    local _, t = crossing()
    world:place(t, { x = 52, y = 45, facing = 0 })
    answers{ "hold" }
    world:move(t, { { x = 59.5, y = 45 }, { x = 60, y = 45 } }) -- 7.5 cm, then 0.5: 8 cm inside the arc
    expect(#units.decisions()):to_be(1)
  end)

  it("is not offered for 7.3 cm inside the arc", function()
    local _, t = crossing()
    world:move(t, { x = 57, y = 45 })              -- 49.7..57: 7.3 cm inside
    expect(#units.decisions()):to_be(0)
  end)

  it("counts legs more than 45 degrees from the perpendicular, either way", function()
    local _, t = crossing()
    local t2 = add("t2", "austrian", "line_infantry", 68, 30, 180, nil, 2)
    local function leg(u, deg, len)
      local p = u.pos
      return { x = p.x + len * math.cos(math.rad(deg)), y = p.y + len * math.sin(math.rad(deg)) }
    end
    world:place(t, { x = 52, y = 40, facing = 0 })
    answers{ "hold", "hold" }
    world:move(t, leg(t, 44.5, 12))                -- 45.5 degrees from the perpendicular (90)
    world:move(t2, leg(t2, 135.5, 12))             -- 45.5 degrees the other way
    expect(#units.decisions()):to_be(2)
  end)

  it("does not count legs 45 or fewer degrees from the perpendicular", function()
    local _, t = crossing()
    local function leg(deg, len)
      local p = t.pos
      return { x = p.x + len * math.cos(math.rad(deg)), y = p.y + len * math.sin(math.rad(deg)) }
    end
    world:place(t, { x = 50, y = 36, facing = 0 })
    world:move(t, leg(45.5, 14))                   -- 44.5 degrees from the perpendicular
    world:place(t, { x = 70, y = 36, facing = 180 })
    world:move(t, leg(134.5, 14))
    local t3 = add("t3", "austrian", "line_infantry", 50, 25, 45, nil, 1)
    world:move(t3, { x = 60, y = 35 })             -- exactly 45 degrees: not across the front
    expect(#units.decisions()):to_be(0)
  end)

  it("counts afresh in a new player turn", function()
    local _, t = crossing()
    answers{ "hold", "hold" }
    world:move(t, { x = 60, y = 45 })
    artillery.new_turn()
    world:move(t, { x = 52, y = 45 })             -- 8 cm inside the arc
    expect(#units.decisions()):to_be(2)
  end)

  it("is not offered to a limbered battery, nor at a unit out of range", function()
    local b, t = crossing()
    b.limbered = true
    world:move(t, { x = 62, y = 45 })
    b.limbered = nil
    world:place(t, { x = 30, y = 8, facing = 0 })  -- beyond the 42 cm long range
    world:move(t, { x = 62, y = 8 })
    expect(#units.decisions()):to_be(0)
  end)

  it("is not offered at a moving battery, a leader or a skirmish marker", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    artillery.new_turn()
    local e = add("e", "austrian", "foot_battery", 40, 45, 0, { limbered = true })
    moves.move(e, { x = 62, y = 45 })
    local g = add("g", "austrian", "general", 40, 35, 0)
    world:move(g, { x = 62, y = 35 })
    local s = add("s", "austrian", "skirmishers", 40, 25, 0, { parent = "x" })
    world:move(s, { x = 62, y = 25 })
    expect(#units.decisions()):to_be(0)
  end)

  it("a battery passes fire once a turn: a second mover is not offered it", function()
    local b, t = crossing()
    local t2 = add("t2", "austrian", "line_infantry", 30, 30, 0, nil, 2)
    answers{ "fire" }
    dice.force("d10", { 1 })
    world:move(t, { x = 62, y = 45 })
    expect(b.passed_fire):to_be(true)
    world:move(t2, { x = 60, y = 30 })
    expect(#units.decisions()):to_be(1)
  end)

  it("asks each battery in turn while the mover stands, and stops once it is destroyed", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    local b2 = add("b2", "french", "foot_battery", 65, 60, 270)
    local t = add("t", "austrian", "line_infantry", 40, 45, 0, nil, 2)
    artillery.new_turn()
    answers{ "fire", "fire" }
    dice.force("d10", { 1, 1 })
    world:move(t, { x = 64, y = 45 })
    expect(b.passed_fire and b2.passed_fire):to_be(true)
    world:eliminate(t)
    local t3 = add("t3", "austrian", "line_infantry", 40, 45, 0, nil, 1)
    artillery.new_turn()
    b.passed_fire, b2.passed_fire = nil, nil
    answers{ "fire" }
    dice.force("d10", { 10 })
    expect(world:move(t3, { x = 64, y = 45 })):to_be(false)
    expect(#units.decisions()):to_be(3)
  end)
end)

describe("moves that make a battery move", function()
  it("prolonging a single point is measured too: 10 cm is too far", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    expect_error(function() moves.prolong(b, { x = 60, y = 50 }) end, "at most 4 cm, not 10.0")
  end)

  it("takes points as {x, y} pairs too", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    moves.prolong(b, { 60, 57 })
    expect(b.pos.y):to_be(57)
    expect_error(function() moves.prolong(b, { { 60, 54 }, { 63, 54 } }) end, "at most 4 cm, not 6.0")
    expect_error(function() moves.prolong(b, { { 66, 57 } }) end, "at most 4 cm, not 6.0")
  end)

  it("moving, limbering, unlimbering and prolonging each leave the battery not stationary: no saved fire", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    moves.prolong(b, { x = 60, y = 58 })
    expect_error(function() artillery.save_fire(b) end, "stationary")
    b.moved = nil
    moves.limber(b)
    expect_error(function() artillery.save_fire(b) end, "stationary")
    b.moved = nil
    moves.move(b, { x = 60, y = 62 })
    expect_error(function() artillery.save_fire(b) end, "stationary")
    b.moved = nil
    moves.unlimber(b, 270)
    expect_error(function() artillery.save_fire(b) end, "stationary")
  end)
end)

describe("passing fire where the need is reached", function()
  it("fires at a unit crossing the whole arc in one leg, where it stood after 8 cm inside", function()
    -- one leg from x 40 to x 80 along y 45: the arc spans x 49.7..70.3
    -- there, so the 8 cm are reached at x 57.7 (close range; at x 80 the
    -- unit is out of the arc and at medium range)
    local b, t = crossing()
    answers{ "fire" }
    dice.force("d10", { 10 }) -- 10 - 2 = 8: a base hit, which marks where t stood
    expect(world:move(t, { x = 80, y = 45 })):to_be(true)
    expect(b.passed_fire):to_be(true)
    expect(t.pos.x):to_be(80)
    local fired = tabletop.traces("fired_upon", t)[1]
    local stood = tabletop.footprint(t) -- where t stands now, to compare
    local mid_x = (fired.bases[1].x + fired.bases[2].x) / 2
    expect(mid_x):to_be_close(57.5 - 13.5 * math.tan(math.rad(30)) + 8, 1e-6)
    expect((fired.bases[1].y + fired.bases[2].y) / 2):to_be_close(45, 1e-9)
    expect(stood.x):to_be(80)
    local line = nil
    for _, l in ipairs(world:log(30)) do
      if string.find(l, "b fire at t", 1, true) then line = l end
    end
    expect(line):to_contain("(close range)")
  end)

  it("fires where the leg ends when the battery could not fire where the need was reached", function()
    -- a friendly marker screens the first part of the arc; the leg ends
    -- clear of it, in the arc
    local b, t = crossing()
    add("sk", "french", "skirmishers", 57, 52, 270, { parent = "x" })
    world:place(t, { x = 57.7, y = 45, facing = 0 })
    expect(artillery.blocked_by(b, t).id):to_be("sk")
    world:place(t, { x = 66, y = 45, facing = 0 })
    expect(artillery.blocked_by(b, t)):to_be_nil()
    world:place(t, { x = 40, y = 45, facing = 0 })
    answers{ "fire" }
    dice.force("d10", { 1 })
    world:move(t, { x = 66, y = 45 })
    expect(b.passed_fire):to_be(true)
    expect(t.pos.x):to_be(66)
  end)

  it("asks with how far the mover went inside the arc where it will be fired on: the leg's end, not the 8 cm", function()
    -- as above: screened where the 8 cm were reached (x 57.7), so the fire
    -- is at the leg's end, x 66, after 66 - 49.7 = 16.3 cm inside the arc
    local _, t = crossing()
    add("sk", "french", "skirmishers", 57, 52, 270, { parent = "x" })
    answers{ "hold" }
    world:move(t, { x = 66, y = 45 })
    local asked = units.decisions()
    expect(#asked):to_be(1)
    expect(asked[1].prompt):to_contain("(16.3 cm of its move inside the arc)")
  end)

  it("asks with the 8 cm when the mover is fired on where it reached them", function()
    local _, t = crossing()
    answers{ "hold" }
    world:move(t, { x = 66, y = 45 })
    expect(units.decisions()[1].prompt):to_contain("(8.0 cm of its move inside the arc)")
  end)

  it("fires where a later leg ends when the need was reached exactly at the end of an earlier move, where it could not fire", function()
    -- the first move ends exactly 8 cm inside the arc (x 57.7), where a
    -- friendly marker screens t; the marker leaves; the next move's leg
    -- (to x 66) is where the battery may fire: at its end, as for any need
    -- reached before the leg
    local b, t = crossing()
    local sk = add("sk", "french", "skirmishers", 57, 52, 270, { parent = "x" })
    local need_x = 57.5 - 13.5 * math.tan(math.rad(30)) + 8
    world:move(t, { x = need_x, y = 45 })
    expect(b.passed_fire):to_be_nil()
    expect(units.decisions()):to_equal({})
    world:place(sk, { x = 20, y = 70, facing = 270 })
    answers{ "fire" }
    dice.force("d10", { 10 }) -- 10 - 2 = 8: a base hit, which marks where t stood
    world:move(t, { x = 66, y = 45 })
    expect(b.passed_fire):to_be(true)
    local fired = tabletop.traces("fired_upon", t)[1]
    expect((fired.bases[1].x + fired.bases[2].x) / 2):to_be_close(66, 1e-9)
  end)
end)

describe("passing fire where the need is reached: the point", function()
  -- A friendly marker at (64, 53) screens the battery's frontage zone from a
  -- mover at x 62 or more on y 45, not from one at x 60 or less: fire that
  -- happens, happens where the 8 cm were reached, not at the leg's end.
  local function screened()
    local b, t = crossing()
    add("sk", "french", "skirmishers", 64, 53, 270, { parent = "x" })
    return b, t
  end

  it("is found late in a long leg (8 cm reached 74% of the way along it)", function()
    local b, t = screened()
    answers{ "fire" }
    dice.force("d10", { 1 })
    world:move(t, { x = 64, y = 45 })              -- 8 cm inside the arc at x 57.7
    expect(b.passed_fire):to_be(true)
  end)

  it("counts what the earlier legs spent inside the arc", function()
    local b, t = screened()
    answers{ "fire" }
    dice.force("d10", { 1 })
    world:move(t, { { x = 53, y = 45 }, { x = 64, y = 45 } }) -- 3.3 cm, then 4.7 more at x 57.7
    expect(b.passed_fire):to_be(true)
  end)

  it("is found along a slanting leg", function()
    -- from (40, 41) to (64, 49): where the leg crosses the arc's left ray
    -- (from the battery's front corner (57.5, 58.5) at 30 degrees off its
    -- facing), then 8 cm further along the leg
    local b, t = screened()
    world:place(t, { x = 40, y = 41, facing = 0 })
    local dx, dy = 24 / math.sqrt(640), 8 / math.sqrt(640)
    local rx, ry = math.cos(math.rad(240)), math.sin(math.rad(240))
    -- solve (40, 41) + s (dx, dy) = (57.5, 58.5) + r (rx, ry) for s
    local det = dx * (-ry) - dy * (-rx)
    local s = ((57.5 - 40) * (-ry) - (58.5 - 41) * (-rx)) / det
    local fx, fy = 40 + (s + 8) * dx, 41 + (s + 8) * dy
    world:place(t, { x = fx, y = fy, facing = 0 })
    local bracket = ruleset.charts.brackets[(artillery.bracket(b, t))]
    world:place(t, { x = 40, y = 41, facing = 0 })
    answers{ "fire" }
    dice.force("d10", { 10 }) -- 10 - 2 = 8: a base hit, which marks where t stood
    world:move(t, { x = 64, y = 49 })
    expect(b.passed_fire):to_be(true)
    expect(t.strength):to_be(1)
    local fired = tabletop.traces("fired_upon", t)[1]
    expect((fired.bases[1].x + fired.bases[2].x) / 2):to_be_close(fx, 1e-6)
    expect((fired.bases[1].y + fired.bases[2].y) / 2):to_be_close(fy, 1e-6)
    local line = nil
    for _, l in ipairs(world:log(30)) do
      if string.find(l, "b fire at t", 1, true) then line = l end
    end
    expect(line):to_contain("(" .. bracket .. " range)")
  end)
end)

describe("battery moves by id", function()
  it("unlimbers and prolongs a battery given by its id", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270, { limbered = true })
    moves.unlimber("b", 270)
    expect(b.limbered):to_be_nil()
    moves.prolong("b", { x = 60, y = 57 })
    expect(b.prolonged):to_be(true)
    expect(b.pos.y):to_be_close(57, 1e-9)
  end)
end)
