-- A's overwatch fires at the first enemy unit that triggers it, on the
-- mountain pass play-through (rulesets/viktory/policies.lua). Compare with
-- the waiting policy on the same dice:
--   sandtable sim scripts/viktory/overwatch_at_once.lua --vs-script scripts/viktory/overwatch_wait.lua --trials 20000
scenario("viktory/mountain_pass.yaml")
local policies = require("policies")
policy("overwatch", policies.only("A", policies.fire_at_once)) -- the other players fire at once

function trial()
  return policies.play_mountain_pass()
end
