//! Reading the user's files: bounded, and text only where text is meant.
//!
//! A path may name anything: `/dev/zero` never ends, a bytecode blob is not
//! text. Reading stops at a size limit with an error that names it, and a
//! file that is not UTF-8 is an error naming the line where it stops being
//! text.

use std::io::Read;
use std::path::Path;

/// The largest text file read whole (a script, a module, a scenario): far
/// beyond any real one, small enough to refuse `/dev/zero` at once.
pub const TEXT_LIMIT: u64 = 64 << 20;

/// Reads a whole UTF-8 text file of at most `limit` bytes. Errors read as
/// the rest of "cannot read FILE: ...".
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("longer than the {} a text file may be (is it the file you meant?)", size(limit)),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at - bytes[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not text: line {line}, column {column} (byte {at}) is not UTF-8"),
        )
    })
}

/// A byte count in words: `64 MiB`, `1 KiB`, `10 bytes`.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_and_names_where_it_stops_being_text() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.lua");
        std::fs::write(&p, "x = 1\ny = 2\n").unwrap();
        assert_eq!(read_text(&p, TEXT_LIMIT).unwrap(), "x = 1\ny = 2\n");
        std::fs::write(&p, b"x = 1\ny = \xff\n").unwrap();
        let e = read_text(&p, TEXT_LIMIT).unwrap_err();
        assert_eq!(e.to_string(), "not text: line 2, column 5 (byte 10) is not UTF-8");
    }

    #[test]
    fn an_endless_file_stops_at_the_limit() {
        let e = read_text(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("1 MiB"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ten");
        std::fs::write(&p, "0123456789").unwrap();
        assert!(read_text(&p, 10).is_ok());
        assert!(read_text(&p, 9).unwrap_err().to_string().contains("9 bytes"));
    }
}
