//! Every workspace file as a `file://` resource, a `file:///{+path}` template with path
//! completion, and change detection for subscriptions and `list_changed`.
//!
//! URIs are RFC 8089 URIs of the files' absolute paths (the root as configured, then the path
//! below it): `/home/me/proj/src/main.rs` is `file:///home/me/proj/src/main.rs`, with bytes
//! outside `A-Z a-z 0-9 - . _ ~ /` percent-encoded; clients send their roots in this form too.
//! A URI is percent-decoded *before* its path goes through the sandbox, so
//! `file:///home/me/proj/%2e%2e/x` is refused as `..` like `../x` would be.
//!
//! Change detection (the core polls while a subscription is open, every
//! `Limits::poll_interval`, 1 s by default):
//! - a subscribed file's [`fingerprint`](ResourceSource::fingerprint) is one `stat` (size,
//!   modification time, inode: edits, truncations and replacement by rename are all seen at
//!   the next poll), plus a content hash for files up to [`FINGERPRINT_CONTENT_BYTES`];
//! - [`list_fingerprint`](ResourceSource::list_fingerprint) is a hash of every path a walk
//!   saw, so `list_changed` is sent only when files really appear or vanish. The walk is
//!   not repeated at every poll: a file appearing or vanishing changes its directory's
//!   modification time, so each poll only stats the directories (and `.gitignore` files)
//!   found last time, at most [`MAX_WATCHED_DIRS`], and walks again (at most
//!   [`MAX_WATCHED_ENTRIES`] entries) when one of them changed or changed within the last
//!   [`RECENT_CHANGE_WINDOW`].
//!   The steady cost is one `stat` per watched directory per poll; calls closer together
//!   than [`LIST_CHECK_INTERVAL`] reuse the last answer (the core also asks on every
//!   capability check).

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use super::complete::{self, Want};
use super::limits::{
    FINGERPRINT_CONTENT_BYTES, LIST_CACHE_TTL, LIST_CHECK_INTERVAL, MAX_RESOURCE_BYTES,
    MAX_WATCHED_DIRS, MAX_WATCHED_ENTRIES, RECENT_CHANGE_WINDOW,
};
use super::mime;
use super::names::Flavor;
use super::read::read_whole;
use super::roots;
use super::sandbox::{RelPath, Resolved, Sandbox};
use super::text::is_binary;
use super::walk::{walk, Bounds, Entry, Flow, Kind, Visitor};
use super::Workspace;
use minimcp::resource::{Page, ResourceContents, ResourceInfo, ResourceSource, TemplateInfo};
use minimcp::{Context, HandlerError};
use minimcp_base::log;

/// The resource template every workspace file matches: `path` is the file's absolute path
/// without its leading `/`.
pub(crate) const TEMPLATE: &str = "file:///{+path}";

/// A file's contents as a resource: text when it is valid UTF-8 without NULs, anything else
/// base64-encoded, so nothing is lost.
pub(crate) fn contents_of(uri: &str, name: &str, bytes: Vec<u8>) -> ResourceContents {
    if is_binary(&bytes) {
        return ResourceContents::blob(uri, Some(mime::for_contents(name, false)), &bytes);
    }
    match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(uri, Some(mime::for_contents(name, true)), text),
        Err(e) => ResourceContents::blob(uri, Some(mime::for_contents(name, false)), e.as_bytes()),
    }
}

/// The workspace file a URI names: `None` when it is not a `file:` URI at all.
pub(crate) fn parse_uri(ws: &Workspace, uri: &str) -> Option<Result<Resolved, HandlerError>> {
    Some(match roots::uri_path(uri)? {
        Err(e) => Err(HandlerError::Invalid(e)),
        Ok(path) => ws.resolve_path(&path, uri).map_err(HandlerError::from),
    })
}

/// A listing kept between pages.
struct Listing {
    made: Instant,
    items: Rc<Vec<ResourceInfo>>,
}

/// What `list_fingerprint` watches.
#[derive(Default)]
struct Watch {
    /// Directories and `.gitignore` files found by the last walk.
    dirs: Vec<PathBuf>,
    /// Their metadata stamp after that walk.
    stamp: u64,
    /// The hash of every path that walk saw: what `list_fingerprint` reports.
    fingerprint: Option<u64>,
    /// When the stamp was last compared.
    checked: Option<Instant>,
}

/// The workspace's files as a [`ResourceSource`].
pub(crate) struct Files {
    ws: Rc<Workspace>,
    listing: RefCell<Option<Listing>>,
    watch: RefCell<Watch>,
    check_interval: Duration,
}

impl Files {
    pub(crate) fn new(ws: Rc<Workspace>) -> Files {
        Files {
            ws,
            listing: RefCell::new(None),
            watch: RefCell::new(Watch::default()),
            check_interval: LIST_CHECK_INTERVAL,
        }
    }

    /// The sorted file list: walked afresh for the first page (or when the last walk is
    /// older than [`LIST_CACHE_TTL`]), reused for later pages so offsets stay stable.
    fn items(&self, fresh: bool) -> Rc<Vec<ResourceInfo>> {
        let mut listing = self.listing.borrow_mut();
        if let Some(l) = listing
            .as_ref()
            .filter(|l| !fresh && l.made.elapsed() < LIST_CACHE_TTL)
        {
            return Rc::clone(&l.items);
        }
        let mut items = Vec::new();
        for root in self.ws.roots() {
            let Ok(start) = root.resolve(&RelPath::root()) else {
                continue;
            };
            let mut collect = CollectFiles {
                root: &root,
                items: Vec::new(),
            };
            let summary = walk(&root, &start, &self.ws.bounds, &mut collect);
            if !summary.complete() {
                log::warn(format_args!(
                    "resources/list is partial: {}",
                    summary.notes(&self.ws.bounds).join(" ")
                ));
            }
            items.append(&mut collect.items);
        }
        let items = Rc::new(items);
        *listing = Some(Listing {
            made: Instant::now(),
            items: Rc::clone(&items),
        });
        items
    }
}

struct CollectFiles<'a> {
    root: &'a Sandbox,
    items: Vec<ResourceInfo>,
}

impl Visitor for CollectFiles<'_> {
    fn visit(&mut self, entry: &Entry) -> Flow {
        if entry.kind == Kind::File {
            let local = entry.rel.strip_prefix(self.root.label()).unwrap_or("");
            let uri = roots::file_uri(&self.root.given().join(local));
            let mut info = ResourceInfo::new(uri, entry.rel.as_str());
            info.title = Some(entry.rel.name().to_string());
            info.mime_type = mime::by_name(entry.rel.name()).map(str::to_string);
            info.size = entry.size();
            self.items.push(info);
        }
        Flow::Continue
    }
}

/// Walks for `list_fingerprint`: hashes every path seen (the set whose change is
/// announced) and collects the directories and `.gitignore` files whose metadata reveals
/// the next change.
struct CollectDirs {
    watched: Vec<PathBuf>,
    paths: DefaultHasher,
}

impl Visitor for CollectDirs {
    fn visit(&mut self, entry: &Entry) -> Flow {
        if self.watched.len() >= MAX_WATCHED_DIRS {
            return Flow::Stop;
        }
        (&entry.rel, entry.kind == Kind::File).hash(&mut self.paths);
        let watched = (entry.kind == Kind::Dir && !entry.symlink)
            || (entry.kind == Kind::File && entry.rel.name() == ".gitignore");
        if watched {
            self.watched.push(entry.real.clone());
        }
        Flow::Continue
    }
}

/// A subscribed file's fingerprint: size, modification time, inode, and the content of
/// small files.
fn file_stamp(sandbox: &Sandbox, path: &Path) -> Option<u64> {
    let meta = fs::metadata(path).ok()?;
    let mut hasher = DefaultHasher::new();
    meta_stamp(&meta, &mut hasher);
    if meta.len() <= FINGERPRINT_CONTENT_BYTES {
        sandbox
            .read_entry(path, FINGERPRINT_CONTENT_BYTES)
            .hash(&mut hasher);
    }
    Some(hasher.finish())
}

fn meta_stamp(meta: &fs::Metadata, hasher: &mut DefaultHasher) {
    meta.len().hash(hasher);
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok());
    mtime.map(|d| d.as_nanos()).hash(hasher);
    #[cfg(unix)]
    std::os::unix::fs::MetadataExt::ino(meta).hash(hasher);
}

/// A hash of the watched paths' metadata, and whether one of them changed so recently that
/// its timestamp cannot be trusted to move again on the next change.
fn dirs_stamp(paths: &[PathBuf]) -> (u64, bool) {
    let mut hasher = DefaultHasher::new();
    let mut recent = false;
    for path in paths {
        path.hash(&mut hasher);
        match fs::metadata(path) {
            Ok(meta) => {
                meta_stamp(&meta, &mut hasher);
                // A timestamp in the future (clock skew, unpacked archives) is not "recent":
                // the next change moves it back to now anyway.
                let age = meta.modified().ok().and_then(|t| t.elapsed().ok());
                recent |= age.is_some_and(|age| age < RECENT_CHANGE_WINDOW);
            }
            Err(_) => 0u8.hash(&mut hasher),
        }
    }
    (hasher.finish(), recent)
}

impl ResourceSource for Files {
    fn list(
        &self,
        offset: usize,
        limit: usize,
        ctx: &mut Context<'_>,
    ) -> Result<Page<ResourceInfo>, HandlerError> {
        // No root yet: an empty list, not an error (clients list resources at startup).
        match self.ws.enter_listing(ctx) {
            Err(HandlerError::Input(e)) => return Err(HandlerError::Input(e)),
            Err(_) => {
                return Ok(Page {
                    items: Vec::new(),
                    more: false,
                })
            }
            Ok(()) => {}
        }
        let items = self.items(offset == 0);
        let page: Vec<ResourceInfo> = items.iter().skip(offset).take(limit).cloned().collect();
        Ok(Page {
            more: offset + page.len() < items.len(),
            items: page,
        })
    }

    fn templates(&self) -> Vec<TemplateInfo> {
        vec![TemplateInfo::new(TEMPLATE, "workspace-file").description(
            "Any file in the workspace by its absolute path as a file URI (RFC 8089, percent-encoded), such as file:///home/me/project/src/main.rs. Text files come back as text, others base64-encoded.",
        )]
    }

    fn read(
        &self,
        uri: &str,
        ctx: &mut Context<'_>,
    ) -> Result<Option<Vec<ResourceContents>>, HandlerError> {
        if roots::uri_path(uri).is_none() {
            return Ok(None);
        }
        self.ws.enter(ctx)?;
        let Some(file) = parse_uri(&self.ws, uri) else {
            return Ok(None);
        };
        let file = file?;
        let bytes = read_whole(&file, MAX_RESOURCE_BYTES, "resources/read")?;
        Ok(Some(vec![contents_of(uri, file.rel.name(), bytes)]))
    }

    fn complete(
        &self,
        template: &str,
        variable: &str,
        value: &str,
        _context: &BTreeMap<String, String>,
        ctx: &mut Context<'_>,
    ) -> Option<Vec<String>> {
        if template != TEMPLATE {
            return None;
        }
        // The variable is the absolute path without its leading `/` (on Windows, the path
        // from its drive letter on: `C:/Users/me/x`).
        let added = !Flavor::NATIVE.is_absolute(value);
        let path = if added {
            format!("/{value}")
        } else {
            value.to_string()
        };
        Some(match variable {
            "path" => complete::paths(&self.ws, &path, Want::Any, ctx)
                .into_iter()
                .map(|p| match p.strip_prefix('/') {
                    Some(rest) if added => rest.to_string(),
                    _ => p,
                })
                .collect(),
            _ => Vec::new(),
        })
    }

    fn fingerprint(&self, uri: &str) -> Option<u64> {
        let file = parse_uri(&self.ws, uri)?.ok()?;
        if !file.meta.is_file() {
            return None;
        }
        file_stamp(&file.sandbox, &file.real)
    }

    fn lists_changes(&self) -> bool {
        true
    }

    fn list_fingerprint(&self) -> Option<u64> {
        let mut watch = self.watch.borrow_mut();
        if let Some(known) = watch.fingerprint {
            if watch
                .checked
                .is_some_and(|at| at.elapsed() < self.check_interval)
            {
                return Some(known);
            }
            watch.checked = Some(Instant::now());
            if dirs_stamp(&watch.dirs) == (watch.stamp, false) {
                return Some(known);
            }
        }
        watch.checked = Some(Instant::now());
        let roots = self.ws.roots();
        let mut collect = CollectDirs {
            watched: roots.iter().map(|r| r.root().to_path_buf()).collect(),
            paths: DefaultHasher::new(),
        };
        let bounds = Bounds {
            max_entries: self.ws.bounds.max_entries.min(MAX_WATCHED_ENTRIES),
            ..self.ws.bounds
        };
        for root in &roots {
            if let Ok(start) = root.resolve(&RelPath::root()) {
                walk(root, &start, &bounds, &mut collect);
            }
        }
        // A change during the walk leaves a recent timestamp, so the next poll walks again.
        watch.stamp = dirs_stamp(&collect.watched).0;
        watch.dirs = collect.watched;
        let fingerprint = collect.paths.finish();
        watch.fingerprint = Some(fingerprint);
        Some(fingerprint)
    }
}

#[cfg(test)]
#[path = "resources_tests.rs"]
mod tests;
