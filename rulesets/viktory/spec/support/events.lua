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

-- Every roll event's "reason (n)", in order.
function events.rolls()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "roll" then
      table.insert(out, e.reason .. " (" .. e.n .. ")")
    end
  end
  return out
end

-- Every elimination of the log as "unit: reason", in order.
function events.eliminated()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "eliminate" then
      table.insert(out, e.unit .. ": " .. e.reason)
    end
  end
  return out
end

-- expect_error(fn, text), and the message must name the line of the call:
-- a rule error points at the caller's line (the spec's), not into the
-- ruleset. Write fn on the same line as the call.
function events.refused(fn, text)
  local where = string.match(debug.traceback("", 2), "([^\n]+%.lua:%d+)")
  local msg = expect_error(fn, text)
  expect(string.sub(msg, 1, #where + 1)):to_be(where .. ":")
  return msg
end

return events
