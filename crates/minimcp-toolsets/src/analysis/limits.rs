//! Every bound and default of the analysis toolset, in one place. Walks also obey the
//! workspace's bounds (entries, depth, time; see `workspace::limits`).

use std::time::Duration;

/// Source files larger than this are skipped (and counted in the notes): generated or
/// minified files say little about a project's complexity and cost the most to lex.
pub const MAX_ANALYZE_FILE_BYTES: u64 = 1024 * 1024;

/// Wall-clock time one analysis walk (reading and measuring included) may take before it
/// stops and reports a partial result, unless `--analysis-timeout` says otherwise. Longer
/// than a plain walk's limit because every file is read and measured; the client can cancel
/// sooner, and progress is reported.
pub const MAX_ANALYZE_TIME: Duration = crate::workspace::DEFAULT_ANALYSIS_TIME;

/// Default `max_cyclomatic`: McCabe's own suggested limit.
pub const DEFAULT_MAX_CYCLOMATIC: u32 = 10;

/// Default `max_cognitive`: SonarSource's default rule threshold.
pub const DEFAULT_MAX_COGNITIVE: u32 = 15;

/// Default `top_files`.
pub const DEFAULT_TOP_FILES: usize = 10;

/// How long `git log` may run before it is killed and the call fails.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(20);

/// Bytes of `git log` output read; beyond it the churn is computed from what was read and
/// the result says so.
pub const MAX_GIT_OUTPUT_BYTES: usize = 64 * 1024 * 1024;

/// The largest `period_days` accepted (about 30 years).
pub const MAX_PERIOD_DAYS: u64 = 11_000;

/// Files listed as hotspots.
pub const MAX_HOTSPOTS: usize = 20;

/// Entries of `paths` accepted in one call.
pub const MAX_PATHS: usize = 64;

/// Patterns of `exclude` accepted in one call.
pub const MAX_EXCLUDES: usize = 64;

/// Analyses kept for later pages (the least recently used is dropped first).
pub const MAX_CACHED_ANALYSES: usize = 4;

/// Functions kept over all cached analyses (about 150 bytes each plus the name); an
/// analysis with more is not kept, and older ones are dropped to make room.
pub const MAX_CACHED_FUNCTIONS: usize = 200_000;

/// `git log` results kept for later pages.
pub const MAX_CACHED_HISTORIES: usize = 4;

/// Files kept over all cached histories.
pub const MAX_CACHED_HISTORY_FILES: usize = 200_000;

/// How long a cached `git log` result is used: `--since` counts back from now, so an old
/// result would drift from a new one even at the same commit.
pub const HISTORY_CACHE_TTL: Duration = Duration::from_secs(600);
