//! FASTA reading: takes a FASTA or gzipped FASTA file, returns its records as
//! residue codes.
//!
//! Parsing is needletail's (`needletail::parser::FastaReader`); this module
//! adds what warpsw needs on top (docs/design.md §4):
//!
//! * **gzip** is recognised by its magic bytes (`1f 8b`), whatever the file's
//!   name, and decompressed with flate2's `MultiGzDecoder` (concatenated
//!   members, as `bgzip` and `cat a.gz b.gz` write, are read in full). The
//!   module decompresses itself rather than through needletail's sniffing so
//!   that a truncated or corrupt stream becomes a clear
//!   [`FastaErrorKind::Parse`] instead of a bare I/O message.
//! * **FASTA only:** the (decompressed) text must start with `>` (after a
//!   UTF-8 byte-order mark, which is skipped); FASTQ (`@`) and anything else
//!   (a blank line included) is [`FastaErrorKind::NotFasta`].
//! * **`-`** as the path reads standard input.
//! * **Residues** are encoded by [`crate::alphabet::encode`]: the 20 amino
//!   acids, `B Z X *`, `U O J` (scored as `X`), any case. Line ends (`\n` or
//!   `\r\n`), blank lines, spaces and tabs inside a sequence are skipped, as
//!   BLAST and SSEARCH do; anything else is [`FastaErrorKind::BadResidue`]
//!   with the record, the 1-based line in the file and the 1-based column.
//!   A sequence longer than [`MAX_SEQUENCE_LENGTH`] is
//!   [`FastaErrorKind::TooLong`].
//! * **Headers:** the id is the header up to the first whitespace (leading
//!   whitespace after `>` is skipped), the description the rest, trimmed.
//!   An empty id (a bare `>` line) is [`FastaErrorKind::EmptyId`].
//!   Headers are decoded as UTF-8, invalid bytes becoming U+FFFD; control
//!   characters (ESC, NUL, ...) are escaped as `\xHH` / `\u{...}`, so that
//!   no message or output echoes them to a terminal.
//!   [`duplicate_id`] finds ids used twice (callers warn or refuse).
//!
//! Every error is an [`Error::Fasta`] naming the file and, where it applies,
//! the record and line, except a file that cannot be opened or read, which
//! is [`Error::Io`]. Nothing here panics on any input.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;
use needletail::errors::{ParseError, ParseErrorKind};
use needletail::parser::{FastaReader, FastxReader, SequenceRecord};

use crate::alphabet::encode;
use crate::error::{Error, FastaErrorKind, Result};

/// One FASTA record, its sequence encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The header up to its first whitespace (without the `>`).
    pub id: String,
    /// The rest of the header after the id, trimmed; may be empty.
    pub description: String,
    /// Residue codes of [`crate::alphabet`], never empty.
    pub codes: Vec<u8>,
}

/// Reads every record of a FASTA or gzipped FASTA file.
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or read; [`Error::Fasta`]
/// otherwise, as [`read_fasta_from`] lists.
pub fn read_fasta(path: &Path) -> Result<Vec<Record>> {
    if path.as_os_str() == "-" {
        return read_fasta_from(io::stdin(), Path::new("standard input"));
    }
    let file = File::open(path).map_err(|reason| Error::Io {
        path: path.to_path_buf(),
        reason,
    })?;
    read_fasta_from(file, path)
}

/// Reads every record of FASTA or gzipped FASTA text from `reader`;
/// `path_for_errors` names the input in errors.
///
/// ```
/// use std::path::Path;
/// let text = b">sp|P1|A1 Example protein\nMKV\nlaU*\n>q2\nWW\n";
/// let records = host::fasta::read_fasta_from(&text[..], Path::new("x.fa")).unwrap();
/// assert_eq!(records[0].id, "sp|P1|A1");
/// assert_eq!(records[0].description, "Example protein");
/// assert_eq!(host::alphabet::decode_all(&records[0].codes), "MKVLAX*");
/// assert_eq!(records[1].codes.len(), 2);
///
/// let err = host::fasta::read_fasta_from(&b">a\nMK\nM-K\n"[..], Path::new("x.fa"));
/// assert_eq!(
///     err.unwrap_err().to_string(),
///     "x.fa: record 'a' at line 3: '-' at column 2 is not an amino-acid letter \
///      (expected one of ACDEFGHIKLMNPQRSTVWY, B Z X *, U O J)"
/// );
/// ```
///
/// # Errors
/// [`Error::Fasta`] with kind
/// * [`FastaErrorKind::Empty`]: no bytes at all (after decompression);
/// * [`FastaErrorKind::NotFasta`]: the first byte is not `>` (line 1);
/// * [`FastaErrorKind::EmptySequence`]: a record without residues (its
///   record and header line);
/// * [`FastaErrorKind::BadResidue`]: a byte that is no residue letter (its
///   record, line and column);
/// * [`FastaErrorKind::Parse`]: a truncated or corrupt gzip stream.
///
/// [`Error::Io`] when reading fails for another reason.
pub fn read_fasta_from(reader: impl Read + Send, path_for_errors: &Path) -> Result<Vec<Record>> {
    read_limited(reader, path_for_errors, MAX_SEQUENCE_LENGTH)
}

/// The most residues one sequence may have: the kernels and the `.wsw`
/// format hold lengths and positions in 32 bits.
pub const MAX_SEQUENCE_LENGTH: usize = u32::MAX as usize;

/// The UTF-8 byte-order mark some editors put first.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// [`read_fasta_from`] with sequences limited to `max_length` residues.
fn read_limited(
    reader: impl Read + Send,
    path_for_errors: &Path,
    max_length: usize,
) -> Result<Vec<Record>> {
    let path = path_for_errors;
    let mut reader = reader;

    // Sniff gzip from the first two bytes, then put them back.
    let mut head = [0u8; 2];
    let got = read_up_to(&mut reader, &mut head).map_err(|reason| Error::Io {
        path: path.to_path_buf(),
        reason,
    })?;
    let gzip = got == 2 && head == [0x1f, 0x8b];
    let restored = Cursor::new(head[..got].to_vec()).chain(reader);
    let inner: Box<dyn Read + Send + '_> = if gzip {
        Box::new(MultiGzDecoder::new(restored))
    } else {
        Box::new(restored)
    };
    let mut text = Tracked::new(inner);

    // The decompressed text must start with '>', after a byte-order mark.
    let mut start = [0u8; 3];
    let got = match read_up_to(&mut text, &mut start) {
        Ok(0) => return Err(fasta_error(path, None, None, FastaErrorKind::Empty)),
        Ok(got) => got,
        Err(e) => return Err(io_failure(text.error.take().unwrap_or(e), gzip, path)),
    };
    let start = if start[..got] == BOM {
        let mut first = [0u8; 1];
        match read_up_to(&mut text, &mut first) {
            Ok(0) => return Err(fasta_error(path, None, None, FastaErrorKind::Empty)),
            Ok(_) => first.to_vec(),
            Err(e) => return Err(io_failure(text.error.take().unwrap_or(e), gzip, path)),
        }
    } else {
        start[..got].to_vec()
    };
    let first = [start[0]];
    if first[0] != b'>' {
        let found = match first[0] {
            b'@' => "'@', the start of a FASTQ record (only FASTA is accepted)".to_string(),
            b'\n' | b'\r' => "a blank line".to_string(),
            b if b.is_ascii_graphic() => format!("'{}'", b as char),
            b => format!("byte 0x{b:02X}"),
        };
        return Err(fasta_error(
            path,
            None,
            Some(1),
            FastaErrorKind::NotFasta(found),
        ));
    }

    let mut records = Vec::new();
    let failure = {
        let mut fasta = FastaReader::new(Cursor::new(start).chain(&mut text));
        let mut failure = None;
        while let Some(item) = fasta.next() {
            match item {
                Ok(rec) => records.push(convert(&rec, path, records.len() + 1, max_length)?),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        failure
    };
    match failure {
        None => Ok(records),
        Some(e) => Err(match text.error.take() {
            Some(io) => io_failure(io, gzip, path),
            None => parse_failure(e, path),
        }),
    }
}

/// Turns a needletail record (the `number`th of the file) into a
/// [`Record`], checking the id and every residue.
fn convert(
    rec: &SequenceRecord<'_>,
    path: &Path,
    number: usize,
    max_length: usize,
) -> Result<Record> {
    let header = String::from_utf8_lossy(rec.id());
    let header = header.trim_start();
    let (id, description) = match header.split_once(|c: char| c.is_ascii_whitespace()) {
        Some((id, rest)) => (escape_controls(id), escape_controls(rest.trim())),
        None => (escape_controls(header.trim_end()), String::new()),
    };
    let header_line = rec.start_line_number();
    if id.is_empty() {
        return Err(fasta_error(
            path,
            None,
            Some(header_line),
            FastaErrorKind::EmptyId { number },
        ));
    }

    let raw = rec.raw_seq();
    let mut codes = Vec::with_capacity(raw.len());
    let mut line_start = 0;
    let mut newlines = 0u64;
    for (i, &byte) in raw.iter().enumerate() {
        if let Some(code) = encode(byte) {
            codes.push(code);
            continue;
        }
        match byte {
            b'\n' => {
                newlines += 1;
                line_start = i + 1;
            }
            b'\r' if raw.get(i + 1).is_none_or(|&next| next == b'\n') => {}
            b' ' | b'\t' => {}
            _ => {
                let kind = FastaErrorKind::BadResidue {
                    letter: char_at(&raw[i..]),
                    column: i - line_start + 1,
                };
                return Err(fasta_error(
                    path,
                    Some(id),
                    Some(header_line + 1 + newlines),
                    kind,
                ));
            }
        }
    }
    if codes.is_empty() {
        return Err(fasta_error(
            path,
            Some(id),
            Some(header_line),
            FastaErrorKind::EmptySequence,
        ));
    }
    if codes.len() > max_length {
        let kind = FastaErrorKind::TooLong {
            length: codes.len(),
            limit: max_length,
        };
        return Err(fasta_error(path, Some(id), Some(header_line), kind));
    }
    Ok(Record {
        id,
        description,
        codes,
    })
}

/// `text` with its control characters escaped (`\x1B` for ESC, `\x00` for
/// NUL, `\u{85}` above the ASCII range; a tab, whitespace between words of
/// a description, is kept), so that headers never carry terminal escapes or
/// NULs into messages and outputs.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' => out.push(c),
            c if c.is_control() && c.is_ascii() => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The first id that two records share, as a sentence naming both records
/// (1-based): `None` when every id is unique.
pub fn duplicate_id(records: &[Record]) -> Option<String> {
    let mut seen = std::collections::HashMap::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        if let Some(first) = seen.insert(r.id.as_str(), i) {
            return Some(format!(
                "id '{}' is used by records {} and {} (and the outputs cannot tell them apart)",
                r.id,
                first + 1,
                i + 1
            ));
        }
    }
    None
}

/// The character that starts `bytes` (U+FFFD if it is not UTF-8).
fn char_at(bytes: &[u8]) -> char {
    (1..=bytes.len().min(4))
        .find_map(|n| std::str::from_utf8(&bytes[..n]).ok())
        .and_then(|s| s.chars().next())
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

fn fasta_error(
    path: &Path,
    record: Option<String>,
    line: Option<u64>,
    kind: FastaErrorKind,
) -> Error {
    Error::Fasta {
        path: path.to_path_buf(),
        record,
        line,
        kind,
    }
}

/// A read error: a broken gzip stream is a parse error, the rest I/O.
fn io_failure(e: io::Error, gzip: bool, path: &Path) -> Error {
    let broken_stream = matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData
    );
    if gzip && broken_stream {
        let kind = FastaErrorKind::Parse(format!("the gzip stream is truncated or corrupt ({e})"));
        fasta_error(path, None, None, kind)
    } else {
        Error::Io {
            path: path.to_path_buf(),
            reason: e,
        }
    }
}

/// A needletail error that is not an I/O error (none is expected, since the
/// input is checked to start with '>' and [`Tracked`] ends it with a newline).
fn parse_failure(e: ParseError, path: &Path) -> Error {
    let line = (e.position.line > 0).then_some(e.position.line);
    let record = e.position.id.clone();
    let message = match e.kind {
        ParseErrorKind::UnexpectedEnd => "unexpected end of input".to_string(),
        _ => e.msg.clone(),
    };
    fasta_error(path, record, line, FastaErrorKind::Parse(message))
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The decompressed text as needletail sees it: keeps the first read error
/// (needletail keeps only its message) and ends non-empty text with an
/// empty line, so that a last record without sequence (`>id` or `>id\n` at
/// the end) still comes out as a record with its id instead of needletail's
/// anonymous "unexpected end".
struct Tracked<R> {
    inner: R,
    error: Option<io::Error>,
    last: Option<u8>,
    /// Newlines still to emit once `inner` has ended; `None` before then.
    padding: Option<u8>,
}

impl<R: Read> Tracked<R> {
    fn new(inner: R) -> Self {
        Tracked {
            inner,
            error: None,
            last: None,
            padding: None,
        }
    }
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.padding.is_none() {
            match self.inner.read(buf) {
                Ok(0) => {
                    self.padding = Some(match self.last {
                        None => 0,
                        Some(b'\n') => 1,
                        Some(_) => 2,
                    });
                }
                Ok(n) => {
                    self.last = Some(buf[n - 1]);
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
                Err(e) => {
                    let copy = io::Error::new(e.kind(), e.to_string());
                    self.error.get_or_insert(e);
                    return Err(copy);
                }
            }
        }
        match &mut self.padding {
            Some(n) if *n > 0 => {
                *n -= 1;
                buf[0] = b'\n';
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabet::{X_CODE, decode_all};
    use flate2::{Compression, write::GzEncoder};
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use std::io::Write;
    use std::path::PathBuf;

    fn parse(text: &[u8]) -> Result<Vec<Record>> {
        read_fasta_from(text, Path::new("test.fa"))
    }

    /// Parses `text`, expecting a FASTA error; returns (record, line, kind).
    fn fails(text: &[u8]) -> (Option<String>, Option<u64>, FastaErrorKind) {
        match parse(text) {
            Err(Error::Fasta {
                path,
                record,
                line,
                kind,
            }) => {
                assert_eq!(path, PathBuf::from("test.fa"));
                (record, line, kind)
            }
            other => panic!("expected a FASTA error, got {other:?}"),
        }
    }

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    fn bad(letter: char, column: usize) -> FastaErrorKind {
        FastaErrorKind::BadResidue { letter, column }
    }

    #[test]
    fn multi_line_records() {
        let text = b">sp|P69905|HBA_HUMAN Hemoglobin subunit alpha\tOS=Homo sapiens\n\
                     MVLSPADKTN\nVKAAWGKVGA\n\nHAGEYGAEAL\n>q2\nWC\n>q3  \n*\n";
        let r = parse(text).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].id, "sp|P69905|HBA_HUMAN");
        assert_eq!(
            r[0].description,
            "Hemoglobin subunit alpha\tOS=Homo sapiens"
        );
        assert_eq!(decode_all(&r[0].codes), "MVLSPADKTNVKAAWGKVGAHAGEYGAEAL");
        assert_eq!((r[1].id.as_str(), r[1].description.as_str()), ("q2", ""));
        assert_eq!(decode_all(&r[1].codes), "WC");
        assert_eq!((r[2].id.as_str(), r[2].description.as_str()), ("q3", ""));
        assert_eq!(decode_all(&r[2].codes), "*");
    }

    #[test]
    fn last_line_without_newline_and_leading_header_space() {
        let r = parse(b">  a  first one \nMK\nV").unwrap();
        assert_eq!(r[0].id, "a");
        assert_eq!(r[0].description, "first one");
        assert_eq!(decode_all(&r[0].codes), "MKV");
    }

    #[test]
    fn lowercase_and_rare_amino_acids() {
        let r = parse(b">x\nmkvARNdcq\nUOJuoj*b\n").unwrap();
        assert_eq!(decode_all(&r[0].codes), "MKVARNDCQXXXXXX*B");
        assert!(r[0].codes[9..15].iter().all(|&c| c == X_CODE));
    }

    #[test]
    fn crlf_line_endings() {
        let r = parse(b">a desc\r\nAC\r\nDE\r\n\r\n>b\r\nKK\r\n").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].id.as_str(), r[0].description.as_str()), ("a", "desc"));
        assert_eq!(decode_all(&r[0].codes), "ACDE");
        assert_eq!(r[1].id, "b");
        assert_eq!(decode_all(&r[1].codes), "KK");
        // Errors keep their lines and columns.
        let (rec, line, kind) = fails(b">a\r\nAC\r\n>b\r\nKK\r\nK.K\r\n");
        assert_eq!(
            (rec.as_deref(), line, kind),
            (Some("b"), Some(5), bad('.', 2))
        );
        let (rec, line, kind) = fails(b">a\r\nAC\r\n>b\r\n");
        assert_eq!(
            (rec.as_deref(), line, kind),
            (Some("b"), Some(3), FastaErrorKind::EmptySequence)
        );
        // A lone '\r' inside a line is not a line end.
        let (_, line, kind) = fails(b">a\nA\rC\n");
        assert_eq!((line, kind), (Some(2), bad('\r', 2)));
    }

    #[test]
    fn gzip_round_trip() {
        let text = b">a one\nMKV\nLLA\n>b\nWW\n";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.fa.gz");
        std::fs::write(&path, gz(text)).unwrap();
        let from_gz = read_fasta(&path).unwrap();
        assert_eq!(from_gz, parse(text).unwrap());
        assert_eq!(decode_all(&from_gz[0].codes), "MKVLLA");

        // Plain file with a .gz-looking name is read as plain text, and
        // concatenated gzip members are read in full.
        let plain = dir.path().join("plain.gz");
        std::fs::write(&plain, text).unwrap();
        assert_eq!(read_fasta(&plain).unwrap(), from_gz);
        let mut two = gz(b">a one\nMKV\n");
        two.extend(gz(b"LLA\n>b\nWW\n"));
        assert_eq!(read_fasta_from(&two[..], &path).unwrap(), from_gz);
    }

    #[test]
    fn gzip_errors_keep_positions() {
        let (rec, line, kind) = fails(&gz(b">a\nAC\n>b\nKK\nK.K\n"));
        assert_eq!(
            (rec.as_deref(), line, kind),
            (Some("b"), Some(5), bad('.', 2))
        );
        assert_eq!(fails(&gz(b"")).2, FastaErrorKind::Empty);
        assert!(matches!(
            fails(&gz(b"@r\nAC\n+\nII\n")).2,
            FastaErrorKind::NotFasta(_)
        ));
    }

    #[test]
    fn truncated_gzip_is_a_parse_error() {
        let mut text = Vec::new();
        for i in 0..2000 {
            text.extend(format!(">r{i}\nMKVLAAGIVGLLLAWCDEFGHIKLMNPQRSTVWY\n").bytes());
        }
        let full = gz(&text);
        for cut in [full.len() / 2, full.len() - 4, 5, 12] {
            match parse(&full[..cut]) {
                Err(Error::Fasta {
                    kind: FastaErrorKind::Parse(msg),
                    ..
                }) => assert!(msg.contains("gzip stream is truncated or corrupt"), "{msg}"),
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
        // Corrupt deflate data.
        let mut corrupt = full.clone();
        for b in &mut corrupt[20..60] {
            *b = 0xff;
        }
        assert!(matches!(
            parse(&corrupt),
            Err(Error::Fasta {
                kind: FastaErrorKind::Parse(_),
                ..
            })
        ));
    }

    #[test]
    fn empty_input() {
        assert_eq!(fails(b""), (None, None, FastaErrorKind::Empty));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.fa");
        std::fs::write(&path, b"").unwrap();
        assert!(matches!(
            read_fasta(&path),
            Err(Error::Fasta {
                kind: FastaErrorKind::Empty,
                ..
            })
        ));
    }

    #[test]
    fn empty_sequence_names_record_and_header_line() {
        let cases: [(&[u8], &str, u64); 5] = [
            (b">a\nAC\n>b desc\n>c\nGG\n", "b", 3),
            (b">a\nAC\n>b\n", "b", 3),
            (b">a\nAC\n>b", "b", 3),
            (b">a\nAC\n\n>b\n\n\n>c\nW\n", "b", 4),
            (b">only", "only", 1),
        ];
        for (text, rec, line) in cases {
            assert_eq!(
                fails(text),
                (
                    Some(rec.to_string()),
                    Some(line),
                    FastaErrorKind::EmptySequence
                ),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn bad_residue_names_record_line_and_column() {
        let cases: [(&[u8], &str, u64, char, usize); 7] = [
            (b">a\nACD\n>b x\nAAAA\nAA1A\n", "b", 5, '1', 3),
            (b">a\nAC-D\n", "a", 2, '-', 3),
            (b">a\nAC\n\nD.\n", "a", 4, '.', 2),
            (b">a\nAC D\x0b\n", "a", 2, '\x0b', 5),
            (b">a\nMK\n>b\nKKK\nKK\xc3\xa9K\n", "b", 5, '\u{e9}', 3),
            (b">a\nMK\xff\n", "a", 2, char::REPLACEMENT_CHARACTER, 3),
            (b">a\nMK\n;comment\n", "a", 3, ';', 1),
        ];
        for (text, rec, line, letter, column) in cases {
            assert_eq!(
                fails(text),
                (Some(rec.to_string()), Some(line), bad(letter, column)),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        // '*' is a residue.
        assert_eq!(parse(b">a\nMK*\n").unwrap()[0].codes.len(), 3);
    }

    #[test]
    fn not_fasta() {
        let cases: [(&[u8], &str); 5] = [
            (b"@r1\nACGT\n+\nIIII\n", "FASTQ"),
            (b"ACGT\n>a\nAC\n", "'A'"),
            (b"\n>a\nAC\n", "blank line"),
            (b"\xef\xbb\xbfACGT\n", "'A'"),
            (b"#x\n", "'#'"),
        ];
        for (text, found) in cases {
            match fails(text) {
                (None, Some(1), FastaErrorKind::NotFasta(msg)) => {
                    assert!(msg.contains(found), "{msg}")
                }
                other => panic!("{other:?}"),
            }
        }
        // One byte that is not '>'.
        assert!(matches!(fails(b"A").2, FastaErrorKind::NotFasta(_)));
    }

    #[test]
    fn spaces_and_tabs_inside_sequences_are_skipped() {
        let r = parse(b">a\nACD  \n\tEF G\t\r\nHI \n").unwrap();
        assert_eq!(decode_all(&r[0].codes), "ACDEFGHI");
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let r = parse(b"\xef\xbb\xbf>a x\nAC\n").unwrap();
        assert_eq!(
            (r[0].id.as_str(), decode_all(&r[0].codes)),
            ("a", "AC".into())
        );
        assert!(matches!(
            fails(b"\xef\xbb\xbf").2,
            FastaErrorKind::NotFasta(_)
        ));
    }

    #[test]
    fn an_empty_id_names_the_record_and_its_line() {
        for text in [&b">a\nMK\n>\nWW\n"[..], b">a\nMK\n>  \t \nWW\n"] {
            let (rec, line, kind) = fails(text);
            assert_eq!(
                (rec, line, kind),
                (None, Some(3), FastaErrorKind::EmptyId { number: 2 })
            );
        }
    }

    #[test]
    fn control_characters_in_headers_are_escaped() {
        let r = parse(b">a\x1b[31mred\x00 d\x07x\nMK\n").unwrap();
        assert_eq!(r[0].id, "a\\x1B[31mred\\x00");
        assert_eq!(r[0].description, "d\\x07x");
        let err = parse(b">a\x1b]0;t\x07\nM-K\n").unwrap_err().to_string();
        assert!(
            !err.contains('\x1b') && err.contains("a\\x1B]0;t\\x07"),
            "{err}"
        );
    }

    #[test]
    fn sequences_beyond_the_limit_are_errors_naming_the_record() {
        match read_limited(
            &b">a\nMKV\n>long\nACDEF\nGHIKL\nM\n"[..],
            Path::new("x.fa"),
            10,
        ) {
            Err(Error::Fasta {
                record, line, kind, ..
            }) => assert_eq!(
                (record.as_deref(), line, kind),
                (
                    Some("long"),
                    Some(3),
                    FastaErrorKind::TooLong {
                        length: 11,
                        limit: 10
                    }
                )
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(MAX_SEQUENCE_LENGTH as u64, u64::from(u32::MAX));
    }

    #[test]
    fn duplicate_ids_name_both_records() {
        let r = parse(b">a\nM\n>b\nK\n>a x\nW\n").unwrap();
        let dup = duplicate_id(&r).unwrap();
        assert!(
            dup.contains("'a'") && dup.contains("records 1 and 3"),
            "{dup}"
        );
        assert_eq!(duplicate_id(&r[..2]), None);
    }

    #[test]
    fn missing_file_is_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing.fa");
        match read_fasta(&path) {
            Err(Error::Io { path: p, reason }) => {
                assert_eq!(p, path);
                assert_eq!(reason.kind(), io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
    }

    /// Yields some bytes, then fails.
    struct Failing(Cursor<Vec<u8>>);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::new(io::ErrorKind::PermissionDenied, "disk gone")),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn read_failure_is_io_error() {
        let reader = Failing(Cursor::new(b">a\nMKV\n>b\nWW".to_vec()));
        match read_fasta_from(reader, Path::new("x.fa")) {
            Err(Error::Io { path, reason }) => {
                assert_eq!(path, PathBuf::from("x.fa"));
                assert_eq!(reason.kind(), io::ErrorKind::PermissionDenied);
                assert_eq!(reason.to_string(), "disk gone");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn error_display_names_file_record_and_line() {
        let err = parse(b">a\nMK\n>b\n>c\nW\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "test.fa: record 'b' at line 3: the record has no sequence"
        );
    }

    /// Random records wrapped at random widths; returns the text and the
    /// expected records.
    fn random_fasta(n: usize, crlf: bool, seed: u64) -> (Vec<u8>, Vec<Record>) {
        const LETTERS: &[u8] = b"ACDEFGHIKLMNPQRSTVWYBZX*UOJacdefghiklmnpqrstvwy";
        let mut rng = StdRng::seed_from_u64(seed);
        let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let mut text = Vec::new();
        let mut records = Vec::new();
        for i in 0..n {
            let len = rng.random_range(1..400);
            let width = rng.random_range(1..100);
            let seq: Vec<u8> = (0..len)
                .map(|_| LETTERS[rng.random_range(0..LETTERS.len())])
                .collect();
            let description = if i % 3 == 0 {
                String::new()
            } else {
                format!("protein {i} OS=Test")
            };
            text.extend(format!(">seq{i} {description}").bytes());
            text.extend(eol);
            for line in seq.chunks(width) {
                text.extend(line);
                text.extend(eol);
            }
            records.push(Record {
                id: format!("seq{i}"),
                description,
                codes: seq.iter().map(|&b| encode(b).unwrap()).collect(),
            });
        }
        (text, records)
    }

    #[test]
    fn ten_thousand_records() {
        for crlf in [false, true] {
            let (text, expected) = random_fasta(10_000, crlf, 7);
            assert!(text.len() > 1 << 20);
            assert_eq!(parse(&text).unwrap(), expected);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("big.fa.gz");
            std::fs::write(&path, gz(&text)).unwrap();
            assert_eq!(read_fasta(&path).unwrap(), expected);
        }
    }

    #[test]
    fn line_numbers_stay_exact_deep_into_a_large_file() {
        let (mut text, expected) = random_fasta(5_000, false, 11);
        let lines_before = text.iter().filter(|&&b| b == b'\n').count() as u64;
        text.extend(b">last one\nMKV\nMK\nMK9V\n");
        let (rec, line, kind) = fails(&text);
        assert_eq!(rec.as_deref(), Some("last"));
        assert_eq!(line, Some(lines_before + 4));
        assert_eq!(kind, bad('9', 3));

        // The same for an empty record in the middle.
        let (mut text, _) = random_fasta(3_000, true, 12);
        let lines_before = text.iter().filter(|&&b| b == b'\n').count() as u64;
        text.extend(b">hole\r\n");
        text.extend(random_fasta(3_000, true, 13).0);
        let (rec, line, kind) = fails(&text);
        assert_eq!(rec.as_deref(), Some("hole"));
        assert_eq!(line, Some(lines_before + 1));
        assert_eq!(kind, FastaErrorKind::EmptySequence);
        assert_eq!(expected.len(), 5_000);
    }
}
