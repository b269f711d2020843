-- rulesets/republique/leaders.lua — Republique leader injuries after fire.
--
-- Implements chapter 3 of the Republique rules (shared/rules/
-- miniatures-artillery-fire.txt), section 3.6:
--   [3.6 Risk]    leaders within risk_cm of a unit fired upon (artillery with
--                 a modified chance of a hit, or skirmishers) roll 1D10
--   [3.6 Mods]    emergency rally, near units hit by skirmishers, attached,
--                 each friendly base lost nearby (lose_bases for losses
--                 outside this chapter's fire), in cover
--   [3.6 Result]  killed or injured leaders leave the game
--   [3.6 Panic]   morale hits on units that began the phase demoralized are
--                 panic hits, executed after the injury tests: 1D10 each on
--                 the (illustrative) panic_hit chart; base hits desert

local common = require("common")

local leaders = {}

local chart = ruleset.charts.leader_injury
-- The panic hit chart: bases that desert for a die of 1..10 (charts.lua
-- checked it when the ruleset loaded).
local PANIC = common.CHARTS.panic

local function is_leader(u)
  return common.arm(u) == "leader"
end

local function within(l, shape)
  return common.at_most(tabletop.distance(l, shape), params.leaders.risk_cm)
end

-- [3.6 Risk] "Roll 1D10 for each leader who was within 8cm of any unit fired
-- upon by artillery or skirmishers": the leaders within risk_cm of where a
-- unit's bases stood when it was fired upon (the traces "fired_upon" the
-- fire left, before its losses), in unit order.
function leaders.at_risk()
  local fired = tabletop.traces("fired_upon")
  local out = {}
  for _, l in ipairs(world:units{}) do
    if is_leader(l) then
      local risk = false
      for _, t in ipairs(fired) do
        for _, base in ipairs(t.bases) do
          risk = risk or within(l, base)
        end
      end
      if risk then
        table.insert(out, l)
      end
    end
  end
  return out
end

-- [3.6 Mods] The friendly combat bases lost within risk_cm of a leader this
-- player turn: each lost base counted where it stood (traces "lost").
function leaders.bases_lost_near(l)
  local n = 0
  for _, t in ipairs(tabletop.traces("lost")) do
    if t.unit.side == l.side and common.is_combat(t.unit) then
      for _, base in ipairs(t.bases) do
        if within(l, base) then
          n += 1
        end
      end
    end
  end
  return n
end

-- [3.6 Mods] Bases lost "due to base hits or capture" outside this
-- chapter's fire (an assault's losses and captures, chapter 4): removes
-- them (`bases` a count, the last in place order first, or a list of base
-- ids) and remembers where they stood (trace "lost"), so that leaders
-- nearby count them this player turn. Returns what world:hit returns.
function leaders.lose_bases(u, bases, reason)
  u = common.unit(u, "leaders.lose_bases")
  local ids = bases
  if type(bases) == "number" then
    local list = tabletop.bases(u)
    ids = {}
    for i = math.max(1, #list - bases + 1), #list do
      table.insert(ids, list[i].id)
    end
  end
  tabletop.trace(u, "lost", ids)
  return world:hit(u, ids, reason or "bases lost")
end

-- [3.6 Mods] The injury die modifiers of a leader, as a list of {name,
-- value}, each a param. opts: emergency_rally=true for the pre-rally test;
-- phase="assault" leaves out the skirmisher modifier.
function leaders.modifiers(l, opts)
  opts = opts or {}
  local p = params.leaders
  local mods = {}
  local function add(name, v)
    if v ~= 0 then
      table.insert(mods, { name = name, value = v })
    end
  end
  if opts.emergency_rally then
    add("emergency rally", p.emergency_rally)
  end
  local skirmished, units, covered = false, 0, 0
  for _, u in ipairs(world:units{}) do
    if not is_leader(u) and within(l, u) then
      if u.skirmished and u.side == l.side then
        skirmished = true
      end
      units += 1
      local cov = common.cover(u)
      if cov.class or cov.full then
        covered += 1
      end
    end
  end
  if skirmished and opts.phase ~= "assault" then
    add("near a unit hit by skirmishers", p.near_skirmished)
  end
  if l.attached_to then
    add("attached to " .. l.attached_to, p.attached)
  end
  local lost = leaders.bases_lost_near(l)
  add(lost .. " friendly base(s) lost nearby", lost * p.per_base_lost)
  if units > 0 and covered * 2 >= units then
    add("in cover", p.in_cover)
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
      -- base hits: the rear-most base deserts, one at a time, and counts as lost (3.6 Mods)
      for _ = 1, n do
        local list = tabletop.bases(u)
        local id = list[#list].id
        tabletop.trace(u, "lost", { id })
        world:hit(u, { id }, "deserters (panic hit)")
      end
      rec.deserters += n
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
-- at risk (none when no leader is at risk), then the panic hits of units
-- that began the phase demoralized. Clears the phase's fire records
-- (traces "fired_upon", who was hit by skirmishers) and closes the phase.
function leaders.after_fire()
  local results = {}
  for _, l in ipairs(leaders.at_risk()) do
    table.insert(results, leaders.injury_test(l))
  end
  local panic = leaders.execute_panic()
  tabletop.clear_traces("fired_upon")
  for _, u in ipairs(world:units{}) do
    u.skirmished = nil
    u.began_demoralized, u.phase_open = nil, nil
  end
  return { injuries = results, panic = panic }
end

-- A new player turn: bases lost nearby count from zero again.
function leaders.new_turn()
  tabletop.clear_traces("lost")
end

return leaders
