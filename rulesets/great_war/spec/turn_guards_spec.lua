-- lib/cc_turn's shuffles and its refusals, on great_war's range: a shuffle
-- is Fisher-Yates with the dice (one die per card after the first, and no
-- other roll, so the same seed gives the same game), a deck refilled from the
-- played cards is shuffled, and the frame names what it cannot do (an
-- unknown side, a side with no card to play, a unit that fought and now
-- moves, a turn ended before a card was played, a game already won). Each
-- was found by the mutation run: a removed check or roll no spec saw.

local cc_turn = require("lib/cc_turn")
local rules = require("lib/rules")

scenario("scenarios/range.yaml")

local CARDS = {
  x = { kind = "section", section = "left", orders = 1, count = 1 },
  y = { kind = "section", section = "centre", orders = 1, count = 1 },
  z = { kind = "section", section = "right", orders = 1, count = 1 },
}

-- The reasons of the rolls logged since event `from`.
local function rolls_since(from)
  local out = {}
  for i, e in ipairs(world:events(1000)) do
    if i > from and e.event == "roll" then
      table.insert(out, e.reason)
    end
  end
  return out
end

describe("shuffling the command cards", function()
  it("rolls one die per card after the first, and no other", function()
    local before = #world:events(1000)
    dice.force(cc_turn.shuffle_die(3), { 3 })
    dice.force(cc_turn.shuffle_die(2), { 1 })
    local g = cc_turn.new{ cards = CARDS, hand = 0, combat = function() end }
    expect(rolls_since(before)):to_equal({ "shuffle the command cards", "shuffle the command cards" })
    expect(g.deck):to_equal({ "y", "x", "z" })
  end)

  it("shuffles the played cards when they become the deck again", function()
    local g = cc_turn.new{ cards = CARDS, deck = { "x" }, hand = 0, combat = function() end }
    g.discards = { "y", "z" }
    g.hands.allies = {}
    local before = #world:events(1000)
    dice.force(cc_turn.shuffle_die(2), { 1 })
    g:draw("allies")
    g:draw("allies")
    expect(rolls_since(before)):to_equal({ "shuffle the command cards" })
    -- The deck is drawn from its end: unshuffled, z would come next.
    expect(g.hands.allies):to_equal({ "x", "y" })
    expect(g.deck):to_equal({ "z" })
  end)
end)

describe("the frame's refusals", function()
  local function game(opts)
    opts.cards = opts.cards or CARDS
    opts.combat = opts.combat or function() end
    opts.shuffle = false
    return cc_turn.new(opts)
  end

  it("a hand for a side the scenario does not have", function()
    local g = game{ hand = 1 }
    expect_error(function() g:hand("neutrals") end, "no side 'neutrals'")
  end)

  it("a side with no command card to play", function()
    local g = game{ hand = 0 }
    local msg = expect_error(function() g:play("allies") end, "allies has no command card to play")
    expect(rules.is_violation(msg)):to_be(true)
  end)

  it("ending a turn before a card was played", function()
    local g = game{ hand = 1 }
    expect_error(function() g:end_turn() end, "no command card has been played this turn")
  end)

  it("a battle once the game is won", function()
    local g = game{ hand = 1 }
    g.winner = "allies"
    expect_error(function() g:battle("u") end, "the game is over: allies has won")
  end)

  it("a unit that fought this turn may not move", function()
    local u = world:add_unit{ id = "u", side = "allies", type = "infantry", hex = hex(1, 7) }
    local g = game{ hand = 1, deck = { "x" } }
    g:play("allies", "x")
    g:order(u)
    u.fought = true
    expect_error(function() g:move(u, hex(2, 7)) end, "u has already fought this turn; movement comes before combat")
  end)
end)

describe("the order of combat among ordered units", function()
  it("is the side's to choose, and a policy sees the first ordered unit as the default", function()
    local a = world:add_unit{ id = "a", side = "allies", type = "infantry", hex = hex(-1, 7) }
    local b = world:add_unit{ id = "b", side = "allies", type = "infantry", hex = hex(0, 7) }
    local fought, seen = {}, nil
    local g = cc_turn.new{ cards = { two = { kind = "section", section = "left", orders = 2, count = 1 } },
      hand = 1, shuffle = false, combat = function(_, u) table.insert(fought, u.id) end }
    g:play("allies", "two")
    g:order(a)
    g:order(b)
    policy("cc_turn.combat", function(options, request)
      seen = request.default
      return options[2]
    end)
    g:fight()
    expect(seen):to_be("a")
    expect(fought):to_equal({ "b", "a" })
  end)
end)

describe("moves and turns", function()
  it("offers a move's hexes in a fixed order (by name, staying last), whoever answers", function()
    local u = world:add_unit{ id = "u", side = "allies", type = "infantry", hex = hex(-1, 7) }
    local g = cc_turn.new{ cards = CARDS, deck = { "x" }, hand = 1, shuffle = false, combat = function() end }
    g:play("allies", "x")
    g:order(u)
    local seen
    policy("cc_turn.move", function(options)
      seen = options
      return "stay"
    end)
    g:move(u)
    local names = {}
    for i, o in ipairs(seen) do
      names[i] = tostring(o)
    end
    local sorted = table.clone(names)
    table.sort(sorted)
    expect(#names > 2):to_be(true)
    expect(names):to_equal(sorted)
    expect(names[#names]):to_be("stay")
  end)

  it("asks a ruleset's own move_and_fight how far a unit may move and still fight", function()
    local u = world:add_unit{ id = "u", side = "allies", type = "infantry", hex = hex(-1, 7) }
    u.moved = 1
    local strict = cc_turn.new{ cards = CARDS, hand = 0, combat = function() end, move_and_fight = function() return 0 end }
    local loose = cc_turn.new{ cards = CARDS, hand = 0, combat = function() end, move_and_fight = function() return 1 end }
    expect(strict:may_fight(u)):to_be(false)
    expect(loose:may_fight(u)):to_be(true)
  end)

  it("starts the next turn with no unit ordered", function()
    local a = world:add_unit{ id = "a", side = "allies", type = "infantry", hex = hex(-1, 7) }
    local c = world:add_unit{ id = "c", side = "central", type = "infantry", hex = hex(8, 0) }
    local g = cc_turn.new{ cards = CARDS, deck = { "x", "x", "x" }, hand = 1, shuffle = false, combat = function() end }
    g:play("allies", g.hands.allies[1])
    g:order(a)
    g:end_turn()
    g:play("central", g.hands.central[1])
    g:order(c)
    expect(g.ordered):to_equal({ c })
  end)
end)
