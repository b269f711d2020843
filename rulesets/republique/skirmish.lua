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
do
  assert(type(chart) == "table" and #chart.ranges == #chart.hit_on and #chart.ranges > 0,
    "ruleset.yaml charts.skirmish: ranges and hit_on, one number each per range band")
  for i, r in ipairs(chart.ranges) do
    assert(i == 1 or r > chart.ranges[i - 1], "charts.skirmish.ranges must grow")
    assert(chart.hit_on[i] >= 1 and chart.hit_on[i] <= 11, "charts.skirmish.hit_on: a die number 1..10 (11: never)")
  end
end

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

-- [3.1 Opposed] Markers within opposed_cm of an enemy marker (any
-- direction) oppose each other. With uneven numbers the phasing player
-- decides which markers of the larger group are opposed (one decision per
-- marker, id "skirmish.opposed"). Returns the opposed markers' ids.
function skirmish.pair_off(phasing)
  local near = {}
  local sides = {}
  for _, s in ipairs(world:sides()) do
    table.insert(sides, s)
  end
  for _, s in ipairs(sides) do
    near[s] = {}
    for _, m in ipairs(markers(s)) do
      for _, e in ipairs(world:units{}) do
        if e.side ~= s and common.arm(e) == "skirmish" and tabletop.distance(m, e) <= params.skirmish.opposed_cm + 1e-9 then
          table.insert(near[s], m)
          break
        end
      end
    end
  end
  local fewest = math.huge
  for _, s in ipairs(sides) do
    fewest = math.min(fewest, #near[s])
  end
  local out = {}
  for _, s in ipairs(sides) do
    local list = near[s]
    if #list > fewest then
      local left = {}
      for _, m in ipairs(list) do table.insert(left, m.id) end
      for _ = 1, fewest do
        local pick = decide{ side = phasing, id = "skirmish.opposed", prompt = "which " .. s .. " skirmish marker is opposed?", options = left }
        for i, id in ipairs(left) do
          if id == pick then
            table.remove(left, i)
            break
          end
        end
        world:unit(pick).opposed = true
        table.insert(out, pick)
      end
    else
      for _, m in ipairs(list) do
        m.opposed = true
        table.insert(out, m.id)
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
    if band == nil and d <= r + 1e-9 then
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
  target.fired_upon = true
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
    if n > 0 then
      common.morale_hits(u, n, "skirmish fire")
    end
  end
end

return skirmish
