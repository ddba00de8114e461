//! Engines: take a prepared database and a query, return every database
//! sequence's score.
//!
//! Both engines run the same kernel source (`gpu-kernels`): the GPU engine as
//! PTX through `cudarc`, the CPU engine compiled for the host with the
//! kernel's thread index emulated. Scores come back in the database's sorted
//! order (`crate::db::Database`).

pub mod cpu;
pub mod gpu;

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// A kernel variant a user can pick with `--kernel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kernel {
    /// Inter-task: one thread per database sequence (SW-CUDA, CUDASW++ 2.0
    /// optimized SIMT).
    Simt,
}

/// What `warpsw kernels` lists about a kernel variant.
#[derive(Clone, Copy, Debug)]
pub struct KernelInfo {
    /// The variant.
    pub kernel: Kernel,
    /// Name on the command line.
    pub name: &'static str,
    /// PTX entry point (also the source file's and the tests' name).
    pub symbol: &'static str,
    /// Which paper's method it implements.
    pub seed: &'static str,
    /// How work maps onto threads.
    pub mapping: &'static str,
    /// Width of the score arithmetic.
    pub score_bits: u32,
}

/// Every kernel variant, in `warpsw kernels` order.
pub const KERNELS: &[KernelInfo] = &[KernelInfo {
    kernel: Kernel::Simt,
    name: "simt",
    symbol: "sw_simt_i32",
    seed: "SW-CUDA (Manavski 2008), CUDASW++ 2.0 optimized SIMT (Liu 2010)",
    mapping: "one thread per database sequence, 32-row query strip in registers",
    score_bits: 32,
}];

impl Kernel {
    /// This kernel's row of [`KERNELS`].
    pub fn info(self) -> &'static KernelInfo {
        KERNELS
            .iter()
            .find(|k| k.kernel == self)
            .expect("every kernel has a KERNELS row")
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().name)
    }
}

impl FromStr for Kernel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Kernel> {
        KERNELS
            .iter()
            .find(|k| k.name.eq_ignore_ascii_case(s))
            .map(|k| k.kernel)
            .ok_or_else(|| {
                let known: Vec<_> = KERNELS.iter().map(|k| k.name).collect();
                Error::InvalidArgument(format!(
                    "unknown kernel '{s}'; kernels: {}",
                    known.join(", ")
                ))
            })
    }
}

/// Scores a query against a resident database.
pub trait Engine: Send {
    /// One line naming the engine and its hardware, for the run summary.
    fn description(&self) -> String;

    /// The local alignment score of `query` (residue codes) against every
    /// database sequence, in the database's sorted order.
    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>>;
}
