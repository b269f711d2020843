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

-- A fresh artillery phase in which `battery` (an id or a unit) fires alone
-- with the d10 forced to `die`: the fire record.
function units.fire(battery, die)
  artillery.begin_phase()
  dice.force("d10", { die })
  return artillery.fire{ battery = battery }
end

-- The ids of a list of units or bases (leaders.at_risk(), tabletop.bases).
function units.ids(list)
  local ids = {}
  for _, u in ipairs(list) do
    table.insert(ids, u.id)
  end
  return ids
end

-- The decisions asked so far in the case, oldest first: their events
-- (`side`, `options`, `choice`, ...; see docs/lua-api.md).
function units.decisions()
  local asked = {}
  for _, e in ipairs(world:events()) do
    if e.event == "decision" then
      table.insert(asked, e)
    end
  end
  return asked
end

-- The options offered by each decision asked so far in the case.
function units.asked()
  local options = {}
  for _, e in ipairs(units.decisions()) do
    table.insert(options, e.options)
  end
  return options
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

-- The layouts every geometric clause is checked in: the table as drawn,
-- turned by odd angles, and mirrored (left for right) then turned.
units.LAYOUTS = {
  { angle = 0, mirror = false, name = "as drawn" },
  { angle = 7.4, mirror = false, name = "turned 7.4 degrees" },
  { angle = 30, mirror = false, name = "turned 30 degrees" },
  { angle = 143, mirror = false, name = "turned 143 degrees" },
  { angle = 0, mirror = true, name = "mirrored" },
  { angle = 7.4, mirror = true, name = "mirrored, turned 7.4 degrees" },
  { angle = 30, mirror = true, name = "mirrored, turned 30 degrees" },
  { angle = 143, mirror = true, name = "mirrored, turned 143 degrees" },
}

-- A scene laid out in its own frame (x right, y down the table, facings as
-- on the table: 270 faces up) and put on the table at (ox, oy), default
-- the middle of the open field (60, 40), in a layout of units.LAYOUTS. In
-- open_field.yaml anything within 28 cm of the middle stays clear of its
-- terrain whichever way it turns. Returns:
--   s.add(id, side, type, x, y, facing, props, strength)  -- a unit
--   s.at(x, y) -> {x=, y=}        -- a point on the table
--   s.facing(f) -> degrees        -- a facing on the table
--   s.place(u, x, y, facing)      -- world:place in the scene's frame
function units.scene(layout, ox, oy)
  ox, oy = ox or 60, oy or 40
  local r = math.rad(layout.angle)
  local c, sn = math.cos(r), math.sin(r)
  local s = {}
  function s.at(x, y)
    if layout.mirror then
      x = -x
    end
    return { x = ox + x * c - y * sn, y = oy + x * sn + y * c }
  end
  function s.facing(f)
    if layout.mirror then
      f = 180 - f
    end
    return (f + layout.angle) % 360
  end
  function s.add(id, side, ty, x, y, facing, props, strength)
    local p = s.at(x, y)
    return units.add(id, side, ty, p.x, p.y, s.facing(facing), props, strength)
  end
  function s.place(u, x, y, facing)
    local p = s.at(x, y)
    world:place(u, { x = p.x, y = p.y, facing = s.facing(facing) })
  end
  return s
end

-- Runs `body(s, layout)` as one case per layout, each named after it.
function units.each_layout(name, body, ox, oy)
  for _, layout in ipairs(units.LAYOUTS) do
    it(name .. " (" .. layout.name .. ")", function()
      body(units.scene(layout, ox, oy), layout)
    end)
  end
end

-- Runs `body(s, layout)` as one case per layout on a ground drawn in each
-- layout, each in its own 60 x 40 cm region of a 240 x 80 cm table (the
-- scenario `ground` is loaded for each case, with `opts` as scenario()'s).
function units.each_ground_layout(ground, name, body, opts)
  for i, layout in ipairs(units.LAYOUTS) do
    it(name .. " (" .. layout.name .. ")", function()
      scenario(ground, opts)
      body(units.scene(layout, 30 + 60 * ((i - 1) % 4), i <= 4 and 20 or 60), layout)
    end)
  end
end

-- Runs `body(s, layout)` on scripts/republique/turned_cover.yaml: a thin
-- wood at x -12..0, y -8..-3 of the scene's frame, a hill beside it at
-- x 0..12 and a farm on its other side at x -18..-12.
function units.each_cover_layout(name, body)
  units.each_ground_layout("republique/turned_cover.yaml", name, body)
end

return units
