-- The overwatch policies of policies.lua, which the analysis scripts
-- (scripts/viktory/overwatch_*.lua) and the REPL register, and its
-- play-through of the document's story on the mountain pass
-- (scripts/viktory/mountain_pass.yaml): B attacks A's town (5,3) with two
-- infantry and its artillery; on C's turn C attacks the town with an
-- infantry and sails its frigate past A's artillery on the mountain (4,3)
-- to land two infantry at (4,4). A policy answers each overwatch question;
-- a casualty choice takes its default (the firer the dearest unit).

scenario("viktory/mountain_pass.yaml")

local policies = require("policies")
local decisions = require("spec/support/events").decisions

local TOWN = hex(5, 3)

-- An overwatch request as overwatch.offer makes it (the fields a policy reads).
local function request(side, mover_type)
  return { side = side, artillery = "a_art", mover = "x", mover_type = mover_type, dice = 2 }
end

-- The moves of the log by the units `ids`, as "unit hex", in order.
local function moves(ids)
  local mine, out = {}, {}
  for _, id in ipairs(ids) do
    mine[id] = true
  end
  for _, e in ipairs(world:events()) do
    if e.event == "move" and mine[e.unit] then
      table.insert(out, e.unit .. " " .. tostring(e.to))
    end
  end
  return out
end

-- The overwatch decisions of the log, as "side:mover:choice".
local function overwatch_choices()
  local out = {}
  for _, d in ipairs(decisions()) do
    if d.id == "overwatch" then
      table.insert(out, d.side .. ":" .. d.request.mover .. ":" .. d.choice)
    end
  end
  return out
end

local function take_defaults()
  policy("viktory.casualty", function(_, r) return r.default end)
end

describe("overwatch policies", function()
  it("fire_at_once fires at whatever triggers it", function()
    for _, kind in ipairs({ "infantry", "cavalry", "artillery", "frigate" }) do
      expect(policies.fire_at_once({ "now", "wait" }, request("A", kind))):to_be("now")
    end
  end)

  it("best_target fires at an artillery or a frigate and waits on infantry and cavalry", function()
    local picks = {}
    for _, kind in ipairs({ "infantry", "cavalry", "artillery", "frigate" }) do
      table.insert(picks, policies.best_target({ "now", "wait" }, request("A", kind)))
    end
    expect(picks):to_equal({ "wait", "wait", "now", "now" })
  end)

  it("only(side, fn) asks fn for that side's artillery; every other side fires at once", function()
    local waits = policies.only("A", function() return "wait" end)
    expect(waits({ "now", "wait" }, request("A", "artillery"))):to_be("wait")
    expect(waits({ "now", "wait" }, request("B", "infantry"))):to_be("now")
    expect(waits({ "now", "wait" }, request("C", "frigate"))):to_be("now")
  end)
end)

describe("the mountain pass play-through (policies.play_mountain_pass)", function()
  it("A waiting for the best target plays the document's story: B's attack fails, C's frigate sinks", function()
    policy("overwatch", policies.only("A", policies.best_target))
    take_defaults()
    dice.force("d6", {
      2, 5, -- A's overwatch at b_art as it moves in last: one hit, A takes the artillery
      4, 6, -- round 1, B's two infantry: no hit
      1, 3, 5, -- round 1, A's two infantry and the town: two hits
      4, -- C's turn, round 1: C's infantry misses
      6, 2, 5, -- A's two infantry and the town: one hit
      3, -- A's overwatch at the frigate entering (3,4): one die, a hit
    })
    local m = policies.play_mountain_pass()
    expect(m):to_equal({ b_took_town = false, town_held = true, b_lost = 3, c_lost = 4, b_art_lost = true,
      frigate_sunk = true })
    expect(overwatch_choices()):to_equal({ "A:b_inf1:wait", "A:b_inf2:wait", "A:b_art:now", "A:c_inf1:wait", "A:c_frig:now" })
    -- the attackers move up to the town's hexsides, none next to the mountain, then in
    expect(moves({ "b_inf1", "b_inf2", "b_art", "c_inf1", "c_frig" })):to_equal({
      "b_inf1 (6,2)", "b_inf2 (5,4)", "b_art (6,3)", "b_inf1 (5,3)", "b_inf2 (5,3)", "b_art (5,3)",
      "c_inf1 (5,4)", "c_inf1 (5,3)", "c_frig (2,5)", "c_frig (3,4)",
    })
  end)

  it("A firing at once hits nothing: B takes the town and its artillery holds it; C's frigate lands both infantry", function()
    policy("overwatch", policies.only("A", policies.fire_at_once))
    take_defaults()
    dice.force("d6", {
      5, 6, -- A's overwatch at b_inf1, the first to move in: no hit
      1, 2, -- B's artillery fires before the battle: two hits, both of A's infantry
      6, -- C's turn: B's artillery, now in the town, fires at c_inf1 on its approach (5,4): no hit
      6, -- A fires at c_inf1 moving into the town: no hit
      1, 6, -- B's artillery fires before the battle: one hit, C's only attacker
    })
    local m = policies.play_mountain_pass()
    expect(m):to_equal({ b_took_town = true, town_held = false, b_lost = 0, c_lost = 1, b_art_lost = false,
      frigate_sunk = false })
    expect(overwatch_choices()):to_equal({ "A:b_inf1:now", "B:c_inf1:now", "A:c_inf1:now" })
    expect({ world:unit("c_inf2").hex, world:unit("c_inf3").hex }):to_equal({ hex(4, 4), hex(4, 4) })
    expect(world:unit("c_frig").hex):to_be(hex(3, 4))
  end)

  it("the frigate lands no one beside the mountain when an enemy holds (4,4)", function()
    world:add_unit{ id = "a_inf3", side = "A", type = "infantry", hex = hex(4, 4) }
    policy("overwatch", policies.only("A", policies.fire_at_once))
    take_defaults()
    dice.force("d6", { 5, 6, 1, 2, 6, 6, 1, 6 }) -- as above
    local m = policies.play_mountain_pass()
    expect({ m.b_took_town, m.c_lost, m.frigate_sunk }):to_equal({ true, 1, false })
    expect(world:unit("c_frig").hex):to_be(hex(3, 4))
    for _, id in ipairs({ "c_inf2", "c_inf3" }) do -- still aboard
      expect(world:unit(id).hex):to_be_nil()
      expect(world:unit(id).aboard):to_be("c_frig")
    end
  end)
end)
