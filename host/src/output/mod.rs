//! Output: takes each query's reported hits (score, statistics, alignment),
//! writes TSV, BLAST's tabular format, JSON or pairwise text.
//!
//! # Columns
//! A hit's fields are [`Column`]s named as BLAST names them (`qseqid`,
//! `sseqid`, `pident`, ... [`Column::ALL`]); `--columns` picks them by those
//! names ([`parse_columns`]). The definitions are BLAST's: `length` counts
//! the alignment's columns (gaps included), `pident = 100·nident/length`,
//! `mismatch` the aligned pairs of different residues, `gapopen` the runs of
//! gaps, `gaps` the gap columns, `positive` the aligned pairs scoring above
//! 0, coordinates are 1-based and inclusive. Ids are the first word of the
//! FASTA header (as BLAST writes them); `stitle` is the whole header.
//!
//! # Formats
//! * [`Format::Tsv`]: a header line of the columns' BLAST names
//!   ([`Column::blast_name`]), then one line per hit; [`TSV_COLUMNS`] unless
//!   columns are picked.
//! * [`Format::Blast6`]: BLAST's `-outfmt 6`: no header, [`BLAST6_COLUMNS`]
//!   unless columns are picked, numbers printed as BLAST prints them.
//! * [`Format::Json`]: a list of queries, each with its statistics and its
//!   hits (the TSV's columns, or those picked, as fields named as BLAST
//!   names them).
//! * [`Format::Pairwise`]: per query the statistics, a table of the hits and
//!   each hit's alignment, like SSEARCH's.

use std::io::Write;

use serde_json::{Map, Value};

use crate::align::Alignment;
use crate::align::output::write_pairwise;
use crate::alphabet::decode;
use crate::db::Database;
use crate::matrix::ScoreMatrix;
use crate::stats::QueryStatistics;

mod columns;
mod numbers;

pub use columns::{BLAST6_COLUMNS, Column, NO_STATISTICS, TSV_COLUMNS, parse_columns};
pub use numbers::{blast_bits, blast_evalue, c_exponential};

/// Output formats of `warpsw search`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// Tab-separated, one header line, one line per hit.
    Tsv,
    /// BLAST's tabular format (`-outfmt 6`): no header, BLAST's 12 columns.
    Blast6,
    /// One JSON document: a list of queries, each with its statistics and
    /// hits.
    Json,
    /// Human-readable: statistics, a table of hits, each alignment.
    Pairwise,
}

/// One reported hit: its score, statistics and alignment.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportedHit {
    /// Position of the target in the database's input order.
    pub target: usize,
    /// Local alignment score.
    pub score: i32,
    /// Bit score (`None` without statistics, `--stats none`).
    pub bits: Option<f64>,
    /// E-value (`None` without statistics).
    pub evalue: Option<f64>,
    /// The alignment (its score equals `score`); `None` when the output
    /// prints no column of it ([`HitsWriter::needs_alignments`]), so that the
    /// search skips the traceback.
    pub alignment: Option<Alignment>,
}

/// The hits of one query, ready to print.
#[derive(Clone, Debug)]
pub struct QueryHits<'a> {
    /// Query id.
    pub query: &'a str,
    /// Query residue codes.
    pub codes: &'a [u8],
    /// How the E-values were computed (`None`: they were not, the hits are
    /// the best raw scores).
    pub statistics: Option<QueryStatistics>,
    /// Hits, best first.
    pub hits: Vec<ReportedHit>,
}

/// Counts over an alignment's columns (BLAST's definitions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColumnCounts {
    /// Identical aligned pairs.
    pub identities: usize,
    /// Different aligned pairs.
    pub mismatches: usize,
    /// Aligned pairs scoring above 0.
    pub positives: usize,
    /// Gap runs.
    pub gap_openings: usize,
    /// Gap columns.
    pub gaps: usize,
}

impl ColumnCounts {
    /// The counts of `a` between `query` and `target` under `matrix`.
    pub fn of(a: &Alignment, query: &[u8], target: &[u8], matrix: &ScoreMatrix) -> ColumnCounts {
        let mut c = ColumnCounts::default();
        let mut previous = None;
        for (op, q, t) in a.columns(query, target) {
            match (q, t) {
                (Some(q), Some(t)) => {
                    if q == t {
                        c.identities += 1;
                    } else {
                        c.mismatches += 1;
                    }
                    if matrix.score(q, t) > 0 {
                        c.positives += 1;
                    }
                }
                _ => {
                    c.gaps += 1;
                    if previous != Some(op) {
                        c.gap_openings += 1;
                    }
                }
            }
            previous = Some(op);
        }
        c
    }
}

/// Writes hits query by query as they are found (streaming): the header
/// first, then each query's hits, then the end of the document. A file cut
/// short after [`HitsWriter::query`] holds whole queries (TSV, BLAST) or
/// lacks the closing `]` (JSON), so it never parses as a complete result.
pub struct HitsWriter<'a> {
    format: Format,
    columns: Vec<Column>,
    db: &'a Database,
    /// Descriptions in input order, for `stitle` (None: ids only).
    descriptions: Option<&'a [String]>,
    matrix: &'a ScoreMatrix,
    /// Input position → sorted position, for the target sequences.
    sorted_position: Vec<usize>,
    queries: usize,
}

/// One hit with what its columns are computed from.
struct HitView<'h> {
    query_id: &'h str,
    query: &'h [u8],
    target: &'h [u8],
    target_id: &'h str,
    title: String,
    hit: &'h ReportedHit,
    counts: ColumnCounts,
}

impl HitView<'_> {
    /// The hit's alignment: the search realigns every hit when a column
    /// needs it ([`HitsWriter::needs_alignments`]), and only such a column
    /// asks.
    fn alignment(&self) -> &Alignment {
        self.hit
            .alignment
            .as_ref()
            .expect("the search realigns the hits when a column needs the alignment")
    }

    fn aligned(&self, of_query: bool) -> String {
        let a = self.alignment();
        a.columns(self.query, self.target)
            .map(|(_, q, t)| {
                let c = if of_query { q } else { t };
                c.map_or('-', |c| decode(c) as char)
            })
            .collect()
    }

    fn percent(&self, part: usize) -> f64 {
        match self.alignment().length {
            0 => 0.0,
            length => 100.0 * part as f64 / length as f64,
        }
    }

    fn coverage(&self) -> f64 {
        let a = self.alignment();
        100.0 * (a.query_end + 1 - a.query_start) as f64 / self.query.len().max(1) as f64
    }

    /// The column as text; `blast` picks BLAST's number formats.
    fn text(&self, column: Column, blast: bool) -> String {
        let a = || self.alignment();
        match column {
            Column::QueryId => self.query_id.to_string(),
            Column::QueryLength => self.query.len().to_string(),
            Column::TargetId => self.target_id.to_string(),
            Column::TargetLength => self.target.len().to_string(),
            Column::TargetTitle => self.title.clone(),
            Column::QueryStart => a().query_start.to_string(),
            Column::QueryEnd => a().query_end.to_string(),
            Column::TargetStart => a().target_start.to_string(),
            Column::TargetEnd => a().target_end.to_string(),
            Column::QuerySequence => self.aligned(true),
            Column::TargetSequence => self.aligned(false),
            Column::Evalue => match self.hit.evalue {
                None => NO_STATISTICS.into(),
                Some(e) if blast => blast_evalue(e),
                Some(e) => c_exponential(e, 2),
            },
            Column::Bits => match self.hit.bits {
                None => NO_STATISTICS.into(),
                Some(b) if blast => blast_bits(b),
                Some(b) => format!("{b:.1}"),
            },
            Column::Score => self.hit.score.to_string(),
            Column::Length => a().length.to_string(),
            Column::PercentIdentity => format!("{:.3}", self.percent(self.counts.identities)),
            Column::Identities => self.counts.identities.to_string(),
            Column::Mismatches => self.counts.mismatches.to_string(),
            Column::Positives => self.counts.positives.to_string(),
            Column::GapOpenings => self.counts.gap_openings.to_string(),
            Column::Gaps => self.counts.gaps.to_string(),
            Column::PercentPositives => format!("{:.2}", self.percent(self.counts.positives)),
            Column::QueryCoverage => format!("{:.0}", self.coverage()),
            Column::Cigar => a().cigar(),
        }
    }

    /// The column as a JSON value (numbers unrounded).
    fn json(&self, column: Column) -> Value {
        let a = || self.alignment();
        let number = |x: f64| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number);
        match column {
            Column::QueryLength => self.query.len().into(),
            Column::TargetLength => self.target.len().into(),
            Column::QueryStart => a().query_start.into(),
            Column::QueryEnd => a().query_end.into(),
            Column::TargetStart => a().target_start.into(),
            Column::TargetEnd => a().target_end.into(),
            Column::Evalue => self.hit.evalue.map_or(Value::Null, number),
            Column::Bits => self.hit.bits.map_or(Value::Null, number),
            Column::Score => self.hit.score.into(),
            Column::Length => a().length.into(),
            Column::PercentIdentity => number(self.percent(self.counts.identities)),
            Column::Identities => self.counts.identities.into(),
            Column::Mismatches => self.counts.mismatches.into(),
            Column::Positives => self.counts.positives.into(),
            Column::GapOpenings => self.counts.gap_openings.into(),
            Column::Gaps => self.counts.gaps.into(),
            Column::PercentPositives => number(self.percent(self.counts.positives)),
            Column::QueryCoverage => number(self.coverage()),
            other => self.text(other, false).into(),
        }
    }
}

impl<'a> HitsWriter<'a> {
    /// Writes the header (TSV), the opening `[` (JSON) or nothing.
    /// `columns` replaces the format's own ([`TSV_COLUMNS`],
    /// [`BLAST6_COLUMNS`]; JSON takes the TSV's); `descriptions` (input
    /// order) are needed for `stitle` and the pairwise format's titles.
    pub fn begin(
        out: &mut dyn Write,
        format: Format,
        columns: Option<Vec<Column>>,
        db: &'a Database,
        descriptions: Option<&'a [String]>,
        matrix: &'a ScoreMatrix,
    ) -> std::io::Result<Self> {
        let mut sorted_position = vec![0; db.len()];
        for (sorted, &original) in db.original_order().iter().enumerate() {
            sorted_position[original as usize] = sorted;
        }
        let columns = columns.unwrap_or_else(|| match format {
            Format::Blast6 => BLAST6_COLUMNS.to_vec(),
            _ => TSV_COLUMNS.to_vec(),
        });
        match format {
            Format::Tsv => {
                let names: Vec<&str> = columns.iter().map(|c| c.blast_name()).collect();
                writeln!(out, "{}", names.join("\t"))?;
            }
            Format::Json => write!(out, "[")?,
            Format::Blast6 | Format::Pairwise => {}
        }
        Ok(HitsWriter {
            format,
            columns,
            db,
            descriptions,
            matrix,
            sorted_position,
            queries: 0,
        })
    }

    /// Whether the output prints anything of the hits' alignments (the
    /// pairwise format, or a column such as `qstart`, `pident` or `cigar`):
    /// without, the search reports scores, E-values and bits without the
    /// traceback.
    pub fn needs_alignments(&self) -> bool {
        self.format == Format::Pairwise || self.columns.iter().any(|c| c.of_alignment())
    }

    fn view<'h>(&'h self, q: &'h QueryHits<'_>, hit: &'h ReportedHit) -> HitView<'h> {
        let target = self.db.sequence(self.sorted_position[hit.target]);
        let target_id = self.db.id(hit.target);
        let title = match self.descriptions.map(|d| d[hit.target].as_str()) {
            Some(d) if !d.is_empty() => format!("{target_id} {d}"),
            _ => target_id.to_string(),
        };
        HitView {
            query_id: q.query,
            query: q.codes,
            target,
            target_id,
            title,
            hit,
            counts: hit
                .alignment
                .as_ref()
                .map(|a| ColumnCounts::of(a, q.codes, target, self.matrix))
                .unwrap_or_default(),
        }
    }

    /// Writes one query's hits.
    pub fn query(&mut self, out: &mut dyn Write, q: &QueryHits<'_>) -> std::io::Result<()> {
        match self.format {
            Format::Tsv | Format::Blast6 => {
                let blast = self.format == Format::Blast6;
                let mut text = String::new();
                for hit in &q.hits {
                    let view = self.view(q, hit);
                    let fields: Vec<String> =
                        self.columns.iter().map(|&c| view.text(c, blast)).collect();
                    text.push_str(&fields.join("\t"));
                    text.push('\n');
                }
                out.write_all(text.as_bytes())?;
            }
            Format::Json => {
                let mut doc = Map::new();
                doc.insert(Column::QueryId.blast_name().into(), q.query.into());
                doc.insert(
                    Column::QueryLength.blast_name().into(),
                    q.codes.len().into(),
                );
                doc.insert(
                    "statistics".into(),
                    serde_json::to_value(&q.statistics).map_err(std::io::Error::other)?,
                );
                doc.insert(
                    "statistics_summary".into(),
                    self.statistics_summary(q).into(),
                );
                let hits: Vec<Value> = q
                    .hits
                    .iter()
                    .map(|hit| {
                        let view = self.view(q, hit);
                        let fields: Map<String, Value> = self
                            .columns
                            .iter()
                            .filter(|c| !c.of_query())
                            .map(|&c| (c.blast_name().to_string(), view.json(c)))
                            .collect();
                        Value::Object(fields)
                    })
                    .collect();
                doc.insert("hits".into(), hits.into());
                writeln!(out, "{}", if self.queries == 0 { "" } else { "," })?;
                serde_json::to_writer_pretty(&mut *out, &doc)?;
            }
            Format::Pairwise => self.pairwise(out, q)?,
        }
        self.queries += 1;
        Ok(())
    }

    /// How the query's E-values were computed, in a sentence.
    fn statistics_summary(&self, q: &QueryHits<'_>) -> String {
        match &q.statistics {
            Some(s) => s.describe(),
            None => format!(
                "none (--stats none): the best raw scores, ties in database order; database {} \
                 sequences, {} residues; query {} residues",
                self.db.len(),
                self.db.total_residues(),
                q.codes.len()
            ),
        }
    }

    fn pairwise(&self, out: &mut dyn Write, q: &QueryHits<'_>) -> std::io::Result<()> {
        writeln!(out, "Query: {} ({} residues)", q.query, q.codes.len())?;
        writeln!(
            out,
            "Database: {} sequences, {} residues",
            self.db.len(),
            self.db.total_residues()
        )?;
        writeln!(out, "Statistics: {}", self.statistics_summary(q))?;
        writeln!(out, "{} hits reported", q.hits.len())?;
        writeln!(out)?;
        let views: Vec<HitView<'_>> = q.hits.iter().map(|h| self.view(q, h)).collect();
        let width = views
            .iter()
            .map(|v| v.target_id.chars().count())
            .max()
            .unwrap_or(0)
            .max("target".len());
        writeln!(
            out,
            "{:<width$} {:>7} {:>7} {:>7} {:>9}  description",
            "target", "length", "score", "bits", "E-value"
        )?;
        for v in &views {
            let description = self
                .descriptions
                .map(|d| d[v.hit.target].as_str())
                .unwrap_or("");
            writeln!(
                out,
                "{:<width$} {:>7} {:>7} {:>7} {:>9}  {description}",
                v.target_id,
                v.target.len(),
                v.hit.score,
                v.hit
                    .bits
                    .map_or(NO_STATISTICS.into(), |b| format!("{b:.1}")),
                v.hit.evalue.map_or(NO_STATISTICS.into(), blast_evalue)
            )?;
        }
        writeln!(out)?;
        for v in &views {
            let c = v.counts;
            let mut extra = vec![("Title", v.title.clone())];
            if let (Some(bits), Some(evalue)) = (v.hit.bits, v.hit.evalue) {
                extra.push(("Bits", format!("{bits:.1}")));
                extra.push(("E-value", c_exponential(evalue, 2)));
            }
            extra.push((
                "Positives",
                format!(
                    "{}/{} ({:.1}%)",
                    c.positives,
                    v.alignment().length,
                    v.percent(c.positives)
                ),
            ));
            write_pairwise(
                out,
                q.query,
                v.target_id,
                v.query,
                v.target,
                v.alignment(),
                &v.alignment().cigar(),
                &extra,
            )?;
        }
        Ok(())
    }

    /// Ends the document (JSON's closing `]`).
    pub fn finish(self, out: &mut dyn Write) -> std::io::Result<()> {
        match self.format {
            Format::Tsv | Format::Blast6 | Format::Pairwise => Ok(()),
            Format::Json if self.queries == 0 => writeln!(out, "]"),
            Format::Json => writeln!(out, "\n]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::{AlignOptions, Mode, align_pairs};
    use crate::engine::Placement;
    use crate::fasta::Record;
    use crate::scoring::{GapPenalty, Scoring};
    use crate::stats::{DatabaseSize, Method, Statistics};

    fn scoring() -> Scoring {
        Scoring {
            matrix: ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: GapPenalty::new(11, 1).unwrap(),
        }
    }

    /// A query, a two-sequence database and the query's hits against both.
    fn example() -> (Vec<u8>, Vec<Vec<u8>>, Database, Vec<ReportedHit>) {
        let enc = |s: &str| crate::alphabet::encode_all(s.as_bytes()).unwrap();
        let query = enc("MKVLAAGIVGWWHEKLPQ");
        let targets = [enc("MKVLSAGIVGHEKLPQ"), enc("PPPPPPPMKVLAAGIV")];
        let db = Database::from_records(
            targets
                .iter()
                .enumerate()
                .map(|(i, t)| Record {
                    id: format!("t{i}"),
                    description: String::new(),
                    codes: t.clone(),
                })
                .collect(),
        );
        let seqs = [query.clone(), targets[0].clone(), targets[1].clone()];
        let run = align_pairs(
            Placement::Cpu,
            &seqs,
            &[(0, 1), (0, 2)],
            Mode::Local,
            &scoring(),
            &AlignOptions::default(),
        )
        .unwrap();
        let hits = run
            .alignments
            .into_iter()
            .enumerate()
            .map(|(target, a)| {
                let a = a.unwrap();
                ReportedHit {
                    target,
                    score: a.score,
                    bits: Some(20.0),
                    evalue: Some(1e-5),
                    alignment: Some(a),
                }
            })
            .collect();
        (query, targets.to_vec(), db, hits)
    }

    fn statistics(db: &Database) -> QueryStatistics {
        let size = DatabaseSize {
            sequences: db.len() as u64,
            residues: db.total_residues(),
        };
        Statistics::new(Method::Fixed, &scoring(), size)
            .unwrap()
            .for_query(
                &[0; 18],
                &[],
                &crate::stats::SequenceLengths::new(Vec::new()),
            )
    }

    #[test]
    fn counts_follow_blast_definitions() {
        let (query, targets, _, hits) = example();
        let a = hits[0].alignment.as_ref().unwrap();
        // MKVLAAGIVGWWHEKLPQ / MKVLSAGIVG--HEKLPQ: 16 pairs, 1 mismatch
        // (A/S), one gap run of 2.
        assert_eq!(a.cigar(), "10M2I6M");
        let c = ColumnCounts::of(a, &query, &targets[0], &scoring().matrix);
        assert_eq!(
            (c.identities, c.mismatches, c.gap_openings, c.gaps),
            (15, 1, 1, 2)
        );
        // A/S scores 1 in BLOSUM62: positive.
        assert_eq!(c.positives, 16);
    }

    #[test]
    fn blast6_and_picked_columns() {
        let (query, _, db, hits) = example();
        let matrix = scoring().matrix;
        let q = QueryHits {
            query: "q1",
            codes: &query,
            statistics: Some(statistics(&db)),
            hits,
        };
        let mut out = Vec::new();
        let mut w = HitsWriter::begin(&mut out, Format::Blast6, None, &db, None, &matrix).unwrap();
        w.query(&mut out, &q).unwrap();
        w.finish(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let first: Vec<&str> = text.lines().next().unwrap().split('\t').collect();
        assert_eq!(
            first,
            [
                "q1", "t0", "83.333", "18", "1", "1", "1", "18", "1", "16", "1.00e-05", "20.0"
            ]
        );

        let columns = parse_columns("sseqid,qseq,sseq,cigar,nident,qcovhsp").unwrap();
        let mut out = Vec::new();
        let mut w =
            HitsWriter::begin(&mut out, Format::Tsv, Some(columns), &db, None, &matrix).unwrap();
        w.query(&mut out, &q).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "sseqid\tqseq\tsseq\tcigar\tnident\tqcovhsp");
        assert_eq!(
            lines[1],
            "t0\tMKVLAAGIVGWWHEKLPQ\tMKVLSAGIVG--HEKLPQ\t10M2I6M\t15\t100"
        );
    }

    #[test]
    fn only_alignment_columns_and_the_pairwise_format_need_the_alignments() {
        let (_, _, db, _) = example();
        let matrix = scoring().matrix;
        let needs = |format: Format, columns: Option<&str>| {
            let columns = columns.map(|c| parse_columns(c).unwrap());
            HitsWriter::begin(&mut Vec::new(), format, columns, &db, None, &matrix)
                .unwrap()
                .needs_alignments()
        };
        for format in [Format::Tsv, Format::Blast6, Format::Json, Format::Pairwise] {
            assert!(needs(format, None), "{format:?}");
        }
        let scores_only = Some("qseqid,qlen,sseqid,slen,stitle,evalue,bitscore,score");
        for format in [Format::Tsv, Format::Blast6, Format::Json] {
            assert!(!needs(format, scores_only), "{format:?}");
        }
        assert!(needs(Format::Pairwise, scores_only));
        for column in [
            "qstart", "qend", "sstart", "send", "qseq", "sseq", "length", "pident", "nident",
            "mismatch", "positive", "gapopen", "gaps", "ppos", "qcovhsp", "cigar",
        ] {
            assert!(
                needs(Format::Tsv, Some(&format!("qseqid,{column}"))),
                "{column}"
            );
        }
    }

    #[test]
    fn streamed_json_parses_only_when_finished() {
        let (query, _, db, hits) = example();
        let matrix = scoring().matrix;
        let q = |id: &'static str| QueryHits {
            query: id,
            codes: &query,
            statistics: Some(statistics(&db)),
            hits: hits.clone(),
        };
        let mut out = Vec::new();
        let mut w = HitsWriter::begin(&mut out, Format::Json, None, &db, None, &matrix).unwrap();
        w.query(&mut out, &q("a")).unwrap();
        w.query(&mut out, &q("b")).unwrap();
        assert!(serde_json::from_slice::<serde_json::Value>(&out).is_err());
        w.finish(&mut out).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc[1]["qseqid"], "b");
        assert_eq!(doc[0]["hits"][0]["slen"], 16);
        assert_eq!(doc[0]["hits"][0]["evalue"], 1e-5);
        assert_eq!(doc[0]["statistics"]["method"], "fixed");
    }

    #[test]
    fn c_exponential_prints_like_printf() {
        assert_eq!(c_exponential(6.7123e-68, 2), "6.71e-68");
        assert_eq!(c_exponential(123.0, 2), "1.23e+02");
        assert_eq!(c_exponential(1e-200, 2), "1.00e-200");
        assert_eq!(c_exponential(0.0, 2), "0.00e+00");
    }
}
