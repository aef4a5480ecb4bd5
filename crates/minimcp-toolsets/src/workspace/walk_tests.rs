use super::*;
use crate::workspace::testutil::TempTree;

/// Collects every path, directories with a trailing `/`.
#[derive(Default)]
struct Collect {
    paths: Vec<String>,
    skip: Option<&'static str>,
    stop_after: Option<usize>,
    cancel_at: Option<usize>,
    ticks: Vec<usize>,
}

impl Visitor for Collect {
    fn visit(&mut self, entry: &Entry) -> Flow {
        let suffix = if entry.kind == Kind::Dir { "/" } else { "" };
        self.paths.push(format!("{}{suffix}", entry.rel));
        if self.stop_after == Some(self.paths.len()) {
            return Flow::Stop;
        }
        if self.skip == Some(entry.rel.as_str()) {
            return Flow::Skip;
        }
        Flow::Continue
    }

    fn tick(&mut self, visited: usize) -> bool {
        self.ticks.push(visited);
        self.cancel_at.is_some_and(|at| visited >= at)
    }
}

fn run(tree: &TempTree, start: &str, bounds: Bounds, visitor: &mut Collect) -> Summary {
    let sandbox = Sandbox::new(&tree.path).expect("root");
    let start = sandbox
        .resolve(&RelPath::parse(start).expect("valid"))
        .expect("start");
    walk(&sandbox, &start, &bounds, visitor)
}

fn walk_paths(tree: &TempTree, start: &str) -> (Vec<String>, Summary) {
    let mut collect = Collect::default();
    let summary = run(tree, start, Bounds::default(), &mut collect);
    (collect.paths, summary)
}

#[test]
fn walks_depth_first_in_sorted_order() {
    let tree = TempTree::new("walk-order");
    tree.file("b.txt", "")
        .file("a/z.txt", "")
        .file("a/b/c.txt", "")
        .file("a-b", "");
    let (paths, summary) = walk_paths(&tree, ".");
    assert_eq!(
        paths,
        ["a/", "a/b/", "a/b/c.txt", "a/z.txt", "a-b", "b.txt"]
    );
    assert!(summary.complete());
    assert_eq!(summary.visited, 6);
    let (paths, _) = walk_paths(&tree, "a");
    assert_eq!(paths, ["a/b/", "a/b/c.txt", "a/z.txt"]);
}

#[test]
fn git_metadata_and_ignored_paths_are_skipped() {
    let tree = TempTree::new("walk-ignore");
    tree.file(".git/HEAD", "ref")
        .file(".gitignore", "target/\nnode_modules/\n*.log\n!keep.log\n")
        .file("target/debug/x", "")
        .file("web/node_modules/pkg/index.js", "")
        .file("web/app.js", "")
        .file("web/.gitignore", "dist\n")
        .file("web/dist/bundle.js", "")
        .file("dist/kept.js", "")
        .file("a.log", "")
        .file("keep.log", "");
    let (paths, summary) = walk_paths(&tree, ".");
    assert_eq!(
        paths,
        [
            ".gitignore",
            "dist/",
            "dist/kept.js",
            "keep.log",
            "web/",
            "web/.gitignore",
            "web/app.js"
        ]
    );
    assert_eq!(summary.ignored, 4);
    // Starting below the root still applies the root's rules.
    let (paths, _) = walk_paths(&tree, "web");
    assert_eq!(paths, ["web/.gitignore", "web/app.js"]);
    // An explicitly requested ignored directory is listed (its contents are not matched
    // by `target/` themselves).
    let (paths, _) = walk_paths(&tree, "target");
    assert_eq!(paths, ["target/debug/", "target/debug/x"]);
}

#[cfg(unix)]
#[test]
fn escaping_links_are_neither_listed_nor_followed() {
    let tree = TempTree::new("walk-links");
    tree.dir("ws")
        .file("ws/docs/a.md", "")
        .file("outside/secret.txt", "")
        .file("ws-sibling/secret.txt", "");
    tree.symlink(tree.path.join("outside"), "ws/out-dir")
        .symlink("../outside/secret.txt", "ws/out-file")
        .symlink("../ws-sibling", "ws/sibling")
        .symlink("docs", "ws/docs-link")
        .symlink("docs/a.md", "ws/a-link.md")
        .symlink("missing", "ws/broken");
    let sandbox = Sandbox::new(&tree.path.join("ws")).expect("root");
    let start = sandbox.resolve(&RelPath::root()).expect("root");
    let mut collect = Collect::default();
    let summary = walk(&sandbox, &start, &Bounds::default(), &mut collect);
    // Links inside are listed (files as files, directories not descended); the rest not.
    assert_eq!(
        collect.paths,
        ["a-link.md", "docs/", "docs/a.md", "docs-link/"]
    );
    assert_eq!(summary.escaping_links, 4);
    assert_eq!(
        summary.notes(&Bounds::default()),
        ["4 symbolic links skipped: broken, or leading outside the workspace."]
    );
}

#[test]
fn depth_is_bounded_and_reported() {
    let tree = TempTree::new("walk-depth");
    tree.file("1/2/3/4/deep.txt", "");
    let mut collect = Collect::default();
    let bounds = Bounds {
        max_depth: 2,
        ..Bounds::default()
    };
    let summary = run(&tree, ".", bounds, &mut collect);
    assert_eq!(collect.paths, ["1/", "1/2/"]);
    assert_eq!(summary.too_deep, 1);
    assert!(!summary.complete());
    assert_eq!(
        summary.notes(&bounds),
        ["1 directory deeper than 2 levels not entered (start deeper to see inside)."]
    );
}

#[test]
fn entries_are_bounded_and_reported() {
    let tree = TempTree::new("walk-entries");
    for i in 0..20 {
        tree.file(&format!("d/f{i:02}"), "");
    }
    let mut collect = Collect::default();
    let bounds = Bounds {
        max_entries: 5,
        ..Bounds::default()
    };
    let summary = run(&tree, ".", bounds, &mut collect);
    // Cut in sorted order, whatever order the file system lists them in.
    assert_eq!(collect.paths, ["d/", "d/f00", "d/f01", "d/f02", "d/f03"]);
    assert_eq!(summary.stopped, Some(Stopped::Entries));
    assert!(summary.notes(&bounds)[0].contains("limit of 5 entries"));
}

#[test]
fn time_is_bounded_and_reported() {
    let tree = TempTree::new("walk-time");
    for i in 0..(TICK_ENTRIES + 10) {
        tree.file(&format!("f{i}"), "");
    }
    let mut collect = Collect::default();
    let bounds = Bounds {
        max_time: Duration::ZERO,
        ..Bounds::default()
    };
    let summary = run(&tree, ".", bounds, &mut collect);
    assert_eq!(summary.stopped, Some(Stopped::Time));
    assert!(collect.paths.len() < TICK_ENTRIES + 10);
    assert!(summary.notes(&bounds)[0].contains("time limit"));
}

#[test]
fn ticks_report_progress_and_can_cancel() {
    let tree = TempTree::new("walk-cancel");
    for i in 0..(3 * TICK_ENTRIES) {
        tree.file(&format!("f{i:04}"), "");
    }
    let mut collect = Collect::default();
    let summary = run(&tree, ".", Bounds::default(), &mut collect);
    assert_eq!(
        collect.ticks,
        [TICK_ENTRIES, 2 * TICK_ENTRIES, 3 * TICK_ENTRIES]
    );
    assert!(summary.complete());
    let mut collect = Collect {
        cancel_at: Some(2 * TICK_ENTRIES),
        ..Collect::default()
    };
    let summary = run(&tree, ".", Bounds::default(), &mut collect);
    assert_eq!(summary.stopped, Some(Stopped::Cancelled));
    assert_eq!(collect.paths.len(), 2 * TICK_ENTRIES - 1);
}

#[test]
fn visitors_can_skip_and_stop() {
    let tree = TempTree::new("walk-visitor");
    tree.file("a/x", "").file("b/y", "").file("c", "");
    let mut collect = Collect {
        skip: Some("a"),
        ..Collect::default()
    };
    run(&tree, ".", Bounds::default(), &mut collect);
    assert_eq!(collect.paths, ["a/", "b/", "b/y", "c"]);
    let mut collect = Collect {
        stop_after: Some(2),
        ..Collect::default()
    };
    let summary = run(&tree, ".", Bounds::default(), &mut collect);
    assert_eq!(collect.paths, ["a/", "a/x"]);
    assert_eq!(summary.stopped, Some(Stopped::Visitor));
    assert!(summary.notes(&Bounds::default()).is_empty());
}

#[cfg(unix)]
#[test]
fn link_cycles_do_not_loop() {
    let tree = TempTree::new("walk-cycle");
    tree.file("d/x.txt", "");
    tree.symlink("..", "d/up")
        .symlink("a", "b")
        .symlink("b", "a");
    let (paths, summary) = walk_paths(&tree, ".");
    assert_eq!(paths, ["d/", "d/up/", "d/x.txt"]);
    assert_eq!(summary.escaping_links, 2, "the two-link loop is skipped");
}

#[test]
fn deeper_files_override_shallower_ones() {
    let tree = TempTree::new("gitignore-stack");
    tree.file(".gitignore", "*.gen\n")
        .file("keep/.gitignore", "!*.gen\n")
        .file("keep/sub/x.gen", "");
    let sandbox = Sandbox::new(&tree.path).expect("root");
    let stack = IgnoreStack::for_dir(&sandbox, &RelPath::parse("keep/sub").expect("valid"));
    let path = |p: &str| RelPath::parse(p).expect("valid");
    assert!(!stack.is_ignored(&path("keep/sub/x.gen"), false));
    assert!(stack.is_ignored(&path("other.gen"), false));
    // Rules of a directory apply below it only.
    let root_only = IgnoreStack::for_dir(&sandbox, &RelPath::root());
    assert!(root_only.is_ignored(&path("keep/sub/x.gen"), false));
}

#[cfg(unix)]
#[test]
fn a_gitignore_that_links_outside_is_not_read() {
    let tree = TempTree::new("gitignore-escape");
    tree.file("outside-rules", "*\n")
        .dir("ws")
        .file("ws/a.txt", "");
    tree.symlink("../outside-rules", "ws/.gitignore");
    let sandbox = Sandbox::new(&tree.path.join("ws")).expect("root");
    let stack = IgnoreStack::for_dir(&sandbox, &RelPath::root());
    assert!(!stack.is_ignored(&RelPath::parse("a.txt").expect("valid"), false));
}
