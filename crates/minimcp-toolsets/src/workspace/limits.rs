//! Every bound the workspace toolset enforces, in one place.
//!
//! The server is single-threaded: a call that walks a huge tree or reads a huge file would
//! stall every other request of the session, so nothing here is unbounded. When a walk
//! stops at one of these limits, the tool's result says which one and that the result is
//! partial; it never silently pretends to be complete.

use std::time::Duration;

/// Longest path a client may give, in bytes (after percent-decoding, for URIs). Longer paths
/// are refused before the file system is touched.
pub const MAX_PATH_BYTES: usize = 4096;

/// Longest single path component, in bytes (the common file-system limit).
pub const MAX_COMPONENT_BYTES: usize = 255;

/// Entries (files, directories, links) one walk may examine before it stops and says so.
pub const MAX_WALK_ENTRIES: usize = 200_000;

/// Directory levels below its starting directory that a walk descends; deeper directories
/// are counted and reported, not entered.
pub const MAX_WALK_DEPTH: usize = 64;

/// Wall-clock time one walk (including the reading `search_text` does) may take before it
/// stops and reports a partial result.
pub const MAX_WALK_TIME: Duration = Duration::from_secs(15);

/// How often, in entries, a walk checks for cancellation and its time limit.
pub const TICK_ENTRIES: usize = 250;

/// How often, in entries, a walk sends a progress notification (when the client asked for
/// progress with `_meta.progressToken`).
pub const PROGRESS_ENTRIES: usize = 1000;

/// Paths `search_files` returns; the rest are counted in an "N more" note.
pub const MAX_GLOB_RESULTS: usize = 500;

/// Longest glob pattern, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// Alternatives one glob pattern may expand to through `{a,b}` braces.
pub const MAX_BRACE_EXPANSIONS: usize = 256;

/// Entries `list_directory` returns; the rest are counted in an "N more" note.
pub const MAX_LIST_ENTRIES: usize = 1000;

/// The largest `depth` `list_directory` accepts.
pub const MAX_LIST_DEPTH: u64 = 10;

/// `read_file` counts the lines of files up to this size to report `total_lines` (and line
/// numbers for `tail` and `byte_offset`); larger files are read by range without counting.
pub const MAX_LINE_COUNT_BYTES: u64 = 32 * 1024 * 1024;

/// How far `read_file` scans to find the line `offset` names; deeper in a larger file, use
/// `byte_offset` (which seeks) or `tail`.
pub const MAX_SCAN_BYTES: u64 = 1024 * 1024 * 1024;

/// Files `read_file` reads in one call (`paths`).
pub const MAX_READ_PATHS: usize = 20;

/// Images (png, jpeg, gif, webp) up to this size are returned by `read_file` as `image`
/// content; in one call of several files, their total.
pub const MAX_IMAGE_BYTES: u64 = 4 * 1024 * 1024;

/// Lines `read_file` returns when no `limit` is given.
pub const DEFAULT_READ_LINES: u64 = 2000;

/// The largest `limit` `read_file` accepts.
pub const MAX_READ_LINES: u64 = 10_000;

/// Binary files up to this size are returned by `read_file` as a base64 resource; larger
/// ones are refused.
pub const MAX_BINARY_BYTES: u64 = 1024 * 1024;

/// Bytes sniffed for a NUL to tell binary from text (the heuristic git and grep use).
pub const BINARY_SNIFF_BYTES: usize = 8192;

/// The largest `max_results` `search_text` accepts.
pub const MAX_SEARCH_RESULTS: u64 = 1000;

/// The most context lines `search_text` shows before or after a match.
pub const MAX_CONTEXT_LINES: u64 = 10;

/// Files larger than this are skipped by `search_text` (and counted in its notes).
pub const MAX_SEARCH_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Longest `search_text` query, in characters.
pub const MAX_QUERY_CHARS: u64 = 1000;

/// Matched lines are cut to this many characters in `search_text` results.
pub const MAX_LINE_CHARS: usize = 300;

/// Files larger than this are not served by `resources/read` (use `read_file` with a range).
pub const MAX_RESOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// A `resources/list` walk is reused for later pages for this long; the first page always
/// walks afresh.
pub const LIST_CACHE_TTL: Duration = Duration::from_secs(30);

/// Directories whose modification times are polled to detect files appearing or vanishing
/// (`notifications/resources/list_changed`); changes deeper in larger trees go unnoticed.
pub const MAX_WATCHED_DIRS: usize = 10_000;

/// Entries the walk behind `list_changed` examines. It runs when a session becomes ready
/// (the core takes its baseline then) and again only after a watched directory changed,
/// on the single thread that serves requests, so it is bounded more tightly than tool
/// walks. The bound is a count, not a time, so the same tree always hashes the same way;
/// files beyond it (in walk order) appearing or vanishing go unnoticed.
pub const MAX_WATCHED_ENTRIES: usize = 50_000;

/// Bytes of one `.gitignore` file that are read; the rest is ignored.
pub const MAX_GITIGNORE_BYTES: u64 = 256 * 1024;

/// Files larger than this are not embedded in prompts.
pub const MAX_EMBED_BYTES: u64 = 256 * 1024;

/// Entries of the directory tree shown by the `project_overview` prompt.
pub const MAX_OVERVIEW_ENTRIES: usize = 300;

/// Directories modified less than this long ago are walked again at every poll when
/// detecting files appearing or vanishing, because file-system timestamps are coarse (often
/// a few milliseconds): a second change within one tick would not move the timestamp.
pub const RECENT_CHANGE_WINDOW: Duration = Duration::from_secs(2);

/// The list fingerprint is recomputed at most this often; calls in between (the core also
/// asks when it checks its capabilities, several times per message) get the last value.
/// Well under the default 1 s poll interval, so no poll is answered from an old check.
pub const LIST_CHECK_INTERVAL: Duration = Duration::from_millis(500);

/// Subscribed files up to this size are also hashed by content at every poll, so that two
/// same-size writes within one timestamp tick are still told apart; larger files are
/// compared by size, modification time and inode only.
pub const FINGERPRINT_CONTENT_BYTES: u64 = 64 * 1024;

/// Groups a `search_text` regular expression may nest.
pub const MAX_REGEX_NESTING: usize = 64;

/// The largest count in a `{m,n}` repetition of a `search_text` regular expression.
pub const MAX_REGEX_REPEAT: u32 = 1000;

/// NFA states a `search_text` regular expression may compile to (counted repetitions are
/// expanded, so `(a{1000}){1000}` is refused here). Each character searched costs at most
/// one step per state.
pub const MAX_REGEX_STATES: usize = 10_000;

/// Steps (characters × live NFA states) one `search_text` call may spend on regular
/// expression matching; past it the search stops with a partial result and says so. At
/// most a few seconds of work whatever the pattern.
pub const MAX_REGEX_STEPS: u64 = 2_000_000_000;

/// The largest file the edit toolset writes unless `--max-write-bytes` says otherwise; also
/// the largest file whose SHA-256 `read_file` gives (a larger one could not be written back).
pub const DEFAULT_MAX_WRITE_BYTES: u64 = 4 * 1024 * 1024;
