//! `cargo run --release --example search QUERIES.fasta DB.fasta`: each
//! query's hits (target, score, E-value), on the GPUs or else the CPU.
use std::sync::Arc;

use host::engine::{self, Placement, SearchOptions};
use host::search::{Search, each_query};
use host::{db::Database, fasta::read_fasta};

fn main() -> host::Result<()> {
    let mut paths = std::env::args().skip(1);
    let mut read = || read_fasta(paths.next().expect("QUERIES.fasta DB.fasta").as_ref());
    let (queries, db) = (read()?, Arc::new(Database::from_records(read()?)));
    let search = Search::default(); // BLOSUM62 11/1, fitted E-values, 10 hits
    let options = SearchOptions::for_queries(queries.len());
    let gpus_or_cpu = Placement::Auto(None);
    let mut engine =
        engine::open(gpus_or_cpu, db.clone(), search.scoring.clone(), &options)?.engine;
    let mut print = each_query(|hits| {
        for hit in &hits.hits {
            let (target, evalue) = (db.id(hit.target), hit.evalue.unwrap_or(f64::NAN));
            println!("{}\t{target}\t{}\t{evalue:.2e}", hits.query, hit.score);
        }
        Ok(())
    });
    search.run(&queries, &db, &mut engine, &mut print, &|_cells| {})?;
    Ok(())
}
