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
-- One call resolves one unit's whole melee, in the document's steps, each
-- a function of this module that melee.resolve calls by name (so a designer
-- can find one and replace it):
--   melee.reaction      the defender's reaction (retire and rally, First
--   melee.first_strike  Strike, Ambush) and its first strike
--   melee.strike        the melee: dice, roll, hits, leader casualty check
--   melee.retreat       its flags: retreat and rally check (or retire)
--   melee.take_ground   [Ground] the attacker advances into the vacated hex
--   melee.bonus         [Bonus] the bonus melee (a melee.resolve of its own)
--   melee.battle_back   [Back] or, when the defender kept its hex, its battle back
-- So a unit's melee and bonus melee are complete before the next unit's
-- combat begins.
--
-- Decisions (ids for policies and `answers{}`):
--   tricorne.defender_reaction  the defender: "stand", "retire and rally",
--                               "first strike", "ambush" (only those it may)
--   tricorne.combat_card        the striking unit's side: a Combat card or "none"
--                               (tricorne.lua, offer_combat_card)
--   tricorne.take_ground        the attacker: "take ground" or "stay"
--   tricorne.bonus_melee        the attacker: an adjacent enemy's id, or "none"
--   tricorne.battle_back        the defender: "battle back" or "decline"
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
-- rolls params.combat.min_dice (default 0: no effect). A unit without melee
-- dice (a lone leader) is a rule error.
function melee.dice(u, target, how, cards, card)
  local p = params.melee
  local s = tricorne.stats(u)
  local base = s.melee
  if base == nil then
    rules.violation(u.id .. " (" .. u.type .. ") has no melee dice", 2)
  end
  local t = tricorne.tally(base, "melee")
  local add = tricorne.add
  if u.strength == u.max_strength then
    add(t, p.full_strength_bonus, "full strength")
  end
  if u.leader ~= nil then
    add(t, p.leader_bonus, "leader " .. u.leader)
  end
  if how == "attack" and s.highland_charge then
    add(t, p.highland_charge, "highland charge")
  end
  cards = cards or {}
  add(t, cards.command or 0, "Command card")
  add(t, cards.combat or 0, cards.combat_card and ("Combat card " .. cards.combat_card) or "Combat card")
  if card == "first strike" then
    add(t, p.first_strike_dice, "First Strike")
  elseif card == "ambush" then
    add(t, p.ambush_dice, "Ambush")
  end
  if s.class == "infantry" and tricorne.moved(u) then
    add(t, -p.moved_penalty, "moved")
  end
  local tr = tricorne.terrain_reduction(target.hex, "melee", s.class)
  if tr ~= 0 then
    add(t, -tr, "target in " .. tostring(world:terrain(target.hex)))
  end
  return tricorne.total(t)
end

------------------------------------------------------------------------------
-- The melee and its retreat
------------------------------------------------------------------------------

-- The words for a strike of kind `how`, in records and roll reasons.
local function verb(how)
  return how == "battle_back" and "battles back against" or how == "first_strike" and "strikes first at"
    or how == "bonus" and "bonus melee on" or "melees"
end

-- [Base] The melee step: `u` strikes `target` once (an attack, a bonus
-- melee, a battle back or a first strike): dice (melee.dice, with the card
-- dice `cards` and the First Strike / Ambush `card`), the roll, hits, and
-- the leader casualty check. Hits: one per symbol of the target's class,
-- plus sabres when u's type has sabres_hit. `retiring`: the target retires
-- and rallies, so only its own symbol hits (sabres too with
-- params.retire.sabres_hit) and its flags do not count. A lone leader
-- target: leaders.meleed. Its flags are applied by melee.retreat, the next
-- step. Returns the strike's record: who target how dice faces hits flags
-- removed eliminated leader_check lone_leader left (and, after
-- melee.retreat, retreat or retired).
function melee.strike(u, target, how, cards, card, retiring)
  local s = tricorne.stats(u)
  local reason = u.id .. " " .. verb(how) .. " " .. target.id
  local d = melee.dice(u, target, how, cards, card)
  local out = { who = u.id, target = target.id, how = how, dice = d, faces = {}, hits = 0, flags = 0, removed = 0,
    eliminated = false, left = false, reason = reason, from = target.hex, retiring = retiring == true }
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
    out.leader_check = leaders.casualty_check(target, leader, u.side, out.eliminated, out.from, reason)
  end
  out.left = out.eliminated
  return out
end

-- [Base] The retreat step of strike `st` by side `by_side` on `target`: a
-- target still standing retires and rallies (st.retiring:
-- retreat.retire) or retreats for its flags and takes its rally check
-- (retreat.flags). Sets st.retreat or st.retired, and st.left when the
-- target is gone or has left its hex. Returns st.
function melee.retreat(st, by_side, target)
  if st.lone_leader ~= nil or st.eliminated then
    return st
  end
  if st.retiring then
    st.retired = retreat.retire(target, by_side, st.reason)
  else
    st.retreat = retreat.flags(target, st.flags, by_side, st.reason)
  end
  st.eliminated = not target.alive
  st.left = st.eliminated or target.hex ~= st.from
  return st
end

------------------------------------------------------------------------------
-- Printing
------------------------------------------------------------------------------

local function describe_strike(st, indent)
  local lines = {}
  local head = indent .. st.who .. " " .. verb(st.how) .. " " .. st.target .. ": " .. tricorne.describe_dice(st.dice)
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
    table.insert(lines, indent .. "  " .. tricorne.describe_check(st.leader_check))
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
    if t.leader_check then
      table.insert(lines, indent .. "  " .. tricorne.describe_check(t.leader_check))
    end
    if t.rally and t.rally.leader_check then
      table.insert(lines, indent .. "  " .. tricorne.describe_check(t.rally.leader_check))
    end
  elseif t and t.flags > 0 then
    table.insert(lines, indent .. "  flags " .. t.flags .. ", all ignored")
  end
  return lines
end

local Record = {}
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

-- [Base] The defender's reaction, before the dice: retire and rally (types
-- with retire_and_rally), or a First Strike / Ambush card from its side's
-- pool. Ambush is a Combat card: offered only while the defender may still
-- have a card played for it this turn (tricorne.may_play_card). A lone
-- leader only stands. Decision tricorne.defender_reaction (default
-- "stand"), asked only when there is a choice.
function melee.reaction(u, target)
  if tricorne.is_lone_leader(target) then
    return "stand"
  end
  local options = { "stand" }
  if tricorne.stats(target).retire_and_rally then
    table.insert(options, "retire and rally")
  end
  for _, card in ipairs({ "first strike", "ambush" }) do
    if world:pool(target.side, melee.CARD_POOLS[card]) > 0 and (card ~= "ambush" or tricorne.may_play_card(target)) then
      table.insert(options, card)
    end
  end
  if #options == 1 then
    return "stand"
  end
  return decide{ side = target.side, prompt = function() return target.id .. " is attacked in melee by " .. u.id .. ": its reaction" end,
    options = options, default = "stand", id = "tricorne.defender_reaction", unit = target, attacker = u }
end

-- [Base] The defender plays `card` ("first strike" or "ambush") from its
-- side's pool and strikes first (melee.strike and melee.retreat, no other
-- card dice). An attacker eliminated or forced out of its hex by it makes
-- no attack: rec.cancelled says why. Returns true when the attack goes ahead.
function melee.first_strike(rec, u, target, card)
  world:add_pool(target.side, melee.CARD_POOLS[card], -1, target.id .. " plays " .. card)
  if card == "ambush" then
    tricorne.card_played(target)
  end
  local at = u.hex
  rec.first_strike = melee.retreat(melee.strike(target, u, "first_strike", nil, card, false), target.side, u)
  if not u.alive then
    rec.cancelled = "is eliminated by the first strike: no attack"
  elseif u.hex ~= at then
    rec.cancelled = "is forced out of its hex by the first strike: no attack"
  end
  return rec.cancelled == nil
end

-- [Ground] After a successful melee (rec.attack left its hex), `u` may
-- advance into the vacated hex `from`: melee.can_take_ground, then its
-- choice (decision tricorne.take_ground: "take ground" or "stay", default
-- "take ground"), then the move (tricorne.take_ground). An advance that a
-- reaction to the move stops or ends short of `from` has taken no ground.
-- Sets rec.took_ground (the hex) or rec.ground (why not).
function melee.take_ground(rec, u, from, first_struck)
  local ok, why = melee.can_take_ground(u, from, first_struck)
  if not ok then
    rec.ground = why
    return
  end
  local choice = decide{ side = u.side, prompt = function() return "take ground: move " .. u.id .. " into " .. tostring(from) .. "?" end,
    options = { "take ground", "stay" }, default = "take ground", id = "tricorne.take_ground", unit = u, hex = from }
  if choice ~= "take ground" then
    rec.ground = "the attacker chose to stay"
  elseif tricorne.take_ground(u, from) then
    rec.took_ground = from
  elseif not u.alive then
    rec.ground = u.id .. " was eliminated advancing into " .. tostring(from)
  else
    rec.ground = u.id .. "'s advance into " .. tostring(from) .. " was stopped at " .. tostring(u.hex)
  end
end

-- [Bonus] After taking ground (rec.took_ground), an eligible `u`
-- (melee.can_bonus) may make one bonus melee on any adjacent enemy
-- (decision tricorne.bonus_melee: an enemy's id or "none"; default the
-- first). Its dice are counted as for the attack, with the same card dice
-- `cards` (the Command card's, and a Combat card played for the melee); it
-- is a whole melee of its own (melee.resolve) and may take ground again.
-- Sets rec.bonus (a nested record) or rec.no_bonus (why not).
function melee.bonus(rec, u, cards, retired, quiet)
  if not rec.took_ground then
    rec.no_bonus = "no ground taken"
    return
  end
  local can, whynot = melee.can_bonus(u, retired)
  if not can then
    rec.no_bonus = whynot
    return
  end
  local enemies = tricorne.adjacent_enemies(u)
  if #enemies == 0 then
    rec.no_bonus = "no enemy adjacent"
    return
  end
  local options = {}
  for _, e in ipairs(enemies) do
    table.insert(options, e.id)
  end
  table.insert(options, "none")
  local pick = decide{ side = u.side, prompt = function() return "bonus melee: " .. u.id .. " attacks whom?" end,
    options = options, default = options[1], id = "tricorne.bonus_melee", unit = u }
  if pick == "none" then
    rec.no_bonus = "the attacker declined"
    return
  end
  u.bonus_done = true
  if cards.offered and cards.combat_card == nil then
    cards = { command = cards.command } -- no Combat card for the melee: one may be played now
  end
  rec.bonus = melee.resolve(u, world:unit(pick), cards, true, quiet)
end

-- [Back] After a melee that left `target` in its hex with a block, the
-- defender may battle back against `u` (decision tricorne.battle_back:
-- "battle back" or "decline", default "battle back"): one strike
-- (melee.strike and melee.retreat) with its dice counted as a normal melee
-- and a Combat card of its side's if params.combat_cards.battle_back; no
-- reaction against it and no battle back against it, so the melee stops.
-- Not after the defender played First Strike or Ambush (`card`), retired
-- and rallied (`retiring`), or could not retreat and failed its rally
-- check. Sets rec.battle_back or rec.no_battle_back (why not).
function melee.battle_back(rec, u, target, card, retiring)
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
    if not ok then
      rec.no_battle_back = why
      return
    end
    local choice = decide{ side = target.side, prompt = function() return target.id .. " may battle back against " .. u.id end,
      options = { "battle back", "decline" }, default = "battle back", id = "tricorne.battle_back", unit = target,
      attacker = u }
    if choice ~= "battle back" then
      rec.no_battle_back = target.id .. " chose not to battle back"
      return
    end
    local cards = nil
    if not params.combat_cards.battle_back then
      cards = { combat = 0 }
    end
    cards = tricorne.combat_dice(target, cards, "melee", "battles back against", u)
    rec.battle_back = melee.retreat(melee.strike(target, u, "battle_back", cards, nil, false), target.side, u)
  end
end

-- [Ground]+[Bonus]+[Back]+[Base] One melee by `u` on `target` and its
-- aftermath, in the document's steps: the defender's reaction
-- (melee.reaction, melee.first_strike), the melee (melee.strike) and its
-- retreat (melee.retreat); then, when the defender has left its hex,
-- taking ground (melee.take_ground) and a bonus melee (melee.bonus),
-- otherwise the battle back (melee.battle_back). `bonus`: this is a bonus
-- melee (no bonus melee of its own). `cards`: the card dice of the melee
-- (tricorne.combat_dice). Returns the record.
function melee.resolve(u, target, cards, bonus, quiet)
  local rec = setmetatable({ attacker = u.id, defender = target.id, bonus_melee = bonus }, Record)
  local from = target.hex
  if not quiet then
    world:clear_marks()
    world:mark(u.hex, "A")
    world:mark(from, "D")
  end
  rec.reaction = melee.reaction(u, target)
  local card = melee.CARD_POOLS[rec.reaction] and rec.reaction or nil
  -- [Ground] a defender that struck first never takes ground: it only strikes
  if card == nil or melee.first_strike(rec, u, target, card) then
    local retiring = rec.reaction == "retire and rally"
    local how = bonus and "bonus" or "attack"
    cards = tricorne.combat_dice(u, cards, "melee", verb(how), target)
    rec.attack = melee.retreat(melee.strike(u, target, how, cards, nil, retiring), u.side, target)
    if rec.attack.left then
      melee.take_ground(rec, u, from, card ~= nil)
      if rec.took_ground or not bonus then
        melee.bonus(rec, u, cards, retiring, quiet)
      end
    else
      melee.battle_back(rec, u, target, card, retiring)
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
--     again  = true,                      -- optional: a second combat this turn, on purpose
--     quiet  = true,                      -- optional: no map marks, no summary note (analysis)
--   }
-- Without `cards.combat`, the attacker's side may play a Combat card from
-- its hand that adds melee dice (tricorne.offer_combat_card); the card dice
-- count for its bonus melee too. A unit fires or attacks once a turn: a
-- second combat is a rule error unless `again`.
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
  tricorne.start_combat(u, spec.again, 2)
  return melee.resolve(u, target, spec.cards, false, spec.quiet == true)
end

return melee
