-- rulesets/republique/artillery.lua — Republique artillery fire.
--
-- Implements chapter 3 of the Republique rules (shared/rules/
-- miniatures-artillery-fire.txt), the artillery parts, clause by clause;
-- each function names the part it implements:
--   [3.2]       Artillery Fire: who may fire, simultaneous fire
--   [3.2 step N] the document's four steps, one function each:
--               1 range_points, 2 point_modifiers, 3 die_modifiers and
--               roll, 4 read_chart (fire runs them in order)
--   [3.2 Save]  Saving Fire
--   [3.3]       Fire point modifiers (saved fire, enfilade, damaged, disordered+)
--   [3.4]       Die modifiers (deep target, artillery leader, cavalry, cover,
--               passing fire, skirmishers, elevation)
--   [3.5 Main]  Main targets and convergence
--   [3.5 Sec]   Secondary targets: sharing the hits
--   [3.5 Compound] Compound targets: the modifiers best for the battery
--   [3.5 Pass]  Passing fire, as a reaction to moves (`leaves` events)
--   [3.2 Moves] How moves touch fire: moving, turning, limbering or
--               prolonging loses saved fire (moves.lua makes the moves)
-- The geometry of targets (arcs, zones, what the centre of fire crosses,
-- spotting, enfilade) is in targets.lua, on the core's `tabletop` API; its
-- functions are re-exported here. Every modifier value is a param in
-- ruleset.yaml; chart numbers are its illustrative ones.
--
-- At a prompt (turn.lua walks the steps for you):
--   artillery.begin_phase()
--   artillery.fire{ battery = "fb1" }          -- or batteries = {"fb1", "fb2"}
--   artillery.end_phase()

local common = require("common")
local targets = require("targets")

local artillery = {}

local charts = ruleset.charts
local BRACKETS = charts.brackets

------------------------------------------------------------------------------
-- The chart
------------------------------------------------------------------------------

-- The chart's rows, checked and parsed when the ruleset loads (charts.lua).
local ROWS = common.CHARTS.rows

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

local TOL = common.TOL

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

-- The geometry of targets (targets.lua), under the names the rules use.
artillery.bracket = targets.bracket
artillery.candidates = targets.candidates
artillery.main_target = targets.main_target
artillery.blocked_by = targets.blocked_by
artillery.secondary_targets = targets.secondary_targets
artillery.enfilade = targets.enfilade

-- True in the artillery fire segment (hits on batteries wait for its end).
local function in_segment()
  return common.turn_step() == "artillery"
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

-- [3.2] Opens the artillery fire segment: batteries may fire again; a
-- battery that passed fire since the last segment sits this one out; the
-- morale that halves a battery's points is the one it begins with; hits on
-- batteries wait until end_phase.
function artillery.begin_phase()
  for _, u in ipairs(world:units{}) do
    local morale = common.morale(u)
    if common.is_battery(u) then
      u.fired = nil
      u.saving = nil
      u.passing_rest = u.passed_fire or nil
      u.passed_fire = nil
      u.began_step = morale -- [3.3] the morale that halves its fire this phase
    end
    -- [3.6 Panic] who began the phase demoralized, unless the skirmish
    -- step opened the phase already
    if not u.phase_open then
      u.began_demoralized = morale == "demoralized" or nil
    end
  end
  common.set_turn_step("artillery")
end

-- [3.2 Save] Announces, at the start of the artillery fire segment (before
-- any battery has fired in it), that an ordered, stationary battery in
-- command saves its fire: it may not fire this phase, and its next fire is
-- doubled. One saved fire marker at most; moving in any way (facing too)
-- loses it.
function artillery.save_fire(b)
  b = battery(b, "artillery.save_fire")
  for _, u in ipairs(world:units{}) do
    if u.fired then
      error(string.format("%s may not save fire: saving is announced at the start of the artillery fire segment, and %s has fired in it", b.id, u.id), 2)
    end
  end
  if common.morale(b) ~= "normal" then
    error(b.id .. " may not save fire: only an ordered battery may (it is " .. common.morale(b) .. ")", 2)
  end
  if b.moved then
    error(b.id .. " may not save fire: it must stay completely stationary, and it moved this turn", 2)
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
  if artillery.has_saved_fire(b) then
    error(b.id .. " already has saved fire: one marker at most", 2)
  end
  b.saved_fire = where(b) -- the marker, and where the battery stood when it saved
  b.saving = true
  world:note(b.id .. " saves its fire")
end

-- [3.2 Save] True when the battery still holds saved fire; a battery put
-- elsewhere or turned since saving (not by a move) loses it here.
function artillery.has_saved_fire(b)
  b = battery(b, "artillery.has_saved_fire")
  if b.saved_fire == nil then
    return false
  end
  if b.saved_fire ~= where(b) then
    b.saved_fire = nil
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
    b.saving = nil
  end
  return bonus, with
end

-- Adds to `members` (a list of batteries) each battery of `list` that
-- touches one of them, one to the next. Returns the list.
local function join_touching(members, list)
  local joined = {}
  for _, m in ipairs(members) do
    joined[m] = true
  end
  local i = 1
  while i <= #members do
    for _, b in ipairs(list) do
      if not joined[b] and common.at_most(tabletop.distance(b, members[i]), 0) then
        joined[b] = true
        table.insert(members, b)
      end
    end
    i += 1
  end
  return members
end

-- Massed batteries "must have bases touching": one group, each battery
-- touching another of it, one to the next.
local function touching_mass(batteries)
  return #join_touching({ batteries[1] }, batteries) == #batteries
end

-- The ids of the massed battery a touching group of batteries stands in:
-- every battery of its side touching it, one to the next.
local function massed_battery(batteries)
  local side = {}
  for _, u in ipairs(world:units{ side = batteries[1].side }) do
    if common.is_battery(u) then
      table.insert(side, u)
    end
  end
  local ids = {}
  for _, b in ipairs(join_touching({ batteries[1] }, side)) do
    ids[b.id] = true
  end
  return ids
end

-- [3.4 Leader][3.5 Main] The good artillery leader attached to the firing
-- batteries: an artillery officer rated 1 or better, attached to a battery
-- of the massed battery they fire from (they and the batteries touching
-- them, one to the next: "a qualified artillery leader attached to a
-- massed battery" lets its batteries "selectively or wholly converge
-- fire"), in the chain of command (its `command`) of half or more of the
-- firing batteries; massed batteries must touch one another.
function artillery.leader_for(batteries)
  if not touching_mass(batteries) then
    return nil
  end
  local mass = nil -- the massed battery's ids, found when first needed
  for _, l in ipairs(world:units{}) do
    if common.arm(l) == "leader" and l.artillery_officer and (l.rating or 0) >= 1 then
      local attached_to, command = l.attached_to, l.command
      local attached, in_chain = false, 0
      for _, b in ipairs(batteries) do
        if attached_to == b.id then
          attached = true
        end
        if command == nil or command == b.command then
          in_chain += 1
        end
      end
      -- (a speed guard: the massed battery holds the firing batteries too)
      if not attached then
        mass = mass or massed_battery(batteries)
        attached = mass[l.attached_to] == true
      end
      if attached and in_chain * 2 >= #batteries then
        return l
      end
    end
  end
  return nil
end

------------------------------------------------------------------------------
-- The four steps
------------------------------------------------------------------------------

-- [3.2 step 1] "Use the range lines on the fire chart to find the fire
-- points": one battery's fire points at a target, and the bracket.
function artillery.range_points(b, target)
  local bracket = targets.bracket(b, target)
  return bracket and charts.fire_points[gun(b)][bracket], bracket
end

-- [3.2 step 2][3.3] "Double or halve fire points according to the point
-- modifiers", cumulatively: saved fire x saved_fire_factor, enfilade x
-- enfilade_factor, damaged / damaged_divisor, disordered or rattled /
-- disordered_divisor. In the artillery phase the morale that counts is
-- the battery's when the phase began (a prolonged battery hit earlier in
-- the phase keeps its points); passing fire takes it as it stands.
-- Returns the points and how they were made.
function artillery.point_modifiers(b, target, points, passing)
  local p = params.artillery
  local why = {}
  if artillery.has_saved_fire(b) then
    points *= p.saved_fire_factor
    table.insert(why, string.format("saved fire x%g", p.saved_fire_factor))
  end
  local enf, reason = targets.enfilade(b, target)
  if enf then
    points *= p.enfilade_factor
    table.insert(why, string.format("enfilade x%g (%s)", p.enfilade_factor, reason))
  end
  if b.damaged then
    points /= p.damaged_divisor
    table.insert(why, string.format("damaged /%g", p.damaged_divisor))
  end
  local m = (in_segment() and not passing) and b.began_step or common.morale(b)
  if m == "disordered" or m == "rattled" then
    points /= p.disordered_divisor
    table.insert(why, string.format("%s /%g", m, p.disordered_divisor))
  end
  return points, why
end

-- [3.4 Cover] The cover modifier of a fire at its main target (half or
-- more of the target in solid or heavy cover), and the ids of the bases
-- the fire may not kill. "If an artillery battery's center of fire is
-- closest to the uncovered base(s) of an otherwise covered unit, the
-- battery may fire without cover modifiers at the uncovered portions ...
-- enemy bases still in cover may not be killed": the base the centre of
-- fire passes nearest decides (between bases it passes through, the first
-- along it; between equally placed ones, the first in place order), and
-- the battery's side chooses (decision "artillery.uncovered", default the
-- uncovered bases: no modifier).
function artillery.cover_modifier(f)
  local cov = common.cover(f.target)
  if cov.modifier == 0 then
    return 0, {}
  end
  local lead, bearing = f.group[1], f.rec.batteries[1].bearing
  local to_frame = targets.frame(targets.front_mid(lead), bearing)
  local nearest, off, along = nil, math.huge, math.huge
  for _, base in ipairs(tabletop.bases(f.target)) do
    local lo, hi, first = math.huge, -math.huge, math.huge
    for _, c in ipairs(targets.corners(base)) do
      local a, across = to_frame(c)
      lo, hi, first = math.min(lo, across), math.max(hi, across), math.min(first, a)
    end
    local miss = math.max(0, lo, -hi) -- how far the centre of fire passes from the base
    if common.less_than(miss, off) or (common.at_most(miss, off) and common.less_than(first, along)) then
      nearest, off, along = base, miss, first
    end
  end
  if common.base_covered(nearest) then
    return cov.modifier, {}
  end
  local choice = decide{ side = lead.side, id = "artillery.uncovered", default = "uncovered",
    options = { "uncovered", "covered" },
    prompt = function()
      return string.format("%s's centre of fire is closest to uncovered bases of %s: fire at them without the %s cover modifier (its covered bases cannot be killed), or take the modifier?",
        lead.id, f.target.id, cov.class)
    end }
  if choice ~= "uncovered" then
    return cov.modifier, {}
  end
  local protected = {}
  for _, base in ipairs(tabletop.bases(f.target)) do
    if common.base_covered(base) then
      protected[base.id] = true
    end
  end
  table.insert(f.rec.notes, "centre of fire on uncovered bases: no cover modifier; covered bases cannot be killed")
  return 0, protected
end

-- [3.5 Compound] The units targeted by a fire: the main target, its
-- secondary targets and the units whose bases make it a deep target (a
-- unit may be listed twice: only "all of them" is asked of the list).
local function involved(f)
  local out = { f.target }
  for _, u in ipairs(f.tandem) do table.insert(out, u) end
  for _, u in ipairs(f.adjacent) do table.insert(out, u) end
  for _, u in pairs(f.deep_units) do table.insert(out, u) end
  return out
end

-- [3.2 step 3][3.4] The die modifiers of a fire, each named, each a param:
-- deep target, good artillery leader, cavalry, cover, passing fire,
-- skirmishers, elevation. [3.5 Compound] With several units targeted (by
-- the deep target or secondary target rules), the modifiers most
-- favourable to the battery: the cavalry and skirmisher modifiers count
-- only when every unit targeted is cavalry (skirmishers). Also returns the
-- ids of the bases the fire may not kill (see cover_modifier).
function artillery.die_modifiers(f)
  local p = params.artillery
  local mods = {}
  local function add(name, v)
    if v ~= 0 then
      table.insert(mods, { name = name, value = v })
    end
  end
  if f.deep then
    add("deep target", p.deep_target)
  end
  if f.leader then
    add("artillery leader " .. f.leader.id, p.artillery_leader)
  end
  local all_cavalry, all_skirmish = true, true
  for _, u in ipairs(involved(f)) do
    local arm = common.arm(u)
    all_cavalry = all_cavalry and arm == "cavalry"
    all_skirmish = all_skirmish and (arm == "skirmish" or targets.deployed_light(u))
  end
  if all_cavalry then
    add("cavalry", p.cavalry)
  end
  local cover, protected = artillery.cover_modifier(f)
  if cover ~= 0 then
    add(common.cover(f.target).class .. " cover", cover)
  end
  if f.passing then
    add("passing fire", p.passing_fire)
  end
  if all_skirmish then
    add("skirmishers", p.skirmishers)
  end
  local levels = math.floor(math.abs(tabletop.level(f.group[1]) - tabletop.level(f.target)))
  add("elevation", levels * p.per_level)
  return mods, protected
end

-- [3.2 step 3] "Roll 1D10 and add or subtract the applicable die modifiers."
function artillery.roll(f)
  local rec = f.rec
  rec.modifiers, f.protected = artillery.die_modifiers(f)
  rec.die_modifier = 0
  for _, m in ipairs(rec.modifiers) do
    rec.die_modifier += m.value
  end
  rec.roll = common.d10("artillery fire of " .. f.group[1].id .. " at " .. f.target.id)
  rec.modified = rec.roll + rec.die_modifier
end

-- [3.2 step 4] "Cross index the appropriate line of the fire point column
-- ... with the modified die results": the morale and base hits. [3.6] The
-- fire could hit when the best die would score something on the chart.
function artillery.read_chart(f)
  local rec = f.rec
  local res = artillery.result(rec.points, rec.modified)
  rec.result = res.text
  rec.morale_hits, rec.base_hits = res.morale, res.bases
  local best = artillery.result(rec.points, 10 + rec.die_modifier)
  rec.could_hit = (best.morale + best.bases) > 0
end

------------------------------------------------------------------------------
-- Hits
------------------------------------------------------------------------------

-- Base hits a unit can lose to this fire: a battery two (damage, then
-- destruction), less those already pending this phase; others their
-- strength, less covered bases protected (never all of them: bases are
-- protected only when the centre of fire is closest to an uncovered one).
local function capacity(u, protected)
  if common.is_battery(u) then
    local pend = u.pending_bases or 0
    return math.max(0, (u.damaged and 1 or 2) - pend)
  end
  return u.strength - (protected or 0)
end

-- [3.5 Sec] Shares a result between the main target and its secondary
-- targets: tandem targets take half the morale hits (rounded down) on top
-- of the main target's and half the base hits (rounded down) out of them;
-- once every base of the main target is killed, the base hits it cannot
-- take carry over to the tandem targets; once the main and tandem targets
-- are all destroyed, the closest adjacent target (adjacent[1]) takes what
-- is left, with half the morale hits. `protected` covered bases cannot be
-- killed (3.4 cover), so a main target that keeps them is not destroyed
-- and passes nothing on.
function artillery.distribute(main, tandem, adjacent, m, b, protected)
  protected = protected or 0
  local half_m, half_b = m // 2, b // 2
  local main_share = #tandem > 0 and b - half_b or b
  local take = math.min(main_share, capacity(main, protected))
  local out = { [main.id] = { morale = m, bases = take } }
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

-- [3.5 Sec] "the closest adjacent secondary target will suffer the
-- balance": closest to the main target; between equally close ones the
-- firing side chooses (decision "artillery.adjacent", default the first by
-- id), asked only when the balance falls on one.
local function closest_adjacent(f, m, b, protected)
  local adj = f.adjacent
  local tied = {}
  for _, u in ipairs(adj) do
    if common.at_most(adj.distance[u.id], adj.distance[adj[1].id]) then
      table.insert(tied, u.id)
    end
  end
  if #tied < 2 or artillery.distribute(f.target, f.tandem, adj, m, b, protected)[adj[1].id] == nil then
    return adj
  end
  local pick = decide{ side = f.group[1].side, id = "artillery.adjacent", options = tied,
    prompt = "which adjacent target, equally close to " .. f.target.id .. ", suffers the balance?" }
  return { world:unit(pick) }
end

-- [3.2] Simultaneous fire: hits on batteries wait for end_phase unless the
-- battery prolonged in the preceding movement (or the fire is passing fire).
local function deferred(u, passing)
  return common.is_battery(u) and not u.prolonged and in_segment() and not passing
end

local function morale(u, hits, reason, passing)
  if deferred(u, passing) then
    u.pending_morale = (u.pending_morale or 0) + hits
  else
    common.morale_hits(u, hits, reason)
  end
end

-- Which `n` of a unit's bases a fire kills, none of them `protected` (a
-- set of ids): param base_losses "nearest", the bases nearest `from` (the
-- middle of the firing battery's front, where its centre of fire starts)
-- first, by id between equally near ones; "owner", the unit's side chooses
-- each (decision "artillery.base_lost", default the nearest).
function artillery.choose_losses(u, n, from, protected)
  local list = {}
  for _, base in ipairs(tabletop.bases(u)) do
    if not (protected and protected[base.id]) then
      table.insert(list, { id = base.id, d = tabletop.distance(from, base) })
    end
  end
  common.rank(list, function(x)
    return { x.d }
  end)
  local ids = {}
  for i = 1, math.min(n, #list) do
    if params.artillery.base_losses == "owner" then
      local options = {}
      for j = i, #list do table.insert(options, list[j].id) end
      local pick = decide{ side = u.side, id = "artillery.base_lost", options = options,
        prompt = string.format("%s loses a base: which one?", u.id) }
      for j = i, #list do
        if list[j].id == pick then
          table.insert(list, i, table.remove(list, j))
        end
      end
    end
    table.insert(ids, list[i].id)
  end
  return ids
end

local function bases(u, hits, reason, passing, from, protected)
  if hits <= 0 then
    return
  end
  if deferred(u, passing) then
    u.pending_bases = (u.pending_bases or 0) + hits
    return
  end
  if common.is_battery(u) then
    if not u.damaged and hits == 1 then
      u.damaged = true
      world:note(u.id .. " is damaged (" .. reason .. ")")
      return
    end
    world:eliminate(u, reason)
    return
  end
  local ids = artillery.choose_losses(u, hits, from, protected)
  tabletop.trace(u, "lost", ids) -- [3.6] where each lost base stood
  world:hit(u, ids, reason)
end

-- [3.5 Sec] Shares the chart's hits between the targets and applies them:
-- [3.6] a fire that could score a hit marks where the units it fell on
-- stood (trace "fired_upon"), before any base goes.
function artillery.apply_hits(f)
  local rec = f.rec
  local m, b = rec.morale_hits, rec.base_hits
  local protected = 0
  for _ in pairs(f.protected) do protected += 1 end
  local adjacent = closest_adjacent(f, m, b, protected)
  rec.hits = artillery.distribute(f.target, f.tandem, adjacent, m, b, protected)
  local lead = f.group[1]
  local reason = "artillery fire of " .. lead.id
  -- the units hit, in order: the main target, the tandem targets, the adjacent one
  local order = { f.target }
  for _, u in ipairs(f.tandem) do table.insert(order, u) end
  if adjacent[1] and rec.hits[adjacent[1].id] then table.insert(order, adjacent[1]) end
  if rec.could_hit then
    for _, u in ipairs(order) do
      tabletop.trace(u, "fired_upon")
    end
  end
  local from = targets.front_mid(lead)
  for _, u in ipairs(order) do
    local h = rec.hits[u.id]
    morale(u, h.morale, reason, f.passing)
    bases(u, h.bases, reason, f.passing, from, u == f.target and f.protected or nil)
  end
end

------------------------------------------------------------------------------
-- Fire
------------------------------------------------------------------------------

-- [3.2] The batteries of a fire, each checked: it may fire now. (Errors
-- blame the caller of artillery.fire.)
function artillery.firing_group(spec)
  local list = spec.batteries or { spec.battery }
  if #list == 0 then
    error("artillery.fire: give battery= or batteries=", 3)
  end
  local group = {}
  for i, b in ipairs(list) do
    group[i] = battery(b, "artillery.fire")
    local why = artillery.why_not(group[i])
    if why then
      error(string.format("artillery.fire: %s may not fire: %s", group[i].id, why), 3)
    end
  end
  return group
end

-- [3.5 Main] The one target of a fire: each battery's main target (the
-- same unit for all of a massed battery), or, with a good artillery leader,
-- any unit in the closest bracket (`spec.target`); passing fire takes the
-- mover.
function artillery.fire_target(group, leader, spec)
  local target = spec.target and common.unit(spec.target, "artillery.fire") or nil
  for _, b in ipairs(group) do
    local cands = targets.candidates(b)
    if #cands == 0 then
      error(string.format("artillery.fire: %s has no target in its arc of fire and range", b.id), 3)
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
          b.id, main.id, target.id, leader and "; its leader lets it choose only within the closest bracket" or ""), 3)
      end
    end
  end
  return target
end

-- [3.5 Zone][3.2 steps 1-2] Each battery's centre of fire and frontage zone
-- (free of friends), and its fire points; the total, rounded down.
function artillery.total_fire_points(f)
  local rec = f.rec
  local points = 0
  f.zone_rows = {} -- what each frontage zone passes through, by zone
  for _, b in ipairs(f.group) do
    local id = b.id
    local base, br = artillery.range_points(b, f.target)
    if base == nil then
      error(string.format("artillery.fire: %s is out of %s's range", f.target.id, id), 3)
    end
    f.bracket = f.bracket and math.min(f.bracket, br) or br
    local friend, bearing, zone, crossed = targets.blocked_by(b, f.target)
    if friend then
      error(string.format("artillery.fire: %s may not fire through or over friendly %s (in its frontage zone)",
        id, friend.id), 3)
    end
    local modified, why = artillery.point_modifiers(b, f.target, base, f.passing)
    table.insert(why, 1, string.format("%s %s at %s range: %d", id, gun(b), BRACKETS[br], base))
    points += modified
    f.zone_rows[zone] = crossed
    table.insert(rec.notes, table.concat(why, ", "))
    local entry = { id = id, bearing = bearing, zone = zone, points = modified,
      reach = tabletop.distance(b, f.target) + 10 }
    if not f.quiet then
      -- for the maps: the target's enfilade arc on the edge this battery sees
      local _, _, arc, edge = targets.enfilade(b, f.target)
      entry.enfilade_arc, entry.enfilade_edge = arc, edge
    end
    table.insert(rec.batteries, entry)
  end
  rec.points = math.floor(points + TOL)
  rec.bracket = BRACKETS[f.bracket]
end

-- Draws the arcs, zones and centres of fire and the target's enfilade arcs
-- (one per edge), and notes the fire in the log.
local function show(f)
  local rec = f.rec
  tabletop.clear_marks()
  local enfilade_marked = {}
  for _, bt in ipairs(rec.batteries) do
    local u = world:unit(bt.id)
    tabletop.mark(tabletop.arc_of_fire(u, params.artillery.arc), bt.id .. " arc of fire")
    tabletop.mark(bt.zone, bt.id .. " frontage zone")
    tabletop.mark(tabletop.centre_line(u, bt.bearing, bt.reach), bt.id .. " centre of fire")
    local edge = bt.enfilade_edge
    if bt.enfilade_arc and not enfilade_marked[edge] then
      enfilade_marked[edge] = true
      tabletop.mark(bt.enfilade_arc, rec.target .. " " .. edge .. " enfilade arc")
    end
  end
  world:note(string.format("%s fire at %s (%s range): %d points, die %d%+d = %d: %s", f.group[1].id, f.target.id,
    rec.bracket, rec.points, rec.roll, rec.die_modifier, rec.modified, rec.result))
end

local RECORD = { __tostring = function(r)
  local ids = {}
  for _, b in ipairs(r.batteries) do table.insert(ids, b.id) end
  return string.format("%s -> %s: %d points, die %d (%+d) = %d: %s", table.concat(ids, "+"), r.target, r.points,
    r.roll, r.die_modifier, r.modified, r.result)
end }

-- [3.2] Fires one battery, or several massed batteries, at their main
-- target (or, with a good artillery leader, any unit in the closest
-- bracket; `target=`): checks who may fire and the frontage zones, then
-- the document's four steps (fire points by range, point modifiers, 1D10
-- with die modifiers, the chart), then shares and applies the hits.
-- Returns a record: target, batteries, points, bracket, notes, modifiers,
-- die_modifier, roll, modified, result, morale_hits, base_hits,
-- could_hit, tandem, adjacent, hits.
-- spec: { battery= | batteries={...}, target=?, passing=bool?, quiet=bool? }
-- (a massed fire is directed by the battery named first: its centre of
-- fire, frontage zone and level).
function artillery.fire(spec)
  local group = artillery.firing_group(spec)
  local leader = artillery.leader_for(group)
  local target = artillery.fire_target(group, leader, spec)
  local f = { group = group, leader = leader, target = target, passing = spec.passing, quiet = spec.quiet,
    rec = setmetatable({ target = target.id, batteries = {}, notes = {} }, RECORD) }
  artillery.total_fire_points(f)
  -- [3.5 Sec][3.4 Deep] who else the fire falls on (compound targets)
  local first = f.rec.batteries[1]
  f.tandem, f.adjacent = targets.secondary_targets(group[1], target, first.zone, f.bracket, f.zone_rows[first.zone])
  f.deep, f.deep_units = false, {}
  if common.cover(target).open then
    f.deep, f.deep_units = targets.deep_target(group[1], first.bearing, f.bracket)
  end
  artillery.roll(f)
  artillery.read_chart(f)
  f.rec.tandem, f.rec.adjacent = {}, {}
  for _, t in ipairs(f.tandem) do table.insert(f.rec.tandem, t.id) end
  for _, a in ipairs(f.adjacent) do table.insert(f.rec.adjacent, a.id) end
  artillery.apply_hits(f)
  for _, b in ipairs(group) do
    b.fired = true
    b.saved_fire = nil
  end
  if not spec.quiet then
    show(f)
  end
  return f.rec
end

------------------------------------------------------------------------------
-- Passing fire
------------------------------------------------------------------------------

-- [3.5 Pass] How far a move's bearing is from the perpendicular of the
-- battery's front (0: straight at or away from it; 90: along it).
local function off_perpendicular(b, bearing)
  return math.min(tabletop.angle_between(bearing, b.facing), tabletop.angle_between(bearing, b.facing + 180))
end

-- [3.5 Pass] Passing fire at an enemy unit moving across the battery's
-- front (its move more than 45 degrees from the perpendicular of the
-- battery's front) that spent passing_infantry_cm (cavalry:
-- passing_cavalry_cm) of its move inside the arc of fire. passing_fire on
-- the die; a battery saving fire may not; the battery then misses the
-- next artillery phase and gains no saved fire from it.
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
  local off = off_perpendicular(b, spec.move_bearing)
  if common.at_most(off, 45) then
    error(string.format("passing fire: %s is not moving across %s's front (%.0f degrees from perpendicular, needs more than 45)",
      target.id, b.id, off), 2)
  end
  local need = common.arm(target) == "cavalry" and params.artillery.passing_cavalry_cm or params.artillery.passing_infantry_cm
  if common.less_than(spec.in_arc_cm, need) then
    error(string.format("passing fire: %s moved %.1f cm inside %s's arc of fire; needs %d", target.id,
      spec.in_arc_cm, b.id, need), 2)
  end
  local ok, rec = pcall(artillery.fire, { battery = b, target = target, passing = true, quiet = spec.quiet })
  if not ok then
    error(rec, 2)
  end
  b.passed_fire = true
  return rec
end

-- On each battery, per moving unit (property "passing:<id>"): cm of this
-- turn's movement inside its arc of fire, or true once offered passing
-- fire. Kept on the world, so copies, undo and sim trials see it.
local function track_key(u)
  return "passing:" .. u.id
end

-- Forgets what a battery counted of this turn's moves.
function artillery.clear_tracks(b)
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
  local bracket = targets.bracket(b, u)
  if bracket == nil or common.at_most(tabletop.area_in_arc(tabletop.arc_of_fire(b, params.artillery.arc), u), 0) then
    return false
  end
  return targets.blocked_by(b, u) == nil
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
  if arm ~= "infantry" and arm ~= "cavalry" then
    return
  end
  local len = tabletop.distance(tabletop.point(from.x, from.y), tabletop.point(to.x, to.y))
  if common.at_most(len, 0) then
    return
  end
  local bearing = tabletop.bearing(from, to)
  local need = arm == "cavalry" and params.artillery.passing_cavalry_cm or params.artillery.passing_infantry_cm
  local key = track_key(u)
  for _, b in ipairs(world:units{}) do
    local enemy_battery = common.is_battery(b) and b.side ~= u.side and b:get(key) ~= true
    if enemy_battery and common.more_than(off_perpendicular(b, bearing), 45) then
      local arc = tabletop.arc_of_fire(b, params.artillery.arc)
      local before = b:get(key) or 0
      local cm = before + tabletop.segment_in_arc(arc, from, to) * len
      b:set(key, cm)
      if common.at_least(cm, need) then
        -- where the mover stood when it reached the need, if within this leg
        local spot = common.less_than(before, need) and point_after(arc, from, to, len, need - before) or nil
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

-- [3.2 Moves] A unit that makes a leg of a move (moving, turning in place,
-- limbering, pivoting, prolonging: Republique plays on a tabletop, so the
-- leg's ends are points) has moved this turn; a
-- battery that does loses its saved fire at once. [3.5 Pass] Then passing
-- fire reacts to the leg.
on("leaves", function(u, from, to)
  u.moved = true
  if common.is_battery(u) and u.saved_fire then
    u.saved_fire = nil
    world:note(u.id .. " moves and loses its saved fire")
  end
  artillery.on_leg(u, from, to)
end)

------------------------------------------------------------------------------
-- Turns and phases
------------------------------------------------------------------------------

-- A new player turn (its command phase): batteries may fire again, moves
-- and passing fire count afresh.
function artillery.new_turn()
  for _, u in ipairs(world:units{}) do
    u.moved = nil
    if common.is_battery(u) then
      u.fired = nil
      artillery.clear_tracks(u)
    end
  end
end

-- [3.2] Ends the segment: damage and morale hits on batteries, held back
-- for simultaneous fire, take effect now.
function artillery.end_phase()
  common.set_turn_step("injuries")
  for _, u in ipairs(world:units{}) do
    u.prolonged = nil -- it counted for the phase after the movement only
    local m, b = u.pending_morale or 0, u.pending_bases or 0
    u.pending_morale, u.pending_bases = nil, nil
    common.morale_hits(u, m, "artillery fire this phase")
    if b > 0 then
      if not u.damaged and b == 1 then
        u.damaged = true
        world:note(u.id .. " is damaged (artillery fire this phase)")
      else
        world:eliminate(u, "artillery fire this phase")
      end
    end
  end
end

return artillery
