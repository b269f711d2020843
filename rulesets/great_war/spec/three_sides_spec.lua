-- With a third side on the board (the loader accepts any number), a unit
-- eliminated by the figure its blocked retreat costs gives its medal to the
-- side whose fire made it retreat, as every other loss does (lib/cc retreat,
-- opts.by_side): not to "the opponent" of the unit's own side, which is
-- only the firer when there are two sides.

local cc = require("lib/cc")

scenario("scenarios/three_sides.yaml")

describe("a blocked retreat with three sides", function()
  it("gives the eliminated neutral unit's medal to the side that fired", function()
    -- Row 0 is the neutrals' own baseline row: nowhere left to retreat to.
    local n = world:add_unit{ id = "n", side = "neutrals", type = "infantry", hex = hex(6, 0), strength = 1 }
    cc.retreat(n, 1, { blocked = "lose_figure", by_side = "central", reason = "spec" })
    expect(n.alive):to_be(false)
    expect(world:pool("central", "medals")):to_be(1)
    expect(world:pool("allies", "medals")):to_be(0)
  end)
end)
