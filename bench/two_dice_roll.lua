-- The issue's micro trial: 2 battle dice, one symbol counted, 20 times a trial (written with dice.roll and r:count; see docs/PERFORMANCE.md).
--   sandtable sim bench/two_dice_roll.lua --trials 200000 --threads 1
dice.define("battle", { "soldier", "soldier", "burst", "deadly", "hq", "flag" })
function trial()
  local n = 0
  for _ = 1, 20 do n += dice.roll(2, "battle"):count("soldier") end
  return n
end
