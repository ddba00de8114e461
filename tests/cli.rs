//! The `warpsw` binary end to end, on the CPU.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::hay::{self, warpsw, write};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The arguments of `warpsw command -q query -d db --device cpu extra…`
/// (`command`: `search` or `bench`).
fn cpu_args<'a>(
    command: &'a str,
    query: &'a Path,
    db: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![command, "-q", s(query), "-d", s(db), "--device", "cpu"];
    args.extend_from_slice(extra);
    args
}

/// `warpsw search -q query -d db --device cpu extra…`.
fn search_cpu(query: &Path, db: &Path, extra: &[&str]) -> Output {
    warpsw(&cpu_args("search", query, db, extra))
}

/// `'warpsw' search -q 'query' -d 'db' --device cpu` as a shell command, for
/// runs under `ulimit` or on a pseudo-terminal.
fn search_cpu_command(query: &Path, db: &Path) -> String {
    format!(
        "'{}' search -q '{}' -d '{}' --device cpu",
        env!("CARGO_BIN_EXE_warpsw"),
        s(query),
        s(db)
    )
}

/// Runs `script` with `bash -c`.
fn bash(script: &str) -> Output {
    std::process::Command::new("bash")
        .args(["-c", script])
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The header of `search`'s TSV.
const TSV_HEADER: &str = "qseqid\tsseqid\tscore\tbitscore\tevalue\tqlen\tslen\t\
    pident\tlength\tmismatch\tgapopen\tqstart\tqend\tsstart\tsend\tcigar";

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
    // Every hit, however weak: the database is too small for the fit, so
    // the fixed parameters of BLOSUM62 11/1 give the E-values.
    let out = search_cpu(&q, &d, &["--evalue", "1e9"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], TSV_HEADER);
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
            "--gap-open",
            "13",
            "--gap-extend",
            "2",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_path).unwrap()).unwrap();
    let hits = doc[0]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0]["sseqid"], "self");
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

/// The stderr of a run expected to fail on bad input (exit status 2).
fn failure_stderr(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "should fail: {}", stderr(out));
    stderr(out)
}

/// Runs a search expected to fail; returns its stderr.
fn failing_search(query: &Path, db: &Path, extra: &[&str]) -> String {
    let out = search_cpu(query, db, extra);
    let err = failure_stderr(&out);
    assert!(out.stdout.is_empty(), "no partial output");
    err
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
    let err = failure_stderr(&out);
    assert!(err.contains("--devices"), "{err}");
}

// ---- Nothing lost, nothing surprising: outputs, inputs, progress. ----

/// `warpsw args…` with `input` on standard input.
fn warpsw_with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_warpsw"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// The names in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_unwritable_output_fails_before_any_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    // The query file is missing too: the output is checked first.
    let missing = dir.path().join("missing.fa");
    let err = failing_search(&missing, &d, &["-o", "/nonexistent/x.tsv"]);
    assert!(
        err.contains("/nonexistent") && err.contains("does not exist"),
        "{err}"
    );
    let err = failing_search(&q, &d, &["-o", s(dir.path())]);
    assert!(err.contains("is a directory"), "{err}");
    let out = warpsw(&[
        "allpairs",
        "-i",
        s(&missing),
        "--mode",
        "local",
        "--device",
        "cpu",
        "-o",
        "/nonexistent/x.tsv",
    ]);
    let err = failure_stderr(&out);
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn a_full_device_fails_before_the_search() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    // `--device auto` opens the engine with a notice where there is no GPU
    // ("...; using the CPU"): the error must come before that.
    let out = warpsw(&["search", "-q", s(&q), "-d", s(&d), "-o", "/dev/full"]);
    let err = failure_stderr(&out);
    assert!(err.contains("writing /dev/full"), "{err}");
    assert!(
        !err.contains("using the CPU") && !err.contains("GCUPS"),
        "{err}"
    );
}

/// `--gpu-query-batch` with `--device auto` where there is no GPU: the
/// search runs on the CPU and says once that the batch has no effect.
#[test]
fn a_query_batch_on_the_cpu_fallback_is_said_to_have_no_effect() {
    let dir = tempfile::tempdir().unwrap();
    let (_, d) = search_files(dir.path());
    let q = write(
        dir.path(),
        "q3.fa",
        &hay::fasta(&[("a", QUERY), ("b", &QUERY[..50]), ("c", &QUERY[20..90])]),
    );
    let out = warpsw(&[
        "search",
        "-q",
        s(&q),
        "-d",
        s(&d),
        "--gpu-query-batch",
        "64",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    if err.contains("using the CPU") {
        assert!(
            err.contains("--gpu-query-batch 64 has no effect: the search runs on the CPU"),
            "{err}"
        );
    }
}

#[test]
fn a_disk_filling_mid_write_leaves_no_cut_file() {
    let dir = tempfile::tempdir().unwrap();
    let (q, _) = search_files(dir.path());
    // Enough hits for several KiB of output.
    let mut rng = hay::rng(20);
    let seqs: Vec<(String, String)> = (0..200)
        .map(|i| {
            let codes = hay::random_codes(&mut rng, 60, false);
            (
                format!("target_with_a_long_name_{i}"),
                host::alphabet::decode_all(&codes),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = seqs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let d = write(dir.path(), "big.fa", &hay::fasta(&pairs));
    let out_path = dir.path().join("out.tsv");
    std::fs::write(&out_path, "previous results\n").unwrap();
    let out = bash(&format!(
        "ulimit -f 2; exec {} --top 2000 --evalue 1e9 -o '{}'",
        search_cpu_command(&q, &d),
        s(&out_path)
    ));
    let err = failure_stderr(&out);
    assert!(err.contains("out.tsv"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&out_path).unwrap(),
        "previous results\n"
    );
    assert_eq!(entries(dir.path()), ["big.fa", "db.fa", "out.tsv", "q.fa"]);
}

#[test]
fn makedb_refuses_to_overwrite_its_input_and_duplicate_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (_, d) = search_files(dir.path());
    let before = std::fs::read(&d).unwrap();
    let out = warpsw(&["makedb", s(&d), "-o", s(&d)]);
    let err = failure_stderr(&out);
    assert!(err.contains("is also an input"), "{err}");
    assert_eq!(std::fs::read(&d).unwrap(), before);

    let dup = write(dir.path(), "dup.fa", ">a\nMKV\n>b\nWW\n>a\nKK\n");
    let wsw = dir.path().join("dup.wsw");
    let out = warpsw(&["makedb", s(&dup), "-o", s(&wsw)]);
    let err = failure_stderr(&out);
    assert!(err.contains("records 1 and 3"), "{err}");
    assert!(!wsw.exists());
}

/// Query and database files for a search that runs a few seconds on one
/// CPU thread: many queries, each finished query written as it completes.
fn slow_search_files(dir: &Path) -> (PathBuf, PathBuf, usize) {
    let mut rng = hay::rng(21);
    let mut fasta = |name: &str, count: usize, len: usize| {
        let seqs: Vec<(String, String)> = (0..count)
            .map(|i| {
                let codes = hay::random_codes(&mut rng, len, false);
                (format!("{name}{i}"), host::alphabet::decode_all(&codes))
            })
            .collect();
        let pairs: Vec<(&str, &str)> = seqs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        write(dir, &format!("{name}.fa"), &hay::fasta(&pairs))
    };
    let queries = 400;
    (fasta("q", queries, 400), fasta("t", 3000, 400), queries)
}

/// Starts a slow search into `dir/hits.tsv`, waits until its temporary
/// file holds at least one finished query, sends `signal` and waits.
fn interrupted_search(dir: &Path, signal: libc::c_int) -> std::process::ExitStatus {
    let (q, d, _) = slow_search_files(dir);
    let out_path = dir.join("hits.tsv");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_warpsw"))
        .args(["--threads", "1"])
        .args(cpu_args(
            "search",
            &q,
            &d,
            &["--evalue", "1e9", "-o", s(&out_path)],
        ))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    loop {
        let temp = entries(dir)
            .into_iter()
            .find(|n| n.starts_with(".hits.tsv."));
        let lines = temp.map_or(0, |n| {
            std::fs::read_to_string(dir.join(n)).map_or(0, |t| t.lines().count())
        });
        if lines > 1 {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 60 && child.try_wait().unwrap().is_none(),
            "the search ended or wrote nothing"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    child.wait().unwrap()
}

/// The finished queries' lines: a header and whole TSV rows, not all queries.
fn check_partial_hits(text: &str, all_queries: usize) {
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], TSV_HEADER);
    assert!(text.ends_with('\n'));
    for line in &lines[1..] {
        assert_eq!(line.split('\t').count(), 16, "{line}");
    }
    let queries: std::collections::BTreeSet<&str> = lines[1..]
        .iter()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert!(
        !queries.is_empty() && queries.len() < all_queries,
        "{}",
        queries.len()
    );
    // Order kept: q0, q1, ... with none skipped.
    let numbers: Vec<usize> = queries.iter().map(|q| q[1..].parse().unwrap()).collect();
    let mut sorted = numbers.clone();
    sorted.sort();
    assert_eq!(sorted, (0..numbers.len()).collect::<Vec<_>>());
}

#[test]
fn sigint_keeps_the_finished_queries_in_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let status = interrupted_search(dir.path(), libc::SIGINT);
    assert_eq!(status.code(), Some(128 + libc::SIGINT), "{status:?}");
    assert!(!dir.path().join("hits.tsv").exists());
    let partial = dir.path().join("hits.tsv.partial");
    check_partial_hits(&std::fs::read_to_string(&partial).unwrap(), 400);
    assert_eq!(entries(dir.path()), ["hits.tsv.partial", "q.fa", "t.fa"]);
}

#[test]
fn sigkill_leaves_no_complete_looking_output() {
    let dir = tempfile::tempdir().unwrap();
    let status = interrupted_search(dir.path(), libc::SIGKILL);
    assert!(!status.success());
    assert!(!dir.path().join("hits.tsv").exists());
    let left: Vec<String> = entries(dir.path())
        .into_iter()
        .filter(|n| !n.ends_with(".fa"))
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0].starts_with(".hits.tsv.") && left[0].ends_with(".partial"),
        "{left:?}"
    );
    check_partial_hits(
        &std::fs::read_to_string(dir.path().join(&left[0])).unwrap(),
        400,
    );
}

#[test]
fn whitespace_and_a_byte_order_mark_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let plain = search_cpu(&q, &d, &[]);
    let spaced: String = std::fs::read_to_string(&q)
        .unwrap()
        .lines()
        .map(|l| {
            if l.starts_with('>') {
                format!("{l}\n")
            } else {
                format!("{} {}  \t\n", &l[..7], &l[7..])
            }
        })
        .collect();
    let q2 = dir.path().join("spaced.fa");
    std::fs::write(&q2, [&[0xEF, 0xBB, 0xBF][..], spaced.as_bytes()].concat()).unwrap();
    let out = search_cpu(&q2, &d, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
}

#[test]
fn empty_ids_are_errors_and_duplicates_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let empty = write(dir.path(), "empty_id.fa", &format!(">a\nMKV\n>\n{QUERY}\n"));
    let err = failing_search(&q, &empty, &[]);
    assert!(
        err.contains("empty_id.fa: line 3: record 2 has no id"),
        "{err}"
    );
    let dup = write(dir.path(), "dup.fa", &format!(">a\n{QUERY}\n>a\nMKV\n"));
    let out = search_cpu(&q, &dup, &[]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("warning: ") && stderr(&out).contains("records 1 and 2"),
        "{}",
        stderr(&out)
    );
    let _ = d;
}

#[test]
fn dash_is_standard_input_and_output_and_gz_is_compressed() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let plain = search_cpu(&q, &d, &[]);
    let out = warpsw_with_stdin(
        &[
            "search",
            "-q",
            "-",
            "-d",
            s(&d),
            "--device",
            "cpu",
            "-o",
            "-",
        ],
        &std::fs::read(&q).unwrap(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, plain.stdout);
    assert!(!Path::new("-").exists());
    let gz = dir.path().join("hits.tsv.gz");
    let out = search_cpu(&q, &d, &["-o", s(&gz)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(&gz).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    assert_eq!(text, plain.stdout);
    let out = search_cpu(Path::new("-"), Path::new("-"), &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn control_characters_in_ids_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let (q, _) = search_files(dir.path());
    let d = write(
        dir.path(),
        "esc.fa",
        &format!(">evil\x1b]0;x\x07\x00id\n{QUERY}\n>bad\x1b[2J\nM-K\n"),
    );
    let err = failing_search(&q, &d, &[]);
    assert!(
        !err.contains('\x1b') && err.contains("bad\\x1B[2J"),
        "{err}"
    );
    let d = write(
        dir.path(),
        "esc2.fa",
        &format!(">evil\x1b]0;x\x07\x00id\n{QUERY}\n"),
    );
    let out = search_cpu(&q, &d, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains(['\x1b', '\x07', '\0']), "{text:?}");
    assert!(text.contains("evil\\x1B]0;x\\x07\\x00id\t"), "{text:?}");
}

#[test]
fn pairwise_columns_line_up_with_long_ids() {
    let dir = tempfile::tempdir().unwrap();
    let q = write(
        dir.path(),
        "q.fa",
        &format!(">sp|P69905|HBA_HUMAN_WITH_A_LONG_NAME\n{QUERY}\n"),
    );
    let t = write(
        dir.path(),
        "t.fa",
        &format!(">tr|A0A0A0MRZ7|A0A0A0MRZ7_HUMAN_LONGER\n{}\n", &QUERY[3..]),
    );
    let out = warpsw(&[
        "align",
        "-q",
        s(&q),
        "-t",
        s(&t),
        "--mode",
        "local",
        "--device",
        "cpu",
        "--format",
        "pairwise",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    for block in rows.chunks(3) {
        // The residues start in the same column on all three rows.
        let start = |row: &str| {
            row.len()
                - row
                    .trim_start_matches(|c: char| !c.is_ascii_whitespace())
                    .len()
        };
        let seq_col = |row: &str| {
            let after_id = &row[start(row)..];
            let after_pos = after_id
                .trim_start()
                .trim_start_matches(|c: char| c.is_ascii_digit());
            row.len() - after_pos.len() + 1
        };
        assert_eq!(seq_col(block[0]), seq_col(block[2]), "{block:?}");
        assert_eq!(block[0].len(), block[2].len(), "{block:?}");
    }
}

/// Splits one CSV line (RFC 4180 quoting).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted, mut chars) =
        (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[test]
fn bench_csv_quotes_its_fields() {
    let dir = tempfile::tempdir().unwrap();
    let (_, d) = search_files(dir.path());
    let q = write(dir.path(), "q.fa", &format!(">a,b\"c\n{QUERY}\n"));
    let csv = dir.path().join("bench.csv");
    for _ in 0..2 {
        let out = warpsw(&cpu_args(
            "bench",
            &q,
            &d,
            &[
                "--warmup",
                "0",
                "--repeat",
                "1",
                "--check",
                "4",
                "--csv",
                s(&csv),
            ],
        ));
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let header = csv_fields(lines[0]);
    for row in &lines[1..] {
        let fields = csv_fields(row);
        assert_eq!(fields.len(), header.len(), "{row}");
        assert_eq!(fields[4], "a,b\"c");
    }
}

#[test]
fn quiet_silences_notices_and_counts_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    // Without a GPU, `auto` says it uses the CPU; --quiet keeps that quiet.
    let out = warpsw(&["search", "-q", s(&q), "-d", s(&d), "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    // --threads before the command: a global option.
    let out = warpsw(&[&["--threads", "1"][..], &cpu_args("search", &q, &d, &[])].concat());
    let err = stderr(&out);
    assert!(
        err.contains("1 query x 4 sequences") && err.contains("CPU, 1 thread,"),
        "{err}"
    );
}

#[test]
fn demo_size_is_checked_up_front() {
    let out = warpsw(&["demo", "--sequences", "10000000000", "--device", "cpu"]);
    let err = failure_stderr(&out);
    assert!(err.contains("--sequences 10000000000"), "{err}");
}

#[test]
fn top_zero_and_devices_with_cpu_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let err = failing_search(&q, &d, &["--top", "0"]);
    assert!(err.contains("--max-target-seqs"), "{err}");
    // GPU-only options with `--device cpu`: refused, naming both.
    for (args, named) in [
        (&["--devices", "99"][..], "--devices 99"),
        (&["--gpu-streams", "4"], "--gpu-streams 4"),
        (&["--one-query-a-launch"], "--one-query-a-launch"),
        (&["--gpu-query-batch", "64"], "--gpu-query-batch 64"),
    ] {
        let err = failing_search(&q, &d, args);
        assert!(err.contains(named) && err.contains("--device cpu"), "{err}");
    }
    let err = failing_search(&q, &d, &["--gpu-streams", "0"]);
    assert!(err.contains("--gpu-streams"), "{err}");
    let err = failing_search(&q, &d, &["--gpu-query-batch", "513"]);
    assert!(
        err.contains("--gpu-query-batch") && err.contains("1..=512"),
        "{err}"
    );
}

#[test]
fn threads_sets_the_cpu_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let out = search_cpu(&q, &d, &["--threads", "2"]);
    assert!(stderr(&out).contains("CPU, 2 threads"), "{}", stderr(&out));
    let err = failing_search(&q, &d, &["--threads", "0"]);
    assert!(err.contains("--threads"), "{err}");
}

#[test]
fn a_short_query_against_a_long_sequence_stays_small() {
    // 12 million residues and a 10-residue query under a 1 GiB address
    // space: one strip of the query needs no row of the sequence's length.
    let dir = tempfile::tempdir().unwrap();
    let q = write(dir.path(), "q.fa", ">q\nMKVLAAGIWW\n");
    let mut rng = hay::rng(22);
    let residues = host::alphabet::decode_all(&hay::random_codes(&mut rng, 12_000_000, false));
    let d = write(dir.path(), "long.fa", &format!(">long\n{residues}\n"));
    let out = bash(&format!(
        "ulimit -v 1048576; exec {} --evalue 1e9",
        search_cpu_command(&q, &d)
    ));
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().nth(1).unwrap().starts_with("q\tlong\t"),
        "{text}"
    );
}

#[test]
fn makedb_keeps_full_headers_and_get_prints_them_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let d = write(
        dir.path(),
        "db.fa",
        &format!(
            ">self\n{QUERY}\n>half Half of it\tOS=Homo sapiens\n{}\n>short\nW\n",
            &QUERY[..45]
        ),
    );
    let wsw = dir.path().join("db.wsw");
    let made = warpsw(&["makedb", s(&d), "-o", s(&wsw)]);
    assert!(made.status.success(), "{}", stderr(&made));
    for db in [&wsw, &d] {
        let out = warpsw(&["get", s(db), "half", "short"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!(
                ">half Half of it\tOS=Homo sapiens\n{}\n>short\nW\n",
                &QUERY[..45]
            )
        );
    }
    // Searching the .wsw still names the hits by id alone.
    let (q, _) = search_files(dir.path());
    let out = search_cpu(&q, &wsw, &[]);
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("hba\thalf\t")
    );
    let out = warpsw(&["get", s(&wsw), "self", "nope"]);
    let err = failure_stderr(&out);
    assert!(err.contains("'nope'"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn progress_on_a_terminal_counts_cells() {
    // `script` runs warpsw on a pseudo-terminal, where the bar is drawn.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let out_path = dir.path().join("hits.tsv");
    let command = format!("{} -o '{}'", search_cpu_command(&q, &d), s(&out_path));
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let screen = String::from_utf8_lossy(&out.stdout);
    // The residues of `search_files`' database: unrelated, self, half, short.
    let db_residues = "PEPTIDEWITHNOTHINGINCOMMONKKKKRRRR".len() + QUERY.len() + 45 + 1;
    let cells = QUERY.len() * db_residues;
    assert!(
        screen.contains(&format!("{:.2e} cells", cells as f64)),
        "{screen}"
    );
    assert!(
        screen.contains("GCUPS") && screen.contains("left)"),
        "{screen}"
    );
    // --quiet: no bar.
    let out = std::process::Command::new("script")
        .args(["-qec", &format!("{command} --quiet"), "/dev/null"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("cells"));
}

#[test]
fn a_query_of_several_strips_against_a_long_sequence_stays_small() {
    // 12 million residues and a 40-residue query (two strips) under a
    // 1 GiB address space: the CPU kernel's rows cover one block of
    // columns, not the whole sequence (128 bytes a column: 1.5 GB), and the
    // reference bench checks against keeps rows of the query's length.
    let dir = tempfile::tempdir().unwrap();
    let q = write(
        dir.path(),
        "q.fa",
        ">q\nMKVLAAGIWWKTAYIAKQRQISFVKSHFSRQLEERLGLIE\n",
    );
    let mut rng = hay::rng(23);
    let residues = host::alphabet::decode_all(&hay::random_codes(&mut rng, 12_000_000, false));
    let d = write(dir.path(), "long.fa", &format!(">long\n{residues}\n"));
    let script = format!(
        "ulimit -v 1048576; exec '{}' bench -q '{}' -d '{}' --device cpu --warmup 0 --repeat 1 --check 1",
        env!("CARGO_BIN_EXE_warpsw"),
        s(&q),
        s(&d)
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("checked against the scalar reference: all equal"),
        "{text}"
    );
}

#[test]
fn a_hit_on_a_long_sequence_is_realigned_in_little_memory() {
    // A 16-residue query against 20 million residues: past the traceback
    // kernels' score range, so the checkpointed traceback aligns it. Its
    // checkpoints run along the query (the shorter side), not along the
    // sequence (16 bytes a residue each: 1.3 GB with the nibbles).
    let dir = tempfile::tempdir().unwrap();
    let q = write(dir.path(), "q.fa", ">q\nMKVLAAGIWWKTAYIA\n");
    let mut rng = hay::rng(24);
    let mut residues = host::alphabet::decode_all(&hay::random_codes(&mut rng, 20_000_000, false));
    // The query planted in the middle: a hit of score 16-residue-identity.
    residues.replace_range(10_000_000..10_000_016, "MKVLAAGIWWKTAYIA");
    let t = write(dir.path(), "long.fa", &format!(">long\n{residues}\n"));
    let script = format!(
        "ulimit -v 1048576; exec '{}' align -q '{}' -t '{}' --mode local --device cpu",
        env!("CARGO_BIN_EXE_warpsw"),
        s(&q),
        s(&t)
    );
    let out = bash(&script);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text.lines().nth(1).unwrap_or_default();
    assert!(
        row.starts_with("q\tlong\t")
            && row.contains("\t10000001\t10000016\t")
            && row.ends_with("16M"),
        "{text}"
    );
}

/// Columns that print nothing of the alignment (ids, lengths, score, E-value,
/// bits) skip the traceback and print what the full output prints in those
/// columns, as TSV, BLAST tabular and JSON.
#[test]
fn score_only_columns_print_the_full_outputs_values() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = search_files(dir.path());
    let full = search_cpu(&q, &d, &["--evalue", "1e9"]);
    assert!(full.status.success(), "{}", stderr(&full));
    let full = String::from_utf8(full.stdout).unwrap();
    // qseqid sseqid score bitscore evalue qlen slen
    let picked: Vec<String> = full
        .lines()
        .map(|l| l.split('\t').take(7).collect::<Vec<_>>().join("\t"))
        .collect();
    let columns = "qseqid,sseqid,score,bitscore,evalue,qlen,slen";
    let short = search_cpu(&q, &d, &["--evalue", "1e9", "--columns", columns]);
    assert!(short.status.success(), "{}", stderr(&short));
    let short = String::from_utf8(short.stdout).unwrap();
    assert_eq!(short.lines().collect::<Vec<_>>(), picked);
    assert_eq!(picked.len(), 5);

    let blast = |columns: &str| {
        let out = search_cpu(
            &q,
            &d,
            &[
                "--evalue",
                "1e9",
                "--format",
                "blast6",
                "--columns",
                columns,
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let with_alignment: Vec<String> = blast("qseqid,sseqid,evalue,bitscore,qstart")
        .lines()
        .map(|l| l.rsplit_once('\t').unwrap().0.to_string())
        .collect();
    let without: Vec<String> = blast("qseqid,sseqid,evalue,bitscore")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(without, with_alignment);

    let json = search_cpu(
        &q,
        &d,
        &[
            "--evalue",
            "1e9",
            "--format",
            "json",
            "--columns",
            "sseqid,score,evalue",
        ],
    );
    assert!(json.status.success(), "{}", stderr(&json));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let hits = doc[0]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 4);
    assert_eq!(hits[0]["sseqid"], "self");
    assert!(hits[0].get("cigar").is_none());
}

/// `search` on the CPU with the query-group kernel, `args` more, and the
/// environment variable `name` set to `value`.
fn query_group_search(
    q: &Path,
    db: &Path,
    args: &[&str],
    (name, value): (&str, &str),
) -> std::process::Output {
    let mut all = vec!["--kernel", "query-group-i16x2"];
    all.extend(args);
    std::process::Command::new(env!("CARGO_BIN_EXE_warpsw"))
        .args(cpu_args("search", q, db, &all))
        .env(name, value)
        .output()
        .unwrap()
}

/// A timeline setting other than on or off is an error before any work,
/// whatever the device, and nothing is written.
#[test]
fn a_timeline_setting_other_than_on_or_off_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (q, db) = search_files(dir.path());
    let err = failing_query_group_search(dir.path(), &q, &db, ("WARPSW_TIMELINE", "yes"));
    assert!(
        err.contains("WARPSW_TIMELINE=yes: expected on or off"),
        "{err}"
    );
}

/// A [`query_group_search`] with environment variable `setting` writing
/// to a file in `dir`, which must fail (exit 2) and write nothing: its
/// standard error.
fn failing_query_group_search(dir: &Path, q: &Path, db: &Path, setting: (&str, &str)) -> String {
    let out_file = dir.join("hits.tsv");
    let out = query_group_search(q, db, &["-o", s(&out_file)], setting);
    let err = failure_stderr(&out);
    assert!(!out_file.exists(), "{err}");
    err
}

/// A query-group configuration pinned for a benchmark that does not exist
/// is an error that lists the configurations, and nothing is written.
#[test]
fn an_unknown_pinned_query_group_configuration_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (q, db) = search_files(dir.path());
    let err =
        failing_query_group_search(dir.path(), &q, &db, ("WARPSW_QUERY_GROUP_CONFIG", "g99_r1"));
    assert!(err.contains("WARPSW_QUERY_GROUP_CONFIG=g99_r1"), "{err}");
    assert!(
        err.contains("g8_r32") && err.contains("g8_r24_plain"),
        "{err}"
    );
    // A configuration that exists runs, with the reference's scores.
    query_group_scores_as_simt(&q, &db, ("WARPSW_QUERY_GROUP_CONFIG", "g8_r24_plain"));
}

/// A query-group search with environment variable `setting` gives the
/// scores `simt` gives.
fn query_group_scores_as_simt(q: &Path, db: &Path, setting: (&str, &str)) {
    let columns = ["--columns", "sseqid,score"];
    let got = query_group_search(q, db, &columns, setting);
    let simt = search_cpu(q, db, &["--kernel", "simt", "--columns", "sseqid,score"]);
    assert!(got.status.success(), "{}", stderr(&got));
    assert!(!got.stdout.is_empty());
    assert_eq!(got.stdout, simt.stdout);
}

/// `WARPSW_HAND_OVER` takes `on` or `off`: anything else is an error that
/// says so, and nothing is written; `off` gives the same hits.
#[test]
fn a_hand_over_setting_other_than_on_or_off_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (q, db) = search_files(dir.path());
    let err = failing_query_group_search(dir.path(), &q, &db, ("WARPSW_HAND_OVER", "maybe"));
    assert!(
        err.contains("WARPSW_HAND_OVER=maybe: expected on or off"),
        "{err}"
    );
    query_group_scores_as_simt(&q, &db, ("WARPSW_HAND_OVER", "off"));
}

#[test]
fn explain_prints_the_plan_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = search_files(dir.path());
    let out_path = dir.path().join("hits.tsv");
    let out = search_cpu(&query, &db, &["--explain", "-o", s(&out_path)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("search: 1 query"), "{text}");
    assert!(
        lines.iter().any(|l| l.starts_with("engine: the CPU")),
        "{text}"
    );
    assert!(lines.contains(&"kernel: simt"), "{text}");
    assert!(
        lines.iter().any(|l| l.starts_with("statistics: fitted")),
        "{text}"
    );
    assert!(
        !out_path.exists() && entries(dir.path()).len() == 2,
        "{:?}",
        entries(dir.path())
    );
    // An error prints no plan.
    let missing = dir.path().join("missing.fasta");
    let out = search_cpu(&query, &missing, &["--explain"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    // Neither does a command whose output options a search would refuse.
    for refused in [
        &["--explain", "--format", "pairwise", "--columns", "qseqid"][..],
        &["--explain", "--stats", "none", "--evalue", "1"][..],
    ] {
        let out = search_cpu(&query, &db, refused);
        assert!(!out.status.success(), "{refused:?}");
        assert!(out.stdout.is_empty(), "{refused:?}");
        assert!(
            stderr(&out).contains("--columns") || stderr(&out).contains("--evalue"),
            "{}",
            stderr(&out)
        );
    }
}
