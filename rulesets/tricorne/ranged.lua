-- rulesets/tricorne/ranged.lua — ranged combat (fire), Tricorne: Jacobite Rising.
--
-- Implements shared/rules/ranged-combat.txt clause by clause. Tags:
--   [Fire R0]  who may fire, and at whom (the opening paragraph and bullets)
--   [Fire R1]  announce: one ordered unit against one enemy unit, resolved
--              completely before the next, in the player's order
--   [Fire R2]  range      [Fire R3] line of sight
--   [Fire R4]  dice       [Fire R5] roll
--   [Fire R6]  hits, banners, leaders   [Fire R7] retreats and rally checks
-- Unit stats, dice and hits: tricorne.lua; retreats and rally checks:
-- retreat.lua; leaders: leaders.lua.
--
-- At a prompt:
--   print(ranged.fire{unit="g1", target="j1"})

local tricorne = require("tricorne")
local leaders = require("leaders")
local retreat = require("retreat")
local rules = require("lib/rules")

local ranged = {}

-- [Fire R0] May `u` fire at all? Only infantry and artillery with a ranged
-- table, never cavalry or a lone leader; it must be ordered this turn, and
-- [Base] not have moved more than its type's move_and_fire (highland
-- infantry: 1 of its 2 hexes; light artillery: 0), nor be halted by terrain
-- (tricorne.may_combat_after_move). Returns true, or false and the reason.
function ranged.can_fire(u)
  local s = tricorne.stats(u)
  if s.class == "leader" then
    return false, "a lone leader may not engage in ranged combat"
  end
  if s.class == "cavalry" then
    return false, u.id .. " is cavalry: cavalry may not engage in ranged combat"
  end
  if s.ranged == nil or #s.ranged == 0 then
    return false, u.id .. " (" .. u.type .. ") has no ranged weapons"
  end
  if u.ordered ~= true then
    return false, u.id .. " is not ordered this turn: only an ordered unit fires (game:order)"
  end
  return tricorne.may_combat_after_move(u, "ranged")
end

-- [Fire R2] Range in hexes: the firer's hex not counted, the target's
-- counted, i.e. the hex distance. The longest range is the length of the
-- type's ranged table plus one (its first entry is 2 hexes).
function ranged.range(u, target)
  return u.hex:distance(target.hex)
end

function ranged.max_range(u)
  local r = tricorne.stats(u).ranged
  return r and (#r + 1) or 0
end

-- [Fire R0]/[Fire R2]/[Fire R3] Checks that `u` may fire at `target`.
-- Returns true, or false and the reason (what rule it breaks).
function ranged.can_target(u, target)
  local ok, why = ranged.can_fire(u)
  if not ok then
    return false, why
  end
  if target.side == u.side then
    return false, target.id .. " is friendly: ranged combat targets an enemy unit"
  end
  local d = ranged.range(u, target)
  if d <= 1 then
    return false, target.id .. " is adjacent to " .. u.id .. ": ranged combat may not be used against an adjacent enemy (melee it)"
  end
  local near = tricorne.adjacent_enemies(u, true)
  if #near > 0 then
    return false, u.id .. " is adjacent to enemy unit " .. near[1].id .. " and may not fire on a more distant enemy"
  end
  local most = ranged.max_range(u)
  if d > most then
    return false, target.id .. " is " .. d .. " hexes away, beyond " .. u.id .. "'s range of " .. most
  end
  local clear, blocker = world:los(u.hex, target.hex)
  if not clear then
    local what = world:unit_at(blocker)
    local desc = what and ("unit " .. what.id) or (world:on_map(blocker) and tostring(world:terrain(blocker)) or "the side edge of the battlefield")
    return false, "no line of sight from " .. u.id .. " to " .. target.id .. ": blocked at " .. tostring(blocker) .. " (" .. desc .. ")"
  end
  return true
end

-- [Fire R4] The dice of `u` firing at `target`: the base dice for the range,
-- then additions (+full strength, +attached leader for infantry only, +the
-- Command and Combat card additions given), then reductions (-ordered
-- infantry that moved, -the target hex's terrain `ranged` reduction). At
-- zero or fewer the fire rolls params.combat.min_dice (default 0: no dice,
-- no effect). A unit without ranged weapons, or a target adjacent or beyond
-- the range, has no ranged dice: a rule error (the fire would be refused).
-- Returns { base, parts = {{n=, why=}}, raw, total }.
function ranged.dice(u, target, cards)
  local p = params.ranged
  local s = tricorne.stats(u)
  local d = ranged.range(u, target)
  if s.ranged == nil then
    rules.violation(u.id .. " (" .. u.type .. ") has no ranged weapons: it has no ranged dice", 2)
  end
  local base = s.ranged[d - 1]
  if base == nil then
    rules.violation(target.id .. " is " .. d .. (d == 1 and " hex" or " hexes") .. " from " .. u.id
      .. ": its ranged dice are for 2 to " .. ranged.max_range(u) .. " hexes", 2)
  end
  local t = tricorne.tally(base, "base at " .. d .. " hexes")
  local add = tricorne.add
  -- additions first ...
  if u.strength == u.max_strength then
    add(t, p.full_strength_bonus, "full strength")
  end
  if u.leader ~= nil and s.class == "infantry" then
    add(t, p.leader_bonus, "leader " .. u.leader)
  end
  cards = cards or {}
  add(t, cards.command or 0, "Command card")
  add(t, cards.combat or 0, cards.combat_card and ("Combat card " .. cards.combat_card) or "Combat card")
  -- ... then reductions
  if s.class == "infantry" and tricorne.moved(u) then
    add(t, -p.moved_penalty, "moved")
  end
  local tr = tricorne.terrain_reduction(target.hex, "ranged", s.class)
  if tr ~= 0 then
    add(t, -tr, "target in " .. tostring(world:terrain(target.hex)))
  end
  return tricorne.total(t)
end

local Record = {}
Record.__tostring = function(r)
  local lines = { r.unit .. " fires at " .. r.target .. " (" .. r.range .. " hexes): " .. tricorne.describe_dice(r.dice) }
  if r.dice.total <= 0 then
    table.insert(lines, "  no dice: the fire has no effect")
    return table.concat(lines, "\n")
  end
  if r.leader_target then
    local c = r.leader_check
    table.insert(lines, "  lone leader: casualty check [" .. table.concat(c.faces, " ") .. "] -> " .. c.outcome)
    return table.concat(lines, "\n")
  end
  table.insert(lines, "  rolled [" .. table.concat(r.faces, " ") .. "]: " .. tricorne.plural(r.hits, "hit") .. ", " .. tricorne.plural(r.flags, "flag"))
  local s = "  " .. r.target .. " loses " .. r.removed .. (r.removed == 1 and " block" or " blocks")
  if r.eliminated then
    s ..= ", eliminated: a victory banner for " .. r.side
  end
  table.insert(lines, s)
  if r.leader_check then
    table.insert(lines, "  " .. tricorne.describe_check(r.leader_check))
  end
  local t = r.retreat
  if t and t.flags > 0 and t.hexes == 0 then
    table.insert(lines, "  flags " .. t.flags .. ", all ignored")
  elseif t and t.flags > 0 then
    local rs = "  flags " .. t.flags .. ", ignored " .. t.ignored .. ", retreats " .. tricorne.plural(t.hexes, "hex", "hexes") .. ": moved " .. t.moved
    if t.lost > 0 then
      rs ..= ", lost " .. t.lost .. " (blocked)"
    end
    if t.attached then
      rs ..= ", joined leader " .. t.attached
    end
    if t.rally then
      rs ..= "; rally check [" .. table.concat(t.rally.faces, " ") .. "] " .. (t.rally.passed and "passed" or ("failed, lost " .. t.rally.lost))
    end
    table.insert(lines, rs)
    if t.leader_check then
      table.insert(lines, "  " .. tricorne.describe_check(t.leader_check))
    end
    if t.rally and t.rally.leader_check then
      table.insert(lines, "  " .. tricorne.describe_check(t.rally.leader_check))
    end
  end
  return table.concat(lines, "\n")
end

-- [Fire R1]..[Fire R7] One ordered unit fires at one enemy unit or lone leader:
--   ranged.fire{
--     unit   = "g1",                      -- the firer (handle or id), ordered
--     target = "j1",                      -- one enemy unit or lone leader
--     cards  = { command = 1, combat = 0 }, -- optional dice additions
--     again  = true,                      -- optional: a second combat this turn, on purpose
--     quiet  = true,                      -- optional: no map marks, no summary note (analysis)
--   }
-- Without `cards.combat`, the firer's side may play a Combat card from its
-- hand that adds ranged dice (tricorne.offer_combat_card). A unit fires or
-- attacks once a turn: a second combat is a rule error unless `again`.
-- The whole fire (dice, hits, banner, leader check, retreat, rally check)
-- is resolved before fire returns, so several units firing at one target
-- fire one call at a time, in the order the player calls them. A list of
-- firers or targets is refused. Returns a record (prints as a summary):
--   side unit target range dice{base,parts,raw,total} faces hits flags
--   removed eliminated leader_check retreat{...} leader_target
function ranged.fire(spec)
  if type(spec) ~= "table" then
    error("call ranged.fire{unit=, target=}", 2)
  end
  if type(spec.unit) == "table" or type(spec.target) == "table" then
    rules.violation("one firer against one target per fire: call ranged.fire once per unit, in the order you choose", 2)
  end
  local u = tricorne.unit(spec.unit, "firing unit", 2)
  local target = tricorne.unit(spec.target, "target", 2)
  local ok, why = ranged.can_target(u, target)
  if not ok then
    rules.violation(why, 2)
  end
  tricorne.start_combat(u, spec.again, 2)
  local side = u.side
  local reason = u.id .. " fires at " .. target.id
  local cards = tricorne.combat_dice(u, spec.cards, "fire", "fires at", target)
  local d = ranged.dice(u, target, cards)
  local rec = setmetatable({ side = side, unit = u.id, target = target.id, range = ranged.range(u, target), dice = d,
    faces = {}, hits = 0, flags = 0, removed = 0, eliminated = false }, Record)
  local quiet = spec.quiet == true
  if not quiet then
    world:clear_marks()
    world:mark(u.hex, "F")
    world:mark(target.hex, "T")
  end

  -- [Fire R6] a lone leader under fire: a leader casualty check, unless
  -- [Fire R4] the fire was reduced to no dice (no dice, no effect)
  if tricorne.is_lone_leader(target) then
    rec.leader_target = true
    if d.total > 0 then
      rec.leader_check = leaders.fired_on(target, side, reason)
      rec.eliminated = rec.leader_check.fell
    end
    if not quiet then
      world:note(tostring(rec))
    end
    return rec
  end

  -- [Fire R5] roll; no dice, no effect
  local roll = tricorne.roll(d.total, reason)
  rec.faces = tricorne.faces(roll)
  -- [Fire R6] one hit per symbol of the target's class; sabres miss at range
  rec.hits = tricorne.count(roll, tricorne.class(target))
  rec.flags = tricorne.count(roll, "flag")
  local at, leader = target.hex, target.leader
  rec.removed, rec.eliminated = tricorne.hit(target, rec.hits, side, reason)
  if leader ~= nil and rec.removed > 0 then
    rec.leader_check = leaders.casualty_check(target, leader, side, rec.eliminated, at, reason)
  end
  -- [Fire R7] then flags: retreat and rally check
  if not rec.eliminated then
    rec.retreat = retreat.flags(target, rec.flags, side, reason)
    rec.eliminated = not target.alive
  end
  if not quiet then
    world:note(tostring(rec))
  end
  return rec
end

return ranged
