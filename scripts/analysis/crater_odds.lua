-- The reserve artillery crater question as a plain dice question: with
-- `n` targeting dice (d6), how often do three or more show the same number,
-- and how many dice land "on target" (every die whose number came up twice
-- or more)? For n = 4: P(crater) = 7/72 and E[on target] = 91/54
-- (see docs/analysis.md for the hand computation).
--   sandtable exact scripts/analysis/crater_odds.lua
local N = 4
function trial()
  local on, crater, most = 0, false, 0
  local c = table.pack(dice.counts(N, "d6"))
  for k = 1, 6 do
    local n = c[k]
    if n >= 2 then on += n end
    if n > most then most = n end
  end
  return { crater = most >= 3, on_target = on, most_alike = most }
end
