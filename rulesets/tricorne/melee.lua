-- rulesets/tricorne/melee.lua — melee and its aftermath, Tricorne: Jacobite Rising.
--
-- Implements shared/rules/melee-take-ground.txt clause by clause, on top of
-- the base melee that document assumes (our complete version, with params).
-- Tags:
--   [Ground]  "Taking Ground": who may advance into the vacated hex, when
--   [Bonus]   "Bonus Melee": who, against whom, dice, once a turn
--   [Back]    "Defending Unit Battle Back"
--   [Base]    the base melee: dice, symbols that hit, retreats and rally
--             checks, retire and rally, First Strike and Ambush, lone leaders
--
-- One call resolves one unit's whole melee: the defender's reaction (retire
-- and rally, First Strike, Ambush), the attack, hits, retreats and rally
-- checks, then either taking ground and a bonus melee (which may take ground
-- again) or the defender's battle back. So a unit's melee and bonus melee are
-- complete before the next unit's combat begins.
--
-- Decisions (ids for policies and `answers{}`):
--   tricorne.defender_reaction  the defender: "stand", "retire and rally",
--                               "first strike", "ambush" (only those it may)
--   tricorne.take_ground        the attacker: "take ground" or "stay"
--   tricorne.bonus_melee        the attacker: an adjacent enemy's id, or "none"
--   tricorne.retreat, tricorne.leader_retreat   which hex back (retreat.lua, leaders.lua)
--
-- At a prompt:
--   print(melee.attack{unit="j1", target="g2"})

local tricorne = require("tricorne")
local leaders = require("leaders")
local retreat = require("retreat")
local rules = require("lib/rules")

local melee = {}

-- Side pools holding Combat/Command cards a defender may play.
melee.CARD_POOLS = { ["first strike"] = "first_strike", ambush = "ambush" }

------------------------------------------------------------------------------
-- Who may melee, and with how many dice
------------------------------------------------------------------------------

-- [Base] May `u` attack `target` in melee? `how` is "attack" (ordered),
-- "bonus" (a bonus melee), "battle_back" or "first_strike". Returns true, or
-- false and the reason.
function melee.can_strike(u, target, how)
  local s = tricorne.stats(u)
  if s.class == "leader" then
    return false, "a lone leader does not attack or battle back in melee"
  end
  if s.melee == nil then
    return false, u.id .. " (" .. u.type .. ") has no melee dice"
  end
  if target.side == u.side then
    return false, target.id .. " is friendly"
  end
  if u.hex:distance(target.hex) ~= 1 then
    return false, target.id .. " is not adjacent to " .. u.id .. ": melee is against an adjacent enemy"
  end
  if how == "attack" or how == "bonus" then
    if u.ordered ~= true then
      return false, u.id .. " is not ordered this turn: only an ordered unit attacks (game:order)"
    end
  end
  if how == "attack" then
    return tricorne.may_combat_after_move(u, "melee")
  elseif how == "bonus" and tricorne.halted(u) then
    -- the ground taken is not held against its movement, but terrain is
    return false, u.id .. " entered " .. tostring(world:terrain(u.hex)) .. " and may not combat again"
  end
  return true
end

-- [Base] Melee dice of `u` against `target`: the type's melee dice, then
-- additions (+full strength, +attached leader, +highland charge in an
-- ordered attack only, +card additions, +First Strike / Ambush dice), then
-- reductions (-infantry that moved this turn, taking ground included;
-- -the target hex's terrain `melee` reduction). At zero or fewer the strike
-- rolls params.combat.min_dice (default 0: no effect).
function melee.dice(u, target, how, cards, card)
  local p = params.melee
  local s = tricorne.stats(u)
  local base = s.melee
  local tally = tricorne.tally(base, "melee")
  local add = tally.add
  if u.strength == u.max_strength then
    add(p.full_strength_bonus, "full strength")
  end
  if u.leader ~= nil then
    add(p.leader_bonus, "leader " .. u.leader)
  end
  if how == "attack" and s.highland_charge then
    add(p.highland_charge, "highland charge")
  end
  cards = cards or {}
  add(cards.command or 0, "Command card")
  add(cards.combat or 0, "Combat card")
  if card == "first strike" then
    add(p.first_strike_dice, "First Strike")
  elseif card == "ambush" then
    add(p.ambush_dice, "Ambush")
  end
  if s.class == "infantry" and tricorne.moved(u) then
    add(-p.moved_penalty, "moved")
  end
  add(-tricorne.terrain_reduction(target.hex, "melee", s.class), "target in " .. tostring(world:terrain(target.hex)))
  return tally.result()
end

------------------------------------------------------------------------------
-- One strike: dice, hits, leader check, flags
------------------------------------------------------------------------------

-- [Base] `u` strikes `target` once (an attack, a bonus melee, a battle back
-- or a first strike) and completes its losses and retreats. Hits: one per
-- symbol of the target's class, plus sabres when u's type has sabres_hit.
-- `retiring`: the target retires and rallies — only its own symbol hits
-- (sabres too with params.retire.sabres_hit), flags are ignored and it then
-- retires (retreat.retire). A lone leader target: leaders.meleed.
-- Returns a table: who target how dice faces hits flags removed eliminated
-- leader_check retreat retired lone_leader left (the target left its hex).
local function strike(u, target, how, cards, card, retiring)
  local s = tricorne.stats(u)
  local reason = u.id .. " " .. (how == "battle_back" and "battles back against" or how == "first_strike" and "strikes first at"
    or how == "bonus" and "bonus melee on" or "melees") .. " " .. target.id
  local d = melee.dice(u, target, how, cards, card)
  local out = { who = u.id, target = target.id, how = how, dice = d, faces = {}, hits = 0, flags = 0, removed = 0,
    eliminated = false, left = false }
  local from = target.hex
  local roll = tricorne.roll(d.total, reason)
  out.faces = tricorne.faces(roll)
  if tricorne.is_lone_leader(target) then
    if roll ~= nil then
      out.lone_leader = leaders.meleed(target, roll, u.side, reason)
      out.eliminated = out.lone_leader == "casualty" or out.lone_leader == "captured"
      out.left = true
    end
    return out
  end
  local sabres = tricorne.count(roll, "sabre")
  out.hits = tricorne.count(roll, tricorne.class(target))
  if s.sabres_hit and (not retiring or params.retire.sabres_hit) then
    out.hits += sabres
  end
  out.flags = retiring and 0 or tricorne.count(roll, "flag")
  local leader = target.leader
  out.removed, out.eliminated = tricorne.hit(target, out.hits, u.side, reason)
  if leader ~= nil and out.hits > 0 then
    out.leader_check = leaders.casualty_check(target, leader, u.side, out.eliminated, from, reason)
  end
  if not out.eliminated then
    if retiring then
      out.retired = retreat.retire(target, u.side, reason)
    else
      out.retreat = retreat.flags(target, out.flags, u.side, reason)
    end
    out.eliminated = not target.alive
  end
  out.left = out.eliminated or target.hex ~= from
  return out
end

------------------------------------------------------------------------------
-- Printing
------------------------------------------------------------------------------

local function describe_strike(st, indent)
  local lines = {}
  local head = indent .. st.who .. " " .. (st.how == "battle_back" and "battles back against" or st.how == "first_strike"
    and "strikes first at" or st.how == "bonus" and "bonus melee on" or "melees") .. " " .. st.target .. ": "
    .. tricorne.describe_dice(st.dice)
  table.insert(lines, head)
  if st.dice.total <= 0 then
    table.insert(lines, indent .. "  no dice: no effect")
    return lines
  end
  table.insert(lines, indent .. "  rolled [" .. table.concat(st.faces, " ") .. "]")
  if st.lone_leader then
    table.insert(lines, indent .. "  lone leader: " .. st.lone_leader)
    return lines
  end
  local s = indent .. "  " .. tricorne.plural(st.hits, "hit") .. ", " .. st.target .. " loses " .. st.removed
  if st.eliminated then
    s ..= ", eliminated"
  end
  table.insert(lines, s)
  if st.leader_check then
    local c = st.leader_check
    table.insert(lines, indent .. "  leader " .. c.leader .. ": casualty check [" .. table.concat(c.faces, " ") .. "] -> " .. c.outcome)
  end
  local t = st.retreat or st.retired
  if t and (t.hexes or 0) > 0 then
    local rs = indent .. "  " .. (st.retired and "retires" or ("flags " .. t.flags .. ", ignored " .. t.ignored .. ", retreats"))
      .. " " .. tricorne.plural(t.hexes, "hex", "hexes") .. ": moved " .. t.moved
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
  elseif t and t.flags > 0 then
    table.insert(lines, indent .. "  flags " .. t.flags .. ", all ignored")
  end
  return lines
end

local Record = {}
Record.__index = Record
local function describe(r, indent)
  local lines = {}
  local function add_all(ls)
    for _, l in ipairs(ls) do
      table.insert(lines, l)
    end
  end
  table.insert(lines, indent .. (r.bonus_melee and "bonus melee: " or "melee: ") .. r.attacker .. " attacks " .. r.defender
    .. (r.reaction ~= "stand" and (" (" .. r.defender .. ": " .. r.reaction .. ")") or ""))
  if r.first_strike then
    add_all(describe_strike(r.first_strike, indent .. "  "))
  end
  if r.cancelled then
    table.insert(lines, indent .. "  " .. r.attacker .. " " .. r.cancelled)
    return lines
  end
  add_all(describe_strike(r.attack, indent .. "  "))
  if r.took_ground then
    table.insert(lines, indent .. "  " .. r.attacker .. " takes ground: " .. tostring(r.took_ground))
  elseif r.ground then
    table.insert(lines, indent .. "  " .. r.attacker .. " does not take ground (" .. r.ground .. ")")
  end
  if r.battle_back then
    add_all(describe_strike(r.battle_back, indent .. "  "))
  elseif r.no_battle_back then
    table.insert(lines, indent .. "  no battle back: " .. r.no_battle_back)
  end
  if r.bonus then
    add_all(describe(r.bonus, indent .. "  "))
  elseif r.no_bonus then
    table.insert(lines, indent .. "  no bonus melee: " .. r.no_bonus)
  end
  return lines
end
Record.__tostring = function(r)
  return table.concat(describe(r, ""), "\n")
end

------------------------------------------------------------------------------
-- Taking ground, bonus melee, battle back
------------------------------------------------------------------------------

-- [Ground] May `u` take ground into `h` after this melee? Only an ordered
-- infantry or cavalry unit (never artillery; a battling-back unit never gets
-- here), never after the defender's First Strike or Ambush unless
-- params.melee.take_ground_after_first_strike, subject to terrain movement
-- rules (the hex free and passable, the unit not halted by terrain).
-- Returns true, or false and why not.
function melee.can_take_ground(u, h, first_struck)
  local class = tricorne.class(u)
  if class ~= "infantry" and class ~= "cavalry" then
    return false, u.type .. " never takes ground"
  end
  if u.ordered ~= true then
    return false, u.id .. " is not ordered"
  end
  if first_struck and not params.melee.take_ground_after_first_strike then
    return false, "the defender struck first"
  end
  if world:unit_at(h) ~= nil then
    return false, tostring(h) .. " is not vacant"
  end
  if tricorne.terrain(h).impassable then
    return false, tostring(h) .. " is impassable"
  end
  if tricorne.halted(u) then
    return false, u.id .. " was halted by terrain this turn"
  end
  return true
end

-- [Bonus] May `u`, having taken ground, make a bonus melee? An ordered
-- infantry unit with an attached leader, a unit whose type has bonus_melee
-- (highland infantry, cavalry); once a turn; not after the defender retired
-- and rallied; not from terrain that halts combat. Returns true, or false and why.
function melee.can_bonus(u, retired)
  if not params.melee.bonus_melee then
    return false, "bonus melee is off (melee.bonus_melee)"
  end
  if retired then
    return false, "the defender retired and rallied"
  end
  local s = tricorne.stats(u)
  if not (s.bonus_melee or (s.class == "infantry" and u.leader ~= nil)) then
    return false, u.id .. " is neither highland infantry, cavalry nor infantry with an attached leader"
  end
  if u.bonus_done then
    return false, u.id .. " already made its bonus melee this turn"
  end
  if tricorne.halted(u) then
    return false, u.id .. " entered " .. tostring(world:terrain(u.hex)) .. " and may not combat again"
  end
  return true
end

-- The defender's choices before the dice: retire and rally (types with
-- retire_and_rally), or a First Strike / Ambush card from its side's pool.
local function reaction(u, target)
  if tricorne.is_lone_leader(target) then
    return "stand"
  end
  local options = { "stand" }
  if tricorne.stats(target).retire_and_rally then
    table.insert(options, "retire and rally")
  end
  for _, card in ipairs({ "first strike", "ambush" }) do
    if world:pool(target.side, melee.CARD_POOLS[card]) > 0 then
      table.insert(options, card)
    end
  end
  if #options == 1 then
    return "stand"
  end
  return decide{ side = target.side, prompt = target.id .. " is attacked in melee by " .. u.id .. ": its reaction",
    options = options, default = "stand", id = "tricorne.defender_reaction" }
end

-- [Ground]+[Bonus]+[Back]+[Base] One melee by `u` on `target` and its aftermath.
local function resolve(u, target, cards, bonus, quiet)
  local rec = setmetatable({ attacker = u.id, defender = target.id, bonus_melee = bonus }, Record)
  local at, from = u.hex, target.hex
  if not quiet then
    world:clear_marks()
    world:mark(at, "A")
    world:mark(from, "D")
  end

  -- [Base] the defender's reaction
  rec.reaction = reaction(u, target)
  local card = melee.CARD_POOLS[rec.reaction] and rec.reaction or nil
  if card then
    world:add_pool(target.side, melee.CARD_POOLS[card], -1, target.id .. " plays " .. card)
    rec.first_strike = strike(target, u, "first_strike", nil, card, false)
    if not u.alive then
      rec.cancelled = "is eliminated by the first strike: no attack"
    elseif u.hex ~= at then
      rec.cancelled = "is forced out of its hex by the first strike: no attack"
    end
    if rec.cancelled then
      -- [Ground] a defender that struck first never takes ground
      if not quiet then
        world:note(tostring(rec))
      end
      return rec
    end
  end
  local retiring = rec.reaction == "retire and rally"

  -- the attack
  rec.attack = strike(u, target, bonus and "bonus" or "attack", cards, nil, retiring)
  local success = rec.attack.left

  if success then
    -- [Ground] the attacker may advance into the vacated hex
    local ok, why = melee.can_take_ground(u, from, card ~= nil)
    if ok then
      local choice = decide{ side = u.side, prompt = "take ground: move " .. u.id .. " into " .. tostring(from) .. "?",
        options = { "take ground", "stay" }, default = "take ground", id = "tricorne.take_ground" }
      if choice == "take ground" then
        tricorne.take_ground(u, from)
        rec.took_ground = from
      else
        rec.ground = "the attacker chose to stay"
      end
    else
      rec.ground = why
    end
    -- [Bonus] after taking ground only
    if rec.took_ground then
      local can, whynot = melee.can_bonus(u, retiring)
      if can then
        local enemies = tricorne.adjacent_enemies(u)
        if #enemies == 0 then
          rec.no_bonus = "no enemy adjacent"
        else
          local options = {}
          for _, e in ipairs(enemies) do
            table.insert(options, e.id)
          end
          table.insert(options, "none")
          local pick = decide{ side = u.side, prompt = "bonus melee: " .. u.id .. " attacks whom?", options = options,
            default = options[1], id = "tricorne.bonus_melee" }
          if pick ~= "none" then
            u.bonus_done = true
            local t2 = world:unit(pick)
            local ok2, why2 = melee.can_strike(u, t2, "bonus")
            if not ok2 then
              rules.violation(why2, 3)
            end
            rec.bonus = resolve(u, t2, nil, true, quiet)
          else
            rec.no_bonus = "the attacker declined"
          end
        end
      else
        rec.no_bonus = whynot
      end
    elseif bonus == false or bonus == nil then
      rec.no_bonus = "no ground taken"
    end
  else
    -- [Back] the defender battles back if it kept a block and its hex
    local a = rec.attack
    if not target.alive then
      rec.no_battle_back = "the defender is eliminated"
    elseif card then
      rec.no_battle_back = target.id .. " played " .. card
    elseif retiring then
      rec.no_battle_back = target.id .. " retired and rallied" -- even when it could not move
    elseif not u.alive then
      rec.no_battle_back = "the attacker is gone"
    elseif a.retreat and a.retreat.hexes > 0 and a.retreat.rally and not a.retreat.rally.passed then
      rec.no_battle_back = target.id .. " could not retreat and failed its rally check"
    else
      local ok, why = melee.can_strike(target, u, "battle_back")
      if ok then
        -- no reaction (First Strike, Ambush) against a battle back, and no
        -- battle back against it: one strike, then the melee stops
        rec.battle_back = strike(target, u, "battle_back", nil, nil, false)
      else
        rec.no_battle_back = why
      end
    end
  end
  if not bonus and not quiet then
    world:note(tostring(rec))
  end
  return rec
end

-- [Ground]+[Bonus]+[Back]+[Base] An ordered unit attacks an adjacent enemy
-- unit or lone leader in melee:
--   melee.attack{
--     unit   = "j1",                      -- the attacker (handle or id), ordered
--     target = "g2",                      -- an adjacent enemy unit or lone leader
--     cards  = { command = 1, combat = 0 }, -- optional dice additions
--     quiet  = true,                      -- optional: no map marks, no summary note (analysis)
--   }
-- Returns a record (prints as a summary): attacker defender reaction
-- first_strike cancelled attack took_ground ground battle_back no_battle_back
-- bonus (a nested record) no_bonus. Each strike: who target how dice faces
-- hits flags removed eliminated leader_check retreat retired lone_leader left.
function melee.attack(spec)
  if type(spec) ~= "table" then
    error("call melee.attack{unit=, target=}", 2)
  end
  local u = tricorne.unit(spec.unit, "attacking unit", 2)
  local target = tricorne.unit(spec.target, "target", 2)
  local ok, why = melee.can_strike(u, target, "attack")
  if not ok then
    rules.violation(why, 2)
  end
  return resolve(u, target, spec.cards, false, spec.quiet == true)
end

return melee
