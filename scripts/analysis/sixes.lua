-- P(at least one 6 among n six-sided dice) = 1 - (5/6)^n, and the expected
-- number of sixes n/6; n is the script's input `args.dice` (default 4).
--   sandtable exact scripts/analysis/sixes.lua --arg dice=1..6
--   sandtable sim   scripts/analysis/sixes.lua --arg dice=1..6 --csv
local n = args.dice or 4

function trial()
  local sixes = dice.roll(n, "d6"):count(6)
  return { any_six = sixes > 0, sixes = sixes }
end
