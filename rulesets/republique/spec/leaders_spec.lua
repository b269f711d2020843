-- [3.6] Leader injuries and withdrawal after skirmish and artillery fire.

scenario("republique/open_field.yaml")

local function add(id, side, ty, x, y, facing, props, strength)
  return world:add_unit{ id = id, side = side, type = ty, at = { x = x, y = y }, facing = facing,
    props = props, strength = strength }
end

local function mod(mods, name)
  for _, m in ipairs(mods) do
    if string.find(m.name, name, 1, true) then
      return m.value
    end
  end
  return 0
end

local function duel()
  add("b", "french", "foot_battery", 60, 60, 270)
  local a = add("a", "austrian", "line_infantry", 60, 50, 90)
  artillery.begin_phase()
  return a
end

describe("leaders at risk", function()
  it("are those within 8 cm of a unit fired upon", function()
    duel()
    add("near", "austrian", "general", 60, 44, 90)  -- 5.25 cm behind a
    add("far", "austrian", "general", 60, 40, 90)   -- 9.25 cm
    dice.force("d10", { 1 })
    artillery.fire{ battery = "b" }
    local ids = {}
    for _, l in ipairs(leaders.at_risk()) do table.insert(ids, l.id) end
    expect(ids):to_equal({ "near" })
  end)

  it("are not put at risk by a shot with no modified chance of a hit", function()
    add("b", "french", "foot_battery", 105, 70, 270)            -- long range: 1 point
    add("s", "austrian", "skirmishers", 105, 29.6, 90, { parent = "x" }) -- in the wood's edge
    add("l", "austrian", "general", 100, 26, 90)
    artillery.begin_phase()
    dice.force("d10", { 10 })
    local rec = artillery.fire{ battery = "b" }
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
    local a = duel()
    local l = add("l", "austrian", "general", 60, 44, 90, { attached_to = "a" })
    local m = leaders.modifiers(l, { emergency_rally = true })
    expect(mod(m, "emergency rally")):to_be(4)
    expect(mod(m, "attached")):to_be(1)
    expect(mod(m, "in cover")):to_be(0)
    local w = add("w", "austrian", "general", 100, 20, 90)
    add("wi", "austrian", "line_infantry", 105, 15, 90)
    expect(mod(leaders.modifiers(w), "in cover")):to_be(-1)
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
    expect(mod(leaders.modifiers(l), "skirmishers")):to_be(2)
    expect(mod(leaders.modifiers(l, { phase = "assault" }), "skirmishers")):to_be(0)
  end)

  it("adds 1 for each friendly combat base lost nearby this turn, destroyed units included", function()
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 60, 50, 90, nil, 1)
    local l = add("l", "austrian", "general", 60, 44, 90)
    artillery.save_fire(world:unit("b"))
    artillery.begin_phase()
    dice.force("d10", { 10 })
    artillery.fire{ battery = "b" } -- 12 points at canister: 4M2B
    expect(world:unit("t").alive):to_be(false)
    expect(mod(leaders.modifiers(l), "lost nearby")):to_be(1)
    leaders.new_turn()
    expect(mod(leaders.modifiers(l), "lost nearby")):to_be(0)
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
    artillery.begin_phase()
    dice.force("d10", { 10 })
    artillery.fire{ battery = "b" } -- 4 points: 2M1B
    expect(leaders.panic_hits()):to_equal({ { unit = "a", hits = 2 } })
  end)

  it("are executed after the injury tests, one 1D10 each; their base hits desert at once", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local a = add("a", "austrian", "line_infantry", 60, 50, 90, { morale = "demoralized" })
    artillery.begin_phase()
    dice.force("d10", { 10 })
    artillery.fire{ battery = "b" } -- 2M1B: a loses a base (3 left) and takes 2 panic hits
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
    artillery.begin_phase()
    dice.force("d10", { 10 })
    artillery.fire{ battery = "b" } -- 2M: shaken -> demoralized, 1 panic hit
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
