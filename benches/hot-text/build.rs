//! Release builds for x86_64 Linux (glibc) link the code that startup and a first request
//! run into one contiguous `.text.hot` section, listed in `benches/hot-text/hot-text.ld`.
//!
//! Why: an idle server's resident memory is mostly mapped code, and the kernel maps code in
//! 64 KiB fault-around windows. Scattered through the 1.4 MiB of `.text`, the ~300 KiB the
//! server runs touched 20 of its 23 windows; packed together they touch 6, which takes
//! about 800 KiB off the idle RSS of `serve --http` (benches/README.md, "Idle memory").
//!
//! Only that target: there rustc links with its bundled lld, which (like GNU ld) accepts a
//! script that only adds a section (`INSERT BEFORE .text`). A linker that takes no scripts
//! (mold) can be used by setting `MINIMCP_HOT_TEXT=0`, which links the default layout.
//! Nothing else changes: the script only moves whole functions, never what they do.

//! It also stamps the binary with the commit it was built from, for `minimcp --version`
//! (`MINIMCP_COMMIT`): see [`commit`].

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    let commit = commit();
    println!("cargo:rustc-env=MINIMCP_COMMIT={commit}");
    println!("cargo:rerun-if-changed=benches/hot-text/hot-text.ld");
    println!("cargo:rerun-if-env-changed=MINIMCP_HOT_TEXT");
    let is = |key: &str, value: &str| env::var(key).is_ok_and(|v| v == value);
    let wanted = is("PROFILE", "release")
        && is("CARGO_CFG_TARGET_ARCH", "x86_64")
        && is("CARGO_CFG_TARGET_OS", "linux")
        && is("CARGO_CFG_TARGET_ENV", "gnu")
        && !is("MINIMCP_HOT_TEXT", "0");
    if let (true, Ok(dir)) = (wanted, env::var("CARGO_MANIFEST_DIR")) {
        // -Xlinker passes the path as one argument, whatever characters it holds.
        for arg in [
            "-Xlinker",
            "-T",
            "-Xlinker",
            &format!("{dir}/benches/hot-text/hot-text.ld"),
        ] {
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
}

/// The commit this source is: `MINIMCP_COMMIT` if the builder sets it (a packager building
/// from a tarball); else the one `cargo package` recorded in `.cargo_vcs_info.json` (a crate
/// from a registry); else `git rev-parse HEAD` when this directory is itself a git checkout
/// (never a repository around a vendored copy); else `unknown`. The same commit gives the
/// same bytes wherever it is checked out, so the reproducible build is unchanged.
fn commit() -> String {
    println!("cargo:rerun-if-env-changed=MINIMCP_COMMIT");
    if let Some(given) = env::var("MINIMCP_COMMIT").ok().filter(|c| !c.is_empty()) {
        return given;
    }
    let dir = env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let dir = Path::new(&dir);
    if let Ok(info) = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")) {
        // {"git": {"sha1": "…"}, …}: the first 40 hex digits after "sha1".
        let sha = info.split("\"sha1\"").nth(1).and_then(|rest| {
            let start = rest.find(|c: char| c.is_ascii_hexdigit())?;
            let hex: String = rest[start..]
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .collect();
            (hex.len() == 40).then_some(hex)
        });
        if let Some(sha) = sha {
            return sha;
        }
    }
    if dir.join(".git").exists() {
        let git = |args: &[&str]| -> Option<String> {
            let out = Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(args)
                .output()
                .ok()?;
            let text = String::from_utf8(out.stdout).ok()?;
            out.status.success().then(|| text.trim().to_string())
        };
        if let Some(head) = git(&["rev-parse", "HEAD"]).filter(|h| h.len() == 40) {
            // Built again when HEAD moves: HEAD itself, the branch it names, packed refs.
            let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
            watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
            for name in watched {
                // A path that does not exist would make Cargo run this script every time.
                let path = git(&["rev-parse", "--path-format=absolute", "--git-path", &name]);
                if let Some(path) = path.filter(|p| Path::new(p).exists()) {
                    println!("cargo:rerun-if-changed={path}");
                }
            }
            return head;
        }
    }
    "unknown".into()
}
