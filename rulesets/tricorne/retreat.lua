-- rulesets/tricorne/retreat.lua — retreats and rally checks [Base].
--
-- The Jacobite Rising retreat rules as research base-rules.md §2 reports
-- them (game): hexes per flag by unit type; always towards the unit's own
-- baseline, never sideways or forwards; never onto or through another unit
-- or an enemy leader; onto a lone friendly leader, who attaches and ends the
-- retreat; impassable terrain and the map's limits block; each hex not taken
-- costs a block; a rally check follows every retreat, even one that could
-- not move. The rally check itself is ours (params.rally): its numbers are
-- not published in the documents.
--
-- Retreat steps use lib/cc's directions (towards the baseline: two hex
-- directions for a top or bottom baseline) and world:retreat, so
-- `enters`/`leaves` reactions see each step. The owner chooses between two
-- free hexes (decision id "tricorne.retreat").

local tricorne = require("tricorne")
local leaders = require("leaders")
local cc = require("lib/cc")

local retreat = {}

-- [Base] Flags unit `u` may ignore: its type's ignore_flags (highland:
-- ignore_flags_full, only at full strength), an attached leader's
-- (params.retreat.leader_ignores_flags) and its hex's terrain (ignore_flags).
function retreat.ignorable(u)
  local s = tricorne.stats(u)
  local n = s.ignore_flags or 0
  if s.ignore_flags_full and u.strength == u.max_strength then
    n += s.ignore_flags_full
  end
  if u.leader ~= nil then
    n += params.retreat.leader_ignores_flags
  end
  local _, terrain_ignore = cc.terrain_effects(u.hex)
  return n + terrain_ignore
end

-- [Base] Hexes per flag for a unit's type.
function retreat.per_flag(u)
  return tricorne.stats(u).retreat or 1
end

-- [Base] Blocks `u` loses outside its roll's hits: a retreat it cannot make,
-- a failed rally check. By default they are no hits, so no leader casualty
-- check follows them (ranged-combat.txt R6 ties the check to a hit;
-- params.leaders.check_on_lost_blocks reads them as hits); but when they
-- take the last block, an attached leader does not vanish with the unit: he
-- makes the check of a leader whose unit is eliminated
-- (leaders.casualty_check) and, surviving, stands alone and retreats.
-- Returns removed, and the leader's check (or nil).
local function lose_blocks(u, n, by_side, reason)
  local at, leader = u.hex, u.leader
  local removed, eliminated = tricorne.hit(u, n, by_side, reason)
  if leader ~= nil and (eliminated or params.leaders.check_on_lost_blocks) then
    return removed, leaders.casualty_check(u, leader, by_side, eliminated, at, reason)
  end
  return removed, nil
end

-- The hexes one retreat step from `u` may enter.
local function steps(u)
  local options = {}
  for _, d in ipairs(cc.retreat_directions(u.side)) do
    local h = u.hex + cc.DIR[d]
    if world:on_map(h) and not tricorne.terrain(h).impassable then
      local v = world:unit_at(h)
      if v == nil then
        table.insert(options, h)
      elseif u.leader == nil and v.side == u.side and tricorne.is_lone_leader(v) then
        table.insert(options, h) -- a lone friendly leader: he attaches, the retreat ends
      end
    end
  end
  return options
end

-- [Base] Moves `u` up to `hexes` hexes back, one at a time. A step with no
-- hex to take ends the retreat; with params.retreat.blocked = lose_block
-- every hex not taken costs a block (banner to by_side for the last; the
-- attached leader's check, lose_blocks).
-- Returns moved, lost, attached (the leader who joined, or nil), and the
-- leader's casualty check (or nil).
function retreat.move(u, hexes, by_side, reason)
  local moved, lost = 0, 0
  for step = 1, hexes do
    local options = steps(u)
    if #options == 0 then
      if params.retreat.blocked == "lose_block" then
        local check
        lost, check = lose_blocks(u, hexes - step + 1, by_side, reason .. ": retreat blocked")
        return moved, lost, nil, check
      end
      break
    end
    local to = options[1]
    if #options > 1 then
      to = decide{ side = u.side, prompt = "retreat " .. u.id .. " from " .. tostring(u.hex) .. " to",
        options = options, default = options[1], id = "tricorne.retreat" }
    end
    local l = world:unit_at(to)
    if l ~= nil then
      world:place(l, nil) -- the leader joins: off the hex, then attached below
    end
    if not world:retreat(u, to) then
      break -- a reaction stopped or eliminated the unit
    end
    moved += 1
    if l ~= nil then
      leaders.attach(u, l)
      world:note(u.id .. "'s retreat ends on its new leader's hex")
      return moved, lost, l.id
    end
  end
  return moved, lost, nil
end

-- [Base] Rally check (ours): roll params.rally.dice, plus the type's
-- `rally` modifier, plus leader_bonus with an attached leader. The unit
-- rallies when a die shows one of params.rally.symbols; otherwise it loses
-- params.rally.fail_blocks blocks (and the attached leader's check,
-- lose_blocks). No dice: the check fails.
-- Returns { dice, faces, passed, lost, leader_check }.
function retreat.rally_check(u, by_side, reason)
  local p = params.rally
  local n = p.dice + (tricorne.stats(u).rally or 0)
  if u.leader ~= nil then
    n += p.leader_bonus
  end
  if n < 0 then
    n = 0
  end
  local roll = tricorne.roll(n, reason .. ": rally check " .. u.id)
  local passed = false
  for sym in string.gmatch(p.symbols, "[^+%s]+") do
    if tricorne.count(roll, sym) > 0 then
      passed = true
    end
  end
  local lost, check = 0, nil
  if not passed and p.fail_blocks > 0 then
    lost, check = lose_blocks(u, p.fail_blocks, by_side, reason .. ": rally check failed")
  end
  return { dice = n, faces = tricorne.faces(roll), passed = passed, lost = lost, leader_check = check }
end

-- [Fire R7]/[Base] Flags against `u` (after its hits): it ignores what it
-- may, retreats per_flag hexes for each other flag (retreat.move), then —
-- moved or blocked — takes a rally check. Returns a table:
--   { flags, ignored, hexes, moved, lost (to the blocked retreat),
--     attached (leader id), rally (rally_check's table, with the leader's
--     check its failure made), left (left its hex), leader_check (the
--     attached leader's check the blocked retreat made, lose_blocks) }.
function retreat.flags(u, flags, by_side, reason)
  local out = { flags = flags, ignored = 0, hexes = 0, moved = 0, lost = 0, left = false }
  if flags <= 0 or not u.alive then
    return out
  end
  local ignore = math.min(flags, retreat.ignorable(u))
  out.ignored = ignore
  local n = flags - ignore
  if n <= 0 then
    return out
  end
  out.hexes = n * retreat.per_flag(u)
  local from = u.hex
  out.moved, out.lost, out.attached, out.leader_check = retreat.move(u, out.hexes, by_side, reason)
  out.left = not u.alive or u.hex ~= from
  if u.alive then
    out.rally = retreat.rally_check(u, by_side, reason)
  end
  return out
end

-- [Base] Retire and rally: the unit moves params.retire.hexes back
-- (blocked hexes cost blocks as a retreat's do), then takes a rally check.
function retreat.retire(u, by_side, reason)
  local out = { hexes = params.retire.hexes }
  local from = u.hex
  out.moved, out.lost, out.attached, out.leader_check = retreat.move(u, out.hexes, by_side, reason .. ": retire and rally")
  out.left = not u.alive or u.hex ~= from
  if u.alive then
    out.rally = retreat.rally_check(u, by_side, reason .. ": retire and rally")
  end
  return out
end

return retreat
