-- What is enfilade worth against a column at medium range? A foot battery
-- fires at the flank of a four-base column 20 cm away (medium range: 2 fire
-- points; from enfilade x2 = 4). One d10 per trial. A is the document's
-- enfilade (x2); B turns it off with --vs-set artillery.enfilade_factor=1:
--   sandtable sim scripts/republique/enfilade_column.lua --vs-set artillery.enfilade_factor=1 --trials 2000 --seed 1
scenario("republique/enfilade_column.yaml")

function trial()
  artillery.begin_phase()
  local col = world:unit("col")
  local before = col.strength
  local rec = artillery.fire{ battery = "fb1", quiet = true }
  return {
    points = rec.points,
    morale_hits = rec.morale_hits,
    bases_lost = before - col.strength,
    any_effect = rec.result ~= "-",
  }
end
