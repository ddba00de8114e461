//! Scoring: a substitution matrix and gap penalties, validated together.

use crate::error::{Error, Result};
use crate::matrix::ScoreMatrix;
use gpu_kernels::recurrence::Gaps;

/// Affine gap penalties: **a gap of length k costs `open + k * extend`**
/// (BLAST's and CUDASW++'s convention; BLOSUM62's usual 11/1 charges 12 for a
/// one-residue gap). Tools that charge `open` for the first residue use
/// `open' = open + extend` in their terms.
///
/// ```
/// let g = host::scoring::GapPenalty::new(11, 1).unwrap();
/// assert_eq!(g.cost(1), 12);
/// assert_eq!(g.cost(3), 14);
/// assert!(host::scoring::GapPenalty::new(-1, 1).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GapPenalty {
    /// Charged once per gap.
    pub open: i32,
    /// Charged for every residue of the gap, the first one included.
    pub extend: i32,
}

/// Largest accepted `open + extend`: keeps every intermediate score of the
/// i32 kernels far from overflow.
pub const MAX_GAP_COST: i32 = 1 << 16;

impl GapPenalty {
    /// Validated gap penalties: both non-negative, `open + extend` at most
    /// [`MAX_GAP_COST`].
    pub fn new(open: i32, extend: i32) -> Result<Self> {
        let reason = if open < 0 || extend < 0 {
            Some("penalties are costs and must not be negative")
        } else if open.saturating_add(extend) > MAX_GAP_COST {
            Some("open + extend must be at most 65536")
        } else {
            None
        };
        match reason {
            Some(reason) => Err(Error::InvalidGap {
                open,
                extend,
                reason,
            }),
            None => Ok(GapPenalty { open, extend }),
        }
    }

    /// The cost of a gap of `len` residues (`len >= 1`).
    pub fn cost(&self, len: usize) -> i32 {
        self.open + len as i32 * self.extend
    }

    /// The form the kernels take.
    pub fn kernel_gaps(&self) -> Gaps {
        Gaps::new(self.open, self.extend)
    }
}

/// A substitution matrix with gap penalties: everything that defines a score.
#[derive(Clone, Debug)]
pub struct Scoring {
    /// Substitution scores.
    pub matrix: ScoreMatrix,
    /// Gap penalties.
    pub gaps: GapPenalty,
}

impl Default for Scoring {
    /// warpsw's default: BLOSUM62, a gap of `k` residues costing `11 + k`.
    fn default() -> Scoring {
        Scoring {
            matrix: ScoreMatrix::by_name("blosum62").expect("BLOSUM62 is built in"),
            gaps: GapPenalty {
                open: 11,
                extend: 1,
            },
        }
    }
}
