//! MIME types by file extension (or well-known file name), for resources and binary reads.
//! Unknown names get no type in listings; once read, text is `text/plain` and anything
//! else `application/octet-stream`.

/// The MIME type for a file name, when its extension (or whole name) is known.
pub(crate) fn by_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "makefile" | "dockerfile" | "license" | "licence" | "readme" | "changelog" | "authors"
        | "codeowners" | ".gitignore" | ".gitattributes" | ".editorconfig" => {
            return Some("text/plain")
        }
        _ => {}
    }
    let (_, ext) = lower.rsplit_once('.')?;
    Some(match ext {
        "rs" => "text/x-rust",
        "toml" => "application/toml",
        "md" | "markdown" => "text/markdown",
        "txt" | "text" | "log" | "lock" | "cfg" | "ini" | "conf" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "xml" => "application/xml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "tsx" | "mts" | "cts" => "text/x-typescript",
        "jsx" => "text/javascript",
        "py" | "pyi" => "text/x-python",
        "rb" => "text/x-ruby",
        "go" => "text/x-go",
        "java" => "text/x-java",
        "kt" | "kts" => "text/x-kotlin",
        "c" | "h" => "text/x-c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "text/x-c++",
        "cs" => "text/x-csharp",
        "swift" => "text/x-swift",
        "sh" | "bash" | "zsh" => "application/x-sh",
        "sql" => "application/sql",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/vnd.microsoft.icon",
        "bmp" => "image/bmp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "wasm" => "application/wasm",
        "wav" => "audio/wav",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        _ => return None,
    })
}

/// The MIME type to report for contents already read: by name, else by what they are.
pub(crate) fn for_contents(name: &str, is_text: bool) -> &'static str {
    match by_name(name) {
        Some(known) => known,
        None if is_text => "text/plain",
        None => "application/octet-stream",
    }
}

/// The image type the first bytes announce (png, jpeg, gif, webp: what models accept as
/// `image` content), whatever the file's name says.
pub(crate) fn image_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_and_names() {
        assert_eq!(by_name("main.rs"), Some("text/x-rust"));
        assert_eq!(by_name("Cargo.TOML"), Some("application/toml"));
        assert_eq!(by_name("logo.png"), Some("image/png"));
        assert_eq!(by_name("Makefile"), Some("text/plain"));
        assert_eq!(by_name("archive.tar.gz"), Some("application/gzip"));
        assert_eq!(by_name("noext"), None);
        assert_eq!(by_name("weird.xyz"), None);
        assert_eq!(for_contents("noext", true), "text/plain");
        assert_eq!(for_contents("blob.bin", false), "application/octet-stream");
        assert_eq!(for_contents("a.md", false), "text/markdown");
    }

    #[test]
    fn images_by_signature() {
        assert_eq!(image_type(b"\x89PNG\r\n\x1a\n\0\0"), Some("image/png"));
        assert_eq!(image_type(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(image_type(b"GIF89a.."), Some("image/gif"));
        assert_eq!(image_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_type(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(image_type(b"<svg"), None);
    }
}
