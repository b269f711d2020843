//! The user's files: read bounded and as text where text is meant, written
//! whole or not at all, and never in place of something else.
//!
//! A path may name anything: `/dev/zero` never ends, a bytecode blob is not
//! text. Reading stops at a size limit with an error that names it, and a
//! file that is not UTF-8 is an error naming the line where it stops being
//! text.
//!
//! Every file sandtable writes for the user (`:save`, `:transcript`, `:map
//! --svg`, `run --log`, `--plot`, `--coverage-out`, the session journal)
//! goes through [`writable`], and all but the journal through [`write`]:
//! a symbolic link is written through to the file it names (the link stays),
//! anything but a regular file or a new path (a folder, a FIFO, a device, a
//! socket) is refused, a read-only file is refused rather than replaced, and
//! a file written over keeps its permissions and owner. The check and the
//! write are two steps: a file swapped for a FIFO in between is not caught.
//! The files `sandtable new` makes go through [`create`], which never writes
//! over anything at all.

use std::fs::Metadata;
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};

/// The largest text file read whole (a script, a module, a scenario): far
/// beyond any real one, small enough to refuse `/dev/zero` at once.
pub const TEXT_LIMIT: u64 = 64 << 20;

/// Reads a whole file of at most `limit` bytes (an endless one is an error
/// at the limit). Errors read as the rest of "cannot read FILE: ...".
pub fn read_bytes(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("longer than the {} a text file may be (is it the file you meant?)", size(limit)),
        ));
    }
    Ok(bytes)
}

/// Reads a whole UTF-8 text file of at most `limit` bytes. Errors read as
/// the rest of "cannot read FILE: ...".
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    let bytes = read_bytes(path, limit)?;
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

/// Opens a file for reading when it is a regular file (after its symbolic
/// links): a FIFO would wait for a writer forever, a device never end.
pub fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    let m = std::fs::metadata(path)?;
    if !m.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("it is {}, not a regular file", kind(&m))));
    }
    std::fs::File::open(path)
}

/// The longest line read from a file read line by line (a session
/// journal): far beyond any input typed or pasted, small enough that an
/// endless line (`/dev/zero`) is an error at once.
pub const LINE_LIMIT: usize = 16 << 20;

/// One line read by [`lines`].
#[derive(Debug)]
pub struct Line {
    /// From 1.
    pub number: usize,
    /// Without its line end.
    pub text: String,
    /// Whether it ended with a line feed (the last line of a file cut short does not).
    pub ended: bool,
}

/// The lines of `reader`, each at most `limit` bytes and UTF-8: an endless
/// or overlong line is an error naming its number, never an allocation of
/// all there is. After an error the lines end.
pub fn lines<R: BufRead>(reader: R, limit: usize) -> Lines<R> {
    Lines { reader, limit, number: 0, stopped: false }
}

/// See [`lines`].
pub struct Lines<R> {
    reader: R,
    limit: usize,
    number: usize,
    stopped: bool,
}

impl<R> Lines<R> {
    /// The number of the line last read (or refused), from 1; 0 before any.
    pub fn line_number(&self) -> usize {
        self.number
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<io::Result<Line>> {
        if self.stopped {
            return None;
        }
        let mut buf = Vec::new();
        let read = (&mut self.reader).take(self.limit as u64 + 1).read_until(b'\n', &mut buf);
        let number = self.number + 1;
        let line = match read {
            Ok(0) => return None,
            Ok(_) => {
                let ended = buf.last() == Some(&b'\n');
                if ended {
                    buf.pop();
                }
                if buf.len() > self.limit {
                    Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("line {number} is longer than the {} a line may be", size(self.limit as u64)),
                    ))
                } else {
                    String::from_utf8(buf).map(|text| Line { number, text, ended }).map_err(|e| {
                        let column = e.utf8_error().valid_up_to() + 1;
                        io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("not text: line {number}, column {column} is not UTF-8"),
                        )
                    })
                }
            }
            Err(e) => Err(e),
        };
        self.number = number;
        self.stopped = line.is_err();
        Some(line)
    }
}

/// How many symbolic links a path may go through (Linux's own limit).
const MAX_LINKS: usize = 40;

/// The file `path` names after its symbolic links (each relative link read
/// from its own folder), and what is there now: `None` for nothing yet (a
/// dangling link names the file it would create).
fn resolve(path: &Path) -> io::Result<(PathBuf, Option<Metadata>)> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = p.parent().map_or_else(|| to.clone(), |dir| dir.join(&to));
            }
            Ok(m) => return Ok((p, Some(m))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((p, None)),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!("more than {MAX_LINKS} symbolic links in a row (a loop?)")))
}

/// What a file that is not a regular file is, in words.
fn kind(m: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        } else if t.is_char_device() || t.is_block_device() {
            return "a device";
        } else if t.is_socket() {
            return "a socket";
        }
    }
    if m.is_dir() {
        "a folder"
    } else if m.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// The file to write for `path`, checked: through its symbolic links, a
/// regular file this process may write, or a new file in a folder that
/// exists. Errors read as the rest of "cannot write PATH: ...".
pub fn writable(path: &Path) -> io::Result<PathBuf> {
    let (target, meta) = resolve(path)?;
    let it = if target == path { "it".to_string() } else { format!("{}, where it links,", target.display()) };
    let refuse = |kind: io::ErrorKind, why: String| Err(io::Error::new(kind, why));
    match meta {
        None => {
            let dir = match target.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            if !dir.is_dir() {
                return refuse(io::ErrorKind::NotFound, format!("there is no folder {}", dir.display()));
            }
        }
        Some(m) if !m.is_file() => {
            return refuse(
                io::ErrorKind::InvalidInput,
                format!("{it} is {}, not a regular file: sandtable writes only regular files", kind(&m)),
            );
        }
        Some(m) => {
            let writable =
                !m.permissions().readonly() && std::fs::OpenOptions::new().append(true).open(&target).map(drop).is_ok();
            if !writable {
                return refuse(
                    io::ErrorKind::PermissionDenied,
                    format!("{it} is read-only: it is left as it is (make it writable to replace it, or choose another name)"),
                );
            }
        }
    }
    Ok(target)
}

/// Writes `bytes` to the file `path` names, whole or not at all (checked by
/// [`writable`]): into a temporary file beside it, flushed to disk, then
/// renamed over it (`atomic-write-file`, which keeps the permissions and
/// owner of a file written over). On any failure what was there is as it was.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = writable(path)?;
    let mut file = atomic_write_file::AtomicWriteFile::open(&target)?;
    file.write_all(bytes)?;
    file.commit()
}

/// Writes `bytes` to a new file at `path`, never over anything: a file, a
/// folder or a symbolic link (even one naming nothing) already there is
/// refused, checked and created in one step (`create_new`, which does not
/// follow links), so nothing that appears meanwhile is replaced. The file is
/// flushed to disk; on a failure the part written is removed. Errors read as
/// the rest of "cannot write PATH: ...".
pub fn create(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            io::Error::new(e.kind(), "something is already there: it is left as it is")
        } else {
            e
        }
    })?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if written.is_err() {
        drop(file);
        let _ = std::fs::remove_file(path);
    }
    written
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
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn writes_a_new_file_and_replaces_a_regular_one_keeping_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("save.yaml");
        write(&p, b"first").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"first");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write(&p, b"second").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        assert_eq!(mode(&p), 0o600, "a private file stays private");
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn writes_through_a_symlink_and_a_dangling_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("real")).unwrap();
        std::fs::write(d.join("real/target.yaml"), "old").unwrap();
        std::fs::set_permissions(d.join("real/target.yaml"), std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink("real/target.yaml", d.join("link.yaml")).unwrap();
        std::os::unix::fs::symlink("link.yaml", d.join("chain.yaml")).unwrap();
        write(&d.join("chain.yaml"), b"new").unwrap();
        assert!(std::fs::symlink_metadata(d.join("link.yaml")).unwrap().file_type().is_symlink());
        assert!(std::fs::symlink_metadata(d.join("chain.yaml")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(d.join("real/target.yaml")).unwrap(), b"new");
        assert_eq!(mode(&d.join("real/target.yaml")), 0o640);
        // A dangling link: the file it names is made, the link stays.
        std::os::unix::fs::symlink("real/made.yaml", d.join("dangling.yaml")).unwrap();
        write(&d.join("dangling.yaml"), b"made").unwrap();
        assert!(std::fs::symlink_metadata(d.join("dangling.yaml")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(d.join("real/made.yaml")).unwrap(), b"made");
        // A loop is an error, not a hang.
        std::os::unix::fs::symlink("loop_b", d.join("loop_a")).unwrap();
        std::os::unix::fs::symlink("loop_a", d.join("loop_b")).unwrap();
        assert!(write(&d.join("loop_a"), b"x").unwrap_err().to_string().contains("a loop?"));
    }

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let fifo = d.join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let e = write(&fifo, b"x").unwrap_err().to_string();
        assert!(e.contains("it is a FIFO (named pipe), not a regular file"), "{e}");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        let e = write(Path::new("/dev/null"), b"x").unwrap_err().to_string();
        assert!(e.contains("it is a device, not a regular file"), "{e}");
        std::os::unix::fs::symlink("/dev/null", d.join("null")).unwrap();
        let e = write(&d.join("null"), b"x").unwrap_err().to_string();
        assert!(e.starts_with("/dev/null, where it links, is a device"), "{e}");
        let e = write(d, b"x").unwrap_err().to_string();
        assert!(e.contains("it is a folder"), "{e}");
        let e = write(&d.join("no/such/folder/x.yaml"), b"x").unwrap_err().to_string();
        assert!(e.contains("there is no folder"), "{e}");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn refuses_a_read_only_file_and_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kept.yaml");
        std::fs::write(&p, "mine").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = write(&p, b"theirs").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert!(e.to_string().contains("it is read-only"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"mine");
        assert_eq!(mode(&p), 0o444);
    }

    #[test]
    fn lines_are_bounded_and_say_where() {
        let text = "one\ntwo\nthree";
        let got: Vec<Line> = lines(text.as_bytes(), 10).map(Result::unwrap).collect();
        assert_eq!(
            got.iter().map(|l| (l.number, l.text.as_str(), l.ended)).collect::<Vec<_>>(),
            [(1, "one", true), (2, "two", true), (3, "three", false)]
        );
        let mut long = lines("short\n0123456789A\nafter\n".as_bytes(), 10);
        assert_eq!(long.next().unwrap().unwrap().text, "short");
        let e = long.next().unwrap().unwrap_err();
        assert!(e.to_string().contains("line 2 is longer than the 10 bytes"), "{e}");
        assert!(long.next().is_none(), "the lines end at an error");
        let e = lines(&b"ok\nbad \xff\n"[..], 10).nth(1).unwrap().unwrap_err();
        assert_eq!(e.to_string(), "not text: line 2, column 5 is not UTF-8");
        // An endless file is cut at the limit.
        let zero = std::io::BufReader::new(std::fs::File::open("/dev/zero").unwrap());
        assert!(lines(zero, 1 << 20).next().unwrap().is_err());
    }

    #[test]
    fn reads_only_regular_files() {
        let e = open_regular(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.to_string(), "it is a device, not a regular file");
        assert!(open_regular(Path::new("/")).unwrap_err().to_string().contains("a folder"));
    }

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
