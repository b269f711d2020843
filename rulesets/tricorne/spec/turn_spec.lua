-- The turn properties the combat rules read (tricorne.lua): ordered, moved,
-- halted, bonus_done; set here by tricorne.order / tricorne.move, later by
-- the turn frame.

scenario("scenarios/field.yaml")

describe("turn properties", function()
  it("order marks units ordered; move marks them moved, and halted in stop terrain", function()
    local u = world:add_unit{ id = "u", side = "jacobite", type = "highland", hex = hex(5, 5) }
    tricorne.order{ "u" }
    expect(u.ordered):to_be(true)
    world:set_terrain(hex(5, 6), "woods")
    tricorne.move(u, hex(5, 6))
    expect(u.moved):to_be(true)
    expect(u.halted):to_be(true)
  end)

  it("move refuses impassable terrain with a rule error", function()
    local u = world:add_unit{ id = "u", side = "jacobite", type = "highland", hex = hex(5, 5) }
    world:set_terrain(hex(5, 6), "river")
    expect_error(function() tricorne.move(u, hex(5, 6)) end, "rule error: u cannot enter (5,6): river is impassable")
    expect(u.hex):to_be(hex(5, 5))
  end)

  it("end_turn clears them all", function()
    local u = world:add_unit{ id = "u", side = "jacobite", type = "highland", hex = hex(5, 5) }
    u.ordered, u.moved, u.halted, u.bonus_done = true, true, true, true
    tricorne.end_turn()
    expect(u.ordered):to_be_nil()
    expect(u.moved):to_be_nil()
    expect(u.halted):to_be_nil()
    expect(u.bonus_done):to_be_nil()
  end)

  it("rule errors point at the caller's line", function()
    local g = world:add_unit{ id = "g", side = "government", type = "regular", hex = hex(5, 8) }
    world:add_unit{ id = "j", side = "jacobite", type = "regular", hex = hex(5, 7) }
    g.ordered = true
    local msg = expect_error(function() ranged.fire{ unit = "g", target = "j" } end, "rule error:")
    expect(string.find(msg, "turn_spec.lua", 1, true) ~= nil):to_be(true)
  end)
end)
