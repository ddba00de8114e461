//! `warpsw demo`: a database the program makes itself, with mutated copies of
//! a query planted in it, searched end to end; the planted homologs must come
//! out on top.

use std::process::ExitCode;

use anyhow::Context;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::cli::{DemoArgs, PlacementArgs, ScoringArgs, SearchArgs, SearchInputs};

/// Robinson & Robinson (1991) background frequencies of `AMINO_ACIDS`.
const AMINO_ACIDS: &[u8; 20] = b"ARNDCQEGHILKMFPSTWYV";
const FREQUENCIES: [f64; 20] = [
    0.07805, 0.05129, 0.04487, 0.05364, 0.01925, 0.04264, 0.06295, 0.07377, 0.02199, 0.05142,
    0.09019, 0.05744, 0.02243, 0.03856, 0.05203, 0.07120, 0.05841, 0.01330, 0.03216, 0.06441,
];
/// Identities of the planted copies, best first.
const PLANTED_IDENTITIES: [u32; 5] = [90, 75, 60, 50, 40];
const QUERY_LENGTH: usize = 300;

fn residue(rng: &mut StdRng) -> u8 {
    let mut x = rng.random::<f64>() * FREQUENCIES.iter().sum::<f64>();
    for (i, f) in FREQUENCIES.iter().enumerate() {
        x -= f;
        if x <= 0.0 {
            return AMINO_ACIDS[i];
        }
    }
    AMINO_ACIDS[19]
}

fn random_sequence(rng: &mut StdRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| residue(rng)).collect()
}

/// Roughly Swiss-Prot's length distribution: a gamma(2, 180) draw.
fn random_length(rng: &mut StdRng) -> usize {
    let e = |rng: &mut StdRng| -(1.0 - rng.random::<f64>()).ln();
    (10.0 + 180.0 * (e(rng) + e(rng))).min(5000.0) as usize
}

/// A copy of `seq` keeping each residue with probability `identity`,
/// otherwise substituting, deleting or inserting.
fn mutate(rng: &mut StdRng, seq: &[u8], identity: f64) -> Vec<u8> {
    let mut out = Vec::with_capacity(seq.len() + 8);
    for &c in seq {
        let r = rng.random::<f64>();
        if r < identity {
            out.push(c);
        } else if r < identity + (1.0 - identity) * 0.8 {
            out.push(residue(rng));
        } else if r < identity + (1.0 - identity) * 0.9 {
            // deletion
        } else {
            out.push(c);
            out.push(residue(rng));
        }
    }
    out
}

fn write_fasta(path: &std::path::Path, records: &[(String, Vec<u8>)]) -> anyhow::Result<()> {
    let mut text = String::new();
    for (id, seq) in records {
        text.push('>');
        text.push_str(id);
        text.push('\n');
        for line in seq.chunks(60) {
            text.push_str(std::str::from_utf8(line).expect("ASCII letters"));
            text.push('\n');
        }
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Bytes of memory one generated sequence takes at the peak of a run: its
/// residues (370 on average, `random_length`) and id held as generated, as
/// FASTA text, as parsed records and in the database, plus the vectors'
/// and strings' headers.
const PEAK_BYTES_PER_SEQUENCE: u128 = 4 * (370 + 80);

/// Checks `--sequences` before anything is generated: within the database's
/// limit and, where the system says, within the memory available.
fn check_size(sequences: usize) -> anyhow::Result<()> {
    if sequences > host::db::MAX_SEQUENCES - PLANTED_IDENTITIES.len() {
        anyhow::bail!(
            "--sequences {sequences}: a database holds at most {} sequences",
            host::db::MAX_SEQUENCES - PLANTED_IDENTITIES.len()
        );
    }
    let needed = sequences as u128 * PEAK_BYTES_PER_SEQUENCE;
    if let Some(available) = available_memory()
        && needed > u128::from(available)
    {
        anyhow::bail!(
            "--sequences {sequences} needs about {:.1} GB of memory; {:.1} GB are available",
            needed as f64 / 1e9,
            available as f64 / 1e9
        );
    }
    Ok(())
}

/// `MemAvailable` of /proc/meminfo in bytes, where there is one.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

pub fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    check_size(args.sequences)?;
    let mut rng = StdRng::seed_from_u64(args.seed);
    let query = random_sequence(&mut rng, QUERY_LENGTH);
    let mut db: Vec<(String, Vec<u8>)> = (0..args.sequences)
        .map(|i| {
            let len = random_length(&mut rng);
            (format!("random_{i}"), random_sequence(&mut rng, len))
        })
        .collect();
    for identity in PLANTED_IDENTITIES {
        let mut seq = random_sequence(&mut rng, 40);
        seq.extend(mutate(&mut rng, &query, identity as f64 / 100.0));
        seq.extend(random_sequence(&mut rng, 40));
        let at = rng.random_range(0..=db.len());
        db.insert(at, (format!("planted_{identity}pct"), seq));
    }

    let tmp;
    let dir = match &args.keep {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            dir.clone()
        }
        None => {
            tmp = tempfile::tempdir().context("creating a temporary directory")?;
            tmp.path().to_path_buf()
        }
    };
    let query_path = dir.join("demo_query.fasta");
    let db_path = dir.join("demo_db.fasta");
    write_fasta(&query_path, &[("demo_query".into(), query)])?;
    write_fasta(&db_path, &db)?;
    let out_path = dir.join("demo_hits.tsv");
    eprintln!(
        "warpsw demo: {} random sequences + {} planted copies of a {}-residue query ({}% .. {}% identity), seed {}",
        args.sequences,
        PLANTED_IDENTITIES.len(),
        QUERY_LENGTH,
        PLANTED_IDENTITIES[0],
        PLANTED_IDENTITIES[PLANTED_IDENTITIES.len() - 1],
        args.seed
    );

    crate::search::run(SearchArgs {
        inputs: SearchInputs {
            query: query_path,
            db: db_path,
        },
        scoring: ScoringArgs {
            matrix: "blosum62".into(),
            matrix_file: None,
            gap_open: 11,
            gap_extend: 1,
        },
        max_target_seqs: 10,
        evalue: None,
        stats: host::stats::Method::Fitted,
        columns: None,
        kernel: "auto".into(),
        auto: crate::cli::AutoArgs {
            auto_threshold: host::kernel::plan::DEFAULT_AUTO_THRESHOLD,
            auto_long: host::kernel::plan::DEFAULT_AUTO_LONG.name().into(),
            auto_min_sequences: host::kernel::plan::AUTO_MIN_FIRST_STAGE_SEQUENCES,
            auto_group_min_sequences: host::kernel::plan::AUTO_GROUP_MIN_SEQUENCES,
            auto_query_group: host::kernel::plan::AUTO_QUERY_GROUP_MAX,
            auto_query_group_min_sequences: host::kernel::plan::AUTO_QUERY_GROUP_MIN_SEQUENCES,
        },
        placement: PlacementArgs {
            device: args.device,
            devices: None,
            balance: "split".into(),
            gpu_memory: None,
            gpu_streams: None,
            one_query_a_launch: false,
            gpu_query_batch: None,
        },
        format: host::output::Format::Tsv,
        out: Some(out_path.clone()),
        quiet: false,
        explain: false,
    })?;
    let hits = std::fs::read_to_string(&out_path)?;
    print!("{hits}");

    let ranked: Vec<&str> = hits
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(1))
        .collect();
    let planted_on_top = ranked
        .iter()
        .take(PLANTED_IDENTITIES.len())
        .all(|id| id.starts_with("planted_"));
    if planted_on_top {
        eprintln!(
            "warpsw demo: all {} planted homologs ranked first",
            PLANTED_IDENTITIES.len()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("warpsw demo: FAILED: the planted homologs are not the top hits");
        Ok(ExitCode::FAILURE)
    }
}
