//! The examples are Microsoft's ("Naming Files, Paths, and Namespaces") and RFC 8089's
//! (Appendix E), written out here rather than derived from the code under test.

use super::*;
use crate::workspace::nfd::nfd;

#[test]
fn windows_refuses_devices_streams_trailing_dots_and_short_names() {
    use WindowsName::*;
    let cases = [
        ("CON", Some(Device)),
        ("con", Some(Device)),
        ("NUL", Some(Device)),
        ("aux.txt", Some(Device)),
        ("Com1", Some(Device)),
        ("COM1.tar.gz", Some(Device)),
        ("LPT9", Some(Device)),
        ("lpt¹", Some(Device)),
        ("CON .txt", Some(Device)),
        ("CONIN$", Some(Device)),
        ("conout$", Some(Device)),
        ("a.txt:x", Some(Stream)),
        ("a.txt::$DATA", Some(Stream)),
        (".env:$DATA", Some(Stream)),
        ("a.txt.", Some(TrailingDotOrSpace)),
        ("a.txt ", Some(TrailingDotOrSpace)),
        (".env. . ", Some(TrailingDotOrSpace)),
        ("PROGRA~1", Some(ShortName)),
        ("progra~1", Some(ShortName)),
        ("ENV~1.LOC", Some(ShortName)),
        ("ABCDE~XY", Some(ShortName)),
        ("GIT~1", Some(ShortName)),
        ("a<b", Some(Character('<'))),
        ("a|b", Some(Character('|'))),
        ("what?", Some(Character('?'))),
        ("*.rs", Some(Character('*'))),
        ("tab\there", Some(Character('\t'))),
        ("quote\"d", Some(Character('"'))),
    ];
    for (name, expected) in cases {
        assert_eq!(windows_name(name), expected, "{name}");
    }
    for fine in [
        "CONFIG.sys",
        "console.log",
        "nul1",
        "COM10",
        "LPT",
        "auxiliary.txt",
        ".env",
        "main.rs",
        "Program Files",
        "~$report.docx",
        "main.rs~",
        "notes~draft.markdown",
        "a~b~1",
        "~1",
        ".hidden",
        "...rs",
        "naïve café.txt",
    ] {
        assert_eq!(windows_name(fine), None, "{fine}");
    }
}

#[test]
fn windows_absolute_paths_have_drives_shares_and_verbatim_prefixes() {
    let w = |input: &str| parse_absolute(input, Flavor::Windows);
    let abs = |prefix: &str, names: &[&str]| {
        Some(Ok(Absolute {
            prefix: prefix.to_string(),
            names: names.iter().map(|n| n.to_string()).collect(),
        }))
    };
    assert_eq!(
        w(r"C:\work\proj\src\main.rs"),
        abs("C:", &["work", "proj", "src", "main.rs"])
    );
    assert_eq!(w("c:/work/proj"), abs("C:", &["work", "proj"]));
    assert_eq!(w(r"C:\work/./proj\"), abs("C:", &["work", "proj"]));
    assert_eq!(w(r"C:\"), abs("C:", &[]));
    assert_eq!(w("C:"), abs("C:", &[]));
    assert_eq!(w(r"\\?\C:\work\proj"), abs("C:", &["work", "proj"]));
    assert_eq!(
        w(r"\\server\share\proj\x"),
        abs(r"\\server\share", &["proj", "x"])
    );
    assert_eq!(w("//server/share/proj"), abs(r"\\server\share", &["proj"]));
    assert_eq!(
        w(r"\\?\UNC\server\share\proj"),
        abs(r"\\server\share", &["proj"])
    );
    assert_eq!(w(r"\work\proj"), abs("", &["work", "proj"]));
    assert_eq!(w("/tmp/x"), abs("", &["tmp", "x"]));
    assert_eq!(w(r"C:\work\..\secret"), Some(Err(AbsoluteError::Parent)));
    for unsupported in [
        r"\\.\COM1",
        r"\\.\PhysicalDrive0",
        r"\\?\Volume{1234}\x",
        r"\\server",
        r"\\server\",
        "C:relative",
        r"\\?\",
    ] {
        assert_eq!(
            w(unsupported),
            Some(Err(AbsoluteError::Unsupported)),
            "{unsupported}"
        );
    }
    for relative in ["src\\main.rs", "src/main.rs", ".", "~/x", "1:x"] {
        assert_eq!(w(relative), None, "{relative}");
    }
}

#[test]
fn unix_absolute_paths_are_slash_paths_only() {
    let u = |input: &str| parse_absolute(input, Flavor::Unix);
    assert_eq!(
        u("/home/me/./p/"),
        Some(Ok(Absolute {
            prefix: String::new(),
            names: vec!["home".into(), "me".into(), "p".into()],
        }))
    );
    assert_eq!(u("/a/../b"), Some(Err(AbsoluteError::Parent)));
    for relative in [r"C:\x", "C:/x", r"\\server\share", "src"] {
        assert_eq!(u(relative), None, "{relative}");
    }
}

#[test]
fn a_path_is_below_a_root_by_whole_names_and_case_where_the_volume_folds() {
    let w = |input: &str| match parse_absolute(input, Flavor::Windows) {
        Some(Ok(a)) => a,
        other => panic!("{input}: {other:?}"),
    };
    let root = w(r"C:\Work\Proj");
    let names = |rest: Option<&[String]>| rest.map(|r| r.join("/"));
    assert_eq!(
        names(w(r"C:\Work\Proj\src\a.rs").below(&root, false)),
        Some("src/a.rs".into())
    );
    assert_eq!(
        names(w(r"c:\work\proj\src").below(&root, true)),
        Some("src".into())
    );
    assert_eq!(names(w(r"c:\work\proj\src").below(&root, false)), None);
    assert_eq!(
        names(w(r"C:\Work\Proj").below(&root, false)),
        Some(String::new())
    );
    assert_eq!(
        names(w(r"C:\Work\Project\x").below(&root, true)),
        None,
        "a sibling sharing a prefix"
    );
    assert_eq!(
        names(w(r"D:\Work\Proj\x").below(&root, true)),
        None,
        "another drive"
    );
    assert_eq!(
        names(w(r"\Work\Proj\x").below(&root, true)),
        Some("x".into()),
        "the current drive"
    );
    assert_eq!(
        names(w(r"\\?\C:\Work\Proj\x").below(&root, false)),
        Some("x".into())
    );
    let share = w(r"\\Server\Share\proj");
    assert_eq!(
        names(w(r"\\server\share\proj\x").below(&share, false)),
        Some("x".into())
    );
    assert_eq!(names(w(r"\work\proj\x").below(&share, true)), None);
    // Unicode letters fold too: NTFS and APFS compare `É` and `é` as one name.
    let accented = w(r"C:\Équipe");
    assert_eq!(
        names(w(r"C:\équipe\x").below(&accented, true)),
        Some("x".into())
    );
}

#[test]
fn file_uris_follow_rfc_8089_on_both_families() {
    let u = |uri: &str| uri_to_path(uri, Flavor::Unix);
    let w = |uri: &str| uri_to_path(uri, Flavor::Windows);
    assert_eq!(
        u("file:///home/me/my%20proj/x"),
        Some(Ok("/home/me/my proj/x".into()))
    );
    assert_eq!(u("file://localhost/etc/x"), Some(Ok("/etc/x".into())));
    assert_eq!(u("FILE:///x"), Some(Ok("/x".into())));
    assert_eq!(
        u("file:/etc/x"),
        Some(Ok("/etc/x".into())),
        "RFC 8089 section 2: no authority"
    );
    assert!(matches!(u("file://host/x"), Some(Err(_))));
    assert!(
        matches!(u("file:///C:/x"), Some(Ok(p)) if p == "/C:/x"),
        "a Unix path that happens to hold a colon"
    );
    assert!(matches!(u("file:C:/x"), Some(Err(_))));
    assert!(matches!(u("file:///a?b"), Some(Err(_))));
    assert!(matches!(u("file:///a#b"), Some(Err(_))));
    assert!(matches!(u("file:///a%2"), Some(Err(_))));
    assert!(matches!(u("file:///a%00"), Some(Err(_))));
    assert_eq!(u("https://x/y"), None);
    assert_eq!(u("fil"), None);
    // Appendix E.2: drive letters, with and without an authority, the legacy `|`, and VS
    // Code's percent-encoded colon.
    assert_eq!(
        w("file:///C:/Users/me/x.rs"),
        Some(Ok("C:/Users/me/x.rs".into()))
    );
    assert_eq!(
        w("file:///c%3A/Users/me/x.rs"),
        Some(Ok("c:/Users/me/x.rs".into()))
    );
    assert_eq!(w("file:C:/Users/me"), Some(Ok("C:/Users/me".into())));
    assert_eq!(w("file:/C:/Users/me"), Some(Ok("C:/Users/me".into())));
    assert_eq!(w("file:///C|/Users/me"), Some(Ok("C:/Users/me".into())));
    assert_eq!(w("file://localhost/C:/x"), Some(Ok("C:/x".into())));
    assert_eq!(w("file:///C:"), Some(Ok("C:".into())));
    // E.3: UNC, with the server as the authority or after an empty one.
    assert_eq!(
        w("file://server/share/x"),
        Some(Ok("//server/share/x".into()))
    );
    assert_eq!(
        w("file:////server/share/x"),
        Some(Ok("//server/share/x".into()))
    );
    // A path rooted on the current drive (how a Unix-style client names a Wine path).
    assert_eq!(w("file:///tmp/x"), Some(Ok("/tmp/x".into())));
    assert!(matches!(w("file:x/y"), Some(Err(_))));
    assert!(matches!(w("file:///C:/a?b"), Some(Err(_))));
}

#[test]
fn uris_are_made_from_paths_and_read_back() {
    let cases = [
        (
            Flavor::Unix,
            "/home/me/my proj/naïve #1%.rs",
            "file:///home/me/my%20proj/na%C3%AFve%20%231%25.rs",
        ),
        (
            Flavor::Windows,
            r"C:\Users\me\my proj\x.rs",
            "file:///C:/Users/me/my%20proj/x.rs",
        ),
        (Flavor::Windows, r"\\?\C:\Users\me", "file:///C:/Users/me"),
        (
            Flavor::Windows,
            r"\\server\share\x",
            "file://server/share/x",
        ),
        (
            Flavor::Windows,
            r"\\?\UNC\server\share\x",
            "file://server/share/x",
        ),
        (Flavor::Windows, r"Z:\tmp\a:b", "file:///Z:/tmp/a%3Ab"),
    ];
    for (flavor, path, uri) in cases {
        assert_eq!(path_to_uri(path, flavor), uri, "{path}");
        let back = uri_to_path(uri, flavor)
            .expect("a file URI")
            .expect("usable");
        let again = parse_absolute(&back, flavor)
            .expect("absolute")
            .expect("valid");
        let original = parse_absolute(path, flavor)
            .expect("absolute")
            .expect("valid");
        assert_eq!(again, original, "{uri}");
    }
}

#[test]
fn folding_lowercases_and_borrows_when_it_can() {
    assert!(matches!(fold(".env"), Cow::Borrowed(".env")));
    assert_eq!(fold(".ENV"), ".env");
    assert_eq!(fold("ÉTÉ.PEM"), nfd("été.pem"));
    assert_eq!(fold("Straße"), "straße");
    // One name however it was typed: precomposed (NFC) or decomposed (NFD, as HFS+ stores).
    assert_eq!(fold("Café.env"), fold("Cafe\u{301}.ENV"));
    assert_eq!(fold("ÉTÉ"), "e\u{301}te\u{301}");
}
