//! Reading what the host passed: the request body or message array (`input`), the five provider
//! formats, the size of an image from its bytes (`image`), and the one view of a message that every
//! operation works on (`message`).

pub mod base64;
pub mod format;
pub mod image;
pub mod input;
pub mod message;
