//! FASTA reading (placeholder until the reader lands).

/// One FASTA record, encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Header up to the first whitespace.
    pub id: String,
    /// Rest of the header.
    pub description: String,
    /// Residue codes.
    pub codes: Vec<u8>,
}
