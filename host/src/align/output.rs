//! Alignment output: takes alignments with their sequences' ids and
//! residues, writes TSV, JSON or EMBOSS-like pairwise text
//! (`warpsw align` and `warpsw allpairs`).

use std::io::Write;

use rayon::prelude::*;
use serde::Serialize;

use super::alignment::{Alignment, Op};
use crate::alphabet::decode;

/// Output formats of `warpsw align` / `allpairs`: TSV has one header line
/// ([`TSV_COLUMNS`]) and one line per pair; JSON is one list of objects with
/// the TSV's fields; pairwise prints the aligned sequences, like EMBOSS
/// needle/water, 50 columns a line. With the `clap` feature this is the
/// CLI's `--format` value (the variants' one-line docs are its help).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum AlignmentFormat {
    /// Tab-separated with a header line.
    Tsv,
    /// JSON.
    Json,
    /// Aligned sequences, EMBOSS-like.
    Pairwise,
}

/// TSV rows formatted per batch (in parallel) before they are written.
const TSV_BATCH_ROWS: usize = 1 << 18;

/// The TSV header's columns, by BLAST's names as `search` prints them
/// (`pident` a percentage).
pub const TSV_COLUMNS: [&str; 10] = [
    "qseqid", "sseqid", "score", "qstart", "qend", "sstart", "send", "pident", "length", "cigar",
];

/// One aligned pair, ready to print.
pub struct AlignedPair<'a> {
    /// Query id.
    pub query_id: &'a str,
    /// Target id.
    pub target_id: &'a str,
    /// Query residue codes (whole sequence).
    pub query: &'a [u8],
    /// Target residue codes (whole sequence).
    pub target: &'a [u8],
    /// The alignment.
    pub alignment: &'a Alignment,
}

/// A JSON row: [`TSV_COLUMNS`]' fields.
#[derive(Serialize)]
struct Row<'a> {
    qseqid: &'a str,
    sseqid: &'a str,
    score: i32,
    qstart: usize,
    qend: usize,
    sstart: usize,
    send: usize,
    pident: f64,
    length: usize,
    cigar: String,
}

/// Writes `pairs` in `format`; `extended_cigar` selects `=`/`X` for `M`.
pub fn write_alignments(
    out: &mut dyn Write,
    pairs: &[AlignedPair<'_>],
    format: AlignmentFormat,
    extended_cigar: bool,
) -> std::io::Result<()> {
    let cigar = |p: &AlignedPair<'_>| {
        if extended_cigar {
            p.alignment.extended_cigar(p.query, p.target)
        } else {
            p.alignment.cigar()
        }
    };
    match format {
        AlignmentFormat::Tsv => {
            writeln!(out, "{}", TSV_COLUMNS.join("\t"))?;
            // Rows are formatted in parallel, a batch at a time, and written
            // in order (all-against-all runs print millions of rows).
            for batch in pairs.chunks(TSV_BATCH_ROWS) {
                let texts: Vec<Vec<u8>> = batch
                    .par_chunks(TSV_BATCH_ROWS / 64)
                    .map(|rows| {
                        let mut text = Vec::with_capacity(rows.len() * 64);
                        for p in rows {
                            let a = p.alignment;
                            writeln!(
                                text,
                                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.3}\t{}\t{}",
                                p.query_id,
                                p.target_id,
                                a.score,
                                a.query_start,
                                a.query_end,
                                a.target_start,
                                a.target_end,
                                100.0 * a.identity,
                                a.length,
                                cigar(p)
                            )
                            .expect("writing to a Vec cannot fail");
                        }
                        text
                    })
                    .collect();
                for text in texts {
                    out.write_all(&text)?;
                }
            }
        }
        AlignmentFormat::Json => {
            let rows: Vec<Row<'_>> = pairs
                .iter()
                .map(|p| Row {
                    qseqid: p.query_id,
                    sseqid: p.target_id,
                    score: p.alignment.score,
                    qstart: p.alignment.query_start,
                    qend: p.alignment.query_end,
                    sstart: p.alignment.target_start,
                    send: p.alignment.target_end,
                    pident: 100.0 * p.alignment.identity,
                    length: p.alignment.length,
                    cigar: cigar(p),
                })
                .collect();
            serde_json::to_writer_pretty(&mut *out, &rows)?;
            writeln!(out)?;
        }
        AlignmentFormat::Pairwise => {
            for p in pairs {
                write_pairwise(
                    out,
                    p.query_id,
                    p.target_id,
                    p.query,
                    p.target,
                    p.alignment,
                    &cigar(p),
                    &[],
                )?;
            }
        }
    }
    Ok(())
}

/// Columns per line of the pairwise format.
const WIDTH: usize = 50;

/// One alignment as text, EMBOSS-like: a `#` header (ids, length,
/// identity, gaps, score, CIGAR, then `extra`'s named lines), then the
/// aligned rows, [`WIDTH`] columns a block.
pub(crate) fn write_pairwise(
    out: &mut dyn Write,
    query_id: &str,
    target_id: &str,
    query: &[u8],
    target: &[u8],
    a: &Alignment,
    cigar: &str,
    extra: &[(&str, String)],
) -> std::io::Result<()> {
    writeln!(out, "#=======================================")?;
    writeln!(out, "# 1: {query_id}")?;
    writeln!(out, "# 2: {target_id}")?;
    writeln!(out, "# Length: {}", a.length)?;
    let gaps = a.ops.iter().filter(|&&op| op != Op::Match).count();
    writeln!(
        out,
        "# Identity: {}/{} ({:.1}%)",
        a.matches,
        a.length,
        100.0 * a.identity
    )?;
    writeln!(out, "# Gaps: {gaps}/{}", a.length)?;
    writeln!(out, "# Score: {}", a.score)?;
    writeln!(out, "# CIGAR: {cigar}")?;
    for (name, value) in extra {
        writeln!(out, "# {name}: {value}")?;
    }
    writeln!(out, "#=======================================")?;
    let columns: Vec<_> = a.columns(query, target).collect();
    // As wide as the longer id, however long (UniProt ids run past 20),
    // so the columns of both rows line up.
    let name_width = query_id.chars().count().max(target_id.chars().count());
    let (mut qi, mut ti) = (a.query_start, a.target_start);
    for block in columns.chunks(WIDTH) {
        let letter = |c: Option<u8>| c.map_or('-', |c| decode(c) as char);
        let q: String = block.iter().map(|&(_, q, _)| letter(q)).collect();
        let t: String = block.iter().map(|&(_, _, t)| letter(t)).collect();
        let mid: String = block
            .iter()
            .map(|&(_, q, t)| match (q, t) {
                (Some(x), Some(y)) if x == y => '|',
                (Some(_), Some(_)) => '.',
                _ => ' ',
            })
            .collect();
        let q_used = block.iter().filter(|c| c.1.is_some()).count();
        let t_used = block.iter().filter(|c| c.2.is_some()).count();
        writeln!(out)?;
        writeln!(
            out,
            "{:<name_width$} {:>7} {q} {:>7}",
            query_id,
            qi,
            qi + q_used - 1
        )?;
        writeln!(out, "{:<name_width$} {:>7} {mid}", "", "")?;
        writeln!(
            out,
            "{:<name_width$} {:>7} {t} {:>7}",
            target_id,
            ti,
            ti + t_used - 1
        )?;
        qi += q_used;
        ti += t_used;
    }
    writeln!(out)?;
    Ok(())
}
