//! The Checkstyle XML report of `minimcp analyze --format checkstyle`, which Jenkins
//! (warnings-ng's `checkStyle` parser), reviewdog, diff-quality and many IDEs read: a
//! `<file>` per file with an `<error>` per finding. A function that fails a limit is
//! `severity="error"`; one the baseline holds or an exemption allows is `info` (a Jenkins
//! quality gate on errors only, `TOTAL_ERROR`, then counts just the failures).

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::gate::{Finding, State};
use super::summary::describe;
use super::Run;

/// Writes the report of `run`.
pub(crate) fn write(run: &Run<'_>, out: &mut dyn Write) -> io::Result<()> {
    let mut by_file: BTreeMap<&str, Vec<&Finding<'_>>> = BTreeMap::new();
    for f in run.findings {
        by_file.entry(&f.function.file).or_default().push(f);
    }
    out.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<checkstyle version=\"4.3\">\n")?;
    for (file, findings) in by_file {
        writeln!(out, "  <file name=\"{}\">", attribute(file))?;
        for f in findings {
            writeln!(
                out,
                "    <error line=\"{}\" column=\"1\" severity=\"{}\" message=\"{}\" source=\"minimcp.{}-complexity\"/>",
                f.function.start_line,
                match f.state {
                    State::Fails => "error",
                    State::Held | State::Exempted(_) => "info",
                },
                attribute(&format!("{}: {}", f.function.name, describe(f))),
                f.metric.as_str()
            )?;
        }
        out.write_all(b"  </file>\n")?;
    }
    out.write_all(b"</checkstyle>\n")
}

/// `text` as an XML attribute value: markup escaped, line breaks and tabs as character
/// references (attribute normalization would turn them into spaces), and characters XML
/// 1.0 cannot carry at all replaced by U+FFFD.
fn attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}' => {
                out.push(c)
            }
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn attributes_carry_any_name() {
        assert_eq!(
            super::attribute("a<b>&\"c\"\t\n\r\u{1}\u{FFFE}é"),
            "a&lt;b&gt;&amp;&quot;c&quot;&#9;&#10;&#13;\u{FFFD}\u{FFFD}é"
        );
    }
}
