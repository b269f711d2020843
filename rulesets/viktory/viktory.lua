-- rulesets/viktory/viktory.lua — shared Viktory II pieces: dice and hits,
-- Tactical Victory casualties, players in turn order, hexes and stacks.
--
-- The rules document is shared/rules/viktory-overwatch.txt (the Viktory II
-- expansion rule "Artillery Characteristics"); this file holds what that
-- document assumes from the base game (research notes, base-rules.md §3).
-- Rule tags used in this ruleset's modules:
--   [Base]        base-game facts the document assumes (dice, moves, turn)
--   [ArtDice]     "artillery roll 2 dice ... Tactical Victory selective hits"
--   [OW]          overwatch: who may fire, when, at what
--   [OW-dice]     two dice near friendly pieces or in the same hex, else one
--   [OW-wait]     passing on a trigger; waiting for the attackers to move in
--   [OW-trigger]  what triggers it and what does not (moving out, roads,
--                 reserve placement, loading onto a frigate, frigates)
--   [Ours]        a choice of ours where the document and research are silent
--
-- At a prompt:
--   turn.move("b_inf1", {hex(6,3)})

local viktory = {}

local D6 = "d6"

-- Unit-type data from ruleset.yaml.
local TYPES = ruleset.unit_types or {}

-- [Base] Is a unit type military (not a town or city piece)?
function viktory.is_military_type(kind)
  local t = TYPES[kind]
  return t == nil or t.military ~= false
end

-- [Base] Is a unit a military unit (not a town or city piece)?
function viktory.is_military(u)
  return viktory.is_military_type(u.type)
end

-- [Ours] A unit type's value, for default casualty choices.
function viktory.value(u)
  local t = TYPES[u.type]
  return (t and t.value) or 1
end

-- Terrain data from ruleset.yaml.
local TERRAIN = ruleset.terrain or {}
local NO_DATA = table.freeze({})

-- The ruleset's data for the terrain of hex h (ruleset.yaml `terrain:`),
-- as world:terrain_info(h) gives it but without copying it each time: a
-- table shared between calls, read-only.
function viktory.terrain_info(h)
  return TERRAIN[world:terrain(h)] or NO_DATA
end

-- [Base] Is a hex water?
function viktory.is_water(h)
  return viktory.terrain_info(h).water == true
end

-- "q,r": how hexes are written into unit properties.
function viktory.hex_key(h)
  return h.q .. "," .. h.r
end

function viktory.parse_hex(s)
  local q, r = string.match(s or "", "^(-?%d+),(-?%d+)$")
  if q == nil then
    return nil
  end
  return hex(tonumber(q), tonumber(r))
end

-- A unit handle from a handle or an id, with a clear error.
function viktory.unit(u, level)
  if type(u) == "string" then
    local found = world:unit(u)
    if found == nil then
      error("no unit with id '" .. u .. "'", (level or 1) + 1)
    end
    return found
  end
  if u == nil then
    error("a unit (or its id) is required", (level or 1) + 1)
  end
  return u
end

-- Raises a rule violation on the caller's caller's line.
function viktory.violation(text, level)
  error("rule error: " .. text, (level or 1) + 1)
end

-- The living units on a hex (a stack), in the world's order; `filter` may
-- name a side (`side=`), `military=true`, `other_than=side`.
function viktory.units_at(h, filter)
  if filter == nil then
    return world:units{ hex = h }
  end
  local out = {}
  for _, u in ipairs(world:units{ hex = h, side = filter.side }) do
    if (filter.other_than == nil or u.side ~= filter.other_than)
      and (not filter.military or viktory.is_military(u))
    then
      table.insert(out, u)
    end
  end
  return out
end

-- [Base] The town or city piece of `side` on hex h, or nil.
function viktory.settlement(h, side)
  for _, u in ipairs(viktory.units_at(h)) do
    local kind = u.type
    if (kind == "town" or kind == "city") and (side == nil or u.side == side) then
      return u
    end
  end
  return nil
end

------------------------------------------------------------------------------
-- Players in turn order
------------------------------------------------------------------------------

-- [Base] Viktory has 2 to 8 players, each with a turn of its own. The turn
-- order is the sides' `seat` pools (1, 2, 3, ...; sides without one come
-- after, by name). Never uses world:opponent, which assumes two sides.
function viktory.players()
  local list = world:sides()
  local seats = {}
  for _, s in ipairs(list) do
    local seat = world:pool(s, "seat")
    seats[s] = seat > 0 and seat or math.huge
  end
  table.sort(list, function(a, b)
    if seats[a] ~= seats[b] then
      return seats[a] < seats[b]
    end
    return a < b
  end)
  return list
end

-- [OW] The other players in turn order, starting with the one after `side`.
function viktory.players_after(side)
  local list = viktory.players()
  local at = 0
  for i, s in ipairs(list) do
    if s == side then
      at = i
    end
  end
  local out = {}
  for k = 1, #list - 1 do
    table.insert(out, list[(at + k - 1) % #list + 1])
  end
  return out
end

-- The key of the player turn in progress ("3:B": round 3, player B), kept
-- in unit properties so that "once per enemy player's turn" survives undo.
-- Every step of a move asks for it: the text is built once per player turn
-- and kept until the round or the player changes (however they change).
local key_turn, key_side, key_text = nil, nil, nil
function viktory.turn_key()
  local round, side = world:turn(), world:current_side()
  if round ~= key_turn or side ~= key_side then
    key_turn, key_side, key_text = round, side, round .. ":" .. (side or "?")
  end
  return key_text
end

------------------------------------------------------------------------------
-- Dice and hits
------------------------------------------------------------------------------

-- The faces 1..max as a list (a die of max or less), kept per max.
local faces_upto = {}
local function upto(max)
  local list = faces_upto[max]
  if list == nil then
    list = {}
    for v = 1, max do
      list[v] = v
    end
    faces_upto[max] = list
  end
  return list
end

-- Hits and Tactical Victory hits of a roll, counted (under `exact` a count
-- branches on how many, not on every multiset of faces).
local function hits_of(roll)
  local hits = roll:count_any(upto(params.viktory.hit_max))
  local selective = 0
  if hits > 0 then
    selective = roll:count_any(upto(math.min(params.viktory.selective_max, params.viktory.hit_max)))
  end
  return hits, selective
end

-- [Base] Rolls n ordinary d6. Returns hits (a die on hit_max or less) and
-- Tactical Victory hits among them (selective_max or less), and the roll.
function viktory.roll(n, reason)
  if n <= 0 then
    return 0, 0
  end
  local roll = dice.roll(n, D6, reason)
  local hits, selective = hits_of(roll)
  return hits, selective, roll
end

-- [Base] One battle round's dice, both sides at once: na dice for the
-- attacker, nd for the defender; reason(round, pool) names each roll
-- (round counted from 1 in this call, pool 1 the attacker's). A round in
-- which neither side hits changes nothing and the battle goes on, so the
-- dice are rolled again until some die hits (dice.roll_until; under
-- `exact` the rounds without hits are summed over). Returns the
-- attacker's hits and Tactical Victory hits, the defender's, and how many
-- rounds were rolled (nil under `exact`).
function viktory.roll_round(na, nd, reason)
  local rolls, tries = dice.roll_until({ na, nd }, D6, upto(params.viktory.hit_max), reason)
  local ha, sa = hits_of(rolls[1])
  local hd, sd = hits_of(rolls[2])
  return ha, sa, hd, sd, tries
end

-- [Base] P(at least one hit) with n dice, for prompts.
function viktory.p_hit(n)
  local miss = 1 - params.viktory.hit_max / 6
  return 1 - miss ^ n
end

-- [Base] Loses a unit. A frigate takes everything it carries down with it.
function viktory.lose(u, reason)
  u = viktory.unit(u, 2)
  for _, id in ipairs(viktory.cargo(u)) do
    local c = world:unit(id)
    if c ~= nil and c.strength > 0 then
      world:eliminate(c, reason .. " (aboard " .. u.id .. ")")
    end
  end
  world:eliminate(u, reason)
end

-- The ids a frigate carries (its `cargo` property, ids joined by commas).
function viktory.cargo(u)
  local out = {}
  local s = u.cargo
  if type(s) == "string" then
    for id in string.gmatch(s, "[^,]+") do
      table.insert(out, id)
    end
  end
  return out
end

-- Orders units by value (ascending or not), then by id. Each unit's value
-- and id are read once (`values`, `ids`: unit -> value, id), not at every
-- comparison of the sort.
local function by_value(ascending, values, ids)
  return function(a, b)
    local va, vb = values[a], values[b]
    if va ~= vb then
      if ascending then
        return va < vb
      end
      return va > vb
    end
    return ids[a] < ids[b]
  end
end

------------------------------------------------------------------------------
-- Overwatch shots a move triggered
------------------------------------------------------------------------------

-- A shot prints as one line: who fired at whom, the dice rolled, the hits
-- and the units lost.
local Shot = {}
Shot.__tostring = function(s)
  return s.artillery .. " overwatch at " .. s.mover .. " in " .. tostring(s.hex) .. ": " .. s.dice
    .. (s.dice == 1 and " die [" or " dice [") .. table.concat(s.faces, " ") .. "], " .. s.hits
    .. (s.hits == 1 and " hit" or " hits") .. (#s.lost > 0 and (", lost " .. table.concat(s.lost, " ")) or "")
end

-- The shots fired since the last take_shots (a move's reactions add them).
local Shots = {}
Shots.__tostring = function(list)
  local lines = {}
  for i, s in ipairs(list) do
    lines[i] = tostring(s)
  end
  return table.concat(lines, "\n")
end
local shots = nil

-- [OW] Records one overwatch shot (overwatch.offer): the artillery, the
-- mover, the hex entered, the dice, the roll (nil for none), hits and the
-- units lost. Returns the shot: { artillery, mover, hex, dice, faces, hits,
-- lost } (ids), printing as one line.
function viktory.record_shot(art, mover, h, n, roll, hits, lost)
  local names = {}
  for i, u in ipairs(lost) do
    names[i] = u.id
  end
  -- The faces are read from the roll the first time they are asked for: a
  -- play-through that never looks (sim, exact) does not make `exact` branch
  -- on every multiset of the overwatch dice, only on the hits.
  local shot = setmetatable({ artillery = art.id, mover = mover.id, hex = h, dice = n, hits = hits, lost = names }, {
    __tostring = Shot.__tostring,
    __index = function(s, key)
      if key ~= "faces" then
        return nil
      end
      local faces = roll and roll.faces or {}
      rawset(s, "faces", faces)
      return faces
    end,
  })
  shots = shots or setmetatable({}, Shots)
  table.insert(shots, shot)
  return shot
end

-- The overwatch shots recorded since the last call (a list that prints one
-- shot a line), or nil when there were none. The moves (turn.move,
-- battle.move_in, ...) call it before and after moving, and return what it
-- gives after as their second value, so a move typed at the prompt shows
-- the shots it triggered with their rolls.
function viktory.take_shots()
  local list = shots
  shots = nil
  return list
end

-- What a move returns: `arrived`, then the shots it triggered, if any.
function viktory.moved(arrived)
  local list = viktory.take_shots()
  if list ~= nil then
    return arrived, list
  end
  return arrived
end

-- [Base][ArtDice] Applies hits to candidate units. Selective (Tactical
-- Victory) hits are placed first and the firer picks each casualty; the
-- owner picks for the others. A choice between one unit is no choice and is
-- not asked. Decision id `viktory.casualty`; the request carries `chooser`
-- ("firer"/"owner"). Defaults: a firer takes the dearest unit, an owner
-- loses the cheapest. Returns the list of units lost.
--   f = { units=, hits=, selective=, firer=side, owner=side, reason= }
function viktory.take_losses(f)
  local alive, values, ids = {}, {}, {}
  for _, u in ipairs(f.units) do
    if u.alive then
      table.insert(alive, u)
      values[u], ids[u] = viktory.value(u), u.id
    end
  end
  local lost = {}
  for k = 1, f.hits do
    if #alive == 0 then
      break
    end
    local selective = k <= (f.selective or 0)
    local chooser = selective and f.firer or f.owner
    table.sort(alive, by_value(not selective, values, ids))
    local pick = 1
    if #alive > 1 then
      local options = {}
      for _, u in ipairs(alive) do
        table.insert(options, ids[u])
      end
      local what = selective and ("Tactical Victory hit: pick " .. f.owner .. "'s unit lost") or "hit: pick your unit lost"
      local chosen = decide{
        id = "viktory.casualty",
        side = chooser,
        chooser = selective and "firer" or "owner",
        prompt = what .. " (" .. f.reason .. ")",
        options = options,
        default = options[1],
      }
      for i, u in ipairs(alive) do
        if ids[u] == chosen then
          pick = i
        end
      end
    end
    local u = table.remove(alive, pick)
    viktory.lose(u, f.reason)
    table.insert(lost, u)
  end
  return lost
end

return viktory
