//! Every file sandtable writes for the user goes through one writer
//! (`sandtable::files::write`): through a symbolic link to its target, never
//! over a FIFO, a device, a folder or a read-only file, keeping a file's
//! permissions. The session journal refuses a file that is not one of its
//! own, `--resume` never shortens a journal it did not replay whole, and
//! every line it reads is bounded. Each writer is driven here through the
//! command that writes it.

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_sandtable");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scenario() -> String {
    root().join("tests/fixtures/repl/scenario.yaml").display().to_string()
}

/// Runs the binary with `input` on stdin, HOME in `home`; returns (status,
/// stdout, stderr). A run that takes over a minute (a FIFO opened for
/// writing with no reader waits forever) is killed and fails the test.
fn sandtable(args: &[&str], home: &Path, input: &str) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("HOME", home)
        .env("SANDTABLE_HISTORY", home.join("history"))
        .env("NO_COLOR", "1")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A run refused at once may not read its input.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("sandtable {args:?} still runs after a minute (waiting on a FIFO?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string(), flat(&out.stderr))
}

/// An error as one line: the report's frame and line wrapping taken out.
fn flat(text: &[u8]) -> String {
    String::from_utf8_lossy(text).replace(['│', '×'], " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The REPL's writers (`:save`, `:transcript`, `:map --svg`) on each kind of target.
#[test]
fn repl_writers_write_through_links_and_refuse_what_is_not_a_regular_file() {
    let home = tempfile::tempdir().unwrap();
    let d = home.path();
    let repl = |input: String| sandtable(&["repl", "--scenario", &scenario()], d, &input);
    for cmd in [":save", ":transcript", ":map --svg"] {
        // A FIFO: refused at once (a rename would replace it, an open would wait).
        let fifo = d.join(format!("fifo{}", cmd.len()));
        mkfifo(&fifo);
        let (code, out, err) = repl(format!("x = 1\n{cmd} {}\n1 + 1\n", s(&fifo)));
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(err.contains("it is a FIFO (named pipe), not a regular file"), "{cmd}: {err}");
        assert!(out.contains('2'), "{cmd}: the session goes on: {out}");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "{cmd}: the FIFO stays");
        // A device, and a link to one.
        let (_, _, err) = repl(format!("x = 1\n{cmd} /dev/null\n"));
        assert!(err.contains("it is a device, not a regular file"), "{cmd}: {err}");
        let null = d.join(format!("null{}", cmd.len()));
        std::os::unix::fs::symlink("/dev/null", &null).unwrap();
        let (_, _, err) = repl(format!("x = 1\n{cmd} {}\n", s(&null)));
        assert!(err.contains("/dev/null, where it links, is a device"), "{cmd}: {err}");
        assert!(std::fs::symlink_metadata(&null).unwrap().file_type().is_symlink());
        // A folder.
        let (_, _, err) = repl(format!("x = 1\n{cmd} {}\n", s(d)));
        assert!(err.contains("it is a folder, not a regular file"), "{cmd}: {err}");
        // A read-only file: refused, left as it was.
        let ro = d.join(format!("ro{}", cmd.len()));
        std::fs::write(&ro, "mine").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
        let (code, _, err) = repl(format!("x = 1\n{cmd} {}\n", s(&ro)));
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(err.contains("is read-only: it is left as it is"), "{cmd}: {err}");
        assert_eq!(std::fs::read_to_string(&ro).unwrap(), "mine");
        // A private file stays private.
        let private = d.join(format!("private{}", cmd.len()));
        std::fs::write(&private, "old").unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
        let (code, _, err) = repl(format!("x = 1\n{cmd} {}\n", s(&private)));
        assert_eq!(code, 0, "{cmd}: {err}");
        assert_ne!(std::fs::read_to_string(&private).unwrap(), "old", "{cmd}: written");
        assert_eq!(mode(&private), 0o600, "{cmd}: the permissions are kept");
        // A symbolic link (relative, and dangling): the file it names is written, the link stays.
        let real = d.join(format!("real{}", cmd.len()));
        let link = d.join(format!("link{}", cmd.len()));
        std::os::unix::fs::symlink(real.file_name().unwrap(), &link).unwrap();
        let (code, _, err) = repl(format!("x = 1\n{cmd} {}\n", s(&link)));
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "{cmd}: the link stays");
        let first = std::fs::read_to_string(&real).unwrap();
        assert!(!first.is_empty(), "{cmd}: written through the dangling link");
        std::fs::write(&real, "stale").unwrap();
        let (code, _, err) = repl(format!("x = 1\n{cmd} {}\n", s(&link)));
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "{cmd}: the link stays");
        assert_ne!(std::fs::read_to_string(&real).unwrap(), "stale", "{cmd}: the link's target is updated");
    }
    // Nothing left behind by the refused and the done writes.
    let hidden: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "no temporary file is left: {hidden:?}");
}

/// `run --log` and `sim --plot`, the command-line writers.
#[test]
fn log_and_plot_refuse_a_fifo_and_write_through_a_link() {
    let home = tempfile::tempdir().unwrap();
    let d = home.path();
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    let hello = ["run", "scripts/examples/hello.lua", "--scenario", "great_war/bombardment", "--seed", "7", "--log"];
    let (code, _, err) = sandtable(&[&hello[..], &[&s(&fifo)]].concat(), d, "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write the log to") && err.contains("it is a FIFO"), "{err}");
    let log = d.join("log.jsonl");
    std::fs::write(&log, "").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = d.join("log-link.jsonl");
    std::os::unix::fs::symlink(&log, &link).unwrap();
    let (code, _, err) = sandtable(&[&hello[..], &[&s(&link)]].concat(), d, "");
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&log).unwrap().lines().count() > 0);
    assert_eq!(mode(&log), 0o600);

    let sim = ["sim", "tests/fixtures/odds/attack_trial.lua", "--ruleset", "tests/fixtures/odds", "--trials", "50"];
    let (code, _, err) = sandtable(&[&sim[..], &["--plot", &s(&fifo)]].concat(), d, "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it is a FIFO (named pipe), not a regular file"), "{err}");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO stays");
    let svg = d.join("plot.svg");
    std::fs::write(&svg, "old").unwrap();
    std::fs::set_permissions(&svg, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, _, err) = sandtable(&[&sim[..], &["--plot", &s(&svg)]].concat(), d, "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is read-only"), "{err}");
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "old");
}

/// `--coverage-out` writes a new file or over an lcov file, never a file the run reads.
#[test]
fn coverage_out_never_overwrites_a_module_or_a_spec() {
    let dir = tempfile::tempdir().unwrap();
    let rs = dir.path().join("mini");
    std::fs::create_dir_all(rs.join("spec/support")).unwrap();
    for f in ["ruleset.yaml", "mini.lua", "scenario.yaml", "spec/mini_spec.lua", "spec/support/attack.lua"] {
        std::fs::copy(root().join("tests/fixtures/mini").join(f), rs.join(f)).unwrap();
    }
    let cover = |out: &Path| sandtable(&["test", "--coverage", &s(&rs), "--coverage-out", &s(out)], dir.path(), "");
    let module = rs.join("mini.lua");
    let before = std::fs::read(&module).unwrap();
    let link = dir.path().join("cov.lcov");
    std::os::unix::fs::symlink(&module, &link).unwrap();
    for (target, name) in [
        (module.clone(), "mini/mini.lua"),
        (link.clone(), "mini/mini.lua"),
        (rs.join("spec/mini_spec.lua"), "mini_spec.lua"),
        (rs.join("ruleset.yaml"), "ruleset.yaml"),
    ] {
        let (code, _, err) = cover(&target);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("a file this run reads") && err.contains(name), "{err}");
    }
    assert_eq!(std::fs::read(&module).unwrap(), before, "the module is untouched");
    // A spec's support module (loaded by `require`, not measured) is no lcov file either.
    let support = rs.join("spec/support/attack.lua");
    let kept = std::fs::read(&support).unwrap();
    let (code, _, err) = cover(&support);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds something other than lcov coverage, left as it is"), "{err}");
    assert_eq!(std::fs::read(&support).unwrap(), kept);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    // A file of the user's that is not lcov.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let (code, _, err) = cover(&notes);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds something other than lcov coverage"), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
    // A new file, then the same file again.
    let lcov = dir.path().join("mini.lcov");
    for _ in 0..2 {
        let (code, out, err) = cover(&lcov);
        assert_eq!(code, 0, "{out}\n{err}");
        assert!(std::fs::read_to_string(&lcov).unwrap().starts_with("TN:"));
    }
}

/// `--journal FILE` writes only a new file or a journal of ours.
#[test]
fn journal_refuses_a_file_that_is_not_one_of_its_journals() {
    let home = tempfile::tempdir().unwrap();
    let d = home.path();
    let mine = d.join("my.yaml");
    let text = std::fs::read_to_string(scenario())
        .unwrap()
        .replace("ruleset: .", &format!("ruleset: {}", root().join("tests/fixtures/repl").display()));
    std::fs::write(&mine, &text).unwrap();
    // The scenario being played, named as the journal.
    let (code, _, err) = sandtable(&["repl", "--scenario", &s(&mine), "--journal", &s(&mine)], d, "1\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a sandtable session journal") && err.contains("leaves this one as it is"), "{err}");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), text, "the scenario is untouched");
    // Endless files and devices: a clear error at once, not an endless read.
    for dev in ["/dev/zero", "/dev/full", "/dev/null"] {
        let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", dev], d, "1\n");
        assert_eq!(code, 2, "{dev}: {err}");
        assert!(err.contains(&format!("cannot write {dev}: it is a device")), "{dev}: {err}");
        let (code, _, err) = sandtable(&["repl", "--resume", "--journal", dev], d, "");
        assert_eq!(code, 2, "{dev}: {err}");
        assert!(err.contains("it is a device, not a regular file"), "{dev}: {err}");
    }
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &s(&fifo)], d, "1\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it is a FIFO"), "{err}");
    // A regular file with an endless first line is read only up to the line limit.
    let long = d.join("long.jsonl");
    let f = std::fs::File::create(&long).unwrap();
    f.set_len(17 << 20).unwrap();
    let (code, _, err) = sandtable(&["repl", "--resume", "--journal", &s(&long)], d, "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 1 is longer than the 16 MiB a line may be"), "{err}");
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &s(&long)], d, "");
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::metadata(&long).unwrap().len(), 17 << 20, "left as it is");
    // A read-only journal is not replaced.
    let ro = d.join("ro.jsonl");
    std::fs::write(&ro, "").unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &s(&ro)], d, "1\n");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is read-only"), "{err}");
    // A journal of ours whose session ended is written over, through a link, keeping its permissions.
    let j = d.join("session.jsonl");
    let link = d.join("link.jsonl");
    std::os::unix::fs::symlink(&j, &link).unwrap();
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &s(&link)], d, "x = 1\n");
    assert_eq!(code, 0, "{err}");
    std::fs::set_permissions(&j, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &s(&link)], d, "y = 2\n");
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let written = std::fs::read_to_string(&j).unwrap();
    assert!(written.contains("y = 2") && !written.contains("x = 1"), "{written}");
    assert_eq!(mode(&j), 0o600);
}

/// A damaged line in the middle of a journal: what comes before it is
/// replayed, the report names the line, and the journal is kept whole.
#[test]
fn resume_with_a_damaged_line_keeps_the_journal_whole() {
    let home = tempfile::tempdir().unwrap();
    let d = home.path();
    let j = d.join("session.jsonl");
    let input = "a = 1\nb = 2\nc = 3\nd = 4\n";
    let (code, _, err) = sandtable(&["repl", "--scenario", &scenario(), "--journal", &s(&j)], d, input);
    assert_eq!(code, 0, "{err}");
    // Killed before closing, with the line of `c = 3` damaged.
    let lines: Vec<String> = std::fs::read_to_string(&j)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"closed\""))
        .map(|l| if l.contains("c = 3") { "{\"inp\u{7}ut\":".to_string() } else { l.to_string() })
        .collect();
    let damaged_at = lines.iter().position(|l| l.contains('\u{7}')).unwrap() + 1;
    let damaged = lines.join("\n") + "\n";
    std::fs::write(&j, &damaged).unwrap();
    std::fs::set_permissions(&j, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, out, err) = sandtable(&["repl", "--resume", "--journal", &s(&j)], d, "a, b, c, d\n");
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("replayed 2 inputs"), "{err}");
    assert!(err.contains(&format!("line {damaged_at} of the journal is damaged (not JSON)")), "{err}");
    assert!(err.contains("1 input recorded after it is not replayed"), "{err}");
    let kept = d.join("session.jsonl.before-resume");
    assert!(err.contains("kept whole in") && err.contains("session.jsonl.before-resume"), "{err}");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), damaged, "the journal as it was, whole");
    assert_eq!(out.trim_end().lines().last().unwrap(), "1, 2, nil, nil", "{out}");
    // The journal goes on from what was replayed, with the file's permissions.
    let now = std::fs::read_to_string(&j).unwrap();
    assert!(now.contains("a = 1") && now.contains("b = 2") && !now.contains("d = 4"), "{now}");
    assert_eq!(mode(&j), 0o640);
    // Damaged again: the first copy kept is not written over.
    std::fs::write(&j, &damaged).unwrap();
    let (code, _, err) = sandtable(&["repl", "--resume", "--journal", &s(&j)], d, "");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("session.jsonl.before-resume.2"), "{err}");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), damaged);
    assert_eq!(std::fs::read_to_string(d.join("session.jsonl.before-resume.2")).unwrap(), damaged);
}

#[test]
fn new_never_writes_over_a_folder_a_file_or_a_link() {
    let home = tempfile::tempdir().unwrap();
    let d = home.path();
    let mine = d.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "my notes").unwrap();
    std::fs::create_dir(d.join("folder")).unwrap();
    std::fs::write(d.join("folder/ruleset.yaml"), "name: folder\n").unwrap();
    std::fs::write(d.join("file"), "my file").unwrap();
    std::os::unix::fs::symlink(&mine, d.join("link")).unwrap();
    std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling")).unwrap();
    let dir = d.display().to_string();
    for name in ["folder", "file", "link", "dangling"] {
        for args in [
            vec!["new", "ruleset", name, "--dir", &dir],
            vec!["new", "variant", name, "--from", "tricorne", "--dir", &dir],
        ] {
            let (code, out, err) = sandtable(&args, d, "");
            assert_ne!(code, 0, "{args:?}: {out}");
            assert!(err.contains("already exists") && err.contains("nothing was written"), "{args:?}: {err}");
        }
    }
    assert_eq!(std::fs::read_to_string(d.join("folder/ruleset.yaml")).unwrap(), "name: folder\n");
    assert_eq!(std::fs::read_to_string(d.join("file")).unwrap(), "my file");
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1, "nothing written through the link");
    assert!(std::fs::symlink_metadata(d.join("dangling")).unwrap().file_type().is_symlink());
    assert!(!d.join("nowhere").exists(), "nothing written where the dangling link points");
    // A new name is written whole.
    let (code, out, err) = sandtable(&["new", "variant", "fresh", "--from", "tricorne", "--dir", &dir], d, "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(d.join("fresh/ruleset.yaml").is_file() && d.join("fresh/spec").is_dir(), "{out}");
}
