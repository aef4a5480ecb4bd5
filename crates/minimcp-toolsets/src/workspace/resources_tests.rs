use super::*;
use crate::workspace::testutil::{with_context, TempTree, TestLink};
use minimcp::resource::ResourceBody;

fn files(tree: &TempTree) -> Files {
    let mut files = Files::new(Rc::new(Workspace::open(&tree.path).expect("root")));
    files.check_interval = Duration::ZERO;
    files
}

fn read(files: &Files, uri: &str) -> Result<Option<Vec<ResourceContents>>, HandlerError> {
    with_context(&mut TestLink::default(), false, |ctx| files.read(uri, ctx))
}

fn refusal(files: &Files, uri: &str) -> String {
    match read(files, uri) {
        Err(HandlerError::Invalid(message)) => message,
        other => panic!("{uri}: expected a refusal, got {other:?}"),
    }
}

/// The URI of `rel` in `tree`.
fn u(tree: &TempTree, rel: &str) -> String {
    roots::file_uri(&tree.path.join(rel))
}

#[test]
fn uris_are_absolute_rfc_8089_and_round_trip() {
    let tree = TempTree::new("res-uri");
    tree.file("docs/a b/ü#1.md", "x");
    let files = files(&tree);
    let uri = u(&tree, "docs/a b/ü#1.md");
    assert!(uri.ends_with("/docs/a%20b/%C3%BC%231.md"), "{uri}");
    assert!(uri.starts_with(&u(&tree, "")));
    let listed = list(&files, 0, 10);
    assert_eq!(listed.items[0].uri, uri);
    assert_eq!(listed.items[0].name, "docs/a b/ü#1.md");
    let read = read(&files, &uri).expect("read").expect("ours");
    assert_eq!(read[0].uri, uri);
    // The old root-relative spelling names `/docs/...`: outside the workspace.
    assert!(refusal(&files, "file:///docs/a%20b/%C3%BC%231.md").contains("outside"));
}

#[test]
fn percent_encoded_traversal_is_refused() {
    let tree = TempTree::new("res-traversal");
    tree.file("a.txt", "a");
    let files = files(&tree);
    let root = u(&tree, "");
    let root = root.trim_end_matches('/');
    for (tail, expected) in [
        ("/%2e%2e/secret", "`..`"),
        ("/%2E%2E%2Fsecret", "`..`"),
        ("/a/..%2f..%2fetc/passwd", "`..`"),
        ("/../secret", "`..`"),
        ("/a.txt%00.png", "NUL"),
        // A backslash separates names on Windows, where this is `..` twice.
        (
            "/..%5c..%5csecret",
            if cfg!(windows) { "`..`" } else { "backslash" },
        ),
        ("/.git/config", "`.git`"),
        ("/a%zz", "percent-escape"),
        ("/a.txt?raw", "no query"),
        ("%2Dsibling/a.txt", "outside"),
    ] {
        let uri = format!("{root}{tail}");
        let message = refusal(&files, &uri);
        assert!(message.contains(expected), "{uri}: {message}");
    }
    for uri in [
        "file:///etc/passwd",
        "file:////etc/passwd",
        "file:///%7e/x",
        "file://host/x",
    ] {
        let message = refusal(&files, uri);
        assert!(
            message.contains("outside") || message.contains("local absolute path"),
            "{uri}: {message}"
        );
    }
    // Double encoding decodes once: `%252e%252e` is a file literally named `%2e%2e`.
    assert!(matches!(
        read(&files, &format!("{root}/%252e%252e/x")),
        Err(HandlerError::NotFound(_))
    ));
}

fn list(files: &Files, offset: usize, limit: usize) -> Page<ResourceInfo> {
    with_context(&mut TestLink::default(), false, |ctx| {
        files.list(offset, limit, ctx)
    })
    .expect("list")
}

fn complete(files: &Files, template: &str, variable: &str, value: &str) -> Option<Vec<String>> {
    with_context(&mut TestLink::default(), false, |ctx| {
        files.complete(template, variable, value, &BTreeMap::new(), ctx)
    })
}

#[test]
fn lists_files_sorted_and_paginated() {
    let tree = TempTree::new("res-list");
    tree.file("b.rs", "fn b() {}")
        .file("a/z.md", "# z")
        .file(".gitignore", "target/\n")
        .file("target/out.bin", "x")
        .file("logo.png", [0x89, b'P', b'N', b'G', 0]);
    let files = files(&tree);
    let first = list(&files, 0, 2);
    assert!(first.more);
    let second = list(&files, 2, 10);
    assert!(!second.more);
    let all: Vec<ResourceInfo> = first.items.into_iter().chain(second.items).collect();
    let names: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, [".gitignore", "a/z.md", "b.rs", "logo.png"]);
    assert_eq!(all[1].uri, u(&tree, "a/z.md"));
    assert_eq!(all[1].mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(all[2].size, Some(9));
    assert_eq!(all[3].mime_type.as_deref(), Some("image/png"));
    assert!(list(&files, 10, 10).items.is_empty());
}

#[test]
fn reads_text_as_text_and_the_rest_as_blobs() {
    let tree = TempTree::new("res-read");
    tree.file("a.rs", "fn main() {}\n")
        .file("img.png", [0x89, b'P', 0, 1])
        .file("latin1.txt", b"caf\xe9");
    let files = files(&tree);
    let text = read(&files, &u(&tree, "a.rs"))
        .expect("read")
        .expect("ours");
    assert_eq!(text[0].body, ResourceBody::Text("fn main() {}\n".into()));
    assert_eq!(text[0].mime_type.as_deref(), Some("text/x-rust"));
    let blob = read(&files, &u(&tree, "img.png"))
        .expect("read")
        .expect("ours");
    assert_eq!(
        blob[0].body,
        ResourceBody::Blob(minimcp_base::encoding::base64(&[0x89, b'P', 0, 1]))
    );
    let latin = read(&files, &u(&tree, "latin1.txt"))
        .expect("read")
        .expect("ours");
    assert!(
        matches!(latin[0].body, ResourceBody::Blob(_)),
        "not UTF-8: lossless blob"
    );
    assert!(read(&files, "mem://x").expect("not ours").is_none());
    assert!(matches!(
        read(&files, &u(&tree, "missing")),
        Err(HandlerError::NotFound(_))
    ));
    assert!(refusal(&files, &u(&tree, "")).contains("is a directory"));
}

#[test]
fn large_files_are_refused() {
    let tree = TempTree::new("res-large");
    tree.file("big.txt", vec![b'x'; MAX_RESOURCE_BYTES as usize + 1]);
    let message = refusal(&files(&tree), &u(&tree, "big.txt"));
    assert!(
        message.contains("read_file with offset and limit"),
        "{message}"
    );
}

#[test]
fn the_template_completes_paths() {
    let tree = TempTree::new("res-complete");
    tree.file("src/main.rs", "").file("src/mod.rs", "");
    let files = files(&tree);
    assert_eq!(files.templates()[0].uri_template, TEMPLATE);
    // The variable is the absolute path without its leading `/`.
    let root = tree.path.display().to_string();
    let root = root.trim_start_matches('/');
    assert_eq!(
        complete(&files, TEMPLATE, "path", &format!("{root}/src/m")),
        Some(vec![
            format!("{root}/src/main.rs"),
            format!("{root}/src/mod.rs")
        ])
    );
    assert_eq!(complete(&files, TEMPLATE, "other", ""), Some(vec![]));
    assert_eq!(complete(&files, "x:///{a}", "a", ""), None);
}

#[test]
fn fingerprints_follow_size_and_mtime() {
    let tree = TempTree::new("res-fingerprint");
    tree.file("a.txt", "one").dir("d");
    let files = files(&tree);
    let before = files.fingerprint(&u(&tree, "a.txt")).expect("exists");
    assert_eq!(
        files.fingerprint(&u(&tree, "a.txt")),
        Some(before),
        "stable"
    );
    tree.file("a.txt", "one more");
    assert_ne!(files.fingerprint(&u(&tree, "a.txt")), Some(before));
    assert_eq!(
        files.fingerprint(&u(&tree, "d")),
        None,
        "directories are not resources"
    );
    assert_eq!(files.fingerprint(&u(&tree, "missing")), None);
    assert_eq!(files.fingerprint(&u(&tree, "../x")), None);
    assert_eq!(files.fingerprint("other:///a.txt"), None);
}

#[test]
fn the_list_fingerprint_changes_when_files_appear_or_vanish_only() {
    let tree = TempTree::new("res-list-fingerprint");
    tree.file("a.txt", "a").file("deep/er/b.txt", "b");
    let files = files(&tree);
    let first = files.list_fingerprint().expect("watched");
    assert_eq!(files.list_fingerprint(), Some(first));
    tree.file("a.txt", "edited in place");
    assert_eq!(
        files.list_fingerprint(),
        Some(first),
        "content changes are not list changes"
    );
    tree.file("deep/er/new.txt", "n");
    let added = files.list_fingerprint().expect("watched");
    assert_ne!(added, first);
    fs::remove_file(tree.path.join("deep/er/new.txt")).expect("remove");
    let removed = files.list_fingerprint().expect("watched");
    assert_eq!(removed, first, "the same set of files again");
    // Two changes in quick succession (within one timestamp tick) are both seen.
    tree.file("x.txt", "x");
    let with_x = files.list_fingerprint().expect("watched");
    fs::rename(tree.path.join("x.txt"), tree.path.join("y.txt")).expect("rename");
    let with_y = files.list_fingerprint().expect("watched");
    assert_ne!(with_x, with_y);
}

#[test]
fn list_checks_closer_together_than_the_interval_reuse_the_last_answer() {
    let tree = TempTree::new("res-list-interval");
    tree.file("a.txt", "a");
    let files = Files::new(Rc::new(Workspace::open(&tree.path).expect("root")));
    let first = files.list_fingerprint().expect("watched");
    tree.file("b.txt", "b");
    assert_eq!(files.list_fingerprint(), Some(first), "within the interval");
    std::thread::sleep(LIST_CHECK_INTERVAL);
    assert_ne!(files.list_fingerprint(), Some(first), "after the interval");
}

#[test]
fn the_list_walk_is_bounded_by_a_count_so_hashes_are_stable() {
    let tree = TempTree::new("res-list-bounded");
    for name in ["b", "c", "d", "e"] {
        tree.file(name, "");
    }
    let mut ws = Workspace::open(&tree.path).expect("root");
    ws.bounds.max_entries = 3;
    let mut files = Files::new(Rc::new(ws));
    files.check_interval = Duration::ZERO;
    let first = files.list_fingerprint().expect("watched");
    // Beyond the first three entries in walk order: not part of the watched set.
    tree.file("z", "");
    assert_eq!(files.list_fingerprint(), Some(first));
    // Within them: seen.
    tree.file("a", "");
    assert_ne!(files.list_fingerprint(), Some(first));
}
