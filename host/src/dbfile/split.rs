//! A `.wsw` file read in parts, one per process of an MPI job.

use super::*;

/// A `.wsw` file searched in parts, one per process of an MPI job: each
/// part maps and reads only its own residues and the slice of the index
/// that describes them, and one process (the one that writes the output)
/// reads the whole index.
///
/// The parts are ranges of sorted positions holding nearly equal residues
/// ([`SplitFile::range`]); together they tile the database, so scores
/// gathered part after part are the whole database's in sorted order.
/// Each part checks its residue codes and computes the CRC32 of its
/// residue bytes ([`Part::checksum`]); [`SplitFile::verify`] combines the
/// parts' CRCs with the rest of the payload into the file's payload
/// checksum, so the whole file is still checked, each byte by one process.
#[derive(Debug)]
pub struct SplitFile {
    path: PathBuf,
    map: Arc<Mmap>,
    header: Header,
}

/// One part of a [`SplitFile`].
#[derive(Debug)]
pub struct Part {
    /// The part's sequences as a database of their own, sorted order
    /// (that of the file) and input order alike; residues left in the
    /// mapping.
    pub database: Database,
    /// The CRC32 of the part's residue bytes.
    pub checksum: Checksum,
}

/// The CRC32 of a run of bytes and its length: what [`SplitFile::verify`]
/// combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checksum {
    /// CRC32 (IEEE, as `crc32fast` computes it).
    pub crc: u32,
    /// Bytes hashed.
    pub len: u64,
}

impl SplitFile {
    /// Memory-maps `path` and checks its header (magic, version, alphabet,
    /// sizes, header checksum); nothing else is read.
    ///
    /// # Errors
    /// As [`open`], for the header.
    pub fn open(path: &Path) -> Result<SplitFile> {
        let file = File::open(path).map_err(io_error(path))?;
        // SAFETY: as in `open`.
        let map = unsafe { Mmap::map(&file) }.map_err(io_error(path))?;
        let header = parse_header(path, &map)?;
        Ok(SplitFile {
            path: path.to_path_buf(),
            map: Arc::new(map),
            header,
        })
    }

    /// Sequences in the file.
    pub fn sequences(&self) -> usize {
        self.header.sequences
    }

    /// Residues in the file.
    pub fn total_residues(&self) -> u64 {
        self.header.residues as u64
    }

    /// `offsets[i]`, read from the mapping (`i ≤ sequences`).
    fn offset(&self, i: usize) -> u64 {
        u64_at(&self.map, self.header.layout.sections[1] as usize + 8 * i)
    }

    /// Part `k` of `parts`: sorted positions `b(k)..b(k + 1)`, where `b(k)`
    /// is the sequence boundary nearest to `k/parts` of the residues (the
    /// lower one on a tie). Each part holds `residues/parts` residues give
    /// or take the longest sequence; parts are empty when there are more
    /// parts than sequences. Reads `O(log n)` offsets.
    pub fn range(&self, k: usize, parts: usize) -> Range<usize> {
        split_point(|i| self.offset(i), self.sequences(), k, parts)
            ..split_point(|i| self.offset(i), self.sequences(), k + 1, parts)
    }

    /// The sequences at sorted positions `range` (from [`SplitFile::range`]):
    /// their offsets, ids and residues read and checked, the CRC32 of their
    /// residue bytes computed.
    ///
    /// # Errors
    /// [`Error::DbFile`] naming what is wrong (offsets out of order, a
    /// residue that is no residue code, an id that is not UTF-8, positions
    /// outside the file).
    pub fn part(&self, range: Range<usize>) -> Result<Part> {
        let path = &self.path;
        let layout = &self.header.layout;
        let n = self.sequences();
        if range.start > range.end || range.end > n {
            return Err(db_error(
                path,
                format!("part {range:?} is outside the file's {n} sequences"),
            ));
        }
        let total = self.total_residues();
        let offsets: Vec<u64> = (range.start..=range.end).map(|i| self.offset(i)).collect();
        if let Some(k) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(db_error(
                path,
                format!("sequence offsets decrease at entry {}", range.start + k + 1),
            ));
        }
        let (first, last) = (offsets[0], offsets[offsets.len() - 1]);
        if last > total {
            return Err(db_error(
                path,
                format!("sequence offsets end at {last}, the header says {total}"),
            ));
        }
        check_lengths(path, &offsets, range.start)?;
        let start = layout.sections[0] as usize;
        let residues = start + first as usize..start + last as usize;
        check_codes(path, &self.map, residues.clone(), start)?;
        let checksum = Checksum {
            crc: crc32fast::hash(&self.map[residues.clone()]),
            len: last - first,
        };
        // The part's ids, in its (sorted) order.
        let id_total = layout.file_size - layout.sections[4];
        let id_offset = |o: usize| u64_at(&self.map, layout.sections[3] as usize + 8 * o);
        let mut ids = Vec::with_capacity(range.len());
        for i in range.clone() {
            let o = u32_at(&self.map, layout.sections[2] as usize + 4 * i) as usize;
            if o >= n {
                return Err(db_error(
                    path,
                    format!("the original order is not a permutation (entry {i} is {o})"),
                ));
            }
            let (a, b) = (id_offset(o), id_offset(o + 1));
            if a > b || b > id_total {
                return Err(db_error(
                    path,
                    format!("id offsets of sequence {o} are corrupt"),
                ));
            }
            let at = layout.sections[4] as usize;
            let bytes = &self.map[at + a as usize..at + b as usize];
            ids.push(split_header(path, o, bytes)?.0.to_owned());
        }
        let offsets = offsets.iter().map(|&o| o - first).collect();
        let original = (0..range.len() as u32).collect();
        Ok(Part {
            database: Database::from_parts(
                ids,
                Storage::Mapped(self.map.clone(), residues),
                offsets,
                original,
            ),
            checksum,
        })
    }

    /// The whole database (with the descriptions when asked): the index
    /// sections read and checked as [`open`] checks them, the residues
    /// left in the mapping and not read (the parts check them, and
    /// [`SplitFile::verify`] the checksum).
    ///
    /// # Errors
    /// As [`open`], but for the payload checksum and the residue codes.
    pub fn whole(&self, with_descriptions: bool) -> Result<(Database, Option<Vec<String>>)> {
        let mut descriptions = with_descriptions.then(Vec::new);
        let db = index(
            &self.path,
            self.map.clone(),
            &self.header,
            descriptions.as_mut(),
        )?;
        Ok((db, descriptions))
    }

    /// Checks the file's payload checksum from the parts' checksums
    /// (`parts`, in order, tiling the residues) and the bytes after the
    /// residues.
    ///
    /// # Errors
    /// [`Error::DbFile`] when the checksums do not match (the file is
    /// corrupt) or the parts do not cover the residues.
    pub fn verify(&self, parts: &[Checksum]) -> Result<()> {
        let layout = &self.header.layout;
        let covered: u64 = parts.iter().map(|p| p.len).sum();
        if covered != self.total_residues() {
            return Err(db_error(
                &self.path,
                format!(
                    "the parts cover {covered} residues of {}",
                    self.total_residues()
                ),
            ));
        }
        let mut crc = crc32fast::Hasher::new();
        for part in parts {
            crc.combine(&crc32fast::Hasher::new_with_initial_len(part.crc, part.len));
        }
        let rest = (layout.sections[0] + self.total_residues()) as usize;
        let mut tail = crc32fast::Hasher::new();
        tail.update(&self.map[rest..]);
        crc.combine(&tail);
        if crc.finalize() != self.header.payload_crc {
            return Err(db_error(
                &self.path,
                "checksum mismatch in payload: the file is corrupt",
            ));
        }
        Ok(())
    }
}

/// The first sorted position of part `k` of `parts` over `n` sequences
/// whose residue offsets `offset(0..=n)` rise: the boundary nearest to
/// `k·total/parts` residues, the lower one on a tie.
pub(crate) fn split_point(
    offset: impl Fn(usize) -> u64,
    n: usize,
    k: usize,
    parts: usize,
) -> usize {
    if k == 0 || parts == 0 {
        return 0;
    }
    if k >= parts {
        return n;
    }
    let total = offset(n);
    let target = (u128::from(total) * k as u128 / parts as u128) as u64;
    // The first boundary at or past the target (binary search over 0..=n).
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if offset(mid) < target {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    if lo > 0 && target.abs_diff(offset(lo - 1)) <= offset(lo).abs_diff(target) {
        lo - 1
    } else {
        lo
    }
}
