-- [Turn] The Tricorne turn (turn.lua): the shared Command & Colors frame
-- (lib/cc_turn) with tricorne's combat. Command card from the deck in
-- ruleset.yaml, orders by section (the player's own flanks), movement by
-- unit type with terrain that stops, one combat per ordered unit in the
-- player's order (fire or melee, a melee with its taking ground and bonus
-- melee complete), draw, victory banners.
-- On the field board sections are offset columns left 0-4, centre 4-8,
-- right 8-12; the Government sits at the bottom, the Jacobites at the top.
-- hex(q, r) is in offset column q + (r - r%2)/2: hex(3,8) is column 7.

local add = require("spec/support/units").add

-- A game with a known deck, top first: the Government is dealt the first
-- two cards, the Jacobites the next two; the fifth is the next draw.
local function game(opts)
  opts = opts or {}
  opts.deck = opts.deck or { "probe_centre", "scout_left", "probe_centre", "scout_left", "attack_centre" }
  opts.hand = opts.hand or 2
  opts.quiet = true
  return turn.new(opts)
end

scenario("scenarios/field.yaml")

describe("[Turn] the Tricorne turn", function()
  it("deals from the Command card deck in ruleset.yaml, shuffled, params.cc_turn.hand_size cards each", function()
    local g = turn.new() -- every option at its default
    expect(#g:hand("government")):to_be(4)
    expect(#g:hand("jacobite")):to_be(4)
    expect(#g.deck):to_be(23 - 8)
    expect(g:card("general_advance").sections):to_equal({ "left", "centre", "right" })
    -- one die per card but the last: 22 shuffle rolls for 23 cards, the
    -- first of 23 faces (cc_turn.d23), the last of 2
    local shuffles = {}
    for _, e in ipairs(world:events()) do
      if e.event == "roll" and e.reason == "shuffle the command cards" then
        table.insert(shuffles, e.kind)
      end
    end
    expect(#shuffles):to_be(22)
    expect({ shuffles[1], shuffles[22] }):to_equal({ "cc_turn.d23", "cc_turn.d2" })
  end)

  it("a full turn for each side: fire, a melee that takes ground and makes a bonus melee, then a victory", function()
    local g1 = add("g1", "government", "regular", hex(3, 8))
    local g2 = add("g2", "government", "regular", hex(2, 8), { leader = "Cope" })
    local j1 = add("j1", "jacobite", "highland", hex(3, 6))
    local j2 = add("j2", "jacobite", "highland", hex(4, 6))
    local g = game{ victory = 2 }

    -- Government: Probe Centre orders g1 and g2; g2 moves up beside j1.
    g:play("government", "probe_centre")
    g:order("g1")
    g:order("g2")
    expect(g:move("g2", hex(2, 7))):to_be(true)
    expect(g2.moved):to_be(1)
    answers{ "g1" }                                            -- g1 fights first (the player's order)
    answers{ "j1" }                                            -- g1 fires at j1, 2 hexes away
    dice.force("battle", { "infantry", "cavalry", "sabre" })   -- 2 base +1 full strength: 1 hit
    answers{ "j1" }                                            -- g2 melees j1 (adjacent)
    dice.force("battle", { "infantry", "flag", "cavalry", "cavalry" }) -- 3 +1 full +1 Cope -1 moved
    answers{ hex(3, 5) }                                       -- j1 retreats (no longer full strength)
    dice.force("battle", { "sabre", "infantry" })              -- and rallies
    answers{ "take ground", "j2" }                             -- g2 takes ground, bonus melee on j2
    dice.force("battle", { "infantry", "infantry", "sabre", "cavalry" }) -- 3 +1 +1 -1 moved: 3 hits
    answers{ "battle back" }                                   -- j2 battles back
    dice.force("battle", { "infantry", "flag" })               -- j2 battles back: 2 dice, 1 hit
    dice.force("battle", { "sabre", "infantry" })              -- Cope's casualty check: unhurt
    local fought = g:fight()
    expect(#fought):to_be(2)
    expect(j1.strength):to_be(2)
    expect(j1.hex):to_be(hex(3, 5))
    expect(g2.hex):to_be(hex(3, 6))
    expect(g2.moved):to_be(2)                                  -- the ground taken counts as movement
    expect(j2.strength):to_be(1)
    expect(g2.strength):to_be(3)
    expect(g2.leader):to_be("Cope")
    expect(g2.bonus_done):to_be(true)
    expect(g:end_turn()):to_be_nil()
    expect(g:hand("government")):to_equal({ "attack_centre", "scout_left" })
    expect(g2.ordered):to_be_nil()
    expect(g2.moved):to_be_nil()
    expect(g2.bonus_done):to_be_nil()
    expect(world:current_side()):to_be("jacobite")

    -- Jacobites: Probe Centre orders j2 and j1; j1 charges g2 and wins.
    g:play("jacobite", "probe_centre")
    g:order("j2")
    g:order("j1")
    answers{ "j1" }                                            -- j1 before j2
    answers{ "g2" }
    dice.force("battle", { "infantry", "infantry", "infantry" }) -- 2 +1 highland charge: g2 eliminated
    dice.force("battle", { "sabre" })                          -- Cope, his unit gone: 1 die, 1 sabre
    answers{ "take ground" }                                   -- no enemy adjacent after: no bonus question
    g:fight()
    expect(g2.alive):to_be(false)
    expect(world:pool("jacobite", "medals")):to_be(2)         -- g2's last block and Cope
    expect(g.winner):to_be("jacobite")
    expect(j1.hex):to_be(hex(3, 6))
    expect(j2.fought):to_be_nil()                              -- the game ended before j2's combat
    expect_error(function() g:battle("j2") end, "rule error: the game is over: jacobite has won")
  end)

  it("orders by section as the playing side sees it: the Jacobites' left is the board's right", function()
    add("jr", "jacobite", "highland", hex.from_offset(10, 2))
    add("jl", "jacobite", "highland", hex.from_offset(2, 2))
    local g = game()
    g:play("government", "probe_centre")
    g:end_turn()
    g:play("jacobite", "scout_left")
    expect_error(function() g:order("jl") end,
      "rule error: jl at (1,2) is in jacobite's right section, but Scout Left Flank orders units in the left section")
    g:order("jr")
    expect(world:unit("jr").ordered):to_be(true)
  end)

  it("moves by unit type: a highland unit 2 hexes, then it may melee but not fire", function()
    local j = add("j", "jacobite", "highland", hex(3, 4))
    add("t", "government", "regular", hex(3, 7))  -- 3 hexes from the start
    local g = game()
    g:play("government", "probe_centre")
    g:end_turn()
    g:play("jacobite", "probe_centre")
    g:order("j")
    expect(g:movement(j)):to_be(2)
    g:move("j", hex(3, 5))                        -- 1 hex: it may still fire (2 hexes to t)
    expect(#turn.targets(j)):to_be(1)
    j.moved = 2                                   -- as if it had come 2 hexes
    expect(#turn.targets(j)):to_be(0)
    expect(select(2, ranged.can_target(j, world:unit("t")))):to_be("j (highland) moved 2 hexes this turn; after more than 1 it may not fire")
    expect(tricorne.may_combat_after_move(j, "melee")):to_be(true)
  end)

  it("light artillery that moved does not combat; terrain with stops ends a move and halts combat", function()
    local guns = add("guns", "government", "light_artillery", hex(3, 8))
    local h = add("h", "government", "battle_cavalry", hex(4, 8))
    add("t", "jacobite", "regular", hex(4, 5))
    world:set_terrain(hex(4, 7), "woods")
    local g = game()
    g:play("government", "probe_centre")
    g:order("guns")
    g:order("h")
    expect(g:reachable(h)[hex(4, 6)]):to_be_nil()   -- through the woods it must stop
    g:move("guns", hex(3, 7))
    g:move("h", hex(4, 7))
    expect(tricorne.halted(h)):to_be(true)
    expect(g:may_fight(guns)):to_be(false)
    g:fight()                                          -- h only: adjacent to t, but halted
    expect(h.fought):to_be(true)
    expect(world:unit("t").strength):to_be(4)
    expect(string.find(world:log(1)[1], "h does not combat: h entered woods this turn and may not combat", 1, true) ~= nil):to_be(true)
  end)

  it("adds the Command card's ranged or melee dice (chart fields ranged_dice, melee_dice)", function()
    local g1 = add("g1", "government", "regular", hex(3, 8))
    local g2 = add("g2", "government", "regular", hex(6, 8))
    add("j1", "jacobite", "regular", hex(3, 6))
    add("j2", "jacobite", "regular", hex(6, 7))
    local cards = { volley = { kind = "section", sections = { "centre", "right" }, orders = 2, ranged_dice = 1, melee_dice = 2 } }
    local last
    local g = game{ cards = cards, deck = { "volley", "volley" }, hand = 1,
      combat = function(game, u) last = turn.combat(game, u) end }
    g:play("government", "volley")
    g:order(g1)
    g:order(g2)
    answers{ "j1" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- 2 +1 full strength +1 card
    g:battle(g1)
    expect(last.dice.total):to_be(4)
    expect(last.dice.parts[3].why):to_be("Command card")
    answers{ "j2" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry", "cavalry", "cavalry" }) -- 3 +1 +2 card
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })                       -- j2 battles back
    g:battle(g2)
    expect(last.attack.dice.total):to_be(6)
    expect(last.battle_back.dice.total):to_be(4) -- the card is the attacker's: none for the battle back
  end)

  it("offers melee targets before fire targets: an adjacent lone leader, then a unit in range", function()
    add("c", "jacobite", "regular", hex(6, 6))   -- 2 hexes: fire
    add("b", "jacobite", "regular", hex(7, 6))   -- 2 hexes: fire
    local g = add("g", "government", "regular", hex(5, 8))
    g.ordered = true
    add("zed", "jacobite", "leader", hex(5, 7))  -- adjacent: melee (a lone leader does not stop fire)
    local t = turn.targets(g)
    expect({ t[1].unit.id, t[1].kind, t[2].unit.id, t[3].unit.id, t[3].kind }):to_equal({ "zed", "melee", "b", "c", "fire" })
  end)

  it("the first target offered is the default", function()
    local g1 = add("g", "government", "regular", hex(3, 8))
    add("t", "jacobite", "regular", hex(3, 6))
    add("u", "jacobite", "regular", hex(4, 6))
    local g = game()
    g:play("government", "probe_centre")
    g:order(g1)
    answers{ answers.default }
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    g:fight()
    expect(world:unit("t").strength):to_be(3)
  end)

  it("a card with melee dice only adds none to a fire, and one with ranged dice only none to a melee", function()
    local cards = {
      charge = { kind = "section", section = "centre", orders = 1, melee_dice = 2 },
      volley = { kind = "section", section = "centre", orders = 1, ranged_dice = 1 },
    }
    local g = game{ cards = cards, deck = { "charge", "volley", "volley" }, hand = 1 }
    g:play("government", "charge")
    expect(turn.card_dice(g, "fire")):to_be(0)
    expect(turn.card_dice(g, "melee")):to_be(2)
    g:end_turn()
    g:play("jacobite", "volley")
    expect(turn.card_dice(g, "fire")):to_be(1)
    expect(turn.card_dice(g, "melee")):to_be(0)
  end)

  it("no card played, no card dice; without a victory option the ruleset's 6 banners win", function()
    local g = turn.new{ quiet = true }
    expect(turn.card_dice(g, "fire")):to_be(0)
    expect(turn.card_dice(g, "melee")):to_be(0)
    expect(g:victory_banners("government")):to_be(6)
    expect(g:victory_banners("jacobite")):to_be(6)
  end)

  it("a unit's owner may decline its combat", function()
    add("g", "government", "regular", hex(3, 8))
    local t = add("t", "jacobite", "regular", hex(3, 6))
    local g = game()
    g:play("government", "probe_centre")
    g:order("g")
    answers{ "none" }
    g:fight()
    expect(t.strength):to_be(4)
  end)

  it("unit lookups name what is wrong, at the caller's line", function()
    local gone = add("gone", "jacobite", "regular", hex(3, 6))
    world:eliminate(gone, "spec")
    expect_error(function() tricorne.stats("dragoon") end, "unit type 'dragoon' is not in the tricorne ruleset's unit_types")
    -- units.lookup looks its unit up as a rule function does: the error names this file's line
    local lookup = require("spec/support/units").lookup
    local msg = expect_error(function() lookup("nobody", "firing unit") end, "no unit 'nobody' (firing unit)")
    expect(string.find(msg, "turn_spec.lua", 1, true) ~= nil):to_be(true)
    expect(string.find(msg, "units.lua", 1, true)):to_be_nil()
    msg = expect_error(function() lookup(gone, "target") end, "target gone is not on the battlefield")
    expect(string.find(msg, "turn_spec.lua", 1, true) ~= nil):to_be(true)
    expect(string.find(msg, "units.lua", 1, true)):to_be_nil()
    msg = expect_error(function() lookup(true, "target") end, "target must be a unit or a unit id, not boolean")
    expect(string.find(msg, "turn_spec.lua", 1, true) ~= nil):to_be(true)
    expect(string.find(msg, "units.lua", 1, true)):to_be_nil()
  end)

  it("a rule violation blames the line that raises it, by default; rules.is_violation tells one apart", function()
    local rules = require("lib/rules")
    -- both on one line: `here` names it
    local ok, msg = pcall(function() rules.violation("broken") end); local _, here = pcall(function() error("") end)
    expect(ok):to_be(false)
    expect(msg):to_be(here .. "rule error: broken")
    expect(rules.is_violation(msg)):to_be(true)
    expect(rules.is_violation("rule error: bare")):to_be(true)
    expect(rules.is_violation("a typo")):to_be(false)
    expect(rules.is_violation(nil)):to_be(false)
  end)

  it("rule errors point at the caller's line", function()
    local g = add("g", "government", "regular", hex(5, 8))
    add("j", "jacobite", "regular", hex(5, 7))
    g.ordered = true
    local msg = expect_error(function() ranged.fire{ unit = "g", target = "j" } end, "rule error:")
    expect(string.find(msg, "turn_spec.lua", 1, true) ~= nil):to_be(true)
  end)
end)

-- params.cc_turn.victory_banners is what a scenario sets: a battle to 4.
describe("[Turn] a scenario playing to 4 victory banners (params.cc_turn.victory_banners)", function()
  scenario("scenarios/field.yaml", { set = { ["cc_turn.victory_banners"] = 4 } })

  it("ends the game when a side reaches 4 banners, not before", function()
    local g = turn.new{ deck = { "probe_centre", "probe_centre", "probe_centre" }, hand = 1, quiet = true }
    expect(g:victory_banners("jacobite")):to_be(4)
    expect(g:award_banners("jacobite", 3, "a spec")):to_be_nil()
    expect(g:award_banners("jacobite", 1, "a spec")):to_be("jacobite")
    expect(g.winner):to_be("jacobite")
  end)

  it("a side's 4th banner won in combat ends the turn's combat at once", function()
    local g1 = add("g1", "government", "regular", hex(2, 8))
    local g2 = add("g2", "government", "regular", hex(3, 8))
    add("j1", "jacobite", "regular", hex(2, 6), { strength = 1 })
    world:set_pool("government", "medals", 3)
    local g = turn.new{ deck = { "probe_centre", "probe_centre", "probe_centre" }, hand = 1, quiet = true }
    g:play("government", "probe_centre")
    g:order(g1)
    g:order(g2)
    answers{ "g1", "j1" }
    dice.force("battle", { "infantry", "cavalry", "cavalry" })
    local fought = g:fight()
    expect(#fought):to_be(1) -- g2 never fights: the 4th banner won the game
    expect(g.winner):to_be("government")
  end)
end)
