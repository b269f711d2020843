-- rulesets/republique/targets.lua — the geometry of Republique artillery
-- targets: what a battery sees and may fire at, where its centre of fire
-- and frontage zone go, and which units are hit with the main target.
--
-- Implements parts of chapter 3 of the Republique rules (shared/rules/
-- miniatures-artillery-fire.txt); each function names the clause:
--   [3.2]       the 60-degree arc of fire, range brackets, no fire through
--               or over friendly units
--   [3.3 Enfilade] the enfilade arc on the target's flank (slid flush with
--               its rear edges for a battery to the rear)
--   [3.4 Deep]  what the centre of fire passes through
--   [3.4 Cover] spotting only half an inch into cover
--   [3.5 Main]  the main target: the closest bracket, then the unit
--               nearest the centre of fire
--   [3.5 Sec]   tandem and adjacent secondary targets
--   [3.5 Zone]  the frontage zone
-- Every judgement is made from the bases' own edges (a target's front, a
-- unit beside it, a friend beyond it), never from how far the centre of
-- fire happened to swing, and every comparison allows common.TOL, so a
-- scene turned by any angle or mirrored gives the same answers.
-- artillery.lua re-exports these functions under the same names.

local common = require("common")

local targets = {}

local charts = ruleset.charts
local BRACKETS = charts.brackets
local TOL = common.TOL

local function gun(b)
  return common.type_of(b).gun
end

-- The corners worked out for each base from tabletop.bases (keys weak: a
-- base the core no longer keeps goes). Such a base is read-only and a unit
-- that moves, turns or loses a base gets new ones, so its corners never
-- change: a fire asks for the same corners many times, and every trial of
-- a `sim` again.
local kept_corners = setmetatable({}, { __mode = "k" })

-- The four corners of a base table (front-left, front-right, rear-right,
-- rear-left), as the core lays them out. Read-only: copy to change.
local function corners(b)
  local kept = kept_corners[b]
  if kept then
    return kept
  end
  local r = math.rad(b.facing)
  local fx, fy = math.cos(r), math.sin(r)
  local rx, ry = -fy, fx
  local h, w = b.depth / 2, b.width / 2
  local x, y = b.x, b.y
  local list = {
    { x = x + fx * h - rx * w, y = y + fy * h - ry * w },
    { x = x + fx * h + rx * w, y = y + fy * h + ry * w },
    { x = x - fx * h + rx * w, y = y - fy * h + ry * w },
    { x = x - fx * h - rx * w, y = y - fy * h - ry * w },
  }
  if table.isfrozen(b) then
    for _, c in ipairs(list) do
      table.freeze(c)
    end
    kept_corners[b] = table.freeze(list)
  end
  return list
end
targets.corners = corners

-- A frame at point `o` looking along bearing `deg`: maps a point to (how
-- far ahead, how far to the right).
local function frame(o, deg)
  local r = math.rad(deg)
  local fx, fy = math.cos(r), math.sin(r)
  return function(p)
    local dx, dy = p.x - o.x, p.y - o.y
    return dx * fx + dy * fy, dy * fx - dx * fy
  end
end
targets.frame = frame

-- The middle of a battery's front edge, where its centre of fire starts.
function targets.front_mid(b)
  local e = tabletop.edges(b).front
  return tabletop.point((e.a.x + e.b.x) / 2, (e.a.y + e.b.y) / 2)
end

-- [3.2 step 1] The range bracket (1 = nearest) of a distance on a gun's
-- range lines (charts.ranges[gun]); nil beyond range.
local function bracket_at(ranges, d)
  for i, limit in ipairs(ranges) do
    if common.at_most(d, limit) then
      return i
    end
  end
  return nil
end

-- [3.2 step 1] The range bracket (1 = nearest) of a target from a battery,
-- by the closest points of their bases, and the distance; nil beyond range.
function targets.bracket(b, target)
  local d = tabletop.distance(b, target)
  return bracket_at(charts.ranges[gun(b)], d), d
end

------------------------------------------------------------------------------
-- Spotting
------------------------------------------------------------------------------

-- [3.4 Cover] How far the line of sight from `from` to `p` runs inside the
-- cover that holds `p` (the deepest such area; 0 when `p` is in none).
function targets.depth_in_cover(from, p)
  local len = tabletop.distance(from, p)
  local deepest = 0
  for _, a in ipairs(tabletop.areas_crossed({ kind = "line", from = from, to = p })) do
    if a.cover and common.at_least(a.to, len) then
      deepest = math.max(deepest, a.amount)
    end
  end
  return deepest
end

-- [3.4 Cover] "Artillery may only spot and fire at units up to 1/2 inch
-- inside of cover": a unit is seen when some point of a base (a corner, or
-- the point nearest the battery) lies no deeper than cover_depth_cm inside
-- cover along the battery's line of sight to it. Depth is measured from
-- the side the battery sees, so a unit deep in a thin wood is not seen
-- through it. (A base out of cover is seen at once: a speed guard, as its
-- points lie at depth 0.)
function targets.spotted(b, u)
  local bases = tabletop.bases(u)
  for _, base in ipairs(bases) do
    local covered = false
    for _, a in ipairs(tabletop.cover(base)) do
      if a.cover and common.more_than(a.fraction, 0) then
        covered = true
      end
    end
    if not covered then
      return true
    end
  end
  local from = targets.front_mid(b)
  local depth = params.artillery.cover_depth_cm
  for _, base in ipairs(bases) do
    for _, p in ipairs(corners(base)) do
      if common.at_most(targets.depth_in_cover(from, p), depth) then
        return true
      end
    end
    local _, nearest = tabletop.closest_points(from, base)
    if common.at_most(targets.depth_in_cover(from, nearest), depth) then
      return true
    end
  end
  return false
end

------------------------------------------------------------------------------
-- Main targets and the centre of fire
------------------------------------------------------------------------------

-- [3.5 Main] How far the centre of fire of battery b (from `mid`, the middle
-- of its front edge) must swing from straight ahead to pass through unit
-- u: 0 when the straight line already crosses one of its bases (touching
-- counts), else the least angle to one of its corners. (A unit it is asked
-- of lies in the arc of fire, ahead of the battery.)
function targets.swing(b, u, mid)
  local facing = b.facing
  local to_frame = frame(mid, facing)
  local bases = tabletop.bases(u)
  for _, base in ipairs(bases) do
    local lo, hi = math.huge, -math.huge
    for _, c in ipairs(corners(base)) do
      local _, across = to_frame(c)
      lo, hi = math.min(lo, across), math.max(hi, across)
    end
    if common.at_most(lo, 0) and common.at_least(hi, 0) then
      return 0
    end
  end
  local best = math.huge
  for _, base in ipairs(bases) do
    for _, c in ipairs(corners(base)) do
      best = math.min(best, tabletop.angle_between(tabletop.bearing(mid, c), facing))
    end
  end
  return best
end

-- [3.5 Main] Every enemy unit the battery could fire on: some of it inside
-- its arc of fire, in range, and spotted. Each entry: unit, bracket,
-- distance, swing (degrees from straight ahead), sorted into the main
-- target rule's order: closest bracket first ("the closest threat"), then
-- (param main_target) the least swing of the centre of fire ("closest to
-- the battery's Center of Fire"), then the nearest, then by id.
function targets.candidates(b)
  local arc = tabletop.arc_of_fire(b, params.artillery.arc)
  local mid = targets.front_mid(b)
  local side, ranges = b.side, charts.ranges[gun(b)]
  local out = {}
  for _, u in ipairs(world:units{}) do
    if u.side ~= side and u.pos and common.arm(u) ~= "leader" then
      local d = tabletop.distance(b, u)
      local bracket = bracket_at(ranges, d)
      if bracket and common.more_than(tabletop.area_in_arc(arc, u), 0) and targets.spotted(b, u) then
        table.insert(out, { unit = u, bracket = bracket, distance = d, swing = targets.swing(b, u, mid) })
      end
    end
  end
  local by_centre = params.artillery.main_target == "centre_line"
  return common.rank(out, function(c)
    if by_centre then
      return { c.bracket, c.swing, c.distance }
    end
    return { c.bracket, c.distance }
  end, function(c)
    return c.unit.id
  end)
end

-- [3.5 Main] The unit a battery must fire on (nil when none).
function targets.main_target(b)
  local c = targets.candidates(b)
  return c[1] and c[1].unit or nil, c[1]
end

local function clamp_bearing(facing, bearing)
  local half = params.artillery.arc / 2
  local off = ((bearing - facing + 540) % 360) - 180
  off = math.max(-half, math.min(half, off))
  return (facing + off) % 360
end

-- [3.5 Zone] The bearing of the centre of fire at a target: straight ahead
-- when that already passes through it; otherwise towards the middle of its
-- nearest base (of equally near ones, the one nearest straight ahead),
-- swung no further than the arc of fire allows.
function targets.aim(b, target)
  local mid = targets.front_mid(b)
  local facing = b.facing
  if targets.swing(b, target, mid) == 0 then
    return facing, mid
  end
  local best, bd, bs = nil, math.huge, math.huge
  for _, base in ipairs(tabletop.bases(target)) do
    local d = tabletop.distance(b, base)
    local s = tabletop.angle_between(tabletop.bearing(mid, base), facing)
    if common.less_than(d, bd) or (common.at_most(d, bd) and common.less_than(s, bs)) then
      best, bd, bs = base, d, s
    end
  end
  return clamp_bearing(facing, tabletop.bearing(mid, best)), mid
end

------------------------------------------------------------------------------
-- The frontage zone
------------------------------------------------------------------------------

local OPPOSITE = { front = "rear", rear = "front", left = "right", right = "left" }

-- A test of whether a base lies wholly beyond the target's far side (the
-- edge opposite the one facing the battery), by the target's own edges.
local function beyond_far_side(b, target)
  local near = tabletop.edge_towards(target, b)
  local far = tabletop.edges(target)[OPPOSITE[near]]
  local to_frame = frame(far.a, tabletop.bearing(far.a, far.b) - 90)
  return function(base)
    for _, c in ipairs(corners(base)) do
      if common.less_than(to_frame(c), 0) then
        return false
      end
    end
    return true
  end
end

-- [3.2][3.5 Zone] The friendly unit in the battery's frontage zone (aimed
-- at the target) that the fire would pass through or over, or nil; and the
-- bearing and zone of the fire, and (when nothing blocks) what the zone
-- passes through (tabletop.through, for secondary_targets). A friendly
-- base blocks when it lies in the zone and in the arc of fire, short of
-- the target: not beyond it along the zone, nor wholly beyond the
-- target's far side.
function targets.blocked_by(b, target)
  local bearing = targets.aim(b, target)
  local zone = tabletop.frontage_zone(b, bearing, charts.ranges[gun(b)][#BRACKETS])
  local crossed = tabletop.through(zone, { exclude = b })
  -- how far along the zone the target ends (where the zone leaves it; the
  -- target's nearest point should the zone miss it, at the arc's very edge)
  local far = tabletop.distance(b, target)
  for _, c in ipairs(crossed) do
    if c.unit == target then
      far = math.max(far, c.to)
    end
  end
  local beyond = beyond_far_side(b, target)
  local arc = tabletop.arc_of_fire(b, params.artillery.arc)
  local side = b.side
  for _, c in ipairs(crossed) do
    local u = c.unit
    if u.side == side and common.more_than(c.amount, 0) and common.arm(u) ~= "leader" then
      local base = tabletop.bases(u)[c.base]
      if common.less_than(c.from, far) and not beyond(base)
        and common.more_than(tabletop.area_in_arc(arc, base), 0) then
        return u, bearing, zone
      end
    end
  end
  return nil, bearing, zone, crossed
end

------------------------------------------------------------------------------
-- Secondary targets
------------------------------------------------------------------------------

-- [3.4 Skirmishers] A light regiment "with one skirmisher per combat base
-- deployed": its `skirmishers_out` when given, otherwise its skirmish
-- markers on the table (those whose `parent` it is), at least its bases.
local function deployed_light(u)
  if not common.type_of(u).light then
    return false
  end
  local out = u.skirmishers_out
  if out == nil then
    out = 0
    for _, m in ipairs(world:units{ side = u.side }) do
      if m.parent == u.id and common.arm(m) == "skirmish" then
        out += 1
      end
    end
  end
  return out >= u.strength
end
targets.deployed_light = deployed_light

-- [3.5 Sec] Tandem and adjacent secondary targets of a fire: enemy units in
-- the frontage zone, in the main target's bracket, judged by the main
-- target's own edges. Tandem: behind the main target (its bases overlap
-- the main target's across its front) with its nearest part no more than
-- tandem_cm behind the main target's front, measured square to that front;
-- in open terrain, not a fully deployed light regiment nor a skirmish
-- marker. Adjacent: beside the main target (no overlap across its front),
-- its bases within adjacent_cm of the main target's ("next to"). Tandem
-- targets nearest the front first; adjacent ones nearest the main target
-- first (then by id), with their distances in `adjacent.distance`.
-- `crossed`: what the zone passes through, when the caller has it already
-- (blocked_by's rows); measured here otherwise.
function targets.secondary_targets(b, main, zone, bracket, crossed)
  local fp = tabletop.footprint(main)
  local to_frame = frame(fp, fp.facing)
  local front = fp.depth / 2
  local function extent(u)
    local lo, hi, ahead = math.huge, -math.huge, -math.huge
    for _, base in ipairs(tabletop.bases(u)) do
      for _, c in ipairs(corners(base)) do
        local along, across = to_frame(c)
        lo, hi, ahead = math.min(lo, across), math.max(hi, across), math.max(ahead, along)
      end
    end
    return lo, hi, ahead
  end
  local mlo, mhi = extent(main)
  local side, ranges = b.side, charts.ranges[gun(b)]
  local seen, tandem, adjacent = {}, {}, {}
  local behind_of, near_of = {}, {}
  for _, c in ipairs(crossed or tabletop.through(zone, { exclude = b })) do
    local u = c.unit
    if u ~= main and not seen[u.id] and common.more_than(c.amount, 0) and u.side ~= side
      and common.arm(u) ~= "leader" then
      local id = u.id
      seen[id] = true
      if bracket_at(ranges, tabletop.distance(b, u)) == bracket then
        local lo, hi, ahead = extent(u)
        local behind = front - ahead
        if common.more_than(math.min(hi, mhi) - math.max(lo, mlo), 0) then
          if common.more_than(behind, 0) and common.at_most(behind, params.artillery.tandem_cm) and common.cover(u).open
            and not deployed_light(u) and common.arm(u) ~= "skirmish" then
            behind_of[id] = behind
            table.insert(tandem, u)
          end
        else
          local d = tabletop.distance(u, main)
          if common.at_most(d, params.artillery.adjacent_cm) then
            near_of[id] = d
            table.insert(adjacent, u)
          end
        end
      end
    end
  end
  local function by(list, key)
    common.rank(list, function(u)
      return { key[u.id] }
    end)
  end
  by(tandem, behind_of)
  by(adjacent, near_of)
  adjacent.distance = near_of
  return tandem, adjacent
end

------------------------------------------------------------------------------
-- Deep targets
------------------------------------------------------------------------------

-- How far the deep target's lines run: past the longest range.
local DEEP_LINE = 500

-- Where a line passes through obstacles (terrain with `obstacle: true`):
-- the areas_crossed rows, `from` and `to` along it.
local function obstacles_on(line)
  local spans = {}
  for _, a in ipairs(tabletop.areas_crossed(line)) do
    if (ruleset.terrain[a.kind] or {}).obstacle then
      table.insert(spans, a)
    end
  end
  return spans
end

-- The line `by` cm to the right of the centre of fire (left for by < 0),
-- running the same way.
local function beside(b, bearing, by)
  local from = tabletop.travel(targets.front_mid(b), bearing + 90, by)
  return { kind = "line", from = from, to = tabletop.travel(from, bearing, DEEP_LINE) }
end

-- [3.4 Deep] How far along the centre of fire it first crosses an obstacle
-- (math.huge when it never does), judged on the lines common.TOL either
-- side of it. "On the far side of obstacles": the fire crosses one where
-- it has obstacle on both sides, so a centre of fire running exactly along
-- a river bank has the river beside it and nothing beyond is on its far
-- side. Param grazing_crosses_obstacle
-- takes the other reading: an obstacle on either side is crossed.
function targets.obstacle_crossed(b, bearing)
  local one, other = obstacles_on(beside(b, bearing, -TOL)), obstacles_on(beside(b, bearing, TOL))
  local first = math.huge
  if params.artillery.grazing_crosses_obstacle then
    for _, s in ipairs(one) do
      first = math.min(first, s.from)
    end
    for _, s in ipairs(other) do
      first = math.min(first, s.from)
    end
    return first
  end
  for _, l in ipairs(one) do
    for _, r in ipairs(other) do
      local from = math.max(l.from, r.from)
      if common.at_most(from, math.min(l.to, r.to)) then
        first = math.min(first, from)
      end
    end
  end
  return first
end

-- [3.4 Deep] The centre of fire passes through deep_bases or more combat
-- bases in the main target's bracket, all in open terrain and none beyond
-- an obstacle it crosses (a river, a redoubt: targets.obstacle_crossed).
-- Returns whether it does, and (when it does) the units whose bases count.
function targets.deep_target(b, bearing, bracket)
  local line = tabletop.centre_line(b, bearing, DEEP_LINE)
  local first_obstacle = targets.obstacle_crossed(b, bearing)
  local side, ranges = b.side, charts.ranges[gun(b)]
  local count, units = 0, {}
  for _, c in ipairs(tabletop.through(line, { exclude = b })) do
    local u = c.unit
    if u.side ~= side and common.is_combat(u) and common.more_than(c.amount, 0) then
      local base = tabletop.bases(u)[c.base]
      if bracket_at(ranges, tabletop.distance(b, base)) == bracket then
        if not common.base_in_open(base) or common.at_least(c.from, first_obstacle) then
          return false, {}
        end
        count += 1
        units[u.id] = u
      end
    end
  end
  if count >= params.artillery.deep_bases then
    return true, units
  end
  return false, {}
end

------------------------------------------------------------------------------
-- Enfilade
------------------------------------------------------------------------------

-- [3.3 Enfilade] The enfilade arc a battery measures itself against, and
-- the edge it belongs to (nil for a battery in front of the target, unless
-- param enfilade_from_front). "The arc-of-fire being used as an enfilade
-- arc": a 60-degree arc from the target's flank on the battery's side,
-- aligned with "that edge of the unit nearest the artillery battery". Its
-- base lies along the flank and is as long as the battery's frontage when
-- that is longer than the flank ("the disparity between artillery base
-- frontage and infantry base depth"): flush with the target's front edges,
-- or, for a battery to the rear of the target (behind its middle), "slid
-- forward so as to be flush with the rear edges". A battery straight
-- behind the target is in neither flank's arc. Param enfilade_rear_arc
-- takes the other reading: from behind, an arc from the rear edge.
function targets.enfilade_arc(b, target)
  local fp = tabletop.footprint(target)
  local angle = params.artillery.arc
  local edge = tabletop.edge_towards(fp, b)
  if edge == "front" then
    if not params.artillery.enfilade_from_front then
      return nil, edge
    end
    return tabletop.edge_arc(fp, "front", angle), edge
  end
  if edge == "rear" and params.artillery.enfilade_rear_arc then
    return tabletop.edge_arc(fp, "rear", angle), edge
  end
  local ahead, across = frame(fp, fp.facing)(tabletop.footprint(b))
  local flank = edge
  if edge == "rear" then
    flank = across >= 0 and "right" or "left"
  end
  local side = tabletop.edges(fp)[flank]
  -- the right flank runs front to rear (a, b), the left rear to front
  local front_end, rear_end = side.a, side.b
  if flank == "left" then
    front_end, rear_end = side.b, side.a
  end
  local length = math.max(fp.depth, tabletop.footprint(b).width)
  local r = math.rad(fp.facing)
  local fx, fy = math.cos(r), math.sin(r)
  local fore, aft
  if common.less_than(ahead, 0) then
    aft = rear_end
    fore = { x = rear_end.x + fx * length, y = rear_end.y + fy * length }
  else
    fore = front_end
    aft = { x = front_end.x - fx * length, y = front_end.y - fy * length }
  end
  -- left and right as seen looking out from the flank
  local left, right = fore, aft
  if flank == "left" then
    left, right = aft, fore
  end
  local out = flank == "right" and fp.facing + 90 or fp.facing + 270
  return { left = left, right = right, bearing = out % 360, angle = angle }, flank
end

-- [3.3 Enfilade] True when more than half of the battery's frontage lies in
-- the target's enfilade arc. Squares are always enfiladed; a unit in full
-- cover never is. Also says why, and gives the arc and the target's edge
-- it stands on (for the maps).
function targets.enfilade(b, target)
  if common.cover(target).full then
    return false, "in full cover"
  end
  if target.formation == "square" then
    return true, "square"
  end
  local arc, edge = targets.enfilade_arc(b, target)
  if arc == nil then
    return false, "facing the battery"
  end
  local f = tabletop.frontage_in_arc(arc, b)
  local why = string.format("%.0f%% of its frontage in the %s enfilade arc", f * 100, edge)
  return common.more_than(f, 0.5), why, arc, edge
end

return targets
