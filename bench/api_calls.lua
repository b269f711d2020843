-- What each API call costs from Luau (ns per call), on the bombardment
-- scenario: `cargo bench --bench analysis -- apicost` (the analysis
-- workers' bare interrupt, JIT on). See docs/PERFORMANCE.md.
scenario("great_war/bombardment.yaml")
local N = 200000
local function bench(name, f)
  local t0 = os.clock()
  for i = 1, N do f() end
  local dt = os.clock() - t0
  print(string.format("  %-40s %7.0f ns", name, dt / N * 1e9))
end
local H = hex(6, 3)
local u = world:unit("c1")
bench("empty", function() end)
bench("dice.counts(4,'targeting')", function() dice.counts(4, "targeting") end)
bench("dice.counts(2,'battle')", function() dice.counts(2, "battle") end)
bench("world:unit_at(H)", function() world:unit_at(H) end)
bench("world:has_token(H,'wire')", function() world:has_token(H, "wire") end)
bench("world:on_map(H)", function() world:on_map(H) end)
bench("world:opponent('allies')", function() world:opponent("allies") end)
bench("world:pool('allies','hq')", function() world:pool("allies", "hq") end)
bench("world:add_pool(allies,hq,0,r)", function() world:add_pool("allies", "hq", 0, "x") end)
bench("world:terrain(H)", function() world:terrain(H) end)
bench("world:terrain_info(H)", function() world:terrain_info(H) end)
bench("world:baseline('central')", function() world:baseline("central") end)
bench("world:in_section(H,'centre')", function() world:in_section(H, "centre") end)
bench("u.side", function() local _ = u.side end)
bench("u.strength", function() local _ = u.strength end)
bench("u.alive", function() local _ = u.alive end)
bench("H + H", function() local _ = H + H end)
bench("hex(1,2)", function() local _ = hex(1, 2) end)
bench("params.reserve_artillery.crater_at", function() local _ = params.reserve_artillery.crater_at end)
bench("{} table", function() local _ = {a=1,b=2} end)
-- (A whole fire{} is not timed here: in a loop without a reset the board
-- empties and the shots get cheaper. `cargo bench --bench analysis -- sim`
-- times it per trial, from a fresh world each time.)
