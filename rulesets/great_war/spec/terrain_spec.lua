-- The Great War's terrain values (ruleset.yaml terrain:, charts.token_terrain),
-- read through lib/cc terrain_effects for ranged fire and for close combat:
-- trenches 2 soldiers and 2 flags against ranged fire, 1 and 1 in close
-- combat; woods (the game's Forest) 1 soldier and no flag; a shell crater 1
-- and 1 either way. The reserve artillery is ranged fire. On the bare range.

local cc = require("lib/cc")

local H = hex(5, 4)

local function effects(combat, without)
  local p, f = cc.terrain_effects(H, combat, without)
  return { p, f }
end

scenario("scenarios/range.yaml")

describe("terrain against ranged fire and in close combat", function()
  it("trenches: 2 soldiers and 2 flags ranged, 1 and 1 close; ranged is the default", function()
    world:set_terrain(H, "trenches")
    expect(effects("ranged")):to_equal({ 2, 2 })
    expect(effects("close")):to_equal({ 1, 1 })
    expect(effects()):to_equal({ 2, 2 })
  end)

  it("woods: 1 soldier, no flag, either way", function()
    world:set_terrain(H, "woods")
    expect(effects("ranged")):to_equal({ 1, 0 })
    expect(effects("close")):to_equal({ 1, 0 })
  end)

  it("a shell crater: 1 and 1 either way; a hex takes the best of its terrain and tokens", function()
    world:add_token(H, "crater")
    expect(effects("ranged")):to_equal({ 1, 1 })
    expect(effects("close")):to_equal({ 1, 1 })
    world:set_terrain(H, "woods")
    expect(effects("close")):to_equal({ 1, 1 })
    world:set_terrain(H, "trenches")
    expect(effects("ranged")):to_equal({ 2, 2 })
    expect(effects("ranged", "crater")):to_equal({ 2, 2 })
    world:set_terrain(H, nil)
    expect(effects("ranged", "crater")):to_equal({ 0, 0 }) -- a token left out
  end)

  it("hex_effects takes the terrain a caller already read (world:at) and gives the same", function()
    world:set_terrain(H, "trenches")
    world:add_token(H, "crater")
    local unit, owner, terrain, crater, wire = world:at(H, "crater", "wire")
    expect({ unit, owner, terrain, crater, wire }):to_equal({ nil, nil, "trenches", true, false })
    expect({ cc.hex_effects(H, terrain, "close") }):to_equal({ cc.terrain_effects(H, "close") })
    expect({ cc.hex_effects(H, terrain, "ranged", "crater") }):to_equal({ 2, 2, false })
    expect({ cc.hex_effects(H, nil, "ranged") }):to_equal({ 1, 1, false }) -- the crater alone
    world:set_terrain(H, "lake")
    expect({ cc.hex_effects(H, world:terrain(H)) }):to_equal({ 1, 1, true }) -- impassable
  end)

  it("world:at tells a unit, its side and the terrain in one call; nothing off the map", function()
    world:set_terrain(H, "woods")
    local x = world:add_unit{ id = "x", side = "central", type = "infantry", hex = H }
    local unit, owner, terrain, wire = world:at(H, "wire")
    expect(rawequal(unit, x)):to_be(true)
    expect({ owner, terrain, wire }):to_equal({ "central", "woods", false })
    expect(select("#", world:at(hex(-9, -9), "wire", "crater"))):to_be(5)
    expect({ world:at(hex(-9, -9), "wire") }):to_equal({ nil, nil, nil, false })
  end)

  it("the reserve artillery meets a trench as ranged fire: two soldiers cancelled", function()
    world:set_terrain(H, "trenches")
    local x = world:add_unit{ id = "x", side = "central", type = "infantry", hex = H }
    dice.force("targeting", { 2, 2 }) -- two on target; hex 2 (6,4) is empty
    dice.force("battle", { "soldier", "soldier" })
    local rec = reserve_artillery.fire{ side = "allies", target = H, card = "bombard", hq = 2 }
    expect(rec.shelled[1].protection):to_be(2)
    expect(x.strength):to_be(4)
  end)
end)
