//! Engines: take a prepared database and a query, return every database
//! sequence's score.
//!
//! Both engines run the same kernel source (`gpu-kernels`): the GPU engine as
//! PTX through `cudarc`, the CPU engine compiled for the host with the
//! kernel's thread index emulated. Scores come back in the database's sorted
//! order (`crate::db::Database`).

pub mod cpu;
pub mod gpu;
pub mod inter_sequence;
pub mod multi;
pub mod parted;

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
    /// `Simt` with 16-bit scores, two database sequences per thread (one in
    /// each half of a 32-bit register; DPX instructions on Hopper); scores
    /// out of 16-bit range are rescored in 32 bits by a second launch. With
    /// gap penalties beyond its range ([`gpu_kernels::simt_i16x2::gaps_fit`])
    /// it runs as `Simt`.
    SimtI16x2,
    /// CUDASW++ 2.0 basic vectorized: Farrar's striped algorithm on a vector
    /// of `vl` lanes (16 or 32) per database sequence, column in global memory.
    Striped {
        /// Lanes per vector: 16 (half-warp) or 32 (warp).
        vl: u32,
    },
    /// CUDASW++ 2.0 partitioned vectorized: the query cut into partitions of
    /// `pl` rows whose striped column stays in registers.
    Partitioned {
        /// Lanes per vector: 16 or 32.
        vl: u32,
        /// Query rows per partition (`16 * vl`: 256 or 512).
        pl: u32,
    },
    /// NESW: one warp per database sequence sweeping anti-diagonals of
    /// 32-row parallelograms.
    Parallelogram {
        /// Lane-to-lane hand-off through shared memory (the paper's Figure 5
        /// (d)) instead of warp shuffles.
        shared_memory: bool,
    },
    /// Two stages (CUDASW++'s inter-task and intra-task stages): chunks of
    /// sequences longer than `threshold` go to the warp kernel named `long`
    /// (one warp per sequence), the rest to the one-thread-per-sequence
    /// kernel named `short`: `simt`, or `simt-i16x2` on GPUs from Hopper on
    /// ([`Kernel::for_device`]). On GPUs `long` aligns every sequence for a
    /// database with few short sequences ([`Kernel::for_database`]), and,
    /// when `short` is `simt`, for a long query ([`Kernel::for_query`]). Not
    /// a kernel of its own, so it has no [`KERNELS`] row; build it with
    /// [`Kernel::auto`].
    Auto {
        /// Longest sequence (residues) still aligned by `short`.
        threshold: u32,
        /// [`KERNELS`] name of the first stage's kernel.
        short: &'static str,
        /// A database with fewer sequences for the first stage runs the
        /// second alone ([`Kernel::for_database`]; default
        /// [`AUTO_MIN_SIMT_SEQUENCES`]).
        min_sequences: usize,
        /// [`KERNELS`] name of the second stage's kernel.
        long: &'static str,
    },
}

/// `--auto-threshold`'s default, chosen by measurement (benches/RESULTS.md,
/// H100): on the 570k synthetic database plus 200 sequences of
/// 20,000–35,000 residues, thresholds 1024, 2048, 3072, 4096 and 8192 gave
/// 1049, 1026, 1010, 1010 and 1012 GCUPS with `simt` as the first stage
/// (2026-11-23) and 1730, 1719, 1532, 1531 and 1530 with `simt-i16x2`
/// (run 27, 2026-11-25), `partitioned-vl32-pl512` as the second.
pub const DEFAULT_AUTO_THRESHOLD: u32 = 1024;

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

/// Every kernel variant, in `warpsw kernels` order. The plain names
/// "striped" and "partitioned" are the paper's configurations: the whole warp
/// as the vector for the basic vectorized kernel (the paper's `__all` vote
/// spans a warp), `PL = 256`, `VL = 16` for the partitioned one.
pub const KERNELS: &[KernelInfo] = &[
    KernelInfo {
        kernel: Kernel::Simt,
        name: "simt",
        symbol: "sw_simt_i32",
        seed: "SW-CUDA (Manavski 2008), CUDASW++ 2.0 optimized SIMT (Liu 2010)",
        mapping: "one thread per database sequence, 32-row query strip in registers",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::SimtI16x2,
        name: "simt-i16x2",
        symbol: "sw_simt_i16x2",
        seed: "SW-CUDA/CUDASW++ 2.0 SIMT with CUDASW++ 4.0's packed 16-bit scores (Schmidt 2024)",
        mapping: "one thread per two database sequences (16-bit halves), 32-row query strip in registers; overflow rescored in 32 bits",
        score_bits: 16,
    },
    KernelInfo {
        kernel: Kernel::Striped { vl: 32 },
        name: "striped",
        symbol: "sw_striped_vl32",
        seed: "CUDASW++ 2.0 basic vectorized (Liu 2010), Farrar striped (2007)",
        mapping: "persistent warps, one 32-lane vector per database sequence, column in global memory",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Striped { vl: 16 },
        name: "striped-vl16",
        symbol: "sw_striped_vl16",
        seed: "CUDASW++ 2.0 basic vectorized (Liu 2010), Farrar striped (2007)",
        mapping: "persistent half-warps, one 16-lane vector per database sequence, column in global memory",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Partitioned { vl: 16, pl: 256 },
        name: "partitioned",
        symbol: "sw_partitioned_vl16_pl256",
        seed: "CUDASW++ 2.0 partitioned vectorized (Liu 2010)",
        mapping: "one 16-lane half-warp per database sequence, 256-row partitions in registers",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Partitioned { vl: 32, pl: 512 },
        name: "partitioned-vl32-pl512",
        symbol: "sw_partitioned_vl32_pl512",
        seed: "CUDASW++ 2.0 partitioned vectorized (Liu 2010)",
        mapping: "one warp per database sequence, 512-row partitions in registers",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Parallelogram {
            shared_memory: false,
        },
        name: "parallelogram",
        symbol: "sw_parallelogram_shfl",
        seed: "NESW (Dohi 2010)",
        mapping: "one warp per database sequence, lane = query row, anti-diagonal sweep, hand-off by shuffles",
        score_bits: 32,
    },
    KernelInfo {
        kernel: Kernel::Parallelogram {
            shared_memory: true,
        },
        name: "parallelogram-smem",
        symbol: "sw_parallelogram_smem",
        seed: "NESW (Dohi 2010)",
        mapping: "as parallelogram, hand-off through shared memory (NESW Fig. 5 (d))",
        score_bits: 32,
    },
];

/// `--auto-long`'s default: the second stage of `auto`, the fastest warp
/// kernel measured (H100, 2026-11-23, 10-1k, the long-sequence database
/// above: `partitioned-vl32-pl512` 902 GCUPS, `parallelogram` 178).
pub const DEFAULT_AUTO_LONG: &str = "partitioned-vl32-pl512";

/// Queries of at least this many residues run `auto`'s second stage on
/// every database sequence when its first stage is `simt` (not
/// `simt-i16x2`, faster on every query, run 26). Measured (H100, the 570k synthetic database,
/// 10-1k, benches/RESULTS.md run 8): `partitioned-vl32-pl512` beat `simt` on
/// 10 of the 11 standard queries of 1000 residues and more (1498 against
/// 1423 GCUPS over them, 0.98× on the eleventh), while `simt` led on every
/// shorter one but one (0.44× at 144 residues, 0.93× at 850).
pub const AUTO_LONG_QUERY: usize = 1000;

/// A database with fewer sequences than this in `auto`'s first stage runs
/// the second stage on every sequence (`--auto-min-sequences` changes it):
/// one thread per sequence (or two) leaves most of a GPU idle (an H100
/// holds about 55,000 `simt` threads at once). Swept on the H100
/// (synthetic databases, 20 queries, 10-1k, benches/RESULTS.md):
/// `partitioned-vl32-pl512` alone beats `simt` overall up to 100,000
/// sequences (1447 against 888 GCUPS there), the two stages beat it from
/// 200,000 on (1470 against 1445; run 14); with `simt-i16x2` as the first
/// stage the two stages give 419, 753, 1372, 1888 and 2339 GCUPS at 25,000,
/// 50,000, 100,000, 150,000 and 200,000 sequences against 1430–1463 for
/// `partitioned-vl32-pl512` alone (runs 27–28).
pub const AUTO_MIN_SIMT_SEQUENCES: usize = 100_000;

/// A chunk with fewer sequences than this runs `auto`'s second stage on a
/// GPU ([`Kernel::for_chunk`]): a database streamed in parts under
/// `--gpu-memory 256MiB` is cut into chunks of about 10,000 sequences, on
/// which `simt-i16x2` (5,000 threads) left the H100 idle: 422 GCUPS
/// against 1,023 with `partitioned-vl32-pl512` taking the long queries
/// (benches/RESULTS.md runs 11 and 29; 1,181 with this rule, run 30),
/// while on chunks of about 69,000 sequences (4 GPUs' plan on the 570k
/// database with two chunks per GPU) `auto` still ran 1,739–1,744 GCUPS,
/// above `partitioned-vl32-pl512` alone (1,462; runs 29–30). 20,000 lies
/// between the two, not swept. A resident database's chunks hold up to
/// 262,144 sequences.
pub const AUTO_MIN_CHUNK_SEQUENCES: usize = 20_000;

impl Kernel {
    /// `auto` with `simt` up to `threshold` residues and the [`KERNELS`]
    /// kernel named `long` above (a GPU may then pick its own first stage,
    /// [`Kernel::for_device`]).
    ///
    /// ```
    /// use host::engine::Kernel;
    /// let auto = Kernel::auto(100, "partitioned-vl32-pl512").unwrap();
    /// assert_eq!(auto.for_longest(100), Kernel::Simt);
    /// assert_eq!(auto.for_longest(101), Kernel::Partitioned { vl: 32, pl: 512 });
    /// assert!(Kernel::auto(100, "auto").is_err());
    /// ```
    pub fn auto(threshold: u32, long: &str) -> Result<Kernel> {
        let info = KERNELS
            .iter()
            .find(|k| k.name.eq_ignore_ascii_case(long))
            .ok_or_else(|| unknown_kernel(long))?;
        Ok(Kernel::Auto {
            threshold,
            short: "simt",
            long: info.name,
            min_sequences: AUTO_MIN_SIMT_SEQUENCES,
        })
    }

    /// `auto` whose database-size rule needs `min_sequences` sequences for
    /// its first stage ([`Kernel::for_database`]; 0: never skip it); every
    /// other kernel is itself.
    ///
    /// ```
    /// use host::engine::Kernel;
    /// let auto: Kernel = "auto".parse().unwrap();
    /// assert!(matches!(auto.with_min_sequences(5), Kernel::Auto { min_sequences: 5, .. }));
    /// assert_eq!(Kernel::Simt.with_min_sequences(5), Kernel::Simt);
    /// ```
    pub fn with_min_sequences(self, min_sequences: usize) -> Kernel {
        match self {
            Kernel::Auto {
                threshold,
                short,
                long,
                ..
            } => Kernel::Auto {
                threshold,
                short,
                long,
                min_sequences,
            },
            k => k,
        }
    }

    /// This kernel's row of [`KERNELS`] (`Auto`: the row of its first stage).
    pub fn info(self) -> &'static KernelInfo {
        let kernel = match self {
            Kernel::Auto { short, .. } => named_stage(short),
            k => k,
        };
        KERNELS
            .iter()
            .find(|k| k.kernel == kernel)
            .expect("every kernel has a KERNELS row")
    }

    /// The kernels that run chunks: `Auto`'s two stages, else the kernel.
    pub fn stages(self) -> Vec<Kernel> {
        match self {
            Kernel::Auto { short, long, .. } => vec![named_stage(short), named_stage(long)],
            k => vec![k],
        }
    }

    /// The kernel that runs every chunk for a query of `query_len` residues
    /// when that query skips `auto`'s `simt` stage ([`AUTO_LONG_QUERY`]);
    /// `None`: each chunk runs its own stage ([`Kernel::for_longest`]).
    /// `simt-i16x2` as the first stage is never skipped: it was faster than
    /// every warp kernel on every query (H100, benches/RESULTS.md run 26).
    ///
    /// ```
    /// use host::engine::Kernel;
    /// let auto = Kernel::auto(1024, "partitioned-vl32-pl512").unwrap();
    /// assert_eq!(auto.for_query(999), None);
    /// assert_eq!(auto.for_query(1000), Some(Kernel::Partitioned { vl: 32, pl: 512 }));
    /// assert_eq!(auto.for_device((9, 0), gpu_kernels::recurrence::Gaps::new(11, 1)).for_query(1000), None);
    /// assert_eq!(Kernel::Simt.for_query(5000), None);
    /// ```
    pub fn for_query(self, query_len: usize) -> Option<Kernel> {
        match self {
            Kernel::Auto { short, long, .. }
                if query_len >= AUTO_LONG_QUERY && named_stage(short) == Kernel::Simt =>
            {
                Some(named_stage(long))
            }
            _ => None,
        }
    }

    /// The kernel to run on a GPU of compute capability `capability` with
    /// gap penalties `gaps`: from Hopper (9.0) on, `auto`'s first stage is
    /// `simt-i16x2` when the penalties fit its 16 bits (1.56× `simt` on an
    /// H100, benches/RESULTS.md run 26; before Hopper the 16-bit kernel has
    /// no packed instructions and is not measured); every other kernel is
    /// itself.
    ///
    /// ```
    /// use gpu_kernels::recurrence::Gaps;
    /// use host::engine::Kernel;
    /// let auto = Kernel::auto(1024, "partitioned-vl32-pl512").unwrap();
    /// assert_eq!(auto.for_device((8, 0), Gaps::new(11, 1)).for_longest(100), Kernel::Simt);
    /// let hopper = auto.for_device((9, 0), Gaps::new(11, 1));
    /// assert_eq!(hopper.for_longest(100), Kernel::SimtI16x2);
    /// assert_eq!(auto.for_device((9, 0), Gaps::new(60_000, 1)), auto);
    /// assert_eq!(Kernel::Simt.for_device((9, 0), Gaps::new(11, 1)), Kernel::Simt);
    /// ```
    pub fn for_device(self, capability: (i32, i32), gaps: gpu_kernels::recurrence::Gaps) -> Kernel {
        match self {
            Kernel::Auto {
                threshold,
                long,
                min_sequences,
                ..
            } if capability.0 >= 9 && gpu_kernels::simt_i16x2::gaps_fit(gaps) => Kernel::Auto {
                threshold,
                short: "simt-i16x2",
                long,
                min_sequences,
            },
            k => k,
        }
    }

    /// The kernel to search `db` with on GPUs: `auto` becomes its second
    /// stage alone when fewer than its `min_sequences` sequences would go to
    /// its first stage; every other kernel is itself.
    pub fn for_database(self, db: &crate::db::Database) -> Kernel {
        match self {
            Kernel::Auto {
                threshold,
                long,
                min_sequences,
                ..
            } => {
                let short = (0..db.len())
                    .filter(|&i| db.length(i) <= threshold as usize)
                    .count();
                if short < min_sequences {
                    named_stage(long)
                } else {
                    self
                }
            }
            k => k,
        }
    }

    /// The kernel that runs a chunk of `sequences` sequences whose longest
    /// has `longest` residues on a GPU: [`Kernel::for_longest`], except that
    /// `Auto` gives a chunk of fewer than [`AUTO_MIN_CHUNK_SEQUENCES`] to
    /// its second stage (too few threads for the first: a database streamed
    /// in small parts).
    ///
    /// ```
    /// use host::engine::{AUTO_MIN_CHUNK_SEQUENCES, Kernel};
    /// let auto = Kernel::auto(100, "partitioned-vl32-pl512").unwrap();
    /// let long = Kernel::Partitioned { vl: 32, pl: 512 };
    /// assert_eq!(auto.for_chunk(100, AUTO_MIN_CHUNK_SEQUENCES), Kernel::Simt);
    /// assert_eq!(auto.for_chunk(100, AUTO_MIN_CHUNK_SEQUENCES - 1), long);
    /// assert_eq!(Kernel::Simt.for_chunk(100, 1), Kernel::Simt);
    /// ```
    pub fn for_chunk(self, longest: usize, sequences: usize) -> Kernel {
        match self {
            Kernel::Auto { long, .. } if sequences < AUTO_MIN_CHUNK_SEQUENCES => named_stage(long),
            k => k.for_longest(longest),
        }
    }

    /// The kernel that runs a chunk whose longest sequence has `longest`
    /// residues: `Auto` picks its stage, every other kernel is itself.
    ///
    /// ```
    /// use host::engine::Kernel;
    /// let auto = Kernel::auto(100, "parallelogram").unwrap();
    /// assert_eq!(auto.for_longest(100), Kernel::Simt);
    /// assert_eq!(auto.for_longest(101), Kernel::Parallelogram { shared_memory: false });
    /// assert_eq!(Kernel::Simt.for_longest(10_000), Kernel::Simt);
    /// ```
    pub fn for_longest(self, longest: usize) -> Kernel {
        match self {
            Kernel::Auto {
                threshold, long, ..
            } if longest > threshold as usize => named_stage(long),
            Kernel::Auto { short, .. } => named_stage(short),
            k => k,
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kernel::Auto {
                threshold,
                short,
                long,
                ..
            } => {
                write!(f, "auto ({short} up to {threshold} residues, {long} above")?;
                if named_stage(short) == Kernel::Simt {
                    write!(
                        f,
                        "; {long} throughout for queries of {AUTO_LONG_QUERY}+ residues"
                    )?;
                }
                f.write_str(")")
            }
            k => f.write_str(k.info().name),
        }
    }
}

impl FromStr for Kernel {
    type Err = Error;
    fn from_str(s: &str) -> Result<Kernel> {
        if s.eq_ignore_ascii_case("auto") {
            return Kernel::auto(DEFAULT_AUTO_THRESHOLD, DEFAULT_AUTO_LONG);
        }
        KERNELS
            .iter()
            .find(|k| k.name.eq_ignore_ascii_case(s))
            .map(|k| k.kernel)
            .ok_or_else(|| unknown_kernel(s))
    }
}

/// One of `auto`'s stages, named by a `KERNELS` name that [`Kernel::auto`]
/// checked or [`Kernel::for_device`] chose.
fn named_stage(name: &str) -> Kernel {
    name.parse().expect("a KERNELS name")
}

fn unknown_kernel(name: &str) -> Error {
    let known: Vec<_> = KERNELS.iter().map(|k| k.name).collect();
    Error::InvalidArgument(format!(
        "unknown kernel '{name}'; kernels: auto, {}",
        known.join(", ")
    ))
}

/// A query profile in the layout one kernel reads.
pub enum QueryProfile {
    /// [`crate::profile::sequential_profile`]: `simt`, `simt-i16x2`,
    /// `parallelogram*`.
    Sequential(Vec<u32>),
    /// [`crate::profile::striped_profile`]: `striped*`.
    Striped(Vec<i8>),
    /// [`crate::profile::partitioned_profile`]: `partitioned*`.
    Partitioned(Vec<u32>),
}

impl QueryProfile {
    /// `query`'s profile for `kernel` (not `Auto`: build one per stage).
    pub fn new(kernel: Kernel, query: &[u8], matrix: &crate::matrix::ScoreMatrix) -> QueryProfile {
        use crate::profile::{partitioned_profile, sequential_profile, striped_profile};
        match kernel {
            Kernel::Simt | Kernel::SimtI16x2 | Kernel::Parallelogram { .. } => {
                QueryProfile::Sequential(sequential_profile(query, matrix))
            }
            Kernel::Striped { vl } => {
                QueryProfile::Striped(striped_profile(query, matrix, vl as usize))
            }
            Kernel::Partitioned { vl, pl } => QueryProfile::Partitioned(partitioned_profile(
                query,
                matrix,
                vl as usize,
                pl as usize,
            )),
            Kernel::Auto { .. } => unreachable!("auto has no profile of its own"),
        }
    }
}

/// Scores a query against a resident database.
pub trait Engine: Send {
    /// One line naming the engine and its hardware, for the run summary.
    fn description(&self) -> String;

    /// The local alignment score of `query` (residue codes) against every
    /// database sequence, in the database's sorted order.
    fn score_all(&mut self, query: &[u8]) -> Result<Vec<i32>>;

    /// How many queries a search should hand to [`Engine::score_batch`] at
    /// once: 1, except for engines that gain from batches.
    fn batch_len(&self) -> usize {
        1
    }

    /// The scores of each of `queries`, as [`Engine::score_all`] gives them;
    /// an engine that streams its database overrides it to upload each part
    /// once per batch instead of once per query.
    fn score_batch(&mut self, queries: &[&[u8]]) -> Result<Vec<Vec<i32>>> {
        queries.iter().map(|q| self.score_all(q)).collect()
    }

    /// Registers and local memory per thread of the engine's kernel, as the
    /// GPU driver reports them (`None` on the CPU).
    fn kernel_resources(&self) -> Result<Option<gpu::KernelResources>> {
        Ok(None)
    }

    /// Warnings gathered since the last call (a failed GPU whose chunks were
    /// redone elsewhere, for example); the caller prints them.
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// Where a search runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The GPUs (all, or those listed) if a CUDA driver and a GPU are
    /// present, else the CPU.
    Auto(Option<Vec<usize>>),
    /// The CPU.
    Cpu,
    /// These GPUs (`None`: all); an error if they cannot be used.
    Gpus(Option<Vec<usize>>),
}

/// An engine ready to search, and how it got there.
pub struct Opened {
    /// The engine, database resident.
    pub engine: Box<dyn Engine>,
    /// How the engine differs from what was asked, if it does (say it once
    /// to the user): `Auto` fell back to the CPU, or `auto` on a small
    /// database runs its second stage only.
    pub notice: Option<String>,
    /// Seconds spent preparing and uploading the database.
    pub upload_seconds: f64,
}

/// Opens an engine for `db` at `placement`; several GPUs share the work by
/// `policy`.
pub fn open(
    placement: Placement,
    policy: crate::dispatch::Policy,
    db: std::sync::Arc<crate::db::Database>,
    scoring: crate::scoring::Scoring,
    kernel: Kernel,
) -> Result<Opened> {
    let started = std::time::Instant::now();
    let cpu = |notice| {
        let engine = cpu::CpuEngine::new(db.clone(), scoring.clone(), kernel);
        Ok(Opened {
            engine: Box::new(engine),
            notice,
            upload_seconds: started.elapsed().as_secs_f64(),
        })
    };
    let gpus = |wanted: Option<Vec<usize>>| -> Result<Opened> {
        let selected = gpu::selected_devices(wanted)?;
        let ordinals: Vec<usize> = selected.iter().map(|d| d.ordinal).collect();
        // What the engine says it runs: `auto` as on the oldest GPU (each
        // GPU engine resolves it for its own device, `GpuEngine::with_chunks`).
        let capability = selected
            .iter()
            .map(|d| d.compute_capability)
            .min()
            .unwrap_or((0, 0));
        let kernel = kernel.for_device(capability, scoring.gaps.kernel_gaps());
        let asked = kernel;
        let kernel = kernel.for_database(&db);
        let notice = match asked {
            Kernel::Auto { min_sequences, .. } if kernel != asked => Some(format!(
                "kernel auto: fewer than {min_sequences} database sequences for its {} stage, \
                 so {kernel} aligns them all",
                asked.info().name
            )),
            _ => None,
        };
        // The smallest GPU decides whether the database stays resident.
        let free = gpu::smallest_free_memory(&ordinals)?;
        let fits = gpu::database_fits(&db, free);
        let (engine, upload_seconds): (Box<dyn Engine>, f64) = match (&ordinals[..], fits) {
            ([ordinal], true) => {
                let engine = gpu::GpuEngine::within(*ordinal, &db, scoring.clone(), kernel, free)?;
                let seconds = engine.upload_seconds();
                (Box::new(engine), seconds)
            }
            ([ordinal], false) => {
                let engine =
                    parted::PartedGpuEngine::new(*ordinal, &db, scoring.clone(), kernel, free)?;
                (Box::new(engine), started.elapsed().as_secs_f64())
            }
            (_, true) => {
                let (engine, seconds) =
                    multi::open_gpus(&ordinals, &db, &scoring, kernel, policy, free)?;
                (Box::new(engine), seconds)
            }
            (_, false) => {
                let (engine, seconds) =
                    parted::open_streamed_gpus(&ordinals, &db, &scoring, kernel, policy, free)?;
                (Box::new(engine), seconds)
            }
        };
        Ok(Opened {
            engine,
            notice,
            upload_seconds,
        })
    };
    match placement {
        Placement::Cpu => cpu(None),
        Placement::Gpus(wanted) => gpus(wanted),
        Placement::Auto(wanted) => match gpu::devices() {
            Ok(_) => gpus(wanted),
            Err(why @ (Error::NoDriver(_) | Error::NoDevice)) => {
                cpu(Some(format!("{why}; using the CPU")))
            }
            Err(other) => Err(other),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Database;
    use crate::db::tests::record;

    /// A database of `short` sequences of 10 residues and 5 of 2000.
    fn database(short: usize) -> Database {
        Database::from_records(
            (0..short)
                .map(|k| record(&format!("s{k}"), &[(k % 20) as u8; 10]))
                .chain((0..5).map(|k| record(&format!("l{k}"), &[1; 2000])))
                .collect(),
        )
    }

    #[test]
    fn auto_runs_its_second_stage_alone_on_a_small_database() {
        let auto: Kernel = "auto".parse().unwrap();
        let long = Kernel::Partitioned { vl: 32, pl: 512 };
        assert_eq!(auto.for_database(&database(1000)), long);
        assert_eq!(
            auto.for_database(&database(AUTO_MIN_SIMT_SEQUENCES - 1)),
            long
        );
        assert_eq!(auto.for_database(&database(AUTO_MIN_SIMT_SEQUENCES)), auto);
        let always = auto.with_min_sequences(0);
        assert_eq!(always.for_database(&database(0)), always);
        assert_eq!(Kernel::Simt.for_database(&database(10)), Kernel::Simt);
    }
}
