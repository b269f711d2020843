-- rulesets/tricorne/leaders.lua — leaders in Tricorne combat [Base].
--
-- How leaders are modelled. The core has one leader field per unit
-- (`u.leader`, a name; the map shows `*`) and nothing for a leader alone in a
-- hex. So:
--   * an attached leader is the unit's `leader` field, holding the leader's id;
--   * a lone leader is a unit of type `leader` (class leader, 1 block) on its
--     hex: it obstructs line of sight like any unit and can be fired on or
--     attacked in melee;
--   * attaching takes the leader unit off the map (world:place(l, nil): not
--     alive, still known by id) and sets the host's `leader`; detaching puts
--     it back on a hex (or creates it, for a leader named only in a scenario's
--     `leader:` field).
--
-- Numbers (params.leaders) are ours: the leader casualty check of the game
-- is not among the documents (C&C pattern: two dice, two sabres).

local tricorne = require("tricorne")
local cc = require("lib/cc")
local rules = require("lib/rules")

local leaders = {}

-- Attaches lone leader `l` to unit `u` (same side, `u` without a leader).
function leaders.attach(u, l)
  if u.leader ~= nil then
    rules.violation(u.id .. " already has leader " .. u.leader .. " attached", 2)
  end
  if l.side ~= u.side then
    rules.violation("leader " .. l.id .. " cannot attach to an enemy unit", 2)
  end
  world:place(l, nil)
  u.leader = l.id
  world:note("leader " .. l.id .. " attaches to " .. u.id)
end

-- The leader unit attached to `u` (created when the scenario named it only).
local function leader_unit(u, at)
  local id = u.leader
  local l = world:unit(id)
  if l == nil then
    l = world:add_unit{ id = id, side = u.side, type = "leader" }
  end
  return l
end

-- Detaches `u`'s leader and stands it alone on hex `at` (free). Returns the leader unit.
function leaders.detach(u, at)
  local l = leader_unit(u)
  u.leader = nil
  if l.strength < 1 then
    l.strength = 1
  end
  world:place(l, at)
  return l
end

-- Removes `u`'s attached leader as a casualty: banner to by_side.
local function lose_attached(u, by_side, reason)
  local id = u.leader
  u.leader = nil
  local l = world:unit(id)
  if l ~= nil and l.strength > 0 then
    world:eliminate(l, reason)
  end
  world:note("leader " .. id .. " of " .. u.id .. " is a casualty")
  if params.leaders.banner then
    tricorne.banner(by_side, reason)
  end
end

-- Rolls a casualty check of n dice needing `need` sabres; returns fell, roll.
local function check(n, need, reason)
  local roll = tricorne.roll(n, reason)
  return tricorne.count(roll, "sabre") >= need, roll
end

-- [Base] A lone leader retreats `hexes` towards his baseline (ignoring
-- flags); he may stop on a friendly unit without a leader and attach to it.
-- A leader who cannot retreat is captured (eliminated, a banner). Returns
-- "retreated", "attached" or "captured".
function leaders.retreat_lone(l, hexes, by_side, reason)
  local dirs = cc.retreat_directions(l.side)
  for _ = 1, hexes do
    local options = {}
    for _, d in ipairs(dirs) do
      local h = l.hex + cc.DIR[d]
      if world:on_map(h) and not tricorne.terrain(h).impassable then
        local v = world:unit_at(h)
        if v == nil or (v.side == l.side and v.leader == nil and not tricorne.is_lone_leader(v)) then
          table.insert(options, h)
        end
      end
    end
    if #options == 0 then
      world:eliminate(l, reason .. ": leader cannot retreat")
      if params.leaders.banner then
        tricorne.banner(by_side, reason)
      end
      return "captured"
    end
    local to = options[1]
    if #options > 1 then
      to = decide{ side = l.side, prompt = "retreat leader " .. l.id .. " from " .. tostring(l.hex) .. " to",
        options = options, default = options[1], id = "tricorne.leader_retreat" }
    end
    local host = world:unit_at(to)
    if host ~= nil then
      leaders.attach(host, l)
      return "attached"
    end
    world:retreat(l, to)
  end
  return "retreated"
end

-- [Fire R6]/[Base] Leader casualty check, after unit `u` with an attached
-- leader took at least one hit, or lost its last block otherwise (a blocked
-- retreat, a failed rally check: retreat.lua). When the unit is eliminated
-- (`eliminated`, `at` = the hex it stood on) the check rolls fewer dice, and a
-- surviving leader stands alone on that hex and retreats (retreat_lone).
-- Returns a table { dice, faces, fell, outcome }.
function leaders.casualty_check(u, leader_id, by_side, eliminated, at, reason)
  local p = params.leaders
  local n, need = p.check_dice, p.check_sabres
  if eliminated then
    n, need = p.eliminated_check_dice, p.eliminated_check_sabres
  end
  reason = reason .. ": leader casualty check"
  local fell, roll = check(n, need, reason)
  local out = { leader = leader_id, dice = n, faces = tricorne.faces(roll), fell = fell }
  if eliminated then
    -- The unit is gone; its `leader` field still names him.
    if fell then
      lose_attached(u, by_side, reason)
      out.outcome = "casualty"
    else
      local l = leaders.detach(u, at)
      out.outcome = leaders.retreat_lone(l, p.lone_retreat, by_side, reason)
    end
  elseif fell then
    lose_attached(u, by_side, reason)
    out.outcome = "casualty"
  else
    out.outcome = "unhurt"
  end
  return out
end

-- [Fire R6] Ranged fire at a lone leader is a leader casualty check
-- (check_dice, check_sabres); flags do not move him. Returns the check table.
function leaders.fired_on(l, by_side, reason)
  local p = params.leaders
  local fell, roll = check(p.check_dice, p.check_sabres, reason .. ": fire at lone leader")
  local out = { leader = l.id, dice = p.check_dice, faces = tricorne.faces(roll), fell = fell, outcome = "unhurt" }
  if fell then
    world:eliminate(l, reason)
    if params.leaders.banner then
      tricorne.banner(by_side, reason)
    end
    out.outcome = "casualty"
  end
  return out
end

-- [Base] A lone leader attacked in melee: the attacker's melee roll
-- eliminates him with melee_sabres sabres (whatever the attacker's own
-- sabre rule); otherwise he retreats lone_retreat hexes, flags ignored.
-- Returns "casualty", "retreated", "attached" or "captured".
function leaders.meleed(l, roll, by_side, reason)
  if tricorne.count(roll, "sabre") >= params.leaders.melee_sabres then
    world:eliminate(l, reason)
    if params.leaders.banner then
      tricorne.banner(by_side, reason)
    end
    return "casualty"
  end
  return leaders.retreat_lone(l, params.leaders.lone_retreat, by_side, reason)
end

return leaders
