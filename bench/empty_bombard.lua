scenario("great_war/bombardment.yaml")
function trial()
  return { figures_lost = 1, units_eliminated = 0, crater = false, retreats = 2, hq_left = 0 }
end
