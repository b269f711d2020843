-- rulesets/republique/common.lua — what the chapter-3 modules share: the
-- geometry's tolerance, the morale ladder, unit arms from ruleset data, the
-- d10, cover look-ups and the turn's steps. Not a rules module of its own
-- (required by the others).

local common = {}

local charts = ruleset.charts

-- ruleset.yaml's charts and terrain, checked once as the ruleset loads
-- (charts.lua): the artillery chart's rows and the panic hit chart parsed.
common.CHARTS = require("charts").check(charts, ruleset.terrain)

-- The one tolerance of every comparison the rules make on the table: two
-- lengths (cm), angles (degrees) or fractions no more than this apart are
-- equal. The tabletop geometry measures to about 1e-7 cm whichever way the
-- table is turned (arcs are clipped as polygons), so "exactly 8 cm",
-- "exactly half" and "exactly 45 degrees" hold at any angle and in a
-- mirror, while anything a player could see (a tenth of a millimetre)
-- still counts.
common.TOL = 1e-6

-- The comparisons the rules make on the table, each allowing common.TOL:
-- every measure against a bound goes through one of these, so "up to
-- 8 cm", "half or more" and "more than 45 degrees" read as the document
-- says them and include the bound the same way everywhere.
function common.at_most(a, b)
  return a <= b + common.TOL
end

function common.at_least(a, b)
  return a >= b - common.TOL
end

function common.less_than(a, b)
  return a < b - common.TOL
end

function common.more_than(a, b)
  return a > b + common.TOL
end

-- True when two measures differ by more than the tolerance (common.rank
-- uses it to tell a tie from an order).
function common.apart(a, b)
  return math.abs(a - b) > common.TOL
end

-- Sorts `list` in place the one way the rules rank things on the table: by
-- the measures `keys(x)` lists, the first that tells two apart deciding,
-- then by id (`id(x)`, by default `x.id`), so that a tie never depends on
-- the order the list was built in. Without `keys`, by id alone.
function common.rank(list, keys, id)
  id = id or function(x)
    return x.id
  end
  local key = {}
  for _, x in ipairs(list) do
    key[x] = keys and keys(x) or {}
  end
  table.sort(list, function(x, y)
    local kx, ky = key[x], key[y]
    for i = 1, #kx do
      if common.apart(kx[i], ky[i]) then
        return kx[i] < ky[i]
      end
    end
    return id(x) < id(y)
  end)
  return list
end

-- The steps of a player turn, in the document's order (its header:
-- 1 Command, 2 Maneuver, 3 Artillery/Skirmish, 4 Assault, 5 Panic Test;
-- chapter 3's own steps: skirmish fire, artillery fire, then leader
-- injuries and panic hits). turn.lua walks them; the step is kept on the
-- world, in the phasing side's pool `step` (1..7), so copies, undo and
-- saves carry it.
common.TURN_STEPS = { "command", "maneuver", "skirmish", "artillery", "injuries", "assault", "panic" }
common.TURN_STEP_OF = {}
for i, name in ipairs(common.TURN_STEPS) do
  common.TURN_STEP_OF[name] = i
end

-- The side whose player turn it is (the scenario's `first` until a turn
-- starts; nil only in a world with no sides).
function common.phasing()
  return world:current_side()
end

-- The current step's name, or nil before any.
function common.turn_step()
  local side = common.phasing()
  return side and common.TURN_STEPS[world:pool(side, "step")] or nil
end

function common.set_turn_step(name)
  local side = common.phasing()
  if side then
    world:set_pool(side, "step", common.TURN_STEP_OF[name])
  end
end

-- The morale ladder, best first (ruleset.yaml charts.morale).
common.LADDER = charts.morale
common.STEP = {}
for i, name in ipairs(common.LADDER) do
  common.STEP[name] = i
end

-- A unit's type data and arm (infantry, cavalry, artillery, skirmish, leader).
function common.type_of(u)
  return ruleset.unit_types[u.type] or {}
end

function common.arm(u)
  return common.type_of(u).arm
end

function common.is_battery(u)
  return common.arm(u) == "artillery"
end

-- Combat bases: infantry and cavalry (not skirmish markers, guns or leaders).
function common.is_combat(u)
  local a = common.arm(u)
  return a == "infantry" or a == "cavalry"
end

function common.morale(u)
  return u.morale or "normal"
end

function common.morale_step(u)
  local step = common.STEP[common.morale(u)]
  if step == nil then
    error(string.format("%s's morale '%s' is not on the ladder (ruleset.yaml charts.morale: %s)", u.id,
      tostring(u.morale), table.concat(common.LADDER, ", ")), 2)
  end
  return step
end

-- Moves a unit `hits` steps down the ladder. Hits past demoralized are
-- panic hits (chapter 5's panic test resolves them), counted on the unit.
-- Returns the new morale.
function common.morale_hits(u, hits, reason)
  if hits <= 0 then
    return common.morale(u)
  end
  local step = common.morale_step(u)
  local new = math.min(step + hits, #common.LADDER)
  local panic = step + hits - new
  local morale = common.LADDER[new]
  u.morale = morale
  if panic > 0 then
    u.panic_hits = (u.panic_hits or 0) + panic
  end
  world:note(string.format("%s takes %d morale hit%s (%s): now %s%s", u.id, hits, hits == 1 and "" or "s",
    reason, morale, panic > 0 and string.format(", %d panic hit%s", panic, panic == 1 and "" or "s") or ""))
  return morale
end

-- One d10 (0 reads 10: the die's faces are 1..10).
function common.d10(reason)
  return dice.roll(1, "d10", reason).total
end

-- Resolves a unit given as a handle or an id, with a clear error.
function common.unit(u, what)
  if type(u) == "string" then
    local found = world:unit(u)
    if not found then
      error(string.format("%s: no unit '%s'", what, u), 3)
    end
    return found
  end
  return u
end

-- What each kept cover answer comes to: `tabletop.cover` gives the same
-- read-only table while the unit stands as it stood, and a fire asks about
-- its target four times. The answer is read-only too.
local cover_of = setmetatable({}, { __mode = "k" })

-- The cover class that half or more of a unit is in (the heaviest such
-- class, counting heavier cover as in it), and whether half or more is in
-- full cover or outside open terrain. Only terrain with a cover class
-- covers (a hill does not). The answer is read-only.
function common.cover(u)
  local areas = tabletop.cover(u)
  local kept = cover_of[areas]
  if kept then
    return kept
  end
  local by_class, full, closed = {}, 0, 0
  for _, a in ipairs(areas) do
    local kind = ruleset.terrain[a.kind] or {}
    if a.cover then
      by_class[a.cover] = (by_class[a.cover] or 0) + a.fraction
    end
    if kind.full_cover then
      full += a.fraction
    end
    if kind.open == false then
      closed += a.fraction
    end
  end
  -- "half or more ... in solid or heavy cover": a class counts the parts of
  -- the unit in it or in heavier cover (a unit a quarter in a farm and a
  -- quarter in a wood is half in solid cover or better), and the heaviest
  -- class half the unit reaches is the one it is in.
  local best, best_mod = nil, 0
  for _, class in ipairs(charts.cover_classes) do
    local mod, inside = charts.cover_modifier[class], 0
    for other, fraction in pairs(by_class) do
      if charts.cover_modifier[other] <= mod then
        inside += fraction
      end
    end
    if common.at_least(inside, 0.5) and (best == nil or mod < best_mod) then
      best, best_mod = class, mod
    end
  end
  local found = { class = best, modifier = best_mod, full = common.at_least(full, 0.5), open = common.at_most(closed, 0) }
  if table.isfrozen(areas) then
    cover_of[areas] = table.freeze(found)
  end
  return found
end

-- True when a base lies in open terrain (no area that is not open).
function common.base_in_open(b)
  for _, a in ipairs(tabletop.cover(b)) do
    local kind = ruleset.terrain[a.kind] or {}
    if kind.open == false and common.more_than(a.fraction, 0) then
      return false
    end
  end
  return true
end

-- True when half or more of a base lies in terrain with a cover class.
function common.base_covered(b)
  local f = 0
  for _, a in ipairs(tabletop.cover(b)) do
    if a.cover then
      f += a.fraction
    end
  end
  return common.at_least(f, 0.5)
end

return common
