//! What the analysis tests share (`tests/analysis.rs`, `tests/sweeps.rs`):
//! the repository's root and the `sandtable` binary run from it.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `sandtable ARGS` in the repository's root, without colours:
/// (success, stdout, stderr).
pub fn sandtable(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sandtable"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run sandtable");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON `sandtable ARGS` prints, which must succeed.
pub fn json(args: &[&str]) -> Value {
    let (ok, out, err) = sandtable(args);
    assert!(ok, "sandtable {args:?} failed:\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}
