use super::*;
use crate::toolsets::workspace::testutil::{with_context, TempTree, TestLink};
use crate::ResourceBody;

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

#[test]
fn uris_round_trip_with_percent_encoding() {
    let rel = RelPath::parse("docs/a b/ü#1.md").expect("valid");
    let uri = file_uri(&rel);
    assert_eq!(uri, "file:///docs/a%20b/%C3%BC%231.md");
    assert_eq!(parse_uri(&uri).expect("ours").expect("valid"), rel);
    assert_eq!(file_uri(&RelPath::root()), "file:///");
    assert!(parse_uri("https://example.com/x").is_none());
    assert!(parse_uri("file://host/x").is_none());
}

#[test]
fn percent_encoded_traversal_is_refused() {
    let tree = TempTree::new("res-traversal");
    tree.file("a.txt", "a");
    let files = files(&tree);
    for (uri, expected) in [
        ("file:///%2e%2e/secret", "`..`"),
        ("file:///%2E%2E%2Fsecret", "`..`"),
        ("file:///a/..%2f..%2fetc/passwd", "`..`"),
        ("file:///../secret", "`..`"),
        ("file:///%2Fetc%2Fpasswd", "absolute"),
        ("file:////etc/passwd", "absolute"),
        ("file:///a.txt%00.png", "NUL"),
        ("file:///..%5c..%5csecret", "backslash"),
        ("file:///%7e/x", "`~`"),
        ("file:///.git/config", "`.git`"),
        ("file:///a%zz", "percent-escape"),
        ("file:///a.txt?raw", "no query"),
    ] {
        let message = refusal(&files, uri);
        assert!(message.contains(expected), "{uri}: {message}");
        assert!(
            !message.contains(&tree.path.display().to_string()),
            "{message}"
        );
    }
    // Double encoding decodes once: `%252e%252e` is a file literally named `%2e%2e`.
    assert!(matches!(
        read(&files, "file:///%252e%252e/x"),
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
    assert_eq!(all[1].uri, "file:///a/z.md");
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
    let text = read(&files, "file:///a.rs").expect("read").expect("ours");
    assert_eq!(text[0].body, ResourceBody::Text("fn main() {}\n".into()));
    assert_eq!(text[0].mime_type.as_deref(), Some("text/x-rust"));
    let blob = read(&files, "file:///img.png")
        .expect("read")
        .expect("ours");
    assert_eq!(
        blob[0].body,
        ResourceBody::Blob(crate::base64(&[0x89, b'P', 0, 1]))
    );
    let latin = read(&files, "file:///latin1.txt")
        .expect("read")
        .expect("ours");
    assert!(
        matches!(latin[0].body, ResourceBody::Blob(_)),
        "not UTF-8: lossless blob"
    );
    assert!(read(&files, "mem://x").expect("not ours").is_none());
    assert!(matches!(
        read(&files, "file:///missing"),
        Err(HandlerError::NotFound(_))
    ));
    assert!(refusal(&files, "file:///").contains("is a directory"));
}

#[test]
fn large_files_are_refused() {
    let tree = TempTree::new("res-large");
    tree.file("big.txt", vec![b'x'; MAX_RESOURCE_BYTES as usize + 1]);
    let message = refusal(&files(&tree), "file:///big.txt");
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
    assert_eq!(
        complete(&files, TEMPLATE, "path", "src/m"),
        Some(vec!["src/main.rs".to_string(), "src/mod.rs".to_string()])
    );
    assert_eq!(complete(&files, TEMPLATE, "other", ""), Some(vec![]));
    assert_eq!(complete(&files, "x:///{a}", "a", ""), None);
}

#[test]
fn fingerprints_follow_size_and_mtime() {
    let tree = TempTree::new("res-fingerprint");
    tree.file("a.txt", "one").dir("d");
    let files = files(&tree);
    let before = files.fingerprint("file:///a.txt").expect("exists");
    assert_eq!(files.fingerprint("file:///a.txt"), Some(before), "stable");
    tree.file("a.txt", "one more");
    assert_ne!(files.fingerprint("file:///a.txt"), Some(before));
    assert_eq!(
        files.fingerprint("file:///d"),
        None,
        "directories are not resources"
    );
    assert_eq!(files.fingerprint("file:///missing"), None);
    assert_eq!(files.fingerprint("file:///../x"), None);
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
