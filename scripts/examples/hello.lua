-- hello.lua: a first script. Run it with
--   sandtable run scripts/examples/hello.lua --scenario great_war/bombardment --show-log
for _, u in ipairs(world:units{ side = "central" }) do
  print(u)
end
dice.force("targeting", { 1, 4, 4, 6 })      -- replay an edge case exactly
print(dice.roll(4, "targeting", "a what-if"))
print(world:los(hex(3, 6), hex(6, 2)))
