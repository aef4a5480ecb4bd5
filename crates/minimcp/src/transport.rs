//! What a transport needs from the library to serve sessions over its own I/O: the
//! [`Session`] it hands each parsed unit to, the [`Port`] it implements for the session to
//! write through, and the protocol facts it routes by (a request's era, the parameter a
//! 2026-07-28 request repeats in a header, the error codes). stdio and Streamable HTTP use
//! only this module (and the library's public items) to reach the session, so a third
//! transport needs nothing more.

pub use crate::error::code;
pub use crate::jsonrpc::{parse, Unit};
pub use crate::protocol::{meta, request_meta, Era, Method};
pub use crate::session::port::SESSION;
pub use crate::session::{Origin, Polled, Port, Session};
