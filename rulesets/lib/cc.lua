-- rulesets/lib/cc.lua — shared Command & Colors helpers.
--
-- Used by great_war (reserve artillery) and written so that the other
-- Command & Colors rulesets (tricorne, ...) can reuse them: battle
-- dice symbol counts, terrain effects on hits and flags, removing figures
-- and awarding victory medals, collecting HQ tokens, and retreats.
--
-- Everything here reads its game data from the loading ruleset:
--   ruleset.terrain[name]          { protection=, ignore_flags=, impassable=,
--                                    ranged = { protection=, ignore_flags= },
--                                    close = { ... } }
--   ruleset.charts.token_terrain   tokens that act like terrain (same fields)
-- and names the side pools `hq` (HQ tokens) and `medals` (victory medals).
-- `protection` is the number of soldier symbols the target ignores and
-- `ignore_flags` the number of flags; a sub-table named after a kind of
-- combat (`ranged`, `close`, or any name a ruleset passes) overrides them
-- for that kind.
--
-- The turn frame (command cards, orders, movement, combat, victory) is
-- lib/cc_turn.lua; system-neutral helpers (rule errors) are lib/rules.lua.
--
-- Hot paths (analysis runs these millions of times) create no tables and
-- build no strings unless a decision or a note needs one.

local cc = {}

-- Side pools, in one place.
cc.HQ_POOL = "hq"
cc.MEDAL_POOL = "medals" -- victory medals (banners): lib/cc_turn counts them for victory
cc.COMBAT_CARD_POOL = "combat_cards" -- combat cards held (a count; their effects are the ruleset's)

-- Hex directions as vectors: 1 E, 2 SE, 3 SW, 4 W, 5 NW, 6 NE (clockwise
-- from east on a y-down screen; DESIGN.md "Hex").
local DIR = {}
for d = 1, 6 do
  DIR[d] = hex.direction(d)
end
cc.DIR = DIR

local TERRAIN = ruleset.terrain or {}
local TOKEN_TERRAIN_DATA = {}
do
  local charts = ruleset.charts
  local tt = type(charts) == "table" and charts.token_terrain or nil
  if type(tt) == "table" then
    TOKEN_TERRAIN_DATA = tt
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

-- The value of `field` in a terrain (or token) entry for a kind of combat:
-- the combat's sub-table first, then the entry itself, else 0.
function cc.terrain_value(info, combat, field)
  if info == nil then
    return 0
  end
  local sub = combat and info[combat]
  if type(sub) == "table" and sub[field] ~= nil then
    return sub[field]
  end
  return info[field] or 0
end

-- The terrain data flattened for one kind of combat, made once per kind:
-- { terrain = { name -> { protection, ignore_flags, impassable } },
--   tokens = { { token =, protection =, ignore_flags = }, ... } }.
local EFFECTS = {}
local last_combat, last_effects = nil, nil
local function effects_for(combat)
  local e = EFFECTS[combat]
  if e == nil then
    e = { terrain = {}, tokens = {} }
    for name, info in pairs(TERRAIN) do
      e.terrain[name] = {
        cc.terrain_value(info, combat, "protection"),
        cc.terrain_value(info, combat, "ignore_flags"),
        info.impassable == true,
      }
    end
    -- (in any order: a hex takes the best of them)
    for token, info in pairs(TOKEN_TERRAIN_DATA) do
      table.insert(e.tokens, {
        token = token,
        protection = cc.terrain_value(info, combat, "protection"),
        ignore_flags = cc.terrain_value(info, combat, "ignore_flags"),
      })
    end
    EFFECTS[combat] = e
  end
  return e
end

-- Terrain effects on a hex (C&C "Terrain" section; the values are the
-- ruleset's data): how many soldier symbols the target there ignores
-- (protection), how many flags it may ignore, and whether a unit may enter
-- the hex at all. `combat` is the kind of combat, "ranged" (the default) or
-- "close" (any sub-table name of the terrain data works). A hex takes the
-- best of its terrain and of any token that acts as terrain (e.g. a shell
-- crater); `without` names one token to leave out (e.g. a crater placed by
-- the combat being resolved, which shields nobody until the next one).
-- Returns protection, ignore_flags, impassable.
-- hot: called for every shelled hex that rolled a soldier or a flag; the
-- data is flattened once per kind of combat (effects_for).
function cc.terrain_effects(h, combat: string?, without: string?)
  return cc.hex_effects(h, world:terrain(h), combat, without)
end

-- terrain_effects for a caller that has already read the hex's terrain name
-- (`name`, nil for none; e.g. from world:at): the same results, one call fewer.
-- hot: as terrain_effects.
function cc.hex_effects(h, name: string?, combat: string?, without: string?)
  combat = combat or "ranged"
  -- hot: the last kind of combat's data without a lookup by name (a rule
  -- resolves one kind of combat many times over)
  local e = last_effects
  if combat ~= last_combat then
    e = EFFECTS[combat] or effects_for(combat)
    last_combat, last_effects = combat, e
  end
  local protection, ignore, impassable = 0, 0, false
  if name ~= nil then
    local t = e.terrain[name]
    if t ~= nil then
      protection, ignore, impassable = t[1], t[2], t[3]
    end
  end
  local tokens = e.tokens
  for i = 1, #tokens do
    local t = tokens[i]
    if t.token ~= without and world:has_token(h, t.token) then
      protection = math.max(protection, t.protection)
      ignore = math.max(ignore, t.ignore_flags)
    end
  end
  return protection, ignore, impassable
end

-- Sections -------------------------------------------------------------------

-- C&C: a section card's left, centre and right are the flanks of the player
-- who plays it, as they sit at their own baseline. The scenario names its
-- sections as seen from the bottom edge of the map (offset columns rising to
-- the right), so a side whose baseline is the bottom uses them as named, and
-- a side at the top has them mirrored: its left flank is the board's right.
-- The core's sections are ranges of columns, which run across a top or bottom
-- baseline only; a side at a left or right baseline has no flanks there, and
-- asking for them is an error. Names other than left/right (centre, or a
-- ruleset's own) are the same for both sides.
local MIRROR = { left = "right", right = "left" }

-- Does `side` see the board's sections mirrored? Returns true/false, or nil
-- and the reason it has no flanks (for the caller to raise at its level).
local function mirrored(side)
  local b = world:baseline(side)
  if b == "bottom" then
    return false
  elseif b == "top" then
    return true
  elseif b == nil then
    return nil, "side '" .. tostring(side) .. "' has no baseline, so its left and right flanks are unknown "
      .. "(give the scenario side a baseline)"
  end
  return nil, "side '" .. side .. "' has the " .. b .. " baseline, but the map's sections are ranges of columns, "
    .. "which only run across a top or bottom baseline: " .. side .. " has no left/centre/right flanks"
end

-- Public form: cc.mirrored(side) -> true when `side` sits at the top
-- (its left is the board's right); raises for a side without flanks.
function cc.mirrored(side: string): boolean
  local m, why = mirrored(side)
  if m == nil then
    error(why, 2)
  end
  return m
end

-- The board's name for `side`'s section `section` ("left" for the top side
-- is the board's "right").
function cc.board_section(side: string, section: string): string
  local m, why = mirrored(side)
  if m == nil then
    error(why, 2)
  end
  if m then
    return MIRROR[section] or section
  end
  return section
end

-- The sections hex `h` lies in, named as `side` sees them (two on a section
-- line), in the board's order.
function cc.side_sections(side: string, h): { string }
  local names = world:sections(h)
  local m, why = mirrored(side)
  if m == nil then
    error(why, 2)
  end
  if m then
    for i, name in ipairs(names) do
      names[i] = MIRROR[name] or name
    end
  end
  return names
end

-- Is hex `h` in `side`'s section `section`? (A hex on a section line is in
-- both sections.)
function cc.in_side_section(side: string, h, section: string): boolean
  local m, why = mirrored(side)
  if m == nil then
    error(why, 2)
  end
  if m then
    return world:in_section(h, MIRROR[section] or section)
  end
  return world:in_section(h, section)
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
  local removed, alive = world:hit(unit, hits, reason)
  if removed > 0 and not alive then
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
      -- (the prompt is a function: simulation takes the default without it)
      to = decide{
        side = unit.side,
        prompt = function()
          return "retreat " .. unit.id .. " from " .. tostring(from) .. " to"
        end,
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
