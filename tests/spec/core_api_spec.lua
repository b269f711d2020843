-- Specs for the core Lua API, run by `sandtable test` (and by `cargo test`).
-- They use the tiny `mini` ruleset in tests/fixtures/mini.

scenario("../fixtures/mini/scenario.yaml")

describe("hex values", function()
  it("have q, r, s and print as (q,r)", function()
    local h = hex(3, -1)
    expect(h.q):to_be(3)
    expect(h.r):to_be(-1)
    expect(h.s):to_be(-2)
    expect(tostring(h)):to_be("(3,-1)")
  end)

  it("add, subtract, scale and compare by value", function()
    expect(hex(1, 2) + hex(3, -1)):to_be(hex(4, 1))
    expect(hex(1, 2) - hex(3, -1)):to_be(hex(-2, 3))
    expect(hex(1, -2) * 3):to_be(hex(3, -6))
    local seen = {}
    seen[hex(2, 2)] = true
    expect(seen[hex(2, 2)]):to_be(true)
  end)

  it("number directions 1..6 clockwise from east", function()
    local o = hex(0, 0)
    expect(o:neighbor(1)):to_be(hex(1, 0))
    expect(o:neighbor(2)):to_be(hex(0, 1))
    expect(o:neighbor(3)):to_be(hex(-1, 1))
    expect(o:neighbor(4)):to_be(hex(-1, 0))
    expect(o:neighbor(5)):to_be(hex(0, -1))
    expect(o:neighbor(6)):to_be(hex(1, -1))
    expect(o:neighbors()):to_equal({ hex(1, 0), hex(0, 1), hex(-1, 1), hex(-1, 0), hex(0, -1), hex(1, -1) })
    expect(o:direction_to(hex(5, 0))):to_be(1)
    expect(o:direction_to(hex(0, -3))):to_be(5)
  end)

  it("measure distance, rings and areas", function()
    expect(hex(0, 0):distance(hex(3, -7))):to_be(7)
    expect(#hex(2, 2):ring(2)):to_be(12)
    expect(#hex(2, 2):within(2)):to_be(19)
    expect(hex(1, 0):rotate_right()):to_be(hex(0, 1))
    expect(hex(1, 0):rotate_left()):to_be(hex(1, -1))
  end)

  it("draw lines and convert offsets like the Red Blob reference", function()
    expect(hex.line(hex(0, 0), hex(1, -5))):to_equal({
      hex(0, 0), hex(0, -1), hex(0, -2), hex(1, -3), hex(1, -4), hex(1, -5),
    })
    local col, row = hex(1, -3):to_offset()
    expect(col):to_be(-1) -- odd-r shifts odd rows, negative ones too
    expect(row):to_be(-3)
    expect(hex.from_offset(-1, -3)):to_be(hex(1, -3))
    expect(hex.from_offset(0, -3, "even-r")):to_be(hex(1, -3))
    expect(hex.round(1.2, 0.3)):to_be(hex(1, 0))
    expect(hex.round(1.4, 0.3)):to_be(hex(2, 0))
  end)

  it("refuse fractions and bad directions with a clear error", function()
    expect_error(function() return hex(1.5, 0) end, "whole number")
    expect_error(function() return hex(0, 0):neighbor(7) end, "direction must be 1..6")
    expect_error(function() return hex.from_offset(0, 0, "odd-x") end, "odd-r")
  end)
end)

describe("line of sight", function()
  it("is blocked by a unit between, never by the ends", function()
    -- r1 stands at (2,1); the line (2,3) -> (2,-1)... use the board: b1 (1,4) to r2 (5,1)
    local clear = world:los(hex(0, 1), hex(4, 1))
    expect(clear):to_be(false)
    expect(select(2, world:los(hex(0, 1), hex(4, 1)))):to_be(hex(2, 1))
    expect(world:los(hex(1, 4), hex(2, 1))):to_be(true)
  end)

  it("is blocked by terrain flagged blocks_los, not by open terrain", function()
    expect(world:los(hex(3, 1), hex(3, 3))):to_be(false) -- woods at (3,2)
    expect(world:los(hex(2, 3), hex(2, 1))):to_be(true)  -- field at (2,2) is open; r1 is the target
  end)

  it("runs along an edge: blocked only with obstructions on both sides", function()
    local one = function(h) return h == hex(1, 0) end
    local both = function(h) return h == hex(1, 0) or h == hex(0, 1) end
    expect(hex.los(hex(0, 0), hex(1, 1), one)):to_be(true)
    expect(hex.los(hex(0, 0), hex(1, 1), both)):to_be(false)
  end)

  it("can use a rule's own idea of an obstruction", function()
    world:set_los_rule(function(h) return h == hex(3, 3) end)
    expect(world:los(hex(1, 3), hex(5, 3))):to_be(false)
    expect(world:los(hex(3, 1), hex(3, 3))):to_be(true) -- woods no longer count
    world:set_los_rule(nil)
  end)

  it("keeps a rule set by a case to that case", function()
    world:set_los_rule(function() return false end)
    expect(world:los(hex(3, 1), hex(3, 3))):to_be(true)
  end)

  it("so the next case sees the ruleset's own obstructions again", function()
    expect(world:los(hex(3, 1), hex(3, 3))):to_be(false) -- the woods at (3,2)
  end)
end)

describe("dice", function()
  it("come back as forced, in canonical order", function()
    dice.force("battle", { "flag", "infantry", "sabre" })
    local r = dice.roll(3, "battle", "spec")
    expect(r.faces):to_equal({ "infantry", "sabre", "flag" })
    expect(r:count("infantry")):to_be(1)
    expect(r.total):to_be_nil()
    dice.force("d6", { 6, 1 })
    local n = dice.roll(2, "d6")
    expect(n.total):to_be(7)
    expect(n.faces):to_equal({ 1, 6 })
  end)

  it("replay with the same seed and differ with another", function()
    local function sample(seed)
      dice.seed(seed)
      local out = {}
      for i = 1, 20 do out[i] = dice.roll(1, "d6").total end
      return table.concat(out, ",")
    end
    expect(sample(5)):to_be(sample(5))
    expect(sample(5) ~= sample(6)):to_be(true)
  end)

  it("count faces without building a roll", function()
    dice.force("battle", { "cavalry", "infantry", "infantry", "flag" })
    local inf, cav, art, sabre, flag = dice.counts(4, "battle")
    expect({ inf, cav, art, sabre, flag }):to_equal({ 2, 1, 0, 0, 1 })
  end)

  it("count the faces named, in the order named", function()
    dice.force("battle", { "cavalry", "infantry", "infantry", "flag" })
    expect({ dice.counts(4, "battle", "named", "flag", "infantry", "sabre") }):to_equal({ 1, 2, 0 })
    -- Asked again (the fast path, once the names are kept), in another order.
    for _ = 1, 3 do
      dice.force("battle", { "sabre", "sabre", "flag" })
      expect({ dice.counts(3, "battle", nil, "sabre", "flag") }):to_equal({ 2, 1 })
    end
    dice.force("d6", { 6, 6, 2 })
    expect({ dice.counts(3, "d6", nil, 6, 1, "2") }):to_equal({ 2, 0, 1 })
    expect_error(function() dice.counts(2, "battle", nil, "dragon") end, "die 'battle' has no face \"dragon\"")
    expect_error(function() dice.counts(2, "d6", nil, 7) end, "die 'd6' has no face 7")
  end)

  it("reject unknown kinds and faces", function()
    expect_error(function() dice.roll(1, "d7") end, "unknown die kind 'd7'")
    expect_error(function() dice.force("battle", { "dragon" }) end, "no face \"dragon\"")
    expect_error(function() dice.roll(-1, "d6") end, "cannot roll -1 dice")
  end)

  it("can be defined by scripts", function()
    dice.define("coin", { "heads", "tails" })
    expect(dice.faces("coin")):to_equal({ "heads", "tails" })
    dice.define("d3", 3)
    dice.force("d3", { 3 })
    expect(dice.roll(1, "d3").total):to_be(3)
  end)
end)

describe("units and the world", function()
  it("are handles with fields and free properties", function()
    local b2 = world:unit("b2")
    expect(b2.side):to_be("blue")
    expect(b2.type):to_be("cavalry")
    expect(b2.strength):to_be(3)
    expect(b2.hex):to_be(hex(3, 4))
    expect(b2.morale):to_be(2)
    expect(b2.veteran):to_be(true)
    b2.morale = 3
    expect(world:unit("b2"):get("morale")):to_be(3)
    expect(world:unit("r1").leader):to_be("Rommel")
    expect(world:unit_at(hex(2, 1)).id):to_be("r1")
    expect(#world:units { side = "red" }):to_be(2)
  end)

  it("answer lists as plain sequences, empty ones included", function()
    local red = world:units { side = "red" }
    expect(#red):to_be(2)
    expect(red[1].side):to_be("red")
    expect(red[2].side):to_be("red")
    expect(red[3]):to_be_nil()
    expect(getmetatable(red)):to_be_nil()
    local none = world:units { side = "nobody" }
    expect(type(none)):to_be("table")
    expect(#none):to_be(0)
    expect(next(none)):to_be_nil()
    local n = 0
    for _, h in ipairs(hex(2, 2):neighbors()) do
      n += 1
      expect(h:distance(hex(2, 2))):to_be(1)
    end
    expect(n):to_be(6)
    -- Longer than Luau's 8 000-slot limit for values pushed by C at once.
    local wide = hex(0, 0):within(60)
    expect(#wide):to_be(10981)
    expect(hex.is_hex(wide[10981])):to_be(true)
  end)

  it("take hits, and leave the map at zero", function()
    local r1 = world:unit("r1")
    expect({ world:hit(r1, 2, "spec") }):to_equal({ 2, true })
    expect(r1.strength):to_be(1)
    expect({ world:hit(r1, 5, "spec") }):to_equal({ 1, false })
    expect(r1.alive):to_be(false)
    expect(world:unit_at(hex(2, 1))):to_be_nil()
  end)

  it("move along paths and tell subscribers about each hex", function()
    local seen = {}
    local id = on("enters", function(u, h, from) table.insert(seen, u.id .. " " .. tostring(from) .. ">" .. tostring(h)) end)
    expect(world:move("b1", { hex(1, 3), hex(2, 2) })):to_be(true)
    off(id)
    expect(seen):to_equal({ "b1 (1,4)>(1,3)", "b1 (1,3)>(2,2)" })
    expect(world:unit("b1").hex):to_be(hex(2, 2))
  end)

  it("let a reaction stop a move part way", function()
    local id = on("enters", function(u, h)
      if h == hex(1, 3) then world:eliminate(u, "overwatch") end
    end)
    expect(world:move("b1", { hex(1, 3), hex(2, 2) })):to_be(false)
    off(id)
    expect(world:unit("b1").alive):to_be(false)
  end)

  it("refuse a bad path without moving at all", function()
    expect_error(function() world:move("b1", { hex(1, 3), hex(3, 3) }) end, "not adjacent")
    expect(world:unit("b1").hex):to_be(hex(1, 4))
    expect_error(function() world:move("b1", { hex(2, 3), hex(2, 2), hex(2, 1) }) end, "occupied by r1")
    expect(world:unit("b1").hex):to_be(hex(1, 4))
  end)

  it("keep terrain, tokens, sections and pools", function()
    expect(world:terrain(hex(3, 2))):to_be("woods")
    expect(world:terrain_info(hex(3, 2)).protection):to_be(1)
    expect(world:has_token(hex(4, 1), "wire")):to_be(true)
    world:add_token(hex(3, 2), "crater")
    expect(world:tokens(hex(3, 2))):to_equal({ "crater" })
    expect(world:remove_token(hex(3, 2), "crater")):to_be(true)
    expect(world:sections(hex.from_offset(3, 2))):to_equal({ "left", "right" })
    expect(world:in_section(hex.from_offset(1, 2), "right")):to_be(false)
    expect(world:pool("blue", "hq")):to_be(3)
    expect(world:add_pool("blue", "hq", -2, "spent")):to_be(1)
    expect({ world:pool("blue", "hq", "medals", "hq") }):to_equal({ 1, 0, 1 })
    expect(world:opponent("blue")):to_be("red")
    expect(world:baseline("red")):to_be("top")
    expect(world:current_side()):to_be("blue")
  end)

  it("answer names that outlive the collector's cycles", function()
    -- Names are pushed straight from the strings the host keeps; kept
    -- alive by it, they stay whole while garbage is collected around them.
    local kept = {}
    for i = 1, 20000 do
      local garbage = { i, tostring(i), { i } }
      kept[i % 64 + 1] = world:opponent("blue") .. world:baseline("red") .. #garbage
    end
    for _, v in kept do
      expect(v):to_be("redtop3")
    end
  end)

  it("reads params and ruleset data", function()
    expect(params.mini.dice_per_attack):to_be(2)
    expect(ruleset.name):to_be("mini")
    expect(ruleset.unit_types.cavalry.strength):to_be(3)
    expect_error(function() params.mini.dice_per_attack = 9 end, "readonly")
  end)
end)

describe("decisions", function()
  it("take queued answers in order and log them", function()
    answers { "b", 2 }
    expect(decide { prompt = "letter", options = { "a", "b" } }):to_be("b")
    expect(decide { prompt = "number", options = { 1, 2, 3 }, default = 1 }):to_be(2)
    expect(world:log(1)[1]):to_contain("number -> 2 [answer]")
  end)

  it("refuse an answer that is not an option", function()
    answers { "c" }
    expect_error(function() decide { prompt = "letter", options = { "a", "b" } } end, "not one of the options")
  end)

  it("need an answer in a spec", function()
    expect_error(function() decide { prompt = "unanswered", options = { "a" } } end, "no answer left")
    expect_error(function() decide { prompt = "unanswered", options = { "a" }, id = "x.pick" } end,
      'give one with answers{...} or a policy("x.pick", fn)')
  end)

  it("log their id, side, options, default, choice and the request's own fields", function()
    answers { "b" }
    decide { id = "x.pick", side = "red", prompt = "letter", options = { "a", "b", "c" }, default = "c",
      dice = 2, p_hit = 0.75, hex = hex(2, 1), unit = world:unit("r1"), ids = { "r1", "r2" },
      why = { near = true }, show = function() end }
    local e = world:events(1)[1]
    expect(e.event):to_be("decision")
    expect(e.id):to_be("x.pick")
    expect(e.side):to_be("red")
    expect(e.prompt):to_be("letter")
    expect(e.options):to_equal({ "a", "b", "c" })
    expect(e.default):to_be("c")
    expect(e.choice):to_be("b")
    expect(e.by):to_be("answer")
    expect(e.request.dice):to_be(2)
    expect(e.request.p_hit):to_be(0.75)
    expect(e.request.hex):to_be(hex(2, 1))
    expect(e.request.unit):to_be(world:unit("r1"))
    expect(e.request.ids):to_equal({ "r1", "r2" })
    expect(e.request.why.near):to_be(true)
    expect(e.request.show):to_be_nil()
    expect(e.request.options):to_be_nil()
    -- no id, no default given: the first option is the default
    answers { answers.default }
    decide { prompt = "number", options = { 1, 2 } }
    e = world:events(1)[1]
    expect(e.id):to_be_nil()
    expect(e.default):to_be("1")
    expect(e.choice):to_be("1")
    expect(e.by):to_be("answer (the default)")
  end)

  it("are answered by a policy once no queued answer is left, as in sim", function()
    policy("x.pick", function(options, request)
      expect(request.dice):to_be(3)
      return options[#options]
    end)
    answers { "a" }
    expect(decide { id = "x.pick", options = { "a", "b", "c" }, dice = 3 }):to_be("a")
    expect(decide { id = "x.pick", options = { "a", "b", "c" }, dice = 3 }):to_be("c")
    expect(decide { id = "x.pick", options = { "a", "b" }, dice = 3 }):to_be("b")
    local e = world:events(1)[1]
    expect(e.by):to_be("policy")
    -- a decision of another id still needs its answer
    expect_error(function() decide { id = "x.other", options = { "a" } } end, "no answer left")
    -- a policy's choice must be an option
    policy("x.bad", function() return "z" end)
    expect_error(function() decide { id = "x.bad", options = { "a" } } end, "the policy's choice")
  end)

  it("lose a policy made inside a case when the case ends", function()
    expect_error(function() decide { id = "x.pick", options = { "a" } } end, "no answer left")
  end)
end)

describe("the event log", function()
  it("gives a move's and a retreat's hexes as hex values", function()
    world:move("b1", { hex(1, 3), hex(2, 2) })
    local e = world:events(2)
    expect(e[1].event):to_be("move")
    expect(e[1].unit):to_be("b1")
    expect(e[1].from):to_be(hex(1, 4))
    expect(e[1].to):to_be(hex(1, 3))
    expect(e[2].from):to_be(hex(1, 3))
    expect(e[2].to):to_be(hex(2, 2))
    expect(hex.is_hex(e[2].to)):to_be(true)
    world:retreat("r1", { hex(2, 0) })
    e = world:events(1)[1]
    expect(e.event):to_be("retreat")
    expect(e.from):to_be(hex(2, 1))
    expect(e.to):to_be(hex(2, 0))
    expect(world:log(1)[1]):to_be("r1 retreats (2,1) -> (2,0)")
  end)

  it("gives a token's hex as a hex value", function()
    world:add_token(hex(3, 2), "crater")
    local e = world:events(1)[1]
    expect(e.event):to_be("token")
    expect(e.hex):to_be(hex(3, 2))
    expect(e.placed):to_be(true)
  end)
end)

describe("rule modules", function()
  it("are loaded as globals and run with forced dice", function()
    dice.force("battle", { "infantry", "flag" })
    local hits = mini.attack(world:unit("b1"), world:unit("r1"))
    expect(hits):to_be(1)
    local r1 = world:unit("r1")
    expect(r1.strength):to_be(2)
    expect(r1.hex):to_be(hex(2, 0)) -- retreated one hex away from b1
  end)

  it("can require only inside the ruleset and lib/", function()
    expect_error(function() require("../secrets") end, "no absolute paths or '..'")
    expect_error(function() require("nothing_here") end, "no file")
  end)
end)

describe("the tabletop", function()
  it("measures in centimetres and degrees", function()
    local a, b = tabletop.point(0, 0), tabletop.point(30, 40)
    expect(tabletop.distance(a, b)):to_be(50)
    expect(tabletop.bearing(a, tabletop.point(0, 10))):to_be_close(90)
    expect(tabletop.in_arc(a, 0, 90, tabletop.point(10, 9))):to_be(true)
    expect(tabletop.in_arc(a, 0, 90, tabletop.point(10, 11))):to_be(false)
    expect(tabletop.in_rect(tabletop.point(11, 10), { centre = tabletop.point(10, 10), width = 4, depth = 2, facing = 0 })):to_be(true)
  end)
end)
