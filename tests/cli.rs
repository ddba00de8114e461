//! The `warpsw` binary end to end, on the CPU.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::hay::{self, warpsw, write};

/// `warpsw search -q query -d db --device cpu extra…`.
fn search_cpu(query: &Path, db: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "search",
        "-q",
        query.to_str().unwrap(),
        "-d",
        db.to_str().unwrap(),
        "--device",
        "cpu",
    ];
    args.extend_from_slice(extra);
    warpsw(&args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const QUERY: &str =
    "MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKL";

fn search_files(dir: &Path) -> (PathBuf, PathBuf) {
    let query = write(dir, "q.fa", &hay::fasta(&[("hba", QUERY)]));
    let db = write(
        dir,
        "db.fa",
        &hay::fasta(&[
            ("unrelated", "PEPTIDEWITHNOTHINGINCOMMONKKKKRRRR"),
            ("self", QUERY),
            ("half", &QUERY[..45]),
            ("short", "W"),
        ]),
    );
    (query, db)
}

#[test]
fn search_prints_tsv_with_header_best_hit_first() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let out = search_cpu(&q, &d, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "query_id\ttarget_id\tscore\tquery_length\ttarget_length"
    );
    assert!(lines[1].starts_with("hba\tself\t"), "{}", lines[1]);
    assert!(lines[2].starts_with("hba\thalf\t"), "{}", lines[2]);
    assert_eq!(lines.len(), 5);
    assert!(
        stderr(&out).contains("GCUPS"),
        "summary on stderr: {}",
        stderr(&out)
    );
}

#[test]
fn search_writes_json_to_a_file_and_honours_top() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let out_path = dir.path().join("hits.json");
    let out = search_cpu(
        &q,
        &d,
        &[
            "--format",
            "json",
            "--top",
            "2",
            "-o",
            out_path.to_str().unwrap(),
            "--matrix",
            "blosum50",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_path).unwrap()).unwrap();
    let hits = doc[0]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0]["target_id"], "self");
}

#[test]
fn demo_ranks_the_planted_homologs_first() {
    let out = warpsw(&["demo", "--sequences", "1500", "--device", "cpu"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines().skip(1).take(5) {
        assert!(line.contains("\tplanted_"), "{line}");
    }
}

#[test]
fn help_states_the_gap_convention() {
    let out = warpsw(&["search", "--help"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("open + k*extend"));
}

#[test]
fn kernels_lists_every_kernel() {
    let out = warpsw(&["kernels"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for k in host::kernel::KERNELS {
        assert!(text.contains(k.symbol));
    }
}

/// Runs a search expected to fail; returns its stderr.
fn failing_search(query: &Path, db: &Path, extra: &[&str]) -> String {
    let out = search_cpu(query, db, extra);
    assert_eq!(out.status.code(), Some(2), "should fail: {}", stderr(&out));
    assert!(out.stdout.is_empty(), "no partial output");
    stderr(&out)
}

#[test]
fn a_bad_residue_names_file_record_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (q, _) = search_files(dir.path());
    let db = write(
        dir.path(),
        "bad.fa",
        ">ok\nACDE\n>broken thing\nACDE\nAC1DE\n",
    );
    let err = failing_search(&q, &db, &[]);
    assert!(err.contains("bad.fa"), "{err}");
    assert!(err.contains("'broken'"), "{err}");
    assert!(err.contains("line 5"), "{err}");
    assert!(err.contains("'1'"), "{err}");
}

#[test]
fn empty_and_missing_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (q, _) = search_files(dir.path());
    let empty = write(dir.path(), "empty.fa", "");
    assert!(failing_search(&q, &empty, &[]).contains("no FASTA record"));
    let missing = dir.path().join("missing.fa");
    let err = failing_search(&q, &missing, &[]);
    // The file and the operating system's reason, said once.
    assert!(err.contains("missing.fa"), "{err}");
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
    let no_seq = write(dir.path(), "noseq.fa", ">a\nACD\n>b\n>c\nAC\n");
    let err = failing_search(&q, &no_seq, &[]);
    assert!(err.contains("'b'") && err.contains("no sequence"), "{err}");
}

#[test]
fn gpu_memory_takes_a_size() {
    let dir = tempfile::tempdir().unwrap();
    let (q, db) = search_files(dir.path());
    let err = failing_search(&q, &db, &["--gpu-memory", "12XB"]);
    assert!(
        err.contains("--gpu-memory") && err.contains("8GiB"),
        "{err}"
    );
    assert!(failing_search(&q, &db, &["--gpu-memory", "0"]).contains("more than 0"));
    let out = search_cpu(&q, &db, &["--gpu-memory", "500MiB"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_truncated_gzip_is_an_error() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (q, _) = search_files(dir.path());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for i in 0..2000 {
        writeln!(gz, ">s{i}\n{QUERY}").unwrap();
    }
    let bytes = gz.finish().unwrap();
    let path = dir.path().join("cut.fa.gz");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = failing_search(&q, &path, &[]);
    assert!(err.contains("cut.fa.gz"), "{err}");
}

#[test]
fn bad_scoring_options_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    assert!(failing_search(&q, &d, &["--matrix", "blosum63"]).contains("unknown matrix"));
    assert!(failing_search(&q, &d, &["--gap-open", "-3"]).contains("negative"));
    let m = write(dir.path(), "m.txt", "   A  R\nA  4 -1\nR -1  5\n");
    let err = failing_search(&q, &d, &["--matrix-file", m.to_str().unwrap()]);
    assert!(err.contains("m.txt"), "{err}");
    assert!(failing_search(&q, &d, &["--kernel", "warp9"]).contains("unknown kernel"));
}

#[test]
fn makedb_then_search_equals_searching_the_fasta() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let wsw = dir.path().join("db.wsw");
    let made = warpsw(&["makedb", d.to_str().unwrap(), "-o", wsw.to_str().unwrap()]);
    assert!(made.status.success(), "{}", stderr(&made));
    let search = |db: &Path| {
        let out = search_cpu(&q, db, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        out.stdout
    };
    assert_eq!(search(&wsw), search(&d));
    // A damaged file is an error, not a wrong answer.
    let mut bytes = std::fs::read(&wsw).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    let bad = dir.path().join("bad.wsw");
    std::fs::write(&bad, &bytes).unwrap();
    let err = failing_search(&q, &bad, &[]);
    assert!(err.contains("bad.wsw"), "{err}");
}

#[test]
fn devices_and_balance_are_validated() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    assert!(
        failing_search(&q, &d, &["--balance", "roundrobin"]).contains("unknown dispatch policy")
    );
    let out = search_cpu(&q, &d, &["--devices", "0,x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--devices"), "{}", stderr(&out));
}
