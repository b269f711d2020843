-- How often does the reserve artillery make a shell crater, and how many
-- targeting dice land on target, when the allies spend 4 HQ tokens (their
-- battery's strength in the bombardment scenario)? The target is an empty
-- hex, so only the targeting dice are rolled: exact enumeration has 126
-- leaves (every multiset of four d6).
--   sandtable exact scripts/great_war/crater_odds.lua
--   sandtable exact scripts/great_war/crater_odds.lua --vs-variant four_for_crater
--   sandtable sim   scripts/great_war/crater_odds.lua --set reserve_artillery.crater_at=4
-- With the defaults: P(crater) = 7/72, E[on target] = 91/54.
scenario("great_war/bombardment.yaml")

local TARGET = hex(1, 3) -- offset column 2, row 3: open ground, nothing around

function trial()
  local rec = reserve_artillery.fire{ side = "allies", target = TARGET, card = "bombard", hq = 4, quiet = true }
  return { crater = rec.crater, on_target = rec.on_target }
end
