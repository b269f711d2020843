-- The reserve artillery's dice alone, written with roll objects: 4 targeting
-- dice (read through .faces), then one pool of battle dice on the on-target
-- hex (the dice whose number came up twice or more) and one on each template
-- hex 1..6 (the dice showing its number), each counted by symbol. No world:
-- every pool is rolled. The same trial as ra_dice_counts.lua and
-- ra_dice_random.lua, written three ways for the benchmarks
-- (docs/PERFORMANCE.md).
--   sandtable exact scripts/analysis/ra_dice_roll.lua
--   sandtable sim   scripts/analysis/ra_dice_roll.lua --trials 200000 --threads 1
dice.define("targeting", 6)
dice.define("battle", { "soldier", "soldier", "burst", "deadly", "hq", "flag" })

-- Hits from one pool: bursts and deadly sides always hit; soldiers after
-- the hex's protection (none on target, 1 around it) has cancelled some.
local function shell(n, protection)
  local r = dice.roll(n, "battle", "shelling")
  local soldier, burst, deadly = r:count("soldier"), r:count("burst"), r:count("deadly")
  return burst + deadly + math.max(soldier - protection, 0)
end

function trial()
  local targeting = dice.roll(4, "targeting", "targeting")
  local c = { 0, 0, 0, 0, 0, 0 }
  for _, face in targeting.faces do
    c[face] += 1
  end
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
