-- rulesets/viktory/turn.lua — the Viktory II turn frame: each player's turn
-- in seat order, its phases, moves (roads, frigates) and reserve placement.
--
-- Tags as in viktory.lua: [Base] base-game facts, [OW-trigger] where the
-- overwatch document says what a move or a placement triggers, [Ours].
--
-- Phases of a player's turn, in the recommended order:
--   bombard -> battle -> move -> reserve
-- The game only recommends the first three in that order; with the param
-- turn.strict_order (variant strict_order) going back is a rule error. The
-- reserve placement phase always ends the turn: no moves after it.
-- The phase is the current player's side pool `phase` (1..4).
--
-- Every move goes through world:move, which emits `enters`/`leaves` on
-- each step; overwatch.lua reacts to those. Nothing here calls overwatch.
--
-- At a prompt:
--   turn.move("b_inf1", {hex(6,3)})

local viktory = require("viktory")

local turn = {}

local PHASES = { "bombard", "battle", "move", "reserve" }
local PHASE_OF = { bombard = 1, battle = 2, move = 3, reserve = 4 }

-- [Base] The current player's phase name.
function turn.phase()
  local side = world:current_side()
  local n = side and world:pool(side, "phase") or 0
  return PHASES[n] or "bombard"
end

-- [Base] Moves the turn on to `name` (an event of that phase is happening).
-- Under strict order a phase that comes earlier than the current one is a
-- rule error; after reserve placement nothing else may happen.
function turn.enter_phase(name, level)
  local now = PHASE_OF[turn.phase()]
  local want = PHASE_OF[name]
  if now == 4 and want < 4 then
    viktory.violation("the reserve placement phase ends the turn: no " .. name .. " after it (call turn.finish())", (level or 1) + 1)
  end
  if want < now and params.turn.strict_order then
    viktory.violation("a " .. name .. " after the " .. PHASES[now] .. " phase: the turn goes bombard attacks, then battles, then other moves (turn.strict_order)", (level or 1) + 1)
  end
  if want > now then
    world:set_pool(world:current_side(), "phase", want)
  end
end

-- [Base] Starts a player's turn: by default the next player in seat order
-- after the current one; `side` names the player instead. Either way it is
-- that player's next turn, so the round goes on by the seat order: a new
-- round after the last seat, or when `side` sits before the current player
-- (the current player named again restarts its own turn: same round).
-- Per-turn state (overwatch spent, moves, bombard attacks) is keyed by the
-- round and the side, so a new turn of a player starts it afresh. Resets
-- the phase, and emits `turn_started(side)`.
function turn.start(side)
  local players = viktory.players()
  if #players == 0 then
    viktory.violation("there is no player to start a turn for: the scenario has no sides (Viktory has 2 to 8 players)", 2)
  end
  local cur = world:current_side()
  local at, to = 0, nil
  for i, s in ipairs(players) do
    if s == cur then
      at = i
    end
    if s == side then
      to = i
    end
  end
  if side == nil then
    if at == #players then
      world:set_turn(world:turn() + 1)
      side = players[1]
    else
      side = players[at + 1]
    end
  elseif to == nil then
    viktory.violation("there is no player '" .. tostring(side) .. "' (the players: " .. table.concat(players, ", ") .. ")", 2)
  elseif to < at then
    world:set_turn(world:turn() + 1)
  end
  world:set_current_side(side)
  world:set_pool(side, "phase", 1)
  world:note("turn " .. world:turn() .. ": " .. side .. " to play")
  emit("turn_started", side)
  return side
end

-- [Base] Ends the current player's turn (its reserve placement phase
-- included) and starts the next player's.
function turn.finish()
  local side = world:current_side()
  if side == nil then
    viktory.violation("there is no player's turn to finish: the scenario has no sides (Viktory has 2 to 8 players)", 2)
  end
  world:set_pool(side, "phase", 4)
  return turn.start()
end

------------------------------------------------------------------------------
-- Moves
------------------------------------------------------------------------------

-- [Base] Hexes a unit type may move in a turn (params turn.*_moves).
local function type_allowance(kind)
  local p = params.turn[kind .. "_moves"]
  return p or 0
end

-- [Base] Hexes a unit may move in a turn.
function turn.allowance(u)
  return type_allowance(u.type)
end

-- Moves used this turn by a unit (its props move_turn / moves_used).
function turn.moves_used(u)
  if u.move_turn == viktory.turn_key() then
    return u.moves_used or 0
  end
  return 0
end

local function spend_moves(u, n)
  local used = turn.moves_used(u)
  u.move_turn = viktory.turn_key()
  u.moves_used = used + n
end

-- [Base][Ours] Is every step of the path (from the unit's hex) along road
-- hexes? Such a move earns turn.road_bonus extra hexes.
local function on_road(from, path)
  if not world:has_token(from, "road") then
    return false
  end
  for _, h in ipairs(path) do
    if not world:has_token(h, "road") then
      return false
    end
  end
  return true
end

local function as_path(path)
  if hex.is_hex(path) then
    return { path }
  end
  return path
end

-- Checks that `u` may take `path` this turn as an ordinary move (or the
-- approach of an attack, `extra` more hexes to come). Raises rule errors.
function turn.check_move(u, path, extra, level)
  level = (level or 1) + 1
  -- The unit's fields, read once (nothing below changes them).
  local side, kind, from = u.side, u.type, u.hex
  local current = world:current_side()
  if side ~= current then
    viktory.violation(u.id .. " belongs to " .. side .. ", but it is " .. tostring(current) .. "'s turn", level)
  end
  if not viktory.is_military_type(kind) then
    viktory.violation(u.id .. " is a " .. kind .. ": towns and cities do not move", level)
  end
  if u.aboard ~= nil then
    viktory.violation(u.id .. " is aboard " .. u.aboard .. ": unload it with turn.unload", level)
  end
  if not u.alive then
    viktory.violation(u.id .. " is not on the map", level)
  end
  if u.bombarded == viktory.turn_key() then
    viktory.violation(u.id .. " made a bombard attack this turn and cannot move afterwards", level)
  end
  local water_unit = kind == "frigate"
  local at = from
  for _, h in ipairs(path) do
    if not world:on_map(h) then
      viktory.violation(u.id .. " cannot move to " .. tostring(h) .. ": off the map", level)
    end
    if at:distance(h) ~= 1 then
      viktory.violation(u.id .. " cannot move to " .. tostring(h) .. ": not adjacent to " .. tostring(at), level)
    end
    if viktory.is_water(h) ~= water_unit then
      if water_unit then
        viktory.violation(u.id .. " is a frigate and cannot enter land hex " .. tostring(h), level)
      end
      viktory.violation(u.id .. " cannot enter water hex " .. tostring(h) .. " (land units cross water aboard a frigate: turn.load)", level)
    end
    if #viktory.units_at(h, { other_than = side }) > 0 then
      viktory.violation(u.id .. " cannot move into " .. tostring(h) .. ": enemy pieces hold it (attack it with battle.declare)", level)
    end
    at = h
  end
  local allowance = type_allowance(kind)
  if not water_unit and on_road(from, path) then
    allowance += params.turn.road_bonus
  end
  local need = #path + (extra or 0)
  local left = allowance - turn.moves_used(u)
  if need > left then
    viktory.violation(u.id .. " (" .. kind .. ") needs " .. need .. " hexes but has " .. left .. " of " .. allowance .. " left this turn", level)
  end
end

-- [Base][OW-trigger] Moves a unit of the current player along a path (a
-- hex or a list of adjacent hexes) through world:move, so every step emits
-- `enters`, and overwatch can react. A frigate carries its cargo along
-- (cargo is off the map; it moves with the frigate and triggers nothing of
-- its own). A declared attacker that moves this way leaves its attack (it
-- is no longer on the hexside it was declared on, or moves on from the hex
-- it moved into). Returns true if the unit arrived, false if it was
-- destroyed or stopped on the way, and then the overwatch shots the move
-- triggered (viktory.take_shots), if any.
function turn.move(u, path)
  u = viktory.unit(u, 2)
  path = as_path(path)
  turn.check_move(u, path, 0, 2)
  turn.enter_phase("move", 2)
  spend_moves(u, #path)
  u.attacking, u.moving_in = nil, nil
  viktory.take_shots()
  return viktory.moved(world:move(u, path))
end

-- Used by battle.lua: an approach or move-in step of an attack (its phase
-- is set by the caller), spending moves and emitting events. The caller
-- reports the shots (viktory.moved).
function turn.step(u, path)
  spend_moves(u, #path)
  return world:move(u, path)
end

------------------------------------------------------------------------------
-- Frigates
------------------------------------------------------------------------------

local function set_cargo(f, ids)
  f.cargo = #ids > 0 and table.concat(ids, ",") or nil
end

-- [Base][OW-trigger] Loads a land unit onto a frigate of its side in an
-- adjacent water hex. The unit really moves into the frigate's hex (one
-- hex of its move) through world:move, so loading next to enemy artillery
-- triggers overwatch against the loading unit (its `loading` property
-- tells overwatch; the frigate is not a target). Once aboard, the unit is
-- off the map with `aboard = <frigate id>` and the frigate lists it in
-- `cargo`. Returns true if the unit got aboard, then the overwatch shots
-- its loading triggered, if any.
function turn.load(u, frigate)
  u = viktory.unit(u, 2)
  frigate = viktory.unit(frigate, 2)
  if frigate.type ~= "frigate" then
    viktory.violation(frigate.id .. " is not a frigate", 2)
  end
  if frigate.side ~= u.side then
    viktory.violation(u.id .. " cannot board " .. frigate.side .. "'s frigate " .. frigate.id, 2)
  end
  if u.type == "frigate" or not viktory.is_military(u) then
    viktory.violation("only land units board a frigate, not " .. u.id .. " (" .. u.type .. ")", 2)
  end
  local cargo = viktory.cargo(frigate)
  if #cargo >= params.turn.frigate_capacity then
    viktory.violation(frigate.id .. " already carries " .. #cargo .. " units, its most (turn.frigate_capacity)", 2)
  end
  if not u.alive or u.hex:distance(frigate.hex) ~= 1 then
    viktory.violation(u.id .. " must stand on a hex next to " .. frigate.id .. " at " .. tostring(frigate.hex) .. " to board it", 2)
  end
  if u.side ~= world:current_side() then
    viktory.violation(u.id .. " belongs to " .. u.side .. ", but it is " .. tostring(world:current_side()) .. "'s turn", 2)
  end
  if u.bombarded == viktory.turn_key() then
    viktory.violation(u.id .. " made a bombard attack this turn and cannot move afterwards", 2)
  end
  if turn.moves_used(u) + 1 > turn.allowance(u) then
    viktory.violation(u.id .. " has no move left this turn to board a frigate", 2)
  end
  turn.enter_phase("move", 2)
  spend_moves(u, 1)
  u.loading = frigate.id
  viktory.take_shots()
  local arrived = world:move(u, frigate.hex)
  if not arrived then
    return viktory.moved(false)
  end
  u.loading = nil
  world:place(u, nil)
  u.aboard = frigate.id
  table.insert(cargo, u.id)
  set_cargo(frigate, cargo)
  return viktory.moved(true)
end

-- [Base][OW-trigger] Unloads a carried unit onto an adjacent land hex
-- without enemy pieces: the unit is set on the frigate's hex and steps
-- ashore through world:move (so landing next to enemy artillery triggers
-- overwatch). Returns true if it landed, then the overwatch shots its
-- landing triggered, if any.
function turn.unload(u, to)
  u = viktory.unit(u, 2)
  local f = u.aboard and world:unit(u.aboard)
  if f == nil then
    viktory.violation(u.id .. " is not aboard a frigate", 2)
  end
  if f.side ~= world:current_side() then
    viktory.violation(f.id .. " belongs to " .. f.side .. ", but it is " .. tostring(world:current_side()) .. "'s turn", 2)
  end
  if f.hex:distance(to) ~= 1 or viktory.is_water(to) then
    viktory.violation(u.id .. " can only land on a land hex next to " .. f.id .. " at " .. tostring(f.hex), 2)
  end
  if #viktory.units_at(to, { other_than = u.side }) > 0 then
    viktory.violation(u.id .. " cannot land on " .. tostring(to) .. ": enemy pieces hold it", 2)
  end
  if turn.moves_used(u) + 1 > turn.allowance(u) then
    viktory.violation(u.id .. " has no move left this turn to land", 2)
  end
  turn.enter_phase("move", 2)
  local cargo = {}
  for _, id in ipairs(viktory.cargo(f)) do
    if id ~= u.id then
      table.insert(cargo, id)
    end
  end
  set_cargo(f, cargo)
  u.aboard = nil
  world:place(u, f.hex)
  spend_moves(u, 1)
  viktory.take_shots()
  return viktory.moved(world:move(u, to))
end

------------------------------------------------------------------------------
-- Reserve placement
------------------------------------------------------------------------------

-- [Base][OW-trigger] The reserve placement phase ends the turn: the current
-- player places new units (its `reserves` pool counts how many) in its own
-- towns and cities. Placement is not a move: it goes through
-- world:add_unit, emits no `enters`, and so never triggers overwatch, even
-- in a town next to enemy artillery. Returns the new unit.
function turn.place_reserve(kind, h)
  local side = world:current_side()
  if world:pool(side, "reserves") < 1 then
    viktory.violation(side .. " has no reserve units left to place (pool 'reserves')", 2)
  end
  if kind ~= "infantry" and kind ~= "cavalry" and kind ~= "artillery" then
    viktory.violation("reserves placed in towns and cities are infantry, cavalry or artillery, not " .. tostring(kind), 2)
  end
  if viktory.settlement(h, side) == nil then
    viktory.violation("reserves are placed in the player's own towns and cities; " .. tostring(h) .. " holds none of " .. side .. "'s", 2)
  end
  turn.enter_phase("reserve", 2)
  world:add_pool(side, "reserves", -1, "reserve placed")
  local n = 1
  while world:unit(side .. "_" .. kind .. "_r" .. n) ~= nil do
    n += 1
  end
  return world:add_unit{ id = side .. "_" .. kind .. "_r" .. n, side = side, type = kind, hex = h }
end

return turn
