//! How the indentation a model wrote maps onto a file's, when `old_text` matched only with
//! whitespace ignored: the change that turns each `old_text` line's indentation into the
//! file's is found, and the same change is applied to the lines `new_text` adds.
//!
//! A change is one of a few readings, tried in two tiers:
//! 1. the model's indentation with a constant part added or removed (its relative
//!    indentation is the file's), or the first line's indentation alone differing (the
//!    model began copying after it, and the lines after it are as in the file);
//! 2. only when no reading of the first tier applies: tabs written as the file's unit of
//!    spaces, a unit of spaces written as tabs, or one unit of spaces as another, then a
//!    constant part added or removed.
//!
//! Every reading of a tier that fits all of `old_text`'s lines is applied to `new_text`;
//! they must all give the same lines, or the edit is refused (the model's text does not
//! say which was meant). A reading also fails when a line it makes would be indented with
//! characters the file does not indent with, and, when `old_text` showed only one level,
//! when a new deeper level is not a multiple of the file's unit: then nothing in the
//! model's text tells how its levels map onto the file's. Where a unit is a guess (a
//! text's most common step, which other units explain as well), the readings with the
//! other units are tried too, and the edit is refused when they place a line elsewhere.

/// The indentation habit of a text: what most indented lines start with and, for
/// spaces, the most common step between a line and a deeper next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Tabs,
    Spaces(Option<usize>),
    Unknown,
}

/// A second unit a spaces-indented text may use besides `unit` (its most common step):
/// the common divisor of `unit` and the width most of its indented lines have, when that
/// width is no multiple of `unit`. A few deeper lines can make the step twice the levels
/// most lines use, and which one a tab stands for is then a guess.
pub(crate) fn width_doubt<'a>(lines: impl Iterator<Item = &'a str>, unit: Style) -> Option<usize> {
    let Style::Spaces(Some(unit)) = unit else {
        return None;
    };
    let mut widths: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let ind = indentation(line);
        if !ind.is_empty() && !ind.contains('\t') {
            *widths.entry(ind.len()).or_default() += 1;
        }
    }
    let (&common, _) = widths
        .iter()
        .max_by_key(|&(w, n)| (n, std::cmp::Reverse(w)))?;
    let divisor = (1..=unit)
        .rev()
        .find(|d| unit % d == 0 && common % d == 0)?;
    (divisor < unit).then_some(divisor)
}

/// The leading spaces and tabs of `line`.
pub(crate) fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The style of `lines` (blank ones are skipped).
pub(crate) fn style<'a>(lines: impl Iterator<Item = &'a str>) -> Style {
    let (mut tabs, mut spaces) = (0usize, 0usize);
    let mut steps = [0usize; 9];
    let mut previous: Option<usize> = None;
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        let ind = indentation(line);
        match ind.as_bytes().first() {
            Some(b'\t') => tabs += 1,
            Some(_) => spaces += 1,
            None => {}
        }
        let width = (!ind.contains('\t')).then_some(ind.len());
        if let (Some(before), Some(now)) = (previous, width) {
            if now > before && now - before < steps.len() {
                steps[now - before] += 1;
            }
        }
        previous = width;
    }
    if tabs > spaces {
        return Style::Tabs;
    }
    if spaces == 0 {
        return Style::Unknown;
    }
    // The most common step; on a tie the smaller.
    let unit = (1..steps.len())
        .filter(|&s| steps[s] > 0)
        .max_by_key(|&s| (steps[s], std::cmp::Reverse(s)));
    Style::Spaces(unit)
}

/// How the model's indentation characters are read before a constant part is added or
/// removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Convert {
    Same,
    /// Each tab as this many spaces.
    TabsToSpaces(usize),
    /// Each run of this many leading spaces as a tab.
    SpacesToTabs(usize),
    /// Each run of the first count of leading spaces as the second count.
    Rescale(usize, usize),
}

impl Convert {
    fn apply(self, ind: &str) -> String {
        let all_spaces = !ind.contains('\t');
        match self {
            Convert::Same => ind.to_string(),
            Convert::TabsToSpaces(k) => ind.replace('\t', &" ".repeat(k)),
            Convert::SpacesToTabs(k) if all_spaces => {
                "\t".repeat(ind.len() / k) + &" ".repeat(ind.len() % k)
            }
            Convert::Rescale(a, b) if all_spaces => " ".repeat(ind.len() / a * b + ind.len() % a),
            _ => ind.to_string(),
        }
    }
}

/// A reading of the change, fitted to `old_text`'s lines.
#[derive(Clone, Debug)]
struct Fitted {
    convert: Convert,
    /// Only the first line's indentation changes; the lines after it are as written.
    first_only: bool,
    /// The model's base indentation (after `convert`) and the file's.
    from: String,
    to: String,
    /// `old_text`'s lines showed one indentation only.
    one_level: bool,
}

/// One line of `old_text` beside the file's line it matched: its 0-based index in
/// `old_text`, and both indentations. Blank lines have none.
pub(crate) struct Pair<'a> {
    pub(crate) index: usize,
    pub(crate) model: &'a str,
    pub(crate) file: &'a str,
}

/// A line `new_text` adds: its 0-based index in `new_text` and its indentation.
pub(crate) struct Added<'a> {
    pub(crate) index: usize,
    pub(crate) model: &'a str,
}

/// Why no indentation could be given to `new_text`'s lines.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No reading turns `old_text`'s indentation into the file's.
    Inconsistent,
    /// Readings fit but give different lines: the two descriptions, and the first
    /// `new_text` line (0-based) they indent differently.
    Ambiguous(String, String, usize),
    /// Readings fit, but none can indent this `new_text` line (0-based): why.
    Unplaceable(usize, String),
}

/// The indentation each added line gets, and how it was found (for the result's note;
/// empty when the indentation did not change).
pub(crate) fn reindent(
    pairs: &[Pair<'_>],
    added: &[Added<'_>],
    file: Style,
    model: Style,
    file_doubt: Option<usize>,
) -> Result<(Vec<String>, String), Refusal> {
    let mut unplaceable = None;
    let mut any_fit = false;
    let tiers = [
        (first_tier(), Vec::new()),
        (
            second_tier(file, model),
            second_tier_doubts(pairs, file, model, file_doubt),
        ),
    ];
    for (tier, doubts) in tiers {
        // Converting one unit of spaces into another needs two levels to show it.
        let fitting = |readings: &[Reading]| -> Vec<Fitted> {
            readings
                .iter()
                .filter_map(|&r| fit(pairs, r))
                .filter(|f| !(f.one_level && matches!(f.convert, Convert::Rescale(..))))
                .collect()
        };
        let fitted = fitting(&tier);
        any_fit |= !fitted.is_empty();
        let mut made: Vec<(&Fitted, Vec<String>)> = Vec::new();
        for reading in &fitted {
            match place(reading, added, file) {
                Ok(lines) => made.push((reading, lines)),
                Err(why) => {
                    unplaceable.get_or_insert(why);
                }
            }
        }
        let Some((first, lines)) = made.first() else {
            continue;
        };
        // The model's unit was read from its own steps, which a smaller unit explains as
        // well (8 spaces are two steps of 4): such a reading may only refuse, never apply.
        let doubted: Vec<(Fitted, Style)> = doubts
            .iter()
            .filter_map(|&(r, style)| Some((fitting(&[r]).pop()?, style)))
            .collect();
        let doubt = doubted
            .iter()
            .filter_map(|(r, style)| place(r, added, *style).ok().map(|l| (r, l)))
            .find(|(_, l)| l != lines);
        if let Some((other, theirs)) = doubt {
            let at = (0..lines.len())
                .find(|&k| lines[k] != theirs[k])
                .unwrap_or(0);
            return Err(Refusal::Ambiguous(
                describe(first),
                describe(other),
                added[at].index,
            ));
        }
        if let Some((other, theirs)) = made.iter().find(|(_, l)| l != lines) {
            let at = (0..lines.len())
                .find(|&k| lines[k] != theirs[k])
                .unwrap_or(0);
            return Err(Refusal::Ambiguous(
                describe(first),
                describe(other),
                added[at].index,
            ));
        }
        return Ok((lines.clone(), describe(first)));
    }
    match unplaceable {
        Some((line, why)) if any_fit => Err(Refusal::Unplaceable(line, why)),
        _ => Err(Refusal::Inconsistent),
    }
}

/// A reading before it is fitted: how characters convert, and whether only the first
/// line moves.
type Reading = (Convert, bool);

fn first_tier() -> Vec<Reading> {
    vec![(Convert::Same, false), (Convert::Same, true)]
}

/// The conversions worth trying: to the file's unit of spaces when it is known, from
/// the model's when it is known, else the common ones.
fn second_tier(file: Style, model: Style) -> Vec<Reading> {
    let common = [2, 3, 4, 8];
    let file_unit = match file {
        Style::Spaces(Some(u)) => vec![u],
        _ => common.to_vec(),
    };
    let model_unit = match model {
        Style::Spaces(Some(u)) => vec![u],
        _ => common.to_vec(),
    };
    let mut out = Vec::new();
    out.extend(file_unit.iter().map(|&k| Convert::TabsToSpaces(k)));
    out.extend(model_unit.iter().map(|&k| Convert::SpacesToTabs(k)));
    for &a in &model_unit {
        out.extend(
            file_unit
                .iter()
                .filter(|&&b| b != a)
                .map(|&b| Convert::Rescale(a, b)),
        );
    }
    out.into_iter().map(|c| (c, false)).collect()
}

/// Readings that can only make the second tier refuse, never apply: the units read from
/// either text are guesses (a file's most common step, a model's own steps), which other
/// units explain as well. Each is placed in the file style it supposes.
fn second_tier_doubts(
    pairs: &[Pair<'_>],
    file: Style,
    model: Style,
    file_doubt: Option<usize>,
) -> Vec<(Reading, Style)> {
    let mut out: Vec<(Reading, Style)> = smaller_model_units(file, model)
        .into_iter()
        .map(|r| (r, file))
        .collect();
    out.extend(shiftless_tab_width(pairs, file));
    out.extend(file_doubt.map(|d| ((Convert::TabsToSpaces(d), false), Style::Spaces(Some(d)))));
    out
}

/// Tabs as spaces with no constant part: a line of `old_text` at `t` tabs matched a file
/// line at `w` spaces, so each tab may be `w / t` spaces rather than the file's unit (that
/// unit is its most common step, which a few deeper lines can make twice the levels most
/// lines use). With two levels in `old_text` at most one width fits; with one, both do.
fn shiftless_tab_width(pairs: &[Pair<'_>], file: Style) -> Option<(Reading, Style)> {
    let Style::Spaces(Some(unit)) = file else {
        return None;
    };
    let pair = pairs.iter().find(|p| {
        !p.model.is_empty()
            && !p.model.contains(' ')
            && !p.file.is_empty()
            && !p.file.contains('\t')
    })?;
    let (t, w) = (pair.model.len(), pair.file.len());
    (w % t == 0 && w / t != unit).then_some((
        (Convert::TabsToSpaces(w / t), false),
        Style::Spaces(Some(w / t)),
    ))
}

/// Readings of the model's spaces with a smaller common unit that divides the one its
/// text was read to use (none when that unit was not known: `second_tier` tried them all).
fn smaller_model_units(file: Style, model: Style) -> Vec<Reading> {
    let Style::Spaces(Some(unit)) = model else {
        return Vec::new();
    };
    let smaller = [2, 4].into_iter().filter(|&k| k < unit && unit % k == 0);
    let mut out: Vec<Convert> = Vec::new();
    for k in smaller {
        out.push(Convert::SpacesToTabs(k));
        match file {
            Style::Spaces(Some(b)) if b != k => out.push(Convert::Rescale(k, b)),
            _ => {}
        }
    }
    out.into_iter().map(|c| (c, false)).collect()
}

/// The reading fitted to every pair, or `None` when one pair does not follow it.
fn fit(pairs: &[Pair<'_>], (convert, first_only): Reading) -> Option<Fitted> {
    if first_only {
        if pairs.iter().any(|p| p.index > 0 && p.model != p.file) {
            return None;
        }
        let first = pairs.iter().find(|p| p.index == 0);
        return Some(Fitted {
            convert,
            first_only,
            from: first.map_or(String::new(), |p| p.model.to_string()),
            to: first.map_or(String::new(), |p| p.file.to_string()),
            one_level: false,
        });
    }
    let model: Vec<String> = pairs.iter().map(|p| convert.apply(p.model)).collect();
    let from = common_prefix(model.iter().map(String::as_str));
    let to = common_prefix(pairs.iter().map(|p| p.file));
    let fits = pairs
        .iter()
        .zip(&model)
        .all(|(p, m)| m[from.len()..] == p.file[to.len()..]);
    fits.then(|| Fitted {
        convert,
        first_only,
        one_level: model.iter().all(|m| *m == from),
        from: from.to_string(),
        to: to.to_string(),
    })
}

/// The longest prefix all `items` share.
fn common_prefix<'a>(mut items: impl Iterator<Item = &'a str>) -> &'a str {
    let Some(first) = items.next() else {
        return "";
    };
    let mut len = first.len();
    for item in items {
        len = first
            .bytes()
            .zip(item.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    &first[..len]
}

/// The indentation of every added line under `reading`, or the first line it cannot place.
fn place(
    reading: &Fitted,
    added: &[Added<'_>],
    file: Style,
) -> Result<Vec<String>, (usize, String)> {
    added
        .iter()
        .map(|line| place_one(reading, line, file).map_err(|why| (line.index, why)))
        .collect()
}

fn place_one(reading: &Fitted, line: &Added<'_>, file: Style) -> Result<String, String> {
    if reading.first_only && line.index > 0 {
        return fits_style(line.model, file).map(|()| line.model.to_string());
    }
    let (from, to) = (reading.from.as_str(), reading.to.as_str());
    let model = reading.convert.apply(line.model);
    // The part of the result the model's text decides (the rest comes from the file).
    let (made, own) = if let Some(rest) = model.strip_prefix(from) {
        (format!("{to}{rest}"), rest.to_string())
    } else if let Some(added) = to.strip_suffix(from) {
        (format!("{added}{model}"), model.clone())
    } else if let Some(rest) = from
        .strip_suffix(to)
        .and_then(|removed| model.strip_prefix(removed))
    {
        (rest.to_string(), rest.to_string())
    } else {
        return Err(format!(
            "it is indented less than `old_text`'s least indented line ({})",
            spell(from)
        ));
    };
    fits_style(&made, file)?;
    if reading.one_level && !reading.first_only {
        match file {
            Style::Spaces(Some(unit)) if own.contains('\t') || own.len() % unit != 0 => {
                return Err(format!(
                    "it is indented {} deeper than the line(s) of `old_text`, and the file indents by {unit} spaces",
                    spell(&own)
                ))
            }
            Style::Tabs if own.contains(' ') => {
                return Err(format!(
                    "it is indented {} deeper than the line(s) of `old_text`, and the file indents with tabs",
                    spell(&own)
                ))
            }
            _ => {}
        }
    }
    Ok(made)
}

/// A line the fallback writes never brings indentation characters the file does not use.
fn fits_style(made: &str, file: Style) -> Result<(), String> {
    match file {
        Style::Tabs if made.starts_with(' ') => {
            Err("it would start with spaces where the file indents with tabs".into())
        }
        Style::Spaces(_) if made.contains('\t') => {
            Err("it would hold a tab where the file indents with spaces".into())
        }
        _ => Ok(()),
    }
}

/// An indentation in words: `no indentation`, `4 spaces`, `1 tab`, or escaped.
pub(crate) fn spell(ind: &str) -> String {
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    if ind.is_empty() {
        "no indentation".into()
    } else if !ind.contains('\t') {
        count(ind.len(), "space")
    } else if !ind.contains(' ') {
        count(ind.len(), "tab")
    } else {
        format!("`{}`", ind.replace('\t', "\\t"))
    }
}

/// How a reading changes indentation, for the model: empty when it changes nothing.
fn describe(reading: &Fitted) -> String {
    let shift = if reading.from == reading.to {
        String::new()
    } else {
        format!("{} became {}", spell(&reading.from), spell(&reading.to))
    };
    let convert = match reading.convert {
        Convert::Same => String::new(),
        Convert::TabsToSpaces(k) => format!("each tab became {k} spaces"),
        Convert::SpacesToTabs(k) => format!("each {k} spaces became a tab"),
        Convert::Rescale(a, b) => format!("each {a} spaces became {b}"),
    };
    match (reading.first_only, convert.is_empty(), shift.is_empty()) {
        (true, _, true) => String::new(),
        (true, _, false) => format!(
            "the first line's indentation changed ({shift}), the lines after it kept theirs"
        ),
        (false, true, true) => String::new(),
        (false, true, false) => shift,
        (false, false, true) => convert,
        (false, false, false) => format!("{convert}, then {shift}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs<'a>(list: &[(&'a str, &'a str)]) -> Vec<Pair<'a>> {
        list.iter()
            .enumerate()
            .map(|(index, &(model, file))| Pair { index, model, file })
            .collect()
    }

    fn added<'a>(list: &[&'a str]) -> Vec<Added<'a>> {
        // Indices from 1: none of them is `new_text`'s first line.
        list.iter()
            .enumerate()
            .map(|(i, &model)| Added {
                index: i + 1,
                model,
            })
            .collect()
    }

    #[test]
    fn a_uniform_shift_carries_over_in_the_files_characters() {
        let four = Style::Spaces(Some(4));
        let p = pairs(&[("", "    "), ("    ", "        ")]);
        let (lines, how) =
            reindent(&p, &added(&["    ", "        ", ""]), four, four, None).expect("one reading");
        assert_eq!(lines, ["        ", "            ", "    "]);
        assert_eq!(how, "no indentation became 4 spaces");
        // Tabs in the model's text, spaces in the file: tier two, to the file's unit.
        let p = pairs(&[("", "    "), ("\t", "        ")]);
        let (lines, how) =
            reindent(&p, &added(&["\t\t", "\t"]), four, Style::Tabs, None).expect("tabs to spaces");
        assert_eq!(lines, ["            ", "        "]);
        assert!(how.contains("each tab became 4 spaces"), "{how}");
        // A Makefile's recipe, written with spaces: a new rule at column 0 and its recipe.
        let p = pairs(&[("    ", "\t")]);
        let (lines, _) =
            reindent(&p, &added(&["", "    "]), Style::Tabs, Style::Unknown, None).expect("recipe");
        assert_eq!(lines, ["", "\t"]);
    }

    #[test]
    fn what_the_model_text_does_not_decide_is_refused() {
        let four = Style::Spaces(Some(4));
        // Different model indentations onto one file indentation: no reading.
        let p = pairs(&[("", "    "), ("  ", "    "), ("    ", "        ")]);
        assert_eq!(
            reindent(&p, &added(&[""]), four, four, None),
            Err(Refusal::Inconsistent)
        );
        // One line: its new lines may be relative to it or as in the file.
        let one = [Pair {
            index: 0,
            model: "",
            file: "        ",
        }];
        let err = reindent(&one, &added(&["    "]), four, four, None).expect_err("ambiguous");
        assert!(matches!(err, Refusal::Ambiguous(_, _, 1)), "{err:?}");
        // From one level, a tab is one of the file's levels; two spaces are not.
        let p = pairs(&[("", "    "), ("", "    ")]);
        let (lines, _) = reindent(&p, &added(&["\t"]), four, Style::Tabs, None).expect("a tab");
        assert_eq!(lines, ["        "]);
        let err = reindent(&p, &added(&["  "]), four, Style::Unknown, None).expect_err("unit");
        assert!(matches!(err, Refusal::Unplaceable(1, ref why) if why.contains("by 4 spaces")));
        // One level of a tab onto 2 spaces where the file's most common step is 4: a tab
        // as 2 spaces, or as 4 less 2? (found by the random edit fuzzer: a YAML file whose
        // one deeper line made its step 4, its lines at 2)
        let p = pairs(&[("\t", "  "), ("\t", "  ")]);
        let err = reindent(&p, &added(&["\t\t"]), four, Style::Tabs, None).expect_err("two widths");
        assert!(matches!(err, Refusal::Ambiguous(..)), "{err:?}");
        // ... which the same text at the file's unit does not leave open.
        let p = pairs(&[("\t", "    "), ("\t", "    ")]);
        let (lines, _) = reindent(&p, &added(&["\t\t"]), four, Style::Tabs, None).expect("a tab");
        assert_eq!(lines, ["        "]);
        // Sent at none (indentation dropped) onto 2 spaces, in a file whose step is 4 but
        // whose lines are mostly at 2: is a tab 4 spaces, or 2?
        let p = pairs(&[("", "  "), ("", "  ")]);
        let err = reindent(&p, &added(&["\t"]), four, Style::Tabs, Some(2)).expect_err("the unit");
        assert!(matches!(err, Refusal::Ambiguous(..)), "{err:?}");
        // Eight spaces onto two tabs, and a line at none: one level of 8 (a tab) or two of
        // 4 (no tab); the model's text cannot say which.
        let p = pairs(&[("        ", "\t\t"), ("        ", "\t\t")]);
        let eight = Style::Spaces(Some(8));
        let err = reindent(&p, &added(&[""]), Style::Tabs, eight, None).expect_err("two units");
        assert!(matches!(err, Refusal::Ambiguous(..)), "{err:?}");
    }

    #[test]
    fn the_style_of_a_text() {
        let py = "class A:\n    def f(self):\n        return 1\n\n    x = 2\n";
        assert_eq!(style(py.lines()), Style::Spaces(Some(4)));
        assert_eq!(
            style("a:\n\tb\n\t\tc\n  d\n".lines()),
            Style::Tabs,
            "majority"
        );
        assert_eq!(style("a\nb\n".lines()), Style::Unknown);
        // The step is 4 (one deeper line), most lines are at 2: a second unit, 2.
        let yaml = "a:\n    - b\n  - c\n  - d\n  e: f\n";
        assert_eq!(style(yaml.lines()), Style::Spaces(Some(4)));
        assert_eq!(width_doubt(yaml.lines(), style(yaml.lines())), Some(2));
        assert_eq!(width_doubt(py.lines(), style(py.lines())), None);
        assert_eq!(spell("\t\t"), "2 tabs");
        assert_eq!(spell("\t  "), "`\\t  `");
    }
}
