//! Alphabet: takes FASTA letters and returns residue codes (docs/design.md §4).
//!
//! The 20 amino acids and `B Z X *` in the order of NCBI's matrix files
//! (`ARNDCQEGHILKMFPSTWYVBZX*`) get codes `0..24`; `U` (selenocysteine),
//! `O` (pyrrolysine) and `J` (Leu/Ile), all present in real Swiss-Prot, are
//! scored as `X`; lower case is accepted. Code 24 ([`PAD_CODE`]) pads packed
//! sequences and never comes from input.

pub use gpu_kernels::layout::{NUM_CODES, PAD_CODE};

/// The letters of codes `0..24`, NCBI's matrix order.
pub const LETTERS: &[u8; 24] = b"ARNDCQEGHILKMFPSTWYVBZX*";

/// Number of codes that real residues use (every code but the pad code).
pub const NUM_RESIDUES: usize = 24;

/// Code of `X`, which also scores `U`, `O` and `J`.
pub const X_CODE: u8 = 22;

const INVALID: u8 = 0xff;

const ENCODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut code = 0;
    while code < LETTERS.len() {
        let letter = LETTERS[code];
        table[letter as usize] = code as u8;
        table[letter.to_ascii_lowercase() as usize] = code as u8;
        code += 1;
    }
    let mut k = 0;
    let aliases = b"UOJuoj";
    while k < aliases.len() {
        table[aliases[k] as usize] = X_CODE;
        k += 1;
    }
    table
};

/// Shortest sequence [`looks_like_nucleotides`] judges: a peptide of a few
/// residues may be all A, C, G and T by chance.
pub const NUCLEOTIDE_MIN_LENGTH: usize = 20;

/// Whether `codes` (at least [`NUCLEOTIDE_MIN_LENGTH`] of them) look like a
/// nucleotide sequence read as protein: 90 % or more A, C, G, T, N or U (U
/// is read as X, so X counts, where half are A, C, G, T or N). A protein is
/// almost never so.
///
/// ```
/// use host::alphabet::{encode_all, looks_like_nucleotides};
/// assert!(looks_like_nucleotides(&encode_all(b"ATGGCGTTAACCGGTTAAACGTTGCAN").unwrap()));
/// assert!(!looks_like_nucleotides(&encode_all(b"MKVLAAGIVGWWHEKLPQSTRNDE").unwrap()));
/// assert!(!looks_like_nucleotides(&encode_all(b"ACGT").unwrap()));
/// assert!(looks_like_nucleotides(&encode_all(b"AUGGCGUUAACCGGUUAAACGUUGCA").unwrap()));
/// assert!(!looks_like_nucleotides(&encode_all(b"XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX").unwrap()));
/// ```
pub fn looks_like_nucleotides(codes: &[u8]) -> bool {
    if codes.len() < NUCLEOTIDE_MIN_LENGTH {
        return false;
    }
    // Per code: 2 for A, C, G, T, N; 1 for X (U reads as X, but a
    // sequence masked with X, few bases, is a protein); 0 for the rest.
    const KIND: [u8; 256] = {
        let mut kind = [0u8; 256];
        let mut i = 0;
        while i < NUM_RESIDUES {
            kind[i] = match LETTERS[i] {
                b'A' | b'C' | b'G' | b'T' | b'N' => 2,
                b'X' => 1,
                _ => 0,
            };
            i += 1;
        }
        kind
    };
    let allowed_others = codes.len() / 10;
    let (mut bases, mut others) = (0usize, 0usize);
    for &c in codes {
        match KIND[usize::from(c)] {
            2 => bases += 1,
            1 => {}
            _ => {
                others += 1;
                // More than a tenth neither bases nor X: a protein, told
                // within a few residues of most records.
                if others > allowed_others {
                    return false;
                }
            }
        }
    }
    2 * bases >= codes.len()
}

/// The code of a FASTA letter, or `None` if it is not a residue letter.
///
/// ```
/// use host::alphabet::encode;
/// assert_eq!(encode(b'A'), Some(0));
/// assert_eq!(encode(b'v'), Some(19));
/// assert_eq!(encode(b'U'), encode(b'X'));
/// assert_eq!(encode(b'7'), None);
/// ```
#[inline]
pub fn encode(letter: u8) -> Option<u8> {
    match ENCODE[letter as usize] {
        INVALID => None,
        code => Some(code),
    }
}

/// The upper-case letter of a code (`U`, `O`, `J` come back as `X`).
///
/// # Panics
/// If `code` is not below [`NUM_RESIDUES`]: codes only come from [`encode`].
#[inline]
pub fn decode(code: u8) -> u8 {
    LETTERS[code as usize]
}

/// Encodes a whole sequence, or returns the index of the first bad letter.
///
/// ```
/// assert_eq!(host::alphabet::encode_all(b"ARN"), Ok(vec![0, 1, 2]));
/// assert_eq!(host::alphabet::encode_all(b"AR1N"), Err(2));
/// ```
pub fn encode_all(letters: &[u8]) -> Result<Vec<u8>, usize> {
    letters
        .iter()
        .enumerate()
        .map(|(i, &l)| encode(l).ok_or(i))
        .collect()
}

/// Decodes a sequence of codes into upper-case letters.
pub fn decode_all(codes: &[u8]) -> String {
    codes.iter().map(|&c| decode(c) as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_letter_round_trips() {
        for (code, &letter) in LETTERS.iter().enumerate() {
            assert_eq!(encode(letter), Some(code as u8));
            assert_eq!(encode(letter.to_ascii_lowercase()), Some(code as u8));
            assert_eq!(decode(code as u8), letter);
        }
    }

    #[test]
    fn rare_amino_acids_score_as_x() {
        for l in *b"UOJuoj" {
            assert_eq!(encode(l), Some(X_CODE));
        }
    }

    #[test]
    fn non_letters_are_rejected() {
        for l in *b"0-. \n\r>1@" {
            assert_eq!(encode(l), None, "{}", l as char);
        }
        assert_eq!(PAD_CODE as usize, NUM_RESIDUES);
    }
}
