//! The kernel catalogue: every search kernel variant a user can pick with
//! `--kernel`, each one [`Kernel`] value, one [`KERNELS`] line and one
//! adapter.
//!
//! A kernel is one unit here. Its source is one file in `gpu-kernels/`; its
//! adapter (one file a family in this folder: [`simt`], [`striped`],
//! [`partitioned`], [`parallelogram`], [`group`], [`query_group`]) knows the three things the host does
//! with it: build the query profile in the layout the kernel reads, run one
//! chunk on the host (the kernel's own source, its warp emulated), and launch
//! it on one GPU chunk ([`crate::kernel::launch::ChunkLaunch`]). The
//! catalogue drives the CLI (`--kernel`, `warpsw kernels`), the engines, the
//! tests and the benches. `auto` is not a kernel: it is a [`plan::Plan`]
//! that picks a kernel for each chunk, resolved once from the device, the
//! database and the options.
//!
//! Adding a kernel: its file in `gpu-kernels/` (and its `mod` line there),
//! its adapter here, a [`Kernel`] variant with its [`KERNELS`] line and its
//! arm in [`Kernel::adapter`], a README row.

pub mod group;
pub mod inter_sequence;
pub mod inter_sequence_narrow;
pub mod launch;
pub mod occupancy;
pub mod parallelogram;
pub mod partitioned;
pub mod plan;
pub mod query_group;
pub mod rescue;
pub mod simt;
pub mod striped;

use std::fmt;
use std::str::FromStr;

use gpu_kernels::recurrence::Gaps;

use crate::db::PackedChunk;
use crate::error::{Error, Result};
use crate::kernel::launch::{BatchChunk, ChunkLaunch, PairBatch};
use crate::matrix::ScoreMatrix;

pub use plan::{AutoOptions, KernelChoice, Plan, Target};

/// Lanes of a virtualized SIMD vector (CUDASW++ 2.0): a half-warp or a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lanes {
    /// A half-warp.
    Sixteen,
    /// A whole warp.
    ThirtyTwo,
}

impl Lanes {
    /// The number of lanes.
    pub const fn count(self) -> usize {
        match self {
            Lanes::Sixteen => 16,
            Lanes::ThirtyTwo => 32,
        }
    }
}

/// The partitioned kernel's two compiled shapes: lanes per vector and query
/// rows per partition (16 rows a lane, so the partition's column state is 16
/// registers per thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartitionShape {
    /// VL 16, PL 256: CUDASW++ 2.0's configuration.
    Vl16Pl256,
    /// VL 32, PL 512: the whole warp as the vector.
    Vl32Pl512,
}

impl PartitionShape {
    /// Lanes per vector.
    pub const fn lanes(self) -> Lanes {
        match self {
            PartitionShape::Vl16Pl256 => Lanes::Sixteen,
            PartitionShape::Vl32Pl512 => Lanes::ThirtyTwo,
        }
    }

    /// Query rows per partition.
    pub const fn rows(self) -> usize {
        16 * self.lanes().count()
    }
}

/// How NESW's parallelogram kernel hands a cell's values from lane to lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Handoff {
    /// Warp shuffles.
    Shuffles,
    /// Shared memory (the paper's Figure 5 (d)).
    SharedMemory,
}

/// A kernel variant a user can pick with `--kernel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kernel {
    /// Inter-task: one thread per database sequence (SW-CUDA, CUDASW++ 2.0
    /// optimized SIMT).
    Simt,
    /// `Simt` with 16-bit scores, two database sequences per thread (one in
    /// each half of a 32-bit register; DPX instructions on Hopper); scores
    /// out of 16-bit range are rescored in 32 bits by a second launch. With
    /// gap penalties beyond its range ([`gpu_kernels::simt_i16x2::gaps_fit`])
    /// it runs as `Simt`.
    SimtI16x2,
    /// CUDASW++ 2.0 basic vectorized: Farrar's striped algorithm on one
    /// vector per database sequence, column in global memory.
    Striped(Lanes),
    /// CUDASW++ 2.0 partitioned vectorized: the query cut into partitions
    /// whose striped column stays in registers.
    Partitioned(PartitionShape),
    /// NESW: one warp per database sequence sweeping anti-diagonals of
    /// 32-row parallelograms.
    Parallelogram(Handoff),
    /// CUDASW++ 4.0's mapping: a group of lanes per pair of database
    /// sequences (16-bit halves), their residues in registers, the query
    /// streamed through the group; one configuration per chunk by its
    /// longest sequence, `simt-i16x2` past the widest, rescued in 32 bits.
    GroupI16x2,
    /// `GroupI16x2`'s groups with the roles swapped: the query's columns
    /// in the lanes, the database streamed through them, the scores read
    /// sixteen at a time from a query profile in shared memory; one
    /// configuration per query and chunk, a launch per pass of the query;
    /// rescued in 32 bits. Runs `GroupI16x2` where `first` (open + extend)
    /// added to the matrix's largest score does not fit an `i8`.
    QueryGroupI16x2,
}

/// One line of the catalogue: what `warpsw kernels` lists about a kernel.
#[derive(Clone, Copy, Debug)]
pub struct KernelInfo {
    /// The variant.
    pub kernel: Kernel,
    /// Name on the command line.
    pub name: &'static str,
    /// PTX entry point (also the tests' name for it).
    pub symbol: &'static str,
    /// Which paper's method it implements.
    pub paper: &'static str,
    /// How work maps onto threads.
    pub mapping: &'static str,
    /// Width of the score arithmetic.
    pub score_bits: u32,
}

/// Every kernel variant, in `warpsw kernels` order. The plain names
/// "striped" and "partitioned" are the paper's configurations: the whole warp
/// as the vector for the basic vectorized kernel (the paper's `__all` vote
/// spans a warp), `PL = 256`, `VL = 16` for the partitioned one.
pub const KERNELS: &[KernelInfo] = &[
    KernelInfo {
        kernel: Kernel::Simt,
        name: "simt",
        symbol: "sw_simt_i32",
        paper: "SW-CUDA (Manavski 2008), CUDASW++ 2.0 optimized SIMT (Liu 2010)",
        mapping: "one thread per database sequence, 32-row query strip in registers",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::SimtI16x2,
        name: "simt-i16x2",
        symbol: "sw_simt_i16x2",
        paper: "SW-CUDA/CUDASW++ 2.0 SIMT with CUDASW++ 4.0's packed 16-bit scores (Schmidt 2024)",
        mapping: "one thread per two database sequences (16-bit halves), 32-row query strip in registers; overflow rescored in 32 bits",
        score_bits: 16,
    },
    KernelInfo {
        kernel: Kernel::Striped(Lanes::ThirtyTwo),
        name: "striped",
        symbol: "sw_striped_vl32",
        paper: "CUDASW++ 2.0 basic vectorized (Liu 2010), Farrar striped (2007)",
        mapping: "persistent warps, one 32-lane vector per database sequence, column in global memory",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Striped(Lanes::Sixteen),
        name: "striped-vl16",
        symbol: "sw_striped_vl16",
        paper: "CUDASW++ 2.0 basic vectorized (Liu 2010), Farrar striped (2007)",
        mapping: "persistent half-warps, one 16-lane vector per database sequence, column in global memory",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Partitioned(PartitionShape::Vl16Pl256),
        name: "partitioned",
        symbol: "sw_partitioned_vl16_pl256",
        paper: "CUDASW++ 2.0 partitioned vectorized (Liu 2010)",
        mapping: "one 16-lane half-warp per database sequence, 256-row partitions in registers",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Partitioned(PartitionShape::Vl32Pl512),
        name: "partitioned-vl32-pl512",
        symbol: "sw_partitioned_vl32_pl512",
        paper: "CUDASW++ 2.0 partitioned vectorized (Liu 2010)",
        mapping: "one warp per database sequence, 512-row partitions in registers",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Parallelogram(Handoff::Shuffles),
        name: "parallelogram",
        symbol: "sw_parallelogram_shfl",
        paper: "NESW (Dohi 2010)",
        mapping: "one warp per database sequence, lane = query row, anti-diagonal sweep, hand-off by shuffles",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Parallelogram(Handoff::SharedMemory),
        name: "parallelogram-smem",
        symbol: "sw_parallelogram_smem",
        paper: "NESW (Dohi 2010)",
        mapping: "as parallelogram, hand-off through shared memory (NESW Fig. 5 (d))",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::GroupI16x2,
        name: "group-i16x2",
        symbol: "sw_group_i16x2_g16_r16",
        paper: "CUDASW++ 4.0 (Schmidt 2024): lane groups, residues in registers, query by shuffles, packed 16-bit scores",
        mapping: "4-32 lanes per two database sequences (16-bit halves), 4-32 columns per lane, query streamed through the group; one configuration per chunk, several passes beyond 1024 residues; overflow rescored in 32 bits",
        score_bits: 16,
    },
    KernelInfo {
        kernel: Kernel::QueryGroupI16x2,
        name: "query-group-i16x2",
        symbol: "sw_query_group_i16x2_g8_r32",
        paper: "CUDASW++ 4.0's lane groups (Schmidt 2024) with the query profile of SW-CUDA (Manavski 2008) and CUDASW++ 2.0 (Liu 2010), packed 16-bit scores",
        mapping: "8 lanes (16 pinned) per two database sequences (16-bit halves), 8-32 query columns per lane, database streamed through the group, scores by 16-byte shared loads; a launch per pass of the query; overflow rescored in 32 bits; `search` puts two queries in the halves (a group per sequence) where that is cheaper, the longer handed over to one query's launches where the shorter ends",
        score_bits: 16,
    },
];

/// What the host does with one kernel family: its profile, its run on the
/// host and its launch on a GPU. One implementation a family, in this
/// folder; [`Kernel::adapter`] picks it.
pub(crate) trait Adapter: Sync {
    /// The query profile in the layout the kernel reads, as 32-bit words
    /// (byte layouts packed four to a word, in memory order).
    fn profile(&self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32>;

    /// Scores of one chunk computed by the kernel's own source on the host,
    /// its threads (or emulated warps) in turn, as one launch would; an
    /// internal error if `profile` is not this kernel's.
    fn run_emulated(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>>;

    /// Scores of one chunk as the CPU engine computes them: the emulated
    /// kernel unless the family has a faster host form of the same work.
    fn run_cpu(&self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        self.run_emulated(chunk, profile, gaps)
    }

    /// Entry points the launch uses besides the catalogue's symbol.
    fn extra_symbols(&self) -> &'static [&'static str] {
        &[]
    }

    /// Dynamic shared memory per block entry point `symbol` uses (set as its
    /// limit when the module is loaded: beyond 48 KiB it must be).
    fn dynamic_shared_bytes(&self, _symbol: &str) -> usize {
        0
    }

    /// Column scratch (pairs of i32) that launches for a query of
    /// `query_len` residues need, on chunks of at most `threads` sequences
    /// and `longest` residues, on a GPU of `sm_count` multiprocessors (0:
    /// the row buffer suffices).
    fn scratch_pairs(
        &self,
        _query_len: usize,
        _threads: usize,
        _longest: usize,
        _sm_count: usize,
    ) -> usize {
        0
    }

    /// Queues the kernel on one chunk for the query whose profile
    /// (from [`Adapter::profile`]) is `profile`.
    fn launch(&self, launch: &ChunkLaunch<'_>) -> Result<()>;

    /// Its launches of two queries together, where the family has them.
    fn pairs(&self) -> Option<&dyn PairsQueries> {
        None
    }

    /// Its launches of a batch of query pairs, where the family has them.
    fn batches(&self) -> Option<&dyn BatchesQueries> {
        None
    }

    /// Whether launches of this kernel on different chunks may run side by
    /// side, each on a stream of its own, with gap costs `gaps`. Such a
    /// launch ([`ChunkLaunch::overlapping`]) uses only its chunk's buffers,
    /// the profile and its own region of the column scratch, never the row
    /// buffer (which every chunk's launch shares), and leaves what needs it
    /// to [`Adapter::after_overlap`].
    fn overlaps(&self, _gaps: Gaps) -> bool {
        false
    }

    /// What an overlapping launch on a chunk left undone, queued on the
    /// engine's own stream once that launch is complete (one chunk at a
    /// time, so the row buffer is the whole chunk's again).
    fn after_overlap(&self, _launch: &ChunkLaunch<'_>) -> Result<()> {
        Ok(())
    }
}

/// A kernel family's launches of two queries together (the query-group
/// kernel puts them in the halves of its 16-bit lanes): what the engine
/// pairs queries with, asked through [`Adapter::pairs`].
pub(crate) trait PairsQueries: Sync {
    /// Whether one launch of two queries together, of `low_len` and
    /// `high_len` residues, runs on a chunk whose longest sequence has
    /// `longest` residues with gap costs `gaps` and a matrix whose scores
    /// lie in `scores` (smallest, largest), and costs less there than a
    /// launch each (the kernel's own model).
    fn pairs_queries(
        &self,
        low_len: usize,
        high_len: usize,
        longest: usize,
        gaps: Gaps,
        scores: (i32, i32),
    ) -> bool;

    /// The profile a launch of two queries together reads besides each
    /// one's own ([`Adapter::profile`]).
    fn pair_profile(&self, low: &[u8], high: &[u8], matrix: &ScoreMatrix) -> Vec<u32>;

    /// Column scratch (pairs of i32) a launch of two queries together, of
    /// at most `query_len` residues, needs (as [`Adapter::scratch_pairs`]).
    fn pair_scratch_pairs(
        &self,
        query_len: usize,
        threads: usize,
        longest: usize,
        sm_count: usize,
    ) -> usize;

    /// Queues the kernel on one chunk for two queries together: `low` and
    /// `high` each as its own launch would be (its profile and scores;
    /// the same chunk, stream and scratch), `pair` their
    /// [`PairsQueries::pair_profile`] on the device. An overlapping launch
    /// leaves each query's [`Adapter::after_overlap`].
    fn launch_pair(
        &self,
        low: &ChunkLaunch<'_>,
        high: &ChunkLaunch<'_>,
        pair: &cudarc::driver::CudaSlice<u32>,
    ) -> Result<()>;

    /// The scores of one chunk against two queries together, as
    /// [`PairsQueries::launch_pair`] computes them, by the kernel's source
    /// on the host ([`Kernel::run_emulated_pair`] runs each query alone for
    /// a family without pairs).
    fn run_emulated_pair(
        &self,
        chunk: &PackedChunk,
        profiles: [&[u32]; 2],
        pair: &[u32],
        gaps: Gaps,
    ) -> Result<[Vec<i32>; 2]>;
}

/// A kernel family's launches of a batch of query pairs in one launch
/// sequence on a chunk (many queries against a small database), asked
/// through [`Adapter::batches`].
pub(crate) trait BatchesQueries: Sync {
    /// Whether the kernel scores a batch of query pairs in one launch
    /// sequence ([`BatchesQueries::launch_batch`]) with gap costs `gaps` and a
    /// matrix whose scores lie in `scores` (smallest, largest).
    fn batches_queries(&self, gaps: Gaps, scores: (i32, i32)) -> bool;

    /// The profile rows of a batch of query pairs (longest first), as
    /// [`BatchesQueries::launch_batch`] reads them on `chunks` on a GPU of
    /// `sm_count` multiprocessors, and the words of a row.
    fn batch_profile(
        &self,
        pairs: &[[&[u8]; 2]],
        matrix: &ScoreMatrix,
        chunks: &[BatchChunk],
        sm_count: usize,
    ) -> (Vec<u32>, usize);

    /// Column scratch (pairs of i32) a batch of query pairs of at most
    /// `lens` residues (longest first) needs on `chunk` on a GPU of
    /// `sm_count` multiprocessors, for all its groups in one launch a
    /// pass.
    fn batch_scratch_pairs(&self, lens: &[usize], chunk: BatchChunk, sm_count: usize) -> usize;

    /// Queues the kernel's launches for a batch of query pairs on one
    /// chunk (`l` with the batch's profile rows and scores, `batch` their
    /// layout). It rescues nothing: scores above the 16-bit limit are the
    /// caller's to rescue, query by query ([`Adapter::after_overlap`] with
    /// the query's own profile).
    fn launch_batch(&self, l: &ChunkLaunch<'_>, batch: &PairBatch) -> Result<()>;

    /// The scores of one chunk against a batch of query pairs (longest
    /// first), as [`BatchesQueries::launch_batch`] and the rescue compute them, by
    /// the kernel's source on the host: `profiles` each query's own
    /// ([`Adapter::profile`]), two an entry (low, high; an empty high
    /// query's is empty and its scores too); each query's scores in that
    /// order.
    fn run_emulated_batch(
        &self,
        chunk: &PackedChunk,
        profiles: &[&[u32]],
        pairs: &[[&[u8]; 2]],
        matrix: &ScoreMatrix,
        gaps: Gaps,
    ) -> Result<Vec<Vec<i32>>>;
}

/// Each of a batch's queries' scores of one chunk by `adapter`'s own
/// emulated run ([`Adapter::run_emulated`]; an empty profile, an absent
/// query's, gives no scores): how a kernel that does not batch them runs
/// them.
pub(crate) fn each_query_alone<A: Adapter + ?Sized>(
    adapter: &A,
    chunk: &PackedChunk,
    profiles: &[&[u32]],
    gaps: Gaps,
) -> Result<Vec<Vec<i32>>> {
    profiles
        .iter()
        .map(|p| match p.is_empty() {
            true => Ok(Vec::new()),
            false => adapter.run_emulated(chunk, p, gaps),
        })
        .collect()
}

/// Two queries' scores of one chunk, each by `adapter`'s own emulated run
/// ([`Adapter::run_emulated`]): how a kernel that does not pair them runs
/// them.
pub(crate) fn each_alone<A: Adapter + ?Sized>(
    adapter: &A,
    chunk: &PackedChunk,
    profiles: [&[u32]; 2],
    gaps: Gaps,
) -> Result<[Vec<i32>; 2]> {
    Ok([
        adapter.run_emulated(chunk, profiles[0], gaps)?,
        adapter.run_emulated(chunk, profiles[1], gaps)?,
    ])
}

impl Kernel {
    /// This kernel's catalogue line.
    pub fn info(self) -> &'static KernelInfo {
        KERNELS
            .iter()
            .find(|k| k.kernel == self)
            .expect("every Kernel has a KERNELS line (checked by a test)")
    }

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The family's adapter, with this variant's parameters.
    pub(crate) fn adapter(self) -> &'static dyn Adapter {
        match self {
            Kernel::Simt => &simt::Simt::I32,
            Kernel::SimtI16x2 => &simt::Simt::I16X2,
            Kernel::Striped(Lanes::Sixteen) => &striped::Striped::<16>,
            Kernel::Striped(Lanes::ThirtyTwo) => &striped::Striped::<32>,
            Kernel::Partitioned(PartitionShape::Vl16Pl256) => &partitioned::Partitioned::<16>,
            Kernel::Partitioned(PartitionShape::Vl32Pl512) => &partitioned::Partitioned::<32>,
            Kernel::Parallelogram(handoff) => match handoff {
                Handoff::Shuffles => &parallelogram::Parallelogram::SHUFFLES,
                Handoff::SharedMemory => &parallelogram::Parallelogram::SHARED_MEMORY,
            },
            Kernel::GroupI16x2 => &group::Group,
            Kernel::QueryGroupI16x2 => &query_group::QueryGroup,
        }
    }

    /// `query`'s profile in the layout this kernel reads.
    pub fn profile(self, query: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        self.adapter().profile(query, matrix)
    }

    /// Scores of `chunk` against the query of `profile` ([`Kernel::profile`])
    /// computed by the kernel's source on the host, as one GPU launch would
    /// (thread-interleaved layouts, emulated warps): slow, for the tests and
    /// for comparing variants without a GPU.
    pub fn run_emulated(
        self,
        chunk: &PackedChunk,
        profile: &[u32],
        gaps: Gaps,
    ) -> Result<Vec<i32>> {
        self.adapter().run_emulated(chunk, profile, gaps)
    }

    /// Scores of `chunk` against two queries scored together (their
    /// [`Kernel::profile`]s and [`Kernel::pair_profile`]) by the kernel's
    /// source on the host, as one GPU launch of both would compute them
    /// (each query alone where the kernel does not pair them).
    pub fn run_emulated_pair(
        self,
        chunk: &PackedChunk,
        profiles: [&[u32]; 2],
        pair: &[u32],
        gaps: Gaps,
    ) -> Result<[Vec<i32>; 2]> {
        match self.adapter().pairs() {
            Some(pairs) => pairs.run_emulated_pair(chunk, profiles, pair, gaps),
            None => each_alone(self.adapter(), chunk, profiles, gaps),
        }
    }

    /// The scores of `chunk` against a batch of query pairs, longest
    /// first, as the GPU computes them ([`BatchesQueries::run_emulated_batch`];
    /// each query alone where the kernel does not batch).
    pub fn run_emulated_batch(
        self,
        chunk: &PackedChunk,
        profiles: &[&[u32]],
        pairs: &[[&[u8]; 2]],
        matrix: &ScoreMatrix,
        gaps: Gaps,
    ) -> Result<Vec<Vec<i32>>> {
        match self.adapter().batches() {
            Some(batches) => batches.run_emulated_batch(chunk, profiles, pairs, matrix, gaps),
            None => each_query_alone(self.adapter(), chunk, profiles, gaps),
        }
    }

    /// The profile of two queries scored together (empty for a kernel
    /// that scores one query a launch).
    pub fn pair_profile(self, low: &[u8], high: &[u8], matrix: &ScoreMatrix) -> Vec<u32> {
        self.adapter()
            .pairs()
            .map_or_else(Vec::new, |p| p.pair_profile(low, high, matrix))
    }

    /// Scores of `chunk` as the CPU engine computes them with this kernel
    /// (for `simt`, its inter-sequence SIMD form; otherwise
    /// [`Kernel::run_emulated`]).
    pub fn run_cpu(self, chunk: &PackedChunk, profile: &[u32], gaps: Gaps) -> Result<Vec<i32>> {
        self.adapter().run_cpu(chunk, profile, gaps)
    }

    /// The widest sequence of each of the kernel's per-chunk configurations
    /// (narrowest first): chunk plans split there, so that every chunk runs
    /// the narrowest configuration that fits it. Empty for kernels with one
    /// configuration.
    pub fn chunk_widths(self) -> Vec<usize> {
        match self {
            Kernel::GroupI16x2 => group::chunk_widths(),
            Kernel::QueryGroupI16x2 => query_group::chunk_widths(),
            _ => Vec::new(),
        }
    }

    /// Every PTX entry point a launch of this kernel uses.
    pub fn symbols(self) -> Vec<&'static str> {
        std::iter::once(self.info().symbol)
            .chain(self.adapter().extra_symbols().iter().copied())
            .collect()
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kernel {
    type Err = Error;

    /// A [`KERNELS`] name, any case (not `auto`: see [`KernelChoice`]).
    fn from_str(s: &str) -> Result<Kernel> {
        KERNELS
            .iter()
            .find(|k| k.name.eq_ignore_ascii_case(s))
            .map(|k| k.kernel)
            .ok_or_else(|| unknown_kernel(s))
    }
}

fn unknown_kernel(name: &str) -> Error {
    let known: Vec<_> = KERNELS.iter().map(|k| k.name).collect();
    Error::InvalidArgument(format!(
        "unknown kernel '{name}'; kernels: auto, {}",
        known.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of [`Kernel`] (the enum's variants with every parameter).
    fn every_kernel() -> Vec<Kernel> {
        let mut all = vec![Kernel::Simt, Kernel::SimtI16x2];
        for lanes in [Lanes::Sixteen, Lanes::ThirtyTwo] {
            all.push(Kernel::Striped(lanes));
        }
        for shape in [PartitionShape::Vl16Pl256, PartitionShape::Vl32Pl512] {
            all.push(Kernel::Partitioned(shape));
        }
        for handoff in [Handoff::Shuffles, Handoff::SharedMemory] {
            all.push(Kernel::Parallelogram(handoff));
        }
        all.push(Kernel::GroupI16x2);
        all.push(Kernel::QueryGroupI16x2);
        all
    }

    #[test]
    fn every_kernel_has_one_catalogue_line_and_parses_back() {
        let all = every_kernel();
        assert_eq!(all.len(), KERNELS.len());
        for kernel in all {
            assert_eq!(KERNELS.iter().filter(|k| k.kernel == kernel).count(), 1);
            assert_eq!(kernel.name().parse::<Kernel>().unwrap(), kernel);
            assert_eq!(
                kernel.to_string().to_uppercase().parse::<Kernel>().unwrap(),
                kernel
            );
        }
        assert!("auto".parse::<Kernel>().is_err());
        let err = "nope".parse::<Kernel>().unwrap_err().to_string();
        assert!(
            err.contains("unknown kernel 'nope'") && err.contains("simt-i16x2"),
            "{err}"
        );
    }

    #[test]
    fn partition_shapes_have_sixteen_rows_a_lane() {
        assert_eq!(PartitionShape::Vl16Pl256.rows(), 256);
        assert_eq!(PartitionShape::Vl32Pl512.rows(), 512);
        assert_eq!(PartitionShape::Vl32Pl512.lanes().count(), 32);
    }
}
