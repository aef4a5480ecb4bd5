use super::*;
use crate::workspace::limits::{MAX_COMPONENT_BYTES, MAX_PATH_BYTES};
use crate::workspace::names::{Flavor, WindowsName};
use crate::workspace::testutil::TempTree;

fn parse(input: &str) -> Result<String, PathError> {
    RelPath::parse_as(input, Flavor::Unix).map(|p| p.as_str().to_string())
}

fn parse_windows(input: &str) -> Result<String, PathError> {
    RelPath::parse_as(input, Flavor::Windows).map(|p| p.as_str().to_string())
}

#[test]
fn relative_paths_are_normalized() {
    assert_eq!(parse(""), Ok(String::new()));
    assert_eq!(parse("."), Ok(String::new()));
    assert_eq!(parse("./"), Ok(String::new()));
    assert_eq!(parse("src/main.rs"), Ok("src/main.rs".into()));
    assert_eq!(parse("./src//./main.rs/"), Ok("src/main.rs".into()));
    assert_eq!(parse("a/.../b"), Ok("a/.../b".into()));
    assert_eq!(parse("..foo/bar.."), Ok("..foo/bar..".into()));
    assert_eq!(parse("a/~b"), Ok("a/~b".into()));
    assert_eq!(parse("dir/.gitignore"), Ok("dir/.gitignore".into()));
    assert_eq!(parse("é/ü.txt"), Ok("é/ü.txt".into()));
}

#[test]
fn lexical_escapes_are_refused() {
    let cases = [
        ("..", PathError::Parent),
        ("../x", PathError::Parent),
        ("a/../../x", PathError::Parent),
        ("a/..", PathError::Parent),
        ("/etc/passwd", PathError::Absolute),
        ("//server/share", PathError::Absolute),
        ("C:/Windows", PathError::Absolute),
        ("c:x", PathError::Absolute),
        ("~", PathError::Home),
        ("~/x", PathError::Home),
        ("~root/.ssh", PathError::Home),
        ("a\0b", PathError::Nul),
        ("\0", PathError::Nul),
        ("a\\b", PathError::Backslash),
        ("..\\x", PathError::Backslash),
        ("C:\\x", PathError::Backslash),
        (".git", PathError::Git),
        ("a/.git/config", PathError::Git),
        (".GIT/config", PathError::Git),
    ];
    for (input, expected) in cases {
        assert_eq!(parse(input), Err(expected), "{input:?}");
    }
}

#[test]
fn windows_paths_take_backslashes_and_refuse_names_windows_reads_otherwise() {
    assert_eq!(parse_windows(r"src\main.rs"), Ok("src/main.rs".into()));
    assert_eq!(
        parse_windows(r".\src/sub\\x.rs\"),
        Ok("src/sub/x.rs".into())
    );
    assert_eq!(
        parse_windows("Program Files/x"),
        Ok("Program Files/x".into())
    );
    let name = |n: &str, problem| PathError::WindowsName(n.into(), problem);
    let cases = [
        (r"..\x", PathError::Parent),
        (r"a\..\..\x", PathError::Parent),
        (r"C:\Windows", PathError::Absolute),
        ("C:x", PathError::Absolute),
        (r"\Windows", PathError::Absolute),
        ("/etc", PathError::Absolute),
        (r"\\server\share", PathError::Absolute),
        (r"\\?\C:\x", PathError::Absolute),
        (r"~\x", PathError::Home),
        (r"a\.git\config", PathError::Git),
        (r".Git\config", PathError::Git),
        ("CON", name("CON", WindowsName::Device)),
        (r"src\nul", name("nul", WindowsName::Device)),
        ("aux.txt", name("aux.txt", WindowsName::Device)),
        ("COM1", name("COM1", WindowsName::Device)),
        ("a.txt.", name("a.txt.", WindowsName::TrailingDotOrSpace)),
        (".env ", name(".env ", WindowsName::TrailingDotOrSpace)),
        (
            r".git.\config",
            name(".git.", WindowsName::TrailingDotOrSpace),
        ),
        ("a.txt:x", name("a.txt:x", WindowsName::Stream)),
        ("a.txt::$DATA", name("a.txt::$DATA", WindowsName::Stream)),
        ("PROGRA~1/x", name("PROGRA~1", WindowsName::ShortName)),
        ("ENV~1.LOC", name("ENV~1.LOC", WindowsName::ShortName)),
        ("*.rs", name("*.rs", WindowsName::Character('*'))),
    ];
    for (input, expected) in cases {
        assert_eq!(parse_windows(input), Err(expected), "{input:?}");
    }
    // On Unix every one of those names is an ordinary file name.
    for unix in [
        "CON", "aux.txt", "a.txt.", ".env ", "a.txt:x", "PROGRA~1", "*.rs",
    ] {
        assert_eq!(parse(unix), Ok(unix.to_string()));
    }
}

#[test]
fn over_long_paths_are_refused() {
    let long = "a/".repeat(MAX_PATH_BYTES / 2 + 1);
    assert_eq!(parse(&long), Err(PathError::TooLong(long.len())));
    let component = "x".repeat(MAX_COMPONENT_BYTES + 1);
    assert_eq!(parse(&component), Err(PathError::ComponentTooLong));
    let exact = "x".repeat(MAX_COMPONENT_BYTES);
    assert!(parse(&exact).is_ok());
}

#[test]
fn messages_never_contain_absolute_paths() {
    let shown = RelPath::parse("a/b").expect("valid");
    let errors = [
        PathError::Absolute,
        PathError::Escapes(shown.clone()),
        PathError::NotFound(shown.clone()),
        PathError::Io(shown, io::ErrorKind::PermissionDenied),
    ];
    for error in errors {
        let message = error.to_string();
        assert!(!message.contains("/tmp"), "{message}");
        assert!(!message.is_empty());
    }
    assert!(PathError::Parent.to_string().contains("`..`"));
    assert!(PathError::Nul.to_string().contains("NUL"));
}

#[test]
fn rel_path_helpers() {
    let p = RelPath::parse("a/b/c.rs").expect("valid");
    assert_eq!(p.name(), "c.rs");
    assert_eq!(p.components().collect::<Vec<_>>(), ["a", "b", "c.rs"]);
    let base = RelPath::parse("a").expect("valid");
    assert_eq!(p.strip_prefix(&base), Some("b/c.rs"));
    assert_eq!(p.strip_prefix(&RelPath::root()), Some("a/b/c.rs"));
    assert_eq!(base.strip_prefix(&base), Some(""));
    // A sibling whose name starts with the base's name is not below it.
    let sibling = RelPath::parse("ab/c").expect("valid");
    assert_eq!(sibling.strip_prefix(&base), None);
    assert_eq!(RelPath::root().to_string(), ".");
    assert_eq!(base.join_rel("x/y").as_str(), "a/x/y");
    assert_eq!(RelPath::root().join_rel("x").as_str(), "x");
}

#[test]
fn a_root_that_is_missing_or_a_file_is_refused() {
    let tree = TempTree::new("sandbox-root");
    tree.file("plain.txt", "x");
    let missing = Sandbox::new(&tree.path.join("nope")).expect_err("missing");
    assert!(missing.contains("does not exist"), "{missing}");
    let file = Sandbox::new(&tree.path.join("plain.txt")).expect_err("file");
    assert!(file.contains("not a directory"), "{file}");
    assert!(Sandbox::new(&tree.path).is_ok());
}

#[test]
fn resolve_finds_files_and_reports_missing_ones_relatively() {
    let tree = TempTree::new("sandbox-resolve");
    tree.file("src/main.rs", "fn main() {}");
    let sandbox = Sandbox::new(&tree.path).expect("root");
    let found = sandbox
        .resolve(&RelPath::parse("src/main.rs").expect("valid"))
        .expect("found");
    assert!(found.meta.is_file());
    assert_eq!(found.real_rel.as_str(), "src/main.rs");
    let missing = sandbox
        .resolve(&RelPath::parse("src/nope.rs").expect("valid"))
        .expect_err("missing");
    assert_eq!(
        missing,
        PathError::NotFound(RelPath::parse("src/nope.rs").expect("valid"))
    );
    let through_file = sandbox
        .resolve(&RelPath::parse("src/main.rs/x").expect("valid"))
        .expect_err("not a dir");
    assert_eq!(
        through_file,
        PathError::NotADirectory(RelPath::parse("src/main.rs").expect("valid"))
    );
    let root = sandbox.resolve(&RelPath::root()).expect("root");
    assert!(root.meta.is_dir());
    assert_eq!(root.real_rel, RelPath::root());
}

#[cfg(unix)]
#[test]
fn a_sibling_whose_name_extends_the_root_is_outside() {
    let tree = TempTree::new("sandbox-sibling");
    tree.dir("ws").file("ws-secret/key.txt", "secret");
    tree.symlink("../ws-secret", "ws/link");
    tree.symlink("../ws-secret/key.txt", "ws/key");
    let sandbox = Sandbox::new(&tree.path.join("ws")).expect("root");
    assert!(!sandbox.contains(&tree.path.join("ws-secret").canonicalize().expect("exists")));
    for input in ["link", "link/key.txt", "key"] {
        let err = sandbox
            .resolve(&RelPath::parse(input).expect("valid"))
            .expect_err(input);
        assert!(matches!(err, PathError::Escapes(_)), "{input}: {err:?}");
    }
}

#[cfg(unix)]
#[test]
fn escaping_links_are_refused_whatever_follows_them() {
    let tree = TempTree::new("sandbox-escape");
    tree.dir("ws").file("outside/real.txt", "secret");
    tree.symlink(tree.path.join("outside"), "ws/out");
    tree.symlink("/nonexistent-minimcp-target", "ws/dangling");
    let sandbox = Sandbox::new(&tree.path.join("ws")).expect("root");
    // Existing and missing names behind the link get the same answer: no existence oracle.
    let real = sandbox.resolve(&RelPath::parse("out/real.txt").expect("valid"));
    let fake = sandbox.resolve(&RelPath::parse("out/nothing.txt").expect("valid"));
    let out = RelPath::parse("out").expect("valid");
    assert_eq!(real.expect_err("outside"), PathError::Escapes(out.clone()));
    assert_eq!(fake.expect_err("outside"), PathError::Escapes(out));
    let dangling = sandbox
        .resolve(&RelPath::parse("dangling").expect("valid"))
        .expect_err("broken");
    assert!(matches!(dangling, PathError::BrokenLink(_)), "{dangling:?}");
}

#[cfg(unix)]
#[test]
fn links_that_stay_inside_are_followed() {
    let tree = TempTree::new("sandbox-inside");
    tree.file("docs/guide.md", "# guide");
    tree.symlink("docs", "manual");
    tree.symlink("docs/guide.md", "GUIDE");
    tree.symlink("../docs/guide.md", "docs/self");
    let sandbox = Sandbox::new(&tree.path).expect("root");
    for (input, real) in [
        ("manual/guide.md", "docs/guide.md"),
        ("GUIDE", "docs/guide.md"),
        ("docs/self", "docs/guide.md"),
    ] {
        let found = sandbox
            .resolve(&RelPath::parse(input).expect("valid"))
            .expect(input);
        assert_eq!(found.real_rel.as_str(), real, "{input}");
        assert_eq!(found.rel.as_str(), input);
        let (_, meta) = sandbox
            .open_regular(&found.real, &found.rel)
            .expect("opens");
        assert_eq!(meta.len(), 7);
    }
}

#[cfg(unix)]
#[test]
fn a_link_into_git_metadata_is_refused() {
    let tree = TempTree::new("sandbox-git");
    tree.file(".git/config", "[remote] url = https://token@example.com");
    tree.symlink(".git", "meta");
    let sandbox = Sandbox::new(&tree.path).expect("root");
    let err = sandbox
        .resolve(&RelPath::parse("meta/config").expect("valid"))
        .expect_err("git");
    assert_eq!(err, PathError::Git);
}

#[test]
fn only_regular_files_are_opened() {
    let tree = TempTree::new("sandbox-open");
    tree.file("a.txt", "hello").dir("sub");
    let sandbox = Sandbox::new(&tree.path).expect("root");
    let sub = sandbox
        .resolve(&RelPath::parse("sub").expect("valid"))
        .expect("dir");
    let err = sandbox.open_regular(&sub.real, &sub.rel).expect_err("dir");
    assert!(matches!(err, PathError::IsADirectory(_)));
    let a = sandbox
        .resolve(&RelPath::parse("a.txt").expect("valid"))
        .expect("file");
    let (file, _) = sandbox.open_regular(&a.real, &a.rel).expect("file");
    assert_eq!(read_capped(file, 5, 3).expect("read"), b"hel");
    // The size is only a hint: a wrong one still reads the whole file.
    let (file, _) = sandbox.open_regular(&a.real, &a.rel).expect("file");
    assert_eq!(read_capped(file, 0, 100).expect("read"), b"hello");
    assert_eq!(
        sandbox.read_entry(&sandbox.root().join("a.txt"), 100),
        Some(b"hello".to_vec())
    );
    assert_eq!(sandbox.read_entry(&sandbox.root().join("a.txt"), 2), None);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let tree = TempTree::new("sandbox-fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(tree.path.join("pipe"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system: nothing to test
    }
    let sandbox = Sandbox::new(&tree.path).expect("root");
    let pipe = sandbox
        .resolve(&RelPath::parse("pipe").expect("valid"))
        .expect("exists");
    let err = sandbox
        .open_regular(&pipe.real, &pipe.rel)
        .expect_err("fifo");
    assert!(matches!(err, PathError::Special(_)));
    assert_eq!(sandbox.read_entry(&pipe.real, 100), None);
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_refused_not_followed_forever() {
    let tree = TempTree::new("sandbox-loop");
    tree.symlink("b", "a")
        .symlink("a", "b")
        .symlink(".", "self")
        .file("x.txt", "x");
    let sandbox = Sandbox::new(&tree.path).expect("root");
    let err = sandbox
        .resolve(&RelPath::parse("a/x.txt").expect("valid"))
        .expect_err("loop");
    assert!(matches!(err, PathError::Io(_, _)), "{err:?}");
    assert!(err.to_string().starts_with("`a` cannot be read"), "{err}");
    // A link to its own directory stays inside and resolves; walks do not descend into it.
    let found = sandbox
        .resolve(&RelPath::parse("self/self/self/x.txt").expect("valid"))
        .expect("inside");
    assert_eq!(found.real_rel.as_str(), "x.txt");
}

#[cfg(target_os = "linux")]
#[test]
fn a_listed_file_swapped_for_an_escaping_link_is_refused() {
    use crate::workspace::platform::{entry_ino, FileId};
    let tree = TempTree::new("sandbox-listed");
    tree.file("outside.txt", "secret")
        .file("ws/dir/a.txt", "inside");
    let sandbox = Sandbox::new(&tree.path.join("ws")).expect("root");
    let dir = sandbox.root().join("dir");
    let listing = sandbox.list_dir(&dir, None).expect("lists");
    let dev = listing.dev.expect("listed through the checked handle");
    let item = listing
        .entries
        .map(|e| e.expect("entry"))
        .find(|e| e.file_name() == "a.txt")
        .expect("listed");
    let id = FileId {
        dev,
        ino: entry_ino(&item).expect("inode"),
    };
    let shown = RelPath::parse("dir/a.txt").expect("valid");
    let (file, _) = sandbox
        .open_listed(&dir.join("a.txt"), &shown, Some(id))
        .expect("the listed file opens");
    assert_eq!(read_capped(file, 6, 100).expect("read"), b"inside");
    // Between listing and opening, the file becomes a link that leaves the root: the
    // opened file is not the listed one, and the full check refuses it.
    std::fs::remove_file(dir.join("a.txt")).expect("remove");
    tree.symlink("../../outside.txt", "ws/dir/a.txt");
    let err = sandbox
        .open_listed(&dir.join("a.txt"), &shown, Some(id))
        .expect_err("escapes");
    assert_eq!(err, PathError::Escapes(shown.clone()));
    // A wrong identity for a file inside still opens it, through the full check.
    std::fs::remove_file(dir.join("a.txt")).expect("remove");
    tree.file("ws/dir/a.txt", "again");
    let wrong = FileId { dev, ino: 1 };
    assert!(sandbox
        .open_listed(&dir.join("a.txt"), &shown, Some(wrong))
        .is_ok());
}

#[cfg(target_os = "linux")]
#[test]
fn a_directory_outside_the_root_is_not_listed() {
    let tree = TempTree::new("sandbox-list-outside");
    tree.file("outside/x.txt", "x").dir("ws");
    let sandbox = Sandbox::new(&tree.path.join("ws")).expect("root");
    let outside = std::fs::canonicalize(tree.path.join("outside")).expect("canonical");
    let err = sandbox.list_dir(&outside, None).expect_err("outside");
    assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    // An identity that is not the opened directory's proves nothing: the kernel is asked.
    let wrong = crate::workspace::platform::FileId { dev: 0, ino: 1 };
    let err = sandbox
        .list_dir(&outside, Some(wrong))
        .expect_err("outside");
    assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    assert!(sandbox.list_dir(sandbox.root(), None).is_ok());
}

#[test]
fn the_deny_list_matches_names_directories_and_link_targets() {
    let tree = TempTree::new("deny");
    tree.file(".env", "x")
        .file("app/.env.local", "x")
        .file("secrets/plain.txt", "x")
        .file("ok.txt", "x");
    #[cfg(unix)]
    tree.symlink(".env", "innocent.txt");
    // Other spellings, as files of their own where the volume tells case apart.
    for other in [".ENV", "SECRETS/plain.txt", "app/.Env.LOCAL"] {
        if !tree.path.join(other).exists() {
            tree.file(other, "x");
        }
    }
    let rules = super::Rules::parse_folded(".env\n.env.*\nsecrets/\n");
    let sandbox = Sandbox::new(&tree.path)
        .expect("root")
        .with_deny(std::rc::Rc::new(rules), std::rc::Rc::default());
    let resolve = |p: &str| sandbox.resolve(&RelPath::parse(p).expect("lexically fine"));
    // Letter case aside: `.ENV` opens `.env` on a case-insensitive volume, and is refused as
    // a name of its own on any other.
    for denied in [
        ".env",
        "app/.env.local",
        "secrets",
        "secrets/plain.txt",
        ".ENV",
        "SECRETS/plain.txt",
        "app/.Env.LOCAL",
    ] {
        assert!(
            matches!(resolve(denied), Err(PathError::Denied(_))),
            "{denied}"
        );
    }
    #[cfg(unix)]
    assert!(matches!(resolve("innocent.txt"), Err(PathError::Denied(_))));
    assert!(resolve("ok.txt").is_ok());
    assert!(resolve("app").is_ok());
}
