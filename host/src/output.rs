//! Output: takes each query's top hits, writes TSV or JSON.

use std::io::Write;

use serde::Serialize;

use crate::db::Database;
use crate::merge::Hit;

/// Output formats of `warpsw search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
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

/// Writes hits query by query as they are found (streaming): the header
/// first, then each query's hits, then the end of the document. A file cut
/// short after [`HitsWriter::query`] holds whole queries (TSV) or lacks the
/// closing `]` (JSON), so it never parses as a complete result.
pub struct HitsWriter<'a> {
    format: Format,
    db: &'a Database,
    /// Input position → sorted position, for the target lengths.
    sorted_position: Vec<usize>,
    queries: usize,
}

impl<'a> HitsWriter<'a> {
    /// Writes the header (TSV) or the opening `[` (JSON).
    pub fn begin(out: &mut dyn Write, format: Format, db: &'a Database) -> std::io::Result<Self> {
        let mut sorted_position = vec![0; db.len()];
        for (sorted, &original) in db.original_order().iter().enumerate() {
            sorted_position[original as usize] = sorted;
        }
        match format {
            Format::Tsv => writeln!(out, "{}", TSV_COLUMNS.join("\t"))?,
            Format::Json => write!(out, "[")?,
        }
        Ok(HitsWriter {
            format,
            db,
            sorted_position,
            queries: 0,
        })
    }

    fn target_length(&self, original: usize) -> usize {
        self.db.length(self.sorted_position[original])
    }

    /// Writes one query's hits.
    pub fn query(&mut self, out: &mut dyn Write, q: &QueryHits) -> std::io::Result<()> {
        let db = self.db;
        match self.format {
            Format::Tsv => {
                for h in &q.hits {
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{}\t{}",
                        q.query,
                        db.id(h.target),
                        h.score,
                        q.query_length,
                        self.target_length(h.target)
                    )?;
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
                let doc = JsonQuery {
                    query_id: &q.query,
                    query_length: q.query_length,
                    hits: q
                        .hits
                        .iter()
                        .map(|h| JsonHit {
                            target_id: db.id(h.target),
                            score: h.score,
                            target_length: self.target_length(h.target),
                        })
                        .collect(),
                };
                writeln!(out, "{}", if self.queries == 0 { "" } else { "," })?;
                serde_json::to_writer_pretty(&mut *out, &doc)?;
            }
        }
        self.queries += 1;
        Ok(())
    }

    /// Ends the document (JSON's closing `]`).
    pub fn finish(self, out: &mut dyn Write) -> std::io::Result<()> {
        match self.format {
            Format::Tsv => Ok(()),
            Format::Json if self.queries == 0 => writeln!(out, "]"),
            Format::Json => writeln!(out, "\n]"),
        }
    }
}

/// Writes all queries' hits in `format`.
pub fn write_hits(
    out: &mut dyn Write,
    format: Format,
    db: &Database,
    results: &[QueryHits],
) -> std::io::Result<()> {
    let mut writer = HitsWriter::begin(out, format, db)?;
    for q in results {
        writer.query(out, q)?;
    }
    writer.finish(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fasta::Record;
    use crate::merge::Hit;

    #[test]
    fn streamed_json_parses_only_when_finished() {
        let db = Database::from_records(vec![Record {
            id: "t".into(),
            description: String::new(),
            codes: vec![0, 1, 2],
        }]);
        let q = |id: &str| QueryHits {
            query: id.into(),
            query_length: 4,
            hits: vec![Hit {
                target: 0,
                score: 7,
            }],
        };
        let mut out = Vec::new();
        let mut w = HitsWriter::begin(&mut out, Format::Json, &db).unwrap();
        w.query(&mut out, &q("a")).unwrap();
        w.query(&mut out, &q("b")).unwrap();
        assert!(serde_json::from_slice::<serde_json::Value>(&out).is_err());
        w.finish(&mut out).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc[1]["query_id"], "b");
        assert_eq!(doc[0]["hits"][0]["target_length"], 3);
    }
}
