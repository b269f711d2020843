-- The grand battery: fb1 and fb2 fire massed at the Austrian line a1 in the
-- grand battery scenario (medium range, 4 fire points, -1 for firing down
-- off the rise, +1 for Ney). How many morale and base hits, and how often is
-- a nearby leader at risk? One d10 per trial: exact enumeration has 10
-- leaves. Compare with saved fire (8 points):
--   sandtable exact scripts/republique/grand_battery_odds.lua
--   sandtable exact scripts/republique/grand_battery_odds.lua --vs-script scripts/republique/grand_battery_saved.lua
scenario("republique/grand_battery.yaml")

function trial()
  artillery.begin_phase()
  local a1 = world:unit("a1")
  local before = a1.strength
  local rec = artillery.fire{ batteries = { "fb1", "fb2" }, quiet = true }
  return { morale_hits = rec.morale_hits, bases_lost = before - a1.strength, any_effect = rec.result ~= "-" }
end
