use super::*;
use crate::workspace::testutil::TempTree;

#[cfg(target_os = "linux")]
#[test]
fn the_kernel_names_the_opened_file() {
    let path = std::env::current_exe().expect("test binary");
    let file = open_nonblocking(&path).expect("opens");
    assert_eq!(
        opened_path(&file),
        Some(path.canonicalize().expect("canonical"))
    );
}

#[cfg(unix)]
#[test]
fn a_path_still_names_the_opened_file_until_a_name_on_it_changes() {
    let tree = TempTree::new("still-names");
    let dir = tree.path.clone();
    fs::create_dir_all(dir.join("root/sub")).expect("dirs");
    fs::create_dir_all(dir.join("outside/sub")).expect("dirs");
    fs::write(dir.join("root/sub/a.txt"), "in").expect("write");
    fs::write(dir.join("outside/sub/a.txt"), "out").expect("write");
    let root = dir.join("root").canonicalize().expect("canonical");
    let real = root.join("sub/a.txt");
    let opened = open_nonblocking(&real)
        .expect("opens")
        .metadata()
        .expect("fstat");
    assert!(still_names(&root, &real, &opened));
    assert!(still_names(
        &root,
        &root,
        &fs::metadata(&root).expect("stat")
    ));
    // The directory swapped for a link leading out: refused while the link is there...
    fs::rename(root.join("sub"), dir.join("kept")).expect("move away");
    std::os::unix::fs::symlink(dir.join("outside/sub"), root.join("sub")).expect("link");
    let outside = open_nonblocking(&real)
        .expect("opens")
        .metadata()
        .expect("fstat");
    assert!(!still_names(&root, &real, &outside));
    // ...and once swapped back, the file opened through it is not the one named.
    fs::remove_file(root.join("sub")).expect("unlink");
    fs::rename(dir.join("kept"), root.join("sub")).expect("move back");
    assert!(!still_names(&root, &real, &outside));
    assert!(still_names(&root, &real, &opened));
    assert!(!still_names(
        &root,
        &dir.join("outside/sub/a.txt"),
        &outside
    ));
}

#[test]
fn case_is_told_apart_where_the_volume_does() {
    let tree = TempTree::new("folds-case");
    let dir = tree.path.clone();
    fs::create_dir_all(&dir).expect("dir");
    fs::write(dir.join("Readme.md"), "x").expect("write");
    let flipped_exists = dir.join("README.MD").exists();
    assert_eq!(folds_case(&dir), flipped_exists);
    assert_eq!(flipped("Readme"), Some("README".into()));
    assert_eq!(flipped("ÉTÉ"), Some("été".into()));
    assert_eq!(flipped("123_"), None);
}
