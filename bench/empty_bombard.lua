-- What every trial pays outside the rule: the bombardment world (reset before
-- each trial), the dice seeded, a trial that returns a constant table of five
-- metrics like ra_bombard.lua's (see docs/PERFORMANCE.md, "The trial harness").
--   sandtable sim bench/empty_bombard.lua --trials 200000 --threads 1
scenario("great_war/bombardment.yaml")

function trial()
  return { figures_lost = 1, units_eliminated = 0, crater = false, own_figures_lost = 2, hq_gained = 0 }
end
