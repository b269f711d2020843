-- Data pins: ruleset.yaml's tables as README.md states them. Each was found
-- unchecked by the mutation run (`sandtable test --mutate rulesets/viktory`
-- changes every number, name and switch of the data one at a time). A
-- failing pin means the data changed: change README.md with it.

local function pin(what, actual, expected)
  local ok, err = pcall(function() expect(actual):to_equal(expected) end)
  if not ok then
    error(what .. " is not as README.md states it: " .. tostring(err) .. "; change README.md with the data", 2)
  end
end

describe("the unit types", function()
  it("every Viktory piece is one unit of strength 1", function()
    for name, u in pairs(ruleset.unit_types) do
      pin(name .. "'s strength", { u.strength }, { 1 })
    end
  end)

  it("values order the default casualties: infantry 1, cavalry 2, artillery 3, frigate 4; towns and cities 0", function()
    local u = ruleset.unit_types
    pin("values", { u.infantry.value, u.cavalry.value, u.artillery.value, u.frigate.value, u.town.value, u.city.value },
      { 1, 2, 3, 4, 0, 0 })
    pin("towns and cities are not military", { u.town.military, u.city.military }, { false, false })
  end)
end)

describe("the terrain and sight", function()
  it("forests and mountains take their extra defence dice from their own params", function()
    local t = ruleset.terrain
    pin("defence params", { t.forest.defence_param, t.mountain.defence_param, t.water.water }, { "forest_dice", "mountain_dice", true })
  end)

  it("nothing blocks sight: neither units between nor the board's edge beside the line", function()
    scenario("viktory/mountain_pass.yaml")
    local side = world:sides()[1]
    world:add_unit{ id = "between", side = side, type = "infantry", hex = hex(4, 3) }
    expect(world:obstructed(hex(4, 3))):to_be(false)
    expect(world:obstructed(hex(-20, 3))):to_be(false)
  end)
end)
