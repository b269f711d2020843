-- Set-up helpers and a log reader shared by tricorne's specs (spec support: not a spec, not
-- counted by --coverage, not mutated). Load with
--   local units = require("spec/support/units")

local units = {}

-- Adds a unit: id, side, type (a unit type of ruleset.yaml), hex, and any
-- other fields of world:add_unit in `extra` (strength, props, ...).
function units.add(id, side, kind, at, extra)
  local spec = { id = id, side = side, type = kind, hex = at }
  for k, v in pairs(extra or {}) do
    spec[k] = v
  end
  return world:add_unit(spec)
end

-- A Government unit (bottom baseline) or a Jacobite one (top): units.add
-- with the side.
function units.gov(id, kind, at, extra)
  return units.add(id, "government", kind, at, extra)
end

function units.jac(id, kind, at, extra)
  return units.add(id, "jacobite", kind, at, extra)
end

-- A Government unit ordered this turn: the firer of the fire specs.
function units.firer(id, kind, at, extra)
  local u = units.gov(id, kind, at, extra)
  u.ordered = true
  return u
end

-- The Jacobite unit "a" at hex(5, 5), ordered this turn: the attacker of the
-- melee specs (its targets stand beside it).
function units.attacker(kind, extra)
  local u = units.add("a", "jacobite", kind, hex(5, 5), extra)
  u.ordered = true
  return u
end

-- Looks a unit up as a rule function does (tricorne.unit without a level):
-- an error names the line that called units.lookup, not this file.
function units.lookup(x, what)
  local u = tricorne.unit(x, what)
  return u
end

-- The decision events of the log so far with decision id `id`, in order
-- (each with its side, options, default, choice and request).
function units.decisions(id)
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "decision" and e.id == id then
      table.insert(out, e)
    end
  end
  return out
end

return units
