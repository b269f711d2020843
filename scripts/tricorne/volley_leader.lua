-- The volley of volley.lua with a leader attached to the firing line (+1 die):
--   sandtable exact scripts/tricorne/volley.lua --vs-script scripts/tricorne/volley_leader.lua
scenario("tricorne/open_field.yaml")

local line = world:add_unit{ id = "line", side = "government", type = "regular", hex = hex(5, 8), leader = "Cope" }
line.ordered = true
local target = world:add_unit{ id = "target", side = "jacobite", type = "regular", hex = hex(5, 6), strength = 2 }

function trial()
  ranged.fire{ unit = line, target = target, quiet = true }
  return { eliminated = not target.alive, blocks_lost = 2 - target.strength }
end
