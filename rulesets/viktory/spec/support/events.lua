-- Readers of the event log shared by viktory's specs (spec support: not a
-- spec, not counted by --coverage, not mutated). Load with
--   local events = require("spec/support/events")

local events = {}

-- Every decision event of the log so far, in order.
function events.decisions()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "decision" then
      table.insert(out, e)
    end
  end
  return out
end

return events
