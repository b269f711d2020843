-- The issue's micro trial: 2 battle dice, one symbol counted, 20 times a trial (written with math.random, faces 1-2 the symbol; see docs/PERFORMANCE.md).
--   sandtable sim bench/two_dice_random.lua --trials 200000 --threads 1
function trial()
  local n = 0
  for _ = 1, 20 do
    if math.random(6) <= 2 then n += 1 end
    if math.random(6) <= 2 then n += 1 end
  end
  return n
end
