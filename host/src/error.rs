//! Errors of the host library: each names what failed and where.

use std::path::PathBuf;

/// Any error of the host library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Occurs when a FASTA file cannot be read or holds something that is not
    /// a protein FASTA record.
    #[error("{}: {}{kind}", path.display(), location(record, *line))]
    Fasta {
        /// The file.
        path: PathBuf,
        /// The record's id, when the error is inside a record.
        record: Option<String>,
        /// 1-based line number, when known.
        line: Option<u64>,
        /// What is wrong.
        kind: FastaErrorKind,
    },
    /// Occurs when a file cannot be opened, read or written. The message
    /// carries the operating system's reason, so it is not also a `source`
    /// (which would print it twice in an error chain).
    #[error("{}: {reason}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        reason: std::io::Error,
    },
    /// Occurs when `--matrix` names no built-in matrix.
    #[error("unknown matrix '{name}'; built-in matrices: {known}")]
    UnknownMatrix {
        /// The name given.
        name: String,
        /// The built-in names, comma separated.
        known: String,
    },
    /// Occurs when a matrix file is not a valid NCBI-format matrix.
    #[error("matrix {source_name}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Matrix {
        /// The matrix file (or built-in name).
        source_name: String,
        /// 1-based line number, when the problem is on one line.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// Occurs when gap penalties are negative or too large.
    #[error("invalid gap penalties (open {open}, extend {extend}): {reason}")]
    InvalidGap {
        /// Gap open penalty given.
        open: i32,
        /// Gap extend penalty given.
        extend: i32,
        /// Why they are rejected.
        reason: &'static str,
    },
    /// Occurs when a `.wsw` database file is malformed.
    #[error("{}: {message}", path.display())]
    DbFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Occurs when no CUDA driver can be loaded.
    #[error("no CUDA driver found ({0})")]
    NoDriver(String),
    /// Occurs when the driver loads but reports no GPU.
    #[error("the CUDA driver reports no GPU")]
    NoDevice,
    /// Occurs when a CUDA call fails; names the GPU and the pipeline stage,
    /// with the driver's error as the source.
    #[error("GPU {device} ({name}): {stage}")]
    Gpu {
        /// Device ordinal.
        device: usize,
        /// Device name, when known.
        name: String,
        /// The stage that failed (e.g. "uploading the database").
        stage: &'static str,
        /// The driver's error.
        source: cudarc::driver::DriverError,
    },
    /// Occurs when every device of a multi-device search has failed, so no
    /// complete result exists; lists each device's error.
    #[error("every device failed: {0}")]
    AllDevicesFailed(String),
    /// Occurs when options contradict each other or are out of range.
    #[error("{0}")]
    InvalidArgument(String),
    /// Occurs when warpsw breaks one of its own rules (a bug, never the
    /// user's input): says which, so that it can be reported.
    #[error("internal error (please report it): {0}")]
    Internal(String),
    /// Occurs when a reported hit cannot be realigned with traceback (out
    /// of memory, a GPU error); names the pair.
    #[error("aligning query {query} with {target}")]
    Aligning {
        /// The query's id.
        query: String,
        /// The database sequence's id.
        target: String,
        /// Why it failed.
        source: Box<Error>,
    },
}

/// A driver error on GPU `device` (named `name`) at `stage`, as [`Error::Gpu`].
pub(crate) fn gpu_error(
    device: usize,
    name: &str,
    stage: &'static str,
) -> impl Fn(cudarc::driver::DriverError) -> Error + use<> {
    let name = name.to_string();
    move |source| Error::Gpu {
        device,
        name: name.clone(),
        stage,
        source,
    }
}

fn location(record: &Option<String>, line: Option<u64>) -> String {
    match (record, line) {
        (Some(r), Some(l)) => format!("record '{r}' at line {l}: "),
        (Some(r), None) => format!("record '{r}': "),
        (None, Some(l)) => format!("line {l}: "),
        (None, None) => String::new(),
    }
}

/// What is wrong in a FASTA file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FastaErrorKind {
    /// Occurs when the file holds no record at all.
    #[error("the file holds no FASTA record")]
    Empty,
    /// Occurs when a record has a header but no residues.
    #[error("the record has no sequence")]
    EmptySequence,
    /// Occurs when a sequence holds a character that is no residue letter.
    #[error(
        "'{letter}' at column {column} is not an amino-acid letter (expected one of ACDEFGHIKLMNPQRSTVWY, B Z X *, U O J)"
    )]
    BadResidue {
        /// The offending character.
        letter: char,
        /// 1-based column on its line.
        column: usize,
    },
    /// Occurs when a header has no id (nothing but whitespace after `>`).
    #[error("record {number} has no id (nothing after '>'); every record needs one")]
    EmptyId {
        /// 1-based number of the record in the file.
        number: usize,
    },
    /// Occurs when a sequence is longer than the kernels and the database
    /// format can index.
    #[error("the sequence has {length} residues; at most {limit} are supported")]
    TooLong {
        /// Its length (so far, when reading stopped there).
        length: usize,
        /// The most residues a sequence may have.
        limit: usize,
    },
    /// Occurs when the file does not start with a `>` header.
    #[error("expected a '>' header line, found {0}")]
    NotFasta(String),
    /// Occurs when the file cannot be parsed or decompressed (a truncated
    /// gzip stream, for example).
    #[error("{0}")]
    Parse(String),
}

/// The host library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
