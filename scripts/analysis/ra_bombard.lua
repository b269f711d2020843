-- The Great War reserve artillery, the full rule: the allied battery
-- (strength 4) spends 4 HQ tokens on an Artillery Bombard at the central
-- trench hex (6,3) of the bombardment scenario, where infantry c1 sits with a
-- machine gun (5,3) and infantry in woods (7,2) beside it and wire in front.
--   sandtable exact scripts/analysis/ra_bombard.lua
--   sandtable sim   scripts/analysis/ra_bombard.lua --trials 1000000
--   sandtable exact scripts/analysis/ra_bombard.lua --vs-set reserve_artillery.crater_at=4
-- `--arg strength=N` gives the battery strength N (the scenario's 4) and
-- spends N HQ tokens: `--arg strength=3,4` compares strength 3 with 4.
scenario("great_war/bombardment.yaml")

local STRENGTH = args.strength or 4
world:set_pool("allies", "reserve_artillery", STRENGTH)

local TARGET = hex(6, 3)

function trial()
  local rec = reserve_artillery.fire{ side = "allies", target = TARGET, card = "bombard", hq = STRENGTH, quiet = not explaining }
  return {
    crater = rec.crater,
    figures_lost = rec.figures_lost,
    units_eliminated = rec.units_eliminated,
    own_figures_lost = rec.friendly_figures_lost,
    hq_gained = rec.hq_gained,
  }
end
