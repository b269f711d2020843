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

-- A deep copy of the bundled charts with `edit` applied, checked.
local function check_edited(edit, terrain)
  local function copy(t)
    if type(t) ~= "table" then
      return t
    end
    local out = {}
    for k, v in pairs(t) do
      out[k] = copy(v)
    end
    return out
  end
  local c = copy(ruleset.charts)
  local ground = copy(terrain or ruleset.terrain)
  edit(c, ground)
  return require("charts").check(c, ground)
end

describe("a chart edited wrongly stops the ruleset loading, naming the table", function()
  it("passes the bundled charts, and a chart of one range bracket", function()
    local parsed = check_edited(function() end)
    expect(#parsed.rows):to_be(7)
    expect(parsed.panic):to_equal({ 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 })
    check_edited(function(c)
      c.brackets = { "canister" }
      c.ranges = { foot = { 8 } }
      c.fire_points = { foot = { 4 } }
    end)
  end)

  it("the morale ladder without one of its five steps", function()
    for _, name in ipairs({ "normal", "disordered", "rattled", "shaken", "demoralized" }) do
      expect_error(function()
        check_edited(function(c)
          local kept = {}
          for _, m in ipairs(c.morale) do
            if m ~= name then
              table.insert(kept, m)
            end
          end
          c.morale = kept
        end)
      end, "ruleset.yaml charts.morale must hold normal, disordered, rattled, shaken, demoralized (" .. name .. " is missing)")
    end
  end)

  it("a cover class with no modifier, and terrain naming a class that is not one", function()
    expect_error(function()
      check_edited(function(c) c.cover_modifier.solid = nil end)
    end, "ruleset.yaml charts.cover_modifier: a die modifier for each of charts.cover_classes (solid has none)")
    expect_error(function()
      check_edited(function(_, t) t.town.cover = "stone" end)
    end, "ruleset.yaml terrain.town: cover 'stone' is not one of charts.cover_classes")
  end)

  it("no range brackets, or a bracket list that is not a list", function()
    expect_error(function() check_edited(function(c) c.brackets = {} end) end,
      "ruleset.yaml charts.brackets: list the range brackets")
    expect_error(function() check_edited(function(c) c.brackets = "canister" end) end,
      "ruleset.yaml charts.brackets: list the range brackets")
  end)

  it("a gun with a range or a fire point too few, or ranges that do not grow", function()
    expect_error(function() check_edited(function(c) table.remove(c.ranges.horse) end) end,
      "ruleset.yaml charts.ranges.horse: one range per bracket (4)")
    expect_error(function() check_edited(function(c) table.remove(c.fire_points.heavy) end) end,
      "ruleset.yaml charts.fire_points.heavy: one number per bracket")
    expect_error(function() check_edited(function(c) c.fire_points.heavy = nil end) end,
      "ruleset.yaml charts.fire_points.heavy: one number per bracket")
    expect_error(function() check_edited(function(c) c.ranges.foot[2] = 8 end) end,
      "ruleset.yaml charts.ranges.foot: ranges must grow")
    expect_error(function() check_edited(function(c) c.ranges.foot[4] = 28 end) end,
      "ruleset.yaml charts.ranges.foot: ranges must grow")
  end)

  it("artillery rows whose points do not grow, that lack a result, or a cell that is not a result", function()
    expect_error(function() check_edited(function(c) c.artillery[1].points = 0 end) end,
      "ruleset.yaml charts.artillery row 1: points must grow from row to row")
    expect_error(function() check_edited(function(c) c.artillery[4].points = 3 end) end,
      "ruleset.yaml charts.artillery row 4: points must grow from row to row")
    expect_error(function() check_edited(function(c) c.artillery[2].points = "2" end) end,
      "ruleset.yaml charts.artillery row 2: points must grow from row to row")
    expect_error(function() check_edited(function(c) table.remove(c.artillery[3].results) end) end,
      "ruleset.yaml charts.artillery row 3: ten results, for a modified die of 1..10")
    expect_error(function() check_edited(function(c) c.artillery[5].results[7] = "1X" end) end,
      "ruleset.yaml charts.artillery row 5, die 7: '1X' is not like 2M1B or -")
  end)

  it("reads results like 2M1B, 1M, 1B and -, and nothing else", function()
    local parse = require("charts").parse_result
    expect({ parse("-") }):to_equal({ 0, 0 })
    expect({ parse("2M1B") }):to_equal({ 2, 1 })
    expect({ parse("12M3B") }):to_equal({ 12, 3 })
    expect({ parse("1M") }):to_equal({ 1, 0 })
    expect({ parse("1B") }):to_equal({ 0, 1 })
    for _, bad in ipairs({ "", "M", "B", "MB", "0M", "0M0B", "1B2M", "2M1", "x2M", "2M1Bx", "1X" }) do
      expect({ bad, parse(bad) }):to_equal({ bad })
    end
    expect(parse(3)):to_be_nil()
  end)

  it("skirmish ranges and die numbers that do not match, do not grow, or are no die", function()
    expect_error(function() check_edited(function(c) c.skirmish = nil end) end,
      "ruleset.yaml charts.skirmish: ranges and hit_on, one number each per range band")
    expect_error(function() check_edited(function(c) c.skirmish = { ranges = {}, hit_on = {} } end) end,
      "ruleset.yaml charts.skirmish: ranges and hit_on, one number each per range band")
    expect_error(function() check_edited(function(c) table.remove(c.skirmish.hit_on) end) end,
      "ruleset.yaml charts.skirmish: ranges and hit_on, one number each per range band")
    expect_error(function() check_edited(function(c) c.skirmish.ranges = { 4, 4 } end) end,
      "ruleset.yaml charts.skirmish.ranges must grow")
    expect_error(function() check_edited(function(c) c.skirmish.hit_on = { 0, 8 } end) end,
      "ruleset.yaml charts.skirmish.hit_on: a die number 1..10 (11: never)")
    expect_error(function() check_edited(function(c) c.skirmish.hit_on = { 6, 12 } end) end,
      "ruleset.yaml charts.skirmish.hit_on: a die number 1..10 (11: never)")
    check_edited(function(c) c.skirmish = { ranges = { 4 }, hit_on = { 1 } } end)
    check_edited(function(c) c.skirmish.hit_on = { 1, 11 } end)
  end)

  it("leader injury thresholds missing or out of order, and a panic hit chart not of ten results", function()
    local msg = "ruleset.yaml charts.leader_injury: injured and killed thresholds (killed >= injured)"
    expect_error(function() check_edited(function(c) c.leader_injury = nil end) end, msg)
    expect_error(function() check_edited(function(c) c.leader_injury.injured = nil end) end, msg)
    expect_error(function() check_edited(function(c) c.leader_injury.killed = nil end) end, msg)
    expect_error(function() check_edited(function(c) c.leader_injury.killed = 9 end) end, msg)
    check_edited(function(c) c.leader_injury.killed = 10 end)
    expect_error(function() check_edited(function(c) table.remove(c.panic_hit) end) end,
      "ruleset.yaml charts.panic_hit: ten results, for a die of 1..10")
    expect_error(function() check_edited(function(c) c.panic_hit = "1B" end) end,
      "ruleset.yaml charts.panic_hit: ten results, for a die of 1..10")
    expect_error(function() check_edited(function(c) c.panic_hit[4] = "1M" end) end,
      "ruleset.yaml charts.panic_hit, die 4: '1M' is not like 1B or -")
    expect(check_edited(function(c) c.panic_hit[10] = "2B" end).panic[10]):to_be(2)
  end)
end)

describe("what the log says of each roll and loss", function()
  it("names the fire, the injury test and the skirmish fire each die was rolled for, and why units were hit", function()
    duel()
    add("l", "austrian", "general", 60, 44, 90, { attached_to = "a" })
    dice.force("d10", { 8 })
    artillery.fire{ battery = "b" }
    local mods = {}
    for _, m in ipairs(leaders.modifiers(world:unit("l"))) do
      table.insert(mods, m.name)
    end
    expect(mods):to_equal({ "attached to a", "1 friendly base(s) lost nearby" })
    dice.force("d10", { 10 })
    leaders.injury_test("l")
    add("sk", "french", "skirmishers", 40, 50, 270, { parent = "f1" })
    add("t", "austrian", "line_infantry", 40, 47, 90)
    skirmish.begin_step()
    dice.force("d10", { 10 })
    skirmish.fire("sk", "t")
    local log = table.concat(world:log(50), "\n")
    for _, line in ipairs({ "roll 1 d10 for artillery fire of b at a: 8 (forced)",
      "a takes 1 hit (artillery fire of b), strength now 3", "roll 1 d10 for injury test of l: 10 (forced)",
      "l is eliminated (leader killed)", "roll 1 d10 for skirmish fire of sk at t: 10 (forced)" }) do
      expect(log):to_contain(line)
    end
  end)
end)

describe("a morale that is not on the ladder", function()
  it("is refused when the unit takes a hit, naming the ladder", function()
    local _, a = duel()
    a.morale = "routed"
    dice.force("d10", { 8 })
    expect_error(function() artillery.fire{ battery = "b" } end,
      "a's morale 'routed' is not on the ladder (ruleset.yaml charts.morale: normal, disordered, rattled, shaken, demoralized)")
  end)
end)

describe("turn and move calls refuse", function()
  it("finishing a turn before any has started", function()
    expect_error(function() turn.finish() end, "turn.finish: no turn has started (turn.start(side) starts one)")
  end)

  it("a move of a unit that does not exist, by the moves' own name", function()
    expect_error(function() moves.move("nobody", { x = 1, y = 1 }) end, "moves.move: no unit 'nobody'")
  end)
end)
