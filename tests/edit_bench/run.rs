//! Drives one server through every hunk of every change, in each variant, and tallies what
//! happened.
//!
//! A change's hunks are sent one call each, in order, to a copy of the before-file. After
//! each call the file must be what git's hunks make of the before-file with exactly the
//! hunks applied so far (a refused hunk stays unapplied, and the next ones are still meant
//! to apply); once all apply, that is git's after-file, byte for byte. A wrong file is
//! recorded and put back to what it should be, so the next hunk is judged on its own.

use std::fs;
use std::path::Path;

use super::client::Client;
use super::hunks::{lines, Change, Hunk};
use super::judge::{judge, Outcome};
use super::variants::{call, Site, Variant};

/// Counts for one variant.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tally {
    /// Hunks the variant could be made for.
    pub(crate) calls: usize,
    /// Hunks not sent: the variant's `old_text` is another place's exact text.
    pub(crate) elsewhere: usize,
    pub(crate) applied: usize,
    pub(crate) refused: usize,
    pub(crate) unguided: usize,
    pub(crate) wrong: usize,
}

impl Tally {
    pub(crate) fn add(&mut self, other: &Tally) {
        self.calls += other.calls;
        self.elsewhere += other.elsewhere;
        self.applied += other.applied;
        self.refused += other.refused;
        self.unguided += other.unguided;
        self.wrong += other.wrong;
    }
}

/// A wrong file or a refusal without guidance, with what it takes to reproduce it.
#[derive(Debug, Clone)]
pub(crate) struct Example {
    pub(crate) variant: Variant,
    pub(crate) why: &'static str,
    pub(crate) label: String,
    pub(crate) path: String,
    /// The 1-based first line of the hunk in the file the call was made on.
    pub(crate) line: usize,
    pub(crate) old: String,
    pub(crate) new: String,
    /// The file's lines around the hunk before the call, and the same place after it.
    pub(crate) before: String,
    pub(crate) after: String,
    /// The first line where the file differs from the intended one (wrong files only).
    pub(crate) differs: String,
    pub(crate) reply: String,
}

/// The first line where `now` differs from `intended`, both shown.
fn first_difference(intended: &str, now: &[u8]) -> String {
    let now = String::from_utf8_lossy(now);
    let (a, b): (Vec<&str>, Vec<&str>) = (
        intended.split_inclusive('\n').collect(),
        now.split_inclusive('\n').collect(),
    );
    match (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        Some(i) => format!(
            "line {}: intended {:?}, found {:?}",
            i + 1,
            a.get(i).copied().unwrap_or("(end of file)"),
            b.get(i).copied().unwrap_or("(end of file)")
        ),
        None => "none".into(),
    }
}

/// Examples kept per variant and verdict (wrong, refused without guidance) for the report.
const EXAMPLES_PER_VARIANT: usize = 3;

/// The file with `applied` hunks of `change` applied and the others not.
fn state(change: &Change, before: &[&str], after: &[&str], applied: &[bool]) -> String {
    let mut out = String::with_capacity(change.before.len().max(change.after.len()));
    let mut at = 0;
    for (hunk, done) in change.hunks.iter().zip(applied) {
        out.extend(before[at..hunk.old_start].iter().copied());
        let lines = match done {
            true => &after[hunk.new_start..hunk.new_start + hunk.new_len()],
            false => &before[hunk.old_start..hunk.old_start + hunk.old_len()],
        };
        out.extend(lines.iter().copied());
        at = hunk.old_start + hunk.old_len();
    }
    out.extend(before[at..].iter().copied());
    out
}

/// The 1-based line where `hunk` starts once the `applied` hunks before it are applied.
fn line_now(hunks: &[Hunk], applied: &[bool], index: usize) -> usize {
    let shift: isize = hunks[..index]
        .iter()
        .zip(applied)
        .filter(|(_, done)| **done)
        .map(|(h, _)| h.new_len() as isize - h.old_len() as isize)
        .sum();
    (hunks[index].old_start as isize + shift) as usize + 1
}

/// Lines `from..=to` (1-based) of `text`, widened by 2 on each side, numbered.
fn excerpt(text: &str, from: usize, to: usize) -> String {
    let first = from.saturating_sub(3);
    text.split_inclusive('\n')
        .enumerate()
        .skip(first)
        .take(to + 2 - first)
        .map(|(i, l)| format!("{:>5}| {}", i + 1, l.escape_debug()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Sends every hunk of `changes` in `variant` through `client`, whose root is `root`;
/// `slot` names the scratch directory of this run's files below it.
pub(crate) fn run(
    client: &mut Client,
    root: &Path,
    slot: &str,
    changes: &[Change],
    variant: Variant,
    tally: &mut Tally,
    examples: &mut Vec<Example>,
) {
    for (k, change) in changes.iter().enumerate() {
        let rel = format!("{slot}/{k}/{}", change.path);
        let file = root.join(&rel);
        fs::create_dir_all(file.parent().expect("a parent")).expect("create the file's directory");
        fs::write(&file, &change.before).expect("write the before-file");
        let before = lines(&change.before);
        let after = lines(&change.after);
        let mut applied = vec![false; change.hunks.len()];
        for (h, hunk) in change.hunks.iter().enumerate() {
            let current = state(change, &before, &after, &applied);
            let line = line_now(&change.hunks, &applied, h);
            let site = Site {
                old: &before[hunk.old_start..hunk.old_start + hunk.old_len()],
                new: &after[hunk.new_start..hunk.new_start + hunk.new_len()],
                ops: &hunk.ops,
                line,
                text: &current,
            };
            let Some(sent) = call(variant, &site) else {
                continue;
            };
            // A garbled `old_text` that is, exactly, another place of the file names that
            // place: any server must edit it there. Not sent, counted.
            if !matches!(variant, Variant::Exact | Variant::MinimalContext)
                && current.contains(&sent.old)
            {
                tally.elsewhere += 1;
                continue;
            }
            applied[h] = true;
            let intended = state(change, &before, &after, &applied);
            applied[h] = false;
            let reply = client.edit(&rel, &sent.old, &sent.new);
            let now = fs::read(&file).unwrap_or_default();
            tally.calls += 1;
            match judge(
                current.as_bytes(),
                intended.as_bytes(),
                &now,
                &reply,
                &sent.old,
                sent.region,
            ) {
                Outcome::Applied => {
                    tally.applied += 1;
                    applied[h] = true;
                }
                Outcome::Refused => tally.refused += 1,
                outcome => {
                    let why = match outcome {
                        Outcome::Wrong(why) => {
                            tally.wrong += 1;
                            why
                        }
                        _ => {
                            tally.unguided += 1;
                            "refused without guidance"
                        }
                    };
                    let kept = examples
                        .iter()
                        .filter(|e| e.variant == variant && e.why == why)
                        .count();
                    if kept < EXAMPLES_PER_VARIANT {
                        let end = line + hunk.old_len() - 1;
                        examples.push(Example {
                            variant,
                            why,
                            label: change.label.clone(),
                            path: change.path.clone(),
                            line,
                            old: sent.old.clone(),
                            new: sent.new.clone(),
                            before: excerpt(&current, line, end),
                            after: excerpt(&String::from_utf8_lossy(&now), line, end),
                            differs: match outcome {
                                Outcome::Wrong(_) => first_difference(&intended, &now),
                                _ => String::new(),
                            },
                            reply: reply.text.chars().take(600).collect(),
                        });
                    }
                    if !matches!(outcome, Outcome::Wrong(_)) {
                        continue;
                    }
                    fs::write(&file, &current).expect("put the file back");
                    client.reread(&rel);
                }
            }
        }
        if applied.iter().all(|a| *a) {
            let now = fs::read(&file).unwrap_or_default();
            assert_eq!(
                now,
                change.after.as_bytes(),
                "{} {}: every hunk applied, yet the file is not git's after-file",
                change.label,
                change.path
            );
        }
        let _ = fs::remove_dir_all(root.join(slot).join(k.to_string()));
    }
}
