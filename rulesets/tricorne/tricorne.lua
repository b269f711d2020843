-- rulesets/tricorne/tricorne.lua — what the Tricorne combat modules share:
-- unit stats, dice counts, hits and victory banners, the turn properties
-- `ordered` / `moved`, and the rule-error helper.
--
-- Tags used across the ruleset's modules (see README.md, "The rules, clause
-- by clause"):
--   [Fire]     ranged-combat.txt (R1 who fires, R2 range, R3 LOS, R4 dice,
--              R5 roll, R6 hits, R7 retreats)
--   [Ground]   melee-take-ground.txt, "Taking Ground"
--   [Bonus]    melee-take-ground.txt, "Bonus Melee"
--   [Back]     melee-take-ground.txt, "Defending Unit Battle Back"
--   [Base]     the base rules both documents assume (melee dice and hits,
--              retreats, rally checks, retire and rally, First Strike and
--              Ambush, leaders); our version, with params
--
-- Turn properties (the turn frame, rulesets/lib/cc_turn.lua, will set them;
-- until then specs and the REPL do, with tricorne.order / tricorne.move):
--   u.ordered     true: ordered by this turn's Command card
--   u.moved       true: moved this turn (taking ground counts)
--   u.halted      true: entered terrain with `stop` this turn (no combat)
--   u.bonus_done  true: made its bonus melee this turn
--
-- At a prompt:
--   tricorne.order{"g2"}; print(ranged.fire{unit="g2", target="j2"})

local cc = require("lib/cc")

local tricorne = {}

tricorne.BANNER_POOL = cc.MEDAL_POOL -- victory banners: lib/cc's medal pool
tricorne.DIE = "battle"

-- Rule violations. The lead will swap this for lib/rules.lua
-- (rules.violation): same prefix, same levels. `level` counts like error's:
-- 1 is the function calling violation, 2 its caller, ...
function tricorne.violation(text, level)
  error("rule error: " .. text, (level or 1) + 1)
end

------------------------------------------------------------------------------
-- Unit stats (ruleset.yaml unit_types)
------------------------------------------------------------------------------

local TYPES = ruleset.unit_types or {}

-- The stats table of a unit (or type name); a clear error for an unknown type.
function tricorne.stats(u)
  local name = type(u) == "string" and u or u.type
  local s = TYPES[name]
  if s == nil then
    error("unit type '" .. tostring(name) .. "' is not in the tricorne ruleset's unit_types", 3)
  end
  return s
end

-- The die symbol that hits a unit: infantry, cavalry, artillery (or leader).
function tricorne.class(u)
  return tricorne.stats(u).class
end

function tricorne.is_lone_leader(u)
  return tricorne.stats(u).class == "leader"
end

-- A handle from a handle or an id, alive on the map; `what` names it in errors.
function tricorne.unit(x, what, level)
  local u = x
  if type(x) == "string" then
    u = world:unit(x)
    if u == nil then
      error("no unit '" .. x .. "' (" .. what .. ")", (level or 2) + 1)
    end
  end
  if type(u) ~= "userdata" then
    error(what .. " must be a unit or a unit id, not " .. type(x), (level or 2) + 1)
  end
  if not u.alive or u.hex == nil then
    error(what .. " " .. u.id .. " is not on the battlefield", (level or 2) + 1)
  end
  return u
end

-- Enemy units and lone leaders adjacent to `u`. units_only leaves out leaders.
function tricorne.adjacent_enemies(u, units_only)
  local out = {}
  for _, h in ipairs(u.hex:neighbors()) do
    local v = world:unit_at(h)
    if v ~= nil and v.side ~= u.side and not (units_only and tricorne.is_lone_leader(v)) then
      table.insert(out, v)
    end
  end
  return out
end

------------------------------------------------------------------------------
-- Terrain
------------------------------------------------------------------------------

local TERRAIN = ruleset.terrain or {}
local NONE = table.freeze({})

-- The ruleset's entry for a hex's terrain (an empty table when none).
function tricorne.terrain(h)
  local name = world:terrain(h)
  return name and TERRAIN[name] or NONE
end

-- [Base] Dice an attacker of class `class` loses against a target standing on
-- `h`: the terrain's `ranged` or `melee` entry, a number or a table by class.
function tricorne.terrain_reduction(h, kind, class)
  local r = tricorne.terrain(h)[kind]
  if type(r) == "table" then
    r = r[class]
  end
  return r or 0
end

------------------------------------------------------------------------------
-- The turn properties
------------------------------------------------------------------------------

-- Marks units as ordered this turn (a list or one unit/id).
function tricorne.order(list)
  if type(list) ~= "table" then
    list = { list }
  end
  for _, x in ipairs(list) do
    tricorne.unit(x, "ordered unit").ordered = true
  end
end

-- Moves a unit along a path with world:move (so `enters`/`leaves` reactions
-- see it) and records the turn properties: moved, and halted when it enters
-- terrain with `stop`. Impassable terrain is refused. Returns world:move's result.
function tricorne.move(x, path)
  local u = tricorne.unit(x, "moving unit")
  if hex.is_hex(path) then
    path = { path }
  end
  for _, h in ipairs(path) do
    if tricorne.terrain(h).impassable then
      tricorne.violation(u.id .. " cannot enter " .. tostring(h) .. ": " .. tostring(world:terrain(h)) .. " is impassable", 2)
    end
  end
  local ok = world:move(u, path)
  u.moved = true
  local last = u.hex
  if last ~= nil and tricorne.terrain(last).stop then
    u.halted = true
  end
  return ok
end

-- Ends a turn: clears every unit's turn properties.
function tricorne.end_turn()
  for _, u in ipairs(world:units{}) do
    u.ordered = nil
    u.moved = nil
    u.halted = nil
    u.bonus_done = nil
  end
end

------------------------------------------------------------------------------
-- Dice and hits
------------------------------------------------------------------------------

-- The dice a combat rolls after its additions and reductions (params.combat.min_dice).
function tricorne.final_dice(total)
  local least = params.combat.min_dice
  if total < least then
    return least
  end
  return total
end

-- Rolls n battle dice; returns the roll, or nil for no dice.
function tricorne.roll(n, reason)
  if n <= 0 then
    return nil
  end
  return dice.roll(n, tricorne.DIE, reason)
end

function tricorne.count(roll, symbol)
  if roll == nil then
    return 0
  end
  return roll:count(symbol)
end

-- The faces of a roll as a list (empty for no roll).
function tricorne.faces(roll)
  if roll == nil then
    return {}
  end
  local out = {}
  for _, f in ipairs(roll.faces) do
    table.insert(out, f)
  end
  return out
end

-- [Fire R6]/[Base] One block per hit, surplus hits lost; the last block gives
-- `by_side` a victory banner (lib/cc apply_hits). Returns removed, eliminated.
function tricorne.hit(u, hits, by_side, reason)
  return cc.apply_hits(u, hits, by_side, reason)
end

-- A banner for `side` (a leader lost, ...).
function tricorne.banner(side, reason)
  cc.award_medal(side, reason)
end

-- "1 hit", "2 hits"; "1 hex", "2 hexes" (give the plural when it is not word .. "s").
function tricorne.plural(n, word, words)
  return n .. " " .. (n == 1 and word or (words or word .. "s"))
end

-- "3 (base 2, +1 full strength)" style text for a dice breakdown.
function tricorne.describe_dice(d)
  local parts = {}
  for _, p in ipairs(d.parts) do
    table.insert(parts, (p.n >= 0 and "+" or "") .. p.n .. " " .. p.why)
  end
  return d.total .. " dice (" .. table.concat(parts, ", ") .. ")"
end

return tricorne
