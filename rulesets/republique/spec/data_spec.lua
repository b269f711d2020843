-- The numbers of ruleset.yaml on the table: the range brackets and fire
-- points of each gun, the artillery chart cell by cell, the skirmish and
-- leader injury numbers, the panic hit chart, the die, the unit types'
-- bases and formations and what each terrain kind does. Every chart number
-- is ours (README "Whose numbers"), so a failing case here means the data
-- changed: the figures of README.md's "Odds" move with it; re-run those
-- commands and update the README and these cases together.

scenario("republique/terrain_kinds.yaml")

local common = require("common")
local units = require("spec/support/units")
local add = units.add
local modifier = units.modifier

-- The artillery chart as README.md's "Whose numbers" describes it: a row
-- from its fire points up to the next row's, results for a modified die of 1..10.
local CHART = {
  { 1, { "-", "-", "-", "-", "-", "-", "1M", "1M", "1M", "2M" } },
  { 2, { "-", "-", "-", "-", "1M", "1M", "1M", "2M", "2M", "1M1B" } },
  { 3, { "-", "-", "-", "1M", "1M", "2M", "2M", "1M1B", "2M1B", "2M1B" } },
  { 5, { "-", "-", "1M", "1M", "2M", "2M", "1M1B", "2M1B", "2M1B", "3M1B" } },
  { 8, { "-", "1M", "1M", "2M", "2M", "1M1B", "2M1B", "2M1B", "3M1B", "3M2B" } },
  { 12, { "1M", "1M", "2M", "2M", "1M1B", "2M1B", "2M1B", "3M1B", "3M2B", "4M2B" } },
  { 18, { "1M", "2M", "2M", "1M1B", "2M1B", "2M1B", "3M1B", "3M2B", "4M2B", "4M3B" } },
}

describe("the artillery chart (ours)", function()
  it("gives each row's morale and base hits for a modified die of 1 to 10", function()
    for _, row in ipairs(CHART) do
      for d = 1, 10 do
        local r = artillery.result(row[1], d)
        local m = tonumber(string.match(row[2][d], "(%d+)M") or "0")
        local b = tonumber(string.match(row[2][d], "(%d+)B") or "0")
        expect({ row[1], d, r.text, r.morale, r.bases }):to_equal({ row[1], d, row[2][d], m, b })
      end
    end
  end)

  it("starts each row at its fire points: one point fewer reads the row before", function()
    for i, row in ipairs(CHART) do
      expect(artillery.chart_row(row[1]).points):to_be(row[1])
      if i > 1 then
        expect(artillery.chart_row(row[1] - 1).points):to_be(CHART[i - 1][1])
      end
    end
    expect(artillery.chart_row(0)):to_be_nil()
    expect(artillery.chart_row(40).points):to_be(18)
  end)
end)

-- Bracket ends (cm, closest points) and fire points in each bracket.
local GUNS = {
  foot_battery = { ranges = { 8, 16, 28, 42 }, points = { 4, 3, 2, 1 } },
  heavy_battery = { ranges = { 8, 18, 32, 48 }, points = { 6, 4, 3, 2 } },
  horse_battery = { ranges = { 8, 14, 24, 36 }, points = { 3, 2, 2, 1 } },
}

describe("range brackets and fire points (ours)", function()
  for ty, gun in pairs(GUNS) do
    it("of a " .. ty .. ": each bracket up to its range, the next half a centimetre beyond", function()
      -- the battery's front edge at y = 78.5, a one-base line facing it
      local b = add("b", "french", ty, 100, 80, 270)
      local t = add("t", "austrian", "line_infantry", 100, 40, 90, nil, 1)
      for i, range in ipairs(gun.ranges) do
        for _, d in ipairs({ range - 0.5, range, range + 0.5 }) do
          world:place(t, { x = 100, y = 78.5 - d - 0.75, facing = 90 })
          expect(tabletop.distance(b, t)):to_be_close(d, 1e-9)
          local points, bracket = artillery.range_points(b, t)
          local want = d <= range and i or i + 1
          expect({ d, bracket }):to_equal({ d, want <= #gun.ranges and want or nil })
          expect({ d, points }):to_equal({ d, gun.points[want] })
        end
      end
    end)
  end
end)

describe("range brackets by name (ours)", function()
  it("are canister, close, medium and long, nearest first", function()
    local b = add("b", "french", "foot_battery", 100, 80, 270)
    local t = add("t", "austrian", "line_infantry", 100, 40, 90, nil, 1)
    local names = {}
    for _, d in ipairs({ 8, 16, 28, 42 }) do
      artillery.begin_phase()
      world:place(t, { x = 100, y = 78.5 - d - 0.75, facing = 90 })
      dice.force("d10", { 1 })
      table.insert(names, artillery.fire{ battery = b }.bracket)
    end
    expect(names):to_equal({ "canister", "close", "medium", "long" })
  end)
end)

describe("skirmish fire (ours): a hit on 6 up to 4 cm, on 8 up to 8 cm, no fire beyond", function()
  local function fire_at(dy, roll)
    add("sk", "french", "skirmishers", 60, 60, 270, { parent = "f1" }) -- front edge y = 59.5
    local t = add("t", "austrian", "line_infantry", 60, 59.5 - dy - 0.75, 90)
    skirmish.begin_step()
    if roll then
      dice.force("d10", { roll })
    end
    skirmish.fire("sk", "t")
    skirmish.end_step()
    return t.morale or "normal"
  end

  it("misses on 7 at 4.5 cm", function()
    expect(fire_at(4.5, 7)):to_be("normal")
  end)

  it("hits on 8 at 7.5 cm", function()
    expect(fire_at(7.5, 8)):to_be("disordered")
  end)

  it("does not fire at 8.5 cm", function()
    expect_error(function() fire_at(8.5) end, "t is 8.5 cm from sk: out of skirmish range (8 cm)")
  end)
end)

describe("leader injuries and panic hits (ours)", function()
  it("injures on a modified 10 or 11 and kills on 12", function()
    add("a", "austrian", "line_infantry", 60, 50, 90)
    for _, case in ipairs({ { 4, "unhurt" }, { 5, "injured" }, { 6, "injured" }, { 7, "killed" } }) do
      -- +4 for an emergency rally, +1 attached
      local l = add("l" .. case[1], "austrian", "general", 60, 44, 90, { attached_to = "a" })
      dice.force("d10", { case[1] })
      local r = leaders.injury_test(l, { emergency_rally = true })
      expect({ r.modified, r.result }):to_equal({ case[1] + 5, case[2] })
    end
  end)

  it("has a base desert on a panic die of 1, 2 or 3 and none on 4", function()
    for roll, deserters in pairs({ [1] = 1, [2] = 1, [3] = 1, [4] = 0 }) do
      local u = add("u" .. roll, "austrian", "line_infantry", 20 + 20 * roll, 50, 90)
      u.began_demoralized, u.panic_hits = true, 1
      dice.force("d10", { roll })
      local rec = leaders.execute_panic()
      expect({ roll, rec[1].deserters, u.strength }):to_equal({ roll, deserters, 4 - deserters })
    end
  end)

  it("rolls a die of ten faces", function()
    expect(dice.faces("d10")):to_equal({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 })
  end)
end)

-- width x depth (cm) of each unit type's footprint, at its full strength,
-- in each formation; the first is the type's default.
local TYPES = {
  { "line_infantry", 4, "infantry", { line = { 16, 1.5 }, column = { 8, 3 }, square = { 8, 3 } } },
  { "light_infantry", 3, "infantry", { line = { 12, 1.5 }, column = { 8, 3 } } },
  { "cavalry", 2, "cavalry", { line = { 8, 2.5 }, column = { 4, 5 } } },
  { "foot_battery", 1, "artillery", { [""] = { 5, 3 } } },
  { "heavy_battery", 1, "artillery", { [""] = { 5, 3 } } },
  { "horse_battery", 1, "artillery", { [""] = { 5, 3 } } },
  { "skirmishers", 1, "skirmish", { [""] = { 2, 1 } } },
  { "general", 1, "leader", { [""] = { 1.5, 1.5 } } },
}

describe("unit types (ours)", function()
  it("have their strength, arm, bases and formations", function()
    for i, t in ipairs(TYPES) do
      local u = add("u" .. i, "austrian", t[1], 100, 40, 0)
      expect({ t[1], u.strength, common.arm(u) }):to_equal({ t[1], t[2], t[3] })
      for name, size in pairs(t[4]) do
        if name ~= "" then
          tabletop.set_formation(u, name)
        end
        local fp = tabletop.footprint(u)
        expect({ t[1], name, fp.width, fp.depth }):to_equal({ t[1], name, size[1], size[2] })
      end
      world:eliminate(u, "next type")
    end
  end)
end)

describe("terrain kinds", function()
  -- A foot battery 16.25 cm (medium range) from a one-base unit m standing
  -- just outside an area whose near edge is y = edge, and a one-base unit
  -- t 3 cm behind m's front, inside the area (0.75 cm in: spotted).
  local function tandem_into(x, edge)
    add("b", "french", "foot_battery", x, edge + 20, 270)
    add("m", "austrian", "line_infantry", x, edge + 1.5, 90, nil, 1)
    add("t", "austrian", "line_infantry", x, edge - 1.5, 90, nil, 1)
    return units.fire("b", 1)
  end

  it("a unit 3 cm behind the main target in the open is a tandem target", function()
    expect(tandem_into(85, 25).tandem):to_equal({ "t" })
  end)

  for _, case in ipairs({ { "town", 15, 25 }, { "river", 145, 25 }, { "woods", 185, 25 }, { "redoubt", 60, 38 } }) do
    it("a unit standing in " .. case[1] .. " is not in open terrain: no tandem target", function()
      local rec = tandem_into(case[2], case[3])
      expect(rec.target):to_be("m")
      expect(rec.tandem):to_equal({})
    end)
  end

  -- A four-base line whose right flank is 1 cm inside the town's (or, at
  -- y = 50, open ground's) east edge x = 30, and a foot battery 4.5 cm off
  -- that flank, facing it: close range, the battery all in the flank's arc.
  local function flank_fire(y, id)
    add("b" .. id, "french", "foot_battery", 35, y, 180)
    add(id, "austrian", "line_infantry", 21, y, 90)
    return units.fire("b" .. id, 1)
  end

  it("a town is heavy, full cover: 2 off the die and no enfilade", function()
    local open = flank_fire(50, "o")
    expect(open.points):to_be(8)              -- 4 at canister range, x2 enfilade
    expect(modifier(open, "cover")):to_be(0)
    local town = flank_fire(20, "a")
    expect(town.target):to_be("a")
    expect(town.points):to_be(4)
    expect(modifier(town, "heavy cover")):to_be(-2)
  end)

  it("a redoubt is heavy cover", function()
    add("b", "french", "foot_battery", 60, 50, 270)
    add("a", "austrian", "line_infantry", 60, 37, 90)
    expect(modifier(units.fire("b", 1), "heavy cover")):to_be(-2)
  end)

  it("a redoubt is an obstacle: no deep target beyond it", function()
    -- the centre of fire crosses the redoubt (y 36..38), then three
    -- one-base units in the open, all at close range
    add("b", "french", "foot_battery", 60, 44, 270)
    add("x1", "austrian", "line_infantry", 60, 31, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 60, 29.3, 90, nil, 1)
    add("x3", "austrian", "line_infantry", 60, 27.6, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("x1")
    expect(rec.bracket):to_be("close")
    expect(modifier(rec, "deep target")):to_be(0)
    -- the same three units in the open with nothing between: deep
    artillery.begin_phase()
    world:place(world:unit("b"), { x = 60, y = 34, facing = 270 })
    for _, id in ipairs({ "x1", "x2", "x3" }) do
      local u = world:unit(id)
      world:place(u, { x = 60, y = u.pos.y - 8, facing = 90 })
    end
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "deep target")):to_be(1)
  end)

  it("a crest is level 2: a battery on it takes 2 off against a target on level ground", function()
    local b = add("b", "french", "foot_battery", 105, 70, 270)
    add("t", "austrian", "line_infantry", 105, 50, 90)
    artillery.begin_phase()
    expect(tabletop.level(b)):to_be(2)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "elevation")):to_be(-2)
  end)
end)
