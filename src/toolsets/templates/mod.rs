//! The templates toolset: project files (Makefiles, READMEs, .gitignore files…) embedded in
//! the binary, offered as tools and as `template://{category}/{toolchain}/{variant}`
//! resources.

use crate::Builder;

/// Adds the templates toolset: the entry of [`super::TOOLSETS`].
pub fn add(builder: Builder, _options: &super::Options) -> Builder {
    builder
}
