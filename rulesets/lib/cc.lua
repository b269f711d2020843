-- rulesets/lib/cc.lua — shared Command & Colors helpers.
--
-- Used by great_war (reserve artillery) and written so that the other
-- Command & Colors rulesets (horse_and_musket, ...) can reuse them: battle
-- dice symbol counts, terrain effects on hits and flags, removing figures
-- and awarding victory medals, collecting HQ tokens, and retreats.
--
-- Everything here reads its game data from the loading ruleset:
--   ruleset.terrain[name]          { protection=, ignore_flags=, impassable= }
--   ruleset.charts.token_terrain   tokens that act like terrain (same fields)
-- and names the side pools `hq` (HQ tokens) and `medals` (victory medals).
--
-- Hot paths (analysis runs these millions of times) create no tables and
-- build no strings unless a decision or a note needs one.

local cc = {}

-- Side pools, in one place.
cc.HQ_POOL = "hq"
cc.MEDAL_POOL = "medals"

-- Hex directions as vectors: 1 E, 2 SE, 3 SW, 4 W, 5 NW, 6 NE (clockwise
-- from east on a y-down screen; DESIGN.md "Hex").
local DIR = {}
for d = 1, 6 do
  DIR[d] = hex.direction(d)
end
cc.DIR = DIR

local TERRAIN = ruleset.terrain or {}
local TOKEN_TERRAIN = {}
do
  local charts = ruleset.charts
  local tt = type(charts) == "table" and charts.token_terrain or nil
  if type(tt) == "table" then
    for token, info in pairs(tt) do
      table.insert(TOKEN_TERRAIN, { token = token, protection = info.protection or 0, ignore_flags = info.ignore_flags or 0 })
    end
    table.sort(TOKEN_TERRAIN, function(a, b) return a.token < b.token end)
  end
end

-- Battle dice --------------------------------------------------------------

-- Where each symbol of a die kind comes in the results of dice.counts (the
-- die's distinct faces in the order they first appear). Returns a table
-- symbol -> position; a symbol the die lacks has no entry.
function cc.face_positions(kind)
  local pos, n = {}, 0
  for _, face in ipairs(dice.faces(kind)) do
    if pos[face] == nil then
      n += 1
      pos[face] = n
    end
  end
  return pos
end

-- Terrain ------------------------------------------------------------------

-- Terrain effects on a hex (C&C "Terrain" section, our data): how many
-- soldier symbols its protection cancels, how many flags a unit there may
-- ignore, and whether a unit may enter it at all. A hex takes the best of its
-- terrain and of any token that acts as terrain (e.g. a shell crater).
-- Returns protection, ignore_flags, impassable.
function cc.terrain_effects(h)
  local protection, ignore, impassable = 0, 0, false
  local name = world:terrain(h)
  if name ~= nil then
    local info = TERRAIN[name]
    if info ~= nil then
      protection = info.protection or 0
      ignore = info.ignore_flags or 0
      impassable = info.impassable == true
    end
  end
  for i = 1, #TOKEN_TERRAIN do
    local t = TOKEN_TERRAIN[i]
    if world:has_token(h, t.token) then
      if t.protection > protection then protection = t.protection end
      if t.ignore_flags > ignore then ignore = t.ignore_flags end
    end
  end
  return protection, ignore, impassable
end

-- Hits, medals, HQ tokens ----------------------------------------------------

-- A victory medal for `side` (C&C: eliminating the last figure of an enemy
-- unit earns a medal).
function cc.award_medal(side, reason)
  world:add_pool(side, cc.MEDAL_POOL, 1, reason)
end

-- Removes up to `hits` figures from `unit`, one per hit; hits beyond its
-- figures do nothing. When its last figure goes, the side that caused the
-- loss (`by_side`) gains a victory medal — or, when a side hits its own unit,
-- that unit's opponent does. Returns figures removed, eliminated (bool).
function cc.apply_hits(unit, hits, by_side, reason)
  if hits <= 0 then
    return 0, false
  end
  local removed = world:hit(unit, hits, reason)
  if removed > 0 and not unit.alive then
    local owner = unit.side
    cc.award_medal(owner ~= by_side and by_side or world:opponent(owner), reason)
    return removed, true
  end
  return removed, false
end

-- C&C: one HQ token for the rolling side per HQ symbol rolled.
function cc.collect_hq(side, n, reason)
  if n > 0 then
    world:add_pool(side, cc.HQ_POOL, n, reason)
  end
end

-- Retreats -------------------------------------------------------------------

-- The directions a retreat may take: towards the unit's own baseline. On a
-- pointy-top map a top or bottom baseline lies between two directions (both
-- allowed); a left or right baseline faces a hex side (straight back, or
-- either slant).
local RETREAT_DIRS = {
  bottom = { 3, 2 }, -- SW, SE
  top = { 5, 6 }, -- NW, NE
  left = { 4, 3, 5 },
  right = { 1, 2, 6 },
}

function cc.retreat_directions(side)
  local b = world:baseline(side)
  local dirs = b and RETREAT_DIRS[b]
  if dirs == nil then
    error("side '" .. tostring(side) .. "' has no baseline, so its units cannot retreat (give the scenario side a baseline)", 2)
  end
  return dirs
end

-- A retreat may enter a hex on the map, free of units, not impassable.
function cc.can_retreat_into(h)
  if not world:on_map(h) or world:unit_at(h) ~= nil then
    return false
  end
  local _, _, impassable = cc.terrain_effects(h)
  return not impassable
end

-- Retreats `unit` `hexes` hexes towards its own baseline, one hex at a time
-- (C&C "Retreat" section, with our defaults where the document is silent):
--   * each step goes to a free hex towards the unit's baseline; when two are
--     free the unit's owner chooses (decision id "cc.retreat");
--   * a step that cannot be taken (map edge, units, impassable terrain) ends
--     the retreat; with opts.blocked == "lose_figure" the unit loses one
--     figure per hex it could not retreat (a medal to opts.by_side if that
--     eliminates it), with "stay" it simply stays.
-- opts: { blocked = "lose_figure" | "stay", by_side = side, reason = text }.
-- Returns hexes retreated, figures lost to a blocked retreat.
function cc.retreat(unit, hexes, opts)
  local moved, lost = 0, 0
  if hexes <= 0 then
    return moved, lost
  end
  local dirs = cc.retreat_directions(unit.side)
  local reason = opts and opts.reason or "retreat"
  for step = 1, hexes do
    local from = unit.hex
    if from == nil then
      break
    end
    local first, options = nil, nil
    for i = 1, #dirs do
      local h = from + DIR[dirs[i]]
      if cc.can_retreat_into(h) then
        if first == nil then
          first = h
        elseif options == nil then
          options = { first, h }
        else
          table.insert(options, h)
        end
      end
    end
    if first == nil then
      if not opts or opts.blocked ~= "stay" then
        lost = cc.apply_hits(unit, hexes - step + 1, opts and opts.by_side or world:opponent(unit.side), reason .. ": retreat blocked")
      end
      break
    end
    local to = first
    if options ~= nil then
      to = decide{
        side = unit.side,
        prompt = "retreat " .. unit.id .. " from " .. tostring(from) .. " to",
        options = options,
        default = first,
        id = "cc.retreat",
      }
    end
    if not world:retreat(unit, to) then
      break -- a reaction stopped or eliminated the unit
    end
    moved += 1
  end
  return moved, lost
end

return cc
