-- [Fire R4] [Bonus] [Back] [Base] Card dice and Combat cards in hand.
-- ranged-combat.txt R4: "Add any Command card ranged combat additions. Add
-- any Combat card ranged combat additions." melee-take-ground.txt: "During a
-- bonus melee the unit calculates its base number of dice, any additional
-- dice and dice reductions in the same manner as when attacking in melee";
-- the battle back likewise. Research (base-rules.md §2): one Combat card per
-- unit per turn. A side's hand of a Combat card is its pool of the card's
-- name (ruleset.yaml charts.combat_cards: extra_fire +1 ranged die,
-- extra_melee +1 melee die; ours).
-- On the field: the Government (bottom) fires up the board; in melee the
-- Jacobite attacker "a" stands at hex(5,5), its targets below it.

local units = require("spec/support/units")
local add, attacker = units.add, units.attacker

local decisions = units.decisions

local function whys(d)
  local out = {}
  for _, p in ipairs(d.parts) do
    table.insert(out, p.why)
  end
  return out
end

scenario("scenarios/field.yaml")

describe("[Fire R4] a Combat card for a fire", function()
  it("the firer's side plays one from its hand: +1 die, added before the reductions, the card spent", function()
    local g1 = add("g1", "government", "regular", hex(5, 8))
    g1.ordered, g1.moved = true, 1
    add("t", "jacobite", "regular", hex(5, 6))
    world:set_pool("government", "extra_fire", 2)
    answers{ "extra_fire" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" }) -- 2 +1 full +1 card -1 moved
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.dice.total):to_be(3)
    expect(whys(rec.dice)):to_equal({ "base at 2 hexes", "full strength", "Combat card Extra Fire", "moved" })
    expect(world:pool("government", "extra_fire")):to_be(1)
    local d = decisions("tricorne.combat_card")
    expect(#d):to_be(1)
    expect(d[1].side):to_be("government")
    expect(d[1].options):to_equal({ "extra_fire", "none" })
    expect(d[1].default):to_be("none")
    expect(d[1].request.unit):to_be(world:unit("g1"))
    expect(d[1].request.target):to_be(world:unit("t"))
    expect(d[1].request.combat):to_be("fire")
  end)

  it("is never played by default, and a card for melee only is not offered for a fire", function()
    add("g1", "government", "regular", hex(5, 8)).ordered = true
    add("t", "jacobite", "regular", hex(5, 6))
    world:set_pool("government", "extra_fire", 1)
    world:set_pool("government", "extra_melee", 1)
    answers{ answers.default }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    local rec = ranged.fire{ unit = "g1", target = "t" }
    expect(rec.dice.total):to_be(3)
    expect(world:pool("government", "extra_fire")):to_be(1)
    expect(decisions("tricorne.combat_card")[1].options):to_equal({ "extra_fire", "none" })
  end)

  it("is not offered when the caller gives the Combat card's dice, nor to a side without one", function()
    add("g1", "government", "regular", hex(5, 8)).ordered = true
    add("t", "jacobite", "regular", hex(5, 6))
    world:set_pool("government", "extra_fire", 1)
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "t", cards = { combat = 1 } }.dice.total):to_be(4)
    expect(#decisions("tricorne.combat_card")):to_be(0)
    world:set_pool("government", "extra_fire", 0)
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    ranged.fire{ unit = "g1", target = "t", again = true }
    expect(#decisions("tricorne.combat_card")):to_be(0)
  end)

  it("one card per unit per turn (params.combat_cards.per_unit), the next turn again", function()
    local g1 = add("g1", "government", "regular", hex(5, 8))
    g1.ordered = true
    add("t", "jacobite", "regular", hex(5, 6))
    world:set_pool("government", "extra_fire", 2)
    answers{ "extra_fire" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    ranged.fire{ unit = "g1", target = "t" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    expect(ranged.fire{ unit = "g1", target = "t", again = true }.dice.total):to_be(3) -- not asked
    expect(#decisions("tricorne.combat_card")):to_be(1)
    expect(g1.cards_played):to_be(1)
    -- the turn frame clears it at the end of the turn
    local g = turn.new{ deck = { "probe_centre", "probe_centre", "probe_centre" }, hand = 1, quiet = true }
    g:play("government", "probe_centre")
    g:end_turn()
    expect(g1.cards_played):to_be_nil()
  end)
end)

describe("[Bonus] the bonus melee counts its dice as the melee did", function()
  it("a Command card's melee dice add to the bonus melee too", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry", "cavalry" }) -- 2 +1 +1 charge +1 card
    answers{ "take ground", "d2" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })                         -- 2 +1 -1 moved +1 card
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1", cards = { command = 1 } }
    expect(rec.attack.dice.total):to_be(5)
    expect(rec.bonus.attack.dice.total):to_be(3)
    expect(whys(rec.bonus.attack.dice)):to_equal({ "melee", "full strength", "Command card", "moved" })
  end)

  it("a Combat card played for the melee adds to the bonus melee, and no second card is asked", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    world:set_pool("jacobite", "extra_melee", 2)
    answers{ "extra_melee" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground", "d2" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(whys(rec.bonus.attack.dice)):to_equal({ "melee", "full strength", "Combat card Extra Melee", "moved" })
    expect(world:pool("jacobite", "extra_melee")):to_be(1)
    expect(#decisions("tricorne.combat_card")):to_be(1)
  end)

  it("without a Combat card for the melee, the side may play one for the bonus melee", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    world:set_pool("jacobite", "extra_melee", 1)
    answers{ "none" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground", "d2", "extra_melee" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1" }
    expect(rec.attack.dice.total):to_be(4)
    expect(rec.bonus.attack.dice.total):to_be(3)
    expect(world:pool("jacobite", "extra_melee")):to_be(0)
  end)

  it("... the same with a Command card's dice given for the melee", function()
    attacker("highland")
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    world:set_pool("jacobite", "extra_melee", 1)
    answers{ "none" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground", "d2", "extra_melee" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- 2 +1 -1 moved +1 command +1 card
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d1", cards = { command = 1 } }
    expect(whys(rec.bonus.attack.dice)):to_equal({ "melee", "full strength", "Command card", "Combat card Extra Melee", "moved" })
  end)

  it("in a turn, the Command card played adds to the bonus melee", function()
    local cards = {
      charge = { kind = "section", section = "centre", orders = 1, title = "Charge", melee_dice = 1 },
    }
    local j1 = add("j1", "jacobite", "highland", hex(5, 5))
    add("d1", "government", "regular", hex(5, 6), { strength = 1 })
    add("d2", "government", "regular", hex(4, 7))
    world:set_current_side("jacobite")
    local last
    local g = turn.new{ cards = cards, deck = { "charge", "charge", "charge" }, hand = 1, quiet = true,
      combat = function(game, u) last = turn.combat(game, u) end }
    g:play("jacobite", "charge")
    g:order(j1)
    answers{ "d1" }
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "take ground", "d2" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    g:battle(j1)
    expect(whys(last.bonus.attack.dice)):to_equal({ "melee", "full strength", "Command card", "moved" })
  end)
end)

describe("[Back] a Combat card for a battle back", function()
  it("the defender's side may play one; the attacker's Command card adds nothing to it", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    world:set_pool("government", "extra_melee", 1)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry", "cavalry" }) -- 3 +1 +1 command
    answers{ "battle back", "extra_melee" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })             -- 3 +1 card
    local rec = melee.attack{ unit = "a", target = "d", cards = { command = 1 } }
    expect(whys(rec.battle_back.dice)):to_equal({ "melee", "Combat card Extra Melee" })
    expect(world:pool("government", "extra_melee")):to_be(0)
    expect(world:unit("d").cards_played):to_be(1)
  end)

  it("a defender that played Ambush this turn has had its card: none for it later this turn", function()
    attacker("regular")
    local d = add("d", "government", "regular", hex(5, 6))
    world:set_pool("government", "ambush", 1)
    world:set_pool("government", "extra_melee", 1)
    answers{ "ambush" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- the ambush misses
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" }) -- a's attack misses: no battle back after Ambush
    melee.attack{ unit = "a", target = "d" }
    expect(d.cards_played):to_be(1)
    local b = add("b", "jacobite", "regular", hex(6, 5))
    b.ordered = true
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }                                              -- no card offered
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    melee.attack{ unit = "b", target = "d" }
    expect(world:pool("government", "extra_melee")):to_be(1)
    expect(#decisions("tricorne.combat_card")):to_be(0)
  end)

  it("a unit that had a card played this turn may not play Ambush", function()
    attacker("regular")
    local d = add("d", "government", "regular", hex(5, 6))
    d.cards_played = 1
    world:set_pool("government", "ambush", 1)
    world:set_pool("government", "first_strike", 1)
    answers{ "stand" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    melee.attack{ unit = "a", target = "d" }
    expect(decisions("tricorne.defender_reaction")[1].options):to_equal({ "stand", "first strike" })
  end)
end)

describe("[Turn] Combat cards in a turn", function()
  it("the side plays one from its hand as its ordered unit fires", function()
    local g1 = add("g1", "government", "regular", hex(2, 8)) -- the centre section
    add("t", "jacobite", "regular", hex(2, 6))
    world:set_pool("government", "extra_fire", 1)
    local last
    local g = turn.new{ deck = { "probe_centre", "probe_centre", "probe_centre" }, hand = 1, quiet = true,
      combat = function(game, u) last = turn.combat(game, u) end }
    g:play("government", "probe_centre")
    g:order(g1)
    answers{ "t", "extra_fire" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    g:fight()
    expect(last.dice.total):to_be(4)
    expect(world:pool("government", "extra_fire")):to_be(0)
  end)
end)

describe("[Fire R1] [Base] one combat per unit per turn", function()
  it("a unit that fired may not fire or attack again this turn: a rule error at the caller's line", function()
    add("g1", "government", "regular", hex(5, 8)).ordered = true
    add("t", "jacobite", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    ranged.fire{ unit = "g1", target = "t" }
    local msg = expect_error(function() ranged.fire{ unit = "g1", target = "t" } end,
      "rule error: g1 has already fired or attacked this turn: a unit combats once a turn")
    expect(string.find(msg, "cards_spec.lua", 1, true) ~= nil):to_be(true)
    world:place(world:unit("t"), hex(5, 7))
    expect_error(function() melee.attack{ unit = "g1", target = "t" } end, "g1 has already fired or attacked this turn")
  end)

  it("a unit that attacked may not attack again, its bonus melee aside; `again` says a second one is deliberate", function()
    local a = attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "decline" }
    melee.attack{ unit = "a", target = "d" }
    expect(a.combat_done):to_be(true)
    local msg = expect_error(function() melee.attack{ unit = "a", target = "d" } end, "a has already fired or attacked this turn")
    expect(string.find(msg, "cards_spec.lua", 1, true) ~= nil):to_be(true)
    dice.force("battle", { "infantry", "cavalry", "cavalry", "cavalry" })
    answers{ "decline" }
    expect(melee.attack{ unit = "a", target = "d", again = true }.attack.hits):to_be(1)
  end)

  it("battling back is no combat of the defender's own: it may still fire in its turn; the turn's end clears it", function()
    attacker("regular")
    local d = add("d", "government", "regular", hex(5, 6))
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    melee.attack{ unit = "a", target = "d" }
    expect(d.combat_done):to_be_nil()
    world:set_current_side("jacobite")
    local g = turn.new{ deck = { "probe_centre", "probe_centre", "probe_centre" }, hand = 1, quiet = true }
    g:play("jacobite", "probe_centre")
    g:end_turn()
    expect(world:unit("a").combat_done):to_be_nil()
  end)
end)

-- Cases with params of their own come last: scenario(..., { set = ... })
-- holds for the rest of the file.
describe("[Fire R4] the dice a Combat card adds: tricorne.card_dice", function()
  it("by the kind of combat; a card the chart does not list, or another kind, is an error", function()
    expect(tricorne.card_dice("extra_fire", "fire")):to_be(1)
    expect(tricorne.card_dice("extra_fire", "melee")):to_be(0)
    expect(tricorne.card_dice("extra_melee", "melee")):to_be(1)
    expect_error(function() tricorne.card_dice("extra_fyre", "fire") end,
      "no Combat card 'extra_fyre' in ruleset.yaml charts.combat_cards")
    expect_error(function() tricorne.card_dice("extra_fire", "bonus") end,
      "the kind of combat is \"fire\" or \"melee\", not bonus")
  end)
end)

describe("[Fire R4] [Base] with params.combat_cards.per_unit = 0", function()
  scenario("scenarios/field.yaml", { set = { ["combat_cards.per_unit"] = 0 } })

  it("no Combat card is played at all, Ambush included", function()
    add("g1", "government", "regular", hex(5, 8)).ordered = true
    add("t", "jacobite", "regular", hex(5, 6))
    world:set_pool("government", "extra_fire", 1)
    dice.force("battle", { "cavalry", "cavalry", "cavalry" })
    ranged.fire{ unit = "g1", target = "t" }
    attacker("regular")
    add("d", "government", "regular", hex(4, 6))
    world:set_pool("government", "ambush", 1)
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    melee.attack{ unit = "a", target = "d" } -- no reaction asked: only "stand" is left
    expect(#decisions("tricorne.combat_card")):to_be(0)
    expect(#decisions("tricorne.defender_reaction")):to_be(0)
  end)
end)

describe("[Back] with params.combat_cards.battle_back = false", function()
  scenario("scenarios/field.yaml", { set = { ["combat_cards.battle_back"] = false } })

  it("no card is offered for a battle back", function()
    attacker("regular")
    add("d", "government", "regular", hex(5, 6))
    world:set_pool("government", "extra_melee", 1)
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    answers{ "battle back" }
    dice.force("battle", { "cavalry", "cavalry", "cavalry", "cavalry" })
    local rec = melee.attack{ unit = "a", target = "d" }
    expect(#decisions("tricorne.combat_card")):to_be(0)
    expect(whys(rec.battle_back.dice)):to_equal({ "melee", "full strength" })
  end)
end)
