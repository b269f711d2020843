//! Decisions at the REPL: when a rule calls `decide{...}`, the person is
//! asked, with the options numbered and the default marked (Enter takes it).
//! Options that are hexes say which way they lie from the unit or hex the
//! prompt names (E, NE, ..., `2 hexes NE`) and what is there (terrain, units,
//! tokens).
//!
//! On a terminal the question is read with the same line editor as the
//! prompt (so Ctrl-C abandons the decision, and with it the command, which
//! then leaves the battlefield as it was). When input is piped, the answer
//! is the next input line, so a recorded session replays its decisions.

use std::cell::{Cell, RefCell};
use std::io::{BufRead, Write};
use std::rc::Rc;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::Editor;

use super::helper::ReplHelper;
use crate::lua::{Asker, DecisionRequest};

/// The question as shown: who decides, what, and the numbered options.
pub fn question(req: &DecisionRequest) -> String {
    let mut s = String::new();
    if !req.side.is_empty() {
        s.push_str(&req.side);
        s.push_str(": ");
    }
    s.push_str(&req.prompt);
    s.push('\n');
    // Hex options line up, each followed by its direction and what is there.
    let wide = req.options.iter().map(|o| o.chars().count()).max().unwrap_or(0);
    for (i, o) in req.options.iter().enumerate() {
        let mark = if i == req.default { "   (default)" } else { "" };
        match req.notes.get(i).filter(|n| !n.is_empty()) {
            Some(note) => s.push_str(&format!("  {}) {o:<wide$}  {note}{mark}\n", i + 1)),
            None => s.push_str(&format!("  {}) {o}{mark}\n", i + 1)),
        }
    }
    s
}

/// The answer prompt: `choose 1-3 [2]: `.
pub fn answer_prompt(req: &DecisionRequest) -> String {
    format!("choose 1-{} [{}]: ", req.options.len(), req.default + 1)
}

/// Reads an answer: empty takes the default; a number picks that option; an
/// option's text (or a unique start of it) picks that option.
pub fn parse_answer(req: &DecisionRequest, text: &str) -> Result<usize, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(req.default);
    }
    if let Ok(n) = t.parse::<usize>() {
        if (1..=req.options.len()).contains(&n) {
            return Ok(n - 1);
        }
        return Err(format!("{n} is not between 1 and {}", req.options.len()));
    }
    if let Some(i) = req.options.iter().position(|o| o == t) {
        return Ok(i);
    }
    let starts: Vec<usize> = (0..req.options.len()).filter(|&i| req.options[i].starts_with(t)).collect();
    match starts.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("'{t}' is not one of the options; type a number from 1 to {}", req.options.len())),
        _ => Err(format!("'{t}' could be several options; type its number")),
    }
}

thread_local! {
    /// Options chosen at decisions since the last [`take_answers`], for `:transcript`.
    static ANSWERED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn answered(req: &DecisionRequest, i: usize) {
    let value = req.values.get(i).cloned().or_else(|| req.options.get(i).map(|o| super::save::lua_str(o)));
    if let Some(v) = value {
        ANSWERED.with_borrow_mut(|a| a.push(v));
    }
}

/// The options chosen at decisions since the last call, each as Lua that
/// makes its value (`hex(1, 9)`, `"stand"`).
pub fn take_answers() -> Vec<String> {
    ANSWERED.with_borrow_mut(std::mem::take)
}

/// What the error of a decision abandoned at the prompt starts with.
const ABANDONED: &str = "decision abandoned";

/// The one quiet line to show for an input whose decision the person
/// abandoned (Ctrl-C or Ctrl-D at the answer prompt), instead of an error.
pub fn abandoned(e: &crate::lua::ScriptError) -> Option<String> {
    let m = e.message();
    let at = m.find(ABANDONED)?;
    let why = m[at + ABANDONED.len()..].split(')').next().unwrap_or("").trim_start_matches([' ', '(']);
    let key = if why.is_empty() { String::new() } else { format!(" ({why})") };
    Some(format!("{ABANDONED}{key}; the battlefield is as it was"))
}

/// Asks at the terminal with the REPL's line editor.
pub struct TerminalAsker {
    pub editor: Rc<RefCell<Editor<ReplHelper, FileHistory>>>,
    pub asking: Rc<Cell<bool>>,
}

impl Asker for TerminalAsker {
    fn ask(&mut self, req: &DecisionRequest) -> Result<usize, String> {
        print!("{}", question(req));
        let _ = std::io::stdout().flush();
        self.asking.set(true);
        let result = loop {
            let line = self.editor.borrow_mut().readline(&answer_prompt(req));
            match line {
                Ok(text) => match parse_answer(req, &text) {
                    Ok(i) => {
                        answered(req, i);
                        break Ok(i);
                    }
                    Err(e) => println!("{e}"),
                },
                Err(ReadlineError::Interrupted) => break Err(format!("{ABANDONED} (Ctrl-C)")),
                Err(ReadlineError::Eof) => break Err(format!("{ABANDONED} (Ctrl-D)")),
                Err(e) => break Err(format!("cannot read the answer: {e}")),
            }
        };
        self.asking.set(false);
        result
    }
}

/// Where piped input comes from: shared by the REPL loop and the asker, so a
/// decision's answer is simply the next line.
pub type Lines = Rc<RefCell<Box<dyn BufRead>>>;

/// Reads one line (without its line end); `None` at the end of input.
pub fn next_line(lines: &Lines) -> Option<String> {
    let mut s = String::new();
    match lines.borrow_mut().read_line(&mut s) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            while s.ends_with('\n') || s.ends_with('\r') {
                s.pop();
            }
            Some(s)
        }
    }
}

/// Asks through piped input: prints the question and reads the next line.
/// Input that ends at a decision gives no answer: the decision is abandoned,
/// as Ctrl-D abandons it at a terminal (an empty line takes the default).
pub struct LineAsker {
    pub lines: Lines,
}

impl Asker for LineAsker {
    fn ask(&mut self, req: &DecisionRequest) -> Result<usize, String> {
        print!("{}{}", question(req), answer_prompt(req));
        let answer = next_line(&self.lines);
        println!("{}", answer.as_deref().unwrap_or(""));
        let r = match answer {
            None => Err(format!("{ABANDONED} (the input ended before its answer)")),
            Some(text) => parse_answer(req, &text).map_err(|e| format!("decision '{}': {e}", req.prompt)),
        };
        if let Ok(i) = r {
            answered(req, i);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> DecisionRequest {
        DecisionRequest {
            side: "allies".into(),
            prompt: "retreat where?".into(),
            options: vec!["(1,2)".into(), "(2,2)".into(), "stay".into()],
            default: 1,
            notes: vec![],
            values: vec!["hex(1, 2)".into(), "hex(2, 2)".into(), "\"stay\"".into()],
        }
    }

    #[test]
    fn answers() {
        let r = req();
        assert_eq!(parse_answer(&r, ""), Ok(1));
        assert_eq!(parse_answer(&r, "3"), Ok(2));
        assert_eq!(parse_answer(&r, " stay "), Ok(2));
        assert_eq!(parse_answer(&r, "st"), Ok(2));
        assert!(parse_answer(&r, "4").is_err());
        assert!(parse_answer(&r, "(").is_err());
        let q = question(&r);
        assert!(q.starts_with("allies: retreat where?\n  1) (1,2)\n  2) (2,2)   (default)\n"), "{q}");
        assert_eq!(answer_prompt(&r), "choose 1-3 [2]: ");
        let noted = DecisionRequest { notes: vec!["W: woods".into(), "SW: open".into(), String::new()], ..r };
        let q = question(&noted);
        let e = crate::lua::ScriptError::plain("repl#3:1: decision abandoned (Ctrl-C)\nstack traceback: ...");
        assert_eq!(abandoned(&e).as_deref(), Some("decision abandoned (Ctrl-C); the battlefield is as it was"));
        assert!(abandoned(&crate::lua::ScriptError::plain("boom")).is_none());
        assert!(
            q.contains("  1) (1,2)  W: woods\n  2) (2,2)  SW: open   (default)\n  3) stay\n"),
            "hex options say where and what: {q}"
        );
    }
}
