use super::*;
use crate::workspace::testutil::{TempTree, TestLink};
use minimcp::resource::ResourceBody;

fn workspace(tree: &TempTree) -> Rc<Workspace> {
    Rc::new(Workspace::open(&tree.path).expect("root"))
}

fn get(
    ws: &Rc<Workspace>,
    name: &str,
    args: &[(&str, &str)],
) -> Result<Vec<PromptMessage>, HandlerError> {
    let all = prompts(ws);
    let prompt = all
        .iter()
        .find(|p| p.name() == name)
        .expect("prompt exists");
    let args: BTreeMap<String, String> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    TestLink::default().get_prompt(prompt, &args)
}

fn complete(ws: &Rc<Workspace>, name: &str, arg: &str, value: &str) -> Vec<String> {
    let all = prompts(ws);
    let prompt = all
        .iter()
        .find(|p| p.name() == name)
        .expect("prompt exists");
    TestLink::default()
        .complete_prompt(prompt, arg, value)
        .expect("the argument is completed")
}

fn text(message: &PromptMessage) -> &str {
    match &message.content {
        Content::Text { text } => text,
        other => panic!("expected text, got {other:?}"),
    }
}

#[test]
fn code_review_fences_the_code_safely() {
    let tree = TempTree::new("prompt-review");
    let ws = workspace(&tree);
    let code = "let s = \"```\";\nlet t = \"````\";";
    let messages = get(&ws, "code_review", &[("language", "rust"), ("code", code)]).expect("ok");
    let body = text(&messages[0]);
    assert!(body.contains("\n`````rust\n"), "{body}");
    assert!(body.ends_with(&format!("{code}\n`````")));
    assert!(body.contains("rust code"));
    let plain = get(
        &ws,
        "code_review",
        &[("language", "c++ (gcc)"), ("code", "x")],
    )
    .expect("ok");
    assert!(text(&plain[0]).contains("\n```c++\nx\n```"));
}

#[test]
fn languages_complete_from_the_known_list() {
    let tree = TempTree::new("prompt-languages");
    let ws = workspace(&tree);
    assert_eq!(
        complete(&ws, "code_review", "language", "ru"),
        ["ruby", "rust"]
    );
    assert_eq!(
        complete(&ws, "code_review", "language", "Ty"),
        ["typescript"]
    );
    assert_eq!(
        complete(&ws, "code_review", "language", "").len(),
        LANGUAGES.len()
    );
    assert!(complete(&ws, "code_review", "language", "cobol").is_empty());
}

#[test]
fn explain_file_embeds_the_file() {
    let tree = TempTree::new("prompt-explain");
    tree.file("src/lib.rs", "pub fn f() {}\n")
        .file("big.txt", vec![b'x'; MAX_EMBED_BYTES as usize + 1]);
    let ws = workspace(&tree);
    let messages = get(&ws, "explain_file", &[("path", "src/lib.rs")]).expect("ok");
    match &messages[0].content {
        Content::Resource { resource } => {
            assert_eq!(resource.uri, tree.uri("src/lib.rs"));
            assert_eq!(resource.body, ResourceBody::Text("pub fn f() {}\n".into()));
            assert_eq!(resource.mime_type.as_deref(), Some("text/x-rust"));
        }
        other => panic!("expected a resource, got {other:?}"),
    }
    assert!(text(&messages[1]).contains("`src/lib.rs`"));
    assert_eq!(
        complete(&ws, "explain_file", "path", "src/"),
        ["src/lib.rs"]
    );
    for (path, expected) in [
        ("../etc/passwd", "`..`"),
        ("src", "is a directory"),
        ("big.txt", "read_file with offset"),
    ] {
        match get(&ws, "explain_file", &[("path", path)]) {
            Err(HandlerError::Invalid(message)) => {
                assert!(message.contains(expected), "{path}: {message}")
            }
            other => panic!("{path}: expected a refusal, got {other:?}"),
        }
    }
    assert!(matches!(
        get(&ws, "explain_file", &[("path", "nope.rs")]),
        Err(HandlerError::NotFound(_))
    ));
}

#[test]
fn project_overview_embeds_layout_and_key_files() {
    let tree = TempTree::new("prompt-overview");
    tree.file("README.md", "# Demo\n")
        .file("Cargo.toml", "[package]\nname = \"demo\"\n")
        .file("src/main.rs", "fn main() {}\n")
        .file("src/deep/er/hidden.rs", "")
        .file("notes.txt", "not a key file");
    let ws = workspace(&tree);
    let messages = get(&ws, "project_overview", &[]).expect("ok");
    let layout = text(&messages[0]);
    assert!(layout.contains("src/\n  deep/\n  main.rs"), "{layout}");
    assert!(!layout.contains("hidden.rs"), "two levels only");
    let embedded: Vec<&str> = messages
        .iter()
        .filter_map(|m| match &m.content {
            Content::Resource { resource } => Some(resource.uri.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(embedded, [tree.uri("Cargo.toml"), tree.uri("README.md")]);
    assert!(text(messages.last().expect("messages")).contains("overview"));
    assert_eq!(complete(&ws, "project_overview", "directory", ""), ["src/"]);
    let sub = get(&ws, "project_overview", &[("directory", "src")]).expect("ok");
    assert_eq!(sub.len(), 2, "layout and request; no key files in src");
}
