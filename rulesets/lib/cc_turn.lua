-- rulesets/lib/cc_turn.lua — a minimal Command & Colors turn frame.
--
-- The turn of every Command & Colors game, with the rules' own combat left to
-- the ruleset:
--   1. play a command card from your hand            game:play(side, card)
--   2. order units in the card's sections            game:order(unit)
--   3. move ordered units (movement points, stops)   game:move(unit, to)
--   4. combat: each ordered unit fights once         game:battle(x) / game:fight() -> opts.combat
--   5. draw a command card; check victory            game:end_turn()
-- Each function is tagged [Turn n] with the step it implements (the series'
-- sequence of play: shared/research/base-rules.md §1.1 "Turn sequence", and
-- §5 for The Great War's movement). See rulesets/lib/README.md for every
-- function and how a ruleset plugs in.
--
-- Data it reads from the loading ruleset (each can be given to new{} instead):
--   ruleset.charts.cards[name]   { kind = "section" | any tactic kind,
--                                  section = "left" | sections = {...},
--                                  orders = n, title = "...", count = copies }
--   ruleset.unit_types[type]     { move = hexes, move_and_fight = hexes }
--   ruleset.terrain[name]        { stops = true, impassable = true }
--   params.cc_turn               { hand_size =, victory_banners = } (optional)
-- State: the deck, hands and the current card live in the game table; what
-- rules read lives in the world: unit properties `ordered` (true), `moved`
-- (hexes this turn) and `fought` (true), and the side pools for victory
-- banners (cc.MEDAL_POOL) and combat cards (cc.COMBAT_CARD_POOL).

local cc = require("lib/cc")
local rules = require("lib/rules")

local cc_turn = {}

local Game = {}
Game.__index = Game

-- Setup ---------------------------------------------------------------------

-- A card from a chart entry: { name, kind, sections = {...}, orders, title }.
local function card_of(name, c)
  local sections = c.sections
  if sections == nil and c.section ~= nil then
    sections = { c.section }
  end
  return {
    name = name,
    kind = c.kind or (sections and "section") or "tactic",
    sections = sections or {},
    orders = c.orders or 0,
    title = c.title or name,
    battlefield_only = c.battlefield_only == true,
    count = c.count or 1,
  }
end

-- The die kind with `n` faces that shuffles a deck of n cards (defined once
-- per size); a spec forces it: dice.force(cc_turn.shuffle_die(3), { 1 }).
function cc_turn.shuffle_die(n)
  local kind = "cc_turn.d" .. n
  if not table.find(dice.kinds(), kind) then
    dice.define(kind, n)
  end
  return kind
end

-- The value of an option that may be one number for every side or a table
-- side -> number.
local function per_side(v, side)
  if type(v) == "table" then
    return v[side] or 0
  end
  return v
end

-- A new game on the current world: the deck built and dealt. opts (all optional but combat):
--   cards    = chart of cards (default ruleset.charts.cards)
--   deck     = list of card names, top first (default: every card `count`
--              times, shuffled with the dice)
--   shuffle  = false keeps `deck` in the order given
--   hand     = cards dealt to each side (number or { side = n }; default
--              params.cc_turn.hand_size, else 5)
--   victory  = banners that win (number or { side = n }; default
--              params.cc_turn.victory_banners, else 6)
--   banner_pool = the side pool of victory banners (default cc.MEDAL_POOL)
--   movement = function(unit) -> hexes it may move (default unit_types move, else 1)
--   move_and_fight = function(unit) -> most hexes it may move and still fight
--              (default unit_types move_and_fight, else its movement)
--   stops    = function(hex) -> true when entering it ends a move (default:
--              terrain with stops: true)
--   may_order = function(game, x, card) -> ok, why: orders for things that are
--              not battlefield units (e.g. great_war's reserve artillery); also
--              asked for units, after the frame's own checks, when given
--   tactic   = function(game, card) -> how many orders a tactic card gives
--              (default: its `orders`)
--   combat   = function(game, x) -> the ruleset's combat for one ordered unit
--   fights_first = function(x) -> true for ordered things that must fight
--              before the others (great_war: the reserve artillery)
function cc_turn.new(opts)
  opts = opts or {}
  local p = params.cc_turn or {}
  local chart = opts.cards or (type(ruleset.charts) == "table" and ruleset.charts.cards) or {}
  local cards, names = {}, {}
  for name, c in pairs(chart) do
    cards[name] = card_of(name, c)
    table.insert(names, name)
  end
  table.sort(names)
  local game = setmetatable({
    cards = cards,
    card_names = names,
    deck = {},
    discards = {},
    hands = {},
    played = nil, -- the card played this turn: { side, card, orders, sections }
    ordered = {}, -- ordered units and other ordered things, in order
    opts = opts,
    victory = opts.victory or p.victory_banners or 6,
    banner_pool = opts.banner_pool or cc.MEDAL_POOL,
    winner = nil,
  }, Game)
  if opts.deck then
    game:stack(opts.deck)
  else
    for _, name in ipairs(names) do
      for _ = 1, cards[name].count do
        table.insert(game.deck, name)
      end
    end
  end
  local shuffle = opts.shuffle
  if shuffle == nil then
    shuffle = opts.deck == nil
  end
  if shuffle then
    game:shuffle()
  end
  local hand = opts.hand or p.hand_size or 5
  for _, side in ipairs(world:sides()) do
    game.hands[side] = {}
    for _ = 1, per_side(hand, side) do
      game:draw(side)
    end
  end
  return game
end

-- A card of the chart by name (or the card itself); a clear error otherwise.
function Game:card(name)
  if type(name) == "table" then
    return name
  end
  local c = self.cards[name]
  if c == nil then
    error("no command card named '" .. tostring(name) .. "' (cards: " .. table.concat(self.card_names, ", ") .. ")", 3)
  end
  return c
end

-- Shuffles the deck with the dice (Fisher-Yates, one die per card).
function Game:shuffle()
  local deck = self.deck
  for i = #deck, 2, -1 do
    local j = dice.roll(1, cc_turn.shuffle_die(i), "shuffle the command cards").total
    deck[i], deck[j] = deck[j], deck[i]
  end
end

-- Puts cards on top of the deck, the first given on top (for specs and
-- what-ifs: the next draws take them in this order). The deck's top is the
-- end of game.deck.
function Game:stack(names)
  for i = #names, 1, -1 do
    self:card(names[i]) -- a clear error for a name not in the chart
    table.insert(self.deck, names[i])
  end
end

-- The cards in `side`'s hand, sorted (a copy).
function Game:hand(side)
  local h = self.hands[side]
  if h == nil then
    error("no side '" .. tostring(side) .. "'", 2)
  end
  local out = table.clone(h)
  table.sort(out)
  return out
end

-- [Turn 5] `side` draws the top card of the deck into its hand (when the
-- deck runs out, the discards are shuffled into a new deck). Returns the
-- card's name, or nil when no card is left anywhere.
function Game:draw(side)
  if #self.deck == 0 and #self.discards > 0 then
    self.deck, self.discards = self.discards, {}
    self:shuffle()
  end
  local name = table.remove(self.deck)
  if name ~= nil then
    table.insert(self.hands[side], name)
    world:note(side .. " draws a command card")
  end
  return name
end

-- Turn 1: play a card ---------------------------------------------------------

-- [Turn 1] `side` plays a command card from its hand (`name`; nil: the side
-- decides, decision id "cc_turn.card"). It must be that side's turn and no
-- card played yet. Returns the play: { side, card, orders, sections } where
-- sections are the card's sections as the board names them (lib/cc
-- board_section: each side's flanks are on its own left and right).
function Game:play(side, name)
  if self.winner then
    rules.violation("the game is over: " .. self.winner .. " has won", 2)
  end
  if world:current_side() ~= nil and side ~= world:current_side() then
    rules.violation("it is " .. world:current_side() .. "'s turn, not " .. side .. "'s", 2)
  end
  if self.played ~= nil then
    rules.violation(side .. " has already played " .. self.played.card.title .. " this turn", 2)
  end
  local hand = self.hands[side]
  if hand == nil then
    error("no side '" .. tostring(side) .. "'", 2)
  end
  if name == nil then
    local options = self:hand(side)
    if #options == 0 then
      rules.violation(side .. " has no command card to play", 2)
    end
    name = decide{ side = side, prompt = "command card to play", options = options, id = "cc_turn.card" }
  end
  local card = self:card(name)
  local at = table.find(hand, card.name)
  if at == nil then
    rules.violation(side .. " does not hold " .. card.title .. " (hand: " .. table.concat(self:hand(side), ", ") .. ")", 2)
  end
  table.remove(hand, at)
  table.insert(self.discards, card.name)
  local orders = card.orders
  if card.kind ~= "section" and self.opts.tactic then
    orders = self.opts.tactic(self, card)
  end
  local sections = {}
  for i, s in ipairs(card.sections) do
    sections[i] = cc.board_section(side, s)
  end
  self.played = { side = side, card = card, orders = orders, sections = sections }
  world:note(side .. " plays " .. card.title)
  return self.played
end

-- Turn 2: orders ---------------------------------------------------------------

-- Can the card played this turn order `x` (a unit, or anything the ruleset's
-- may_order accepts)? Returns true, or false and the reason.
--   * a card must have been played, with an order left;
--   * a unit: alive, of the playing side, not ordered yet, and for a section
--     card in one of the card's sections as its side sees them (a unit on a
--     section line may be ordered from either section);
--   * then the ruleset's may_order, if any (required for things that are not units).
function Game:can_order(x)
  local play = self.played
  if play == nil then
    return false, "no command card has been played this turn"
  end
  if #self.ordered >= play.orders then
    return false, play.card.title .. " gives " .. play.orders .. " order" .. (play.orders == 1 and "" or "s")
      .. ", all given"
  end
  if type(x) == "string" then
    x = world:unit(x) or x
  end
  if type(x) == "userdata" then
    if not x.alive or x.hex == nil then
      return false, x.id .. " is not on the battlefield"
    end
    if x.side ~= play.side then
      return false, x.id .. " belongs to " .. x.side .. ", not to " .. play.side
    end
    if x.ordered then
      return false, x.id .. " is already ordered"
    end
    if play.card.kind == "section" then
      local inside = false
      for _, s in ipairs(play.card.sections) do
        if cc.in_side_section(play.side, x.hex, s) then
          inside = true
        end
      end
      if not inside then
        return false, x.id .. " at " .. tostring(x.hex) .. " is in " .. play.side .. "'s "
          .. table.concat(cc.side_sections(play.side, x.hex), "/") .. " section, but " .. play.card.title
          .. " orders units in the " .. table.concat(play.card.sections, "/") .. " section"
      end
    end
    if self.opts.may_order then
      return self.opts.may_order(self, x, play.card)
    end
    return true
  end
  if self.opts.may_order then
    return self.opts.may_order(self, x, play.card)
  end
  return false, tostring(x) .. " is not a unit (the ruleset gives no may_order rule for it)"
end

-- The units of the playing side that could be ordered now.
function Game:orderable()
  local out = {}
  if self.played == nil then
    return out
  end
  for _, u in ipairs(world:units{ side = self.played.side }) do
    if self:can_order(u) then
      table.insert(out, u)
    end
  end
  return out
end

-- [Turn 2] Orders `x` (a unit handle or id, or a ruleset's own orderable
-- thing such as a battery descriptor). A unit gets the property ordered =
-- true. Raises a rule error for an order the card does not give. With `x`
-- nil the playing side decides, one order at a time, until it answers
-- "done" or no order is left (decision id "cc_turn.order"). Returns the
-- list of ordered things.
function Game:order(x)
  if x == nil then
    while self.played ~= nil and #self.ordered < self.played.orders do
      local options = {}
      for _, u in ipairs(self:orderable()) do
        table.insert(options, u.id)
      end
      if #options == 0 then
        break
      end
      table.insert(options, "done")
      local pick = decide{ side = self.played.side, prompt = "order a unit (" .. self.played.card.title .. ")",
        options = options, default = "done", id = "cc_turn.order" }
      if pick == "done" then
        break
      end
      self:order(pick)
    end
    return self.ordered
  end
  local ok, why = self:can_order(x)
  if not ok then
    rules.violation(why, 2)
  end
  if type(x) == "string" then
    x = world:unit(x) or x
  end
  if type(x) == "userdata" then
    x.ordered = true
    x.moved = 0
  elseif type(x) == "table" then
    x.ordered = true
  end
  table.insert(self.ordered, x)
  world:note(self.played.side .. " orders " .. (type(x) == "userdata" and x.id or tostring(x.id or x)))
  return self.ordered
end

-- Turn 3: movement -------------------------------------------------------------

-- Hexes `unit` may move this turn (default: unit_types[type].move, else 1).
function Game:movement(unit)
  if self.opts.movement then
    return self.opts.movement(unit)
  end
  local t = ruleset.unit_types and ruleset.unit_types[unit.type]
  return t and t.move or 1
end

-- Does entering hex `h` end a move? (default: its terrain has stops: true)
function Game:stops(h)
  if self.opts.stops then
    return self.opts.stops(h)
  end
  local name = world:terrain(h)
  local info = name and ruleset.terrain and ruleset.terrain[name]
  return info ~= nil and info.stops == true
end

-- Every hex `unit` can reach now, with the path to it: a table hex -> path
-- (a list of hexes, the destination last). A step enters a hex on the map,
-- free of units and not impassable; entering a hex that stops movement ends
-- the move there; the unit has movement(unit) hexes and moves once a turn
-- (none left once it has moved).
function Game:reachable(unit)
  local paths = {}
  if (unit.moved or 0) > 0 then
    return paths
  end
  local left = self:movement(unit)
  local frontier = { { hex = unit.hex, path = {} } }
  for _ = 1, left do
    local next_frontier = {}
    for _, f in ipairs(frontier) do
      for _, h in ipairs(f.hex:neighbors()) do
        if paths[h] == nil and h ~= unit.hex and world:on_map(h) and world:unit_at(h) == nil then
          local _, _, impassable = cc.terrain_effects(h)
          if not impassable then
            local path = table.clone(f.path)
            table.insert(path, h)
            paths[h] = path
            if not self:stops(h) then
              table.insert(next_frontier, { hex = h, path = path })
            end
          end
        end
      end
    end
    frontier = next_frontier
  end
  return paths
end

-- [Turn 3] Moves an ordered unit to hex `to` along the shortest path the
-- rules allow (see reachable), through world:move so that `enters` and
-- `leaves` reactions see every step. With `to` nil the owner decides among
-- the reachable hexes or staying (decision id "cc_turn.move"). Raises a
-- rule error for a unit not ordered or a hex out of reach. Returns true
-- when the unit got there (false if a reaction stopped it).
function Game:move(unit, to)
  if type(unit) == "string" then
    unit = world:unit(unit) or error("no unit '" .. unit .. "'", 2)
  end
  if not unit.ordered then
    rules.violation(unit.id .. " was not ordered this turn, so it may not move", 2)
  end
  if unit.fought then
    rules.violation(unit.id .. " has already fought this turn; movement comes before combat", 2)
  end
  if (unit.moved or 0) > 0 then
    rules.violation(unit.id .. " has already moved this turn (an ordered unit moves once)", 2)
  end
  local paths = self:reachable(unit)
  if to == nil then
    local options = { "stay" }
    for h in pairs(paths) do
      table.insert(options, h)
    end
    table.sort(options, function(a, b) return tostring(a) < tostring(b) end)
    to = decide{ side = unit.side, prompt = "move " .. unit.id .. " to", options = options, default = "stay",
      id = "cc_turn.move" }
    if to == "stay" then
      return true
    end
  end
  local path = paths[to]
  if path == nil then
    rules.violation(unit.id .. " cannot reach " .. tostring(to) .. " this turn (movement " .. self:movement(unit)
      .. "; units, impassable hexes and terrain that stops movement block the way)", 2)
  end
  local arrived = world:move(unit, path)
  local from_start = 0
  if unit.alive and unit.hex ~= nil then
    from_start = #path -- whole path walked, or as far as a reaction let it
    if not arrived then
      for i, h in ipairs(path) do
        if h == unit.hex then
          from_start = i
        end
      end
    end
    unit.moved = from_start
  end
  return arrived
end

-- Turn 4: combat ----------------------------------------------------------------

-- May ordered `x` fight now? Units that moved more than their move_and_fight
-- (unit_types data, else their whole movement) may not; nothing fights twice.
function Game:may_fight(x)
  if type(x) ~= "userdata" then
    return not x.fought
  end
  if not x.alive or x.fought then
    return false
  end
  local most
  if self.opts.move_and_fight then
    most = self.opts.move_and_fight(x)
  else
    local t = ruleset.unit_types and ruleset.unit_types[x.type]
    most = t and t.move_and_fight or self:movement(x)
  end
  return (x.moved or 0) <= most
end

-- The name a message or a decision shows for an ordered thing.
local function name_of(x)
  if type(x) == "userdata" then
    return x.id
  end
  return tostring(type(x) == "table" and x.id or x)
end

-- The ordered things that may fight next, in the order they were ordered:
-- those the ruleset says fight first (opts.fights_first, e.g. great_war's
-- reserve artillery), while any of them is left; then every one that may
-- fight.
function Game:ready_to_fight()
  local ready, first = {}, {}
  local fights_first = self.opts.fights_first
  for _, x in ipairs(self.ordered) do
    if self:may_fight(x) then
      table.insert(ready, x)
      if fights_first and fights_first(x) then
        table.insert(first, x)
      end
    end
  end
  return #first > 0 and first or ready
end

-- [Turn 4] Ordered `x` (a unit handle or id, or a ruleset's own ordered
-- thing) fights now, through opts.combat(game, x): the ruleset's own combat,
-- ranged or close as it decides. Rule errors: not ordered this turn, already
-- fought, moved too far to fight, or another ordered unit must fight first.
-- Sets x.fought and checks victory. Returns the winner or nil.
function Game:battle(x)
  local combat = self.opts.combat
  if combat == nil then
    error("cc_turn.new{ combat = function(game, unit) ... end }: the ruleset gives no combat rule", 2)
  end
  if type(x) == "string" then
    x = world:unit(x) or x
  end
  if self.winner then
    rules.violation("the game is over: " .. self.winner .. " has won", 2)
  end
  if not table.find(self.ordered, x) then
    rules.violation(name_of(x) .. " was not ordered this turn, so it may not fight", 2)
  end
  if x.fought then
    rules.violation(name_of(x) .. " has already fought this turn", 2)
  end
  if not self:may_fight(x) then
    rules.violation(name_of(x) .. " moved " .. (x.moved or 0) .. " hexes, too far to fight this turn", 2)
  end
  if not table.find(self:ready_to_fight(), x) then
    rules.violation(name_of(self:ready_to_fight()[1]) .. " must fight before " .. name_of(x), 2)
  end
  x.fought = true
  combat(self, x)
  return self:check_victory()
end

-- [Turn 4] The whole combat phase: each ordered unit that may fight does,
-- once, in the order the player chooses (decision id "cc_turn.combat",
-- default: the order of the orders; no question when only one may fight
-- next), until none is left or a side has won. Units eliminated earlier in
-- the turn and units that moved too far do not fight. Returns the list of
-- things that fought.
function Game:fight()
  local fought = {}
  while self.winner == nil do
    local ready = self:ready_to_fight()
    if #ready == 0 then
      break
    end
    local x = ready[1]
    if #ready > 1 then
      local options = {}
      for i, y in ipairs(ready) do
        options[i] = name_of(y)
      end
      local pick = decide{ side = self.played.side, prompt = "which ordered unit fights next", options = options,
        default = options[1], id = "cc_turn.combat" }
      x = ready[table.find(options, pick)]
    end
    self:battle(x)
    table.insert(fought, x)
  end
  return fought
end

-- Victory banners and combat cards ------------------------------------------------

-- Banners that win for `side`.
function Game:victory_banners(side)
  return per_side(self.victory, side)
end

-- The victory banners (medals) `side` holds.
function Game:banners(side)
  return world:pool(side, self.banner_pool)
end

-- Gives `side` `n` victory banners (default 1) and checks victory; returns
-- the winner or nil. (lib/cc apply_hits already awards a medal for the last
-- figure of a unit; this is for the ruleset's other banners.)
function Game:award_banners(side, n, reason)
  world:add_pool(side, self.banner_pool, n or 1, reason or "victory banner")
  return self:check_victory()
end

-- The combat cards `side` holds (a count in the side pool
-- cc.COMBAT_CARD_POOL; what a card does is the ruleset's).
function Game:combat_cards(side)
  return world:pool(side, cc.COMBAT_CARD_POOL)
end

-- `side` gains `n` combat cards (negative: discards, never below 0).
function Game:add_combat_cards(side, n, reason)
  world:add_pool(side, cc.COMBAT_CARD_POOL, n, reason or "combat cards")
end

-- `side` plays one combat card: a rule error when it holds none.
function Game:spend_combat_card(side, reason)
  if self:combat_cards(side) < 1 then
    rules.violation(side .. " holds no combat card to play", 2)
  end
  world:add_pool(side, cc.COMBAT_CARD_POOL, -1, reason or "combat card played")
end

-- The side that has won (its banner pool reached its victory count), or
-- nil. The first side found in world:sides() order wins a tie.
function Game:check_victory()
  if self.winner == nil then
    for _, side in ipairs(world:sides()) do
      if world:pool(side, self.banner_pool) >= self:victory_banners(side) then
        self.winner = side
        world:note(side .. " wins with " .. world:pool(side, self.banner_pool) .. " victory banners")
        break
      end
    end
  end
  return self.winner
end

-- [Turn 5] Ends the turn: the playing side draws a command card, orders and
-- movement are cleared (unit properties ordered/moved/fought removed),
-- victory is checked and the opponent's turn begins. Returns the winner or nil.
function Game:end_turn()
  local play = self.played
  if play == nil then
    rules.violation("no command card has been played this turn", 2)
  end
  self:draw(play.side)
  for _, x in ipairs(self.ordered) do
    if type(x) == "userdata" then
      if x.alive then
        x.ordered, x.moved, x.fought = nil, nil, nil
      end
    else
      x.ordered, x.fought = nil, nil
    end
  end
  self.ordered = {}
  self.played = nil
  local winner = self:check_victory()
  if winner == nil then
    world:set_current_side(world:opponent(play.side))
    world:set_turn(world:turn() + 1)
  end
  return winner
end

return cc_turn
