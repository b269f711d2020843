-- [Turn] The shared turn frame (lib/cc_turn.lua) as the Tricorne turn uses
-- it: cards and hands, the shuffle and the draw, playing a card, orders by
-- section, movement, the order of combat and its rule errors, banners and
-- the end of the turn. On the field board (sections: offset columns left
-- 0-4, centre 4-8, right 8-12; the Government at the bottom, the Jacobites
-- at the top). turn_spec.lua plays whole turns.

local cc_turn = require("lib/cc_turn")
local units = require("spec/support/units")
local add = units.add

local function at(col, row)
  return hex.from_offset(col, row)
end

local NOTHING = function() end

-- A game with a known deck (top first) and no combat of its own.
local function game(deck, opts)
  opts = opts or {}
  opts.deck = deck or { "probe_centre", "scout_left" }
  opts.hand = opts.hand or 1
  opts.combat = opts.combat or NOTHING
  return turn.new(opts)
end

scenario("scenarios/field.yaml")

describe("[Turn] cards and hands", function()
  it("a chart entry's kind follows from its fields; orders default to none, copies to one", function()
    local g = cc_turn.new{
      cards = {
        plain = {},
        flank = { section = "left", orders = 2 },
        both = { sections = { "left", "right" } },
        charge = { kind = "charge" },
        ground = { kind = "charge", battlefield_only = true },
      },
      hand = 0, combat = NOTHING,
    }
    expect({ g:card("plain").kind, g:card("plain").orders, g:card("plain").count, g:card("plain").battlefield_only })
      :to_equal({ "tactic", 0, 1, false })
    expect(g:card("plain").sections):to_equal({})
    expect({ g:card("flank").kind, g:card("flank").orders }):to_equal({ "section", 2 })
    expect(g:card("flank").sections):to_equal({ "left" })
    expect(g:card("both").sections):to_equal({ "left", "right" })
    expect(g:card("charge").kind):to_be("charge")
    expect(g:card("ground").battlefield_only):to_be(true)
    local t = { name = "given" }
    expect(g:card(t)):to_be(t)
    expect_error(function() g:card("volley") end, "no command card named 'volley' (cards: both, charge, flank, ground, plain)")
  end)

  it("without options: the ruleset's deck, shuffled, params.cc_turn.hand_size cards each, its banner count", function()
    local g = cc_turn.new()
    expect({ #g:hand("government"), #g:hand("jacobite"), g.victory }):to_equal({ 4, 4, 6 })
  end)

  it("a hand size may differ per side; a side left out gets none", function()
    local g = turn.new{ hand = { government = 2 }, deck = { "scout_left", "scout_right", "probe_left" }, quiet = true }
    expect(g:hand("government")):to_equal({ "scout_left", "scout_right" })
    expect(#g:hand("jacobite")):to_be(0)
    expect_error(function() g:hand("french") end, "no side 'french'")
  end)

  it("a deck given is dealt in its order unless shuffle = true asks for the dice", function()
    local kept = turn.new{ deck = { "scout_left", "probe_centre", "attack_right" }, hand = 0, quiet = true }
    expect(kept.deck):to_equal({ "attack_right", "probe_centre", "scout_left" }) -- the top is the end
    expect_error(function() turn.new{ deck = { "scout_left", "volley" } } end, "no command card named 'volley'")
    dice.force(cc_turn.shuffle_die(3), { 1 }) -- the top card swaps with the bottom one
    dice.force(cc_turn.shuffle_die(2), { 2 }) -- the middle one stays
    local shuffled = turn.new{ deck = { "scout_left", "probe_centre", "attack_right" }, hand = 0, shuffle = true, quiet = true }
    expect(shuffled.deck):to_equal({ "scout_left", "probe_centre", "attack_right" })
  end)

  it("an empty deck takes the discards back, shuffled; with none left there is no card to draw", function()
    local g = game({ "probe_centre" })
    g:play("government", "probe_centre")
    expect(g:draw("government")):to_be("probe_centre") -- the one discard, shuffled alone
    expect(g:draw("jacobite")):to_be_nil()
    -- two discards: the shuffle's die decides which comes back on top
    g = game({ "probe_centre", "scout_left", "attack_right" })
    g:play("government", "probe_centre")
    g:end_turn() -- the Government draws the last card of the deck
    g:play("jacobite", "scout_left")
    dice.force(cc_turn.shuffle_die(2), { 1 }) -- the discards, probe_centre then scout_left, swap
    g:end_turn()
    expect(g:hand("jacobite")):to_equal({ "probe_centre" })
  end)
end)

describe("[Turn 1] playing a Command card", function()
  it("the side whose turn it is plays a card it holds, once a turn; without a name it is asked", function()
    local g = game({ "probe_centre", "scout_left" })
    expect_error(function() g:play("jacobite", "scout_left") end, "rule error: it is government's turn, not jacobite's")
    expect_error(function() g:play("government", "scout_left") end, "rule error: government does not hold Scout Left Flank (hand: probe_centre)")
    answers{ "probe_centre" }
    expect(g:play("government").card.name):to_be("probe_centre")
    expect_error(function() g:play("government", "probe_centre") end, "rule error: government has already played Probe Centre this turn")
  end)

  it("a side with no card left has none to play", function()
    local g = game({ "probe_centre" }, { hand = { government = 0 } })
    expect_error(function() g:play("government") end, "rule error: government has no command card to play")
  end)

  it("the card's sections are the player's flanks: the Jacobites' left is the board's right", function()
    local g = game({ "scout_centre", "scout_left" })
    g:play("government", "scout_centre")
    g:end_turn()
    expect(g:play("jacobite", "scout_left").sections):to_equal({ "right" })
  end)

  it("a ruleset's tactic rule gives a tactic card its orders, never a section card", function()
    local cards = { rally = { kind = "tactic", orders = 1 }, probe = { section = "centre", orders = 2 } }
    local g = game({ "rally", "probe" }, { cards = cards, tactic = function() return 3 end })
    expect(g:play("government", "rally").orders):to_be(3)
    g:end_turn()
    expect(g:play("jacobite", "probe").orders):to_be(2)
  end)
end)

describe("[Turn 2] orders", function()
  it("nothing is orderable before a card is played", function()
    add("g1", "government", "regular", at(6, 8))
    local g = game()
    expect(g:orderable()):to_equal({})
    expect(g:order()):to_equal({})
    expect({ g:can_order("g1") }):to_equal({ false, "no command card has been played this turn" })
  end)

  it("only a unit of the playing side, on the battlefield, not yet ordered, in the card's section", function()
    local g1 = add("g1", "government", "regular", at(6, 8))
    add("g2", "government", "regular", at(1, 8))
    add("j1", "jacobite", "regular", at(6, 2))
    local gone = add("gone", "government", "regular", at(7, 8))
    world:eliminate(gone, "spec")
    local g = game()
    g:play("government", "probe_centre")
    expect({ g:can_order("j1") }):to_equal({ false, "j1 belongs to jacobite, not to government" })
    expect({ g:can_order(gone) }):to_equal({ false, "gone is not on the battlefield" })
    expect({ g:can_order("g2") }):to_equal({ false, "g2 at (-3,8) is in government's left section, but Probe Centre orders units in the centre section" })
    expect({ g:can_order("nothing") }):to_equal({ false, "nothing is not a unit (the ruleset gives no may_order rule for it)" })
    g:order(g1)
    expect(g1.moved):to_be(0)
    expect({ g:can_order(g1) }):to_equal({ false, "g1 is already ordered" })
    expect_error(function() g:order("g2") end, "rule error: g2 at (-3,8) is in government's left section")
  end)

  it("a card's orders run out: the singular and the plural", function()
    add("g1", "government", "regular", at(5, 8))
    add("g2", "government", "regular", at(6, 8))
    add("g3", "government", "regular", at(7, 8))
    local g = game({ "scout_centre" })
    g:play("government", "scout_centre")
    g:order("g1")
    expect({ g:can_order("g2") }):to_equal({ false, "Scout Centre gives 1 order, all given" })
    local h = game({ "probe_centre" })
    world:set_current_side("government")
    h:play("government", "probe_centre")
    world:unit("g1").ordered = nil
    h:order("g1")
    h:order("g2")
    expect({ h:can_order("g3") }):to_equal({ false, "Probe Centre gives 2 orders, all given" })
  end)

  it("asked, the side orders one unit at a time until it answers done or no order is left", function()
    add("g1", "government", "regular", at(5, 8))
    add("g2", "government", "regular", at(6, 8))
    add("g3", "government", "regular", at(7, 8))
    local g = game({ "attack_centre" })
    g:play("government", "attack_centre")
    answers{ "g2", "done" }
    local ordered = g:order()
    expect(#ordered):to_be(1)
    expect(ordered[1].id):to_be("g2")
    answers{ "g1", answers.default }
    expect(#g:order()):to_be(2) -- done is the default
    answers{ "g3" }
    expect(#g:order()):to_be(3) -- all three given: not asked again
  end)

  it("a ruleset's may_order is the only word on things that are not units: they are ordered and fight too", function()
    local reserve = { id = "reserve" }
    local log = {}
    local g = game(nil, { may_order = function(_, x) return type(x) == "table", "not units" end,
      combat = function(_, x) table.insert(log, x.id) end })
    g:play("government", "probe_centre")
    g:order(reserve)
    expect(reserve.ordered):to_be(true)
    expect(g:may_fight(reserve)):to_be(true)
    g:fight()
    expect(log):to_equal({ "reserve" })
    expect(g:may_fight(reserve)):to_be(false)
    expect_error(function() g:battle(reserve) end, "rule error: reserve has already fought this turn")
    g:end_turn()
    expect(reserve.ordered):to_be_nil()
  end)

  it("a ruleset's may_order has the last word on units", function()
    add("g1", "government", "regular", at(6, 8))
    local g = game(nil, { may_order = function(_, x) return x.type ~= "regular", "not regulars" end })
    g:play("government", "probe_centre")
    expect({ g:can_order("g1") }):to_equal({ false, "not regulars" })
  end)
end)

describe("[Turn 3] movement", function()
  it("only an ordered unit moves, once, before it fights, within reach; rivers are impassable", function()
    local c = add("c", "government", "battle_cavalry", at(6, 8))
    add("g2", "government", "regular", at(7, 8))
    local g = game()
    g:play("government", "probe_centre")
    expect_error(function() g:move("c", at(6, 7)) end, "rule error: c was not ordered this turn, so it may not move")
    expect_error(function() g:move("nobody", at(6, 7)) end, "no unit 'nobody'")
    g:order("c")
    world:set_terrain(at(6, 7), "river")
    expect(g:reachable(c)[at(6, 7)]):to_be_nil()
    expect_error(function() g:move(c, at(6, 7)) end, "rule error: c cannot reach (3,7) this turn (movement 2;")
    expect_error(function() g:move(c, at(6, 5)) end, "cannot reach")
    expect(g:move(c, at(5, 7))):to_be(true)
    expect(c.moved):to_be(1)
    expect(next(g:reachable(c))):to_be_nil() -- moved: nothing more in reach
    expect_error(function() g:move(c, at(5, 6)) end, "rule error: c has already moved this turn (an ordered unit moves once)")
    g:order("g2")
    g:battle("g2")
    expect_error(function() g:move("g2", at(7, 7)) end, "rule error: g2 has already fought this turn; movement comes before combat")
  end)

  it("the owner may choose where, or to stay (the default)", function()
    local g1 = add("g1", "government", "regular", at(6, 8))
    local g = game()
    g:play("government", "probe_centre")
    g:order(g1)
    answers{ answers.default }
    expect(g:move(g1)):to_be(true)
    expect({ g1.hex, g1.moved }):to_equal({ at(6, 8), 0 })
    -- the hexes in reach in the order of their names, then stay
    local offered = {}
    for _, o in ipairs(units.decisions("cc_turn.move")[1].options) do
      table.insert(offered, tostring(o))
    end
    expect(offered):to_equal({ "(1,8)", "(1,9)", "(2,7)", "(2,9)", "(3,7)", "(3,8)", "stay" })
    answers{ at(6, 7) }
    expect(g:move(g1)):to_be(true)
    expect({ g1.hex, g1.moved }):to_equal({ at(6, 7), 1 })
  end)

  it("a unit the ruleset marks ordered itself may move and fight; one not yet moved may fight", function()
    local guns = add("guns", "government", "light_artillery", at(7, 8))
    local g1 = add("g1", "government", "regular", at(6, 8))
    local g = game()
    expect(g:may_fight(guns)):to_be(true) -- it has not moved, though it may not move and fight
    g:play("government", "probe_centre")
    g1.ordered = true
    expect(g:move(g1, at(6, 7))):to_be(true)
    expect(g1.moved):to_be(1)
  end)

  it("a ruleset's own movement and stops rules replace the data's", function()
    local g1 = add("g1", "government", "regular", at(6, 8))
    local g = game(nil, { movement = function() return 3 end, stops = function() return true end })
    expect(g:movement(g1)):to_be(3)
    expect(g:stops(at(6, 7))):to_be(true)
    local n = 0
    for _ in pairs(g:reachable(g1)) do
      n += 1
    end
    expect(n):to_be(6) -- every step stops: only the neighbours
  end)

  it("a unit a reaction puts back along its path has moved as far as it stands", function()
    local c = add("c", "government", "battle_cavalry", at(6, 8))
    local g = game()
    g:play("government", "probe_centre")
    g:order(c)
    local first = c.hex:neighbor(5)
    local second = first:neighbor(5)
    on("enters", function(u, h)
      if h == second then
        world:place(u, first)
      end
    end)
    expect(g:move(c, second)):to_be(false)
    expect(c.hex):to_be(first)
    expect(c.moved):to_be(1)
  end)
end)

describe("[Turn 4] the order of combat and its rule errors", function()
  it("each ordered unit fights once, the first ordered by default; one that moved too far not at all", function()
    add("g1", "government", "regular", at(5, 8))
    add("g2", "government", "regular", at(6, 8))
    local guns = add("guns", "government", "light_artillery", at(7, 8))
    local log = {}
    local g = game({ "attack_centre" }, { combat = function(_, x) table.insert(log, x.id) end })
    expect_error(function() g:battle("g1") end, "rule error: g1 was not ordered this turn, so it may not fight")
    g:play("government", "attack_centre")
    g:order("g1")
    g:order("g2")
    g:order("guns")
    g:move(guns, at(7, 7))
    expect(g:may_fight(guns)):to_be(false)
    expect_error(function() g:battle("guns") end, "rule error: guns moved 1 hexes, too far to fight this turn")
    answers{ answers.default }
    g:fight()
    expect(log):to_equal({ "g1", "g2" })
    expect_error(function() g:battle("g1") end, "rule error: g1 has already fought this turn")
  end)

  it("a ruleset's own move_and_fight rule replaces the data's", function()
    local g1 = add("g1", "government", "regular", at(6, 8))
    local g = game(nil, { move_and_fight = function() return 0 end })
    g:play("government", "probe_centre")
    g:order(g1)
    expect(g:may_fight(g1)):to_be(true)
    g:move(g1, at(6, 7))
    expect(g:may_fight(g1)):to_be(false)
  end)

  it("a ruleset's fights_first units fight before the others", function()
    add("g1", "government", "regular", at(5, 8))
    add("guns", "government", "light_artillery", at(7, 8))
    local g = game(nil, { fights_first = function(x) return x.type == "light_artillery" end })
    g:play("government", "probe_centre")
    g:order("g1")
    g:order("guns")
    expect_error(function() g:battle("g1") end, "rule error: guns must fight before g1")
    g:battle("guns")
    g:battle("g1")
  end)

  it("a frame without a combat rule says so", function()
    add("g1", "government", "regular", at(5, 8))
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1 }
    g:play("government", "probe_centre")
    g:order("g1")
    expect_error(function() g:battle("g1") end, "the ruleset gives no combat rule")
  end)
end)

describe("[Turn 5] banners and the end of the turn", function()
  it("the frame's combat cards: counted in a pool, spent one at a time, each change with its reason", function()
    local g = game()
    g:add_combat_cards("jacobite", 2)
    expect(world:events(1)[1].reason):to_be("combat cards")
    g:spend_combat_card("jacobite")
    expect(world:events(1)[1].reason):to_be("combat card played")
    expect(g:combat_cards("jacobite")):to_be(1)
    g:spend_combat_card("jacobite", "a spec")
    expect(world:events(1)[1].reason):to_be("a spec")
    expect_error(function() g:spend_combat_card("jacobite") end, "rule error: jacobite holds no combat card to play")
  end)

  it("banners: one by default with its reason; reaching the count wins at once", function()
    local g = game(nil, { victory = { government = 2, jacobite = 3 } })
    expect(g:award_banners("jacobite")):to_be_nil()
    expect(world:events(1)[1].reason):to_be("victory banner")
    expect(g:banners("jacobite")):to_be(1)
    expect(g:award_banners("government", 2, "a spec")):to_be("government")
    expect(g.winner):to_be("government")
    expect_error(function() g:play("government", "probe_centre") end, "rule error: the game is over: government has won")
  end)

  it("no turn ends before a card is played; then the next side's turn begins, one turn later", function()
    local g = game()
    expect_error(function() g:end_turn() end, "rule error: no command card has been played this turn")
    local before = world:turn()
    g:play("government", "probe_centre")
    expect(g:end_turn()):to_be_nil()
    expect(world:turn()):to_be(before + 1)
    expect(world:current_side()):to_be("jacobite")
  end)
end)
