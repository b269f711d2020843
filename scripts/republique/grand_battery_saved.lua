-- As grand_battery_odds.lua, but both batteries saved their fire the phase
-- before (fire points doubled: 8).
--   sandtable exact scripts/republique/grand_battery_saved.lua
scenario("republique/grand_battery.yaml")
artillery.save_fire("fb1")
artillery.save_fire("fb2")

function trial()
  artillery.begin_phase()
  local a1 = world:unit("a1")
  local before = a1.strength
  local rec = artillery.fire{ batteries = { "fb1", "fb2" }, quiet = true }
  return { morale_hits = rec.morale_hits, bases_lost = before - a1.strength, any_effect = rec.result ~= "-" }
end
