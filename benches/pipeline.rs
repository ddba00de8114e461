//! Criterion benchmarks of the CPU stages of the pipeline: FASTA parsing,
//! query profile construction, database sort and pack, the CPU engine, and
//! a query's statistics and ranking over a large database.
//! GPU kernels are timed by `warpsw bench` instead (see benches/RESULTS.md).

use std::hint::black_box;
use std::io::Write;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use host::db::{Database, PackedChunk};
use host::engine::{Engine, cpu::CpuEngine};
use host::fasta::{Record, read_fasta};
use host::kernel::{Kernel, Plan};
use host::matrix::ScoreMatrix;
use host::profile::sequential_profile;
use host::scoring::{GapPenalty, Scoring};
use host::stats::{DatabaseSize, Method, SequenceLengths, Statistics};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn random_records(n: usize, seed: u64) -> Vec<Record> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let len = rng.random_range(50..800);
            Record {
                id: format!("r{i}"),
                description: String::new(),
                codes: (0..len).map(|_| rng.random_range(0..20)).collect(),
            }
        })
        .collect()
}

fn stages(c: &mut Criterion) {
    let records = random_records(2000, 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.fa");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for r in &records {
            writeln!(f, ">{}\n{}", r.id, host::alphabet::decode_all(&r.codes)).unwrap();
        }
    }
    let matrix = ScoreMatrix::by_name("blosum62").unwrap();
    let query = records[0].codes.clone();

    c.bench_function("fasta_read_2000_records", |b| {
        b.iter(|| read_fasta(black_box(&path)).unwrap())
    });
    c.bench_function("sequential_profile_query", |b| {
        b.iter(|| sequential_profile(black_box(&query), &matrix))
    });
    c.bench_function("database_sort_2000", |b| {
        b.iter(|| Database::from_records(black_box(records.clone())))
    });
    let db = Arc::new(Database::from_records(records.clone()));
    c.bench_function("pack_chunk_256_sequences", |b| {
        b.iter(|| PackedChunk::pack(&db, 0..256))
    });

    let scoring = Scoring {
        matrix: matrix.clone(),
        gaps: GapPenalty::new(11, 1).unwrap(),
    };
    let small = Arc::new(Database::from_records(records[..200].to_vec()));
    let mut engine = CpuEngine::new(small, scoring.clone(), Plan::one(Kernel::Simt));
    let mut group = c.benchmark_group("cpu_engine");
    group.sample_size(10);
    group.bench_function("simt_200_sequences", |b| {
        b.iter(|| engine.score_all(black_box(&query)).unwrap())
    });
    group.finish();

    // One query's fit and top hits over 570,000 sequences (the synthetic
    // database of the GPU benchmarks): on the search's critical path for
    // the last batch of queries, after the GPU is done.
    let mut rng = StdRng::seed_from_u64(2);
    let lengths: Vec<usize> = (0..570_000).map(|_| rng.random_range(20..1000)).collect();
    let scores: Vec<i32> = lengths
        .iter()
        .map(|&n| {
            // Unrelated scores: Gumbel, location growing with ln n.
            let u: f64 = rng.random_range(f64::EPSILON..1.0);
            (20.0 + 3.7 * (n as f64).ln() - 3.7 * (-u.ln()).ln()).round() as i32
        })
        .collect();
    let size = DatabaseSize {
        sequences: lengths.len() as u64,
        residues: lengths.iter().sum::<usize>() as u64,
    };
    let lengths = SequenceLengths::new(lengths);
    let statistics = Statistics::new(Method::Fitted, &scoring, size).unwrap();
    let mut group = c.benchmark_group("statistics");
    group.sample_size(20);
    group.bench_function("fit_and_top_10_of_570000", |b| {
        b.iter(|| {
            let q = statistics.for_query(&[0; 300], black_box(&scores), &lengths);
            q.top_hits(&scores, &lengths, 10, 10f64.ln())
        })
    });
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
