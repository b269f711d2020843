-- 4d6 drop the lowest: the classic ability-score roll. Mean 15869/1296.
function trial()
  local c = table.pack(dice.counts(4, "d6"))
  local total, lowest = 0, nil
  for face = 1, 6 do
    if c[face] > 0 then
      total += face * c[face]
      if lowest == nil then lowest = face end
    end
  end
  return total - lowest
end
