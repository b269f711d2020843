-- Spec helpers that make specs stronger: pinning a decision's default, and
-- the clear error for a lib/ module required before any ruleset is loaded.

it("answers.default takes the decision's own default", function()
  answers{ answers.default, "b" }
  expect(decide{ prompt = "pick", options = { "a", "b", "c" }, default = "c" }):to_be("c")
  expect(decide{ prompt = "pick", options = { "a", "b", "c" }, default = "c" }):to_be("b")
  answers{ answers.default }
  expect(decide{ prompt = "first", options = { "x", "y" } }):to_be("x")
end)

it("require('lib/...') before a scenario says to load one first", function()
  expect_error(function() require("lib/cc") end, "call scenario(...) before require")
end)
