-- A branching trial: roll 1d6; on a 6, roll 2d6 more and add them.
-- E = 7/2 + (1/6)(7) = 14/3; the tree has 5 + 11 leaves (2d6 multisets: 21,
-- but the trial only reads their sum... exact still walks all 21).
function trial()
  local first = dice.roll(1, "d6").total
  if first == 6 then
    return first + dice.roll(2, "d6").total
  end
  return first
end
