//! Alignments with traceback (gpu-pairAlign's kernels on the host) against the
//! scalar reference, and the `align`/`allpairs` commands end to end.

use std::process::Output;

use host::align::cpu::align_pairs;
use host::align::{Alignment, align, check_alignment};
use host::alphabet::encode_all;
use host::matrix::ScoreMatrix;
use host::reference::{Mode, score};
use host::scoring::{GapPenalty, Scoring};
use proptest::prelude::*;
use rand::Rng;

use crate::hay::{self, warpsw, write};

/// The traceback brief's gap settings.
const GAPS: [(i32, i32); 5] = [(11, 1), (0, 1), (20, 5), (10, 2), (1, 1)];

fn scoring(matrix: &ScoreMatrix, (open, extend): (i32, i32)) -> Scoring {
    Scoring {
        matrix: matrix.clone(),
        gaps: GapPenalty::new(open, extend).unwrap(),
    }
}

/// Everything a returned alignment must satisfy.
fn assert_exact(a: &Alignment, mode: Mode, q: &[u8], t: &[u8], s: &Scoring) {
    let expected = score(mode, q, t, s);
    assert_eq!(
        a.score,
        expected,
        "{mode} {} q={q:?} t={t:?}",
        s.matrix.name()
    );
    if let Err(e) = check_alignment(a, mode, q, t, s) {
        panic!("{mode} {} q={q:?} t={t:?}: {e}", s.matrix.name());
    }
}

/// Random pairs over every matrix, gap setting and mode, in one batch per
/// (matrix, gaps, mode): unrelated, homologous and small-alphabet pairs.
#[test]
fn traceback_batches_match_the_reference_everywhere() {
    let mut rng = hay::rng(3);
    for matrix in hay::matrices() {
        for gaps in GAPS {
            let s = scoring(&matrix, gaps);
            let mut seqs: Vec<Vec<u8>> = Vec::new();
            for k in 0..8 {
                let len = hay::skewed_length(&mut rng, 300);
                let seq = match k % 3 {
                    0 => hay::random_codes(&mut rng, len, true),
                    1 => (0..len).map(|_| rng.random_range(0..3)).collect(),
                    _ => hay::mutate(&mut rng, seqs.last().unwrap_or(&vec![1, 2, 3]), 0.7),
                };
                seqs.push(seq);
            }
            seqs.push(Vec::new());
            let pairs: Vec<(usize, usize)> = (0..seqs.len())
                .flat_map(|a| (0..seqs.len()).map(move |b| (a, b)))
                .filter(|(a, b)| (a + b) % 3 == 0 || a + 1 == *b)
                .collect();
            for mode in Mode::ALL {
                // A small budget: many windows, some pairs alone in one.
                let results = align_pairs(&seqs, &pairs, mode, &s, 40_000, None);
                for (&(a, b), r) in pairs.iter().zip(results) {
                    assert_exact(&r.unwrap(), mode, &seqs[a], &seqs[b], &s);
                }
            }
        }
    }
}

#[test]
fn traceback_is_deterministic_across_windows_and_threads() {
    let mut rng = hay::rng(11);
    let seqs: Vec<Vec<u8>> = (0..12)
        .map(|_| {
            (0..rng.random_range(0..120))
                .map(|_| rng.random_range(0..2))
                .collect()
        })
        .collect();
    let pairs: Vec<(usize, usize)> = (0..12).flat_map(|a| (0..12).map(move |b| (a, b))).collect();
    let s = hay::blosum62(0, 1);
    for mode in Mode::ALL {
        let one = align_pairs(&seqs, &pairs, mode, &s, 1 << 30, None);
        let many = align_pairs(&seqs, &pairs, mode, &s, 1, None);
        for ((&(a, b), x), y) in pairs.iter().zip(one).zip(many) {
            let (x, y) = (x.unwrap(), y.unwrap());
            assert_eq!(x, y);
            assert_eq!(x, align(mode, &seqs[a], &seqs[b], &s).unwrap());
        }
    }
}

#[test]
fn traceback_durbin_heagawghee_pawheae() {
    // Durbin, Eddy, Krogh & Mitchison (1998), Biological Sequence Analysis,
    // §2.3: BLOSUM50, linear gap cost 8 (open 0, extend 8 here).
    let s = scoring(&ScoreMatrix::by_name("blosum50").unwrap(), (0, 8));
    let q = encode_all(b"HEAGAWGHEE").unwrap();
    let t = encode_all(b"PAWHEAE").unwrap();
    let local = align(Mode::Local, &q, &t, &s).unwrap();
    assert_exact(&local, Mode::Local, &q, &t, &s);
    // AWGHE
    // AW-HE
    assert_eq!((local.score, local.cigar().as_str()), (28, "2M1I2M"));
    assert_eq!(local.extended_cigar(&q, &t), "2=1I2=");
    assert_eq!(
        (
            local.query_start,
            local.query_end,
            local.target_start,
            local.target_end
        ),
        (5, 9, 2, 5)
    );
    let global = align(Mode::Global, &q, &t, &s).unwrap();
    assert_exact(&global, Mode::Global, &q, &t, &s);
    // HEAGAWGHE-E
    // --P-AW-HEAE
    assert_eq!(
        (global.score, global.cigar().as_str()),
        (1, "2I1M1I2M1I2M1D1M")
    );
    assert_eq!(global.length, 11);
    assert_eq!(global.matches, 5);
}

#[test]
fn traceback_empty_and_unrelated_pairs() {
    let s = hay::blosum62(11, 1);
    let w = encode_all(b"WWW").unwrap();
    let e: Vec<u8> = Vec::new();
    for mode in Mode::ALL {
        for (q, t) in [(&e, &e), (&w, &e), (&e, &w), (&w, &w)] {
            assert_exact(&align(mode, q, t, &s).unwrap(), mode, q, t, &s);
        }
    }
    let none = align(Mode::Local, &w, &encode_all(b"PPP").unwrap(), &s).unwrap();
    assert_eq!((none.score, none.length, none.cigar().as_str()), (0, 0, ""));
    assert_eq!((none.query_start, none.query_end), (1, 0));
    let gaps = align(Mode::Global, &w, &e, &s).unwrap();
    assert_eq!((gaps.score, gaps.cigar().as_str()), (-14, "3I"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn traceback_proptest_any_pair(
        q in proptest::collection::vec(0u8..24, 0..60),
        t in proptest::collection::vec(0u8..24, 0..60),
        matrix in 0usize..host::matrix::BUILTIN.len(),
        gaps in 0usize..GAPS.len(),
        mode in 0usize..3,
    ) {
        let s = scoring(&ScoreMatrix::by_name(host::matrix::BUILTIN[matrix]).unwrap(), GAPS[gaps]);
        let mode = Mode::ALL[mode];
        let a = align(mode, &q, &t, &s).unwrap();
        prop_assert_eq!(a.score, score(mode, &q, &t, &s));
        prop_assert_eq!(check_alignment(&a, mode, &q, &t, &s), Ok(()));
    }
}

// ---- CLI ----

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn traceback_cli_align_tsv_durbin() {
    let dir = tempfile::tempdir().unwrap();
    let q = write(dir.path(), "q.fa", &hay::fasta(&[("q1", "HEAGAWGHEE")]));
    let t = write(
        dir.path(),
        "t.fa",
        &hay::fasta(&[("t1", "PAWHEAE"), ("t2", "HEAGAWGHEE")]),
    );
    let out = stdout(&warpsw(&[
        "align",
        "--query",
        q.to_str().unwrap(),
        "--target",
        t.to_str().unwrap(),
        "--mode",
        "local",
        "--matrix",
        "blosum50",
        "--gap-open",
        "0",
        "--gap-extend",
        "8",
    ]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "qseqid\tsseqid\tscore\tqstart\tqend\tsstart\tsend\tpident\tlength\tcigar"
    );
    assert_eq!(lines[1], "q1\tt1\t28\t5\t9\t2\t5\t80.000\t5\t2M1I2M");
    assert!(lines[2].starts_with("q1\tt2\t"), "{}", lines[2]);
    assert!(lines[2].ends_with("\t100.000\t10\t10M"), "{}", lines[2]);
    assert_eq!(lines.len(), 3);
}

#[test]
fn traceback_cli_allpairs_json_pairwise_and_extended_cigar() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "s.fa",
        &hay::fasta(&[("a", "HEAGAWGHEE"), ("b", "PAWHEAE"), ("c", "HEAGAWGHEE")]),
    );
    let base = [
        "allpairs",
        "--input",
        input.to_str().unwrap(),
        "--mode",
        "global",
        "--matrix",
        "blosum50",
        "--gap-open",
        "0",
        "--gap-extend",
        "8",
    ];
    let json_path = dir.path().join("out.json");
    let mut args = base.to_vec();
    args.extend([
        "--format",
        "json",
        "--extended-cigar",
        "--out",
        json_path.to_str().unwrap(),
    ]);
    stdout(&warpsw(&args));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 3, "pairs a-b, a-c, b-c");
    assert_eq!(rows[0]["qseqid"], "a");
    assert_eq!(rows[0]["sseqid"], "b");
    assert_eq!(rows[0]["score"], 1);
    assert_eq!(rows[0]["cigar"], "2I1X1I2=1I2=1D1=");
    assert_eq!(rows[1]["cigar"], "10=");

    let mut args = base.to_vec();
    args.extend(["--format", "pairwise"]);
    let text = stdout(&warpsw(&args));
    assert!(text.contains("HEAGAWGHE-E"), "{text}");
    assert!(text.contains("--P-AW-HEAE"), "{text}");
}

#[test]
fn traceback_cli_reports_bad_input_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "s.fa", &hay::fasta(&[("a", "HEAGAWGHEE")]));
    let o = warpsw(&[
        "allpairs",
        "--input",
        input.to_str().unwrap(),
        "--mode",
        "glocal",
    ]);
    assert!(!o.status.success());
    let o = warpsw(&[
        "align",
        "--query",
        "/nonexistent.fa",
        "--target",
        input.to_str().unwrap(),
        "--mode",
        "local",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("nonexistent.fa") && err.contains("query"),
        "{err}"
    );
}

/// More pairs than one run can number (`u32`) is refused up front, before
/// any pair is made: 92,682 sequences make 4,294,930,221 pairs (fits),
/// 92,683 make 4,295,022,903 (does not).
#[test]
fn traceback_cli_refuses_more_pairs_than_a_run_can_number() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..92_683).map(|k| format!(">s{k}\nA\n")).collect();
    let input = write(dir.path(), "many.fa", &text);
    let o = warpsw(&[
        "allpairs",
        "--input",
        input.to_str().unwrap(),
        "--mode",
        "local",
        "--device",
        "cpu",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("92683 sequences make 4295022903 pairs") && err.contains("split the input"),
        "{err}"
    );
}
