-- A symbol die: the Command & Colors battle die (two infantry faces, one
-- each of cavalry, artillery, sabre and flag). Three dice at an infantry
-- unit: infantry and sabre faces hit, flags make it retreat.
--   hits ~ Binomial(3, 1/2): 1/8, 3/8, 3/8, 1/8
--   flags ~ Binomial(3, 1/6): 125/216, 25/72, 5/72, 1/216
dice.define("battle", { "infantry", "infantry", "cavalry", "artillery", "sabre", "flag" })

function trial()
  local r = dice.roll(3, "battle", "attack infantry")
  local hits = r:count("infantry") + r:count("sabre")
  return { hits = hits, flags = r:count("flag"), eliminated = hits >= 3 }
end
