//! Unit tests of the dice box and the enumeration.

use super::*;

fn battle() -> DieKind {
    let f = |s: &str| Face::Sym(s.into());
    DieKind::new("battle", vec![f("infantry"), f("infantry"), f("cavalry"), f("artillery"), f("sabre"), f("flag")])
        .unwrap()
}

#[test]
fn symbol_die_merges_repeated_faces() {
    let b = battle();
    assert_eq!(b.values.len(), 5);
    assert_eq!(b.weights, vec![2, 1, 1, 1, 1]);
    assert_eq!(b.sides(), 6);
    assert!(!b.numeric);
}

#[test]
fn same_seed_same_rolls_other_seed_differs() {
    let mut a = DiceBox::new(7);
    let mut b = DiceBox::new(7);
    let mut c = DiceBox::new(8);
    let d6 = a.kind_index("d6").unwrap();
    let ra: Vec<_> = (0..50).map(|_| a.roll(d6, 3).unwrap().counts).collect();
    let rb: Vec<_> = (0..50).map(|_| b.roll(d6, 3).unwrap().counts).collect();
    let rc: Vec<_> = (0..50).map(|_| c.roll(d6, 3).unwrap().counts).collect();
    assert_eq!(ra, rb);
    assert_ne!(ra, rc);
}

#[test]
fn forced_results_come_first_then_random() {
    let mut d = DiceBox::new(1);
    let d6 = d.kind_index("d6").unwrap();
    d.force(d6, &[5, 5]); // value index 5 = face 6
    let r = d.roll(d6, 3).unwrap();
    assert!(r.forced);
    assert!(r.counts[5] >= 2);
    assert_eq!(r.counts.iter().sum::<u32>(), 3);
    assert!(d.unused_forced().is_empty());
}

#[test]
fn pool_outcomes_are_multisets_with_multinomial_weights() {
    let d6 = DieKind::numeric("d6", 6).unwrap();
    let o = PoolOutcomes::new(&d6, 4).unwrap();
    assert_eq!(o.counts.len(), 126); // C(9,4)
    assert_eq!(o.numerators.iter().sum::<u128>(), 1296);
    let b = battle();
    let o = PoolOutcomes::new(&b, 3).unwrap();
    assert_eq!(o.counts.len(), 35); // C(7,3)
    assert_eq!(o.numerators.iter().sum::<u128>(), 216);
    // three infantry: 2^3 of 216
    let idx = o.counts.iter().position(|c| c == &vec![3, 0, 0, 0, 0]).unwrap();
    assert_eq!(o.numerators[idx], 8);
}

#[test]
fn enumeration_walks_every_leaf_once() {
    let mut d = DiceBox::new(0);
    let d6 = d.kind_index("d6").unwrap();
    d.set_source(Source::Enumerate(Enumeration::default()));
    let mut leaves = 0;
    let mut total_weight = 0u128;
    loop {
        if let Source::Enumerate(w) = d.source_mut() {
            w.restart();
        }
        let first = d.roll(d6, 1).unwrap();
        // second roll only when the first is a 6: a branch-dependent tree
        if first.counts[5] == 1 {
            d.roll(d6, 2).unwrap();
        }
        let Source::Enumerate(w) = d.source_mut() else { unreachable!() };
        let num: u128 = w.weight_num.iter().product();
        let den: u128 = w.weight_den.iter().product();
        total_weight += num * (216 / den);
        leaves += 1;
        if !w.advance() {
            break;
        }
    }
    assert_eq!(leaves, 5 + 21);
    assert_eq!(total_weight, 216);
}
