//! Substitution matrices: takes a name or an NCBI-format file, returns scores.

use crate::alphabet::NUM_RESIDUES;

/// A 24×24 substitution matrix over the codes of [`crate::alphabet`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreMatrix {
    name: String,
    scores: [[i8; NUM_RESIDUES]; NUM_RESIDUES],
}

impl ScoreMatrix {
    /// Score of residue codes `a` and `b`.
    #[inline]
    pub fn score(&self, a: u8, b: u8) -> i32 {
        self.scores[a as usize][b as usize] as i32
    }
    /// The matrix's name (built-in name or file path).
    pub fn name(&self) -> &str {
        &self.name
    }
}
