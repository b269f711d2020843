-- [3.3] Fire point modifiers: saved fire, enfilade, damaged, disordered+.
-- [3.4] Die modifiers: deep target, artillery leader, cavalry, cover,
-- passing fire (see artillery_targets_spec), skirmishers, elevation.

scenario("republique/open_field.yaml")

local function add(id, side, ty, x, y, facing, props, strength)
  return world:add_unit{ id = id, side = side, type = ty, at = { x = x, y = y }, facing = facing,
    props = props, strength = strength }
end

local function modifier(rec, name)
  for _, m in ipairs(rec.modifiers) do
    if string.find(m.name, name, 1, true) then
      return m.value
    end
  end
  return 0
end

local function duel(target_type, props, strength)
  local b = add("b", "french", "foot_battery", 60, 60, 270)
  local a = add("a", "austrian", target_type or "line_infantry", 60, 50, 90, props, strength)
  artillery.begin_phase()
  return b, a
end

describe("fire point modifiers", function()
  -- The document's enfilade figure: units A and B face forward (north) and
  -- show their right flanks to a battery off to the east.
  it("doubles fire from more than half inside the enfilade arc of the nearest edge (worked example)", function()
    local a = add("A", "austrian", "line_infantry", 50, 40, 270)
    add("B", "austrian", "line_infantry", 50, 30, 270)
    local b = add("b", "french", "foot_battery", 75, 40, 180)
    artillery.begin_phase()
    expect((tabletop.edge_towards(a, b))):to_be("right")
    local enf = artillery.enfilade(b, a)
    expect(enf):to_be(true)
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("A")
    expect(rec.points):to_be(6) -- close range 3, doubled
  end)

  it("does not double with exactly half of the frontage inside", function()
    local a = add("A", "austrian", "line_infantry", 50, 40, 270)
    -- the arc's lower ray crosses x = 73.5 at y = 40.75 + 15.5 tan 30
    local edge_y = 40.75 + 15.5 * math.tan(math.rad(30))
    local b = add("b", "french", "foot_battery", 75, edge_y, 180)
    local arc = tabletop.edge_arc(a, "right", 60)
    expect(tabletop.frontage_in_arc(arc, b)):to_be_close(0.5, 1e-6)
    expect((artillery.enfilade(b, a))):to_be(false)
  end)

  it("slides the arc to the rear edges for a battery behind the target", function()
    local a = add("A", "austrian", "line_infantry", 50, 40, 270)
    local b = add("b", "french", "foot_battery", 52, 55, 270)
    expect((tabletop.edge_towards(a, b))):to_be("rear")
    expect((artillery.enfilade(b, a))):to_be(true)
  end)

  it("never enfilades from the front; squares always; full cover never", function()
    local b, a = duel()
    expect((artillery.enfilade(b, a))):to_be(false)
    tabletop.set_formation(a, "square")
    expect((artillery.enfilade(b, a))):to_be(true)
    local w = add("w", "austrian", "line_infantry", 105, 15, 90, { formation = "square" })
    expect((artillery.enfilade(b, w))):to_be(false)
  end)

  it("doubles the fire points at a square facing the battery", function()
    local _, a = duel()
    tabletop.set_formation(a, "square")
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.points):to_be(8) -- canister 4, x2
    expect(rec.notes[1]):to_contain("enfilade x2 (square)")
  end)

  it("halves for damage and for disordered or rattled, cumulatively with saved fire", function()
    local b = duel()
    b.damaged = true
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(2)
    artillery.begin_phase()
    b.damaged = nil
    b.morale = "rattled"
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(2)
    artillery.begin_phase()
    b.morale = nil
    artillery.save_fire(b)
    artillery.begin_phase()
    b.damaged = true
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(4) -- x2 /2
  end)
end)

describe("die modifiers", function()
  it("adds 1 when the centre of fire crosses 3 combat bases in one bracket (deep target)", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("x1", "austrian", "line_infantry", 60, 49, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 60, 46, 90, nil, 1)
    local x3 = add("x3", "austrian", "line_infantry", 60, 43, 90, nil, 1)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(1)
    -- the third base in the next bracket: no longer deep
    artillery.begin_phase()
    world:place(x3, { x = 60, y = 40, facing = 90 })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "deep target")):to_be(0)
  end)

  it("gives no deep target bonus against targets in woods, and takes 2 for heavy cover", function()
    add("b", "french", "foot_battery", 105, 45, 270)
    add("x1", "austrian", "line_infantry", 105, 29, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 105, 26.5, 90, nil, 1)
    add("x3", "austrian", "line_infantry", 105, 24, 90, nil, 1)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(0)
    expect(modifier(rec, "heavy cover")):to_be(-2)
  end)

  it("gives no deep target bonus beyond an obstacle such as a river", function()
    add("b", "french", "foot_battery", 7.5, 57, 270)
    add("x1", "austrian", "line_infantry", 7.5, 46, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 7.5, 43, 90, nil, 1)
    add("x3", "austrian", "line_infantry", 7.5, 40, 90, nil, 1)
    artillery.begin_phase()
    local crossed = tabletop.areas_crossed(tabletop.centre_line(world:unit("b"), 270, 20))
    expect(crossed[1].kind):to_be("river")
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(0)
  end)

  it("takes 1 for solid cover (a farm)", function()
    add("b", "french", "foot_battery", 105, 40, 90)
    add("t", "austrian", "line_infantry", 105, 52, 270, nil, 1)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "solid cover")):to_be(-1)
  end)

  it("fires without cover modifiers at the uncovered bases its centre of fire is closest to", function()
    add("b", "french", "foot_battery", 86, 40, 90)
    add("t", "austrian", "line_infantry", 90, 52, 270) -- x 82..98: half in the farm (x >= 90)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(modifier(rec, "cover")):to_be(0)
    expect(string.find(table.concat(rec.notes, "; "), "covered bases cannot be killed", 1, true) ~= nil):to_be(true)
  end)

  it("cannot spot units more than half an inch inside cover", function()
    local b = add("b", "french", "foot_battery", 105, 45, 270)
    add("deep", "austrian", "line_infantry", 105, 20, 90, nil, 1)
    expect(#artillery.candidates(b)):to_be(0)
  end)

  it("adds 1 for a good artillery leader attached (massed batteries must touch)", function()
    local b = duel()
    local l = add("l", "french", "general", 60, 63, 270, { artillery_officer = true, rating = 1, attached_to = "b" })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "artillery leader")):to_be(1)
    artillery.begin_phase()
    l.rating = 0
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "artillery leader")):to_be(0)
    l.rating = 2
    add("far", "french", "foot_battery", 75, 60, 270)
    expect(artillery.leader_for({ b, world:unit("far") })):to_be_nil()
    add("next", "french", "foot_battery", 55, 60, 270)
    expect(artillery.leader_for({ b, world:unit("next") })):to_be(l)
  end)

  it("takes 1 against cavalry", function()
    local _, c = duel("cavalry")
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "cavalry")):to_be(-1)
  end)

  it("reads the chart with the modified die: cavalry at canister, die 9 - 1 = 8", function()
    local _, c = duel("cavalry")
    dice.force("d10", { 9 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.points):to_be(4)
    expect(rec.modified):to_be(8)
    expect(rec.result):to_be("1M1B") -- die 9 unmodified would read 2M1B
    expect(c.strength):to_be(1)
    expect(c.morale):to_be("disordered")
  end)

  it("uses the modifiers best for the battery against a compound target", function()
    -- a one-base cavalry unit in front, two bases of infantry in tandem behind:
    -- the target is mostly infantry, so no cavalry modifier
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("cav", "austrian", "cavalry", 60, 46, 90, nil, 1)
    local inf = add("inf", "austrian", "line_infantry", 60, 42, 90, nil, 2)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("cav")
    expect(rec.tandem[1]):to_be("inf")
    expect(modifier(rec, "cavalry")):to_be(0)
    -- the same with cavalry behind: over half the bases are cavalry
    artillery.begin_phase()
    world:eliminate(inf)
    add("cav2", "austrian", "cavalry", 60, 41.5, 90, nil, 2)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "cavalry")):to_be(-1)
  end)

  it("takes 2 against skirmish markers and fully deployed light regiments", function()
    duel("skirmishers", { parent = "p" })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(-2)
  end)

  it("takes 2 against a light regiment with one skirmisher out per base", function()
    local _, a = duel("light_infantry", { skirmishers_out = 3 })
    expect(a.strength):to_be(3)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(-2)
  end)

  it("takes 1 for each full elevation level between battery and target", function()
    add("b", "french", "foot_battery", 20, 70, 270) -- on the hill, level 1
    add("t", "austrian", "line_infantry", 20, 55, 90, nil, 1)
    artillery.begin_phase()
    expect(tabletop.level(world:unit("b"))):to_be(1)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "elevation")):to_be(-1)
  end)
end)
