//! How a workspace of several roots resolves the paths clients send.

use super::*;
use crate::workspace::testutil::TempTree;

fn two_roots(tree: &TempTree) -> Workspace {
    tree.file("app/src/main.rs", "")
        .file("app/README.md", "")
        .file("lib/README.md", "")
        .file("lib/only.rs", "");
    Workspace::configure(&Config {
        roots: vec![tree.path.join("app"), tree.path.join("lib")],
        ..Config::default()
    })
    .expect("roots")
}

fn shown(ws: &Workspace, input: &str) -> Result<String, PathError> {
    ws.resolve(input).map(|r| r.rel.to_string())
}

#[test]
fn several_roots_are_named_by_label_found_when_unique_or_named_as_ambiguous() {
    let tree = TempTree::new("ws-two");
    let ws = two_roots(&tree);
    assert_eq!(shown(&ws, "app/src/main.rs"), Ok("app/src/main.rs".into()));
    assert_eq!(shown(&ws, "only.rs"), Ok("lib/only.rs".into()));
    let abs = tree.path.join("lib/only.rs").display().to_string();
    assert_eq!(shown(&ws, &abs), Ok("lib/only.rs".into()));
    match shown(&ws, "README.md") {
        Err(PathError::Ambiguous(_, all)) => assert_eq!(all, ["app/README.md", "lib/README.md"]),
        other => panic!("expected ambiguity, got {other:?}"),
    }
    assert!(matches!(shown(&ws, "."), Err(PathError::Ambiguous(..))));
    assert_eq!(ws.starts(".").map(|s| s.len()), Ok(2));
    assert!(matches!(shown(&ws, "nope.rs"), Err(PathError::NotFound(_))));
    let outside = tree.path.join("elsewhere").display().to_string();
    assert!(matches!(shown(&ws, &outside), Err(PathError::Outside(_))));
    let climbing = format!("{}/app/../lib/only.rs", tree.path.display());
    assert!(matches!(shown(&ws, &climbing), Err(PathError::Parent)));
}

#[test]
fn one_root_keeps_short_paths_and_takes_absolute_ones() {
    let tree = TempTree::new("ws-one");
    tree.file("src/a.rs", "");
    let ws = Workspace::open(&tree.path).expect("root");
    assert_eq!(shown(&ws, "src/a.rs"), Ok("src/a.rs".into()));
    let abs = tree.path.join("src/a.rs").display().to_string();
    assert_eq!(shown(&ws, &abs), Ok("src/a.rs".into()));
    assert_eq!(shown(&ws, &tree.path.display().to_string()), Ok(".".into()));
}

#[test]
fn without_any_root_every_path_says_how_to_configure_one() {
    let ws = Workspace::configure(&Config {
        fallback: Some("/".into()),
        ..Config::default()
    })
    .expect("starts anyway");
    assert_eq!(shown(&ws, "etc/passwd"), Err(PathError::NoRoot));
    assert!(PathError::NoRoot.to_string().contains("--root"));
}
