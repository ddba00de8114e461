//! Scores of a query against random sequences, for the fitted statistics'
//! fallback: where a query's own database scores cannot be fitted (a
//! database of a few sequences, or of few lengths) and the scoring has no
//! published parameters, the same fit ([`super::fit`]) is made over the
//! query's scores against random sequences instead, as SSEARCH fits the
//! scores of shuffled library sequences when the library is small
//! (Pearson, W. R. (1998). J. Mol. Biol. 276:71–84).
//!
//! The random sequences are unrelated to the query by construction, so the
//! fit sees no homologs. Their residues are drawn from the Robinson &
//! Robinson background ([`super::ROBINSON_FREQUENCIES`]), the composition
//! the ungapped parameters assume; their lengths are the database's own,
//! each stretched by a random factor between 1/e and e so that the lengths
//! always fill the fit's length bins (a database of one length has one
//! bin). The query's own residues are scored, so that a query of skewed
//! composition keeps its score distribution. The sample is seeded by the
//! query's residues: a query gets the same E-values in every run, batch
//! and engine.

use std::sync::Arc;

use rand::distr::{Distribution, weighted::WeightedIndex};
use rand::{Rng, SeedableRng};

use super::{MIN_FIT_LENGTH, ROBINSON_FREQUENCIES, SequenceLengths};
use crate::db::Database;
use crate::engine::Engine;
use crate::engine::cpu::CpuEngine;
use crate::fasta::Record;
use crate::kernel::{Kernel, Plan};
use crate::scoring::Scoring;

/// Random sequences a query is scored against: ten times the fit's
/// minimum, so that the mean line and the variance are each known to a
/// few percent.
pub const SIMULATED_SEQUENCES: usize = 1000;

/// The fewest random sequences scored, however long the query.
const MIN_SIMULATED_SEQUENCES: usize = 300;

/// Cells (query residues × random residues) one query's sample may take:
/// about a fifth of a second on two cores of the CPU engine. A longer query
/// scores fewer random sequences, down to [`MIN_SIMULATED_SEQUENCES`].
const MAX_SIMULATED_CELLS: f64 = 2e9;

/// Length of a random sequence where the database has none of at least
/// [`MIN_FIT_LENGTH`] residues.
const TYPICAL_LENGTH: usize = 300;

/// Longest random sequence.
const MAX_SIMULATED_LENGTH: usize = 10_000;

/// The query's scores against random sequences (see the module docs), and
/// those sequences' lengths, ready for [`super::fit`].
pub fn simulated_scores(
    query: &[u8],
    scoring: &Scoring,
    database: &SequenceLengths,
) -> (Vec<i32>, SequenceLengths) {
    let db = Arc::new(random_sequences(query, database));
    let sorted_lengths: Vec<usize> = (0..db.len()).map(|i| db.length(i)).collect();
    let mut engine = CpuEngine::new(db, scoring.clone(), Plan::one(Kernel::Simt));
    let scores = engine
        .score_all(query)
        .expect("the CPU engine scores any query against sequences it packed itself");
    (scores, SequenceLengths::new(sorted_lengths))
}

/// The random sequences [`simulated_scores`] scores `query` against.
fn random_sequences(query: &[u8], database: &SequenceLengths) -> Database {
    // Seeded by the query's residues alone.
    let mut rng = rand::rngs::StdRng::seed_from_u64(u64::from(crc32fast::hash(query)));
    let usable: Vec<usize> = database
        .lengths()
        .iter()
        .copied()
        .filter(|&n| n >= MIN_FIT_LENGTH)
        .collect();
    let length = |rng: &mut rand::rngs::StdRng| {
        let base = match usable.is_empty() {
            true => TYPICAL_LENGTH,
            false => usable[rng.random_range(0..usable.len())],
        };
        let stretch: f64 = rng.random_range(-1.0..1.0f64).exp();
        ((base as f64 * stretch).round() as usize).clamp(2 * MIN_FIT_LENGTH, MAX_SIMULATED_LENGTH)
    };
    let mut lengths: Vec<usize> = (0..SIMULATED_SEQUENCES).map(|_| length(&mut rng)).collect();
    // A long query scores fewer sequences (the first ones drawn).
    let mean = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
    let affordable = (MAX_SIMULATED_CELLS / (query.len().max(1) as f64 * mean)) as usize;
    lengths.truncate(affordable.clamp(MIN_SIMULATED_SEQUENCES, SIMULATED_SEQUENCES));

    let residues = WeightedIndex::new(ROBINSON_FREQUENCIES)
        .expect("the Robinson frequencies are positive weights");
    let records: Vec<Record> = lengths
        .iter()
        .enumerate()
        .map(|(i, &n)| Record {
            id: format!("random{i}"),
            description: String::new(),
            codes: (0..n).map(|_| residues.sample(&mut rng) as u8).collect(),
        })
        .collect();
    Database::from_records(records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::ScoreMatrix;
    use crate::scoring::GapPenalty;

    fn blosum62(open: i32, extend: i32) -> Scoring {
        Scoring {
            matrix: ScoreMatrix::by_name("blosum62").unwrap(),
            gaps: GapPenalty::new(open, extend).unwrap(),
        }
    }

    #[test]
    fn the_sample_is_the_references_scores_and_repeats() {
        let query: Vec<u8> = (0..40u8).map(|i| (i * 7) % 20).collect();
        let scoring = blosum62(3, 3);
        let database = SequenceLengths::new(vec![120; 3]);
        let (scores, lengths) = simulated_scores(&query, &scoring, &database);
        assert_eq!(scores.len(), SIMULATED_SEQUENCES);
        assert_eq!(lengths.len(), SIMULATED_SEQUENCES);
        let db = random_sequences(&query, &database);
        for i in (0..db.len()).step_by(97) {
            let expected = crate::reference::local_score(
                &query,
                db.sequence(i),
                &scoring.matrix,
                scoring.gaps,
            );
            assert_eq!(scores[i], expected, "sequence {i}");
            assert_eq!(lengths.lengths()[i], db.length(i));
        }
        // Stretched around the one database length: many length bins.
        let (short, long) = (
            lengths.lengths().iter().min().unwrap(),
            lengths.lengths().iter().max().unwrap(),
        );
        assert!(*short < 60 && *long > 240, "{short}..{long}");
        assert_eq!(simulated_scores(&query, &scoring, &database).0, scores);
        // Another query, another sample.
        let other: Vec<u8> = query.iter().map(|&c| (c + 1) % 20).collect();
        assert_ne!(simulated_scores(&other, &scoring, &database).0, scores);
    }

    #[test]
    fn a_long_query_scores_fewer_sequences() {
        let query = vec![5u8; 20_000];
        let database = SequenceLengths::new(vec![400; 10]);
        let (scores, _) = simulated_scores(&query, &blosum62(11, 1), &database);
        assert!(scores.len() < SIMULATED_SEQUENCES && scores.len() >= MIN_SIMULATED_SEQUENCES);
    }
}
