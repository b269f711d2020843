-- rulesets/tricorne/tricorne.lua — what the Tricorne combat modules share:
-- unit stats, dice counts, hits and victory banners, the turn properties
-- `ordered` / `moved`, and the rule-error helper.
--
-- Tags used across the ruleset's modules (see README.md, "The rules, clause
-- by clause"):
--   [Fire]     ranged-combat.txt (R1 who fires, R2 range, R3 LOS, R4 dice,
--              R5 roll, R6 hits, R7 retreats)
--   [Ground]   melee-take-ground.txt, "Taking Ground"
--   [Bonus]    melee-take-ground.txt, "Bonus Melee"
--   [Back]     melee-take-ground.txt, "Defending Unit Battle Back"
--   [Base]     the base rules both documents assume (melee dice and hits,
--              retreats, rally checks, retire and rally, First Strike and
--              Ambush, leaders); our version, with params
--
-- Turn properties (set by the turn frame, rulesets/lib/cc_turn.lua, which
-- turn.lua plugs tricorne into; specs that skip the frame set them by hand):
--   u.ordered     true: ordered by this turn's Command card (cc_turn)
--   u.moved       hexes moved this turn (cc_turn; taking ground adds 1)
--   u.fought      true: has had its combat this turn (cc_turn)
--   u.bonus_done  true: made its bonus melee this turn (melee.lua)
--   u.combat_done true: fired or attacked in melee this turn (ranged.fire,
--                 melee.attack: a second combat is refused unless `again`)
--   u.cards_played  Combat cards its side played for it this turn
-- turn.lua clears the last three at the end of every turn.
-- "Halted" (entered terrain with `stops` this turn: no combat) is not
-- stored: it is a unit that moved this turn and stands on such terrain.
--
-- At a prompt:
--   game = turn.new{}; game:play("government")   -- asks which card of the hand
--   game:order("g2"); game:fight(); game:end_turn()
--   print(ranged.fire{unit="g2", target="j2"})

local cc = require("lib/cc")
local rules = require("lib/rules")

local tricorne = {}

tricorne.DIE = "battle"

------------------------------------------------------------------------------
-- Unit stats (ruleset.yaml unit_types)
------------------------------------------------------------------------------

local TYPES = ruleset.unit_types or {}

-- The stats table of a unit (or type name); a clear error for an unknown type.
function tricorne.stats(u)
  local name = type(u) == "string" and u or u.type
  local s = TYPES[name]
  if s == nil then
    error("unit type '" .. tostring(name) .. "' is not in the tricorne ruleset's unit_types", 3)
  end
  return s
end

-- The die symbol that hits a unit: infantry, cavalry, artillery (or leader).
function tricorne.class(u)
  return tricorne.stats(u).class
end

function tricorne.is_lone_leader(u)
  return tricorne.stats(u).class == "leader"
end

-- A handle from a handle or an id, alive on the map; `what` names it in errors.
function tricorne.unit(x, what, level)
  local u = x
  if type(x) == "string" then
    u = world:unit(x)
    if u == nil then
      error("no unit '" .. x .. "' (" .. what .. ")", (level or 2) + 1)
    end
  end
  if type(u) ~= "userdata" then
    error(what .. " must be a unit or a unit id, not " .. type(x), (level or 2) + 1)
  end
  if not u.alive or u.hex == nil then
    error(what .. " " .. u.id .. " is not on the battlefield", (level or 2) + 1)
  end
  return u
end

-- Enemy units and lone leaders adjacent to `u`. units_only leaves out leaders.
function tricorne.adjacent_enemies(u, units_only)
  local out = {}
  for _, h in ipairs(u.hex:neighbors()) do
    local v = world:unit_at(h)
    if v ~= nil and v.side ~= u.side and not (units_only and tricorne.is_lone_leader(v)) then
      table.insert(out, v)
    end
  end
  return out
end

------------------------------------------------------------------------------
-- Terrain
------------------------------------------------------------------------------

local TERRAIN = ruleset.terrain or {}
local NONE = table.freeze({})

-- The ruleset's entry for a hex's terrain (an empty table when none).
function tricorne.terrain(h)
  local name = world:terrain(h)
  return name and TERRAIN[name] or NONE
end

-- [Base] Dice an attacker of class `class` loses against a target standing on
-- `h`: the terrain's `ranged` or `melee` entry, a number or a table by class.
function tricorne.terrain_reduction(h, kind, class)
  local r = tricorne.terrain(h)[kind]
  if type(r) == "table" then
    r = r[class]
  end
  return r or 0
end

------------------------------------------------------------------------------
-- The turn properties
------------------------------------------------------------------------------

-- Has `u` moved this turn (movement or taking ground)?
function tricorne.moved(u)
  return (u.moved or 0) > 0
end

-- [Base] Is `u` halted: it moved this turn and stands on terrain with
-- `stops` (it entered it this turn, by movement or by taking ground), so it
-- may not combat (also no bonus melee from there).
function tricorne.halted(u)
  return tricorne.moved(u) and tricorne.terrain(u.hex).stops == true
end

-- [Base] The most hexes `u` may have moved this turn and still combat:
-- kind "ranged" reads the type's move_and_fire, then move_and_fight, then
-- move; kind "melee" reads move_and_fight, then move (ruleset.yaml
-- unit_types; cc_turn reads the same fields).
function tricorne.move_limit(u, kind)
  local s = tricorne.stats(u)
  local most = s.move_and_fight or s.move or 1
  if kind == "ranged" and s.move_and_fire ~= nil then
    most = s.move_and_fire
  end
  return most
end

-- [Base] May `u` still combat (`kind` "ranged" or "melee") after its move
-- this turn? Returns true, or false and why: it moved further than its type
-- allows, or it is halted by terrain.
function tricorne.may_combat_after_move(u, kind)
  local moved = u.moved or 0
  local most = tricorne.move_limit(u, kind)
  if moved > most then
    if most == 0 then
      return false, u.id .. " (" .. u.type .. ") moved this turn and may not combat after moving"
    end
    return false, u.id .. " (" .. u.type .. ") moved " .. moved .. " hexes this turn; after more than " .. most
      .. " it may not " .. (kind == "ranged" and "fire" or "melee")
  end
  if tricorne.halted(u) then
    return false, u.id .. " entered " .. tostring(world:terrain(u.hex)) .. " this turn and may not combat"
  end
  return true
end

-- [Ground] Moves `u` one hex into `h` (the hex its melee vacated) through
-- world:move, so `enters`/`leaves` reactions see it; taking ground counts as
-- movement (moved + 1) once the unit has left its hex. Returns true when
-- the unit stands on `h` (alive), false when a reaction stopped or
-- eliminated it on the way.
function tricorne.take_ground(u, h)
  local from = u.hex
  world:move(u, { h })
  if u.alive and u.hex ~= from then
    u.moved = (u.moved or 0) + 1
  end
  return u.alive and u.hex == h
end

-- [Fire R1]/[Base] One combat per unit per turn: `u` may fire or attack in
-- melee only if it has not yet this turn (its bonus melee is part of its
-- melee), unless the caller says the second combat is deliberate
-- (`again`). Raises a rule error at the caller's caller otherwise; marks
-- the unit's combat as done.
function tricorne.start_combat(u, again, level)
  if u.combat_done and not again then
    rules.violation(u.id .. " has already fired or attacked this turn: a unit combats once a turn (again = true to let it combat again)",
      (level or 1) + 1)
  end
  u.combat_done = true
end

------------------------------------------------------------------------------
-- Combat cards (ruleset.yaml charts.combat_cards; a side's hand of each card
-- is its pool of the card's name)
------------------------------------------------------------------------------

local COMBAT_CARDS = (type(ruleset.charts) == "table" and ruleset.charts.combat_cards) or {}

-- [Fire R4]/[Base] The dice Combat card `name` adds to a combat of `kind`
-- ("fire", or "melee" for an attack, a bonus melee or a battle back). A
-- card the chart does not list, or another kind, is an error (a misspelt
-- name would otherwise add nothing, silently).
function tricorne.card_dice(name, kind)
  local c = COMBAT_CARDS[name]
  if c == nil then
    error("no Combat card '" .. tostring(name) .. "' in ruleset.yaml charts.combat_cards", 2)
  end
  if kind ~= "fire" and kind ~= "melee" then
    error("tricorne.card_dice: the kind of combat is \"fire\" or \"melee\", not " .. tostring(kind), 2)
  end
  local n = c.melee_dice
  if kind == "fire" then
    n = c.ranged_dice
  end
  return n or 0
end

-- The cards that add dice to each kind of combat, by name (read once: the
-- offer below runs before every combat).
local CARDS_FOR = { fire = {}, melee = {} }
do
  local names = {}
  for name in pairs(COMBAT_CARDS) do
    table.insert(names, name)
  end
  table.sort(names)
  for kind, list in pairs(CARDS_FOR) do
    for _, name in ipairs(names) do
      if tricorne.card_dice(name, kind) ~= 0 then
        table.insert(list, name)
      end
    end
  end
end

-- [Base] May `u`'s side still play a Combat card for it this turn (one
-- card per unit per turn, params.combat_cards.per_unit)?
function tricorne.may_play_card(u)
  return (u.cards_played or 0) < params.combat_cards.per_unit
end

-- [Base] Counts a Combat card played for `u` this turn.
function tricorne.card_played(u)
  u.cards_played = (u.cards_played or 0) + 1
end

-- [Fire R4]/[Base] `u`'s side may play a Combat card from its hand for u's
-- combat of `kind` ("fire" or "melee") on `target` (`verb` says which
-- combat, for the prompt: "fires at", "melees", ...): the cards it holds
-- that add dice to that kind, while it may still play one for u this
-- turn. Decision tricorne.combat_card: a card's name or "none" (the
-- default). A card played leaves the side's pool and counts for u.
-- Returns { name =, title =, dice = }, or nil when none is played.
function tricorne.offer_combat_card(u, kind, verb, target)
  local options = nil
  local side = u.side
  for _, name in ipairs(CARDS_FOR[kind]) do
    if world:pool(side, name) > 0 then
      options = options or {}
      table.insert(options, name)
    end
  end
  if options == nil or not tricorne.may_play_card(u) then
    return nil
  end
  table.insert(options, "none")
  local pick = decide{ side = side, id = "tricorne.combat_card", options = options, default = "none",
    prompt = function() return u.id .. " " .. verb .. " " .. target.id .. ": play a Combat card?" end,
    unit = u, target = target, combat = kind }
  if pick == "none" then
    return nil
  end
  local title = COMBAT_CARDS[pick].title or pick
  world:add_pool(side, pick, -1, u.id .. " plays " .. title)
  tricorne.card_played(u)
  return { name = pick, title = title, dice = tricorne.card_dice(pick, kind) }
end

-- The card dice of a combat in which no card was given or played.
local NO_CARDS = table.freeze({ command = 0, combat = 0, offered = true })

-- [Fire R4]/[Base] The card dice of a combat: the caller's `cards`
-- ({ command = n, combat = n }, both optional), and when the caller gave no
-- Combat card dice, the card `u`'s side plays now (offer_combat_card, with
-- `verb` and `target` for its prompt). Returns a table { command =,
-- combat =, combat_card = title or nil, offered = true when the side was
-- offered its cards here } (the caller's own table is never changed).
function tricorne.combat_dice(u, cards, kind, verb, target)
  if cards ~= nil and cards.combat ~= nil then
    return cards
  end
  local card = tricorne.offer_combat_card(u, kind, verb, target)
  local command = cards and cards.command or 0
  if card == nil and command == 0 then
    return NO_CARDS
  end
  return { command = command, combat = card and card.dice or 0, combat_card = card and card.title, offered = true }
end

------------------------------------------------------------------------------
-- Dice and hits
------------------------------------------------------------------------------

-- A dice count built from labelled parts, as ranged.dice and melee.dice
-- list them: tricorne.tally starts it at the base dice, tricorne.add adds a
-- part (skipping parts worth 0), tricorne.total sets `total` (after
-- tricorne.final_dice) and returns the count { base, parts, raw, total }.
function tricorne.tally(base, why)
  return { base = base, parts = { { n = base, why = why } }, raw = base }
end

function tricorne.add(t, n, why)
  if n ~= 0 then
    table.insert(t.parts, { n = n, why = why })
    t.raw += n
  end
end

function tricorne.total(t)
  t.total = tricorne.final_dice(t.raw)
  return t
end

-- The dice a combat rolls after its additions and reductions (params.combat.min_dice).
function tricorne.final_dice(total)
  local least = params.combat.min_dice
  if total < least then
    return least
  end
  return total
end

-- Rolls n battle dice; returns the roll, or nil for no dice.
function tricorne.roll(n, reason)
  if n <= 0 then
    return nil
  end
  return dice.roll(n, tricorne.DIE, reason)
end

function tricorne.count(roll, symbol)
  if roll == nil then
    return 0
  end
  return roll:count(symbol)
end

-- The faces of a roll as a list (empty for no roll).
function tricorne.faces(roll)
  if roll == nil then
    return {}
  end
  local out = {}
  for _, f in ipairs(roll.faces) do
    table.insert(out, f)
  end
  return out
end

-- [Fire R6]/[Base] One block per hit, surplus hits lost; the last block gives
-- `by_side` a victory banner (lib/cc apply_hits). Returns removed, eliminated.
function tricorne.hit(u, hits, by_side, reason)
  return cc.apply_hits(u, hits, by_side, reason)
end

-- A banner for `side` (a leader lost, ...).
function tricorne.banner(side, reason)
  cc.award_medal(side, reason)
end

-- "1 hit", "2 hits"; "1 hex", "2 hexes" (give the plural when it is not word .. "s").
function tricorne.plural(n, word, words)
  return n .. " " .. (n == 1 and word or (words or word .. "s"))
end

-- "leader Cope: casualty check [sabre flag] -> unhurt": an attached
-- leader's casualty check (leaders.casualty_check) in a record's summary.
function tricorne.describe_check(c)
  return "leader " .. c.leader .. ": casualty check [" .. table.concat(c.faces, " ") .. "] -> " .. c.outcome
end

-- "3 (base 2, +1 full strength)" style text for a dice breakdown.
function tricorne.describe_dice(d)
  local parts = {}
  for _, p in ipairs(d.parts) do
    table.insert(parts, (p.n >= 0 and "+" or "") .. p.n .. " " .. p.why)
  end
  return d.total .. " dice (" .. table.concat(parts, ", ") .. ")"
end

return tricorne
