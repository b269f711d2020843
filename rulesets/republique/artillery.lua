-- rulesets/republique/artillery.lua — Republique artillery fire.
--
-- Implements chapter 3 of the Republique rules (shared/rules/
-- miniatures-artillery-fire.txt), the artillery parts, clause by clause;
-- each function names the part it implements:
--   [3.2]       Artillery Fire: the four steps, who may fire, arc of fire,
--               no fire through friends, simultaneous fire
--   [3.2 Save]  Saving Fire
--   [3.3]       Fire point modifiers (saved fire, enfilade, damaged, disordered+)
--   [3.4]       Die modifiers (deep target, artillery leader, cavalry, cover,
--               passing fire, skirmishers, elevation)
--   [3.5 Main]  Main targets and convergence
--   [3.5 Sec]   Secondary targets: tandem and adjacent
--   [3.5 Compound] Compound targets: the modifiers best for the battery
--   [3.5 Zone]  The frontage zone
--   [3.5 Pass]  Passing fire, as a reaction to moves (`leaves` events)
--   [3.2 Moves] How moves touch fire: moving, turning, limbering or
--               prolonging loses saved fire (moves.lua makes the moves)
-- The geometry (arcs, zones, what the centre of fire crosses) is the core's
-- `tabletop` API. Chart numbers are ruleset.yaml's illustrative ones.
--
-- At a prompt:
--   artillery.begin_phase()
--   artillery.fire{ battery = "fb1" }          -- or batteries = {"fb1", "fb2"}
--   artillery.end_phase()

local common = require("common")

local artillery = {}

local charts = ruleset.charts
local BRACKETS = charts.brackets

------------------------------------------------------------------------------
-- The charts, checked when the module loads
------------------------------------------------------------------------------

-- "2M1B" -> 2, 1; "-" -> 0, 0.
local function parse_result(s)
  if s == "-" then
    return 0, 0
  end
  local m, b = string.match(s, "^(%d*)M?(%d*)B?$")
  local morale = tonumber(string.match(s, "(%d+)M") or "0")
  local bases = tonumber(string.match(s, "(%d+)B") or "0")
  if (m == "" and b == "") or (morale == 0 and bases == 0) then
    return nil
  end
  return morale, bases
end

local ROWS = {}
do
  assert(type(BRACKETS) == "table" and #BRACKETS > 0, "ruleset.yaml charts.brackets: list the range brackets")
  for gun, ranges in pairs(charts.ranges) do
    local fp = charts.fire_points[gun]
    assert(#ranges == #BRACKETS, "charts.ranges." .. gun .. ": one range per bracket (" .. #BRACKETS .. ")")
    assert(fp and #fp == #BRACKETS, "charts.fire_points." .. gun .. ": one number per bracket")
    for i = 2, #ranges do
      assert(ranges[i] > ranges[i - 1], "charts.ranges." .. gun .. ": ranges must grow")
    end
  end
  local last = 0
  for i, row in ipairs(charts.artillery) do
    assert(type(row.points) == "number" and row.points > last,
      "charts.artillery row " .. i .. ": points must grow from row to row")
    assert(#row.results == 10, "charts.artillery row " .. i .. ": ten results, for a modified die of 1..10")
    local parsed = {}
    for d, cell in ipairs(row.results) do
      local m, b = parse_result(cell)
      assert(m, string.format("charts.artillery row %d, die %d: '%s' is not like 2M1B or -", i, d, tostring(cell)))
      parsed[d] = { morale = m, bases = b, text = cell }
    end
    ROWS[i] = { points = row.points, results = parsed }
    last = row.points
  end
end

-- [3.2 step 4] The chart row for a number of fire points (nil below the first).
function artillery.chart_row(points)
  local found = nil
  for _, row in ipairs(ROWS) do
    if points >= row.points then
      found = row
    end
  end
  return found
end

-- [3.2 step 4] The result for fire points and a modified die: below 1
-- nothing, above 10 as 10 (our reading of an open-ended chart).
function artillery.result(points, modified)
  local row = artillery.chart_row(points)
  if row == nil or modified < 1 then
    return { morale = 0, bases = 0, text = "-" }
  end
  return row.results[math.min(modified, 10)]
end

------------------------------------------------------------------------------
-- Batteries
------------------------------------------------------------------------------

local function battery(u, what)
  u = common.unit(u, what)
  if not common.is_battery(u) then
    error(string.format("%s: %s is a %s, not an artillery battery", what, u.id, u.type), 3)
  end
  return u
end

local function gun(b)
  return common.type_of(b).gun
end

local function where(u)
  local p = u.pos
  return string.format("%.3f,%.3f,%.3f", p.x, p.y, u.facing)
end

-- [3.2] Why a battery may not fire now, or nil when it may: limbered; shaken
-- or worse (undamaged); damaged with any morale hit (silenced until ordered);
-- already fired this player turn; saving fire; resting after passing fire.
function artillery.why_not(b)
  b = battery(b, "artillery.why_not")
  if b.limbered then
    return "limbered batteries may not fire"
  end
  if b.damaged and common.morale(b) ~= "normal" then
    return "damaged with morale hits: silenced until it is ordered again"
  end
  if common.morale_step(b) >= common.STEP.shaken then
    return "a battery that is shaken or worse may not fire"
  end
  if b.fired then
    return "a battery fires once each player turn"
  end
  if b.saving then
    return "it is saving its fire this phase"
  end
  if b.passing_rest then
    return "it conducted passing fire and may not fire this phase"
  end
  return nil
end

-- [3.2] The start of an artillery phase: batteries may fire again; a
-- battery that passed fire since the last phase sits this one out.
function artillery.begin_phase()
  for _, u in ipairs(world:units{}) do
    if common.is_battery(u) then
      u.fired = nil
      u.saving = nil
      u.passing_rest = u.passed_fire or nil
      u.passed_fire = nil
      u.began_step = common.morale(u) -- [3.3] the morale that halves its fire this phase
    end
    -- [3.6 Panic] who began the phase demoralized, unless the skirmish
    -- step opened the phase already
    if not u.phase_open then
      u.began_demoralized = common.morale(u) == "demoralized" or nil
    end
  end
end

-- [3.2 Save] Announces that an ordered, stationary battery in command saves
-- its fire: it may not fire this phase, and its next fire is doubled. One
-- saved fire marker at most; moving in any way (facing too) loses it.
function artillery.save_fire(b)
  b = battery(b, "artillery.save_fire")
  if common.morale(b) ~= "normal" then
    error(b.id .. " may not save fire: only an ordered battery may (it is " .. common.morale(b) .. ")", 2)
  end
  if b.moved then
    error(b.id .. " may not save fire: it must stay completely stationary", 2)
  end
  if b.in_command == false then
    error(b.id .. " may not save fire: it is out of command radius", 2)
  end
  if b.limbered then
    error(b.id .. " may not save fire: it is limbered", 2)
  end
  if b.passing_rest then
    error(b.id .. " may not save fire: batteries that passed fire get no saved fire from the phase they miss", 2)
  end
  if b.saved_fire and b.saved_at == where(b) then
    error(b.id .. " already has saved fire: one marker at most", 2)
  end
  b.saved_fire = true
  b.saving = true
  b.saved_at = where(b)
  world:note(b.id .. " saves its fire")
end

-- [3.2 Save] True when the battery still holds saved fire; a battery that
-- moved or turned since saving loses it here.
function artillery.has_saved_fire(b)
  b = battery(b, "artillery.has_saved_fire")
  if not b.saved_fire then
    return false
  end
  if b.saved_at ~= where(b) or b.moved then
    b.saved_fire = nil
    b.saved_at = nil
    world:note(b.id .. " moved and loses its saved fire")
    return false
  end
  return true
end

-- [3.2 Save] Involvement in an assault, primary or incidental contact: a
-- battery that still holds saved fire gives its side the assault bonus
-- (param saved_fire_assault_bonus, per battery; chapter 4's tactical bonus
-- is not in our text), and every participating battery loses saved fire.
-- Takes a battery or a list; returns the bonus and the ids that had it.
function artillery.assault_contact(list, contact)
  if contact ~= nil and contact ~= "primary" and contact ~= "incidental" then
    error("artillery.assault_contact: contact is \"primary\" or \"incidental\", not " .. tostring(contact), 2)
  end
  if type(list) ~= "table" or list.id then
    list = { list }
  end
  local bonus, with = 0, {}
  for _, b in ipairs(list) do
    b = battery(b, "artillery.assault_contact")
    if artillery.has_saved_fire(b) then
      bonus += params.artillery.saved_fire_assault_bonus
      table.insert(with, b.id)
      world:note(string.format("%s brings saved fire to the assault (%s contact): +%d", b.id,
        contact or "primary", params.artillery.saved_fire_assault_bonus))
    end
    b.saved_fire = nil
    b.saved_at = nil
    b.saving = nil
  end
  return bonus, with
end

-- [3.2 Moves] A battery that moves in any way (a leg of world:move, a turn
-- in place, limbering, prolonging) loses its saved fire at once.
on("leaves", function(u)
  if common.is_battery(u) and u.saved_fire then
    u.saved_fire = nil
    u.saved_at = nil
    world:note(u.id .. " moves and loses its saved fire")
  end
end)

------------------------------------------------------------------------------
-- Ranges and targets
------------------------------------------------------------------------------

-- [3.2 step 1] The range bracket (1 = nearest) of a target from a battery,
-- by the closest points of their bases, and the distance; nil beyond range.
function artillery.bracket(b, target)
  local ranges = charts.ranges[gun(b)]
  local d = tabletop.distance(b, target)
  for i, limit in ipairs(ranges) do
    if d <= limit + 1e-9 then
      return i, d
    end
  end
  return nil, d
end

local function enemy_targets(b)
  local out = {}
  for _, u in ipairs(world:units{}) do
    if u.side ~= b.side and u.pos and common.arm(u) ~= "leader" then
      table.insert(out, u)
    end
  end
  return out
end

-- [3.4 Cover] Artillery sees units only up to cover_depth_cm inside cover:
-- a base wholly inside a cover area even when grown by that depth on every
-- side is hidden.
function artillery.spotted(u)
  local grow = params.artillery.cover_depth_cm * 2
  for _, b in ipairs(tabletop.bases(u)) do
    local big = tabletop.base{ x = b.x, y = b.y, facing = b.facing, width = b.width + grow, depth = b.depth + grow }
    local hidden = false
    for _, a in ipairs(tabletop.cover(big)) do
      if a.cover and a.fraction >= 0.999 then
        hidden = true
      end
    end
    if not hidden then
      return true
    end
  end
  return false
end

-- How far the centre of fire of battery b (from mid, the middle of its
-- front edge) must swing from straight ahead to pass through the unit (0
-- when the straight line already does).
local function swing_to(b, u, ahead, mid)
  if ahead[u.id] then
    return 0
  end
  local best = 180
  for _, base in ipairs(tabletop.bases(u)) do
    local e = tabletop.edges(base)
    for _, p in ipairs({ e.front.a, e.front.b, e.rear.a, e.rear.b, base }) do
      best = math.min(best, tabletop.angle_between(tabletop.bearing(mid, p), b.facing))
    end
  end
  return best
end

-- [3.5 Main] Every enemy unit the battery could fire on: some of it inside
-- its arc of fire, in range, and spotted. Each entry: unit, bracket,
-- distance, swing (degrees from straight ahead), sorted into the main
-- target rule's order: closest bracket first, then (param main_target) the
-- least swing of the centre of fire, then the nearest.
-- hot: `spotted` (optional) keeps which units are spotted, for the batteries
-- of one massed fire (nothing moves between them).
function artillery.candidates(b, spotted)
  b = battery(b, "artillery.candidates")
  spotted = spotted or {}
  local arc = tabletop.arc_of_fire(b, params.artillery.arc)
  local front = tabletop.edges(b).front
  local mid = tabletop.point((front.a.x + front.b.x) / 2, (front.a.y + front.b.y) / 2)
  -- the units the straight-ahead centre of fire passes through
  local ahead = {}
  for _, c in ipairs(tabletop.through(tabletop.centre_line(b, b.facing, 500), { exclude = b })) do
    ahead[c.unit.id] = true
  end
  local out = {}
  for _, u in ipairs(enemy_targets(b)) do
    local bracket, d = artillery.bracket(b, u)
    if bracket and tabletop.area_in_arc(arc, u) > 1e-9 then
      if spotted[u] == nil then
        spotted[u] = artillery.spotted(u)
      end
      if spotted[u] then
        table.insert(out, { unit = u, bracket = bracket, distance = d, swing = swing_to(b, u, ahead, mid) })
      end
    end
  end
  local by_centre = params.artillery.main_target == "centre_line"
  table.sort(out, function(x, y)
    if x.bracket ~= y.bracket then
      return x.bracket < y.bracket
    end
    if by_centre and math.abs(x.swing - y.swing) > 1e-6 then
      return x.swing < y.swing
    end
    if math.abs(x.distance - y.distance) > 1e-9 then
      return x.distance < y.distance
    end
    return x.unit.id < y.unit.id
  end)
  return out
end

-- [3.5 Main] The unit a battery must fire on (nil when none).
function artillery.main_target(b)
  local c = artillery.candidates(b)
  return c[1] and c[1].unit or nil, c[1]
end

-- [3.4 Leader] The good artillery leader attached to the firing batteries:
-- an artillery officer rated 1 or better, attached to one of them, in the
-- chain of command (its `command`) of half or more of them; massed
-- batteries must touch one another.
function artillery.leader_for(batteries)
  for i = 2, #batteries do
    local touching = false
    for j = 1, #batteries do
      if j ~= i and tabletop.distance(batteries[i], batteries[j]) <= 0.01 then
        touching = true
      end
    end
    if not touching then
      return nil
    end
  end
  for _, l in ipairs(world:units{}) do
    if common.arm(l) == "leader" and l.artillery_officer and (l.rating or 0) >= 1 then
      local attached, in_chain = false, 0
      for _, b in ipairs(batteries) do
        if l.attached_to == b.id then
          attached = true
        end
        if l.command == nil or l.command == b.command then
          in_chain += 1
        end
      end
      if attached and in_chain * 2 >= #batteries then
        return l
      end
    end
  end
  return nil
end

------------------------------------------------------------------------------
-- Fire
------------------------------------------------------------------------------

local function clamp_bearing(b, bearing)
  local half = params.artillery.arc / 2
  local off = ((bearing - b.facing + 540) % 360) - 180
  off = math.max(-half, math.min(half, off))
  return (b.facing + off) % 360
end

-- The bearing of the centre of fire at a target: towards the middle of its
-- nearest base, swung no further than the arc allows.
local function aim(b, target)
  local e = tabletop.edges(b).front
  local mid = tabletop.point((e.a.x + e.b.x) / 2, (e.a.y + e.b.y) / 2)
  local best, bd = nil, math.huge
  for _, base in ipairs(tabletop.bases(target)) do
    local d = tabletop.distance(b, base)
    if d < bd then
      best, bd = base, d
    end
  end
  return clamp_bearing(b, tabletop.bearing(mid, best)), mid
end

-- [3.3 Enfilade] True when more than half of the battery's frontage lies in
-- the target's enfilade arc, aligned to the target's edge nearest the
-- battery. Squares are always enfiladed; a unit in full cover never is.
function artillery.enfilade(b, target)
  if common.cover(target).full then
    return false, "in full cover"
  end
  if target.formation == "square" then
    return true, "square"
  end
  local edge = tabletop.edge_towards(target, b)
  if edge == "front" and not params.artillery.enfilade_from_front then
    return false, "facing the battery"
  end
  local arc = tabletop.edge_arc(target, edge, params.artillery.arc)
  local f = tabletop.frontage_in_arc(arc, b)
  return f > 0.5 + 1e-9, string.format("%.0f%% of its frontage in the %s enfilade arc", f * 100, edge), arc, edge
end

-- [3.3] One battery's fire points against a target in a bracket, with the
-- point modifiers: saved fire x2, enfilade x2, damaged /2, disordered or
-- rattled /2 (cumulative). In the artillery phase the morale that counts is
-- the battery's when the phase began (a prolonged battery hit earlier in
-- the phase keeps its points); passing fire takes it as it stands.
function artillery.fire_points(b, target, bracket)
  local base = charts.fire_points[gun(b)][bracket]
  local points, why = base, { string.format("%s %s at %s range: %d", b.id, gun(b), BRACKETS[bracket], base) }
  if artillery.has_saved_fire(b) then
    points *= 2
    table.insert(why, "saved fire x2")
  end
  local enf, reason = artillery.enfilade(b, target)
  if enf then
    local f = params.artillery.enfilade_factor
    points *= f
    table.insert(why, string.format("enfilade x%g (%s)", f, reason))
  end
  if b.damaged then
    points /= 2
    table.insert(why, "damaged /2")
  end
  local m = artillery.in_phase and b.began_step or common.morale(b)
  if m == "disordered" or m == "rattled" then
    points /= 2
    table.insert(why, m .. " /2")
  end
  return points, table.concat(why, ", ")
end

-- [3.4 Deep] The centre of fire passes through deep_bases or more combat
-- bases in the main target's bracket, all in open terrain and none beyond an
-- obstacle (a river, a redoubt: terrain with `obstacle: true`). Returns
-- whether it does, and the units whose bases count.
function artillery.deep_target(b, bearing, bracket)
  local line = tabletop.centre_line(b, bearing, 500)
  local first_obstacle = math.huge
  for _, a in ipairs(tabletop.areas_crossed(line)) do
    if (ruleset.terrain[a.kind] or {}).obstacle then
      first_obstacle = math.min(first_obstacle, a.from)
    end
  end
  local count, units = 0, {}
  for _, c in ipairs(tabletop.through(line, { exclude = b })) do
    local u = c.unit
    if u.side ~= b.side and common.is_combat(u) then
      local base = tabletop.bases(u)[c.base]
      if artillery.bracket(b, base) == bracket then
        if not common.base_in_open(base) or c.from >= first_obstacle then
          return false, {}
        end
        count += 1
        units[u.id] = u
      end
    end
  end
  return count >= params.artillery.deep_bases, units
end

-- [3.5 Sec] Tandem and adjacent secondary targets of a fire: enemy units in
-- the frontage zone, in the main target's bracket. Tandem: behind the main
-- target (overlapping it across the line of fire) with its front no more
-- than tandem_cm behind the main target's front, in open terrain, not a
-- fully deployed light regiment. Adjacent: beside the main target (no
-- overlap across the line of fire) within adjacent_cm of it. Each list
-- nearest first.
function artillery.secondary_targets(b, main, zone, bracket)
  local rad = math.rad(zone.bearing)
  local fx, fy = math.cos(rad), math.sin(rad)
  local function along(p)
    return (p.x - zone.from.x) * fx + (p.y - zone.from.y) * fy
  end
  -- the unit's extent across the line of fire (lo, hi), and its nearest
  -- point along it
  local function extent(u)
    local lo, hi, near = math.huge, -math.huge, math.huge
    for _, base in ipairs(tabletop.bases(u)) do
      local e = tabletop.edges(base)
      for _, p in ipairs({ e.front.a, e.front.b, e.rear.a, e.rear.b }) do
        local v = -(p.x - zone.from.x) * fy + (p.y - zone.from.y) * fx
        lo, hi, near = math.min(lo, v), math.max(hi, v), math.min(near, along(p))
      end
    end
    return lo, hi, near
  end
  local mlo, mhi, main_along = extent(main)
  local seen, tandem, adjacent = { [main.id] = true }, {}, {}
  for _, c in ipairs(tabletop.through(zone, { exclude = b })) do
    local u = c.unit
    if not seen[u.id] and u.side ~= b.side and common.arm(u) ~= "leader" then
      seen[u.id] = true
      if artillery.bracket(b, u) == bracket then
        local lo, hi, near = extent(u)
        local overlaps = math.min(hi, mhi) - math.max(lo, mlo) > 1e-6
        local behind = near - main_along
        local deployed_light = common.type_of(u).light and (u.skirmishers_out or 0) >= u.strength
        if overlaps then
          if behind > 1e-9 and behind <= params.artillery.tandem_cm + 1e-9 and common.cover(u).open
            and not deployed_light and common.arm(u) ~= "skirmish" then
            table.insert(tandem, u)
          end
        elseif tabletop.distance(u, main) <= params.artillery.adjacent_cm + 1e-9 then
          table.insert(adjacent, u)
        end
      end
    end
  end
  return tandem, adjacent
end

-- Base hits a unit can lose to this fire: a battery two (damage, then
-- destruction), others their strength, less covered bases protected.
local function capacity(u, protected)
  if common.is_battery(u) then
    local pend = u.pending_bases or 0
    return math.max(0, (u.damaged and 1 or 2) - pend)
  end
  return math.max(0, u.strength - (protected or 0))
end

-- [3.2] Simultaneous fire: hits on batteries wait for end_phase unless the
-- battery prolonged in the preceding movement.
local function deferred(u)
  return common.is_battery(u) and not u.prolonged and artillery.in_phase
end

local function morale(u, hits, reason)
  if hits <= 0 then
    return
  end
  if deferred(u) then
    u.pending_morale = (u.pending_morale or 0) + hits
  else
    common.morale_hits(u, hits, reason)
  end
end

local function bases(u, hits, reason)
  if hits <= 0 then
    return
  end
  if deferred(u) then
    u.pending_bases = (u.pending_bases or 0) + hits
    return
  end
  local p = u.pos
  u.lost_x, u.lost_y = p.x, p.y -- [3.6] leaders near where it stood are at risk
  if common.is_battery(u) then
    if not u.damaged and hits == 1 then
      u.damaged = true
      world:note(u.id .. " is damaged (" .. reason .. ")")
      return
    end
    world:eliminate(u, reason)
    return
  end
  u.bases_lost = (u.bases_lost or 0) + math.min(hits, u.strength)
  world:hit(u, hits, reason)
end

-- [3.5 Sec] Shares a result between the main target and its secondary
-- targets: tandem targets take half the morale hits (rounded down) on top
-- of the main target's and half the base hits (rounded down) out of them;
-- once every base of the main target is killed, the base hits it cannot
-- take carry over to the tandem targets; once the main and tandem targets
-- are all destroyed, the closest adjacent target takes what is left, with
-- half the morale hits. `protected` covered bases cannot be killed (3.4
-- cover), so a main target that keeps them is not destroyed and passes
-- nothing on.
function artillery.distribute(main, tandem, adjacent, m, b, protected)
  protected = protected or 0
  local out = { [main.id] = { morale = m, bases = 0 } }
  local half_m, half_b = m // 2, b // 2
  local main_share = #tandem > 0 and b - half_b or b
  local take = math.min(main_share, capacity(main, protected))
  out[main.id].bases = take
  local destroyed = protected == 0 and take >= capacity(main)
  -- the tandem targets' half, and the balance once the main target is gone
  local left = destroyed and b - take or half_b
  for _, t in ipairs(tandem) do
    local share = math.min(left, capacity(t))
    out[t.id] = { morale = half_m, bases = share }
    left -= share
    destroyed = destroyed and share >= capacity(t)
  end
  if destroyed and adjacent[1] then
    local a = adjacent[1]
    local share = math.min(left, capacity(a))
    if share > 0 or half_m > 0 then
      out[a.id] = { morale = half_m, bases = share }
    end
  end
  return out
end

-- [3.5 Zone] The friendly unit in the battery's frontage zone (aimed at the
-- target) short of the target and inside its arc of fire, or nil; and the
-- bearing and zone of the fire.
function artillery.blocked_by(b, target)
  local bearing = aim(b, target)
  local zone = tabletop.frontage_zone(b, bearing, charts.ranges[gun(b)][#BRACKETS])
  local crossed = tabletop.through(zone, { exclude = b })
  local target_far = 0
  for _, c in ipairs(crossed) do
    if c.unit == target then
      target_far = math.max(target_far, c.to)
    end
  end
  local arc = tabletop.arc_of_fire(b, params.artillery.arc)
  for _, c in ipairs(crossed) do
    local base = c.unit.side == b.side and tabletop.bases(c.unit)[c.base]
    if base and c.from < target_far and common.arm(c.unit) ~= "leader" and tabletop.area_in_arc(arc, base) > 1e-6 then
      return c.unit, bearing, zone
    end
  end
  return nil, bearing, zone
end

-- [3.2] Fires one battery, or several massed batteries, at their main
-- target (or, with a good artillery leader, any unit in the closest
-- bracket; `target=`). Checks every restriction, totals and modifies the
-- fire points, rolls 1D10, applies the die modifiers, reads the chart and
-- applies the hits to the main and secondary targets. Returns a record.
-- spec: { battery= | batteries={...}, target=?, passing=bool?, quiet=bool? }
function artillery.fire(spec)
  local list = spec.batteries or { spec.battery }
  if #list == 0 then
    error("artillery.fire: give battery= or batteries=", 2)
  end
  local group = {}
  for i, b in ipairs(list) do
    group[i] = battery(b, "artillery.fire")
    local why = artillery.why_not(group[i])
    if why then
      error(string.format("artillery.fire: %s may not fire: %s", group[i].id, why), 2)
    end
  end
  local leader = artillery.leader_for(group)
  -- [3.5 Main] one target for the group
  local target = spec.target and common.unit(spec.target, "artillery.fire") or nil
  local spotted = {}
  for _, b in ipairs(group) do
    local cands = artillery.candidates(b, spotted)
    if #cands == 0 then
      error(string.format("artillery.fire: %s has no target in its arc of fire and range", b.id), 2)
    end
    local main = cands[1].unit
    if target == nil then
      target = main
    elseif target ~= main and not spec.passing then
      local allowed = false
      if leader then
        for _, c in ipairs(cands) do
          if c.unit == target and c.bracket == cands[1].bracket then
            allowed = true
          end
        end
      end
      if not allowed then
        error(string.format(
          "artillery.fire: %s must fire at its main target %s (the closest unit in the closest bracket, nearest its centre of fire), not %s%s",
          b.id, main.id, target.id, leader and "; its leader lets it choose only within the closest bracket" or ""), 2)
      end
    end
  end
  -- [3.5 Zone] the frontage zone must be free of friendly bases
  local rec = { target = target.id, batteries = {}, notes = {}, modifiers = {} }
  local points, bracket = 0, nil
  for _, b in ipairs(group) do
    local br = artillery.bracket(b, target)
    if br == nil then
      error(string.format("artillery.fire: %s is out of %s's range", target.id, b.id), 2)
    end
    bracket = bracket and math.min(bracket, br) or br
    local friend, bearing, zone = artillery.blocked_by(b, target)
    if friend then
      error(string.format("artillery.fire: %s may not fire through or over friendly %s (in its frontage zone)",
        b.id, friend.id), 2)
    end
    local p, why = artillery.fire_points(b, target, br)
    points += p
    table.insert(rec.notes, why)
    local entry = { id = b.id, bearing = bearing, zone = zone, points = p }
    if not spec.quiet then
      -- For the maps: the target's enfilade arc on the edge this battery sees.
      local _, _, arc, edge = artillery.enfilade(b, target)
      entry.enfilade_arc, entry.enfilade_edge = arc, edge
    end
    table.insert(rec.batteries, entry)
  end
  rec.points = math.floor(points + 1e-9)
  rec.bracket = BRACKETS[bracket]
  -- [3.4] die modifiers, from the first battery's centre of fire
  local lead = group[1]
  local first = rec.batteries[1]
  local mods, total = rec.modifiers, 0
  local function add(name, v)
    if v ~= 0 then
      table.insert(mods, { name = name, value = v })
      total += v
    end
  end
  -- [3.5 Sec] main and secondary targets (needed for compound targets)
  local tandem, adjacent = artillery.secondary_targets(lead, target, first.zone, bracket)
  local involved = { target }
  for _, t in ipairs(tandem) do table.insert(involved, t) end
  local cov = common.cover(target)
  local deep, deep_units = false, {}
  if cov.open then
    deep, deep_units = artillery.deep_target(lead, first.bearing, bracket)
  end
  if deep then
    add("deep target", 1)
    local counted = {}
    for _, u in ipairs(involved) do counted[u.id] = true end
    for id, u in pairs(deep_units) do
      if not counted[id] then table.insert(involved, u) end
    end
  end
  if leader then
    add("artillery leader " .. leader.id, 1)
  end
  -- [3.5 Compound] with several units targeted, the modifiers most
  -- favourable to the battery: cavalry counts by bases over the whole target,
  -- skirmishers only when every unit targeted is skirmishers.
  local cav, all_bases, all_skirmish = 0, 0, true
  for _, u in ipairs(involved) do
    all_bases += u.strength
    if common.arm(u) == "cavalry" then
      cav += u.strength
    end
    if not (common.arm(u) == "skirmish" or (common.type_of(u).light and (u.skirmishers_out or 0) >= u.strength)) then
      all_skirmish = false
    end
  end
  if cav * 2 > all_bases then
    add("cavalry", -1)
  end
  local protected = 0
  if cov.modifier ~= 0 then
    -- [3.4 Cover] unless the centre of fire is closest to uncovered bases
    local first_base = nil
    for _, c in ipairs(tabletop.through(tabletop.centre_line(lead, first.bearing, 500), { exclude = lead })) do
      if c.unit == target then
        first_base = first_base or tabletop.bases(target)[c.base]
      end
    end
    if first_base and #tabletop.cover(first_base) == 0 then
      for _, base in ipairs(tabletop.bases(target)) do
        if #tabletop.cover(base) > 0 then
          protected += 1
        end
      end
      table.insert(rec.notes, "centre of fire on uncovered bases: no cover modifier; covered bases cannot be killed")
    else
      add(cov.class .. " cover", cov.modifier)
    end
  end
  if spec.passing then
    add("passing fire", -2)
  end
  if all_skirmish then
    add("skirmishers", -2)
  end
  local levels = math.abs(tabletop.level(lead) - tabletop.level(target))
  if levels >= 1 then
    add("elevation", -math.floor(levels))
  end
  rec.die_modifier = total
  -- [3.2 steps 3-4]
  rec.roll = common.d10("artillery fire of " .. lead.id .. " at " .. target.id)
  rec.modified = rec.roll + total
  local res = artillery.result(rec.points, rec.modified)
  rec.result = res.text
  rec.morale_hits, rec.base_hits = res.morale, res.bases
  -- [3.6] a fire that could score a hit puts nearby leaders at risk
  local best = artillery.result(rec.points, 10 + total)
  rec.could_hit = (best.morale + best.bases) > 0
  for _, bt in ipairs(rec.batteries) do
    bt.reach = tabletop.distance(world:unit(bt.id), target) + 10
  end
  rec.tandem, rec.adjacent = {}, {}
  for _, t in ipairs(tandem) do table.insert(rec.tandem, t.id) end
  for _, a in ipairs(adjacent) do table.insert(rec.adjacent, a.id) end
  rec.hits = artillery.distribute(target, tandem, adjacent, res.morale, res.bases, protected)
  local reason = "artillery fire of " .. lead.id
  for id, h in pairs(rec.hits) do
    local u = world:unit(id)
    morale(u, h.morale, reason)
    bases(u, h.bases, reason)
    if rec.could_hit then
      u.fired_upon = true
    end
  end
  if rec.could_hit then
    target.fired_upon = true
  end
  for _, b in ipairs(group) do
    b.fired = true
    if b.saved_fire then
      b.saved_fire = nil
      b.saved_at = nil
    end
  end
  if not spec.quiet then
    tabletop.clear_marks()
    local enfilade_marked = {}
    for _, b in ipairs(rec.batteries) do
      local u = world:unit(b.id)
      tabletop.mark(tabletop.arc_of_fire(u, params.artillery.arc), b.id .. " arc of fire")
      tabletop.mark(b.zone, b.id .. " frontage zone")
      tabletop.mark(tabletop.centre_line(u, b.bearing, b.reach), b.id .. " centre of fire")
      local edge = b.enfilade_edge
      if b.enfilade_arc and not enfilade_marked[edge] then
        enfilade_marked[edge] = true
        tabletop.mark(b.enfilade_arc, rec.target .. " " .. edge .. " enfilade arc")
      end
    end
    world:note(string.format("%s fire at %s (%s range): %d points, die %d%+d = %d: %s", lead.id, target.id,
      rec.bracket, rec.points, rec.roll, total, rec.modified, rec.result))
  end
  return setmetatable(rec, { __tostring = function(r)
    return string.format("%s -> %s: %d points, die %d (%+d) = %d: %s", table.concat((function()
      local ids = {}
      for _, b in ipairs(r.batteries) do table.insert(ids, b.id) end
      return ids
    end)(), "+"), r.target, r.points, r.roll, r.die_modifier, r.modified, r.result)
  end })
end

-- [3.5 Pass] Passing fire at an enemy unit moving across the battery's
-- front (its move more than 45 degrees from the perpendicular of the
-- battery's front) that spent passing_infantry_cm (cavalry:
-- passing_cavalry_cm) of its move inside the arc of fire. -2 on the die; a
-- battery saving fire may not; the battery then misses the next artillery
-- phase and gains no saved fire from it.
-- spec: { battery=, target=, from=, to= } with the mover's path from one
-- point to another (its bearing, and the length of it inside the arc of
-- fire, are measured), or { battery=, target=, move_bearing=, in_arc_cm= }.
function artillery.passing_fire(spec)
  local b = battery(spec.battery, "artillery.passing_fire")
  local target = common.unit(spec.target, "artillery.passing_fire")
  if spec.from and spec.to then
    local arc = tabletop.arc_of_fire(b, params.artillery.arc)
    spec.move_bearing = tabletop.bearing(spec.from, spec.to)
    spec.in_arc_cm = tabletop.segment_in_arc(arc, spec.from, spec.to) * tabletop.distance(spec.from, spec.to)
  end
  if spec.move_bearing == nil or spec.in_arc_cm == nil then
    error("artillery.passing_fire: give the move as from= and to= points, or move_bearing= and in_arc_cm=", 2)
  end
  if b.saving or artillery.has_saved_fire(b) then
    error(b.id .. " is saving fire and may not use passing fire", 2)
  end
  local off = math.min(tabletop.angle_between(spec.move_bearing, b.facing),
    tabletop.angle_between(spec.move_bearing, b.facing + 180))
  if off <= 45 then
    error(string.format("passing fire: %s is not moving across %s's front (%.0f degrees from perpendicular, needs more than 45)",
      target.id, b.id, off), 2)
  end
  local need = common.arm(target) == "cavalry" and params.artillery.passing_cavalry_cm or params.artillery.passing_infantry_cm
  if spec.in_arc_cm < need then
    error(string.format("passing fire: %s moved %.1f cm inside %s's arc of fire; needs %d", target.id,
      spec.in_arc_cm, b.id, need), 2)
  end
  local was = artillery.in_phase
  artillery.in_phase = false
  local ok, rec = pcall(artillery.fire, { battery = b, target = target, passing = true, quiet = spec.quiet })
  artillery.in_phase = was
  if not ok then
    error(rec, 2)
  end
  b.fired = nil
  b.passed_fire = true
  return rec
end

-- [3.5 Pass] How far a move's bearing is from the perpendicular of the
-- battery's front (0: straight at or away from it; 90: along it).
local function off_perpendicular(b, bearing)
  return math.min(tabletop.angle_between(bearing, b.facing), tabletop.angle_between(bearing, b.facing + 180))
end

-- On each battery, per moving unit (property "passing:<id>"): cm of this
-- turn's movement inside its arc of fire, or true once offered passing
-- fire. Kept on the world, so copies, undo and sim trials see it.
local function track_key(u)
  return "passing:" .. u.id
end

local function clear_tracks(b)
  for name in pairs(b.props) do
    if string.sub(name, 1, 8) == "passing:" then
      b:set(name, nil)
    end
  end
end

-- [3.5 Pass] May battery b pass fire at u now: it may fire, holds no saved
-- fire, has not passed fire this turn, and u is in its arc, in range and
-- with no friend in the way.
function artillery.may_pass_fire(b, u)
  if artillery.why_not(b) or b.saving or b.passed_fire or artillery.has_saved_fire(b) then
    return false
  end
  local bracket = artillery.bracket(b, u)
  if bracket == nil or tabletop.area_in_arc(tabletop.arc_of_fire(b, params.artillery.arc), u) <= 1e-9 then
    return false
  end
  return artillery.blocked_by(b, u) == nil
end

-- [3.5 Pass] The point along a leg from `from` to `to` (length len) where
-- `want` cm of it have lain inside the arc.
local function point_after(arc, from, to, len, want)
  local function at(f)
    return tabletop.point(from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f)
  end
  local lo, hi = 0, 1
  for _ = 1, 40 do
    local mid = (lo + hi) / 2
    if tabletop.segment_in_arc(arc, from, at(mid)) * len * mid >= want then
      hi = mid
    else
      lo = mid
    end
  end
  local p = at(hi)
  return { x = p.x, y = p.y, facing = to.facing }
end

-- [3.5 Pass] Passing fire as a reaction to movement. world:move fires
-- `leaves` after each leg of a tabletop move with the leg's two ends. For
-- an enemy infantry or cavalry unit, every leg across a battery's front
-- (more than 45 degrees from perpendicular) adds its length inside the
-- battery's arc of fire; once this turn's movement has spent
-- passing_infantry_cm (cavalry: passing_cavalry_cm) there, the battery's
-- side decides (id "artillery.passing_fire", default "hold") whether to
-- pass fire at the unit where it stood when the need was reached (the unit
-- is put there for the fire, then goes on to the leg's end; if the battery
-- could not fire there, where the leg ends). Once per battery and mover.
function artillery.on_leg(u, from, to)
  local arm = common.arm(u)
  if type(from) ~= "table" or from.x == nil or (arm ~= "infantry" and arm ~= "cavalry") then
    return
  end
  local len = tabletop.distance(tabletop.point(from.x, from.y), tabletop.point(to.x, to.y))
  if len < 1e-9 then
    return
  end
  local bearing = tabletop.bearing(from, to)
  local need = arm == "cavalry" and params.artillery.passing_cavalry_cm or params.artillery.passing_infantry_cm
  local key = track_key(u)
  for _, b in ipairs(world:units{}) do
    if common.is_battery(b) and b.side ~= u.side and b:get(key) ~= true and off_perpendicular(b, bearing) > 45 then
      local arc = tabletop.arc_of_fire(b, params.artillery.arc)
      local before = b:get(key) or 0
      local cm = before + tabletop.segment_in_arc(arc, from, to) * len
      b:set(key, cm)
      if cm >= need - 1e-9 then
        -- where the mover stood when it reached the need, if within this leg
        local spot = before < need - 1e-9 and point_after(arc, from, to, len, need - before) or nil
        if spot then
          world:place(u, spot)
        end
        local may = artillery.may_pass_fire(b, u)
        if spot and not may then
          world:place(u, to)
          spot = nil
          may = artillery.may_pass_fire(b, u)
        end
        if may then
          b:set(key, true)
          local choice = decide{ side = b.side, id = "artillery.passing_fire", default = "hold",
            options = { "fire", "hold" },
            prompt = string.format("%s may pass fire at %s (%.1f cm of its move inside the arc): fire or hold?",
              b.id, u.id, spot and need or cm) }
          if choice == "fire" then
            artillery.passing_fire{ battery = b, target = u, move_bearing = bearing, in_arc_cm = spot and need or cm }
            if not u.alive then
              return
            end
          end
        end
        if spot then
          world:place(u, to)
        end
      end
    end
  end
end

on("leaves", function(u, from, to)
  artillery.on_leg(u, from, to)
end)

-- A new player turn (its command phase): batteries may fire again, moves
-- and passing fire count afresh.
function artillery.new_turn()
  for _, u in ipairs(world:units{}) do
    u.moved = nil
    if common.is_battery(u) then
      u.fired = nil
      clear_tracks(u)
    end
  end
end

-- [3.2] Opens the artillery fire segment: see begin_phase; hits on
-- batteries wait until end_phase.
local begin = artillery.begin_phase
function artillery.begin_phase()
  begin()
  for _, u in ipairs(world:units{}) do
    if common.is_battery(u) then
      clear_tracks(u)
    end
  end
  artillery.in_phase = true
end

-- [3.2] Ends the segment: damage and morale hits on batteries, held back
-- for simultaneous fire, take effect now.
function artillery.end_phase()
  artillery.in_phase = false
  for _, u in ipairs(world:units{}) do
    u.prolonged = nil -- it counted for the phase after the movement only
    u.began_step = nil
    local m, b = u.pending_morale or 0, u.pending_bases or 0
    u.pending_morale, u.pending_bases = nil, nil
    if m > 0 then
      common.morale_hits(u, m, "artillery fire this phase")
    end
    if b > 0 then
      if not u.damaged and b == 1 then
        u.damaged = true
        world:note(u.id .. " is damaged (artillery fire this phase)")
      else
        u.lost_x, u.lost_y = u.pos.x, u.pos.y -- [3.6] leaders near where it stood are at risk
        world:eliminate(u, "artillery fire this phase")
      end
    end
  end
end

return artillery
