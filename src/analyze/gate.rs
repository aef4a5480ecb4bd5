//! What fails: the limits in force for each function (flags, else `.minimcp.toml` with its
//! per-path overrides, else the thresholds a baseline was written with), the exemptions in
//! its source, and the baseline. Only a limit someone set can fail a run; a function over
//! no limit is no finding at all.

use std::collections::HashMap;

use minimcp_toolsets::analysis::batch::Function;
use minimcp_toolsets::analysis::exempt::{Exemption, Kind};

use super::baseline::Baseline;
use super::config::{Config, Limits};
pub(crate) use super::metric::Metric;

/// How a function over a limit compares with the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compared {
    /// The baseline does not hold it.
    New,
    /// The baseline holds it at a lower value.
    Worse,
    /// The baseline holds it at this value or higher.
    Unchanged,
}

/// What becomes of a function over its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum State {
    /// It fails the run.
    Fails,
    /// The baseline holds it (at this value or higher): reported, not failing.
    Held,
    /// An exemption in its source allows it (the comment's text): not failing.
    Exempted(String),
}

/// One function above one limit.
#[derive(Debug, Clone)]
pub(crate) struct Finding<'a> {
    pub(crate) function: &'a Function,
    /// Which of the functions of that name in that file (0 for the first): with the file
    /// and the name, what identifies a function whatever lines move around it.
    pub(crate) occurrence: usize,
    pub(crate) metric: Metric,
    pub(crate) value: u32,
    /// The limit in force for it.
    pub(crate) limit: u32,
    /// An exemption's own limit that it is above (it fails then).
    pub(crate) outgrown: Option<u32>,
    pub(crate) state: State,
    /// `None` without a baseline.
    pub(crate) compared: Option<Compared>,
    /// The value before: the baseline's, or the diff's revision's.
    pub(crate) old: Option<u32>,
}

impl Finding<'_> {
    pub(crate) fn fails(&self) -> bool {
        self.state == State::Fails
    }
}

/// An exemption that does not apply, and why.
#[derive(Debug, Clone)]
pub(crate) struct Stale {
    pub(crate) file: String,
    pub(crate) exemption: Exemption,
    pub(crate) function: Option<String>,
    pub(crate) why: String,
}

/// Where the limits come from, for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    None,
    Flags,
    Config(String),
    /// Flags for the metrics they name, the file for the others.
    FlagsAndConfig(String),
    Baseline(String),
}

/// The limits in force.
pub(crate) struct Gate<'c> {
    flags: Limits,
    config: &'c Config,
    baseline_limits: Limits,
    pub(crate) source: Source,
}

impl<'c> Gate<'c> {
    /// Flags win, metric by metric; then the configuration; the baseline's own thresholds
    /// only when neither sets any limit.
    pub(crate) fn new(
        flags: Limits,
        config: &'c Config,
        baseline: Option<(&str, Limits)>,
    ) -> Gate<'c> {
        let configured = config.limits.any() || !config.overrides.is_empty();
        let file = || config.file.clone().unwrap_or_default();
        let (baseline_limits, source) = match baseline {
            _ if flags.any() && configured => (Limits::default(), Source::FlagsAndConfig(file())),
            _ if flags.any() => (Limits::default(), Source::Flags),
            _ if configured => (Limits::default(), Source::Config(file())),
            Some((name, limits)) if limits.any() => (limits, Source::Baseline(name.to_string())),
            _ => (Limits::default(), Source::None),
        };
        Gate {
            flags,
            config,
            baseline_limits,
            source,
        }
    }

    /// The limits for `f`: for each metric the flag's, else the configuration's for its
    /// path, else (when neither sets any) the baseline's.
    pub(crate) fn limits(&self, f: &Function) -> Limits {
        let configured = match self.source {
            Source::Config(_) | Source::FlagsAndConfig(_) => self.config.limits_for(&f.path),
            _ => Limits::default(),
        };
        self.merged(configured)
    }

    /// The top-level limits, for the report's header.
    pub(crate) fn headline(&self) -> Limits {
        let configured = match self.source {
            Source::Config(_) | Source::FlagsAndConfig(_) => self.config.limits,
            _ => Limits::default(),
        };
        self.merged(configured)
    }

    fn merged(&self, configured: Limits) -> Limits {
        Limits {
            cyclomatic: self
                .flags
                .cyclomatic
                .or(configured.cyclomatic)
                .or(self.baseline_limits.cyclomatic),
            cognitive: self
                .flags
                .cognitive
                .or(configured.cognitive)
                .or(self.baseline_limits.cognitive),
        }
    }

    /// How many `[[analyze.override]]` tables apply.
    pub(crate) fn overrides(&self) -> usize {
        match self.source {
            Source::Config(_) | Source::FlagsAndConfig(_) => self.config.overrides.len(),
            _ => 0,
        }
    }

    pub(crate) fn is_set(&self) -> bool {
        self.source != Source::None
    }

    /// Findings (failing ones first, then the worst over its limit) and stale exemptions
    /// of `shown` (each function with its occurrence).
    pub(crate) fn judge<'a>(
        &self,
        shown: &[(&'a Function, usize)],
        baseline: Option<&Baseline>,
        old: &HashMap<(String, String, usize), (u32, u32)>,
    ) -> (Vec<Finding<'a>>, Vec<Stale>) {
        let (mut findings, mut stale) = (Vec::new(), Vec::new());
        for &(function, occurrence) in shown {
            let limits = self.limits(function);
            for exemption in &function.exemptions {
                if let Some(why) = self.stale(function, limits, &exemption.kind) {
                    stale.push(Stale {
                        file: function.file.clone(),
                        exemption: exemption.clone(),
                        function: Some(function.name.clone()),
                        why,
                    });
                }
            }
            for metric in Metric::BOTH {
                if let Some(finding) =
                    self.finding(function, occurrence, metric, limits, baseline, old)
                {
                    findings.push(finding);
                }
            }
        }
        findings.sort_by(|a, b| {
            let over = |f: &Finding<'_>| f64::from(f.value) / f64::from(f.limit);
            b.fails()
                .cmp(&a.fails())
                .then_with(|| over(b).total_cmp(&over(a)))
                .then_with(|| a.function.file.cmp(&b.function.file))
                .then(a.function.start_line.cmp(&b.function.start_line))
        });
        (findings, stale)
    }

    /// `function`'s finding for `metric`, when it is over its limit.
    fn finding<'a>(
        &self,
        function: &'a Function,
        occurrence: usize,
        metric: Metric,
        limits: Limits,
        baseline: Option<&Baseline>,
        old: &HashMap<(String, String, usize), (u32, u32)>,
    ) -> Option<Finding<'a>> {
        let (limit, value) = (metric.in_limits(limits)?, metric.of(function));
        if value <= limit {
            return None;
        }
        let granted = function
            .exemptions
            .iter()
            .filter_map(|e| {
                e.kind
                    .allows(metric == Metric::Cognitive)
                    .map(|g| (g, &e.text))
            })
            .max_by_key(|(g, _)| *g);
        let held = baseline.and_then(|b| b.value(function, occurrence, metric));
        let compared = baseline.map(|_| match held {
            None => Compared::New,
            Some(old) if value > old => Compared::Worse,
            Some(_) => Compared::Unchanged,
        });
        let state = match (granted, compared) {
            (Some((g, text)), _) if g >= value => State::Exempted(text.clone()),
            (_, Some(Compared::Unchanged)) => State::Held,
            _ => State::Fails,
        };
        let key = (function.file.clone(), function.name.clone(), occurrence);
        let before = old.get(&key).map(|&(cy, co)| match metric {
            Metric::Cyclomatic => cy,
            Metric::Cognitive => co,
        });
        Some(Finding {
            function,
            occurrence,
            metric,
            value,
            limit,
            outgrown: granted.map(|(g, _)| g).filter(|&g| g < value),
            state,
            compared,
            old: held.or(before),
        })
    }

    /// Why an exemption of `f` does not apply, if it does not: malformed, or every metric
    /// it touches has a limit and is within it.
    fn stale(&self, f: &Function, limits: Limits, kind: &Kind) -> Option<String> {
        if let Kind::Malformed(why) = kind {
            return Some(format!("ignored: {why}"));
        }
        let mut judged = Vec::new();
        for metric in Metric::BOTH {
            if kind.allows(metric == Metric::Cognitive).is_none() {
                continue;
            }
            let limit = metric.in_limits(limits)?;
            if metric.of(f) > limit {
                return None;
            }
            judged.push(format!(
                "{} {} is within the limit {limit}",
                metric.as_str(),
                metric.of(f)
            ));
        }
        (!judged.is_empty()).then(|| format!("not needed: {}", judged.join(", ")))
    }
}

/// For each function, which of the functions of its name in its file it is (0 first).
pub(crate) fn occurrences(functions: &[Function]) -> Vec<usize> {
    // Sized up front: growing it rehashed every key a dozen times, a few percent of a run.
    let mut seen: HashMap<(&str, &str), usize> = HashMap::with_capacity(functions.len());
    functions
        .iter()
        .map(|f| {
            let n = seen.entry((&f.file, &f.name)).or_default();
            *n += 1;
            *n - 1
        })
        .collect()
}
