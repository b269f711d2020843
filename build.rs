//! Rebuilds sandtable when a bundled ruleset or script changes.
//!
//! `include_dir!` (src/layers/files.rs) builds `rulesets/` and `scripts/`
//! into the binary, but Cargo only notices an edit to a file it already
//! included, not a file added or removed. Naming the two folders here makes
//! Cargo look at everything in them.

fn main() {
    println!("cargo:rerun-if-changed=rulesets");
    println!("cargo:rerun-if-changed=scripts");
    println!("cargo:rerun-if-changed=build.rs");
}
