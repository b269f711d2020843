-- Variants of the overwatch and artillery rules (ruleset.yaml variants:).
-- Each case loads the scenario with its variant; they live in their own
-- file because a variant loaded inside a case stays in force for the
-- file's later cases.

describe("overwatch.targets = mover (variant overwatch_mover_only)", function()
  it("lets overwatch hits fall only on the unit that moved", function()
    scenario("viktory/mountain_pass.yaml", { variant = "overwatch_mover_only" })
    world:place("b_inf1", hex(6, 2))
    world:place("b_art", hex(6, 3))
    battle.declare{ target = hex(5, 3), attackers = { "b_art", "b_inf1" } }
    dice.force("d6", { 3, 2 })
    answers{ "wait", "now" }
    battle.move_in("b_art")
    battle.move_in("b_inf1") -- two hits, but only b_inf1 can take one: no casualty choice
    expect(world:unit("b_inf1").alive):to_be(false)
    expect(world:unit("b_art").alive):to_be(true)
  end)
end)
