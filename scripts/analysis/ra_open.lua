-- The allied reserve artillery (4 HQ tokens, Artillery Bombard) on a lone
-- infantry unit (4 figures) in the open. Only the on-target hex matters: the
-- template's other hexes hold nothing, so they are not rolled.
--   sandtable exact scripts/analysis/ra_open.lua
--   sandtable exact scripts/analysis/ra_open.lua --vs-set reserve_artillery.crater_at=4
scenario("analysis/lone_target.yaml")

local TARGET = hex(6, 5)
local unit = world:unit("target")

function trial()
  local rec = reserve_artillery.fire{ side = "allies", target = TARGET, card = "bombard", hq = 4, quiet = not explaining }
  return { figures_lost = rec.figures_lost, eliminated = not unit.alive, crater = rec.crater }
end
