-- A's overwatch waits for a valuable target: it fires at the first enemy
-- artillery, else at a frigate, and passes on everything else, on the
-- mountain pass play-through (rulesets/viktory/policies.lua).
scenario("viktory/mountain_pass.yaml")
local policies = require("policies")
policy("overwatch", policies.only("A", policies.best_target)) -- the other players fire at once

function trial()
  return policies.play_mountain_pass()
end
