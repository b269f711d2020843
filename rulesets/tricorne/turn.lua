-- rulesets/tricorne/turn.lua — the Tricorne turn: the shared Command & Colors
-- turn frame (rulesets/lib/cc_turn.lua) with tricorne's own combat plugged in.
--
--   1. play a Command card (the deck: ruleset.yaml charts.cards)   game:play(side, card)
--   2. order units in the card's sections (the player's own flanks) game:order(unit)
--   3. move (unit_types move; terrain with `stops` ends a move)     game:move(unit, hex)
--   4. combat: each ordered unit fires or melees once, in the       game:battle(unit) / game:fight()
--      player's order (turn.combat: ranged.fire or melee.attack,
--      a melee with its taking ground and bonus melee complete)
--   5. draw a card; victory banners end the game                    game:end_turn()
--
-- The frame sets the turn properties the combat rules read (`ordered`,
-- `moved` in hexes, `fought`); turn.lua adds the end-of-turn clearing of
-- tricorne's own `bonus_done`, `combat_done` and `cards_played`. Victory banners are the `medals` pool (every
-- banner the combat rules award counts); params.cc_turn.victory_banners
-- (or new{victory = n}) ends the game.
--
-- Decisions (ids for policies and `answers{}`), besides the frame's
-- cc_turn.card, cc_turn.order, cc_turn.move and cc_turn.combat:
--   tricorne.target   the ordered unit's target: an enemy id (adjacent:
--                     melee, else ranged fire) or "none"
--
-- At a prompt:
--   game = turn.new{ deck = {"probe_left", "probe_centre", ...} }
--   game:play("government", "probe_left"); game:order("g2"); game:fight(); game:end_turn()

local cc_turn = require("lib/cc_turn")
local tricorne = require("tricorne")
local ranged = require("ranged")
local melee = require("melee")

local turn = {}

-- [Turn 4] The enemies ordered unit `u` may combat now, in map order: every
-- adjacent enemy it may melee, then every distant one it may fire at (a unit
-- adjacent to an enemy unit fires at no one, ranged.can_target). Returns a
-- list of { unit =, kind = "melee" | "fire" }.
function turn.targets(u)
  local out = {}
  for _, v in ipairs(world:units{}) do
    if v.side ~= u.side and v.alive and v.hex ~= nil then
      if u.hex:distance(v.hex) == 1 then
        if melee.can_strike(u, v, "attack") then
          table.insert(out, { unit = v, kind = "melee" })
        end
      elseif ranged.can_target(u, v) then
        table.insert(out, { unit = v, kind = "fire" })
      end
    end
  end
  table.sort(out, function(a, b)
    if a.kind ~= b.kind then
      return a.kind == "melee"
    end
    return a.unit.id < b.unit.id
  end)
  return out
end

-- [Fire R4]/[Base] The dice the Command card played this turn adds to a
-- combat of `kind` ("fire" or "melee"): its chart entry's `ranged_dice` or
-- `melee_dice` (default 0).
function turn.card_dice(game, kind)
  local play = game.played
  local chart = game.opts.cards or (type(ruleset.charts) == "table" and ruleset.charts.cards) or {}
  local entry = play and chart[play.card.name]
  if entry == nil then
    return 0
  end
  local n = entry.melee_dice
  if kind == "fire" then
    n = entry.ranged_dice
  end
  return n or 0
end

-- [Turn 4] One ordered unit's combat (the frame's opts.combat): the owner
-- picks a target (decision tricorne.target; default the first, melee before
-- fire) and the unit melees it (melee.attack: reaction, attack, retreats,
-- with the Command card's dice, turn.card_dice,
-- take ground, bonus melee or battle back, all before the next unit) or
-- fires at it (ranged.fire). A unit with no target, or whose owner answers
-- "none", does not combat. Returns the combat's record, or nil.
function turn.combat(game, u)
  local targets = turn.targets(u)
  if #targets == 0 then
    local why = "no enemy in range and line of sight"
    local ok, whynot = tricorne.may_combat_after_move(u, "melee")
    if not ok then
      why = whynot
    end
    world:note(u.id .. " does not combat: " .. why)
    if not game.opts.quiet then
      print(u.id .. " does not combat: " .. why)
    end
    return nil
  end
  local options = {}
  for _, t in ipairs(targets) do
    table.insert(options, t.unit.id)
  end
  table.insert(options, "none")
  local pick = decide{ side = u.side, prompt = u.id .. " at " .. tostring(u.hex)
    .. ": melee (adjacent) or fire at whom?", options = options, default = options[1], id = "tricorne.target" }
  if pick == "none" then
    world:note(u.id .. " does not combat")
    return nil
  end
  local t = targets[table.find(options, pick)]
  local cards = { command = turn.card_dice(game, t.kind) }
  local rec
  if t.kind == "melee" then
    rec = melee.attack{ unit = u, target = t.unit, cards = cards }
  else
    rec = ranged.fire{ unit = u, target = t.unit, cards = cards }
  end
  if not game.opts.quiet then
    print(rec) -- the summary the log also holds, for the person at the REPL
  end
  return rec
end

local frame_end_turn = nil -- lib/cc_turn's Game:end_turn

-- [Turn 5] Ends the turn: the frame's end_turn (draw, clear ordered/moved/
-- fought, victory, next side), and every unit's combat, bonus melee and
-- Combat card are available again (the defenders' too: a battle back's card
-- was played in this turn).
local function end_turn(game)
  for _, u in ipairs(world:units{}) do
    u.bonus_done, u.combat_done, u.cards_played = nil, nil, nil
  end
  return frame_end_turn(game)
end

-- A new game on the current world (lib/cc_turn.new with tricorne's combat):
-- every cc_turn option may be given (deck, shuffle, hand, victory, ...);
-- `combat` defaults to turn.combat; `quiet = true` prints no combat summaries.
function turn.new(opts)
  opts = opts or {}
  opts.combat = opts.combat or turn.combat
  local game = cc_turn.new(opts)
  frame_end_turn = frame_end_turn or getmetatable(game).__index.end_turn
  game.end_turn = end_turn
  return game
end

return turn
