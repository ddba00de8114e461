//! `warpsw search` under MPI
//! (`cargo test --workspace --release --features warpsw/mpi --test mpi`):
//! `mpirun -np N` writes the one-process output byte for byte, whatever N;
//! a rank that fails ends the job with a message naming it and leaves no
//! output. Needs Open MPI's `mpirun` (`.ci/run` installs it); runs on the
//! CPU.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const WARPSW: &str = env!("CARGO_BIN_EXE_warpsw");

const AMINO_ACIDS: &[u8] = b"ARNDCQEGHILKMFPSTWYV";

/// `mpirun -np ranks warpsw args…` (as root, more ranks than cores; each
/// rank free to use every core), or `warpsw args…` alone with `ranks` 0.
fn run(ranks: usize, args: &[&str]) -> Output {
    let mut command = match ranks {
        0 => Command::new(WARPSW),
        n => {
            let mut c = Command::new("mpirun");
            c.args([
                "--allow-run-as-root",
                "--oversubscribe",
                "--bind-to",
                "none",
            ])
            .args(["-np", &n.to_string(), WARPSW]);
            c
        }
    };
    command
        .args(args)
        .output()
        .expect("mpirun runs (Open MPI installed: apt-get install openmpi-bin)")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn random_protein(rng: &mut StdRng, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| AMINO_ACIDS[rng.random_range(0..AMINO_ACIDS.len())])
        .collect()
}

/// `seq` with about `1 - identity` of its residues substituted.
fn mutate(rng: &mut StdRng, seq: &[u8], identity: f64) -> Vec<u8> {
    seq.iter()
        .map(|&c| match rng.random::<f64>() < identity {
            true => c,
            false => AMINO_ACIDS[rng.random_range(0..AMINO_ACIDS.len())],
        })
        .collect()
}

fn write_fasta(path: &Path, records: &[(String, Vec<u8>)]) {
    let mut text = String::new();
    for (header, seq) in records {
        text.push('>');
        text.push_str(header);
        text.push('\n');
        for line in seq.chunks(60) {
            text.push_str(std::str::from_utf8(line).unwrap());
            text.push('\n');
        }
    }
    std::fs::write(path, text).unwrap();
}

/// Four queries and a `.wsw` database of `sequences` random sequences of
/// 30–700 residues with mutated copies of the queries planted in it (90 to
/// 30 % identity), some of them twice under two ids (ties broken by
/// database order), every record with a description.
fn inputs(dir: &Path, sequences: usize) -> (PathBuf, PathBuf) {
    let mut rng = StdRng::seed_from_u64(19);
    let queries: Vec<(String, Vec<u8>)> = (0..4)
        .map(|i| {
            let len = 80 + 150 * i;
            (
                format!("query{i} test query {i}"),
                random_protein(&mut rng, len),
            )
        })
        .collect();
    let mut db = Vec::new();
    for i in 0..sequences {
        let len = rng.random_range(30..700);
        db.push((
            format!("seq{i} random sequence {i}"),
            random_protein(&mut rng, len),
        ));
        if i % 40 == 0 {
            let (_, q) = &queries[(i / 40) % queries.len()];
            let identity = [0.9, 0.6, 0.45, 0.3][(i / 160) % 4];
            let homolog = mutate(&mut rng, q, identity);
            db.push((format!("hom{i} planted"), homolog.clone()));
            if i % 80 == 0 {
                db.push((format!("twin{i} the same again"), homolog));
            }
        }
    }
    let (query, fasta, wsw) = (dir.join("q.fa"), dir.join("db.fa"), dir.join("db.wsw"));
    write_fasta(&query, &queries);
    write_fasta(&fasta, &db[..sequences.min(db.len())]);
    let made = run(0, &["makedb", s(&fasta), "-o", s(&wsw)]);
    assert!(made.status.success(), "makedb: {}", stderr(&made));
    (query, wsw)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The search's output file with `ranks` ranks (0: one process, no MPI).
fn search(ranks: usize, query: &Path, db: &Path, out: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec![
        "search",
        "-q",
        s(query),
        "-d",
        s(db),
        "--device",
        "cpu",
        "-o",
        s(out),
    ];
    args.extend_from_slice(extra);
    let done = run(ranks, &args);
    assert!(
        done.status.success(),
        "{ranks} ranks, {extra:?}: {}",
        stderr(&done)
    );
    std::fs::read(out).unwrap()
}

#[test]
fn ranks_write_the_one_process_output_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = inputs(dir.path(), 600);
    let out = dir.path().join("hits");
    let settings: [&[&str]; 4] = [
        &[],
        &[
            "--format",
            "json",
            "--columns",
            "qseqid,sseqid,stitle,evalue,bitscore,score",
        ],
        &["--format", "pairwise", "--max-target-seqs", "25"],
        &["--stats", "fixed", "--format", "blast6", "--evalue", "1e-3"],
    ];
    for extra in settings {
        let alone = search(0, &query, &db, &out, extra);
        assert!(alone.len() > 1000, "{extra:?}: too few hits to compare");
        for ranks in [1, 2, 3, 5] {
            let split = search(ranks, &query, &db, &out, extra);
            assert!(
                split == alone,
                "{ranks} ranks, {extra:?}: the output differs from one process's"
            );
        }
    }
}

#[test]
fn more_ranks_than_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = inputs(dir.path(), 3);
    let out = dir.path().join("hits.tsv");
    let alone = search(0, &query, &db, &out, &["--evalue", "1000"]);
    for ranks in [2, 5] {
        assert_eq!(
            search(ranks, &query, &db, &out, &["--evalue", "1000"]),
            alone
        );
    }
}

#[test]
fn the_summary_names_every_rank_and_the_time_outside_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = inputs(dir.path(), 200);
    let args = [
        "search",
        "-q",
        s(&query),
        "-d",
        s(&db),
        "--device",
        "cpu",
        "-o",
        "/dev/null",
    ];
    let done = run(3, &args);
    assert!(done.status.success(), "{}", stderr(&done));
    let text = stderr(&done);
    assert!(text.contains("GCUPS [3 MPI ranks"), "{text}");
    for rank in 0..3 {
        assert!(text.contains(&format!("warpsw: rank {rank} on ")), "{text}");
    }
    assert!(text.contains("scores gathered in"), "{text}");
}

/// A failed job's output: nothing at `out`, nor a partial file beside it.
fn assert_no_output(out: &Path) {
    let dir = out.parent().unwrap();
    let name = out.file_name().unwrap().to_str().unwrap();
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.contains(name))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_rank_with_a_corrupt_part_ends_the_job_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = inputs(dir.path(), 300);
    // A byte of the last rank's residues that is no residue code.
    let mut bytes = std::fs::read(&db).unwrap();
    let header = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let residues = u64::from_le_bytes(bytes[32..40].try_into().unwrap()) as usize;
    bytes[header + residues - 10] = 40;
    std::fs::write(&db, bytes).unwrap();
    let out = dir.path().join("hits.tsv");
    let args = [
        "search",
        "-q",
        s(&query),
        "-d",
        s(&db),
        "--device",
        "cpu",
        "-o",
        s(&out),
    ];
    let done = run(3, &args);
    assert_ne!(done.status.code(), Some(0));
    let text = stderr(&done);
    assert!(
        text.contains("warpsw: error: rank 2 of 3 on ") && text.contains("not a residue code"),
        "{text}"
    );
    assert_eq!(text.matches("warpsw: error").count(), 1, "{text}");
    assert_no_output(&out);
}

#[test]
fn a_killed_rank_ends_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = inputs(dir.path(), 300);
    let out = dir.path().join("hits.tsv");
    // Rank 1 is killed (SIGKILL) as it starts; the launcher ends the job.
    let script = format!(
        "[ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && kill -9 $$; \
         exec '{WARPSW}' search -q '{}' -d '{}' --device cpu -o '{}'",
        s(&query),
        s(&db),
        s(&out)
    );
    let done = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "3"])
        .args(["sh", "-c", &script])
        .output()
        .unwrap();
    // The launcher's exit status is the killed rank's: 128 + SIGKILL.
    assert_eq!(done.status.code(), Some(137), "{}", stderr(&done));
    assert!(!out.exists());
}

#[test]
fn a_failure_on_rank_0_stops_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = inputs(dir.path(), 100);
    // The output cannot be written: rank 0 fails after the others started.
    let args = [
        "search",
        "-q",
        s(&query),
        "-d",
        s(&db),
        "--device",
        "cpu",
        "-o",
        "/dev/full",
    ];
    let done = run(3, &args);
    assert_eq!(done.status.code(), Some(2));
    let text = stderr(&done);
    assert!(text.contains("warpsw: error: rank 0 of 3 on "), "{text}");
    assert!(text.contains("No space left on device"), "{text}");
    // A FASTA database is refused: the ranks map their parts of a .wsw file.
    let fasta = dir.path().join("db.fa");
    let out = dir.path().join("hits.tsv");
    let args = [
        "search",
        "-q",
        s(&query),
        "-d",
        s(&fasta),
        "--device",
        "cpu",
        "-o",
        s(&out),
    ];
    let done = run(2, &args);
    assert_eq!(done.status.code(), Some(2));
    assert!(
        stderr(&done).contains("must be a .wsw file"),
        "{}",
        stderr(&done)
    );
    assert_no_output(&out);
}
