-- [RA] Which command cards order the reserve artillery, card by card: every
-- Probe and Attack card reaches its own section (as the playing side sees
-- the board) and no other; no Infantry Advance card orders it; a card may
-- also be given as a table. On the bare range: offset columns 0-4 are the
-- board's left, 4-8 its centre, 8-12 its right (a line column is in both).

local function at(col, row)
  return hex.from_offset(col, row)
end

-- A hex well inside each board section, and the section the top side sees there.
local INSIDE = { left = at(1, 4), centre = at(6, 4), right = at(11, 4) }
local MIRROR = { left = "right", centre = "centre", right = "left" }

scenario("scenarios/range.yaml")

describe("section cards of every section", function()
  it("Probe and Attack cards reach their own section only, for the bottom side", function()
    for _, kind in ipairs({ "probe", "attack" }) do
      for _, section in ipairs({ "left", "centre", "right" }) do
        local card = kind .. "_" .. section
        for where, h in pairs(INSIDE) do
          local ok = reserve_artillery.can_order(card, h, "allies")
          expect({ card, where, ok }):to_equal({ card, where, where == section })
        end
      end
    end
  end)

  it("and for the top side, whose flanks are mirrored", function()
    for _, kind in ipairs({ "probe", "attack" }) do
      for _, section in ipairs({ "left", "centre", "right" }) do
        local card = kind .. "_" .. section
        for where, h in pairs(INSIDE) do
          local ok = reserve_artillery.can_order(card, h, "central")
          expect({ card, where, ok }):to_equal({ card, where, MIRROR[where] == section })
        end
      end
    end
  end)

  it("no Infantry Advance card orders it, in any section", function()
    for _, section in ipairs({ "left", "centre", "right" }) do
      local card = "advance_" .. section
      for _, side in ipairs({ "allies", "central" }) do
        local ok, why = reserve_artillery.can_order(card, INSIDE[section], side)
        expect(ok):to_be(false)
        expect(why):to_contain("orders battlefield units only")
      end
      expect_error(function()
        reserve_artillery.fire{ side = "allies", target = INSIDE[section], card = card, hq = 1 }
      end, "rule error: Infantry Advance")
    end
  end)

  it("a section card fires with one of its orders", function()
    dice.force("targeting", { 1 })
    local rec = reserve_artillery.fire{ side = "allies", target = INSIDE.centre, card = "attack_centre", hq = 1 }
    expect(rec.orders_used):to_be(1)
    expect(rec.card):to_be("Attack Centre")
  end)
end)

describe("a card given as a table", function()
  it("a card of the chart comes back as itself", function()
    local c = reserve_artillery.card("probe_left")
    expect(reserve_artillery.card(c)):to_be(c)
    expect(c.battlefield_only):to_be(false)
  end)

  it("bombard, tactic and section tables; the kind follows from a section", function()
    local b = reserve_artillery.card{ kind = "bombard" }
    expect({ b.name, b.kind, b.title, b.battlefield_only }):to_equal({ "bombard", "bombard", "bombard", false })
    local t = reserve_artillery.card{ kind = "tactic", title = "Barrage" }
    expect({ t.name, t.title }):to_equal({ "tactic", "Barrage" })
    local n = reserve_artillery.card{ kind = "tactic", name = "ambush", title = "Ambush" }
    expect({ n.name, n.title }):to_equal({ "ambush", "Ambush" })
    local s = reserve_artillery.card{ section = "left", orders = 2 }
    expect({ s.name, s.kind, s.section, s.orders, s.title }):to_equal({
      "left section card", "section", "left", 2, "section" })
    local only = reserve_artillery.card{ section = "right", battlefield_only = true }
    expect(only.battlefield_only):to_be(true)
  end)

  it("order as their kind says", function()
    expect(reserve_artillery.can_order({ kind = "bombard" }, INSIDE.left, "allies")):to_be(true)
    expect(reserve_artillery.can_order({ kind = "tactic" }, INSIDE.left, "allies")):to_be(false)
    expect(reserve_artillery.can_order({ section = "left" }, INSIDE.left, "allies")):to_be(true)
    expect(reserve_artillery.can_order({ section = "left" }, INSIDE.right, "allies")):to_be(false)
  end)

  it("need a known kind, and a section card its section", function()
    expect_error(function() reserve_artillery.card{ kind = "charge" } end, "a card table needs kind")
    expect_error(function() reserve_artillery.card{ kind = "section" } end, "a section card needs section")
    expect_error(function() reserve_artillery.card(7) end, "card must be a card name or a card table, not number")
  end)
end)

describe("a target in no section", function()
  scenario("scenarios/gaps.yaml")

  it("cannot be reached by any section card; the error says so", function()
    expect_error(function()
      reserve_artillery.fire{ side = "allies", target = at(4, 4), card = "probe_left", hq = 1 }
    end, "rule error: target (2,4) is in the no section, but Probe Left Flank orders the left section")
  end)
end)
