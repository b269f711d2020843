-- rulesets/republique/moves.lua — moves that touch artillery fire.
--
-- Chapter 2 (Maneuver) is not in our rules document; chapter 3 says how
-- moves touch fire, and those are the parts made here:
--   [3.2 Limbered]  limbered batteries may not fire; limbering and
--                   unlimbering are moves of the battery
--   [3.2 Save]      a battery with saved fire that moves in any way
--                   (turning, pivoting, limbering, prolonging too) loses it;
--                   every move here is a leg of world:move, and
--                   artillery.lua's `leaves` handler marks the unit moved
--   [3.2 Pivot]     an unlimbered battery changes facing by pivoting in
--                   place: a move like any other
--   [3.2 Prolong]   prolonging: an unlimbered battery moved by hand a short
--                   way (prolong_cm); in the next artillery phase hits on it
--                   land at once (no simultaneous fire)
--   [3.5 Pass]      every move goes through world:move, leg by leg, so
--                   artillery's passing fire reacts to it (artillery.on_leg)
-- Distances other than prolong_cm are chapter 2's and not checked.
--
-- At a prompt:
--   moves.move("a1", { { x = 40, y = 40 }, { x = 70, y = 40 } })  -- two legs
--   moves.limber("fb1"); moves.move("fb1", { x = 52, y = 60 }); moves.unlimber("fb1", 270)
--   moves.prolong("fb2", { x = 57, y = 63 })
--   moves.pivot("fb2", 280)

local common = require("common")

local moves = {}

local function battery(u, what)
  u = common.unit(u, what)
  if not common.is_battery(u) then
    error(string.format("%s: %s is a %s, not an artillery battery", what, u.id, u.type), 3)
  end
  return u
end

-- The ends of a path of legs: one point {x=, y=, facing=?} or a list.
local function legs_of(path)
  if path.x ~= nil or type(path[1]) == "number" then
    return { path }
  end
  return path
end

-- Length of a path of legs from where the unit stands.
local function path_length(u, path)
  local at, total = u.pos, 0
  for _, p in ipairs(legs_of(path)) do
    local q = tabletop.point(p.x or p[1], p.y or p[2])
    total += tabletop.distance(tabletop.point(at.x, at.y), q)
    at = q
  end
  return total
end

-- [3.5 Pass] Moves a unit along legs through world:move (each leg a
-- straight line to a point, then an optional facing), so that reaction
-- rules see each leg. An unlimbered battery moves only by prolonging.
-- Returns false when a reaction stopped the unit (it was destroyed).
function moves.move(u, path)
  u = common.unit(u, "moves.move")
  if common.is_battery(u) and not u.limbered then
    error(string.format("moves.move: %s is unlimbered: it moves only by prolonging (moves.prolong) or pivoting (moves.pivot), or limbers first (moves.limber)", u.id), 2)
  end
  return world:move(u, path)
end

-- [3.2 Limbered] Limbers a battery: a move in place (a leg of world:move
-- to where it stands), so its saved fire goes; it may not fire until
-- unlimbered.
function moves.limber(b)
  b = battery(b, "moves.limber")
  if b.limbered then
    error("moves.limber: " .. b.id .. " is already limbered", 2)
  end
  b.limbered = true
  world:move(b, { x = b.pos.x, y = b.pos.y })
  world:note(b.id .. " limbers")
end

-- [3.2 Limbered] Unlimbers a battery where it stands, turned to `facing`
-- (default: as it stands): a move (a turn in place) like any other.
function moves.unlimber(b, facing)
  b = battery(b, "moves.unlimber")
  if not b.limbered then
    error("moves.unlimber: " .. b.id .. " is not limbered", 2)
  end
  b.limbered = nil
  world:move(b, { x = b.pos.x, y = b.pos.y, facing = facing or b.facing })
  world:note(b.id .. " unlimbers")
end

-- [3.2 Pivot] Pivots an unlimbered battery in place to `facing` (degrees):
-- a move (a turn in place through world:move), so it is no longer
-- stationary and loses any saved fire. A limbered battery turns as part of
-- its move (moves.move with a facing).
function moves.pivot(b, facing)
  b = battery(b, "moves.pivot")
  if b.limbered then
    error("moves.pivot: " .. b.id .. " is limbered: it turns as it moves (moves.move with a facing)", 2)
  end
  if type(facing) ~= "number" then
    error("moves.pivot: give the new facing in degrees, not " .. type(facing), 2)
  end
  world:move(b, { x = b.pos.x, y = b.pos.y, facing = facing })
  world:note(string.format("%s pivots to %g degrees", b.id, facing))
end

-- [3.2 Prolong] Prolongs an unlimbered battery: moved by hand along legs of
-- at most prolong_cm in all. It loses saved fire (it moved) and is marked
-- `prolonged`: in the next artillery phase hits on it apply at once.
function moves.prolong(b, path)
  b = battery(b, "moves.prolong")
  if b.limbered then
    error("moves.prolong: " .. b.id .. " is limbered: only unlimbered guns prolong", 2)
  end
  local len = path_length(b, path)
  if common.more_than(len, params.moves.prolong_cm) then
    error(string.format("moves.prolong: %s may prolong at most %g cm, not %.1f", b.id, params.moves.prolong_cm, len), 2)
  end
  b.prolonged = true
  world:move(b, path)
  world:note(string.format("%s prolongs %.1f cm", b.id, len))
end

return moves
