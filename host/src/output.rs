//! Output: takes each query's top hits, writes TSV or JSON.

use std::io::Write;

use serde::Serialize;

use crate::db::Database;
use crate::merge::Hit;

/// Output formats of `warpsw search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Tab-separated, one header line, one line per hit.
    Tsv,
    /// One JSON document: a list of queries, each with its hits.
    Json,
}

/// The hits of one query, ready to print.
#[derive(Clone, Debug, Serialize)]
pub struct QueryHits {
    /// Query id.
    pub query: String,
    /// Query length in residues.
    pub query_length: usize,
    /// Best hits, best first.
    pub hits: Vec<Hit>,
}

/// The TSV header line's columns.
pub const TSV_COLUMNS: [&str; 5] = [
    "query_id",
    "target_id",
    "score",
    "query_length",
    "target_length",
];

/// Writes all queries' hits in `format`.
pub fn write_hits(
    out: &mut dyn Write,
    format: Format,
    db: &Database,
    results: &[QueryHits],
) -> std::io::Result<()> {
    let mut sorted_position = vec![0; db.len()];
    for (sorted, &original) in db.original_order().iter().enumerate() {
        sorted_position[original as usize] = sorted;
    }
    let target_length = |original: usize| db.length(sorted_position[original]);
    match format {
        Format::Tsv => {
            writeln!(out, "{}", TSV_COLUMNS.join("\t"))?;
            for q in results {
                for h in &q.hits {
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{}\t{}",
                        q.query,
                        db.id(h.target),
                        h.score,
                        q.query_length,
                        target_length(h.target)
                    )?;
                }
            }
        }
        Format::Json => {
            #[derive(Serialize)]
            struct JsonHit<'a> {
                target_id: &'a str,
                score: i32,
                target_length: usize,
            }
            #[derive(Serialize)]
            struct JsonQuery<'a> {
                query_id: &'a str,
                query_length: usize,
                hits: Vec<JsonHit<'a>>,
            }
            let doc: Vec<JsonQuery> = results
                .iter()
                .map(|q| JsonQuery {
                    query_id: &q.query,
                    query_length: q.query_length,
                    hits: q
                        .hits
                        .iter()
                        .map(|h| JsonHit {
                            target_id: db.id(h.target),
                            score: h.score,
                            target_length: target_length(h.target),
                        })
                        .collect(),
                })
                .collect();
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
        }
    }
    Ok(())
}
