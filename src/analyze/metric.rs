//! The two metrics that have limits.

use minimcp_toolsets::analysis::batch::Function;

use super::config::Limits;

/// The two metrics with limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    Cyclomatic,
    Cognitive,
}

impl Metric {
    pub(crate) const BOTH: [Metric; 2] = [Metric::Cyclomatic, Metric::Cognitive];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Metric::Cyclomatic => "cyclomatic",
            Metric::Cognitive => "cognitive",
        }
    }

    pub(crate) fn of(self, f: &Function) -> u32 {
        match self {
            Metric::Cyclomatic => f.cyclomatic,
            Metric::Cognitive => f.cognitive,
        }
    }

    pub(crate) fn in_limits(self, limits: Limits) -> Option<u32> {
        match self {
            Metric::Cyclomatic => limits.cyclomatic,
            Metric::Cognitive => limits.cognitive,
        }
    }
}
