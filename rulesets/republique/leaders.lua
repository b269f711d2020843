-- rulesets/republique/leaders.lua — Republique leader injuries after fire.
--
-- Implements chapter 3 of the Republique rules (shared/rules/
-- miniatures-artillery-fire.txt), section 3.6:
--   [3.6 Risk]    leaders within risk_cm of a unit fired upon (artillery with
--                 a modified chance of a hit, or skirmishers) roll 1D10
--   [3.6 Mods]    emergency rally, near units hit by skirmishers, attached,
--                 each friendly base lost nearby, in cover
--   [3.6 Result]  killed or injured leaders leave the game
--   [3.6 Panic]   morale hits on units that began the phase demoralized are
--                 panic hits, executed after the injury tests: 1D10 each on
--                 the (illustrative) panic_hit chart; base hits desert

local common = require("common")

local leaders = {}

local chart = ruleset.charts.leader_injury
assert(type(chart) == "table" and chart.injured and chart.killed and chart.killed >= chart.injured,
  "ruleset.yaml charts.leader_injury: injured and killed thresholds (killed >= injured)")

-- The panic hit chart: ten results like "1B" (bases that desert) or "-".
local PANIC = {}
do
  local chart_p = ruleset.charts.panic_hit
  assert(type(chart_p) == "table" and #chart_p == 10,
    "ruleset.yaml charts.panic_hit: ten results, for a die of 1..10")
  for d, cell in ipairs(chart_p) do
    local n = cell == "-" and 0 or tonumber(string.match(tostring(cell), "^(%d+)B$") or "")
    assert(n, string.format("ruleset.yaml charts.panic_hit, die %d: '%s' is not like 1B or -", d, tostring(cell)))
    PANIC[d] = n
  end
end

local function is_leader(u)
  return common.arm(u) == "leader"
end

-- Distance from a leader to a unit, or to where a destroyed unit stood.
local function near(l, u)
  if u.pos then
    return tabletop.distance(l, u) <= params.leaders.risk_cm + 1e-9
  end
  if u.lost_x then
    return tabletop.distance(l, tabletop.point(u.lost_x, u.lost_y)) <= params.leaders.risk_cm + 1e-9
  end
  return false
end

-- [3.6 Risk] The leaders within risk_cm of a unit fired upon this phase.
function leaders.at_risk()
  local out = {}
  for _, l in ipairs(world:units{}) do
    if is_leader(l) then
      for _, u in ipairs(world:units{ all = true }) do
        if u.fired_upon and not is_leader(u) and near(l, u) then
          table.insert(out, l)
          break
        end
      end
    end
  end
  return out
end

-- [3.6 Mods] The injury die modifiers of a leader, as a list of {name,
-- value}. opts: emergency_rally=true for the pre-rally test; phase="assault"
-- leaves out the skirmisher modifier.
function leaders.modifiers(l, opts)
  opts = opts or {}
  local mods = {}
  if opts.emergency_rally then
    table.insert(mods, { name = "emergency rally", value = params.leaders.emergency_rally })
  end
  local skirmished, lost, units, covered = false, 0, 0, 0
  for _, u in ipairs(world:units{ all = true }) do
    if not is_leader(u) and near(l, u) then
      if u.skirmished and u.side == l.side then
        skirmished = true
      end
      if u.side == l.side and common.is_combat(u) then
        lost += u.bases_lost or 0
      end
      if u.pos then
        units += 1
        if common.cover(u).class or common.cover(u).full then
          covered += 1
        end
      end
    end
  end
  if skirmished and opts.phase ~= "assault" then
    table.insert(mods, { name = "near a unit hit by skirmishers", value = params.leaders.near_skirmished })
  end
  if l.attached_to then
    table.insert(mods, { name = "attached to " .. l.attached_to, value = 1 })
  end
  if lost > 0 then
    table.insert(mods, { name = lost .. " friendly base(s) lost nearby", value = lost })
  end
  if units > 0 and covered * 2 >= units then
    table.insert(mods, { name = "in cover", value = -1 })
  end
  return mods
end

-- [3.6 Result] One leader's injury roll: 1D10 plus modifiers against the
-- chart; killed or injured removes the leader at once.
function leaders.injury_test(l, opts)
  l = common.unit(l, "leaders.injury_test")
  if not is_leader(l) then
    error("leaders.injury_test: " .. l.id .. " is not a leader", 2)
  end
  local mods = leaders.modifiers(l, opts)
  local total = 0
  for _, m in ipairs(mods) do
    total += m.value
  end
  local roll = common.d10("injury test of " .. l.id)
  local modified = roll + total
  local result = modified >= chart.killed and "killed" or modified >= chart.injured and "injured" or "unhurt"
  if result ~= "unhurt" then
    world:eliminate(l, "leader " .. result)
  end
  world:note(string.format("%s injury test: %d%+d = %d: %s", l.id, roll, total, modified, result))
  return { leader = l.id, roll = roll, modifier = total, modified = modified, result = result, modifiers = mods }
end

-- [3.6 Panic] Units that began the phase demoralized and took morale hits:
-- their panic hits, for chapter 5's panic test.
function leaders.panic_hits()
  local out = {}
  for _, u in ipairs(world:units{}) do
    if u.began_demoralized and (u.panic_hits or 0) > 0 then
      table.insert(out, { unit = u.id, hits = u.panic_hits })
    end
  end
  return out
end

-- [3.6 Panic] Executes the panic hits of units that began the phase
-- demoralized: one 1D10 per hit on the panic_hit chart; the base hits it
-- gives are deserters, removed at once (`deserters` counts them). Other
-- units' panic hits wait for chapter 5's panic test. Returns
-- { {unit=, hits=, rolls={...}, deserters=} }.
function leaders.execute_panic()
  local out = {}
  for _, p in ipairs(leaders.panic_hits()) do
    local u = world:unit(p.unit)
    local rec = { unit = u.id, hits = p.hits, rolls = {}, deserters = 0 }
    for i = 1, p.hits do
      local roll = common.d10(string.format("panic hit %d of %s", i, u.id))
      table.insert(rec.rolls, roll)
      local n = math.min(PANIC[roll], u.strength)
      if n > 0 then
        world:hit(u, n, "deserters (panic hit)")
        rec.deserters += n
      end
      if not u.alive then
        break
      end
    end
    u.deserters = (u.deserters or 0) + rec.deserters
    u.panic_hits = nil
    world:note(string.format("%s executes %d panic hit%s: %d base%s desert", u.id, p.hits, p.hits == 1 and "" or "s",
      rec.deserters, rec.deserters == 1 and "" or "s"))
    table.insert(out, rec)
  end
  return out
end

-- [3.6] After all skirmish and artillery fire: injury tests for the leaders
-- at risk (skipped when no leader is at risk and no morale hits happened),
-- then the panic hits of units that began the phase demoralized. Clears
-- the phase's fire records and closes the phase.
function leaders.after_fire()
  local results = {}
  for _, l in ipairs(leaders.at_risk()) do
    table.insert(results, leaders.injury_test(l))
  end
  local panic = leaders.execute_panic()
  for _, u in ipairs(world:units{ all = true }) do
    u.fired_upon, u.skirmished = nil, nil
    u.began_demoralized, u.phase_open = nil, nil
  end
  return { injuries = results, panic = panic }
end

-- A new player turn: bases lost nearby count from zero again.
function leaders.new_turn()
  for _, u in ipairs(world:units{ all = true }) do
    u.bases_lost, u.lost_x, u.lost_y = nil, nil, nil
  end
end

return leaders
