-- [3.6] Leader injuries and withdrawal after skirmish and artillery fire.

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add
local modifier = units.modifier
local duel = units.duel

describe("leaders at risk", function()
  it("are those within 8 cm of a unit fired upon", function()
    duel()
    add("near", "austrian", "general", 60, 44, 90)  -- 5.25 cm behind a
    add("far", "austrian", "general", 60, 40, 90)   -- 9.25 cm
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    expect(units.ids(leaders.at_risk())):to_equal({ "near" })
  end)

  it("are not put at risk by a shot with no modified chance of a hit", function()
    add("b", "french", "foot_battery", 105, 70, 270)            -- long range: 1 point
    add("s", "austrian", "skirmishers", 105, 29.6, 90, { parent = "x" }) -- in the wood's edge
    add("l", "austrian", "general", 100, 26, 90)
    local rec = units.fire("b", 10)
    expect(rec.points):to_be(1)
    expect(rec.die_modifier):to_be(-4)
    expect(rec.could_hit):to_be(false)
    expect(#leaders.at_risk()):to_be(0)
  end)

  it("skips the step when nobody is at risk", function()
    duel()
    expect(leaders.after_fire()):to_equal({ injuries = {}, panic = {} })
  end)
end)

describe("injury modifiers and results", function()
  it("adds 4 for an emergency rally, 1 when attached, and takes 1 in cover", function()
    local _, a = duel()
    local l = add("l", "austrian", "general", 60, 44, 90, { attached_to = "a" })
    local m = leaders.modifiers(l, { emergency_rally = true })
    expect(modifier(m, "emergency rally")):to_be(4)
    expect(modifier(m, "attached")):to_be(1)
    expect(modifier(m, "in cover")):to_be(0)
    local w = add("w", "austrian", "general", 100, 20, 90)
    add("wi", "austrian", "line_infantry", 105, 15, 90)
    expect(modifier(leaders.modifiers(w), "in cover")):to_be(-1)
    local _ = a
  end)

  it("adds 2 near a unit hit by skirmishers (not in the assault phase)", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    add("t", "austrian", "line_infantry", 60, 47, 90)
    local l = add("l", "austrian", "general", 60, 42, 90)
    skirmish.begin_step()
    dice.force("d10", { 10 })
    skirmish.fire("sk", "t")
    skirmish.end_step()
    expect(modifier(leaders.modifiers(l), "skirmishers")):to_be(2)
    expect(modifier(leaders.modifiers(l, { phase = "assault" }), "skirmishers")):to_be(0)
  end)

  it("adds 1 for each friendly combat base lost nearby this turn, destroyed units included", function()
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 50, 90, nil, 1)
    local l = add("l", "austrian", "general", 60, 44, 90)
    artillery.save_fire(world:unit("b"))
    units.fire("b", 10) -- 12 points at canister: 4M2B
    expect(world:unit("t").alive):to_be(false)
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(1)
    leaders.new_turn()
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(0)
  end)

  it("removes the leader on injured or killed, keeps him otherwise", function()
    duel()
    local l = add("l", "austrian", "general", 60, 44, 90)
    dice.force("d10", { 9 })
    expect(leaders.injury_test(l).result):to_be("unhurt")
    dice.force("d10", { 10 })
    expect(leaders.injury_test(l).result):to_be("injured")
    expect(l.alive):to_be(false)
    local k = add("k", "austrian", "general", 60, 44, 90, { attached_to = "a" })
    dice.force("d10", { 10 })
    answers{}
    local r = leaders.injury_test(k, { emergency_rally = true })
    expect(r.modified):to_be(15)
    expect(r.result):to_be("killed")
  end)

  it("tests every leader at risk after fire", function()
    duel()
    add("l", "austrian", "general", 60, 44, 90)
    dice.force("d10", { 10, 3 })
    artillery.fire{ battery = "b" }
    local out = leaders.after_fire()
    expect(#out.injuries):to_be(1)
    expect(out.injuries[1].roll):to_be(3)
  end)
end)

describe("panic hits", function()
  it("are the morale hits on units that began the phase demoralized", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "demoralized" })
    units.fire("b", 10) -- 4 points: 2M1B
    expect(leaders.panic_hits()):to_equal({ { unit = "a", hits = 2 } })
  end)

  it("are executed after the injury tests, one 1D10 each; their base hits desert at once", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "demoralized" })
    units.fire("b", 10) -- 2M1B: a loses a base (3 left) and takes 2 panic hits
    expect(a.strength):to_be(3)
    -- panic dice: 2 reads "1B" (a base deserts), 7 reads "-" (illustrative chart)
    dice.force("d10", { 2, 7 })
    local out = leaders.after_fire()
    expect(out.panic):to_equal({ { unit = "a", hits = 2, rolls = { 2, 7 }, deserters = 1 } })
    expect(a.strength):to_be(2)
    expect(a.deserters):to_be(1)
    expect(a.panic_hits):to_be_nil()
  end)

  it("of a unit that became demoralized this phase wait for the panic test", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "shaken" })
    units.fire("b", 10) -- 2M: shaken -> demoralized, 1 panic hit
    expect(a.morale):to_be("demoralized")
    expect(a.panic_hits):to_be(1)
    expect(leaders.after_fire().panic):to_equal({})
    expect(a.panic_hits):to_be(1)
    expect(a.strength):to_be(3)
  end)

  it("count from the start of the skirmish step, which opens the phase", function()
    local sk = add("sk", "french", "skirmishers", 60, 55, 270, { parent = "x" })
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "shaken" })
    skirmish.begin_step()
    dice.force("d10", { 10 })
    skirmish.fire(sk, a)
    skirmish.end_step() -- a is demoralized now, but began the phase shaken
    expect(a.morale):to_be("demoralized")
    add("b", "french", "foot_battery", 70, 60, 270)
    artillery.begin_phase()
    expect(a.began_demoralized):to_be_nil()
  end)
end)

describe("leaders at risk, more", function()
  it("counts a leader exactly 8 cm from a unit fired upon, not one 8.5 cm", function()
    duel() -- a's rear edge at y 49.25
    add("at8", "austrian", "general", 60, 40.5, 90)     -- front edge 41.25: 8 cm
    add("at7", "austrian", "general", 70, 41, 90)       -- about 7.5 cm from a's corner
    add("clear", "austrian", "general", 40, 40, 90)    -- well clear
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    local ids = units.ids(leaders.at_risk())
    table.sort(ids)
    expect(ids):to_equal({ "at7", "at8" })
  end)

  it("counts from where a destroyed unit stood, up to exactly 8 cm", function()
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 50, 90, nil, 1)
    add("l", "austrian", "general", 60, 41.25, 90) -- 8 cm from t's centre
    artillery.save_fire(world:unit("b"))
    units.fire("b", 10)
    expect(world:unit("t").alive):to_be(false)
    expect(#leaders.at_risk()):to_be(1)
  end)

  it("counts from where a battery destroyed by fire stood", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 50, 90, { damaged = true })
    add("l", "austrian", "general", 64, 45, 90)
    units.fire("b", 10)
    artillery.end_phase()
    expect(e.alive):to_be(false)
    expect(#leaders.at_risk()):to_be(1)
  end)

  it("does not count a leader far from a unit removed after it was fired upon", function()
    local _, a = duel()
    add("l", "austrian", "general", 20, 20, 90)
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    world:eliminate(a)
    expect(#leaders.at_risk()):to_be(0)
  end)

  it("counts skirmish fire that missed: the unit was fired upon", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    add("t", "austrian", "line_infantry", 60, 47, 90)
    add("l", "austrian", "general", 60, 42, 90)
    skirmish.begin_step()
    dice.force("d10", { 1 })
    expect(skirmish.fire("sk", "t").hit):to_be(false)
    expect(#leaders.at_risk()):to_be(1)
  end)

  it("are cleared once the tests are done, destroyed units' records too", function()
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 50, 90, nil, 1)
    add("l", "austrian", "general", 60, 42, 90)
    artillery.save_fire(world:unit("b"))
    artillery.begin_phase()
    dice.force("d10", { 10, 1 })
    artillery.fire{ battery = "b" }
    expect(#leaders.after_fire().injuries):to_be(1)
    expect(#leaders.at_risk()):to_be(0)
  end)
end)

describe("injury modifiers, more", function()
  it("has none for a lone leader in the open", function()
    local l = add("l", "austrian", "general", 20, 20, 90)
    expect(leaders.modifiers(l)):to_equal({})
  end)

  it("takes 1 for cover when exactly half of the units within 8 cm are in cover (a farm counts)", function()
    local l = add("l", "austrian", "general", 86, 55, 90)
    add("in", "austrian", "line_infantry", 92, 55, 90, nil, 1)   -- x 90..94: in the farm
    add("out", "austrian", "line_infantry", 80, 55, 90, nil, 1)  -- in the open
    expect(modifier(leaders.modifiers(l), "in cover")):to_be(-1)
    add("out2", "austrian", "line_infantry", 86, 50, 90, nil, 1) -- 1 of 3 in cover
    expect(modifier(leaders.modifiers(l), "in cover")):to_be(0)
  end)

  it("counts every unit within 8 cm for cover, the enemy's too, and none further away", function()
    local l = add("l", "austrian", "general", 86, 55, 90)
    add("out", "austrian", "line_infantry", 80, 55, 90, nil, 1)  -- own, in the open
    add("enemy", "french", "line_infantry", 92, 55, 90, nil, 1)  -- enemy, in the farm
    expect(modifier(leaders.modifiers(l), "in cover")):to_be(-1)
    world:eliminate(world:unit("enemy"))
    add("w1", "austrian", "line_infantry", 105, 15, 90, nil, 1)  -- in the wood, far away
    add("w2", "austrian", "line_infantry", 110, 15, 90, nil, 1)
    expect(modifier(leaders.modifiers(l), "in cover")):to_be(0)
  end)

  it("counts friendly cavalry bases lost nearby, not the enemy's", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("c", "austrian", "cavalry", 60, 50, 90, nil, 2)
    local l = add("l", "austrian", "general", 60, 44, 90)
    local f = add("f", "french", "general", 66, 44, 90)
    units.fire("b", 10) -- 4 points, 10 - 1 (cavalry) = 9: 2M1B
    expect(world:unit("c").strength):to_be(1)
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(1)
    expect(modifier(leaders.modifiers(f), "lost nearby")):to_be(0)
  end)

  it("kills a leader whose modified die reaches the killed threshold exactly", function()
    duel()
    local l = add("l", "austrian", "general", 60, 44, 90, { attached_to = "a" })
    world:unit("a").skirmished = true
    dice.force("d10", { 9 })
    local r = leaders.injury_test(l) -- 9 + 2 (skirmishers) + 1 (attached) = 12
    expect(r.modified):to_be(12)
    expect(r.result):to_be("killed")
  end)
end)

describe("panic hits, more", function()
  it("has none for a demoralized unit nobody hit, and one for a single morale hit", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("a", "austrian", "line_infantry", 60, 38, 90, { morale = "demoralized" }) -- medium range
    add("idle", "austrian", "line_infantry", 20, 20, 90, { morale = "demoralized" })
    artillery.begin_phase()
    expect(leaders.panic_hits()):to_equal({})
    dice.force("d10", { 5 })
    artillery.fire{ battery = "b" } -- 2 points, die 5: 1M
    expect(leaders.panic_hits()):to_equal({ { unit = "a", hits = 1 } })
  end)

  it("are not counted for a morale hit that stays on the ladder", function()
    local _, a = duel()
    dice.force("d10", { 8 })
    artillery.fire{ battery = "b" } -- 1M1B: normal -> disordered
    expect(a.morale):to_be("disordered")
    expect(a.panic_hits):to_be_nil()
  end)
end)

-- [3.6] "Roll 1D10 for each leader who was within 8cm of any unit fired upon
-- by artillery or skirmishers during the course of the phase." Measured
-- from where the unit's bases stood when it was fired upon, in every
-- layout: a four-base line A (x -8..8) facing a foot battery off its right
-- end; the fire kills the bases nearest the battery, the right-hand ones.
describe("leaders at risk: where the unit stood when fired upon", function()
  units.each_layout("counts a leader near a base the fire killed", function(s)
    local b = s.add("b", "french", "foot_battery", 6, 7.75, 270)
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 90)
    s.add("l", "austrian", "general", 15.5, 0, 90)   -- 6.75 cm beyond A's right end (x 8)
    local rec = units.fire(b, 10) -- canister 4 points: 2M1B
    expect(rec.result):to_be("2M1B")
    expect(a.strength):to_be(3)
    expect(tabletop.distance(world:unit("l"), a) > 8):to_be(true) -- the base near him is gone
    expect(units.ids(leaders.at_risk())):to_equal({ "l" })
  end)

  units.each_layout("counts from where a unit hit by passing fire stood, not where it went on to", function(s)
    local b = s.add("b", "french", "foot_battery", 0, 15, 270)
    local t = s.add("t", "austrian", "line_infantry", -20, 0, 0, nil, 2)   -- marching across the front
    s.add("near", "austrian", "general", -2.3, -4, 0)                        -- by where it is fired upon
    s.add("end", "austrian", "general", 20, -4, 0)                           -- by where it ends
    artillery.new_turn()
    answers{ "fire" }
    dice.force("d10", { 1 })
    world:move(t, s.at(20, 0))
    expect(b.passed_fire):to_be(true)
    expect(units.ids(leaders.at_risk())):to_equal({ "near" })
  end)
end)

-- [3.6] "Each base lost nearby - Add one to the injury die roll for each
-- friendly combat base within 8cm which, during the course of the current
-- player turn was lost due to base hits or capture."
describe("bases lost nearby: each base where it stood", function()
  units.each_layout("counts the lost bases within 8 cm, not every base the unit lost", function(s)
    -- A loses its two right-hand bases (x 0..4 and 4..8); the leader is
    -- 6.25 cm from the outer one and 10.25 cm from the other
    local b = s.add("b", "french", "heavy_battery", 6, 7.75, 270)
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 90)
    local l = s.add("l", "austrian", "general", 15, 0, 90)
    artillery.save_fire(b)
    expect(units.fire(b, 10).result):to_be("4M2B") -- heavy canister 6, saved x2 = 12
    expect(a.strength):to_be(2)
    expect(leaders.bases_lost_near(l)):to_be(1)
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(1)
    leaders.new_turn()
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(0)
  end)

  it("counts bases lost to capture or an assault, recorded with leaders.lose_bases", function()
    -- a four-base line x 52..68 facing down the table (base 1, its left,
    -- at x 64..68, base 4 at x 52..56); the leader 5 cm beyond base 4
    local a = add("a", "austrian", "line_infantry", 60, 50, 90)
    local l = add("l", "austrian", "general", 46.25, 50, 90)
    expect(units.ids(tabletop.bases(a))):to_equal({ 1, 2, 3, 4 })
    expect(tabletop.distance(l, tabletop.bases(a)[4])):to_be_close(5, 1e-9)
    expect(tabletop.distance(l, tabletop.bases(a)[1]) > 8):to_be(true)
    expect_error(function() leaders.lose_bases("nobody", 1) end, "leaders.lose_bases: no unit 'nobody'")
    expect(leaders.lose_bases(a, 1, "captured")):to_be(1)
    expect(units.ids(tabletop.bases(a))):to_equal({ 1, 2, 3 })
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(1)
    -- by id: base 1, 13 cm and more away, is not nearby
    leaders.lose_bases("a", { 1 }, "captured")
    expect(units.ids(tabletop.bases(a))):to_equal({ 2, 3 })
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(1)
    -- none, or more than it has: as world:hit
    leaders.lose_bases(a, 0)
    expect(a.strength):to_be(2)
    leaders.lose_bases(a, 5)
    local hits = {}
    for _, e in ipairs(world:events()) do
      if e.event == "hit" then
        table.insert(hits, e.reason)
      end
    end
    expect(hits):to_equal({ "captured", "captured", "bases lost", "bases lost" }) -- none, then the last two
    expect(a.alive):to_be(false)
    local lost = 0
    for _, t in ipairs(tabletop.traces("lost", a)) do
      lost += #t.bases
    end
    expect(lost):to_be(4)
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(1) -- base 3 (x 56..60) was 9 cm away
  end)

  it("counts bases that deserted in a panic hit: base hits", function()
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "demoralized", panic_hits = 1,
      began_demoralized = true })
    local l = add("l", "austrian", "general", 60, 45, 90)
    dice.force("d10", { 1 })
    leaders.execute_panic()
    expect(a.strength):to_be(3)
    expect(modifier(leaders.modifiers(l), "lost nearby")):to_be(1)
  end)

  it("reads its values from params", function()
    scenario("republique/open_field.yaml", { set = { ["leaders.per_base_lost"] = 2, ["leaders.attached"] = 3,
      ["leaders.in_cover"] = -2 } })
    local a = add("a", "austrian", "line_infantry", 100, 15, 90, { morale = "demoralized", panic_hits = 1,
      began_demoralized = true }) -- in the wood
    local l = add("l", "austrian", "general", 100, 20, 90, { attached_to = "a" })
    dice.force("d10", { 1 })
    leaders.execute_panic()
    local m = leaders.modifiers(l)
    expect(modifier(m, "lost nearby")):to_be(2)
    expect(modifier(m, "attached")):to_be(3)
    expect(modifier(m, "in cover")):to_be(-2)
    local _ = a
  end)
end)

describe("panic hits that desert nobody", function()
  it("lose no base and leave no trace", function()
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "demoralized", panic_hits = 1,
      began_demoralized = true })
    dice.force("d10", { 7 }) -- "-": nobody deserts
    expect(leaders.execute_panic()[1].deserters):to_be(0)
    expect(a.strength):to_be(4)
    expect(#tabletop.traces("lost")):to_be(0)
  end)
end)

describe("the phase's records, once the injuries step is done", function()
  it("a unit demoralized when the skirmish step opened the phase began it demoralized: its panic hits are executed", function()
    local sk = add("sk", "french", "skirmishers", 60, 55, 270, { parent = "x" })
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "demoralized" })
    skirmish.begin_step()
    dice.force("d10", { 10 })
    skirmish.fire(sk, a)
    skirmish.end_step()
    add("b", "french", "foot_battery", 70, 60, 270)
    artillery.begin_phase()
    dice.force("d10", { 1 }) -- the panic die: a base deserts
    expect(leaders.after_fire().panic):to_equal({ { unit = "a", hits = 1, rolls = { 1 }, deserters = 1 } })
  end)

  it("forgets who was hit by skirmishers: the next phase's injury tests add nothing for it", function()
    add("sk", "french", "skirmishers", 60, 50, 270, { parent = "f1" })
    add("t", "austrian", "line_infantry", 60, 47, 90)
    local l = add("l", "austrian", "general", 60, 42, 90)
    skirmish.begin_step()
    dice.force("d10", { 10 })
    skirmish.fire("sk", "t")
    skirmish.end_step()
    dice.force("d10", { 1 }) -- l's injury test
    leaders.after_fire()
    expect(modifier(leaders.modifiers(l), "skirmishers")):to_be(0)
  end)

  it("a panic hit's deserter is the last base in place order (the rear rank's last)", function()
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "demoralized", panic_hits = 1,
      began_demoralized = true })
    tabletop.set_formation(a, "column")
    dice.force("d10", { 1 })
    leaders.execute_panic()
    expect(units.ids(tabletop.bases(a))):to_equal({ 1, 2, 3 })
  end)
end)

describe("the tolerance, common.TOL", function()
  it("is a millionth of a centimetre: a leader 8.0000005 cm away is at risk, one 8.0000015 cm is not", function()
    duel() -- a's rear edge at y 49.25
    add("within", "austrian", "general", 55, 40.5 - 0.0000005, 90) -- 8.0000005 cm from a's rear edge
    add("beyond", "austrian", "general", 65, 40.5 - 0.0000015, 90) -- 8.0000015 cm
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    expect(units.ids(leaders.at_risk())):to_equal({ "within" })
  end)

  -- Every measure the rules hold against a bound (a range, "half or more",
  -- "more than 45 degrees") goes through these five, so this pins the edge
  -- for all of them: two measures exactly common.TOL apart are equal, two
  -- measures twice that apart are not.
  it("counts two measures exactly common.TOL apart as equal in every comparison, and twice that apart as unequal", function()
    local common = require("common")
    local T = common.TOL
    for _, bound in ipairs({ 0, 8, 0.5 }) do
      expect(common.at_most(bound + T, bound)):to_be(true)
      expect(common.at_most(bound + 2 * T, bound)):to_be(false)
      expect(common.at_least(bound - T, bound)):to_be(true)
      expect(common.at_least(bound - 2 * T, bound)):to_be(false)
      expect(common.less_than(bound - T, bound)):to_be(false)
      expect(common.less_than(bound - 2 * T, bound)):to_be(true)
      expect(common.more_than(bound + T, bound)):to_be(false)
      expect(common.more_than(bound + 2 * T, bound)):to_be(true)
      expect(common.apart(bound, bound)):to_be(false)
    end
    -- apart measures the difference itself, so at 0, where it is exact
    expect(common.apart(T, 0)):to_be(false)
    expect(common.apart(0, T)):to_be(false)
    expect(common.apart(2 * T, 0)):to_be(true)
    expect(common.apart(0, 2 * T)):to_be(true)
  end)
end)
