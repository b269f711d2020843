-- rulesets/viktory/battle.lua — bombard attacks and battles.
--
-- Tags as in viktory.lua: [Base] base-game facts, [ArtDice] the expansion's
-- artillery dice, [OW-wait] the attack declaration that overwatch may wait
-- for, [Ours] our choices.
--
-- An attack on a hex is three steps, each callable on its own at a prompt:
--   battle.declare{target=, attackers={...}, paths={id=path}}
--       attackers move up to the hexsides of the target (their approach,
--       through world:move) and are declared (prop `attacking`);
--   battle.move_in(unit)   one attacker moves into the target hex (world:move);
--   battle.resolve(target) pre-battle fire, then battle rounds.
-- battle.attack{...} does all three. Overwatch reacts to every approach
-- and move-in step through `enters` (overwatch.lua); nothing here calls it.
--
-- At a prompt:
--   battle.attack{target=hex(5,3), attackers={"b_inf1", "b_inf2", "b_art"}}

local viktory = require("viktory")
local turn = require("turn")

local battle = {}

local Record = {}
Record.__tostring = function(r)
  local lines = { r.kind .. " at " .. tostring(r.target) .. " by " .. r.attacker .. (r.defender and (" against " .. r.defender) or "") }
  for _, l in ipairs(r.lines) do
    table.insert(lines, "  " .. l)
  end
  return table.concat(lines, "\n")
end

local function record(kind, target, attacker)
  return setmetatable({ kind = kind, target = target, attacker = attacker, lines = {}, lost = {} }, Record)
end

local function ids(list)
  local out = {}
  for _, u in ipairs(list) do
    table.insert(out, u.id)
  end
  return out
end

local function note(rec, text)
  table.insert(rec.lines, text)
  world:note(text)
end

-- Puts overwatch shots (a list, or nil) at the head of a record: its
-- `overwatch` field and its first printed lines (the log has them already).
local function with_shots(rec, fired)
  if fired ~= nil and #fired > 0 then
    rec.overwatch = fired
    for i, s in ipairs(fired) do
      table.insert(rec.lines, i, "overwatch: " .. tostring(s))
    end
  end
  return rec
end

-- The enemy side holding pieces (units, towns, cities) on hex h, or nil.
local function holder(h, side)
  for _, u in ipairs(viktory.units_at(h)) do
    local s = u.side
    if s ~= side then
      return s
    end
  end
  return nil
end

------------------------------------------------------------------------------
-- Bombard attacks
------------------------------------------------------------------------------

-- [Base][ArtDice] A bombard attack: an artillery or frigate of the current
-- player, optionally after moving along `path` (world:move: overwatch may
-- strike it first), fires at enemy units on an adjacent hex. Artillery rolls
-- battle.artillery_dice (2) and, with battle.artillery_selective, all its
-- hits are Tactical Victories (the firer picks each casualty); a frigate
-- rolls battle.frigate_dice with ordinary hits. A unit that bombards
-- cannot move afterwards this turn (prop `bombarded`).
--   battle.bombard{unit=, target=hex, path=optional}
function battle.bombard(a)
  local u = viktory.unit(a.unit, 2)
  local side = u.side
  if u.type ~= "artillery" and u.type ~= "frigate" then
    viktory.violation(u.id .. " is " .. u.type .. ": only artillery and frigates make bombard attacks", 2)
  end
  if u.bombarded == viktory.turn_key() then
    viktory.violation(u.id .. " has already made its bombard attack this turn", 2)
  end
  local path = a.path
  if hex.is_hex(path) then
    path = { path }
  end
  turn.check_move(u, path or {}, 0, 2)
  if not hex.is_hex(a.target) then
    viktory.violation("battle.bombard needs target = a hex", 2)
  end
  local last = (path and #path > 0) and path[#path] or u.hex
  if last:distance(a.target) ~= 1 then
    viktory.violation("bombard attacks are made from an adjacent hex: " .. tostring(a.target) .. " is not next to " .. tostring(last), 2)
  end
  turn.enter_phase("bombard", 2)
  local rec = record("bombard", a.target, side)
  if path and #path > 0 then
    viktory.take_shots()
    local arrived = turn.step(u, path)
    with_shots(rec, viktory.take_shots())
    if not arrived then
      note(rec, u.id .. " was stopped on its way and makes no bombard attack")
      rec.fired = false
      return rec
    end
  end
  local owner = holder(a.target, side)
  local targets = owner and viktory.units_at(a.target, { side = owner, military = true }) or {}
  if #targets == 0 then
    viktory.violation("no enemy units on " .. tostring(a.target) .. " to bombard", 2)
  end
  rec.defender = owner
  u.bombarded = viktory.turn_key()
  local artillery = u.type == "artillery"
  local n = artillery and params.battle.artillery_dice or params.battle.frigate_dice
  local hits, selective = viktory.roll(n, u.id .. " bombards " .. tostring(a.target))
  if artillery and params.battle.artillery_selective then
    selective = hits
  end
  rec.dice, rec.hits = n, hits
  local lost = viktory.take_losses{
    units = targets, hits = hits, selective = selective, firer = side, owner = owner,
    reason = u.id .. " bombard attack",
  }
  rec.lost = ids(lost)
  rec.fired = true
  note(rec, u.id .. " bombards " .. tostring(a.target) .. ": " .. n .. " dice, " .. hits .. " hits"
    .. (#lost > 0 and (", lost " .. table.concat(rec.lost, " ")) or ""))
  return rec
end

------------------------------------------------------------------------------
-- Battle attacks
------------------------------------------------------------------------------

-- [Base][OW-wait] Declares a battle attack on an enemy-held land hex by
-- land units of the current player. Each attacker first moves along its
-- approach path (paths[id], optional) to a hex beside the target: it is
-- then placed along the hexside it attacks across. The approach and the
-- move-in together must fit the unit's move. Returns the attackers still
-- standing (an approach can end under overwatch), then the overwatch shots
-- the approaches triggered, if any.
--   battle.declare{target=hex, attackers={ids or units}, paths={id=path}}
local function declare(a, level)
  local target = a.target
  if not hex.is_hex(target) then
    viktory.violation("battle.declare needs target = a hex", level)
  end
  local side = world:current_side()
  if holder(target, side) == nil then
    viktory.violation(tostring(target) .. " holds no enemy pieces to attack", level)
  end
  if viktory.is_water(target) then
    viktory.violation("battles are fought on land hexes; " .. tostring(target) .. " is water", level)
  end
  local list, paths = {}, a.paths or {}
  for _, x in ipairs(a.attackers or {}) do
    local u = viktory.unit(x, level)
    if u.type == "frigate" or not viktory.is_military(u) then
      viktory.violation(u.id .. " (" .. u.type .. ") cannot make a battle attack", level)
    end
    local path = paths[u.id] or {}
    if hex.is_hex(path) then
      path = { path }
    end
    turn.check_move(u, path, 1, level)
    local last = #path > 0 and path[#path] or u.hex
    if last:distance(target) ~= 1 then
      viktory.violation(u.id .. " must end its approach beside " .. tostring(target) .. " (it would stand at " .. tostring(last) .. ")", level)
    end
    table.insert(list, { unit = u, path = path })
  end
  if #list == 0 then
    viktory.violation("a battle attack needs at least one attacker", level)
  end
  turn.enter_phase("battle", level)
  local key = viktory.hex_key(target)
  local standing = {}
  viktory.take_shots()
  for _, e in ipairs(list) do
    if #e.path == 0 or turn.step(e.unit, e.path) then
      e.unit.attacking = key
      table.insert(standing, e.unit)
    end
  end
  if #standing > 0 then
    world:note(side .. " declares an attack on " .. tostring(target) .. " by " .. table.concat(ids(standing), " "))
  else
    world:note(side .. "'s attack on " .. tostring(target) .. ": no attacker reached its hexside")
  end
  return viktory.moved(standing)
end

function battle.declare(a)
  return declare(a, 3)
end

-- [Base][OW-wait] One declared attacker moves from its hexside into the
-- target hex (world:move: each move-in may trigger overwatch). Moving in
-- is a move: not after the unit's bombard attack, nor after the reserve
-- placement phase. The attackers that move in for one attack move in
-- together: each is marked `moving_in` with the attack (this turn, this
-- hex) until the battle is resolved, and an overwatch shot at any of them
-- may hit any (overwatch.targets). Returns true if it got in, then the
-- overwatch shots its move triggered, if any.
function battle.move_in(u)
  u = viktory.unit(u, 2)
  local target = viktory.parse_hex(u.attacking)
  if target == nil then
    viktory.violation(u.id .. " has not been declared as an attacker (battle.declare)", 2)
  end
  if not u.alive or u.hex:distance(target) ~= 1 then
    viktory.violation(u.id .. " is not beside " .. tostring(target), 2)
  end
  if u.bombarded == viktory.turn_key() then
    viktory.violation(u.id .. " made a bombard attack this turn and cannot move afterwards", 2)
  end
  turn.enter_phase("battle", 2)
  u.attacking = nil
  u.moving_in = viktory.turn_key() .. "@" .. viktory.hex_key(target)
  viktory.take_shots()
  return viktory.moved(turn.step(u, { target }))
end

-- [Ours] Extra dice the defender rolls each round on hex h: its own town
-- or city, and forest or mountain terrain (they add up).
function battle.defence_dice(h, side)
  local n = 0
  local s = viktory.settlement(h, side)
  if s ~= nil then
    n += s.type == "city" and params.battle.city_dice or params.battle.town_dice
  end
  local p = viktory.terrain_info(h).defence_param
  if p ~= nil then
    n += params.battle[p] or 0
  end
  return n
end

local function alive_only(list)
  local out = {}
  for _, u in ipairs(list) do
    if u.alive then
      table.insert(out, u)
    end
  end
  return out
end

local function count_type(list, kind)
  local n = 0
  for _, u in ipairs(list) do
    if u.type == kind then
      n += 1
    end
  end
  return n
end

-- [Base][ArtDice] Resolves the battle on hex `target` between the current
-- player's units there (attackers) and the enemy's (defenders):
--   1. pre-battle fire: every artillery in the hex rolls
--      battle.artillery_dice; both sides roll before losses are taken, and
--      with battle.artillery_selective the firer picks every casualty;
--   2. rounds until one side has no units: one die per unit, the defender
--      adds battle.defence_dice; a die of viktory.selective_max or less is
--      a Tactical Victory (the firer picks), other hits the owner places.
-- If the attackers win, the defender's town or city there becomes theirs.
-- Returns a record: winner, rounds, lost, lines.
function battle.resolve(target)
  local side = world:current_side()
  local rec = record("battle", target, side)
  local enemy = holder(target, side)
  rec.defender = enemy
  local att = viktory.units_at(target, { side = side, military = true })
  local def = enemy and viktory.units_at(target, { side = enemy, military = true }) or {}
  for _, u in ipairs(viktory.units_at(target, { side = side })) do
    u.attacking, u.moving_in = nil, nil
  end
  rec.rounds = 0
  if #att > 0 and #def > 0 and params.battle.prebattle_units == "artillery" then
    local na = count_type(att, "artillery") * params.battle.artillery_dice
    local nd = count_type(def, "artillery") * params.battle.artillery_dice
    local ha, sa = viktory.roll(na, "pre-battle fire by " .. side)
    local hd, sd = viktory.roll(nd, "pre-battle fire by " .. enemy)
    if params.battle.artillery_selective then
      sa, sd = ha, hd
    end
    local la = viktory.take_losses{ units = def, hits = ha, selective = sa, firer = side, owner = enemy, reason = "pre-battle fire" }
    local ld = viktory.take_losses{ units = att, hits = hd, selective = sd, firer = enemy, owner = side, reason = "pre-battle fire" }
    rec.prebattle = { attacker_dice = na, attacker_hits = ha, defender_dice = nd, defender_hits = hd }
    if na + nd > 0 then
      note(rec, "pre-battle fire: " .. side .. " " .. na .. " dice, " .. ha .. " hits; " .. enemy .. " " .. nd .. " dice, " .. hd .. " hits")
    end
    for _, u in ipairs(la) do
      table.insert(rec.lost, u.id)
    end
    for _, u in ipairs(ld) do
      table.insert(rec.lost, u.id)
    end
    att, def = alive_only(att), alive_only(def)
  end
  while #att > 0 and #def > 0 do
    local bonus = battle.defence_dice(target, enemy)
    -- Rounds without a hit change nothing: viktory.roll_round rolls again
    -- until one hits (under exact, rec.rounds counts only rounds with hits).
    local first = rec.rounds + 1
    local ha, sa, hd, sd, tries = viktory.roll_round(#att, #def + bonus, function(round, pool)
      return "battle round " .. (first + round - 1) .. " " .. (pool == 1 and side or enemy)
    end)
    rec.rounds += tries or 1
    if rec.rounds > first then
      note(rec, "rounds " .. first .. "-" .. (rec.rounds - 1) .. ": no hits")
    end
    local la = viktory.take_losses{ units = def, hits = ha, selective = sa, firer = side, owner = enemy, reason = "battle round " .. rec.rounds }
    local ld = viktory.take_losses{ units = att, hits = hd, selective = sd, firer = enemy, owner = side, reason = "battle round " .. rec.rounds }
    note(rec, "round " .. rec.rounds .. ": " .. side .. " " .. #att .. " dice, " .. ha .. " hits; "
      .. enemy .. " " .. (#def + bonus) .. " dice, " .. hd .. " hits")
    for _, u in ipairs(la) do
      table.insert(rec.lost, u.id)
    end
    for _, u in ipairs(ld) do
      table.insert(rec.lost, u.id)
    end
    att, def = alive_only(att), alive_only(def)
  end
  if #att > 0 and #def == 0 then
    rec.winner = side
    for _, s in ipairs(viktory.units_at(target, { other_than = side })) do
      local kind = s.type
      if kind == "town" or kind == "city" then
        world:eliminate(s, "captured by " .. side)
        local n = 1
        while world:unit(side .. "_" .. kind .. "_" .. n) ~= nil do
          n += 1
        end
        world:add_unit{ id = side .. "_" .. kind .. "_" .. n, side = side, type = kind, hex = target }
        note(rec, side .. " captures the " .. kind .. " at " .. tostring(target))
      end
    end
  else
    rec.winner = enemy
  end
  note(rec, "battle at " .. tostring(target) .. ": " .. tostring(rec.winner or "nobody") .. " holds it")
  return rec
end

-- [Base] Declares, moves in every attacker in the order given, resolves.
--   battle.attack{target=hex, attackers={...}, paths={id=path}}
-- The record's `overwatch` lists the shots the approaches and move-ins
-- triggered (it prints them first).
function battle.attack(a)
  local fired = {}
  local function keep(list)
    for _, s in ipairs(list or {}) do
      table.insert(fired, s)
    end
  end
  local standing, shots = declare(a, 3)
  keep(shots)
  for _, u in ipairs(standing) do
    if u.alive then
      local _, more = battle.move_in(u)
      keep(more)
    end
  end
  local rec = battle.resolve(a.target)
  return with_shots(rec, fired)
end

return battle
