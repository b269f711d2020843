-- [Craters] Three or more targeting dice on one number: a shell crater on the
-- on-target hex (unless one is there) and, this combat, no terrain protection
-- there and every symbol counts. Plus the on-target count itself, and the
-- variants that move those thresholds. On the bare range, T = hex(5,4).

local T = hex(5, 4)

local function fire(hq)
  return reserve_artillery.fire{ side = "allies", target = T, card = "bombard", hq = hq }
end

local function entrenched(strength)
  world:set_terrain(T, "trenches")
  return world:add_unit{ id = "x", side = "central", type = "infantry", hex = T, strength = strength }
end

local function craters_on(h)
  local n = 0
  for _, t in ipairs(world:tokens(h)) do
    if t == "crater" then n += 1 end
  end
  return n
end

scenario("scenarios/range.yaml")

describe("on-target dice", function()
  it("are every targeting die whose number came up twice or more (2-2-5-5: four on target)", function()
    dice.force("targeting", { 2, 5, 2, 5 })
    local rec = fire(4)
    expect(rec.on_target):to_be(4)
    expect(rec.crater):to_be(false)
    expect(rec.order):to_equal({ "on_target", 2, 5 })
  end)

  it("are a pair on any number, 1 to 6 alike", function()
    for n = 1, 6 do
      world:set_pool("allies", "hq", 2)
      dice.force("targeting", { n, n })
      local rec = fire(2)
      expect(rec.on_target):to_be(2)
      expect(rec.crater):to_be(false)
    end
  end)

  it("are none when every number is different", function()
    dice.force("targeting", { 1, 2, 3, 4 })
    local rec = fire(4)
    expect(rec.on_target):to_be(0)
    expect(rec.order):to_equal({ 1, 2, 3, 4 })
  end)
end)

describe("a shell crater", function()
  it("is placed by three dice on one number, and the trench then protects nothing", function()
    local x = entrenched()
    dice.force("targeting", { 3, 3, 3 })
    dice.force("battle", { "soldier", "soldier", "soldier" })
    local rec = fire(3)
    expect(rec.crater):to_be(true)
    expect(rec.crater_placed):to_be(true)
    expect(craters_on(T)):to_be(1)
    expect(x.strength):to_be(1)
  end)

  it("is not placed by two dice on one number: the trench protects", function()
    local x = entrenched()
    dice.force("targeting", { 3, 3 })
    dice.force("battle", { "soldier", "soldier" })
    local rec = fire(2)
    expect(rec.crater):to_be(false)
    expect(craters_on(T)):to_be(0)
    expect(x.strength):to_be(4) -- the trench cancels both soldiers (ranged fire)
  end)

  it("is placed by four dice on one number too", function()
    dice.force("targeting", { 6, 6, 6, 6 })
    local rec = fire(4)
    expect(rec.on_target):to_be(4)
    expect(rec.crater_placed):to_be(true)
  end)

  it("is placed on an empty on-target hex, which is still not rolled", function()
    dice.force("targeting", { 3, 3, 3 })
    local rec = fire(3)
    expect(craters_on(T)):to_be(1)
    expect(rec.shelled[1].rolled):to_be(false)
  end)

  it("is not placed again where one lies, but the hex still loses its protection", function()
    local x = entrenched()
    world:add_token(T, "crater")
    dice.force("targeting", { 3, 3, 3 })
    dice.force("battle", { "soldier", "soldier", "hq" })
    local rec = fire(3)
    expect(rec.crater):to_be(true)
    expect(rec.crater_placed):to_be(false)
    expect(craters_on(T)):to_be(1)
    expect(x.strength):to_be(2) -- neither the trench nor the old crater protects
  end)

  it("lets every symbol count: the trench cancels no flag either", function()
    local x = entrenched()
    dice.force("targeting", { 3, 3, 3 })
    dice.force("battle", { "flag", "hq", "hq" })
    answers{ hex(6, 3) }
    local rec = fire(3)
    expect(rec.shelled[1].flags_ignored):to_be(0)
    expect(x.hex):to_be(hex(6, 3))
  end)

  it("protects a unit in it in later combats (it acts as terrain)", function()
    local y = world:add_unit{ id = "y", side = "central", type = "infantry", hex = T }
    world:add_token(T, "crater")
    dice.force("targeting", { 3, 3 })
    dice.force("battle", { "soldier", "soldier" })
    fire(2)
    expect(y.strength):to_be(3)
  end)
end)

describe("variant four_for_crater", function()
  scenario("scenarios/range.yaml", { variant = "four_for_crater" })

  it("three dice on one number are on target but make no crater: the trench protects", function()
    local x = entrenched()
    dice.force("targeting", { 3, 3, 3 })
    dice.force("battle", { "soldier", "soldier", "soldier" })
    local rec = fire(3)
    expect(rec.on_target):to_be(3)
    expect(rec.crater):to_be(false)
    expect(x.strength):to_be(3) -- the trench cancels two of the three soldiers
  end)

  it("four dice on one number make the crater", function()
    dice.force("targeting", { 3, 3, 3, 3 })
    local rec = fire(4)
    expect(rec.crater_placed):to_be(true)
  end)
end)

describe("variant crater_keeps_flag_terrain", function()
  scenario("scenarios/range.yaml", { variant = "crater_keeps_flag_terrain" })

  it("a crater hit strips protection but the trench still cancels a flag", function()
    local x = entrenched()
    dice.force("targeting", { 3, 3, 3 })
    dice.force("battle", { "flag", "soldier", "hq" })
    local rec = fire(3)
    expect(x.strength):to_be(3)
    expect(x.hex):to_be(T)
    expect(rec.shelled[1].flags_ignored):to_be(1)
  end)

  it("the crater placed by this firing shields nobody in it: a unit in the open still retreats", function()
    local x = world:add_unit{ id = "x", side = "central", type = "infantry", hex = T }
    dice.force("targeting", { 3, 3, 3 })
    dice.force("battle", { "flag", "hq", "hq" })
    answers{ hex(5, 3) }
    local rec = fire(3)
    expect(rec.crater_placed):to_be(true)
    expect(rec.shelled[1].flags_ignored):to_be(0)
    expect(x.hex):to_be(hex(5, 3))
  end)

  it("the new crater counts from the next combat on", function()
    dice.force("targeting", { 3, 3, 3 }) -- places the crater on the empty hex
    fire(3)
    local y = world:add_unit{ id = "y", side = "central", type = "infantry", hex = T }
    dice.force("targeting", { 5, 5 }) -- two on target, no crater this time; hex 5 is empty
    dice.force("battle", { "flag", "soldier" })
    local rec = fire(2)
    expect(rec.shelled[1].flags_ignored):to_be(1)
    expect(y.hex):to_be(T)
    expect(y.strength):to_be(4) -- the crater cancels the soldier too
  end)

  it("an older crater on the hex still lets the unit ignore a flag in a crater hit", function()
    local x = world:add_unit{ id = "x", side = "central", type = "infantry", hex = T }
    world:add_token(T, "crater")
    dice.force("targeting", { 3, 3, 3 })
    dice.force("battle", { "flag", "hq", "hq" })
    local rec = fire(3)
    expect(rec.crater_placed):to_be(false)
    expect(rec.shelled[1].flags_ignored):to_be(1)
    expect(x.hex):to_be(T)
  end)
end)

describe("variant on_target_needs_three", function()
  scenario("scenarios/range.yaml", { variant = "on_target_needs_three" })

  it("1-4-4-6 has nothing on target; hex 4 still gets its two dice", function()
    world:add_unit{ id = "z", side = "central", type = "infantry", hex = hex(4, 5) } -- hex 4
    dice.force("targeting", { 1, 4, 4, 6 })
    dice.force("battle", { "burst", "burst" })
    local rec = fire(4)
    expect(rec.on_target):to_be(0)
    expect(rec.order):to_equal({ 1, 4, 6 })
    expect(world:unit("z").strength):to_be(2)
  end)
end)

describe("param crater_at set to 2 (scenario set=)", function()
  scenario("scenarios/range.yaml", { set = { ["reserve_artillery.crater_at"] = 2 } })

  it("two dice on one number make a crater: the trench then protects nothing", function()
    local x = entrenched()
    dice.force("targeting", { 3, 3 })
    dice.force("battle", { "soldier", "soldier" })
    local rec = fire(2)
    expect(params.reserve_artillery.crater_at):to_be(2)
    expect(rec.crater_placed):to_be(true)
    expect(x.strength):to_be(2)
  end)
end)
