//! Text only: every chunk the host loads is compiled from source text.
//!
//! Luau's loader would take a chunk whose first byte is a control byte as
//! bytecode, and crafted bytecode corrupts memory (issue 26 §1: `printf
//! '\003print(1)'` as a script ended in a segmentation fault). Each payload
//! here, the bytes 0x00–0x1f in front of `print('ran')` and a real compiled
//! Luau bytecode blob, goes through every entry point of the binary: a
//! `run` script, a ruleset module (`modules:` and `require`), a spec file and
//! a spec support module, a module only `test --coverage` reads, a piped
//! REPL line, the REPL's `:sim`/`:exact` expressions, and `sim`/`exact`
//! trial scripts (`--vs-script` too). The
//! exit status must be an answer (0, 1 or 2), never a signal; a payload
//! that is whitespace in Luau (tab, line feed, vertical tab, form feed,
//! carriage return) runs; any other is an error naming the script and line,
//! and nothing of it runs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_sandtable");

/// The bytes Luau reads as white space.
const WHITESPACE: &[u8] = b"\t\n\x0b\x0c\r";

/// One payload: a name for messages, the file's bytes, whether it is valid Luau.
struct Payload {
    name: String,
    /// A name fit for a file or module (`b03`, `blob`).
    stem: String,
    bytes: Vec<u8>,
    runs: bool,
}

/// `what` runs when the payload is text; `lead` is the byte (or blob) in front.
fn payloads(what: &str) -> Vec<Payload> {
    let mut out: Vec<Payload> = (0u8..0x20)
        .map(|b| {
            let mut bytes = vec![b];
            bytes.extend_from_slice(what.as_bytes());
            Payload { name: format!("byte {b:#04x}"), stem: format!("b{b:02x}"), bytes, runs: WHITESPACE.contains(&b) }
        })
        .collect();
    let blob = mlua::chunk::Compiler::new().compile(what).expect("Luau compiles it");
    assert!(blob[0] < 0x20, "a Luau bytecode blob starts with its version byte");
    out.push(Payload { name: "compiled Luau bytecode".into(), stem: "blob".into(), bytes: blob, runs: false });
    out
}

fn run(args: &[&str], cwd: &Path, stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("HOME", cwd)
        .env("SANDTABLE_HISTORY", cwd.join("history"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary runs");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.unwrap_or_default()).expect("stdin takes the input");
    drop(input);
    child.wait_with_output().expect("the binary ends")
}

/// The exit code, failing the test on a signal (a crash) or a panic's 101.
fn answered(out: &Output, what: &str) -> i32 {
    let text = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(code @ 0..=2) => code,
        _ => panic!("{what}: the binary crashed ({})\n{text}", out.status),
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The text without the error frame's rules and line wrapping.
fn flat(err: &str) -> String {
    err.replace(['│', '×'], " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The error must name the script and the line and say why, without
/// printing a control byte raw. `file` ends the script's name as shown.
fn assert_refused(err: &str, file: &str, what: &str) {
    let flat = flat(err);
    assert!(flat.contains("sandtable loads no bytecode"), "{what}: the error says why\n{err}");
    let located = flat.contains(&format!("{file}:1:")) || flat.contains(&format!("{file}: not text: line "));
    assert!(located, "{what}: the error names {file} and the line\n{err}");
    assert!(
        !err.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t')),
        "{what}: a control byte shown raw\n{err:?}"
    );
}

/// A ruleset folder with a scenario, whose module `main` is `main_src`.
fn ruleset(dir: &Path, main_src: &str) {
    std::fs::write(
        dir.join("ruleset.yaml"),
        "name: t\ntitle: text only\nmodules: [main]\ndice: { d6: 6 }\nterrain: { field: {} }\nunit_types: { inf: {} }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("scenario.yaml"),
        "name: t\nruleset: .\nmap: { cols: 3, rows: 3 }\nsides: { a: {}, b: {} }\nunits: []\n",
    )
    .unwrap();
    std::fs::write(dir.join("main.lua"), main_src).unwrap();
}

#[test]
fn a_run_script() {
    let dir = tempfile::tempdir().unwrap();
    for p in payloads("print('ran')\n") {
        let file = format!("{}.lua", p.stem);
        std::fs::write(dir.path().join(&file), &p.bytes).unwrap();
        let out = run(&["run", &file], dir.path(), None);
        let code = answered(&out, &p.name);
        if p.runs {
            assert_eq!((code, text(&out.stdout)), (0, "ran\n".into()), "{}: {}", p.name, text(&out.stderr));
        } else {
            assert_eq!(code, 1, "{}", p.name);
            assert!(!text(&out.stdout).contains("ran"), "{}: it ran", p.name);
            assert_refused(&text(&out.stderr), &file, &p.name);
        }
    }
}

#[test]
fn a_ruleset_module_in_modules_and_by_require() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let payloads = payloads("return { ran = true }\n");
    // `require` from a module, every payload in one process.
    let mut main = String::from("main = {}\n");
    for p in &payloads {
        std::fs::write(d.join(format!("{}.lua", p.stem)), &p.bytes).unwrap();
        main.push_str(&format!(
            "do local ok, e = pcall(require, '{0}') print('{0}', ok, ok and e.ran or e) end\n",
            p.stem
        ));
    }
    main.push_str("return main\n");
    ruleset(d, &main);
    std::fs::write(d.join("noop.lua"), "").unwrap();
    let out = run(&["run", "noop.lua", "--scenario", "scenario.yaml"], d, None);
    assert_eq!(answered(&out, "require"), 0, "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    for p in &payloads {
        let line = shown.lines().find(|l| l.starts_with(&format!("{}\t", p.stem))).unwrap_or("");
        if p.runs {
            assert_eq!(line, format!("{}\ttrue\ttrue", p.stem), "{}", p.name);
        } else {
            assert!(line.starts_with(&format!("{}\tfalse\t", p.stem)), "{}: {line}", p.name);
            assert_refused(line, &format!("{}.lua", p.stem), &p.name);
        }
    }
    // The ruleset's own module, listed under `modules:`.
    for p in &payloads {
        std::fs::write(d.join("main.lua"), &p.bytes).unwrap();
        let out = run(&["run", "noop.lua", "--scenario", "scenario.yaml"], d, None);
        let code = answered(&out, &p.name);
        if p.runs {
            assert_eq!(code, 0, "{}: {}", p.name, text(&out.stderr));
        } else {
            assert_ne!(code, 0, "{}", p.name);
            assert_refused(&text(&out.stderr), "main.lua", &p.name);
        }
    }
}

#[test]
fn a_spec_file_and_a_spec_support_module() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ruleset(d, "main = {}\nreturn main\n");
    let spec = d.join("spec");
    std::fs::create_dir_all(spec.join("support")).unwrap();
    // Support modules: one spec requires them all and checks each answer.
    let mut checks = String::from("scenario('../scenario.yaml')\nit('refuses control bytes', function()\n");
    for p in &payloads("return { ran = true }\n") {
        std::fs::write(spec.join("support").join(format!("{}.lua", p.stem)), &p.bytes).unwrap();
        if p.runs {
            checks.push_str(&format!("  expect(require('spec/support/{}').ran):to_be(true)\n", p.stem));
        } else {
            checks.push_str(&format!(
                "  expect_error(function() require('spec/support/{0}') end, '{0}.lua:1: ')\n",
                p.stem
            ));
        }
    }
    checks.push_str("end)\n");
    std::fs::write(spec.join("support_spec.lua"), checks).unwrap();
    let out = run(&["test", "spec/support_spec.lua"], d, None);
    assert_eq!(answered(&out, "spec support"), 0, "{}{}", text(&out.stdout), text(&out.stderr));
    // Spec files: each payload a spec file of its own.
    for p in &payloads("it('ran', function() expect(1):to_be(1) end)\n") {
        let file = format!("spec/{}_spec.lua", p.stem);
        // The blob holds no `it(` as text: say it, or the runner skips the file unread.
        let bytes = if p.runs { p.bytes.clone() } else { [&p.bytes[..], b"\nit('x', function() end)\n"].concat() };
        std::fs::write(d.join(&file), bytes).unwrap();
        let out = run(&["test", &file], d, None);
        let code = answered(&out, &p.name);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        if p.runs {
            assert_eq!(code, 0, "{}: {all}", p.name);
        } else {
            assert_eq!(code, 1, "{}: {all}", p.name);
            assert_refused(&all, &format!("{}_spec.lua", p.stem), &p.name);
        }
    }
}

/// `test --coverage` compiles a module no spec loads to count its lines
/// (loaded, never run): that too is text only.
#[test]
fn a_module_no_spec_loads_under_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ruleset(d, "main = {}\nreturn main\n");
    std::fs::create_dir_all(d.join("spec")).unwrap();
    std::fs::write(
        d.join("spec/a_spec.lua"),
        "scenario('../scenario.yaml')\nit('a', function() expect(main):to_be(main) end)\n",
    )
    .unwrap();
    for p in payloads("print('ran')\n") {
        let file = format!("{}.lua", p.stem);
        std::fs::write(d.join(&file), &p.bytes).unwrap();
        let out = run(&["test", "spec", "--coverage"], d, None);
        std::fs::remove_file(d.join(&file)).unwrap();
        let shown = text(&out.stdout);
        assert_eq!(answered(&out, &p.name), 0, "{}: {shown}{}", p.name, text(&out.stderr));
        let row = shown.lines().find(|l| l.starts_with(&file)).unwrap_or_default();
        // Compiled as text, `print('ran')` is one statement line, never run.
        let counted = if p.runs { "0/1" } else { "0/0" };
        assert!(row.split_whitespace().any(|w| w == counted), "{}: {row}\n{shown}", p.name);
        assert!(!shown.contains("ran\n"), "{}: it ran", p.name);
    }
}

/// The REPL's piped input, one line per payload (a line feed payload makes
/// an empty line first): the bytes payloads in one session, the blob in another.
#[test]
fn a_piped_repl_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ruleset(d, "main = {}\nreturn main\n");
    let all = payloads("print('ran')\n");
    let (blob, bytes): (Vec<&Payload>, Vec<&Payload>) = all.iter().partition(|p| p.stem == "blob");
    let input: Vec<u8> = bytes.iter().flat_map(|p| p.bytes.clone()).collect();
    let out = run(&["repl", "--scenario", "scenario.yaml"], d, Some(&input));
    assert_eq!(answered(&out, "piped REPL"), 1, "{}", text(&out.stderr));
    let ran = text(&out.stdout).matches("ran").count();
    assert_eq!(ran, bytes.iter().filter(|p| p.runs).count(), "only the whitespace lines run\n{}", text(&out.stdout));
    let err = text(&out.stderr);
    let refused = bytes.iter().filter(|p| !p.runs).count();
    assert_eq!(flat(&err).matches("loads no bytecode").count(), refused, "{err}");
    assert!(flat(&err).contains("stdin#2:1:"), "{err}");
    let out = run(&["repl", "--scenario", "scenario.yaml"], d, Some(&blob[0].bytes));
    assert_eq!(answered(&out, "piped bytecode"), 1, "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("ran"), "{}", text(&out.stdout));
    assert_refused(&text(&out.stderr), "stdin#1", "piped bytecode");
}

/// `:sim` and `:exact` put the expression into a trial script: every
/// control byte in front of it must stay an error there too.
#[test]
fn repl_sim_and_exact_expressions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ruleset(d, "main = {}\nreturn main\n");
    for cmd in [":sim", ":exact"] {
        let mut input = Vec::new();
        let mut refused = 0;
        for b in (0u8..0x20).filter(|b| !b"\n\r".contains(b)) {
            input.extend_from_slice(cmd.as_bytes());
            input.push(b' ');
            input.push(b);
            input.extend_from_slice(b"dice.roll(1, 'd6').faces[1] >= 4");
            // :exact enumerates every roll: it refuses --trials rather than ignore it.
            input.extend_from_slice(if cmd == ":sim" { b" --trials 20\n" } else { b"\n" });
            refused += usize::from(!WHITESPACE.contains(&b));
        }
        let out = run(&["repl", "--scenario", "scenario.yaml"], d, Some(&input));
        let err = text(&out.stderr);
        assert_eq!(answered(&out, cmd), 1, "{cmd}: {err}");
        assert_eq!(flat(&err).matches("loads no bytecode").count(), refused, "{cmd}: {err}");
        assert!(flat(&err).contains(&format!("{cmd} input:12:1:")), "{err}");
        let reports = text(&out.stdout).matches("faces[1] >= 4: ").count();
        assert_eq!(reports, 3, "{cmd}: tab, vertical tab and form feed run\n{}", text(&out.stdout));
    }
}

#[test]
fn sim_and_exact_trial_scripts_and_vs_script() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ruleset(d, "main = {}\nreturn main\n");
    let trial = "function trial() return dice.roll(1, 'd6').faces[1] end\n";
    std::fs::write(d.join("good.lua"), trial).unwrap();
    for p in payloads(trial) {
        let file = format!("{}.lua", p.stem);
        std::fs::write(d.join(&file), &p.bytes).unwrap();
        let scenario = ["--scenario", "scenario.yaml"];
        let runs: [Vec<&str>; 3] = [
            [&["sim", file.as_str(), "--trials", "20"][..], &scenario[..]].concat(),
            [&["exact", file.as_str()][..], &scenario[..]].concat(),
            [&["sim", "good.lua", "--trials", "20", "--vs-script", file.as_str()][..], &scenario[..]].concat(),
        ];
        for args in runs {
            let out = run(&args, d, None);
            let what = format!("{} through {args:?}", p.name);
            let code = answered(&out, &what);
            if p.runs {
                assert_eq!(code, 0, "{what}: {}", text(&out.stderr));
            } else {
                assert_ne!(code, 0, "{what}: {}", text(&out.stdout));
                assert_refused(&text(&out.stderr), &file, &what);
            }
        }
    }
}

/// Nothing but `lua::chunk` may hand source to mlua's loader (clippy's
/// `disallowed-methods` refuses `mlua::Lua::load` elsewhere); this checks
/// the list stays in place.
#[test]
fn clippy_refuses_mlua_load_outside_the_chunk_module() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let conf = std::fs::read_to_string(root.join("clippy.toml")).expect("clippy.toml");
    assert!(conf.contains("\"mlua::Lua::load\""), "{conf}");
}
