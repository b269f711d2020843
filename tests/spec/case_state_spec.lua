-- Every `it` starts from the state the spec file describes, whatever the
-- case before it did. This file loads no scenario at its top level: each
-- case loads its own, whose ruleset (tests/fixtures/reacts) reacts to moves
-- with `on("enters", ...)`, and the reaction must be there in every case.

for i = 1, 3 do
  it("case " .. i .. " loads the scenario, and its ruleset's reaction is in place", function()
    scenario("../fixtures/reacts/scenario.yaml")
    world:move(world:unit("a1"), hex(1, 0))
    expect(world:unit("a1").entered):to_be(1)
  end)
end

it("a case after them starts with no ruleset, as the file does", function()
  expect(reacts):to_be_nil()
  expect(ruleset.name):to_be_nil()
  expect(#world:units()):to_be(0)
  expect_error(function() require("lib/cc") end, "call scenario(...) before require")
end)
