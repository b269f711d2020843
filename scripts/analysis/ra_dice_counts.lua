-- The trial of ra_dice_roll.lua written with dice.counts (the counts of each
-- face as plain numbers; the battle die's canonical order is soldier, burst,
-- deadly, hq, flag).
--   sandtable exact scripts/analysis/ra_dice_counts.lua
--   sandtable sim   scripts/analysis/ra_dice_counts.lua --trials 200000 --threads 1
dice.define("targeting", 6)
dice.define("battle", { "soldier", "soldier", "burst", "deadly", "hq", "flag" })

local function shell(n, protection)
  local soldier, burst, deadly = dice.counts(n, "battle", "shelling")
  return burst + deadly + math.max(soldier - protection, 0)
end

function trial()
  local c = { dice.counts(4, "targeting", "targeting") }
  local on_target, crater = 0, false
  for k = 1, 6 do
    if c[k] >= 2 then
      on_target += c[k]
    end
    if c[k] >= 3 then
      crater = true
    end
  end
  local hits_on, hits_around = 0, 0
  if on_target > 0 then
    hits_on = shell(on_target, 0)
  end
  for k = 1, 6 do
    if c[k] > 0 then
      hits_around += shell(c[k], 1)
    end
  end
  return { on_target = on_target, crater = crater, hits_on_target = hits_on, hits_around = hits_around }
end
