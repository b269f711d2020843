-- Roll 1d6 until a six: the tree has no end, so plain `exact` falls back to
-- sim, and `exact --epsilon E` bounds the odds. In closed form:
--   P(rolls = k) = (5/6)^(k-1) · 1/6,  E[rolls] = 6,  P(first try) = 1/6.
function trial()
  local rolls = 1
  while dice.roll(1, "d6"):count(6) == 0 do
    rolls = rolls + 1
  end
  return { rolls = rolls, first_try = rolls == 1 }
end
