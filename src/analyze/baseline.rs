//! The baseline file of `--baseline` and `--write-baseline`: the functions above the limits
//! when it was written, each with both metrics. A function is known by its file, its name
//! and which of the functions of that name in that file it is, never by its lines, so
//! edits elsewhere in the file do not make it new. One function per line, sorted, so a
//! baseline committed to a repository diffs readably.

use std::collections::HashMap;
use std::path::Path;

use minimcp_toolsets::analysis::batch::Function;
use serde_json::{json, Value};

use super::config::Limits;
use super::metric::Metric;
use super::shown;

/// What the `format` field of a baseline file says.
const FORMAT: &str = "minimcp-analyze-baseline/1";

/// A baseline read from a file.
pub(crate) struct Baseline {
    /// (file, function, occurrence) → (cyclomatic, cognitive).
    known: HashMap<(String, String, usize), (u32, u32)>,
    /// The limits it was written with.
    pub(crate) limits: Limits,
    /// Functions it holds.
    pub(crate) len: usize,
}

impl Baseline {
    /// Reads the baseline at `path`; the error says what is wrong with it.
    pub(crate) fn read(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the baseline {}: {e}", shown(path)))?;
        let bad = |why: &str| {
            format!(
                "the baseline {} is not one `minimcp analyze --write-baseline` wrote: {why}",
                shown(path)
            )
        };
        let value: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
        if value["format"] != FORMAT {
            return Err(bad(&format!("its `format` is not {FORMAT:?}")));
        }
        let mut known = HashMap::new();
        for entry in value["functions"]
            .as_array()
            .ok_or_else(|| bad("no `functions` list"))?
        {
            let (Some(file), Some(name), Some(occurrence), Some(cyclomatic), Some(cognitive)) = (
                entry["file"].as_str(),
                entry["function"].as_str(),
                entry["occurrence"].as_u64(),
                entry["cyclomatic"].as_u64(),
                entry["cognitive"].as_u64(),
            ) else {
                return Err(bad(&format!("an entry lacks a field: {entry}")));
            };
            let clamp = |v: u64| v.min(u64::from(u32::MAX)) as u32;
            known.insert(
                (file.to_string(), name.to_string(), occurrence as usize),
                (clamp(cyclomatic), clamp(cognitive)),
            );
        }
        let limit = |key: &str| {
            value["thresholds"][key]
                .as_u64()
                .map(|v| v.clamp(1, u64::from(u32::MAX)) as u32)
        };
        let limits = Limits {
            cyclomatic: limit("max_cyclomatic"),
            cognitive: limit("max_cognitive"),
        };
        Ok(Baseline {
            len: known.len(),
            known,
            limits,
        })
    }

    /// The baseline's value of `metric` for `function`, if it holds the function.
    pub(crate) fn value(
        &self,
        function: &Function,
        occurrence: usize,
        metric: Metric,
    ) -> Option<u32> {
        let key = (function.file.clone(), function.name.clone(), occurrence);
        self.known
            .get(&key)
            .map(|&(cyclomatic, cognitive)| match metric {
                Metric::Cyclomatic => cyclomatic,
                Metric::Cognitive => cognitive,
            })
    }

    /// Writes the functions of `over` (each with its occurrence) as a baseline at `path`.
    pub(crate) fn write<'a>(
        path: &Path,
        over: impl Iterator<Item = (&'a Function, &'a usize)>,
        limits: Limits,
    ) -> Result<usize, String> {
        let mut lines: Vec<String> = over
            .map(|(f, &occurrence)| {
                json!({
                    "file": f.file, "function": f.name, "occurrence": occurrence,
                    "cyclomatic": f.cyclomatic, "cognitive": f.cognitive,
                })
                .to_string()
            })
            .collect();
        lines.sort();
        let head = json!({"max_cyclomatic": limits.cyclomatic, "max_cognitive": limits.cognitive});
        let text = format!(
            "{{\"format\": \"{FORMAT}\",\n\"thresholds\": {head},\n\"functions\": [\n{}\n]}}\n",
            lines.join(",\n")
        );
        std::fs::write(path, text)
            .map_err(|e| format!("cannot write the baseline {}: {e}", shown(path)))?;
        Ok(lines.len())
    }
}
