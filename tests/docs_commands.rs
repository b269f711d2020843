//! Every shell command the documentation shows runs as shown.
//!
//! Extracts the commands of README.md, docs/*.md and rulesets/*/README.md
//! (every line of a ```sh block, `\` continuations joined, and `$ `-prompted
//! lines of ```text blocks) and the examples of `sandtable --help` and of
//! every subcommand's `--help` (`sandtable test --help`, ...), then runs
//! each with `bash -c` from the repository root and from an empty folder
//! elsewhere (with the repository as the project folder,
//! `$SANDTABLE_PROJECT`, so that the repository's own files such as
//! `tests/fixtures/` are found from there as from the root; the bundled
//! rulesets alone are tests/variants.rs's), with the built `sandtable`
//! first on PATH and standard input empty. A command fails the test when it exits non-zero or prints an error.
//! To keep the test short on a loaded machine, `--trials N` above 2000 runs
//! with 2000 trials (the command is otherwise exactly as shown).
//!
//! Marks in the docs (a comment line at the top of a ```sh block):
//! - `# not run unattended: REASON` skips the block (builds, benchmarks,
//!   clusters);
//! - `# from the repository root: REASON` runs it from the root only (the
//!   shell itself opens a file of the repository, as in `< FILE`);
//! - `# session NAME: REASON` joins the block to the other blocks of the
//!   document marked with the same NAME, in order, and runs them as one
//!   script (`set -e`), once, in a new empty folder: a walk-through whose
//!   steps build on each other (docs/variants.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_sandtable");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One command found in a document.
#[derive(Debug, Clone)]
struct DocCommand {
    /// `file:line` where it is shown.
    origin: String,
    text: String,
    /// Run from the repository root only.
    root_only: bool,
    /// A whole block, run once as one script in a new empty folder.
    session: bool,
}

fn doc_files() -> Vec<PathBuf> {
    let r = root();
    let mut files = vec![r.join("README.md")];
    let mut listed = |dir: PathBuf, only: Option<&str>| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        v.sort();
        for p in v {
            match only {
                Some(name) => {
                    if p.join(name).is_file() {
                        files.push(p.join(name));
                    }
                }
                None => {
                    if p.extension().is_some_and(|e| e == "md") {
                        files.push(p);
                    }
                }
            }
        }
    };
    listed(r.join("docs"), None);
    listed(r.join("rulesets"), Some("README.md"));
    files
}

/// The commands of one markdown document.
fn extract(path: &Path) -> Vec<DocCommand> {
    let text = std::fs::read_to_string(path).unwrap();
    let shown = path.strip_prefix(root()).unwrap_or(path).display().to_string();
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    let mut skip = false;
    let mut root_only = false;
    // The session the block belongs to, and each session's start and script.
    let mut session: Option<String> = None;
    let mut sessions: Vec<(String, usize, String)> = Vec::new();
    let mut first = true;
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let lineno = n + 1;
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match fence {
                None => {
                    fence = Some(info.trim().to_string());
                    skip = false;
                    root_only = false;
                    first = true;
                }
                Some(_) => {
                    fence = None;
                    assert!(pending.is_none(), "{shown}:{lineno}: a command ends with `\\` at the end of its block");
                    session = None;
                }
            }
            continue;
        }
        let Some(kind) = &fence else { continue };
        let is_sh = kind == "sh" || kind == "bash" || kind == "shell";
        let cmd_line = if is_sh {
            let t = line.trim();
            if first && !t.is_empty() {
                first = false;
                if t.starts_with("# not run unattended") {
                    skip = true;
                }
                if t.starts_with("# from the repository root") {
                    root_only = true;
                }
                if let Some(rest) = t.strip_prefix("# session ") {
                    let name = rest.split(':').next().unwrap_or("").trim().to_string();
                    if !sessions.iter().any(|(n, ..)| *n == name) {
                        sessions.push((name.clone(), lineno, "set -e\n".into()));
                    }
                    session = Some(name);
                }
            }
            if let Some(name) = &session {
                let (.., text) = sessions.iter_mut().find(|(n, ..)| n == name).expect("the session was started");
                text.push_str(line);
                text.push('\n');
                continue;
            }
            if skip || t.is_empty() || t.starts_with('#') {
                continue;
            }
            line.to_string()
        } else if let Some(rest) = trimmed.strip_prefix("$ ") {
            rest.to_string()
        } else {
            continue;
        };
        let (start, mut acc) = pending.take().unwrap_or((lineno, String::new()));
        let piece = cmd_line.trim_end();
        if let Some(body) = piece.strip_suffix('\\') {
            acc.push_str(body);
            acc.push(' ');
            pending = Some((start, acc));
            continue;
        }
        acc.push_str(piece);
        out.push(DocCommand { origin: format!("{shown}:{start}"), text: acc, root_only, session: false });
    }
    for (_, start, text) in sessions {
        out.push(DocCommand { origin: format!("{shown}:{start}"), text, root_only: false, session: true });
    }
    out
}

/// The subcommands `sandtable --help` lists (all but `help`).
fn subcommands() -> Vec<String> {
    let out = Command::new(BIN).arg("--help").output().expect("sandtable --help runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut names = Vec::new();
    let mut in_commands = false;
    for line in text.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
        } else if in_commands {
            match line.split_whitespace().next() {
                Some(name) if line.starts_with("  ") => {
                    if name != "help" {
                        names.push(name.to_string());
                    }
                }
                _ => break,
            }
        }
    }
    names
}

/// The examples of one help text: lines after a line starting `Examples`
/// that start with `sandtable`, without their description (two or more
/// spaces on); an example whose description starts with `(not run
/// unattended` is left out.
fn examples_in(text: &str, origin: &str) -> Vec<DocCommand> {
    let mut in_examples = false;
    let mut cmds = Vec::new();
    for line in text.lines() {
        if line.starts_with("Examples") {
            in_examples = true;
            continue;
        }
        if in_examples {
            let t = line.trim_start();
            if !t.starts_with("sandtable") {
                if !line.starts_with(' ') {
                    in_examples = false;
                }
                continue;
            }
            let mut parts = t.splitn(2, "  ");
            let cmd = parts.next().unwrap_or(t).trim().to_string();
            if parts.next().is_some_and(|d| d.trim_start().starts_with("(not run unattended")) {
                continue;
            }
            cmds.push(DocCommand { origin: origin.into(), text: cmd, root_only: false, session: false });
        }
    }
    cmds
}

/// The examples of `sandtable --help` and of every subcommand's `--help`.
fn help_examples() -> Vec<DocCommand> {
    let help = |args: &[&str]| {
        let out = Command::new(BIN).args(args).output().expect("sandtable --help runs");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let top = help(&["--help"]);
    let mut cmds = examples_in(&top, "sandtable --help");
    assert!(cmds.len() >= 4, "sandtable --help shows its examples:\n{top}");
    let subs = subcommands();
    assert!(subs.len() >= 6 && subs.iter().any(|s| s == "test"), "{subs:?}");
    for sub in &subs {
        let text = help(&[sub, "--help"]);
        cmds.extend(examples_in(&text, &format!("sandtable {sub} --help")));
    }
    for sub in ["test", "sim", "exact", "run", "repl"] {
        assert!(
            cmds.iter().any(|c| c.origin == format!("sandtable {sub} --help")),
            "`sandtable {sub} --help` shows runnable examples"
        );
    }
    cmds
}

/// `--trials N` with N above 2000 becomes `--trials 2000`.
fn fewer_trials(cmd: &str) -> String {
    let words: Vec<&str> = cmd.split(' ').collect();
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let after_trials = i > 0 && words[i - 1] == "--trials";
        match w.parse::<u64>() {
            Ok(n) if after_trials && n > 2000 => out.push("2000".into()),
            _ => out.push((*w).to_string()),
        }
    }
    out.join(" ")
}

/// Runs one command; returns an explanation when it failed.
fn run(cmd: &DocCommand, cwd: &Path, home: &Path) -> Option<String> {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let started = Instant::now();
    let mut bash = Command::new("bash");
    if cmd.session {
        // A walk-through makes its own project in its folder.
        bash.env_remove("SANDTABLE_PROJECT");
    } else {
        bash.env("SANDTABLE_PROJECT", root());
    }
    let out = bash
        .arg("-c")
        .arg(format!("set -o pipefail\n{}", fewer_trials(&cmd.text)))
        .current_dir(cwd)
        .env("PATH", path)
        .env("HOME", home)
        .env("SANDTABLE_HISTORY", home.join("history"))
        .env("NO_COLOR", "1")
        .env_remove("SANDTABLE_PATH")
        .env_remove("SANDTABLE_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let errorish = |s: &str| {
        s.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with("error") || t.starts_with("× ") || t.starts_with("Error") || t.contains("panicked")
        })
    };
    let took = started.elapsed();
    if !out.status.success() || errorish(&stdout) || errorish(&stderr) {
        let tail =
            |s: &str| s.lines().rev().take(15).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
        return Some(format!(
            "{} (in {}, {:.1} s): `{}` exited {:?}\n--- stdout (end)\n{}\n--- stderr (end)\n{}\n",
            cmd.origin,
            cwd.display(),
            took.as_secs_f64(),
            cmd.text,
            out.status.code(),
            tail(&stdout),
            tail(&stderr)
        ));
    }
    if took > Duration::from_secs(60) {
        eprintln!("slow: {} took {:.1} s: {}", cmd.origin, took.as_secs_f64(), cmd.text);
    }
    None
}

#[test]
fn extraction_reads_blocks_marks_and_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("x.md");
    std::fs::write(
        &md,
        "```sh\nsandtable test   # a comment\nsandtable sim a.lua \\\n  --trials 5\n```\n\
         ```sh\n# not run unattended: a cluster\nsbatch x\n```\n\
         ```sh\n# from the repository root: reads a file\nsandtable repl < f\n```\n\
         ```text\n$ sandtable --version\nnot a command\n```\n",
    )
    .unwrap();
    let cmds = extract(&md);
    let texts: Vec<&str> = cmds.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "sandtable test   # a comment",
            "sandtable sim a.lua    --trials 5",
            "sandtable repl < f",
            "sandtable --version"
        ]
    );
    assert!(cmds[2].root_only && !cmds[0].root_only);
}

#[test]
fn blocks_of_one_session_run_as_one_script() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("x.md");
    std::fs::write(
        &md,
        "```sh
# session walk: steps
sandtable new x
```
text
```sh
sandtable other
```
         ```sh
# session walk
sandtable test x
```
",
    )
    .unwrap();
    let cmds = extract(&md);
    assert_eq!(cmds.len(), 2, "{cmds:?}");
    assert_eq!(cmds[0].text, "sandtable other");
    assert!(cmds[1].session && cmds[1].origin.ends_with("x.md:2"), "{cmds:?}");
    assert_eq!(cmds[1].text, "set -e\n# session walk: steps\nsandtable new x\n# session walk\nsandtable test x\n");
}

#[test]
fn help_examples_are_read_and_marked_ones_left_out() {
    let text = "Usage: x\n\nExamples:\n  sandtable run a.lua   what it does\n  sandtable test --mutate big   \
                (not run unattended: minutes)\n  sandtable exact b.lua\nPaths: elsewhere\n  sandtable never\n";
    let cmds: Vec<String> = examples_in(text, "t").into_iter().map(|c| c.text).collect();
    assert_eq!(cmds, ["sandtable run a.lua", "sandtable exact b.lua"]);
}

#[test]
fn every_documented_command_runs_from_the_root_and_from_elsewhere() {
    let mut cmds = Vec::new();
    for f in doc_files() {
        cmds.extend(extract(&f));
    }
    cmds.extend(help_examples());
    assert!(cmds.len() > 15, "the docs show commands: {cmds:?}");
    let elsewhere = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for c in &cmds {
        if c.session {
            let fresh = tempfile::tempdir().unwrap();
            failures.extend(run(c, fresh.path(), home.path()));
            continue;
        }
        if let Some(f) = run(c, &root(), home.path()) {
            failures.push(f);
        }
        if !c.root_only {
            if let Some(f) = run(c, elsewhere.path(), home.path()) {
                failures.push(f);
            }
        }
    }
    // Commands must not leave files in the repository or the other folder.
    let left: Vec<_> = std::fs::read_dir(elsewhere.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "documented commands left files behind in the working folder: {left:?}");
    assert!(
        failures.is_empty(),
        "{} of {} documented commands failed:\n\n{}",
        failures.len(),
        cmds.len(),
        failures.join("\n")
    );
}

/// The repository paths a document names (`src/...`, `tests/...`,
/// `docs/...`, `scripts/...`, `rulesets/...`, `types/...`, `benches/...`,
/// `bench/...`), without globs or placeholders.
fn named_paths(text: &str) -> Vec<String> {
    const ROOTS: [&str; 8] = ["src/", "tests/", "docs/", "scripts/", "rulesets/", "types/", "benches/", "bench/"];
    let mut out = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "`()[]<>\"'|:,;\\".contains(c)) {
        let w = word.trim_end_matches(['.', ',']);
        if !ROOTS.iter().any(|r| w.starts_with(r)) || w.contains(['*', '{', '}', '$']) || w.contains("NAME") {
            continue;
        }
        out.push(w.to_string());
    }
    out
}

/// The folders a document makes with `sandtable new variant|ruleset NAME`
/// (its walk-through's): `rulesets/NAME`.
fn made_folders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for kind in ["sandtable new variant ", "sandtable new ruleset "] {
        for (at, _) in text.match_indices(kind) {
            let name: String =
                text[at + kind.len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.push(format!("rulesets/{name}"));
            }
        }
    }
    // Files the walk-through writes itself (`cat > scripts/x.lua <<'EOF'`).
    for (at, _) in text.match_indices("cat > ") {
        let path: String = text[at + 6..].chars().take_while(|c| !c.is_whitespace()).collect();
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

/// Every file or folder the documentation names is in the repository (a
/// spec file the reader is asked to create says so: "a file of your own";
/// a folder the document's walk-through makes with `sandtable new`, or a
/// file it writes with `cat > FILE`, is made).
#[test]
fn every_path_the_docs_name_exists() {
    let mut missing = Vec::new();
    for f in doc_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let made = made_folders(&text);
        for (n, line) in text.lines().enumerate() {
            if line.contains("of your own") {
                continue;
            }
            for p in named_paths(line) {
                if made.iter().any(|m| p == *m || p.starts_with(&format!("{m}/"))) {
                    continue;
                }
                let here = f.parent().unwrap().join(&p);
                if !root().join(&p).exists() && !here.exists() {
                    missing.push(format!("{}:{}: {p}", f.strip_prefix(root()).unwrap_or(&f).display(), n + 1));
                }
            }
        }
    }
    assert!(missing.is_empty(), "the docs name paths that are not in the repository:\n{}", missing.join("\n"));
}

#[test]
fn named_paths_are_found_in_prose_and_code() {
    let p = named_paths("see `src/lua/raw/fast.rs`, and scripts/x.lua\\n. Not rulesets/*/spec or src/{a,b}.rs");
    assert_eq!(p, ["src/lua/raw/fast.rs", "scripts/x.lua"]);
}

/// `sandtable run --show-log` prints a header before the log, so the log
/// cannot be mistaken for the script's own output.
#[test]
fn show_log_prints_a_header_before_the_log() {
    let out = Command::new(BIN)
        .args(["run", "scripts/examples/hello.lua", "--scenario", "great_war/bombardment", "--show-log"])
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let at = text.find("---- event log (").expect("a header");
    assert!(text[at..].lines().nth(1).is_some_and(|l| l.starts_with("roll ")), "{text}");
}
