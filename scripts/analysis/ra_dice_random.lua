-- The trial of ra_dice_roll.lua written with plain math.random (faces 1-2
-- soldier, 3 burst, 4 deadly, 5 hq, 6 flag). For `sim` only: `exact` cannot
-- enumerate math.random.
--   sandtable sim scripts/analysis/ra_dice_random.lua --trials 200000 --threads 1
local function shell(n, protection)
  local soldier, burst, deadly = 0, 0, 0
  for _ = 1, n do
    local f = math.random(6)
    if f <= 2 then
      soldier += 1
    elseif f == 3 then
      burst += 1
    elseif f == 4 then
      deadly += 1
    end
  end
  return burst + deadly + math.max(soldier - protection, 0)
end

function trial()
  local c = { 0, 0, 0, 0, 0, 0 }
  for _ = 1, 4 do
    local f = math.random(6)
    c[f] += 1
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
