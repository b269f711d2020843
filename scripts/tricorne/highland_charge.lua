-- A full-strength Highland clan unit (ordered, not moved) charges a
-- full-strength Government regular unit; two more regulars stand beside the
-- defender, so a charge that takes ground can go on into a bonus melee.
-- Blocks lost by each side, counting retreats, rally checks and battle backs.
-- What does the bonus melee add? (sim: the exact tree with the bonus melee
-- has about 1.6 million leaves, minutes here)
--   sandtable sim scripts/tricorne/highland_charge.lua --trials 20000 --vs-set melee.bonus_melee=false
-- What is the highland charge die worth, without bonus melee? (exact, seconds)
--   sandtable exact scripts/tricorne/highland_charge.lua --set melee.bonus_melee=false --vs-set melee.highland_charge=0
-- Policies: always take ground; a bonus melee on the first enemy offered;
-- retreats take the first free hex.
scenario("tricorne/open_field.yaml")

local clan = world:add_unit{ id = "clan", side = "jacobite", type = "highland", hex = hex(5, 5) }
clan.ordered = true
local front = world:add_unit{ id = "front", side = "government", type = "regular", hex = hex(5, 6) }
local left = world:add_unit{ id = "left", side = "government", type = "regular", hex = hex(4, 7) }
local right = world:add_unit{ id = "right", side = "government", type = "regular", hex = hex(6, 6) }

policy("tricorne.take_ground", function() return "take ground" end)
policy("tricorne.bonus_melee", function(options) return options[1] end)

function trial()
  local rec = melee.attack{ unit = clan, target = front, quiet = true }
  local lost = (4 - front.strength) + (4 - left.strength) + (4 - right.strength)
  return {
    government_blocks = lost,
    clan_blocks = 4 - clan.strength,
    took_ground = rec.took_ground ~= nil,
    bonus_melee = rec.bonus ~= nil,
  }
end
