//! Release builds for x86_64 Linux (glibc) link the code that startup and a first request
//! run into one contiguous `.text.hot` section, listed in `benches/hot-text/hot-text.ld`.
//!
//! Why: an idle server's resident memory is mostly mapped code, and the kernel maps code in
//! 64 KiB fault-around windows. Scattered through the 1.4 MiB of `.text`, the ~300 KiB the
//! server runs touched 20 of its 23 windows; packed together they touch 6, which takes
//! about 800 KiB off the idle RSS of `serve --http` (README, "Performance").
//!
//! Only that target: there rustc links with its bundled lld, which (like GNU ld) accepts a
//! script that only adds a section (`INSERT BEFORE .text`). A linker that takes no scripts
//! (mold) can be used by setting `MINIMCP_HOT_TEXT=0`, which links the default layout.
//! Nothing else changes: the script only moves whole functions, never what they do.

use std::env;

fn main() {
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
