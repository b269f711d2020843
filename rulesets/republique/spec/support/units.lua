-- Set-up and reading helpers shared by republique's specs (spec support: not
-- a spec, not counted by --coverage, not mutated). Load with
--   local units = require("spec/support/units")

local units = {}

-- Adds a unit on the tabletop: id, side, type (a unit type of
-- ruleset.yaml), centre x, y (cm), facing (degrees), props and strength.
function units.add(id, side, ty, x, y, facing, props, strength)
  return world:add_unit{ id = id, side = side, type = ty, at = { x = x, y = y }, facing = facing,
    props = props, strength = strength }
end

-- The value of the first modifier whose name contains `name` in a list of
-- { name=, value= } (a fire record's `modifiers`, leaders.modifiers), or 0.
function units.modifier(list, name)
  for _, m in ipairs(list.modifiers or list) do
    if string.find(m.name, name, 1, true) then
      return m.value
    end
  end
  return 0
end

-- A French foot battery at (60, 60) facing up the table (front edge y =
-- 58.5) and an Austrian unit (default a four-base line) at (60, 50) facing
-- it (front edge y = 50.75): canister range, 7.75 cm. Opens the phase.
function units.duel(target_type, props, strength)
  local b = units.add("b", "french", "foot_battery", 60, 60, 270)
  local a = units.add("a", "austrian", target_type or "line_infantry", 60, 50, 90, props, strength)
  artillery.begin_phase()
  return b, a
end

return units
