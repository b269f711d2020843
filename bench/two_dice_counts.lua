-- The issue's micro trial: 2 battle dice, one symbol counted, 20 times a trial (written with dice.counts; see docs/PERFORMANCE.md).
--   sandtable sim bench/two_dice_counts.lua --trials 200000 --threads 1
dice.define("battle", { "soldier", "soldier", "burst", "deadly", "hq", "flag" })
function trial()
  local n = 0
  for _ = 1, 20 do n += (dice.counts(2, "battle")) end
  return n
end
