-- Every rule violation of the reserve artillery is raised by lib/rules.lua
-- (rules.violation): the message starts "rule error: " and points at the
-- line that asked for the forbidden thing (here, a line of this spec), and
-- nothing is spent. Mistyped calls (a missing card, hq = 1.5) are plain
-- errors, not rule errors. On the bare range; the target is hex(5,4).

local rules = require("lib/rules")

local T = hex(5, 4)

-- The message of `fn`'s error, checked to be a rule error raised at a line
-- of this file.
local function rule_error(fn, text)
  local msg = expect_error(fn, text)
  expect(string.find(msg, "rule_errors_spec%.lua:%d+: rule error: ") ~= nil):to_be(true)
  expect(rules.is_violation(msg)):to_be(true)
  return msg
end

local function fire(t)
  t.side = t.side or "allies"
  t.target = t.target or T
  t.card = t.card or "bombard"
  return reserve_artillery.fire(t)
end

scenario("scenarios/range.yaml")

describe("rules.violation", function()
  it("prefixes the text and blames the line the level names", function()
    local rule = {}
    function rule.refuse() rules.violation("no", 2) end
    local msg = expect_error(function() rule.refuse() end, "rule error: no")
    expect(string.find(msg, "rule_errors_spec%.lua:%d+: rule error: no$") ~= nil):to_be(true)
    expect(rules.is_violation("bad argument")):to_be(false)
  end)
end)

describe("reserve artillery rule errors", function()
  it("targeting a battery, from a combat rule or from the opposing battery", function()
    rule_error(function() reserve_artillery.check_target("central.reserve_artillery") end, "cannot be targeted")
    rule_error(function() fire{ target = reserve_artillery.battery("central") } end, "cannot be targeted")
  end)

  it("targeting an own unit, a unit off the battlefield, or a hex off the map", function()
    world:add_unit{ id = "own", side = "allies", type = "infantry", hex = T }
    rule_error(function() fire{ target = "own", hq = 1 } end, "own belongs to allies")
    local gone = world:add_unit{ id = "gone", side = "central", type = "infantry", hex = hex(6, 4) }
    world:place(gone, nil)
    rule_error(function() fire{ target = "gone", hq = 1 } end, "gone is not on the battlefield")
    rule_error(function() fire{ target = hex(40, 40), hq = 1 } end, "is not on the map")
  end)

  it("a card that cannot order the battery, or a target outside its section", function()
    rule_error(function() fire{ card = "counter_attack", hq = 1 } end, "does not order the reserve artillery")
    rule_error(function() fire{ card = "advance_centre", hq = 1 } end, "orders battlefield units only")
    rule_error(function() fire{ card = "probe_left", hq = 1 } end, "orders the left section")
  end)

  it("HQ tokens above the strength, above those held, below one, or none at all", function()
    rule_error(function() fire{ hq = 5 } end, "the most that may be spent")
    world:set_pool("allies", "hq", 2)
    rule_error(function() fire{ hq = 3 } end, "holds only 2")
    rule_error(function() fire{ hq = 0 } end, "at least one targeting die")
    world:set_pool("allies", "hq", 0)
    rule_error(function() fire{} end, "holds no HQ tokens")
    world:set_pool("allies", "reserve_artillery", 0)
    rule_error(function() fire{ hq = 1 } end, "has no reserve artillery")
    expect(world:pool("allies", "hq")):to_be(0)
  end)

  it("a mistyped call is a plain error, not a rule error", function()
    local msg = expect_error(function() fire{ hq = 1.5 } end, "whole number")
    expect(rules.is_violation(msg)):to_be(false)
    msg = expect_error(function() reserve_artillery.fire{ side = "allies", target = T, hq = 1 } end, "say which command card")
    expect(rules.is_violation(msg)):to_be(false)
  end)
end)
