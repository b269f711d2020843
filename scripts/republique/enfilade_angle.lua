-- What does enfilade do as a battery walks round a column? A foot battery
-- fires at the four-base Austrian column of enfilade_column.yaml from
-- `args.angle` degrees off the column's front, towards its left flank
-- (0: straight ahead, 90: square on its left flank, 180: straight behind),
-- always 20 cm away (closest points: medium range, 2 fire points) and
-- facing the column. One d10 per fire, so `exact` gives every figure:
--   sandtable exact scripts/republique/enfilade_angle.lua --arg angle=0..180:15 --plot enfilade.svg
scenario("republique/enfilade_column.yaml")

local ANGLE = args.angle or 90
local RANGE = 20 -- cm between the closest points of the battery and the column

local col = world:unit("col")
local battery = world:unit("fb1")

-- Where the battery stands: on the bearing `ANGLE` degrees anticlockwise
-- from the column's facing (its left), moved out until the closest points
-- are RANGE apart, turned to face the column's centre.
local bearing = col.facing - ANGLE
local out = RANGE
for _ = 1, 20 do
  local at = tabletop.travel(col.pos, bearing, out)
  world:place(battery, { x = at.x, y = at.y })
  battery.facing = tabletop.bearing(battery.pos, col.pos)
  local gap = RANGE - tabletop.distance(battery, col)
  if math.abs(gap) < 1e-6 then break end
  out += gap
end

function trial()
  artillery.begin_phase()
  local before = col.strength
  local rec = artillery.fire{ battery = "fb1", quiet = not explaining }
  if explaining then
    -- `sim --trial I --explain`: why the fire came out as it did.
    for _, why in ipairs(rec.notes) do print("fire points: " .. why) end
    for _, m in ipairs(rec.modifiers) do print(string.format("die modifier: %s %+d", m.name, m.value)) end
  end
  return {
    enfilade = (artillery.enfilade(battery, col)),
    points = rec.points,
    morale_hits = rec.morale_hits,
    bases_lost = before - col.strength,
    any_effect = rec.result ~= "-",
  }
end
