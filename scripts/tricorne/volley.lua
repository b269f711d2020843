-- A full-strength Government regular line fires at a 2-block Jacobite regular
-- unit 2 hexes away, in the open (3 dice: 2 at 2 hexes, +1 full strength).
-- How often is the target eliminated, counting blocks lost to a failed rally
-- check after a flag? Compare with an attached leader (+1 die):
--   sandtable exact scripts/tricorne/volley.lua --vs-script scripts/tricorne/volley_leader.lua
-- The target retreats up the board into empty hexes (the default policy
-- takes the first free hex).
scenario("tricorne/open_field.yaml")

local line = world:add_unit{ id = "line", side = "government", type = "regular", hex = hex(5, 8) }
line.ordered = true
local target = world:add_unit{ id = "target", side = "jacobite", type = "regular", hex = hex(5, 6), strength = 2 }

function trial()
  ranged.fire{ unit = line, target = target, quiet = true }
  return { eliminated = not target.alive, blocks_lost = 2 - target.strength }
end
