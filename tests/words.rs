//! Every word true: what `--help`, the README, the output's headers and
//! the summary say is what warpsw does (the binary, on the CPU).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::hay::{self, warpsw, write};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", stderr(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn search(query: &Path, db: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["search", "-q", s(query), "-d", s(db), "--device", "cpu"];
    args.extend_from_slice(extra);
    warpsw(&args)
}

/// A query and 300 random sequences with the query planted at 80 %.
fn files(dir: &Path) -> (PathBuf, PathBuf) {
    let mut rng = hay::rng(36);
    let query = hay::random_codes(&mut rng, 150, false);
    let mut records: Vec<(String, String)> = (0..300)
        .map(|i| {
            let codes = hay::random_codes(&mut rng, 40 + i % 400, false);
            (
                format!("sp|Q{i:05}|R{i}_HUMAN"),
                host::alphabet::decode_all(&codes),
            )
        })
        .collect();
    records[7].1 = host::alphabet::decode_all(&hay::mutate(&mut rng, &query, 0.8));
    let q = write(
        dir,
        "q.fa",
        &format!(">query\n{}\n", host::alphabet::decode_all(&query)),
    );
    (q, write(dir, "db.fa", &hay::fasta(&records)))
}

/// The long options a command's `--help` lists.
fn help_options(command: &str) -> BTreeSet<String> {
    let help = stdout(&warpsw(&[command, "--help"]));
    help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_string()
        })
        .collect()
}

/// Every option the README names exists in some command's `--help`, and
/// every option of `search` is in the README.
#[test]
fn the_readme_and_help_name_the_same_options() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let named: BTreeSet<String> = readme
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2 && w.as_bytes()[2].is_ascii_lowercase())
        .map(str::to_string)
        .collect();
    let commands = [
        "search", "bench", "align", "allpairs", "makedb", "get", "demo", "kernels",
    ];
    let mut known: BTreeSet<String> = ["--help", "--version"].map(String::from).into();
    for command in commands {
        known.extend(help_options(command));
    }
    // Options of other programs the README shows: cargo, mpirun and
    // sbatch, CUDASW++4, and the scripts in scripts/.
    let peers = [
        "--top",
        "--pseudodb",
        "--gop",
        "--gex",
        "--features",
        "--release",
        "--workspace",
        "--ignored",
        "--test",
        "--bind-to",
        "--map-by",
        "--cpus-per-task",
        "--gpus-per-node",
        "--gpus-per-task",
        "--job-name",
        "--nodes",
        "--ntasks-per-node",
        "--time",
        "--arch",
        "--sass",
        "--cells",
    ];
    let unknown: Vec<&String> = named
        .iter()
        .filter(|o| !known.contains(*o) && !peers.contains(&o.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "README names options no command has: {unknown:?}"
    );
    let undocumented: Vec<String> = help_options("search")
        .into_iter()
        .filter(|o| !named.contains(o) && o != "--help")
        .collect();
    assert!(
        undocumented.is_empty(),
        "search options the README does not name: {undocumented:?}"
    );
}

/// `--kernel auto`'s help is the plan `warpsw kernels` prints, not the
/// two stages of before.
#[test]
fn the_kernel_help_describes_todays_plan() {
    let help = stdout(&warpsw(&["search", "--help"]));
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("the plan `warpsw kernels` describes"),
        "{help}"
    );
    assert!(!help.contains("the rest to `simt`"), "{help}");
    let kernels = stdout(&warpsw(&["kernels"]));
    assert!(
        kernels.contains("query-group-i16x2 throughout"),
        "{kernels}"
    );
}

/// The summary's parts add up to its whole, and it says which statistics
/// the queries got.
#[test]
fn the_summary_itemises_the_time_and_the_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let err = stderr(&search(&q, &d, &[]));
    let summary = err.lines().find(|l| l.contains("GCUPS")).unwrap();
    let (whole, rest) = summary
        .split_once(" s in all: ")
        .expect("a whole and its parts");
    let whole: f64 = whole.rsplit(' ').next().unwrap().parse().unwrap();
    let parts = rest.split(" (").next().unwrap();
    let mut sum = 0.0;
    let mut names = Vec::new();
    let mut other = 0.0;
    for part in parts.split(", ") {
        let (name, seconds) = part.rsplit_once(' ').unwrap();
        let seconds: f64 = seconds.parse().unwrap();
        sum += seconds;
        if name == "other" {
            other = seconds;
        }
        names.push(name.to_string());
    }
    assert!((sum - whole).abs() < 0.01, "{sum} vs {whole}: {summary}");
    // A part left untimed would fall into "other": it stays small.
    assert!(
        other <= 0.05 + 0.25 * whole,
        "other {other} of {whole}: {summary}"
    );
    for name in [
        "database read",
        "database packed",
        "scoring",
        "statistics",
        "alignments",
        "writing",
    ] {
        assert!(names.iter().any(|n| n == name), "{name}: {summary}");
    }
    assert!(
        summary.contains("statistics fitted 1 (queries)"),
        "{summary}"
    );
}

/// BLAST's rules for numbers, identity as a percentage in every command.
#[test]
fn identity_is_a_percentage_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let hits = stdout(&search(
        &q,
        &d,
        &["--columns", "sseqid,pident", "--top", "1"],
    ));
    let pident: f64 = hits
        .lines()
        .nth(1)
        .unwrap()
        .split('\t')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(pident > 50.0 && pident <= 100.0, "{hits}");
    let target = write(dir.path(), "t.fa", &hay::fasta(&[("t", "MKVLAAGIVG")]));
    let query = write(dir.path(), "a.fa", &hay::fasta(&[("a", "MKVLSAGIVG")]));
    let aligned = stdout(&warpsw(&[
        "align",
        "--query",
        s(&query),
        "--target",
        s(&target),
        "--mode",
        "local",
    ]));
    let row: Vec<&str> = aligned.lines().nth(1).unwrap().split('\t').collect();
    assert!(aligned.starts_with("qseqid\tsseqid\tscore"), "{aligned}");
    assert_eq!(row[7], "90.000", "{aligned}");
}

/// A query or database of nucleotides is searched with a warning that
/// names it.
#[test]
fn nucleotides_are_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    let dna = write(
        dir.path(),
        "dna.fa",
        ">gene1\nATGGCGTTAACCGGTTAAACGTTGCAATGGCGTTAACC\n>protein\nMKVLAAGIVGWWHEKLPQSTRNDE\n",
    );
    let err = stderr(&search(&dna, &d, &[]));
    assert!(
        err.contains("look like nucleotides") && err.contains("'gene1'"),
        "{err}"
    );
    assert!(!err.contains("'protein'"), "{err}");
    let err = stderr(&search(&q, &dna, &[]));
    assert!(
        err.contains("dna.fa: 1 record of 2 look like nucleotides"),
        "{err}"
    );
    let err = stderr(&search(&q, &d, &[]));
    assert!(!err.contains("nucleotides"), "{err}");
}

/// ssearch36's matrix names give the same search as NCBI's.
#[test]
fn ssearch36_matrix_names_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = files(dir.path());
    for (short, full) in [
        ("BL62", "blosum62"),
        ("BL50", "blosum50"),
        ("P250", "pam250"),
    ] {
        let columns = ["--columns", "sseqid,score,evalue", "--matrix"];
        let mut a = columns.to_vec();
        a.push(short);
        let mut b = columns.to_vec();
        b.push(full);
        if short == "BL50" || short == "P250" {
            a.extend(["--gap-open", "10", "--gap-extend", "2"]);
            b.extend(["--gap-open", "10", "--gap-extend", "2"]);
        }
        assert_eq!(
            stdout(&search(&q, &d, &a)),
            stdout(&search(&q, &d, &b)),
            "{short}"
        );
    }
}

/// `get` finds a record by its accession or entry name as well as by the
/// whole id, and refuses a field that several ids share.
#[test]
fn get_finds_a_record_by_accession() {
    let dir = tempfile::tempdir().unwrap();
    let (_, d) = files(dir.path());
    let whole = stdout(&warpsw(&["get", s(&d), "sp|Q00012|R12_HUMAN"]));
    assert!(whole.starts_with(">sp|Q00012|R12_HUMAN\n"), "{whole}");
    assert_eq!(stdout(&warpsw(&["get", s(&d), "Q00012"])), whole);
    assert_eq!(stdout(&warpsw(&["get", s(&d), "R12_HUMAN"])), whole);
    let out = warpsw(&["get", s(&d), "Q99999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no sequence has the id or accession 'Q99999'"));
    let shared = write(
        dir.path(),
        "shared.fa",
        ">sp|P1|A_HUMAN\nMKV\n>tr|P1|B_HUMAN\nMKW\n",
    );
    let out = warpsw(&["get", s(&shared), "P1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("a field of 2 ids"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

/// With standard error not a terminal, a plain progress line every
/// interval (`WARPSW_PROGRESS_SECONDS`); none with `--quiet`.
#[test]
fn progress_is_logged_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (_, d) = files(dir.path());
    // A longer query, so that the search outlasts a few intervals.
    let mut rng = hay::rng(7);
    let long = host::alphabet::decode_all(&hay::random_codes(&mut rng, 20_000, false));
    let long_query = write(
        dir.path(),
        "long.fa",
        &format!(">long\n{long}\n{}\n", ">query2\nMKV"),
    );
    let run = |quiet: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_warpsw"));
        command
            .args([
                "search",
                "-q",
                s(&long_query),
                "-d",
                s(&d),
                "--device",
                "cpu",
            ])
            .env("WARPSW_PROGRESS_SECONDS", "0.01");
        if quiet {
            command.arg("--quiet");
        }
        command.output().unwrap()
    };
    let err = stderr(&run(false));
    let line = err
        .lines()
        .find(|l| l.starts_with("warpsw: progress: "))
        .unwrap_or_else(|| panic!("no progress line: {err}"));
    assert!(
        line.contains("% of ") && line.contains("GCUPS") && line.contains("left"),
        "{line}"
    );
    assert!(!stderr(&run(true)).contains("progress"));
}
