//! The `.wsw` prepared database file: takes a [`Database`] (or a path), returns
//! a file that opens again as the same [`Database`] in a fraction of a second.
//!
//! Reading and encoding a FASTA file and sorting its sequences takes seconds
//! for a large database; `warpsw makedb` does it once and writes the result
//! here, the way CUDASW++ 4.0 (Schmidt, Kallenborn, Chacon, Steinegger,
//! Schmidt 2024) searches preprocessed database files. [`open`] memory-maps
//! the file: the residues are never copied, only the small index arrays are.
//!
//! # Format, version 1 (all integers little-endian)
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `WARPSWDB` |
//! | 8..12 | format version (`u32`, [`FORMAT_VERSION`]) |
//! | 12..16 | header size in bytes (`u32`) |
//! | 16..24 | file size in bytes (`u64`) |
//! | 24..32 | sequences `n` (`u64`) |
//! | 32..40 | total residues (`u64`) |
//! | 40..48 | id bytes (`u64`) |
//! | 48..88 | offsets of the five sections (`u64` each, in the order below) |
//! | 88..92 | CRC32 of the payload (everything after the header) |
//! | 92..96 | alphabet length `a` (`u32`) |
//! | 96.. | alphabet letters ([`LETTERS`]), zero-padded to 8 bytes |
//! | last 8 | CRC32 of the header bytes before it (`u32`), 4 zero bytes |
//!
//! The payload follows, each section starting on an 8-byte boundary (zero
//! padding in between):
//!
//! 1. residues: codes in sorted order, concatenated ([`Database::residues`]);
//! 2. offsets: `n + 1` `u64` ([`Database::offsets`]);
//! 3. original order: `n` `u32` ([`Database::original_order`]);
//! 4. id offsets: `n + 1` `u64` into the id bytes, input order;
//! 5. id bytes: the headers, UTF-8, concatenated, input order: each the id,
//!    then, when the record has a description, a space and the description
//!    (ids hold no whitespace, so the first space splits them). [`open`]
//!    keeps the ids; [`open_with_descriptions`] the descriptions too.
//!
//! [`open`] checks everything a corrupt or foreign file could get wrong —
//! magic, version, alphabet, sizes, both checksums, that the offsets are
//! monotone and end at the total, that the original order is a permutation,
//! that every residue is a residue code — and reports it as
//! [`Error::DbFile`]; it never panics on any input.
//!
//! [`SplitFile`] opens a file to be searched in parts, one per process of
//! an MPI job: each process reads only its part's residues and index
//! entries, and the parts' checksums combine into the file's.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;

use crate::alphabet::{LETTERS, NUM_RESIDUES};
use crate::db::{Database, Storage};
use crate::error::{Error, Result};

pub(crate) mod split;
pub use split::{Checksum, Part, SplitFile};

/// The first eight bytes of every `.wsw` file.
pub const MAGIC: &[u8; 8] = b"WARPSWDB";

/// The format version this warpsw writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes of the fixed part of the header, before the alphabet.
const FIXED_HEADER: usize = 96;

/// Sections in file order.
const SECTIONS: usize = 5;

fn align8(x: u64) -> Option<u64> {
    x.checked_add(7).map(|v| v & !7)
}

fn header_size(alphabet_len: usize) -> u64 {
    // Fixed part, alphabet padded to 8, header CRC and its padding.
    FIXED_HEADER as u64 + (alphabet_len as u64).div_ceil(8) * 8 + 8
}

/// Where each section lies, computed from the counts alone.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    header_size: u64,
    /// Start of residues, offsets, original order, id offsets, id bytes.
    sections: [u64; SECTIONS],
    file_size: u64,
}

impl Layout {
    /// `None` when the counts overflow a `u64`.
    fn new(alphabet_len: usize, sequences: u64, residues: u64, id_bytes: u64) -> Option<Layout> {
        let header_size = header_size(alphabet_len);
        let index = sequences.checked_add(1)?.checked_mul(8)?;
        let lengths = [residues, index, sequences.checked_mul(4)?, index, id_bytes];
        let mut sections = [0; SECTIONS];
        let mut at = header_size;
        for (start, len) in sections.iter_mut().zip(lengths) {
            *start = at;
            at = align8(at.checked_add(len)?)?;
        }
        let file_size = sections[SECTIONS - 1].checked_add(id_bytes)?;
        Some(Layout {
            header_size,
            sections,
            file_size,
        })
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |reason| Error::Io {
        path: path.to_path_buf(),
        reason,
    }
}

fn db_error(path: &Path, message: impl Into<String>) -> Error {
    Error::DbFile {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// A writer that hashes what passes through it and counts the bytes.
struct Hashing<W> {
    inner: W,
    crc: crc32fast::Hasher,
    written: u64,
}

impl<W: Write> Hashing<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(bytes)?;
        self.crc.update(bytes);
        self.written += bytes.len() as u64;
        Ok(())
    }

    fn pad_to(&mut self, offset: u64) -> std::io::Result<()> {
        while self.written < offset {
            let n = (offset - self.written).min(8) as usize;
            self.put(&[0; 8][..n])?;
        }
        Ok(())
    }
}

/// Writes `db` to `path` as a `.wsw` file, in one pass.
///
/// The file is written beside `path` under a temporary name and renamed when
/// complete, so an interrupted `makedb` never leaves a half-written database
/// under the final name.
///
/// # Errors
/// [`Error::Io`] when the file cannot be created or written;
/// [`Error::DbFile`] when the database is too large for the format (more than
/// `u32::MAX` sequences).
pub fn write(db: &Database, path: &Path) -> Result<()> {
    write_with_descriptions(db, &[], path)
}

/// [`write`], keeping each record's description (`descriptions`, input
/// order, as [`crate::fasta::Record::description`]; empty for none) after
/// its id, for `warpsw get` and a title column.
///
/// # Errors
/// As [`write`]; [`Error::InvalidArgument`] when `descriptions` is neither
/// empty nor one per sequence.
pub fn write_with_descriptions(db: &Database, descriptions: &[String], path: &Path) -> Result<()> {
    let n = db.len();
    if !descriptions.is_empty() && descriptions.len() != n {
        return Err(Error::InvalidArgument(format!(
            "{} descriptions for {n} sequences",
            descriptions.len()
        )));
    }
    let headers: Vec<std::borrow::Cow<'_, str>> = db
        .ids()
        .enumerate()
        .map(|(k, id)| match descriptions.get(k) {
            Some(d) if !d.is_empty() => format!("{id} {d}").into(),
            _ => id.into(),
        })
        .collect();
    if u32::try_from(n).is_err() {
        return Err(db_error(
            path,
            format!("{n} sequences; a .wsw file holds at most {}", u32::MAX),
        ));
    }
    let id_bytes: u64 = headers.iter().map(|h| h.len() as u64).sum();
    let layout = Layout::new(LETTERS.len(), n as u64, db.total_residues(), id_bytes)
        .ok_or_else(|| db_error(path, "the database is too large for the .wsw format"))?;

    let tmp = temporary_path(path);
    let result = write_to(db, &headers, &layout, id_bytes, &tmp)
        .and_then(|()| std::fs::rename(&tmp, path).map_err(io_error(path)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "database.wsw".into());
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

fn write_to(
    db: &Database,
    headers: &[std::borrow::Cow<'_, str>],
    layout: &Layout,
    id_bytes: u64,
    tmp: &Path,
) -> Result<()> {
    let io = io_error(tmp);
    let write = || -> std::io::Result<()> {
        let file = File::create(tmp)?;
        let mut out = Hashing {
            inner: BufWriter::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
            written: 0,
        };
        // Placeholder header; the real one, with the payload CRC, goes last.
        out.inner.write_all(&vec![0; layout.header_size as usize])?;
        out.written = layout.header_size;
        out.crc = crc32fast::Hasher::new();

        out.put(db.residues())?;
        out.pad_to(layout.sections[1])?;
        for &o in db.offsets() {
            out.put(&o.to_le_bytes())?;
        }
        out.pad_to(layout.sections[2])?;
        for &o in db.original_order() {
            out.put(&o.to_le_bytes())?;
        }
        out.pad_to(layout.sections[3])?;
        let mut at = 0u64;
        out.put(&at.to_le_bytes())?;
        for header in headers {
            at += header.len() as u64;
            out.put(&at.to_le_bytes())?;
        }
        out.pad_to(layout.sections[4])?;
        for header in headers {
            out.put(header.as_bytes())?;
        }
        debug_assert_eq!(out.written, layout.file_size);
        let payload_crc = out.crc.finalize();

        let header = encode_header(db, layout, id_bytes, payload_crc);
        let mut file = out.inner.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header)?;
        file.sync_all()
    };
    write().map_err(io)
}

fn encode_header(db: &Database, layout: &Layout, id_bytes: u64, payload_crc: u32) -> Vec<u8> {
    let mut h = Vec::with_capacity(layout.header_size as usize);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    h.extend_from_slice(&(layout.header_size as u32).to_le_bytes());
    h.extend_from_slice(&layout.file_size.to_le_bytes());
    h.extend_from_slice(&(db.len() as u64).to_le_bytes());
    h.extend_from_slice(&db.total_residues().to_le_bytes());
    h.extend_from_slice(&id_bytes.to_le_bytes());
    for s in layout.sections {
        h.extend_from_slice(&s.to_le_bytes());
    }
    h.extend_from_slice(&payload_crc.to_le_bytes());
    h.extend_from_slice(&(LETTERS.len() as u32).to_le_bytes());
    debug_assert_eq!(h.len(), FIXED_HEADER);
    h.extend_from_slice(LETTERS);
    h.resize(layout.header_size as usize - 8, 0);
    let crc = crc32fast::hash(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    h.extend_from_slice(&[0; 4]);
    h
}

/// Whether the file at `path` starts with the `.wsw` magic bytes (so `--db`
/// can take FASTA, gzipped FASTA or `.wsw` by content, whatever the name).
///
/// A file shorter than the magic is not a `.wsw` file.
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or read.
pub fn is_wsw(path: &Path) -> Result<bool> {
    use std::io::Read;
    let file = File::open(path).map_err(io_error(path))?;
    let mut head = Vec::with_capacity(MAGIC.len());
    file.take(MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(io_error(path))?;
    Ok(head == MAGIC)
}

/// Reads little-endian integers at fixed positions of a validated-length slice.
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// The header's fields, checked against each other and the file's size.
#[derive(Debug)]
struct Header {
    sequences: usize,
    residues: usize,
    layout: Layout,
    payload_crc: u32,
}

fn parse_header(path: &Path, bytes: &[u8]) -> Result<Header> {
    let err = |m: String| db_error(path, m);
    let actual = bytes.len() as u64;
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(err("not a warpsw database (bad magic)".into()));
    }
    if bytes.len() < 16 {
        return Err(err(format!(
            "truncated: the header needs at least {FIXED_HEADER} bytes, file has {actual}"
        )));
    }
    let version = u32_at(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(err(format!(
            "format version {version}, this warpsw reads version {FORMAT_VERSION}; \
             rebuild the database with `warpsw makedb`"
        )));
    }
    let header_size = u32_at(bytes, 12) as u64;
    if header_size < FIXED_HEADER as u64 + 8 || !header_size.is_multiple_of(8) {
        return Err(err(format!(
            "the header is corrupt (header size {header_size})"
        )));
    }
    if actual < header_size {
        return Err(err(format!(
            "truncated: header says it is {header_size} bytes, file has {actual}"
        )));
    }
    let hs = header_size as usize;
    let stored_crc = u32_at(bytes, hs - 8);
    if crc32fast::hash(&bytes[..hs - 8]) != stored_crc {
        return Err(err(
            "checksum mismatch in header: the file is corrupt".into()
        ));
    }
    if bytes[hs - 4..hs] != [0; 4] {
        return Err(err("the header is corrupt (nonzero padding)".into()));
    }
    let alphabet_len = u32_at(bytes, 92) as usize;
    let alphabet = bytes
        .get(FIXED_HEADER..FIXED_HEADER.saturating_add(alphabet_len))
        .filter(|_| header_size == self::header_size(alphabet_len))
        .ok_or_else(|| {
            err(format!(
                "the header is corrupt (alphabet of {alphabet_len} letters in a {header_size}-byte header)"
            ))
        })?;
    if alphabet != LETTERS {
        return Err(err(format!(
            "made for alphabet \"{}\" ({alphabet_len} letters), this warpsw uses \"{}\" ({} letters); \
             rebuild the database with `warpsw makedb`",
            String::from_utf8_lossy(alphabet),
            String::from_utf8_lossy(LETTERS),
            LETTERS.len()
        )));
    }
    let file_size = u64_at(bytes, 16);
    let sequences = u64_at(bytes, 24);
    let residues = u64_at(bytes, 32);
    let id_bytes = u64_at(bytes, 40);
    let mut sections = [0; SECTIONS];
    for (k, s) in sections.iter_mut().enumerate() {
        *s = u64_at(bytes, 48 + 8 * k);
    }
    let payload_crc = u32_at(bytes, 88);
    let layout = Layout::new(alphabet_len, sequences, residues, id_bytes)
        .filter(|l| l.file_size == file_size && l.sections == sections)
        .ok_or_else(|| {
            err(format!(
                "the header is corrupt (sections do not match {sequences} sequences, \
                 {residues} residues, {id_bytes} id bytes)"
            ))
        })?;
    if actual < file_size {
        return Err(err(format!(
            "truncated: header says {file_size} bytes, file has {actual}"
        )));
    }
    if actual > file_size {
        return Err(err(format!(
            "header says {file_size} bytes, file has {actual}: trailing data after the database"
        )));
    }
    let too_big = || {
        err(format!(
            "{sequences} sequences do not fit this machine's address space"
        ))
    };
    if sequences > u32::MAX as u64 {
        return Err(err(format!(
            "{sequences} sequences; a .wsw file holds at most {}",
            u32::MAX
        )));
    }
    Ok(Header {
        sequences: usize::try_from(sequences).map_err(|_| too_big())?,
        residues: usize::try_from(residues).map_err(|_| too_big())?,
        layout,
        payload_crc,
    })
}

fn section<'a>(bytes: &'a [u8], layout: &Layout, k: usize, len: usize) -> &'a [u8] {
    let start = layout.sections[k] as usize;
    &bytes[start..start + len]
}

/// Opens a `.wsw` file written by [`write()`]: memory-maps it, validates it and
/// returns the database, residues left in the mapping.
///
/// The file must not be modified while the database is in use (the mapping
/// would change under the search).
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped; [`Error::DbFile`]
/// with a sentence saying what is wrong when it is not a valid `.wsw` file of
/// this version: bad magic, another format version or alphabet, truncated,
/// checksum mismatch, inconsistent sections.
pub fn open(path: &Path) -> Result<Database> {
    let file = File::open(path).map_err(io_error(path))?;
    // SAFETY: the mapping is read-only; the file must not change while it is
    // mapped, which `open` documents (the same contract as every mmap reader).
    let map = unsafe { Mmap::map(&file) }.map_err(io_error(path))?;
    let map = Arc::new(map);
    parse(path, map, None)
}

/// [`open`], with each sequence's description (input order; empty where
/// the record had none or the file was written by [`write`]).
///
/// # Errors
/// As [`open`].
pub fn open_with_descriptions(path: &Path) -> Result<(Database, Vec<String>)> {
    let file = File::open(path).map_err(io_error(path))?;
    // SAFETY: as in `open`.
    let map = unsafe { Mmap::map(&file) }.map_err(io_error(path))?;
    let mut descriptions = Vec::new();
    let db = parse(path, Arc::new(map), Some(&mut descriptions))?;
    Ok((db, descriptions))
}

fn parse(path: &Path, map: Arc<Mmap>, descriptions: Option<&mut Vec<String>>) -> Result<Database> {
    let header = parse_header(path, &map)?;
    let layout = &header.layout;
    let payload = &map[layout.header_size as usize..];
    if crc32fast::hash(payload) != header.payload_crc {
        return Err(db_error(
            path,
            "checksum mismatch in payload: the file is corrupt",
        ));
    }
    let start = layout.sections[0] as usize;
    check_codes(path, &map, start..start + header.residues, start)?;
    index(path, map, &header, descriptions)
}

/// Checks that every byte of `residues` (a range of `bytes`, in the residue
/// section that starts at `section`) is a residue code.
fn check_codes(path: &Path, bytes: &[u8], residues: Range<usize>, section: usize) -> Result<()> {
    match bytes[residues.clone()]
        .iter()
        .position(|&c| c as usize >= NUM_RESIDUES)
    {
        None => Ok(()),
        Some(bad) => Err(db_error(
            path,
            format!(
                "residue {} has code {}, not a residue code (0..{NUM_RESIDUES})",
                residues.start - section + bad,
                bytes[residues.start + bad]
            ),
        )),
    }
}

/// The database of a file whose header is checked: the index sections
/// (offsets, original order, ids) read and checked, residues left in the
/// mapping and not read.
fn index(
    path: &Path,
    map: Arc<Mmap>,
    header: &Header,
    mut descriptions: Option<&mut Vec<String>>,
) -> Result<Database> {
    let (ids, residues, offsets, original) = {
        let bytes: &[u8] = &map;
        let layout = &header.layout;
        let n = header.sequences;
        let total = header.residues;
        let residues: Range<usize> = {
            let start = layout.sections[0] as usize;
            start..start + total
        };
        let offsets = read_u64s(section(bytes, layout, 1, (n + 1) * 8));
        check_offsets(path, "sequence offsets", &offsets, total as u64)?;
        check_lengths(path, &offsets, 0)?;
        let original: Vec<u32> = section(bytes, layout, 2, n * 4)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        check_permutation(path, &original)?;
        let id_offsets = read_u64s(section(bytes, layout, 3, (n + 1) * 8));
        let id_total = layout.file_size - layout.sections[4];
        check_offsets(path, "id offsets", &id_offsets, id_total)?;
        let id_bytes = section(bytes, layout, 4, id_total as usize);
        let mut ids = Vec::with_capacity(n);
        for (k, w) in id_offsets.windows(2).enumerate() {
            let (id, description) = split_header(path, k, &id_bytes[w[0] as usize..w[1] as usize])?;
            ids.push(id.to_owned());
            if let Some(descriptions) = descriptions.as_mut() {
                descriptions.push(description.to_owned());
            }
        }
        (ids, residues, offsets, original)
    };
    Ok(Database::from_parts(
        ids,
        Storage::Mapped(map, residues),
        offsets,
        original,
    ))
}

/// A stored header split into the id and the description.
fn split_header<'a>(path: &Path, k: usize, bytes: &'a [u8]) -> Result<(&'a str, &'a str)> {
    let header = std::str::from_utf8(bytes)
        .map_err(|_| db_error(path, format!("the id of sequence {k} is not valid UTF-8")))?;
    Ok(header.split_once(' ').unwrap_or((header, "")))
}

/// No sequence longer than [`crate::fasta::MAX_SEQUENCE_LENGTH`];
/// `first` is the sorted position of `offsets[0]`, for the message.
fn check_lengths(path: &Path, offsets: &[u64], first: usize) -> Result<()> {
    match offsets
        .windows(2)
        .position(|w| w[1] - w[0] > crate::fasta::MAX_SEQUENCE_LENGTH as u64)
    {
        None => Ok(()),
        Some(k) => Err(db_error(
            path,
            format!(
                "sequence {} (sorted position) has {} residues; at most {} are supported",
                first + k,
                offsets[k + 1] - offsets[k],
                crate::fasta::MAX_SEQUENCE_LENGTH
            ),
        )),
    }
}

fn read_u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

fn check_offsets(path: &Path, what: &str, offsets: &[u64], total: u64) -> Result<()> {
    if offsets.first() != Some(&0) {
        return Err(db_error(path, format!("{what} do not start at 0")));
    }
    if let Some(k) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(db_error(
            path,
            format!("{what} decrease at entry {}", k + 1),
        ));
    }
    let last = *offsets.last().unwrap_or(&0);
    if last != total {
        return Err(db_error(
            path,
            format!("{what} end at {last}, the header says {total}"),
        ));
    }
    Ok(())
}

fn check_permutation(path: &Path, original: &[u32]) -> Result<()> {
    let mut seen = vec![false; original.len()];
    for (k, &o) in original.iter().enumerate() {
        match seen.get_mut(o as usize) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(db_error(
                    path,
                    format!("the original order is not a permutation (entry {k} is {o})"),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::split::split_point;
    use super::*;
    use crate::db::tests::record;
    use crate::fasta::Record;
    use proptest::prelude::*;

    fn sample() -> Database {
        Database::from_records(vec![
            record("sp|P1|A", &[0, 1, 2]),
            record("b", &[3, 4, 5, 6, 7, 8, 9]),
            record("c-ü", &[23]),
            record("d", &[10, 11, 12, 13, 14]),
            record("e", &[15, 16, 17]),
        ])
    }

    #[test]
    fn descriptions_are_kept_after_the_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.wsw");
        let db = sample();
        let descriptions: Vec<String> = ["Example protein OS=X", "", "two  spaces", "", "e"]
            .map(String::from)
            .to_vec();
        write_with_descriptions(&db, &descriptions, &path).unwrap();
        let (back, kept) = open_with_descriptions(&path).unwrap();
        assert_same(&db, &back);
        assert_eq!(kept, descriptions);
        assert_same(&db, &open(&path).unwrap());
        // Written without descriptions: empty ones.
        write(&db, &path).unwrap();
        assert_eq!(
            open_with_descriptions(&path).unwrap().1,
            vec![String::new(); 5]
        );
        assert!(write_with_descriptions(&db, &descriptions[..2], &path).is_err());
    }

    fn assert_same(a: &Database, b: &Database) {
        assert_eq!(a.len(), b.len());
        assert!(a.ids().eq(b.ids()));
        assert_eq!(a.residues(), b.residues());
        assert_eq!(a.offsets(), b.offsets());
        assert_eq!(a.original_order(), b.original_order());
        assert_eq!(a.total_residues(), b.total_residues());
        for i in 0..a.len() {
            assert_eq!(a.sequence(i), b.sequence(i));
            assert_eq!(a.id(a.original_index(i)), b.id(b.original_index(i)));
        }
    }

    fn written(db: &Database) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.wsw");
        write(db, &path).unwrap();
        (dir, path)
    }

    fn message(e: Error) -> String {
        match e {
            Error::DbFile { message, .. } => message,
            other => panic!("expected a DbFile error, got {other}"),
        }
    }

    /// Rewrites the file with `edit` applied, fixing the header CRC when asked.
    fn edit(path: &Path, fix_header_crc: bool, edit: impl FnOnce(&mut Vec<u8>)) {
        let mut bytes = std::fs::read(path).unwrap();
        edit(&mut bytes);
        if fix_header_crc {
            let hs = u32_at(&bytes, 12) as usize;
            let crc = crc32fast::hash(&bytes[..hs - 8]);
            bytes[hs - 8..hs - 4].copy_from_slice(&crc.to_le_bytes());
        }
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn round_trip_keeps_everything() {
        let db = sample();
        let (_dir, path) = written(&db);
        assert!(is_wsw(&path).unwrap());
        let back = open(&path).unwrap();
        assert_same(&db, &back);
        // The residues are read in place: the mapping starts on a page, the
        // residue section right after the header.
        let header = header_size(LETTERS.len()) as usize;
        assert_eq!(back.residues().as_ptr() as usize % 4096, header);
    }

    #[test]
    fn round_trip_empty_database() {
        let db = Database::from_records(vec![]);
        let (_dir, path) = written(&db);
        let back = open(&path).unwrap();
        assert!(back.is_empty());
        assert_eq!(back.total_residues(), 0);
    }

    #[test]
    fn round_trip_large_database() {
        let mut rng_state = 12345u64;
        let mut next = || {
            rng_state ^= rng_state << 13;
            rng_state ^= rng_state >> 7;
            rng_state ^= rng_state << 17;
            rng_state
        };
        let records: Vec<Record> = (0..20_000)
            .map(|i| {
                let len = 1 + (next() % 700) as usize;
                let codes = (0..len).map(|_| (next() % 24) as u8).collect::<Vec<_>>();
                record(&format!("seq{i}"), &codes)
            })
            .collect();
        let db = Database::from_records(records);
        let (_dir, path) = written(&db);
        let back = open(&path).unwrap();
        assert_same(&db, &back);
    }

    #[test]
    fn is_wsw_sniffs_content() {
        let dir = tempfile::tempdir().unwrap();
        let fasta = dir.path().join("x.wsw");
        std::fs::write(&fasta, ">a\nACD\n").unwrap();
        assert!(!is_wsw(&fasta).unwrap());
        let short = dir.path().join("short");
        std::fs::write(&short, b"WARP").unwrap();
        assert!(!is_wsw(&short).unwrap());
        assert!(matches!(
            is_wsw(&dir.path().join("missing")),
            Err(Error::Io { .. })
        ));
    }

    #[test]
    fn missing_file_is_io_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            open(&dir.path().join("missing.wsw")),
            Err(Error::Io { .. })
        ));
    }

    #[test]
    fn write_to_missing_directory_is_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/d.wsw");
        assert!(matches!(write(&sample(), &path), Err(Error::Io { .. })));
    }

    #[test]
    fn bad_magic() {
        let (_dir, path) = written(&sample());
        edit(&path, false, |b| b[0] = b'X');
        assert_eq!(
            message(open(&path).unwrap_err()),
            "not a warpsw database (bad magic)"
        );
        std::fs::write(&path, b"").unwrap();
        assert!(message(open(&path).unwrap_err()).contains("bad magic"));
    }

    #[test]
    fn other_version() {
        let (_dir, path) = written(&sample());
        edit(&path, true, |b| {
            b[8..12].copy_from_slice(&7u32.to_le_bytes())
        });
        assert!(
            message(open(&path).unwrap_err())
                .starts_with("format version 7, this warpsw reads version 1")
        );
    }

    #[test]
    fn other_alphabet() {
        let (_dir, path) = written(&sample());
        edit(&path, true, |b| b.swap(FIXED_HEADER, FIXED_HEADER + 1));
        let m = message(open(&path).unwrap_err());
        assert!(m.contains("alphabet \"RANDCQ"), "{m}");
    }

    #[test]
    fn truncated() {
        let db = sample();
        let (_dir, path) = written(&db);
        let full = std::fs::metadata(&path).unwrap().len();
        edit(&path, false, |b| b.truncate(b.len() - 3));
        assert_eq!(
            message(open(&path).unwrap_err()),
            format!("truncated: header says {full} bytes, file has {}", full - 3)
        );
        edit(&path, false, |b| b.truncate(40));
        assert!(message(open(&path).unwrap_err()).starts_with("truncated"));
    }

    #[test]
    fn trailing_data() {
        let (_dir, path) = written(&sample());
        edit(&path, false, |b| b.extend_from_slice(&[0; 8]));
        assert!(message(open(&path).unwrap_err()).contains("trailing data"));
    }

    #[test]
    fn header_checksum() {
        let (_dir, path) = written(&sample());
        edit(&path, false, |b| b[24] ^= 1);
        assert_eq!(
            message(open(&path).unwrap_err()),
            "checksum mismatch in header: the file is corrupt"
        );
    }

    #[test]
    fn payload_checksum() {
        let (_dir, path) = written(&sample());
        edit(&path, false, |b| {
            let last = b.len() - 1;
            b[last] ^= 0x20
        });
        assert_eq!(
            message(open(&path).unwrap_err()),
            "checksum mismatch in payload: the file is corrupt"
        );
    }

    /// Rewrites the payload with `edit` and fixes both checksums, so that the
    /// structural checks behind them are reached.
    fn edit_payload(path: &Path, edit: impl FnOnce(&mut [u8], &Layout)) {
        self::edit(path, true, |b| {
            let hs = u32_at(b, 12) as usize;
            let layout = Layout::new(
                u32_at(b, 92) as usize,
                u64_at(b, 24),
                u64_at(b, 32),
                u64_at(b, 40),
            )
            .unwrap();
            edit(b, &layout);
            let crc = crc32fast::hash(&b[hs..]);
            b[88..92].copy_from_slice(&crc.to_le_bytes());
        });
    }

    #[test]
    fn inconsistent_sections() {
        let (_dir, path) = written(&sample());
        // Non-monotone offsets.
        edit_payload(&path, |b, l| {
            let at = l.sections[1] as usize + 8;
            b[at..at + 8].copy_from_slice(&100u64.to_le_bytes());
        });
        assert!(message(open(&path).unwrap_err()).contains("sequence offsets decrease"));

        let (_dir, path) = written(&sample());
        // Not a permutation.
        edit_payload(&path, |b, l| {
            let at = l.sections[2] as usize;
            b.copy_within(at + 4..at + 8, at);
        });
        assert!(message(open(&path).unwrap_err()).contains("not a permutation"));

        let (_dir, path) = written(&sample());
        // Residue code out of range.
        edit_payload(&path, |b, l| b[l.sections[0] as usize] = 24);
        assert!(message(open(&path).unwrap_err()).contains("not a residue code"));

        let (_dir, path) = written(&sample());
        // Invalid UTF-8 in an id.
        edit_payload(&path, |b, l| b[l.sections[4] as usize] = 0xff);
        assert!(message(open(&path).unwrap_err()).contains("not valid UTF-8"));

        let (_dir, path) = written(&sample());
        // Section offsets that disagree with the counts.
        edit(&path, true, |b| b[56] ^= 8);
        assert!(message(open(&path).unwrap_err()).contains("sections do not match"));
    }

    /// Every part of `file` for `parts` parts, checked and in order.
    fn split(file: &SplitFile, parts: usize) -> Vec<Part> {
        (0..parts)
            .map(|k| file.part(file.range(k, parts)).unwrap())
            .collect()
    }

    #[test]
    fn parts_tile_the_database_and_verify() {
        let db = sample();
        let (_dir, path) = written(&db);
        let file = SplitFile::open(&path).unwrap();
        assert_eq!(file.sequences(), 5);
        assert_eq!(file.total_residues(), db.total_residues());
        let (whole, descriptions) = file.whole(true).unwrap();
        assert_same(&db, &whole);
        assert_eq!(descriptions, Some(vec![String::new(); 5]));
        // More parts than sequences included: empty parts.
        for parts in 1..=8 {
            let split = split(&file, parts);
            let mut position = 0;
            for part in &split {
                let p = &part.database;
                for i in 0..p.len() {
                    assert_eq!(p.sequence(i), db.sequence(position));
                    assert_eq!(
                        p.id(p.original_index(i)),
                        db.id(db.original_index(position))
                    );
                    position += 1;
                }
            }
            assert_eq!(position, db.len());
            let checksums: Vec<Checksum> = split.iter().map(|p| p.checksum).collect();
            file.verify(&checksums).unwrap();
            assert!(file.verify(&checksums[1..]).is_err() || checksums[0].len == 0);
        }
    }

    #[test]
    fn parts_hold_nearly_equal_residues() {
        let records: Vec<Record> = (0..300)
            .map(|i| record(&format!("s{i}"), &vec![(i % 20) as u8; 1 + (i * 37) % 251]))
            .collect();
        let db = Database::from_records(records);
        let (_dir, path) = written(&db);
        let file = SplitFile::open(&path).unwrap();
        let longest = db.length(0) as u64;
        for parts in [1, 2, 3, 5, 7, 16, 299, 300, 301, 1000] {
            let ranges: Vec<Range<usize>> = (0..parts).map(|k| file.range(k, parts)).collect();
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges[parts - 1].end, db.len());
            for (k, r) in ranges.iter().enumerate() {
                if k > 0 {
                    assert_eq!(ranges[k - 1].end, r.start);
                }
                let residues = db.offsets()[r.end] - db.offsets()[r.start];
                let share = db.total_residues() as f64 / parts as f64;
                assert!(
                    (residues as f64 - share).abs() <= longest as f64,
                    "{parts} parts: part {k} has {residues} residues, share {share}"
                );
            }
        }
    }

    #[test]
    fn a_corrupt_part_is_named_by_that_part_or_the_checksum() {
        let db = sample();
        let (_dir, path) = written(&db);
        let file = SplitFile::open(&path).unwrap();
        let second = file.range(1, 2);
        let at = header_size(LETTERS.len()) as usize + db.offsets()[second.start] as usize;
        drop(file);
        // A byte that is no residue code: the part that holds it says so.
        edit(&path, false, |b| b[at] = 30);
        let file = SplitFile::open(&path).unwrap();
        assert!(file.part(file.range(0, 2)).is_ok());
        let m = message(file.part(second.clone()).unwrap_err());
        assert!(m.contains("has code 30, not a residue code"), "{m}");
        drop(file);
        // Another residue code: only the combined checksum sees it.
        edit(&path, false, |b| b[at] = 1);
        let file = SplitFile::open(&path).unwrap();
        let checksums: Vec<Checksum> = split(&file, 2).iter().map(|p| p.checksum).collect();
        assert_eq!(
            message(file.verify(&checksums).unwrap_err()),
            "checksum mismatch in payload: the file is corrupt"
        );
        let reversed = Range { start: 5, end: 4 };
        assert!(file.part(reversed).is_err());
        assert!(file.part(0..6).is_err());
    }

    #[test]
    fn split_points_on_plain_offsets() {
        let offsets = [0u64, 10, 20, 30, 40];
        let at = |k, parts| split_point(|i| offsets[i], 4, k, parts);
        assert_eq!((0..=2).map(|k| at(k, 2)).collect::<Vec<_>>(), [0, 2, 4]);
        assert_eq!((0..=3).map(|k| at(k, 3)).collect::<Vec<_>>(), [0, 1, 3, 4]);
        assert_eq!(
            (0..=8).map(|k| at(k, 8)).collect::<Vec<_>>(),
            [0, 0, 1, 1, 2, 2, 3, 3, 4]
        );
        // Empty database.
        assert_eq!(split_point(|_| 0, 0, 1, 3), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any byte flip or truncation gives an error, never a panic and
        /// never a silently different database.
        #[test]
        fn corruption_is_detected(
            flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 0..4),
            cut in proptest::option::of(any::<prop::sample::Index>()),
            fix_header in any::<bool>(),
        ) {
            let db = sample();
            let (_dir, path) = written(&db);
            let original = std::fs::read(&path).unwrap();
            edit(&path, false, |b| {
                for (at, x) in &flips {
                    let i = at.index(b.len());
                    b[i] ^= x;
                }
                if let Some(c) = cut {
                    b.truncate(c.index(b.len()));
                }
                if fix_header && b.len() >= 16 {
                    let hs = u32_at(b, 12) as usize;
                    if hs >= 8 && hs <= b.len() {
                        let crc = crc32fast::hash(&b[..hs - 8]);
                        b[hs - 8..hs - 4].copy_from_slice(&crc.to_le_bytes());
                    }
                }
            });
            let changed = std::fs::read(&path).unwrap() != original;
            match open(&path) {
                Ok(back) => {
                    // Only a flip in zero padding can go unnoticed by the
                    // structure checks; the payload CRC covers the padding,
                    // so nothing may change at all.
                    prop_assert!(!changed, "a corrupted file opened");
                    assert_same(&db, &back);
                }
                Err(Error::DbFile { .. }) => prop_assert!(changed),
                Err(other) => prop_assert!(false, "unexpected error {other}"),
            }
        }

        /// Arbitrary bytes after a valid magic never panic.
        #[test]
        fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..400)) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("r.wsw");
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&tail);
            std::fs::write(&path, bytes).unwrap();
            prop_assert!(open(&path).is_err());
        }
    }
}
