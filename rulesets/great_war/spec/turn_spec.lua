-- The Command & Colors turn frame (lib/cc_turn.lua) driving great_war: deal
-- from the deck in ruleset.yaml, play a section card for each side, order
-- units in the card's section as that side sees it, move (movement points,
-- woods stop a move, enters/leaves fire), combat (each ordered unit once,
-- the reserve artillery first), draw, and win on victory banners.
-- On the bare range: sections are offset columns left 0-4, centre 4-8,
-- right 8-12; the allies sit at the bottom, the central powers at the top.

local cc = require("lib/cc")
local cc_turn = require("lib/cc_turn")

local function at(col, row)
  return hex.from_offset(col, row)
end

local function unit(id, side, type, h)
  return world:add_unit{ id = id, side = side, type = type, hex = h }
end

-- A small army on each side: a1 and a3 on the board's left, a2 on its right;
-- c1 on the board's right (central's left), c2 on the board's left.
local function armies()
  unit("a1", "allies", "infantry", at(2, 7))
  unit("a2", "allies", "infantry", at(10, 7))
  unit("a3", "allies", "infantry", at(1, 7))
  unit("a4", "allies", "machine_gun", at(3, 6))
  unit("c1", "central", "infantry", at(10, 1))
  unit("c2", "central", "infantry", at(2, 1))
end

-- A game with a known deck (top first) and hands of two.
local function game(opts)
  opts = opts or {}
  opts.deck = opts.deck
    or { "probe_left", "attack_right", "probe_left", "probe_centre", "attack_centre", "probe_right" }
  opts.hand = opts.hand or 2
  opts.combat = opts.combat or function() end
  return cc_turn.new(opts)
end

scenario("scenarios/range.yaml")

describe("the command card deck", function()
  it("is dealt from the deck in ruleset.yaml, the top card first", function()
    local g = game()
    expect(g:hand("allies")):to_equal({ "attack_right", "probe_left" })
    expect(g:hand("central")):to_equal({ "probe_centre", "probe_left" })
    expect(#g.deck):to_be(2)
    expect(g:card("attack_centre").orders):to_be(3)
    expect(g:card("probe_left").sections):to_equal({ "left" })
    expect(g:card("advance_left").battlefield_only):to_be(true)
  end)

  it("holds every card `count` times and is shuffled with the dice", function()
    local n = 0
    for _, c in pairs(ruleset.charts.cards) do
      n += c.count
    end
    local cards = { x = { kind = "section", section = "left", orders = 1 }, y = { kind = "tactic" }, z = { count = 1 } }
    dice.force(cc_turn.shuffle_die(3), { 1 }) -- the last card (z) swaps with the first (x)
    dice.force(cc_turn.shuffle_die(2), { 2 }) -- the middle card stays
    local g = cc_turn.new{ cards = cards, hand = 0, combat = function() end }
    expect(g.deck):to_equal({ "z", "y", "x" })
    expect(#cc_turn.new{ hand = 0, shuffle = false, combat = function() end }.deck):to_be(n)
  end)

  it("is refilled from the played cards, shuffled, when it runs out", function()
    local g = game{ deck = { "probe_left", "probe_centre" }, hand = 1 }
    expect(#g.deck):to_be(0)
    armies()
    g:play("allies", "probe_left")
    g:end_turn() -- allies draw: the deck is empty, the played card comes back
    expect(g:hand("allies")):to_equal({ "probe_left" })
    expect(g:draw("central")):to_be_nil() -- nothing left anywhere
  end)

  it("refuses a card name not in the chart", function()
    expect_error(function() game{ deck = { "charge" } } end, "no command card named 'charge'")
  end)
end)

describe("playing a section card and ordering units", function()
  it("the bottom side orders units in its left section, up to the card's orders", function()
    armies()
    local g = game()
    local play = g:play("allies", "probe_left")
    expect(play.sections):to_equal({ "left" })
    expect(g:hand("allies")):to_equal({ "attack_right" })
    g:order("a1")
    expect(world:unit("a1").ordered):to_be(true)
    expect_error(function() g:order("a2") end, "rule error: a2 at (7,7) is in allies's right section, but Probe Left Flank orders units in the left section")
    expect_error(function() g:order("c2") end, "c2 belongs to central")
    expect_error(function() g:order("a1") end, "a1 is already ordered")
    g:order("a3")
    expect_error(function() g:order("a4") end, "Probe Left Flank gives 2 orders, all given")
    expect(#g.ordered):to_be(2)
  end)

  it("the top side's left section is the board's right", function()
    armies()
    world:set_current_side("central")
    local g = game()
    local play = g:play("central", "probe_left")
    expect(play.sections):to_equal({ "right" })
    g:order("c1") -- the board's right: central's left
    expect(world:unit("c1").ordered):to_be(true)
    expect_error(function() g:order("c2") end, "is in central's right section, but Probe Left Flank orders units in the left section")
  end)

  it("only on the side's turn, once a turn, from its hand", function()
    armies()
    local g = game()
    expect_error(function() g:play("central", "probe_left") end, "rule error: it is allies's turn")
    expect_error(function() g:play("allies", "probe_centre") end, "allies does not hold Probe Centre")
    expect_error(function() g:order("a1") end, "no command card has been played this turn")
    g:play("allies", "probe_left")
    expect_error(function() g:play("allies", "attack_right") end, "already played Probe Left Flank")
  end)

  it("the side decides the card and the orders when they are not given", function()
    armies()
    local g = game()
    answers{ "probe_left", "a3", "done" }
    g:play("allies")
    expect(g.played.card.title):to_be("Probe Left Flank")
    g:order()
    expect(#g.ordered):to_be(1)
    expect(g.ordered[1].id):to_be("a3")
  end)
end)

describe("movement", function()
  it("an ordered infantry moves up to 2 hexes through world:move; woods stop it", function()
    armies()
    local a1 = world:unit("a1")
    local woods = a1.hex:neighbor(5) -- north-west
    world:set_terrain(woods, "woods")
    local g = game()
    g:play("allies", "probe_left")
    g:order(a1)
    local reach = g:reachable(a1)
    expect(reach[woods]):to_equal({ woods })
    expect(reach[woods:neighbor(5)]):to_be_nil() -- the only 2-hex way there is through the woods
    expect(reach[a1.hex:neighbor(1):neighbor(1)]):to_equal({ a1.hex:neighbor(1), a1.hex:neighbor(1):neighbor(1) }) -- open ground: 2 hexes
    expect_error(function() g:move(a1, woods:neighbor(5)) end, "rule error: a1 cannot reach")
    local entered = {}
    on("enters", function(u, h) table.insert(entered, h) end)
    expect(g:move(a1, woods)):to_be(true)
    expect(entered):to_equal({ woods })
    expect(a1.moved):to_be(1)
    expect(g:reachable(a1)):to_equal({}) -- its move is over (and the woods stopped it)
    expect_error(function() g:move(a1, a1.hex:neighbor(4)) end, "rule error: a1 has already moved this turn")
  end)

  it("counts hexes moved; an infantry that moved 2 may not fight, one that moved 1 may", function()
    armies()
    local g = game()
    g:play("allies", "probe_left")
    g:order("a1")
    g:order("a3")
    local a1, a3 = world:unit("a1"), world:unit("a3")
    local far = a1.hex:neighbor(5):neighbor(5)
    local steps = 0
    on("leaves", function() steps += 1 end)
    g:move(a1, far)
    expect(steps):to_be(2)
    expect(a1.hex):to_be(far)
    expect(a1.moved):to_be(2)
    g:move(a3, a3.hex:neighbor(6))
    expect(g:may_fight(a1)):to_be(false)
    expect(g:may_fight(a3)):to_be(true)
  end)

  it("a reaction to `enters` may stop the move (the unit is eliminated on the way)", function()
    armies()
    local g = game()
    g:play("allies", "probe_left")
    g:order("a1")
    local a1 = world:unit("a1")
    local first = a1.hex:neighbor(1)
    on("enters", function(u, h)
      if h == first then
        world:hit(u, 4, "overwatch")
      end
    end)
    expect(g:move(a1, first:neighbor(1))):to_be(false)
    expect(a1.alive):to_be(false)
  end)

  it("only ordered units move, never into units or impassable hexes; the owner may choose", function()
    armies()
    local g = game()
    g:play("allies", "probe_left")
    expect_error(function() g:move("a1", at(2, 6)) end, "rule error: a1 was not ordered this turn")
    g:order("a4")
    local a4 = world:unit("a4")
    world:set_terrain(a4.hex:neighbor(6), "lake")
    expect(g:reachable(a4)[a4.hex:neighbor(6)]):to_be_nil()
    expect(g:reachable(a4)[world:unit("a1").hex]):to_be_nil()
    answers{ a4.hex:neighbor(5) }
    local from = a4.hex
    g:move(a4)
    expect(a4.hex):to_be(from:neighbor(5))
    expect(g:may_fight(a4)):to_be(false) -- a machine gun may not fight after moving
  end)
end)

describe("combat, drawing and victory", function()
  it("each ordered unit fights once, the reserve artillery first (key rule)", function()
    armies()
    local battery = reserve_artillery.battery("allies")
    local fought = {}
    local g = game{
      may_order = function(_, x, card)
        if reserve_artillery.is_battery(x) then
          return reserve_artillery.can_order(card.name, nil, x.side)
        end
        return true
      end,
      fights_first = reserve_artillery.is_battery,
      combat = function(g, x)
        table.insert(fought, x.id)
        if reserve_artillery.is_battery(x) then
          reserve_artillery.fire{ side = x.side, target = "c2", card = g.played.card.name, hq = 1 }
        end
      end,
    }
    g:play("allies", "probe_left")
    g:order("a1")
    g:order(battery) -- one of the card's two orders
    expect_error(function() g:battle("a1") end, "rule error: allies.reserve_artillery must fight before a1")
    dice.force("targeting", { 1 }) -- hex 1 of c2's hex: empty
    g:fight()
    expect(fought):to_equal({ "allies.reserve_artillery", "a1" })
    expect(g:fight()):to_equal({}) -- nobody fights twice
    expect_error(function() g:battle("a1") end, "rule error: a1 has already fought this turn")
  end)

  it("in the order the player chooses: one unit at a time, or all in turn with a decision", function()
    armies()
    local fought = {}
    local g = game{
      deck = { "attack_left", "probe_centre", "probe_left", "probe_right" },
      combat = function(_, x) table.insert(fought, x.id) end,
    }
    g:play("allies", "attack_left")
    g:order("a1")
    g:order("a3")
    g:order("a4")
    g:move("a4", world:unit("a4").hex:neighbor(5))
    expect_error(function() g:battle("a4") end, "rule error: a4 moved 1 hexes, too far to fight this turn")
    expect_error(function() g:battle("c1") end, "rule error: c1 was not ordered this turn")
    g:battle("a3")
    g:fight() -- only a1 is left to fight: no question
    expect(fought):to_equal({ "a3", "a1" })
  end)

  it("asks which unit fights next when several may", function()
    armies()
    local fought = {}
    local g = game{ combat = function(_, x) table.insert(fought, x.id) end }
    g:play("allies", "probe_left")
    g:order("a1")
    g:order("a3")
    answers{ "a3" }
    g:fight()
    expect(fought):to_equal({ "a3", "a1" })
  end)

  it("the turn ends with a draw; orders are cleared and the opponent's turn begins", function()
    armies()
    local g = game()
    g:play("allies", "probe_left")
    g:order("a1")
    g:move("a1", world:unit("a1").hex:neighbor(5))
    g:fight()
    expect(world:unit("a1").fought):to_be(true)
    local turn = world:turn()
    expect(g:end_turn()):to_be_nil()
    expect(g:hand("allies")):to_equal({ "attack_centre", "attack_right" })
    expect(world:unit("a1").ordered):to_be_nil()
    expect(world:unit("a1").moved):to_be_nil()
    expect(world:unit("a1").fought):to_be_nil()
    expect(world:current_side()):to_be("central")
    expect(world:turn()):to_be(turn + 1)
    g:play("central", "probe_centre")
  end)

  it("a side that reaches its victory banners wins: combat stops, nothing more is played", function()
    armies()
    world:unit("c2").strength = 1
    local g = game{
      victory = { allies = 1, central = 3 },
      combat = function(_, x)
        local r = dice.roll(1, "battle", x.id .. " fires at c2")
        if r:count("burst") > 0 then
          cc.apply_hits(world:unit("c2"), 1, x.side, x.id .. " fires")
        end
      end,
    }
    g:play("allies", "probe_left")
    g:order("a1")
    g:order("a3")
    dice.force("battle", { "burst" }) -- a1 eliminates c2: a medal, the game is won; a3 never fires
    answers{ "a1" }
    local fought = g:fight()
    expect(#fought):to_be(1)
    expect(world:pool("allies", cc.MEDAL_POOL)):to_be(1)
    expect(g.winner):to_be("allies")
    expect(g:end_turn()):to_be("allies")
    expect_error(function() g:play("central", "probe_left") end, "rule error: the game is over: allies has won")
  end)

  it("victory banners default to params.cc_turn.victory_banners and may come from other rules", function()
    local g = game()
    expect(g:victory_banners("allies")):to_be(params.cc_turn.victory_banners)
    world:set_pool("central", cc.MEDAL_POOL, params.cc_turn.victory_banners - 1)
    expect(g:check_victory()):to_be_nil()
    expect(g:award_banners("central", 1, "objective held")):to_be("central")
    expect(g:banners("central")):to_be(params.cc_turn.victory_banners)
  end)

  it("combat cards are a side pool: gained, played, never below none", function()
    local g = game()
    g:add_combat_cards("central", 2, "scenario")
    expect(g:combat_cards("central")):to_be(2)
    g:spend_combat_card("central")
    g:spend_combat_card("central")
    expect(world:pool("central", cc.COMBAT_CARD_POOL)):to_be(0)
    expect_error(function() g:spend_combat_card("central") end, "rule error: central holds no combat card to play")
  end)
end)
