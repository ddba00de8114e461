//! `host::search`, the pipeline as a library call: the command line's hits
//! from Rust, errors of the scorer and the sink.

use std::sync::Arc;

use host::alphabet::decode_all;
use host::db::Database;
use host::engine::{self, Placement, SearchOptions};
use host::fasta::Record;
use host::output::QueryHits;
use host::search::{Scorer, Search, Sink, each_query};

use crate::hay::{self, warpsw, write};

/// Twelve queries, each with homologs planted in a database of 300
/// random sequences (and a query longer than the database's longest).
fn homologs() -> (Vec<Record>, Vec<Record>) {
    let mut rng = hay::rng(38);
    let queries: Vec<Vec<u8>> = (0..12)
        .map(|i| hay::random_codes(&mut rng, 20 + 90 * i, false))
        .collect();
    let mut db = hay::skewed_sequences(&mut rng, 300, 600, false);
    db.retain(|s| !s.is_empty()); // FASTA has no empty records
    for (i, q) in queries.iter().enumerate() {
        for identity in [0.9, 0.6, 0.4] {
            db.insert((i * 23) % db.len(), hay::mutate(&mut rng, q, identity));
        }
    }
    (hay::records(queries), hay::records(db))
}

/// Each query's hits as the command line's tsv writes them.
fn lines(hits: &QueryHits<'_>, db: &Database) -> Vec<String> {
    hits.hits
        .iter()
        .map(|h| {
            let a = h.alignment.as_ref().expect("realigned");
            format!(
                "{}\t{}\t{}\t{:.2e}\t{}\t{}",
                hits.query,
                db.id(h.target),
                h.score,
                h.evalue.expect("fitted"),
                a.query_start,
                a.target_start
            )
        })
        .collect()
}

fn cpu_engine(db: &Arc<Database>, search: &Search, queries: usize) -> Box<dyn engine::Engine> {
    let options = SearchOptions::for_queries(queries);
    engine::open(Placement::Cpu, db.clone(), search.scoring.clone(), &options)
        .unwrap()
        .engine
}

#[test]
fn the_library_search_gives_the_command_lines_hits() {
    let (queries, db_records) = homologs();
    let dir = tempfile::tempdir().unwrap();
    let as_fasta = |records: &[Record]| {
        let letters: Vec<(String, String)> = records
            .iter()
            .map(|r| (r.id.clone(), decode_all(&r.codes)))
            .collect();
        hay::fasta(&letters)
    };
    let query_path = write(dir.path(), "q.fasta", &as_fasta(&queries));
    let db_path = write(dir.path(), "db.fasta", &as_fasta(&db_records));
    let out = warpsw(&[
        "search",
        "-q",
        query_path.to_str().unwrap(),
        "-d",
        db_path.to_str().unwrap(),
        "--device",
        "cpu",
        "--quiet",
        "--columns",
        "qseqid,sseqid,score,evalue,qstart,sstart",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1) // the header
        .map(|l| {
            let mut fields: Vec<String> = l.split('\t').map(str::to_string).collect();
            // The E-value as the library's lines print it.
            fields[3] = format!("{:.2e}", fields[3].parse::<f64>().unwrap());
            fields.join("\t")
        })
        .collect();

    let db = Arc::new(Database::from_records(db_records));
    let search = Search::default();
    let mut engine = cpu_engine(&db, &search, queries.len());
    let mut library = Vec::new();
    let mut sink = each_query(|hits| {
        library.extend(lines(hits, &db));
        Ok(())
    });
    let searched = search
        .run(&queries, &db, &mut engine, &mut sink, &|_| {})
        .unwrap();
    assert_eq!(searched.queries, queries.len());
    assert!(library.len() >= 3 * queries.len(), "{library:?}");
    assert_eq!(library, cli);
}

/// A scorer that fails at its `fail_at`-th batch, else the CPU engine's.
struct FailingScorer {
    engine: Box<dyn engine::Engine>,
    batches: usize,
    fail_at: usize,
}

impl Scorer for FailingScorer {
    type Error = host::Error;

    fn batch_len(&self) -> usize {
        2
    }

    fn score_batch(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> host::Result<Vec<Vec<i32>>> {
        self.batches += 1;
        if self.batches == self.fail_at {
            return Err(host::Error::Internal("the scorer failed".into()));
        }
        self.engine.score_batch_reporting(queries, progress)
    }
}

/// A sink that keeps each query's id and fails at its `fail_at`-th query.
struct Ids {
    ids: Vec<String>,
    fail_at: usize,
    scored: Vec<usize>,
}

impl Sink for Ids {
    type Error = host::Error;

    fn query(&mut self, hits: &QueryHits<'_>) -> host::Result<()> {
        if self.ids.len() + 1 == self.fail_at {
            return Err(host::Error::Internal("the sink failed".into()));
        }
        self.ids.push(hits.query.to_string());
        Ok(())
    }

    fn scored(&mut self, done: usize, _total: usize) {
        self.scored.push(done);
    }
}

#[test]
fn a_scorer_error_keeps_every_query_before_it_and_a_sink_error_stops_the_search() {
    let (queries, db_records) = homologs();
    let db = Arc::new(Database::from_records(db_records));
    let search = Search {
        alignments: false,
        ..Search::default()
    };
    let all: Vec<String> = queries.iter().map(|q| q.id.clone()).collect();
    for (scorer_fails_at, sink_fails_at) in [
        (usize::MAX, usize::MAX),
        (3, usize::MAX),
        (1, 0),
        (usize::MAX, 5),
    ] {
        let mut scorer = FailingScorer {
            engine: cpu_engine(&db, &search, queries.len()),
            batches: 0,
            fail_at: scorer_fails_at,
        };
        let mut sink = Ids {
            ids: Vec::new(),
            fail_at: sink_fails_at,
            scored: Vec::new(),
        };
        let result = search.run(&queries, &db, &mut scorer, &mut sink, &|_| {});
        let case =
            format!("scorer fails at batch {scorer_fails_at}, sink at query {sink_fails_at}");
        match (scorer_fails_at, sink_fails_at) {
            (usize::MAX, usize::MAX) => {
                assert_eq!(result.unwrap().queries, queries.len(), "{case}");
                assert_eq!(sink.ids, all, "{case}");
                assert_eq!(sink.scored.last(), Some(&queries.len()), "{case}");
            }
            (batch, usize::MAX) | (batch, 0) => {
                let error = result.unwrap_err().to_string();
                assert!(error.contains("the scorer failed"), "{case}: {error}");
                // Batches of two: every query of the batches before it.
                assert_eq!(sink.ids, all[..2 * (batch - 1)], "{case}");
            }
            (_, query) => {
                let error = result.unwrap_err().to_string();
                assert!(error.contains("the sink failed"), "{case}: {error}");
                assert_eq!(sink.ids, all[..query - 1], "{case}");
            }
        }
    }
}
