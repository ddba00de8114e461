//! A hit's fields, named as BLAST names them: what `--columns` takes, the
//! TSV header and the JSON keys print, and the formats' default sets.

/// One field of a hit, named as BLAST names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Column {
    /// `qseqid`: query id.
    QueryId,
    /// `qlen`: query length.
    QueryLength,
    /// `sseqid`: target id.
    TargetId,
    /// `slen`: target length.
    TargetLength,
    /// `stitle`: target's whole FASTA header (id and description).
    TargetTitle,
    /// `qstart`: first query residue aligned (1-based).
    QueryStart,
    /// `qend`: last query residue aligned.
    QueryEnd,
    /// `sstart`: first target residue aligned.
    TargetStart,
    /// `send`: last target residue aligned.
    TargetEnd,
    /// `qseq`: aligned part of the query, `-` for gaps.
    QuerySequence,
    /// `sseq`: aligned part of the target, `-` for gaps.
    TargetSequence,
    /// `evalue`: expect value.
    Evalue,
    /// `bitscore`: bit score.
    Bits,
    /// `score`: raw score.
    Score,
    /// `length`: alignment length (columns, gaps included).
    Length,
    /// `pident`: percent identical columns.
    PercentIdentity,
    /// `nident`: identical columns.
    Identities,
    /// `mismatch`: aligned pairs of different residues.
    Mismatches,
    /// `positive`: aligned pairs scoring above 0.
    Positives,
    /// `gapopen`: gap runs.
    GapOpenings,
    /// `gaps`: gap columns.
    Gaps,
    /// `ppos`: percent positive columns.
    PercentPositives,
    /// `qcovhsp`: percent of the query covered by the alignment.
    QueryCoverage,
    /// `cigar`: CIGAR (`M`, `I`, `D`; the target is the reference).
    Cigar,
}

/// What a column of E-values or bit scores holds for a search without
/// statistics (`--stats none`, where the CLI refuses those columns; the
/// pairwise format's table keeps them).
pub const NO_STATISTICS: &str = "-";

/// BLAST's 12 default tabular columns.
pub const BLAST6_COLUMNS: [Column; 12] = [
    Column::QueryId,
    Column::TargetId,
    Column::PercentIdentity,
    Column::Length,
    Column::Mismatches,
    Column::GapOpenings,
    Column::QueryStart,
    Column::QueryEnd,
    Column::TargetStart,
    Column::TargetEnd,
    Column::Evalue,
    Column::Bits,
];

/// The TSV's columns unless others are picked.
pub const TSV_COLUMNS: [Column; 16] = [
    Column::QueryId,
    Column::TargetId,
    Column::Score,
    Column::Bits,
    Column::Evalue,
    Column::QueryLength,
    Column::TargetLength,
    Column::PercentIdentity,
    Column::Length,
    Column::Mismatches,
    Column::GapOpenings,
    Column::QueryStart,
    Column::QueryEnd,
    Column::TargetStart,
    Column::TargetEnd,
    Column::Cigar,
];

impl Column {
    /// Every column, in the order `--help` lists them.
    pub const ALL: [Column; 24] = [
        Column::QueryId,
        Column::QueryLength,
        Column::TargetId,
        Column::TargetLength,
        Column::TargetTitle,
        Column::QueryStart,
        Column::QueryEnd,
        Column::TargetStart,
        Column::TargetEnd,
        Column::QuerySequence,
        Column::TargetSequence,
        Column::Evalue,
        Column::Bits,
        Column::Score,
        Column::Length,
        Column::PercentIdentity,
        Column::Identities,
        Column::Mismatches,
        Column::Positives,
        Column::GapOpenings,
        Column::Gaps,
        Column::PercentPositives,
        Column::QueryCoverage,
        Column::Cigar,
    ];

    /// BLAST's name: what `--columns` takes, the TSV header and the JSON
    /// output's keys print.
    pub fn blast_name(self) -> &'static str {
        match self {
            Column::QueryId => "qseqid",
            Column::QueryLength => "qlen",
            Column::TargetId => "sseqid",
            Column::TargetLength => "slen",
            Column::TargetTitle => "stitle",
            Column::QueryStart => "qstart",
            Column::QueryEnd => "qend",
            Column::TargetStart => "sstart",
            Column::TargetEnd => "send",
            Column::QuerySequence => "qseq",
            Column::TargetSequence => "sseq",
            Column::Evalue => "evalue",
            Column::Bits => "bitscore",
            Column::Score => "score",
            Column::Length => "length",
            Column::PercentIdentity => "pident",
            Column::Identities => "nident",
            Column::Mismatches => "mismatch",
            Column::Positives => "positive",
            Column::GapOpenings => "gapopen",
            Column::Gaps => "gaps",
            Column::PercentPositives => "ppos",
            Column::QueryCoverage => "qcovhsp",
            Column::Cigar => "cigar",
        }
    }

    /// Whether the column belongs to the query rather than the hit (JSON
    /// writes it once per query).
    pub(super) fn of_query(self) -> bool {
        matches!(self, Column::QueryId | Column::QueryLength)
    }

    /// Whether the column is read from the hit's alignment (coordinates,
    /// aligned residues, counts over its columns, CIGAR) rather than from
    /// the search's score, statistics and the sequences.
    pub fn of_alignment(self) -> bool {
        !matches!(
            self,
            Column::QueryId
                | Column::QueryLength
                | Column::TargetId
                | Column::TargetLength
                | Column::TargetTitle
                | Column::Evalue
                | Column::Bits
                | Column::Score
        )
    }
}

/// Parses `--columns`: BLAST column names separated by commas or spaces
/// (`std` stands for BLAST's 12 default columns).
///
/// ```
/// use host::output::{BLAST6_COLUMNS, Column, parse_columns};
/// assert_eq!(parse_columns("qseqid, sseqid,cigar").unwrap(),
///            [Column::QueryId, Column::TargetId, Column::Cigar]);
/// assert_eq!(parse_columns("std qlen").unwrap().len(), 13);
/// assert!(parse_columns("qseqid,sequence").unwrap_err().contains("sequence"));
/// ```
///
/// # Errors
/// A sentence naming the unknown column and listing the known ones, or
/// saying that no column was given.
pub fn parse_columns(text: &str) -> std::result::Result<Vec<Column>, String> {
    let mut columns = Vec::new();
    for name in text
        .split([',', ' '])
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        if name == "std" {
            columns.extend(BLAST6_COLUMNS);
            continue;
        }
        match Column::ALL.iter().find(|c| c.blast_name() == name) {
            Some(&c) => columns.push(c),
            None => {
                let known: Vec<&str> = Column::ALL.iter().map(|c| c.blast_name()).collect();
                return Err(format!(
                    "unknown column '{name}'; columns: std (BLAST's 12), {}",
                    known.join(", ")
                ));
            }
        }
    }
    if columns.is_empty() {
        return Err("no column given; e.g. --columns qseqid,sseqid,evalue".into());
    }
    Ok(columns)
}
