//! The pixel size of an image a message carries, read from the first bytes of its file (PNG, JPEG, GIF,
//! WebP), so that a profile can cost the image as its provider does (by tiles or by area) instead of at
//! one flat price: OpenAI bills a 1920×1080 screenshot 1 105 tokens and a 300×200 icon 255, Anthropic a
//! 200×200 image 54 tokens and a large one about 1 600. Only the header is decoded, never the pixels,
//! and only the bytes it needs: a JPEG's size can sit after kilobytes of metadata, so base64 text is
//! decoded at the offsets the header points to rather than from the start.

use super::base64::sextet;

/// An image's width and height in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageSize {
    pub width: u32,
    pub height: u32,
}

/// The size of the image in `data`, the text a message holds for it: a `data:` URL with base64 content,
/// bare base64 (Anthropic, Gemini, the AI SDK), or the stand-in `binary_stand_in` wrote for binary
/// data. None for a URL, a file id, or bytes that are not one of the four formats.
pub fn size_of(data: &str) -> Option<ImageSize> {
    if let Some(rest) = data.strip_prefix(STAND_IN) {
        return stand_in_size(rest);
    }
    let base64 = match data.strip_prefix("data:") {
        Some(url) => {
            let (meta, payload) = url.split_once(',')?;
            meta.ends_with(";base64").then_some(payload)?
        }
        None => data,
    };
    size_of_bytes(&Base64(base64.as_bytes()))
}

/// The text that stands for binary data in what ctxfold reads (see src/wasm/binary.rs): its length, a
/// hash of its bytes (so that a plan's fingerprint changes when the bytes do) and, for an image, its size.
pub fn binary_stand_in(bytes: &[u8]) -> String {
    let mut text = format!("{STAND_IN}{} bytes, hash {}", bytes.len(), fnv1a(bytes));
    if let Some(size) = size_of_bytes(&bytes) {
        text += &format!(", image {}x{}", size.width, size.height);
    }
    text + "]"
}

const STAND_IN: &str = "[binary data: ";

fn stand_in_size(rest: &str) -> Option<ImageSize> {
    let (width, height) = rest.split_once(", image ")?.1.strip_suffix(']')?.split_once('x')?;
    Some(ImageSize { width: width.parse().ok()?, height: height.parse().ok()? })
}

/// 32-bit FNV-1a: small, and enough to tell one image's bytes from another's.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

/// Bytes read one at a time, wherever they are: raw, or decoded from base64 on demand.
trait Bytes {
    fn at(&self, i: usize) -> Option<u8>;

    fn u16_be(&self, i: usize) -> Option<u32> {
        Some(u32::from(self.at(i)?) << 8 | u32::from(self.at(i + 1)?))
    }
    fn u16_le(&self, i: usize) -> Option<u32> {
        Some(u32::from(self.at(i + 1)?) << 8 | u32::from(self.at(i)?))
    }
    fn u24_le(&self, i: usize) -> Option<u32> {
        Some(u32::from(self.at(i + 2)?) << 16 | self.u16_le(i)?)
    }
    fn u32_be(&self, i: usize) -> Option<u32> {
        Some(self.u16_be(i)? << 16 | self.u16_be(i + 2)?)
    }
    fn starts_with(&self, at: usize, tag: &[u8]) -> bool {
        (0..tag.len()).all(|k| self.at(at + k) == Some(tag[k]))
    }
}

impl Bytes for &[u8] {
    fn at(&self, i: usize) -> Option<u8> {
        self.get(i).copied()
    }
}

/// Base64 text (standard or URL-safe alphabet, no line breaks), decoded a byte at a time: byte `i` is in
/// the four characters at `4 * (i / 3)`.
struct Base64<'a>(&'a [u8]);

impl Bytes for Base64<'_> {
    fn at(&self, i: usize) -> Option<u8> {
        let group = self.0.get(4 * (i / 3)..)?;
        let sextet = |k: usize| group.get(k).and_then(|&c| sextet(c));
        Some(match i % 3 {
            0 => sextet(0)? << 2 | sextet(1)? >> 4,
            1 => sextet(1)? << 4 | sextet(2)? >> 2,
            _ => sextet(2)? << 6 | sextet(3)?,
        })
    }
}

fn size_of_bytes(b: &dyn Bytes) -> Option<ImageSize> {
    let size = |width, height| (width > 0 && height > 0).then_some(ImageSize { width, height });
    if b.starts_with(0, b"\x89PNG\r\n\x1a\n") {
        // The IHDR chunk comes first: its width and height follow its length and name.
        return size(b.u32_be(16)?, b.u32_be(20)?);
    }
    if b.starts_with(0, b"GIF8") {
        return size(b.u16_le(6)?, b.u16_le(8)?);
    }
    if b.starts_with(0, b"RIFF") && b.starts_with(8, b"WEBP") {
        return if b.starts_with(12, b"VP8X") {
            size(b.u24_le(24)? + 1, b.u24_le(27)? + 1)
        } else if b.starts_with(12, b"VP8L") {
            // After the signature byte: 14 bits of width − 1, then 14 bits of height − 1.
            let bits = b.u16_le(21)? | b.u16_le(23)? << 16;
            size((bits & 0x3fff) + 1, (bits >> 14 & 0x3fff) + 1)
        } else if b.starts_with(12, b"VP8 ") {
            size(b.u16_le(26)? & 0x3fff, b.u16_le(28)? & 0x3fff)
        } else {
            None
        };
    }
    if b.starts_with(0, b"\xff\xd8") {
        return jpeg_size(b);
    }
    None
}

/// Segments are walked by their lengths up to the frame header (SOFn), which holds the size.
fn jpeg_size(b: &dyn Bytes) -> Option<ImageSize> {
    let mut at = 2;
    // Real files reach the frame header within a few segments; the bound keeps a crafted one cheap.
    for _ in 0..256 {
        if b.at(at)? != 0xff {
            return None;
        }
        let marker = b.at(at + 1)?;
        match marker {
            // Fill bytes before a marker.
            0xff => at += 1,
            // Markers without a length.
            0x01 | 0xd0..=0xd7 => at += 2,
            // Frame headers (not DHT c4, JPG c8, DAC cc): precision, then height and width.
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                let (height, width) = (b.u16_be(at + 5)?, b.u16_be(at + 7)?);
                return (width > 0 && height > 0).then_some(ImageSize { width, height });
            }
            _ => at += 2 + b.u16_be(at + 2)? as usize,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{base64, png_base64};

    // Made by Chromium's encoders (canvas.toDataURL): a 3×2 PNG; a 3×2 JPEG whose frame header comes
    // after an ICC profile of 472 bytes; 3×2 lossy and 5×7 lossless WebP, both in the extended (VP8X)
    // layout because of their ICC profiles.
    const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAIUlEQVR4AWJKK9/9f2Zo+f8zxsb/mdL2VDAY39vDAAIAAAAA//+qkIfwAAAABklEQVQDAKl6CpjbXCObAAAAAElFTkSuQmCC";
    const JPEG: &str = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAACAAMDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAXEAEBAQEAAAAAAAAAAAAAAAABAAJB/8QAFQEBAQAAAAAAAAAAAAAAAAAABQf/xAAaEQACAgMAAAAAAAAAAAAAAAAAAQNxAjIz/9oADAMBAAIRAxEAPwCW0uldKr1kkLLu7KlBzxpH/9k=";
    const WEBP: &str = "data:image/webp;base64,UklGRioCAABXRUJQVlA4WAoAAAAgAAAAAgAAAQAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDggPAAAALABAJ0BKgMAAgABQCYlqAJ0ugAEZoAA/u8BGd7MYf2zQpW2BLIk0Sdv/2YyIvt3/sHH/Q6OS9u/paAAAA==";
    const WEBP_LOSSLESS: &str = "data:image/webp;base64,UklGRiwCAABXRUJQVlA4WAoAAAAgAAAABAAABgAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDhMPQAAAC8EgAEAJ0CQbeOPMKip7McRCJCpDjZsIMi28VeY23aUz3/QO2ZCd6CQkSTmGsmbNH+sZ4jof6CDTm3ungAA";

    fn decoded(data_url: &str) -> Vec<u8> {
        let b = Base64(data_url.split_once(',').unwrap().1.as_bytes());
        (0..).map_while(|i| b.at(i)).collect()
    }

    /// The simple (not extended) WebP layout: RIFF, then only the image chunk named `chunk`, cut from `webp`.
    fn simple_webp(webp: &str, chunk: &[u8; 4]) -> String {
        let bytes = decoded(webp);
        let at = bytes.windows(4).position(|w| w == chunk).unwrap();
        let mut out = b"RIFF\0\0\0\0WEBP".to_vec();
        out.extend(&bytes[at..]);
        base64(&out)
    }

    fn size(width: u32, height: u32) -> Option<ImageSize> {
        Some(ImageSize { width, height })
    }

    #[test]
    fn reads_the_size_from_each_format_as_encoders_write_it() {
        assert_eq!(size_of(PNG), size(3, 2));
        assert_eq!(size_of(JPEG), size(3, 2));
        assert_eq!(size_of(WEBP), size(3, 2));
        assert_eq!(size_of(WEBP_LOSSLESS), size(5, 7));
        assert_eq!(size_of(&simple_webp(WEBP, b"VP8 ")), size(3, 2));
        assert_eq!(size_of(&simple_webp(WEBP_LOSSLESS, b"VP8L")), size(5, 7));
        assert_eq!(size_of(&base64(b"GIF89a\x80\x02\xe0\x01\xf7\0\0")), size(640, 480));
        // Bare base64, as Anthropic, Gemini and the AI SDK hold it; URL-safe base64 too.
        assert_eq!(size_of(&png_base64(1920, 1080)), size(1920, 1080));
        assert_eq!(size_of(&JPEG[23..].replace('/', "_").replace('+', "-")), size(3, 2));
    }

    #[test]
    fn anything_else_has_no_size() {
        for data in [
            "https://example.com/cat.png",
            "file-abc123",
            "",
            "data:,",
            "data:image/png,%89PNG",
            "JVBERi0xLjQK",                                             // a PDF
            "iVBORw0KGgo=",                                             // a PNG signature without its header
            &PNG[..40],                                                 // cut inside the header
            &base64(&[0xff, 0xd8, 0xff, 0xe0, 0, 2, 0xff, 0xe1, 0, 2]), // a JPEG that ends before its frame
            &base64(&[0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]),             // a JPEG whose segments lead nowhere
            &png_base64(0, 1080),
        ] {
            assert_eq!(size_of(data), None, "{data}");
        }
        // A crafted JPEG that is all segments: given up after a bounded walk.
        let mut endless = vec![0xff, 0xd8];
        for _ in 0..1000 {
            endless.extend([0xff, 0xfe, 0, 2]);
        }
        assert_eq!(size_of(&base64(&endless)), None);
    }

    #[test]
    fn a_binary_stand_in_carries_the_size_and_tells_bytes_apart() {
        let png = decoded(PNG);
        let text = binary_stand_in(&png);
        assert!(text.starts_with(&format!("[binary data: {} bytes, hash ", png.len())), "{text}");
        assert_eq!(size_of(&text), size(3, 2));
        let mut other = png.clone();
        *other.last_mut().unwrap() ^= 1;
        assert_ne!(binary_stand_in(&other), text);
        let pdf = binary_stand_in(b"%PDF-1.4");
        assert!(!pdf.contains("image"), "{pdf}");
        assert_eq!(size_of(&pdf), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, failure_persistence: None, ..Default::default() })]
        /// Whatever a part holds, reading it never panics (a panic would kill the wasm instance).
        #[test]
        fn any_bytes_or_text_reads_without_panicking(head in 0usize..5, tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64), text in ".{0,80}") {
            let starts: [&[u8]; 5] = [b"\x89PNG\r\n\x1a\n", b"GIF89a", b"RIFF\0\0\0\0WEBPVP8X", b"\xff\xd8", b""];
            let bytes = [starts[head], &tail].concat();
            let _ = size_of(&base64(&bytes));
            let _ = size_of(&text);
            let _ = binary_stand_in(&bytes);
        }
    }
}
