//! Starting a session: finding the scenario, setting up the host, and the
//! two ways to run (piped input, or the interactive line editor).

use super::*;

/// The history file: `--history`, else `$SANDTABLE_HISTORY`, else
/// `<state dir>/sandtable/history` (`~/.local/state/sandtable/history` on Linux).
pub fn history_path(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("SANDTABLE_HISTORY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    dirs::state_dir().or_else(dirs::data_local_dir).map(|d| d.join("sandtable").join("history"))
}

/// Finds a scenario file by the one lookup rule of [`crate::paths`].
pub fn resolve_scenario(arg: &str) -> Option<PathBuf> {
    crate::paths::find_file(Path::new(arg))
}

/// A seed when neither the command line nor the scenario gives one: random
/// for a person (every session rolls differently, and the banner shows the
/// seed to replay it), 0 for piped input (a recorded session replays).
fn fresh_seed(interactive: bool) -> u64 {
    if !interactive {
        return 0;
    }
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    crate::dice::splitmix64(nanos ^ u64::from(std::process::id())) % 1_000_000
}

/// Loads a scenario into the session (used at start, by `:load` and `:open`).
pub(crate) fn load_scenario(
    session: &mut Session,
    path: &Path,
    overrides: &ScenarioOverrides,
) -> Result<(), ScriptError> {
    session.host.load_scenario(path, overrides)?;
    let sc = Scenario::load(path).ok();
    session.scenario_name = sc.as_ref().map(|s| s.name.clone()).unwrap_or_else(|| path.display().to_string());
    let seed = overrides.seed.or_else(|| sc.as_ref().and_then(|s| s.seed));
    let seed = match seed {
        Some(s) => s,
        None => {
            let s = fresh_seed(session.interactive);
            session.host.state.world.borrow_mut().dice.seed(s);
            s
        }
    };
    session.seed = Some(seed);
    // `:transcript` starts from here: this scenario, seed and overrides.
    let mut opts = vec![format!("seed = {seed}")];
    if let Some(v) = &overrides.variant {
        opts.push(format!("variant = {}", save::lua_str(v)));
    }
    if !overrides.set.is_empty() {
        let set: Vec<String> = overrides
            .set
            .iter()
            .filter_map(|s| s.split_once('='))
            .map(|(k, v)| format!("[{}] = {}", save::lua_str(k.trim()), save::lua_str(v.trim())))
            .collect();
        opts.push(format!("set = {{ {} }}", set.join(", ")));
    }
    let shown = crate::layers::files::canonical(path);
    session.transcript =
        vec![format!("scenario({}, {{ {} }})", save::lua_str(&shown.display().to_string()), opts.join(", "))];
    let _ = ask::take_answers();
    session.rewatch();
    Ok(())
}

/// Builds the session's world from the options: a scenario, a ruleset on an
/// empty map, or the default scenario. Errors are for the person to read.
pub fn setup(
    opts: &ReplOptions,
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    interactive: bool,
    capture: bool,
) -> Result<Session, ScriptError> {
    let host = Host::new(HostOptions {
        time_ms: opts.time_ms,
        memory_mb: opts.memory_mb,
        capture_output: capture,
        ..HostOptions::default()
    })
    .map_err(|e| ScriptError::from_lua(&e))?;
    let overrides = ScenarioOverrides {
        ruleset: opts.ruleset.clone(),
        variant: opts.variant.clone(),
        seed: opts.seed,
        set: opts.set.clone(),
        ..ScenarioOverrides::default()
    };
    host.set_overrides(&overrides);
    let mut session = Session::new(host, out, err, interactive);
    if let Some(path) = &opts.scenario {
        let found = resolve_scenario(&path.to_string_lossy()).unwrap_or_else(|| path.clone());
        load_scenario(&mut session, &found, &overrides)?;
    } else if let Some(name) = &opts.ruleset {
        let mut rs = Ruleset::load(name).map_err(ScriptError::from)?;
        if let Some(v) = &opts.variant {
            rs.apply_variant(v).map_err(ScriptError::from)?;
        }
        for s in &opts.set {
            rs.set_param(s).map_err(ScriptError::from)?;
        }
        session.host.load_ruleset(rs)?;
        let seed = opts.seed.unwrap_or_else(|| fresh_seed(interactive));
        session.host.state.world.borrow_mut().dice.seed(seed);
        session.seed = Some(seed);
        session.scenario_name = "an empty map".into();
        session.rewatch();
    } else if let Some(default) = crate::paths::find_file(Path::new(DEFAULT_SCENARIO)) {
        // A broken default (a rule mid-edit) should not keep the REPL
        // from opening: say why, and start on an empty map.
        if let Err(e) = load_scenario(&mut session, &default, &overrides) {
            session.complain(&e);
            let seed = opts.seed.unwrap_or_else(|| fresh_seed(interactive));
            session.host.state.world.borrow_mut().dice.seed(seed);
            session.seed = Some(seed);
            session.scenario_name = format!("an empty map ({DEFAULT_SCENARIO} did not load; :load it once fixed)");
        }
    } else {
        if !opts.set.is_empty() || opts.variant.is_some() {
            return Err(ScriptError::plain("--set and --variant need a ruleset: give --ruleset or --scenario"));
        }
        let seed = opts.seed.unwrap_or_else(|| fresh_seed(interactive));
        session.host.state.world.borrow_mut().dice.seed(seed);
        session.seed = Some(seed);
        session.scenario_name = format!("an empty map (no {DEFAULT_SCENARIO} found; :load a scenario)");
    }
    Ok(session)
}

pub(super) fn color_on(stream_is_terminal: bool) -> bool {
    stream_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Runs the REPL: interactive on a terminal, line by line from a pipe.
pub fn run(opts: ReplOptions) -> ExitCode {
    if std::io::stdin().is_terminal() {
        run_interactive(opts)
    } else {
        run_piped(opts, Box::new(std::io::BufReader::new(std::io::stdin())))
    }
}

/// Reads inputs from `input` (continuing unfinished chunks), runs them in
/// order and exits at the end: 0 if all succeeded, 1 if any failed.
pub fn run_piped(opts: ReplOptions, input: Box<dyn std::io::BufRead>) -> ExitCode {
    let err_color = color_on(std::io::stderr().is_terminal());
    let started = journal::start(&opts, Box::new(std::io::stdout()), Box::new(std::io::stderr()), false, false);
    let (mut session, journal, resumed) = match started {
        Ok(s) => s,
        Err(e) => {
            eprint!("{}", render_error(&e, err_color));
            return ExitCode::from(2);
        }
    };
    if let Some(report) = resumed {
        eprintln!("{report}");
    }
    session.color = false;
    session.show_notes();
    let lines: ask::Lines = Rc::new(RefCell::new(input));
    session.set_asker(Some(Box::new(journal::JournalAsker {
        inner: Box::new(ask::LineAsker { lines: lines.clone() }),
        journal: journal.clone(),
    })));
    let mut line_no = 0usize;
    while !session.quit {
        let Some(first) = ask::next_line(&lines) else { break };
        line_no += 1;
        let start = line_no;
        let mut chunk = first;
        while is_incomplete(&chunk) {
            match ask::next_line(&lines) {
                Some(more) => {
                    line_no += 1;
                    chunk.push('\n');
                    chunk.push_str(&more);
                }
                None => break,
            }
        }
        journal::input(&journal, &chunk);
        let ok = session.handle_at(&chunk, Some(start));
        journal::done(&journal, &session, ok);
    }
    journal::close(&journal);
    session.host.set_asker(None);
    if session.failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn run_interactive(opts: ReplOptions) -> ExitCode {
    let color = color_on(std::io::stdout().is_terminal());
    let started = journal::start(&opts, Box::new(std::io::stdout()), Box::new(std::io::stderr()), true, false);
    let (mut session, journal, resumed) = match started {
        Ok(s) => s,
        Err(e) => {
            eprint!("{}", render_error(&e, color_on(std::io::stderr().is_terminal())));
            return ExitCode::from(2);
        }
    };
    session.color = color;
    install_ctrl_c(session.host.state.guard.cancel.clone());

    let builder = Config::builder().completion_type(CompletionType::List).auto_add_history(false);
    let config =
        builder.max_history_size(2000).and_then(|b| b.history_ignore_dups(true)).map(|b| b.build()).unwrap_or_default();
    let asking = Rc::new(Cell::new(false));
    let helper = helper::ReplHelper::new(session.host.lua.clone(), session.host.state.clone(), asking.clone(), color);
    let editor: Editor<helper::ReplHelper, FileHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot open the line editor: {e}");
            return ExitCode::from(2);
        }
    };
    let editor = Rc::new(RefCell::new(editor));
    editor.borrow_mut().set_helper(Some(helper));
    if let Ok(mut p) = editor.borrow_mut().create_external_printer() {
        let printer: SharedPrinter = Arc::new(Mutex::new(Box::new(move |line: String| {
            let _ = p.print(format!("{line}\n"));
        })));
        session.printer = Some(printer);
        // Start watching now that notices have somewhere to go.
        session.watcher = None;
        session.rewatch();
    }
    let mut history = history_path(opts.history.as_deref());
    if let Some(h) = &history {
        if h.is_file() {
            if let Err(e) = editor.borrow_mut().load_history(h) {
                eprintln!("warning: cannot read the history file {}: {e}", h.display());
            }
        }
    }
    // Lines are added to the file in place: only to a regular file (a FIFO
    // would wait forever), through a symbolic link, never a read-only one.
    if let Some(h) = history.clone().filter(|h| std::fs::symlink_metadata(h).is_ok()) {
        if let Err(e) = crate::files::writable(&h) {
            eprintln!("warning: this session's lines are not added to the history file {}: {e}", h.display());
            history = None;
        }
    }
    session.set_asker(Some(Box::new(journal::JournalAsker {
        inner: Box::new(ask::TerminalAsker { editor: editor.clone(), asking }),
        journal: journal.clone(),
    })));
    print!("{}", session.banner());
    session.show_notes();
    if let Some(report) = resumed {
        println!("{report}");
    }
    let _ = std::io::stdout().flush();

    let mut history_warned = false;
    while !session.quit {
        session.poll_reload();
        if let Some((cols, _)) = editor.borrow_mut().dimensions() {
            session.width = usize::from(cols).max(40);
        }
        let line = editor.borrow_mut().readline(PROMPT);
        match line {
            Ok(input) => {
                session.poll_reload();
                if !input.trim().is_empty() && !input.starts_with(' ') {
                    let mut ed = editor.borrow_mut();
                    let _ = ed.add_history_entry(input.as_str());
                    if let Some(h) = &history {
                        let saved = h
                            .parent()
                            .map_or(Ok(()), std::fs::create_dir_all)
                            .and_then(|_| ed.append_history(h).map_err(std::io::Error::other));
                        if let Err(e) = saved {
                            if !history_warned {
                                eprintln!("warning: cannot write the history file {}: {e}", h.display());
                                history_warned = true;
                            }
                        }
                    }
                }
                journal::input(&journal, &input);
                let ok = session.handle(&input);
                journal::done(&journal, &session, ok);
            }
            // Ctrl-C at the prompt clears the input.
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                // Not a clean end: the journal stays open for --resume.
                eprintln!("error: cannot read input: {e}");
                session.host.set_asker(None);
                return ExitCode::from(2);
            }
        }
    }
    journal::close(&journal);
    session.host.set_asker(None);
    ExitCode::SUCCESS
}
