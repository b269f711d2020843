-- The rules document's two worked examples ("Reserve Artillery Ranged Combat"
-- and "Reserve Artillery Creating Shell Craters"), on the bombardment
-- scenario. The allies fire on hex(6,3) (c1, infantry in trenches); with the
-- arrow pointing up (central's baseline is the top row) the template hexes are
--   1 NE (7,2) c3 in woods   2 E (7,3) trenches   3 SE (6,4) wire
--   4 SW (5,4) wire          5 W (5,3) c2         6 NW (6,2) empty

scenario("great_war/bombardment.yaml")

-- The battle-dice rolls in the log, in order.
local function battle_rolls()
  local out = {}
  for _, e in ipairs(world:events()) do
    if e.event == "roll" and e.kind == "battle" then
      table.insert(out, e)
    end
  end
  return out
end

local function dice_per_slot(rec)
  local out = {}
  for _, e in ipairs(rec.shelled) do
    table.insert(out, e.dice)
  end
  return out
end

describe("worked example 1-4-4-6", function()
  it("rolls two battle dice on target, then hexes 1, 4 and 6 with 1, 2 and 1 dice, in that order", function()
    world:add_unit{ id = "c7", side = "central", type = "infantry", hex = hex(6, 2) }
    dice.force("targeting", { 1, 4, 4, 6 })
    dice.force("battle", {
      "soldier", "burst", -- on target (6,3): c1 in trenches
      "soldier", -- hex 1 (7,2): c3 in woods
      "burst", "hq", -- hex 4 (5,4): wire only
      "soldier", -- hex 6 (6,2): c7 in the open
    })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "bombard", hq = 4 }

    expect(rec.on_target):to_be(2)
    expect(rec.crater):to_be(false)
    expect(rec.order):to_equal({ "on_target", 1, 4, 6 })
    expect(dice_per_slot(rec)):to_equal({ 2, 1, 2, 1 })

    -- the same order, read back from the event log
    local rolls = battle_rolls()
    expect(#rolls):to_be(4)
    expect(rolls[1].n):to_be(2)
    expect(rolls[1].reason):to_contain("on target (6,3)")
    expect(rolls[2].n):to_be(1)
    expect(rolls[2].reason):to_contain("hex 1 (7,2)")
    expect(rolls[3].n):to_be(2)
    expect(rolls[3].reason):to_contain("hex 4 (5,4)")
    expect(rolls[4].n):to_be(1)
    expect(rolls[4].reason):to_contain("hex 6 (6,2)")

    -- and what the dice did
    expect(world:unit("c1").strength):to_be(3) -- burst hits; the soldier is cancelled by the trench
    expect(world:unit("c3").strength):to_be(4) -- the woods cancel the soldier
    expect(world:has_token(hex(5, 4), "wire")):to_be(false) -- a burst clears wire
    expect(world:unit("c7").strength):to_be(3) -- no protection in the open
    expect(world:pool("allies", "hq")):to_be(6 - 4 + 1) -- four spent, one HQ symbol collected
    expect(world:has_token(hex(6, 3), "crater")):to_be(false)
    expect(rec.figures_lost):to_be(2)
  end)

  it("does not roll for hex 6 when it holds no unit and no wire", function()
    dice.force("targeting", { 1, 4, 4, 6 })
    dice.force("battle", { "hq", "hq", "hq", "hq", "hq" })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "bombard", hq = 4 }
    expect(rec.order):to_equal({ "on_target", 1, 4, 6 })
    expect(rec.shelled[4].rolled):to_be(false)
    expect(rec.shelled[4].why):to_be("no unit or wire")
    expect(#battle_rolls()):to_be(3)
  end)
end)

describe("worked example 1-4-4-4", function()
  it("places a crater, ignores the trench on target, and rolls three dice on target and three on hex 4", function()
    dice.force("targeting", { 1, 4, 4, 4 })
    dice.force("battle", {
      "soldier", "soldier", "soldier", -- on target: every soldier counts, trench or not
      "soldier", -- hex 1 (7,2): c3, woods still protect
      "soldier", "hq", "hq", -- hex 4 (5,4): wire only, no burst
    })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "bombard", hq = 4 }

    expect(rec.on_target):to_be(3)
    expect(rec.crater):to_be(true)
    expect(rec.crater_placed):to_be(true)
    expect(world:has_token(hex(6, 3), "crater")):to_be(true)
    expect(rec.order):to_equal({ "on_target", 1, 4 })
    expect(dice_per_slot(rec)):to_equal({ 3, 1, 3 })
    expect(rec.shelled[1].protection):to_be(0)
    expect(world:unit("c1").strength):to_be(1) -- 3 soldier hits, none cancelled
    expect(world:unit("c3").strength):to_be(4)
    expect(world:has_token(hex(5, 4), "wire")):to_be(true)

    local rolls = battle_rolls()
    expect(rolls[1].n):to_be(3)
    expect(rolls[1].reason):to_contain("on target")
    expect(rolls[2].reason):to_contain("hex 1")
    expect(rolls[3].n):to_be(3)
    expect(rolls[3].reason):to_contain("hex 4")
  end)
end)

describe("at the prompt", function()
  it("returns a record that prints as a readable summary and marks the template on the map", function()
    dice.force("targeting", { 1, 4, 4, 6 })
    dice.force("battle", { "burst", "burst", "flag", "hq", "hq" })
    -- c3 (hex 1, woods) takes a flag: it may retreat to (7,1) or (8,1)
    answers{ hex(7, 1) }
    local rec = reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "bombard", hq = 4 }
    local text = tostring(rec)
    expect(text):to_contain("allies reserve artillery (Artillery Bombard) fires on (6,3)")
    expect(text):to_contain("targeting dice: 1 4 4 6 -> 2 on target")
    expect(text):to_contain("on target (6,3)")
    expect(text):to_contain("c3: 0 hits, retreats 1")
    local marks = {}
    for _, m in ipairs(world:marks()) do
      marks[m.label] = m.hex
    end
    expect(marks["T"]):to_be(hex(6, 3))
    expect(marks["1"]):to_be(hex(7, 2))
    expect(marks["4"]):to_be(hex(5, 4))
    expect(marks["6"]):to_be(hex(6, 2))
    expect(world:unit("c3").hex):to_be(hex(7, 1))
    -- the notes tell the story in the log
    local notes = 0
    for _, e in ipairs(world:events()) do
      if e.event == "note" then notes += 1 end
    end
    expect(notes):to_be(4) -- the firing, on target, hex 1, hex 4
  end)

  it("fires quietly for simulation: no notes, no marks, same totals", function()
    dice.force("targeting", { 1, 4, 4, 6 })
    dice.force("battle", { "burst", "deadly", "soldier", "burst", "hq" })
    local rec = reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "bombard", hq = 4, quiet = true }
    expect(rec.on_target):to_be(2)
    expect(rec.figures_lost):to_be(2)
    expect(rec.hq_gained):to_be(1)
    expect(rec.shelled):to_be_nil()
    expect(#world:marks()):to_be(0)
    for _, e in ipairs(world:events()) do
      expect(e.event == "note"):to_be(false)
    end
  end)
end)
