-- The rules document's worked example, end to end, on the mountain pass
-- scenario (scripts/viktory/mountain_pass.yaml):
--   B attacks A's town (5,3) with an artillery and two infantry; A's
--   artillery on the mountain (4,3) waits for the artillery to move in, hits
--   it with two dice and picks it as the casualty, so B has no pre-battle
--   fire and the attack fails. On C's turn A passes on C's infantry
--   attacking the town, then fires one die at C's frigate entering the
--   water hex (3,4) and sinks it with the two infantry aboard.

scenario("viktory/mountain_pass.yaml")

local TOWN = hex(5, 3)

-- The decisions in the log, as "side:choice".
local function decisions()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "decision" then
      table.insert(out, e.side .. ":" .. e.choice)
    end
  end
  return out
end

local function d6_rolls()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "roll" and e.kind == "d6" then
      table.insert(out, e.reason .. " (" .. e.n .. ")")
    end
  end
  return out
end

describe("the document's example", function()
  it("B's attack fails to overwatch, C's frigate sinks with its cargo", function()
    -- B's turn: the three attackers move up to the town's hexsides (no hex
    -- next to the mountain), then move in one by one.
    expect(world:current_side()):to_be("B")
    local standing = battle.declare{
      target = TOWN,
      attackers = { "b_inf1", "b_inf2", "b_art" },
      paths = { b_inf1 = { hex(6, 2) }, b_inf2 = { hex(5, 4) }, b_art = { hex(6, 3) } },
    }
    expect(#standing):to_be(3)

    dice.force("d6", {
      2, 5, -- A's overwatch at b_art: two dice (a friendly town), one hit
      4, 6, -- round 1, B's two infantry: no hit
      1, 3, 5, -- round 1, A's two infantry and the town's die: two hits, the 1 a Tactical Victory
      4, -- C's turn, round 1: C's infantry misses
      6, 2, 5, -- A's two infantry and the town: one hit, on C's only attacker
      3, -- A's overwatch at the frigate: one die, a hit
    })
    answers{
      "wait", -- b_inf1 moves in: A waits
      "wait", -- b_inf2 moves in: A waits
      "now", -- b_art moves in: A fires
      "b_art", -- the hit is a Tactical Victory: A picks B's artillery
      "b_inf1", -- round 1's Tactical Victory: A picks b_inf1 (the other hit falls on b_inf2, the last one)
      "wait", -- C's infantry moves in: A passes
      "now", -- C's frigate enters (3,4): A fires
    }
    expect(battle.move_in("b_inf1")):to_be(true)
    expect(battle.move_in("b_inf2")):to_be(true)
    expect(battle.move_in("b_art")):to_be(false) -- destroyed as it moved in
    expect(world:unit("b_art").alive):to_be(false)
    expect(world:unit("a_art").overwatch_spent):to_be("1:B")

    local rec = battle.resolve(TOWN)
    expect(rec.prebattle.attacker_dice):to_be(0) -- B's artillery never fired
    expect(rec.winner):to_be("A")
    expect(rec.rounds):to_be(1)
    expect(world:unit("b_inf1").alive):to_be(false)
    expect(world:unit("b_inf2").alive):to_be(false)
    expect(world:unit("a_inf1").alive and world:unit("a_inf2").alive):to_be(true)
    expect(world:unit("a_town").alive):to_be(true)

    -- C's turn: A's overwatch is ready again.
    expect(turn.finish()):to_be("C")
    expect(overwatch.spent(world:unit("a_art"))):to_be(false)
    local c = battle.attack{ target = TOWN, attackers = { "c_inf1" }, paths = { c_inf1 = { hex(5, 4) } } }
    expect(c.winner):to_be("A")
    expect(world:unit("c_inf1").alive):to_be(false)
    expect(overwatch.spent(world:unit("a_art"))):to_be(false)

    -- The frigate sails (2,6) -> (2,5) -> (3,4), next to the mountain.
    expect(turn.move("c_frig", { hex(2, 5), hex(3, 4) })):to_be(false)
    expect(world:unit("c_frig").alive):to_be(false)
    expect(world:unit("c_inf2").strength):to_be(0)
    expect(world:unit("c_inf3").strength):to_be(0)
    expect(overwatch.spent(world:unit("a_art"))):to_be(true)

    expect(decisions()):to_equal({
      "A:wait", "A:wait", "A:now", "A:b_art", "A:b_inf1", "A:wait", "A:now",
    })
    expect(d6_rolls()):to_equal({
      "overwatch by a_art at b_art (2)",
      "battle round 1 B (2)",
      "battle round 1 A (3)",
      "battle round 1 C (1)",
      "battle round 1 A (3)",
      "overwatch by a_art at c_frig (1)",
    })
  end)
end)
