//! Shared inputs: tiny FASTA texts, random sequences, matrices, gap settings.

use host::kernel::{AutoOptions, Handoff, KERNELS, Kernel, KernelChoice, Plan, Target, plan};
use host::matrix::{BUILTIN, ScoreMatrix};
use host::scoring::{GapPenalty, Scoring};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Gap settings every kernel is checked with: BLOSUM62's usual one, the
/// paper's, free opens (long lazy-F runs), cheap and extreme penalties.
pub const GAP_SETTINGS: [(i32, i32); 7] =
    [(11, 1), (10, 2), (0, 1), (1, 1), (20, 5), (40, 3), (5, 0)];

/// Every built-in matrix.
pub fn matrices() -> Vec<ScoreMatrix> {
    BUILTIN
        .iter()
        .map(|name| ScoreMatrix::by_name(name).unwrap())
        .collect()
}

/// BLOSUM62 with `open`/`extend`.
pub fn blosum62(open: i32, extend: i32) -> Scoring {
    Scoring {
        matrix: ScoreMatrix::by_name("blosum62").unwrap(),
        gaps: GapPenalty::new(open, extend).unwrap(),
    }
}

/// A deterministic random generator for test `seed`.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Random residue codes of the 20 standard amino acids, or of all 24 codes
/// when `all_codes` is set.
pub fn random_codes(rng: &mut StdRng, len: usize, all_codes: bool) -> Vec<u8> {
    let n = if all_codes { 24 } else { 20 };
    (0..len).map(|_| rng.random_range(0..n)).collect()
}

/// A copy of `seq` with about `1 - identity` of it substituted, deleted or
/// duplicated, so alignments have real gaps.
pub fn mutate(rng: &mut StdRng, seq: &[u8], identity: f64) -> Vec<u8> {
    let mut out = Vec::with_capacity(seq.len() + 8);
    for &c in seq {
        let r: f64 = rng.random();
        if r < identity {
            out.push(c);
        } else if r < identity + (1.0 - identity) / 2.0 {
            out.push(rng.random_range(0..20));
        } else if r < identity + 3.0 * (1.0 - identity) / 4.0 {
            // deletion
        } else {
            out.push(c);
            for _ in 0..rng.random_range(1..4) {
                out.push(rng.random_range(0..20));
            }
        }
    }
    out
}

/// A random length in `0..=max`, skewed short (most proteins are).
pub fn skewed_length(rng: &mut StdRng, max: usize) -> usize {
    let u: f64 = rng.random();
    (u * u * max as f64) as usize
}

/// `count` random sequences of [`skewed_length`] lengths (at most `max`),
/// of the 20 standard codes or of all 24 (`all_codes`).
pub fn skewed_sequences(
    rng: &mut StdRng,
    count: usize,
    max: usize,
    all_codes: bool,
) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            let len = skewed_length(rng, max);
            random_codes(rng, len, all_codes)
        })
        .collect()
}

/// A FASTA file's text from `(id, letters)` records.
pub fn fasta(records: &[(impl AsRef<str>, impl AsRef<str>)]) -> String {
    records
        .iter()
        .map(|(id, s)| format!(">{}\n{}\n", id.as_ref(), s.as_ref()))
        .collect()
}

/// Records named `s0`, `s1`, … holding `seqs`.
pub fn records(seqs: Vec<Vec<u8>>) -> Vec<host::fasta::Record> {
    seqs.into_iter()
        .enumerate()
        .map(|(i, codes)| host::fasta::Record {
            id: format!("s{i}"),
            description: String::new(),
            codes,
        })
        .collect()
}

/// A database of `seqs` (see [`records`]).
pub fn database(seqs: Vec<Vec<u8>>) -> host::db::Database {
    host::db::Database::from_records(records(seqs))
}

/// Every kernel of `KERNELS`, and `auto` with a threshold low enough (and
/// no database-size rule) that both of its stages run on the test
/// databases of a GPU.
pub fn kernels_and_auto() -> Vec<KernelChoice> {
    let mut kernels: Vec<_> = KERNELS
        .iter()
        .map(|k| KernelChoice::One(k.kernel))
        .collect();
    for long in [
        Kernel::Parallelogram(Handoff::Shuffles),
        plan::DEFAULT_AUTO_LONG,
    ] {
        kernels.push(KernelChoice::Auto(AutoOptions {
            threshold: 300,
            long,
            min_sequences: 0,
            group_min_sequences: usize::MAX,
            query_group_max: 0,
            query_group_min_sequences: 0,
        }));
    }
    // The group plan split at 300 residues (GPUs with DPX): query-group
    // below, group above.
    kernels.push(KernelChoice::Auto(AutoOptions {
        group_min_sequences: 0,
        query_group_max: 300,
        query_group_min_sequences: 0,
        ..AutoOptions::default()
    }));
    kernels
}

/// `choice` resolved for `target` on `db` with `scoring`'s gaps.
pub fn plan(
    choice: KernelChoice,
    target: Target,
    db: &host::db::Database,
    scoring: &host::scoring::Scoring,
) -> Plan {
    Plan::new(choice, target, db, scoring.gaps.kernel_gaps())
}

/// Runs the `warpsw` binary with `args`.
pub fn warpsw(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_warpsw"))
        .args(args)
        .output()
        .expect("the warpsw binary runs")
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
