-- P(at least one 6 when rolling 4d6) = 1 - (5/6)^4 = 671/1296.
--   sandtable exact scripts/analysis/four_d6_six.lua
function trial()
  local _, _, _, _, _, sixes = dice.counts(4, "d6")
  return sixes > 0
end
