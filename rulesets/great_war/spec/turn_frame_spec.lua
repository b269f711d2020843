-- The turn frame's options and edges (lib/cc_turn.lua), as great_war uses
-- it: cards from a chart or given as tables, hands per side, a ruleset's own
-- tactic, may_order, movement and stops rules, things that are not units,
-- the decisions' defaults, banners and combat cards. On the bare range (the
-- allies at the bottom). turn_spec.lua plays the turn itself.

local cc = require("lib/cc")
local cc_turn = require("lib/cc_turn")
local rules = require("lib/rules")

local function at(col, row)
  return hex.from_offset(col, row)
end

local function unit(id, side, type, h)
  return world:add_unit{ id = id, side = side, type = type, hex = h }
end

local NOTHING = function() end

scenario("scenarios/range.yaml")

describe("cards and hands", function()
  it("a chart entry's kind follows from its fields; orders default to none", function()
    local g = cc_turn.new{
      cards = {
        plain = {},
        flank = { section = "left", orders = 2 },
        both = { sections = { "left", "right" } },
        barrage = { kind = "bombard" },
        marked = { kind = "section", section = "centre" },
      },
      hand = 0, combat = NOTHING,
    }
    expect({ g:card("plain").kind, g:card("plain").orders, g:card("plain").count }):to_equal({ "tactic", 0, 1 })
    expect(g:card("plain").sections):to_equal({})
    expect({ g:card("flank").kind, g:card("flank").orders }):to_equal({ "section", 2 })
    expect(g:card("flank").sections):to_equal({ "left" })
    expect(g:card("both").sections):to_equal({ "left", "right" })
    expect(g:card("barrage").kind):to_be("bombard")
    expect(g:card("marked").kind):to_be("section")
    local t = { name = "given" }
    expect(g:card(t)):to_be(t)
  end)

  it("a hand size may differ per side; a side left out gets none", function()
    local g = cc_turn.new{ hand = { allies = 2 }, combat = NOTHING }
    expect(#g:hand("allies")):to_be(2)
    expect(#g:hand("central")):to_be(0)
  end)

  it("hands and victory banners come from the params", function()
    scenario("scenarios/range.yaml", { set = { ["cc_turn.hand_size"] = 3, ["cc_turn.victory_banners"] = 4 } })
    local g = cc_turn.new{ combat = NOTHING }
    expect(#g:hand("allies")):to_be(3)
    expect(g:victory_banners("central")):to_be(4)
  end)

  it("a side holding one card is still asked which to play", function()
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING }
    answers{ answers.default }
    expect(g:play("allies").card.name):to_be("probe_centre")
  end)

  it("a ruleset's tactic rule gives a tactic card its orders, never a section card", function()
    local function four() return 4 end
    local g = cc_turn.new{ deck = { "counter_attack", "probe_centre", "probe_left" }, hand = 1, tactic = four,
      combat = NOTHING }
    expect(g:play("allies", "counter_attack").orders):to_be(4)
    g:end_turn()
    expect(g:play("central", "probe_centre").orders):to_be(2)
  end)
end)

describe("orders", function()
  it("a card of one order says so in the singular", function()
    unit("a1", "allies", "infantry", at(6, 6))
    unit("a2", "allies", "infantry", at(7, 6))
    local g = cc_turn.new{ cards = { one = { section = "centre", orders = 1 } }, deck = { "one" }, hand = 1,
      combat = NOTHING }
    g:play("allies", "one")
    g:order("a1")
    local ok, why = g:can_order("a2")
    expect(ok):to_be(false)
    expect(why):to_be("one gives 1 order, all given")
  end)

  it("nothing is orderable before a card is played; a unit off the battlefield never", function()
    local a1 = unit("a1", "allies", "infantry", at(6, 6))
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING }
    expect(g:orderable()):to_equal({})
    expect(g:order()):to_equal({})
    g:play("allies", "probe_centre")
    world:place(a1, nil)
    local ok, why = g:can_order(a1)
    expect(ok):to_be(false)
    expect(why):to_be("a1 is not on the battlefield")
  end)

  it("a ruleset's may_order has the last word on units, and the only word on other things", function()
    unit("a1", "allies", "infantry", at(6, 6))
    local battery = reserve_artillery.battery("allies")
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING,
      may_order = function(_, x) return type(x) == "table", "not this one" end }
    g:play("allies", "probe_centre")
    expect({ g:can_order("a1") }):to_equal({ false, "not this one" })
    g:order(battery)
    expect(battery.ordered):to_be(true)
    local plain = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING }
    world:set_current_side("allies")
    plain.played = { side = "allies", card = plain:card("probe_centre"), orders = 2, sections = { "centre" } }
    expect({ plain:can_order("nothing") }):to_equal({ false, "nothing is not a unit (the ruleset gives no may_order rule for it)" })
  end)

  it("the side is asked while a unit is left to order, even when only one is", function()
    unit("a1", "allies", "infantry", at(6, 6))
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING }
    g:play("allies", "probe_centre")
    answers{ "a1" }
    expect(#g:order()):to_be(1)
  end)
end)

describe("movement", function()
  it("a ruleset's own movement and stops rules replace the data's", function()
    local a1 = unit("a1", "allies", "infantry", at(6, 6))
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING,
      movement = function() return 3 end, stops = function() return true end }
    expect(g:movement(a1)):to_be(3)
    expect(g:stops(at(6, 5))):to_be(true)
    local n = 0
    for _ in pairs(g:reachable(a1)) do
      n += 1
    end
    expect(n):to_be(6) -- every step stops: only the neighbours
  end)

  it("a unit not yet ordered can reach its movement's hexes; a move of one reaches the neighbours only", function()
    local mg = unit("mg", "allies", "machine_gun", at(6, 6))
    local g = cc_turn.new{ hand = 0, combat = NOTHING }
    local n = 0
    for _ in pairs(g:reachable(mg)) do
      n += 1
    end
    expect(n):to_be(6)
    expect(g:may_fight(mg)):to_be(true) -- it has not moved
  end)

  it("a unit the ruleset marks ordered itself may move and fight", function()
    local a1 = unit("a1", "allies", "infantry", at(6, 6))
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING }
    g:play("allies", "probe_centre")
    a1.ordered = true
    expect(g:move(a1, at(6, 5))):to_be(true)
    expect(a1.moved):to_be(1)
  end)

  it("the owner may choose to stay", function()
    local a1 = unit("a1", "allies", "infantry", at(6, 6))
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING }
    g:play("allies", "probe_centre")
    g:order(a1)
    answers{ "stay" }
    expect(g:move(a1)):to_be(true)
    expect(a1.hex):to_be(at(6, 6))
    expect(a1.moved):to_be(0)
  end)

  it("a unit a reaction puts back along its path has moved as far as it stands", function()
    local a1 = unit("a1", "allies", "infantry", at(6, 6))
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1, combat = NOTHING }
    g:play("allies", "probe_centre")
    g:order(a1)
    local first = a1.hex:neighbor(5)
    local second = first:neighbor(5)
    on("enters", function(u, h)
      if h == second then
        world:place(u, first)
      end
    end)
    expect(g:move(a1, second)):to_be(false)
    expect(a1.hex):to_be(first)
    expect(a1.moved):to_be(1)
  end)
end)

describe("combat order, banners and combat cards", function()
  it("the first ordered unit fights first by default", function()
    unit("a1", "allies", "infantry", at(6, 6))
    unit("a2", "allies", "infantry", at(7, 6))
    local log = {}
    local g = cc_turn.new{ deck = { "probe_centre" }, hand = 1,
      combat = function(_, x) table.insert(log, x.id) end }
    g:play("allies", "probe_centre")
    g:order("a1")
    g:order("a2")
    answers{ answers.default }
    g:fight()
    expect(log):to_equal({ "a1", "a2" })
  end)

  it("banners: one by default, with its reason; combat cards with theirs", function()
    local g = cc_turn.new{ hand = 0, combat = NOTHING }
    g:award_banners("allies")
    expect(g:banners("allies")):to_be(1)
    expect(world:events(1)[1].reason):to_be("victory banner")
    g:add_combat_cards("allies", 2)
    expect(world:events(1)[1].reason):to_be("combat cards")
    g:spend_combat_card("allies")
    expect(world:events(1)[1].reason):to_be("combat card played")
    expect(g:combat_cards("allies")):to_be(1)
  end)
end)

describe("lib/cc and lib/rules at their edges", function()
  it("terrain values: none for no terrain, none for a kind of combat the data does not name", function()
    expect(cc.terrain_value(nil, "ranged", "protection")):to_be(0)
    expect(cc.terrain_value(ruleset.terrain.trenches, "assault", "protection")):to_be(0)
    expect(cc.terrain_value(ruleset.terrain.trenches, "close", "protection")):to_be(1)
  end)

  it("a retreat of no hexes does nothing, even for a side with no baseline", function()
    scenario("scenarios/nobaseline.yaml")
    local c = unit("c", "central", "infantry", at(6, 4))
    expect({ cc.retreat(c, 0, { by_side = "allies" }) }):to_equal({ 0, 0 })
    expect_error(function() cc.retreat(c, 1, { by_side = "allies" }) end, "'central' has no baseline")
    expect_error(function() cc.mirrored("central") end, "'central' has no baseline, so its left and right flanks are unknown")
  end)

  it("hits on a unit already eliminated remove nothing and earn no second medal", function()
    local c = world:add_unit{ id = "c", side = "central", type = "infantry", hex = at(6, 4), strength = 1 }
    expect({ cc.apply_hits(c, 1, "allies") }):to_equal({ 1, true })
    expect({ cc.apply_hits(c, 1, "allies") }):to_equal({ 0, false })
    expect(world:pool("allies", "medals")):to_be(1)
  end)

  it("a blocked retreat's losses are logged with their reason", function()
    local c = unit("c", "central", "infantry", at(6, 0))
    expect({ cc.retreat(c, 1, { by_side = "allies", reason = "shelled" }) }):to_equal({ 0, 1 })
    local found = false
    for _, e in ipairs(world:events()) do
      if e.reason == "shelled: retreat blocked" then
        found = true
      end
    end
    expect(found):to_be(true)
  end)

  it("a rule violation blames the line that raises it, by default", function()
    -- both on one line: `here` names it
    local ok, msg = pcall(function() rules.violation("broken") end); local _, here = pcall(function() error("") end)
    expect(ok):to_be(false)
    expect(msg):to_be(here .. "rule error: broken")
    expect(rules.is_violation("rule error: bare")):to_be(true)
    expect(rules.is_violation("a typo")):to_be(false)
  end)
end)
