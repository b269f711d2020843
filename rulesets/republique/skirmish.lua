-- rulesets/republique/skirmish.lua — Republique skirmish fire.
--
-- Implements chapter 3 of the Republique rules (shared/rules/
-- miniatures-artillery-fire.txt), section 3.1 "Skirmishers":
--   [3.1 Opposed]    markers within opposed_cm of enemy markers pair off;
--                    the phasing player picks among an uneven surplus
--   [3.1 Unopposed]  unopposed markers fire once a turn, 1D10 on the
--                    chart's skirmish line; each hit is a morale hit
--   [3.1 Targets]    never at skirmish markers; their parent light
--                    regiment is fair game
--   [3.1 Timing]     results take effect at the end of the step
--                    (batteries too)
-- A marker is a unit of arm `skirmish`; its light regiment is its `parent`.

local common = require("common")

local skirmish = {}

local chart = ruleset.charts.skirmish

local function marker(u, what)
  u = common.unit(u, what)
  if common.arm(u) ~= "skirmish" then
    error(string.format("%s: %s is not a skirmish marker", what, u.id), 3)
  end
  return u
end

local function markers(side)
  local out = {}
  for _, u in ipairs(world:units{ side = side }) do
    if common.arm(u) == "skirmish" then
      table.insert(out, u)
    end
  end
  return out
end

-- Starts a skirmish fire step: no marker has fired, nothing is opposed yet.
function skirmish.begin_step()
  for _, u in ipairs(world:units{}) do
    u.skirmish_fired, u.opposed, u.pending_skirmish = nil, nil, nil
    -- [3.6 Panic] the Artillery/Skirmish phase opens here: who began it
    -- demoralized (leaders.after_fire closes the phase)
    u.began_demoralized = common.morale(u) == "demoralized" or nil
    u.phase_open = true
  end
end

-- Opposition is a pairing: each opposed marker is tied down by one enemy
-- marker within opposed_cm, and a pairing is as large as the markers
-- within reach of each other allow (a maximum matching). `edges[m]` lists
-- the enemy markers within reach of m; `allowed` restricts either side.
local function max_pairs(sources, edges, allowed)
  local partner = {}
  local function augment(m, seen)
    for _, e in ipairs(edges[m]) do
      if allowed[e] and not seen[e] then
        seen[e] = true
        if partner[e] == nil or augment(partner[e], seen) then
          partner[e] = m
          return true
        end
      end
    end
    return false
  end
  local n = 0
  for _, m in ipairs(sources) do
    if allowed[m] and augment(m, {}) then
      n += 1
    end
  end
  return n
end

-- [3.1 Opposed] "A skirmish marker may declare any enemy skirmish marker in
-- any direction and within 8cm of it to be opposed ... If uneven numbers
-- of hostile skirmishers are opposing each other, the phasing (attacking)
-- player decides which markers are considered opposed, and which are
-- considered unopposed." Markers within opposed_cm of each other (any
-- direction) face each other in groups (chains of such markers); in each
-- group as many markers of each side are opposed as can be paired one to
-- one. Where a side has more markers in a group than can be paired, the
-- phasing player (default: the current side) picks its opposed markers one
-- at a time (decision "skirmish.opposed", among those that still leave a
-- full pairing possible; not asked when only one does). Returns the
-- opposed markers' ids, sorted.
function skirmish.pair_off(phasing)
  phasing = phasing or common.phasing()
  local all = {}
  for _, s in ipairs(world:sides()) do
    for _, m in ipairs(markers(s)) do
      table.insert(all, m)
    end
  end
  common.rank(all)
  local edges, by_id = {}, {}
  for _, m in ipairs(all) do
    by_id[m.id] = m
    edges[m.id] = {}
    for _, e in ipairs(all) do
      if e.side ~= m.side and common.at_most(tabletop.distance(m, e), params.skirmish.opposed_cm) then
        table.insert(edges[m.id], e.id)
      end
    end
  end
  -- the groups: markers linked through enemy markers within reach (a
  -- marker with none is a group of its own, where nothing is opposed)
  local group_of, groups = {}, {}
  for _, m in ipairs(all) do
    if group_of[m.id] == nil then
      local g = {}
      local stack = { m.id }
      group_of[m.id] = g
      while #stack > 0 do
        local id = table.remove(stack)
        table.insert(g, id)
        for _, e in ipairs(edges[id]) do
          if group_of[e] == nil then
            group_of[e] = g
            table.insert(stack, e)
          end
        end
      end
      table.sort(g)
      table.insert(groups, g)
    end
  end
  local out = {}
  for _, g in ipairs(groups) do
    -- the group's markers by side, the side of its first marker first
    local sides, by_side = {}, {}
    for _, id in ipairs(g) do
      local s = by_id[id].side
      if by_side[s] == nil then
        by_side[s] = {}
        table.insert(sides, s)
      end
      table.insert(by_side[s], id)
    end
    local allowed = {}
    for _, id in ipairs(g) do
      allowed[id] = true
    end
    -- each side in turn: all its markers are opposed when they can all be
    -- paired; otherwise the phasing player picks as many as can be
    for _, s in ipairs(sides) do
      local list = by_side[s]
      local n_pairs = max_pairs(list, edges, allowed)
      if #list > n_pairs then
        for _, id in ipairs(list) do
          allowed[id] = nil
        end
        for n = 1, n_pairs do
          local options = {}
          for _, id in ipairs(list) do
            if not allowed[id] then
              allowed[id] = true
              if max_pairs(list, edges, allowed) == n then
                table.insert(options, id)
              end
              allowed[id] = nil
            end
          end
          local pick = options[1]
          if #options > 1 then
            pick = decide{ side = phasing, id = "skirmish.opposed", options = options,
              prompt = "which " .. s .. " skirmish marker is opposed?" }
          end
          allowed[pick] = true
        end
      end
    end
    for _, id in ipairs(g) do
      if allowed[id] then
        by_id[id].opposed = true
        table.insert(out, id)
      end
    end
  end
  table.sort(out)
  return out
end

-- [3.1 Unopposed][3.1 Targets] One marker's harassing fire at an enemy
-- unit: 1D10 against the chart's number for the range band; a hit is one
-- morale hit, applied at end_step. Returns the roll record.
function skirmish.fire(m, target)
  m = marker(m, "skirmish.fire")
  target = common.unit(target, "skirmish.fire")
  if m.opposed then
    error(m.id .. " is opposed by enemy skirmishers and may not fire", 2)
  end
  if m.skirmish_fired then
    error(m.id .. " has fired this turn: each marker fires once per turn", 2)
  end
  if target.side == m.side then
    error(target.id .. " is on " .. m.id .. "'s own side", 2)
  end
  if common.arm(target) == "skirmish" then
    error("skirmish markers cannot fire at other skirmish markers (fire at their light regiment instead)", 2)
  end
  if common.arm(target) == "leader" then
    error("skirmish fire is at enemy units, not leaders", 2)
  end
  local d = tabletop.distance(m, target)
  local band = nil
  for i, r in ipairs(chart.ranges) do
    if band == nil and common.at_most(d, r) then
      band = i
    end
  end
  if band == nil then
    error(string.format("%s is %.1f cm from %s: out of skirmish range (%d cm)", target.id, d, m.id,
      chart.ranges[#chart.ranges]), 2)
  end
  m.skirmish_fired = true
  local roll = common.d10("skirmish fire of " .. m.id .. " at " .. target.id)
  local hit = roll >= chart.hit_on[band]
  tabletop.trace(target, "fired_upon") -- [3.6] leaders near it are at risk
  if hit then
    target.pending_skirmish = (target.pending_skirmish or 0) + 1
    target.skirmished = true
  end
  world:note(string.format("%s fires at %s (%.1f cm): %d, %s", m.id, target.id, d, roll, hit and "a morale hit" or "no effect"))
  return { marker = m.id, target = target.id, roll = roll, need = chart.hit_on[band], hit = hit }
end

-- [3.1 Timing] Ends the step: every skirmish hit takes effect now, one
-- morale step each, batteries included.
function skirmish.end_step()
  for _, u in ipairs(world:units{}) do
    local n = u.pending_skirmish or 0
    u.pending_skirmish = nil
    common.morale_hits(u, n, "skirmish fire")
  end
end

return skirmish
