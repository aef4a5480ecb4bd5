//! Small, valid media files built in code: a PNG image and a WAV sound.
//!
//! The suite only checks that `data` is non-empty base64 with the right MIME type, but real
//! clients may decode what they get, so these are complete files: a PNG with correct CRCs
//! and a zlib stream, a RIFF/WAVE file whose sizes add up.

/// A 1×1 PNG of one RGBA pixel (8 bits per channel, no interlacing).
pub(super) fn png_pixel(rgba: [u8; 4]) -> Vec<u8> {
    let mut png = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    // IHDR: width 1, height 1, bit depth 8, colour type 6 (RGBA), deflate, adaptive filters,
    // no interlace.
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&1u32.to_be_bytes());
    header.extend_from_slice(&1u32.to_be_bytes());
    header.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    // One scanline: filter type 0 (none), then the pixel.
    let scanline = [0, rgba[0], rgba[1], rgba[2], rgba[3]];
    chunk(&mut png, b"IDAT", &zlib_stored(&scanline));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// A mono 16-bit PCM WAV file: `millis` milliseconds of a triangle-wave tone at `hz`, 8 kHz.
///
/// A triangle rather than a sine, computed in integers: `f64::sin` was one of the two calls
/// that linked libm into the binary, and mapping libm costs the idle HTTP server about
/// 300 KiB of resident memory. Any valid audio does for the conformance suite.
pub(super) fn wav_tone(hz: u32, millis: u32) -> Vec<u8> {
    const RATE: u32 = 8000;
    let samples = RATE * millis / 1000;
    let data_len = samples * 2;
    let mut wav = Vec::with_capacity(44 + data_len as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVE");
    wav.extend_from_slice(b"fmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // size of the fmt chunk
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&(RATE * 2).to_le_bytes()); // bytes per second
    wav.extend_from_slice(&2u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    for i in 0..samples {
        // The phase within one period, in 1/65536ths; the triangle rises over the first half
        // and falls over the second, at a quarter of full scale.
        let phase = (u64::from(i) * u64::from(hz) * 65536 / u64::from(RATE)) % 65536;
        let rise = if phase < 32768 { phase } else { 65536 - phase };
        let sample = (rise as i32 * 2 - 32768) / 4;
        wav.extend_from_slice(&(sample as i16).to_le_bytes());
    }
    wav
}

/// Appends one PNG chunk: length, type, data, CRC-32 of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = crc32(&png[start..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream holding `data` in one uncompressed ("stored") deflate block.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let len = u16::try_from(data.len()).expect("one stored block holds at most 65535 bytes");
    let mut out = vec![0x78, 0x01, 0x01]; // deflate, 32K window; final stored block
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

/// CRC-32 (IEEE 802.3, reflected, as PNG uses it).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_published_values() {
        // The CRC every PNG ends with, and the example value from the Adler-32 article.
        assert_eq!(crc32(b"IEND"), 0xae42_6082);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn the_png_is_well_formed() {
        let png = png_pixel([255, 0, 0, 255]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // Walk the chunks, checking each CRC, and collect their types.
        let mut at = 8;
        let mut kinds = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().expect("4 bytes")) as usize;
            let body = &png[at + 4..at + 8 + len];
            let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().expect("4"));
            assert_eq!(crc32(body), crc);
            kinds.push(String::from_utf8_lossy(&body[..4]).into_owned());
            at += 12 + len;
        }
        assert_eq!(at, png.len());
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
        // IDAT's data ends with the scanline (filter byte, pixel) and its Adler-32.
        let idat_end = png.len() - 12 - 4;
        let scanline = &png[idat_end - 9..idat_end - 4];
        assert_eq!(scanline, &[0, 255, 0, 0, 255][..]);
        assert_eq!(
            &png[idat_end - 4..idat_end],
            &adler32(scanline).to_be_bytes()[..]
        );
    }

    #[test]
    fn the_wav_sizes_add_up() {
        let wav = wav_tone(440, 100);
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        let riff = u32::from_le_bytes(wav[4..8].try_into().expect("4 bytes")) as usize;
        assert_eq!(riff + 8, wav.len());
        let data = u32::from_le_bytes(wav[40..44].try_into().expect("4 bytes")) as usize;
        assert_eq!(data, 1600); // 800 samples of 2 bytes
        assert_eq!(44 + data, wav.len());
        let samples: Vec<i16> = wav[44..]
            .chunks(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(samples.iter().max(), Some(&8192), "a quarter of full scale");
        assert_eq!(samples.iter().min(), Some(&-8192));
        // 440 Hz for 100 ms: 44 periods, each with one rising zero crossing.
        let rising = samples.windows(2).filter(|w| w[0] < 0 && w[1] >= 0).count();
        assert_eq!(rising, 44);
    }
}
