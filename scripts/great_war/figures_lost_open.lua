-- Figures a lone four-figure infantry unit in open loses to the allied reserve
-- artillery at full strength (4 HQ tokens, Artillery Bombard), counting the
-- figures lost to a blocked retreat. Compare with figures_lost_woods.lua:
--   sandtable exact scripts/great_war/figures_lost_open.lua
--   sandtable exact scripts/great_war/figures_lost_woods.lua
--   sandtable exact scripts/great_war/figures_lost_open.lua --vs-set reserve_artillery.crater_at=4
-- The target stands at hex(11,1) of the bombardment scenario, with nothing
-- around it; it retreats towards the top row (the default policy takes the
-- first free hex), and a second retreat hex would be off the map.
scenario("great_war/bombardment.yaml")

local TARGET = hex(11, 1)
-- (no terrain: open ground)
world:add_unit{ id = "target", side = "central", type = "infantry", hex = TARGET }

function trial()
  local rec = reserve_artillery.fire{ side = "allies", target = TARGET, card = "bombard", hq = 4, quiet = true }
  return { figures_lost = rec.figures_lost, eliminated = rec.units_eliminated, crater = rec.crater }
end
