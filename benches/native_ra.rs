//! The Great War reserve artillery rule written natively in Rust against the
//! same `World`: the "speed of light" that `sim` on the Lua rule is measured
//! against (benches/analysis.rs), and a cross-check of the Lua rule's exact
//! odds (tests/analysis.rs includes this file).
//!
//! It mirrors `reserve_artillery.fire{..., quiet = true}` and `lib/cc.lua`
//! step by step for an Artillery Bombard at a hex: spend HQ tokens, roll the
//! targeting dice as one pool, tally on-target dice and a crater, place the
//! crater, shell the on-target hex, then template hexes 1..6 (hits, HQ
//! tokens, wire, medals, retreats with the default choice).

#![allow(dead_code)]

use std::path::Path;

use sandtable::battlefield::World;
use sandtable::hex::Hex;
use sandtable::ruleset::Ruleset;
use sandtable::scenario::Scenario;

/// The rule's params (ruleset.yaml defaults unless changed).
#[derive(Clone, Debug)]
pub struct Params {
    pub on_target_at: u32,
    pub crater_at: u32,
    /// true: template hex 1 is clockwise of the arrow.
    pub hex1_clockwise: bool,
    pub crater_ignores_flag_terrain: bool,
    /// "burst", "hit" or "never".
    pub wire_removed_by: &'static str,
    pub friendly_fire: bool,
    pub hexes_per_flag: i32,
    pub blocked_loses_figure: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            on_target_at: 2,
            crater_at: 3,
            hex1_clockwise: true,
            crater_ignores_flag_terrain: true,
            wire_removed_by: "burst",
            friendly_fire: true,
            hexes_per_flag: 1,
            blocked_loses_figure: true,
        }
    }
}

/// What one bombardment did (the quiet record's numbers).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Record {
    pub on_target: u32,
    pub crater: bool,
    pub crater_placed: bool,
    pub figures_lost: i32,
    pub friendly_figures_lost: i32,
    pub units_eliminated: i32,
    pub medals: i32,
    pub hq_gained: i64,
    pub wire_removed: i32,
}

/// The rule with its data looked up once.
pub struct Rule {
    pub params: Params,
    /// (terrain name, protection, ignore_flags, impassable)
    terrain: Vec<(String, i32, i32, bool)>,
    /// Tokens acting as terrain: (token, protection, ignore_flags).
    token_terrain: Vec<(String, i32, i32)>,
    targeting: usize,
    battle: usize,
    /// Value indices of soldier, burst, deadly, hq, flag on the battle die.
    sym: [usize; 5],
}

fn int(v: &serde_json::Value, k: &str) -> i32 {
    v.get(k).and_then(|x| x.as_i64()).unwrap_or(0) as i32
}

/// A terrain value against ranged fire: the entry's `ranged` sub-table
/// first, then the entry itself (lib/cc.lua terrain_value).
fn ranged(v: &serde_json::Value, k: &str) -> i32 {
    match v.get("ranged").and_then(|r| r.get(k)) {
        Some(x) => x.as_i64().unwrap_or(0) as i32,
        None => int(v, k),
    }
}

/// Loads the bombardment scenario; returns its world and the rule.
pub fn setup(scenario: &Path, params: Params) -> (World, Rule) {
    let sc = Scenario::load(scenario).expect("scenario");
    let rs = Ruleset::load(&sc.ruleset).expect("ruleset");
    let mut world = sc.build(&rs).expect("world");
    for k in &rs.dice {
        world.dice.define(k.clone());
    }
    world.log.recording = false;
    let terrain = rs
        .terrain
        .iter()
        .map(|(name, v)| {
            (
                name.clone(),
                ranged(v, "protection"),
                ranged(v, "ignore_flags"),
                v.get("impassable").and_then(|x| x.as_bool()) == Some(true),
            )
        })
        .collect();
    let mut token_terrain: Vec<(String, i32, i32)> = rs
        .charts
        .get("token_terrain")
        .and_then(|t| t.as_object())
        .map(|o| o.iter().map(|(k, v)| (k.clone(), ranged(v, "protection"), ranged(v, "ignore_flags"))).collect())
        .unwrap_or_default();
    token_terrain.sort();
    let targeting = world.dice.kind_index("targeting").expect("targeting die");
    let battle = world.dice.kind_index("battle").expect("battle die");
    let die = world.dice.kind(battle);
    let at = |s: &str| die.value_index_str(s).unwrap_or(usize::MAX);
    let sym = [at("soldier"), at("burst"), at("deadly"), at("hq"), at("flag")];
    (world, Rule { params, terrain, token_terrain, targeting, battle, sym })
}

const DIR: [Hex; 6] = Hex::DIRECTIONS;

fn dir(d: usize) -> Hex {
    DIR[d - 1]
}

impl Rule {
    /// protection, ignore_flags, impassable of a hex against ranged fire (its
    /// terrain and tokens, leaving out the token `without`).
    fn terrain_effects(&self, w: &World, h: Hex, without: &str) -> (i32, i32, bool) {
        let (mut p, mut ig, mut imp) = (0, 0, false);
        if let Some(name) = w.terrain(h) {
            if let Some(t) = self.terrain.iter().find(|t| *t.0 == **name) {
                (p, ig, imp) = (t.1, t.2, t.3);
            }
        }
        for (tok, tp, ti) in &self.token_terrain {
            if tok != without && w.has_token(h, tok) {
                p = p.max(*tp);
                ig = ig.max(*ti);
            }
        }
        (p, ig, imp)
    }

    fn apply_hits(&self, w: &mut World, unit: usize, hits: i32, by_side: &str) -> (i32, bool) {
        if hits <= 0 {
            return (0, false);
        }
        let removed = w.hit(unit, hits, "reserve artillery");
        if removed > 0 && !w.units[unit].alive() {
            let owner = w.units[unit].side.clone();
            let to = if &*owner != by_side { by_side.into() } else { w.opponent(&owner).expect("opponent") };
            let _ = w.add_pool(&to, "medals", 1, "reserve artillery");
            return (removed, true);
        }
        (removed, false)
    }

    fn can_retreat_into(&self, w: &World, h: Hex) -> bool {
        w.on_map(h) && w.unit_at(h).is_none() && !self.terrain_effects(w, h, "").2
    }

    /// Returns hexes moved, figures lost to a blocked retreat.
    fn retreat(&self, w: &mut World, unit: usize, hexes: i32, by_side: &str) -> (i32, i32) {
        let (mut moved, mut lost) = (0, 0);
        let side = w.units[unit].side.clone();
        let dirs: &[usize] = match w.side(&side).ok().and_then(|s| s.baseline).map(|b| b.name()) {
            Some("bottom") => &[3, 2],
            Some("top") => &[5, 6],
            Some("left") => &[4, 3, 5],
            Some("right") => &[1, 2, 6],
            _ => panic!("no baseline"),
        };
        for step in 1..=hexes {
            let Some(from) = w.units[unit].hex() else { break };
            // The first free hex: the policy default when two are free.
            let to = dirs.iter().map(|&d| from + dir(d)).find(|&h| self.can_retreat_into(w, h));
            match to {
                None => {
                    if self.params.blocked_loses_figure {
                        lost = self.apply_hits(w, unit, hexes - step + 1, by_side).0;
                    }
                    break;
                }
                Some(to) => {
                    if w.step(unit, to, true).is_err() {
                        break;
                    }
                    moved += 1;
                }
            }
        }
        (moved, lost)
    }

    #[expect(clippy::too_many_arguments)]
    fn shell(&self, w: &mut World, rec: &mut Record, side: &str, h: Hex, n: u32, on_target: bool, crater: bool) {
        let p = &self.params;
        if !w.on_map(h) {
            return;
        }
        let mut unit = w.unit_at(h);
        let mut friendly = false;
        if let Some(u) = unit {
            friendly = &*w.units[u].side == side;
            if friendly && !p.friendly_fire {
                unit = None;
            }
        }
        let wire = w.has_token(h, "wire");
        if unit.is_none() && !wire {
            return;
        }
        let mut counts = [0u32; 16];
        let nv = w.dice.kind(self.battle).values.len();
        w.dice.roll_into(self.battle, n, &mut counts[..nv]).expect("roll");
        let get = |i: usize| if i < 16 { counts[i] as i32 } else { 0 };
        let (soldier, burst, deadly, hq, flag) =
            (get(self.sym[0]), get(self.sym[1]), get(self.sym[2]), get(self.sym[3]), get(self.sym[4]));
        let (mut protection, mut ignore) = (0, 0);
        if crater {
            if !p.crater_ignores_flag_terrain {
                // a crater placed by this firing shields nobody yet
                ignore = self.terrain_effects(w, h, if rec.crater_placed { "crater" } else { "" }).1;
            }
        } else {
            let t = self.terrain_effects(w, h, "");
            (protection, ignore) = (t.0, t.1);
        }
        let sure = burst + if on_target { deadly } else { 0 };
        let hits = sure + (soldier - protection).max(0);
        if hq > 0 {
            let _ = w.add_pool(side, "hq", hq as i64, "reserve artillery");
            rec.hq_gained += hq as i64;
        }
        if wire {
            let remove = match p.wire_removed_by {
                "burst" => sure > 0,
                "hit" => hits > 0,
                _ => false,
            };
            if remove {
                w.remove_token(h, "wire");
                rec.wire_removed += 1;
            }
        }
        if let Some(u) = unit {
            let (removed, mut eliminated) = self.apply_hits(w, u, hits, side);
            let mut lost = 0;
            if !eliminated && flag > 0 {
                let retreat_flags = (flag - ignore).max(0);
                if retreat_flags > 0 {
                    let (_, l) = self.retreat(w, u, retreat_flags * p.hexes_per_flag, side);
                    lost = l;
                    if lost > 0 && !w.units[u].alive() {
                        eliminated = true;
                    }
                }
            }
            if friendly {
                rec.friendly_figures_lost += removed + lost;
            } else {
                rec.figures_lost += removed + lost;
                if eliminated {
                    rec.medals += 1;
                }
            }
            if eliminated {
                rec.units_eliminated += 1;
            }
        }
    }

    /// `side`'s reserve artillery fires an Artillery Bombard at `target`,
    /// spending `hq` HQ tokens.
    pub fn fire(&self, w: &mut World, side: &str, target: Hex, hq: u32) -> Record {
        let p = &self.params;
        assert!(w.on_map(target), "target off the map");
        let opponent = w.opponent(side).expect("side");
        let baseline = w.side(&opponent).ok().and_then(|s| s.baseline).map(|b| b.name()).expect("baseline");
        let first = match (baseline, p.hex1_clockwise) {
            ("top", true) => 6,
            ("top", false) => 5,
            ("bottom", true) => 3,
            ("bottom", false) => 2,
            ("left", _) => 4,
            _ => 1,
        };
        let strength = w.pool(side, "reserve_artillery").expect("pool");
        let held = w.pool(side, "hq").expect("pool");
        assert!(strength >= 1 && hq as i64 <= strength && hq as i64 <= held, "cannot spend {hq} HQ tokens");
        let _ = w.add_pool(side, "hq", -(hq as i64), "reserve artillery targeting");
        let mut c = [0u32; 6];
        w.dice.roll_into(self.targeting, hq, &mut c).expect("roll");
        let (mut on, mut crater) = (0, false);
        for &n in &c {
            if n >= p.on_target_at {
                on += n;
            }
            if n >= p.crater_at {
                crater = true;
            }
        }
        let mut rec = Record { on_target: on, crater, ..Record::default() };
        if crater && !w.has_token(target, "crater") {
            w.add_token(target, "crater");
            rec.crater_placed = true;
        }
        if on > 0 {
            self.shell(w, &mut rec, side, target, on, true, crater);
        }
        for (k, &n) in c.iter().enumerate() {
            if n > 0 {
                let h = target + dir((first + k - 1) % 6 + 1);
                self.shell(w, &mut rec, side, h, n, false, false);
            }
        }
        rec
    }
}
