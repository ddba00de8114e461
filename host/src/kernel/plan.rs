//! `auto` resolved once into a [`Plan`]: which kernel runs which chunk for
//! which query, decided from the device, the database and the options.
//! Engines only read the plan.
//!
//! `auto` follows CUDASW++'s two stages: chunks of sequences up to a length
//! threshold go to a one-thread-per-sequence kernel (`simt`, or
//! `simt-i16x2` on GPUs from Hopper on), longer ones to a warp kernel. Every
//! constant below was chosen by measurement; the measurements are in
//! `benches/RESULTS.md`.

use std::fmt;
use std::str::FromStr;

use gpu_kernels::recurrence::Gaps;

use super::{Kernel, PartitionShape};
use crate::db::Database;
use crate::error::{Error, Result};

/// `--auto-threshold`'s default: the longest sequence (residues) of `auto`'s
/// first stage; 1024 was the fastest of 1024–8192 with a long tail.
pub const DEFAULT_AUTO_THRESHOLD: usize = 1024;

/// `--auto-long`'s default: the fastest warp kernel measured on long sequences.
pub const DEFAULT_AUTO_LONG: Kernel = Kernel::Partitioned(PartitionShape::Vl32Pl512);

/// `--auto-min-sequences`'s default: with fewer first-stage sequences than
/// this, one or two sequences per thread leave a GPU idle and the second
/// stage alone is faster.
pub const AUTO_MIN_FIRST_STAGE_SEQUENCES: usize = 100_000;

/// `--auto-group-min-sequences`'s default: from this many database
/// sequences on, on GPUs with DPX (compute capability 9.0+) and gaps that fit
/// 16 bits, the group kernels align every length (`group-i16x2`, and
/// `query-group-i16x2` for the short ones: `--auto-query-group`). With the chunks side by
/// side on 8 streams (`--gpu-streams`' default then; 16 now) it beat `auto`'s other choice by
/// 2.4× on 20,000 UniProt sequences and 2.5× on 50,000 synthetic ones (on one
/// stream it had lost on the 20,000: too few groups to fill the GPU); below
/// 20,000 it has not been measured.
pub const AUTO_GROUP_MIN_SEQUENCES: usize = 20_000;

/// `--auto-query-group`'s default: chunks of sequences up to 2,048
/// residues go to `query-group-i16x2`, longer ones to `group-i16x2`. Of
/// the splits 0, 1,024, 2,048 and 4,096 (H100, the lifted update), 2,048
/// was the fastest on the 570k synthetic database (4,474 GCUPS against
/// 4,107 without) and within 0.8 % of the fastest (1,024) on Swiss-Prot
/// half; whole, the query-group kernel streams the longest sequences (up
/// to 35,213 residues) through one group pass after pass, at a third of
/// `group-i16x2`'s speed (benches/RESULTS.md).
pub const AUTO_QUERY_GROUP_MAX: usize = 2048;

/// `--auto-query-group-min-sequences`' default: a database with fewer
/// sequences up to `--auto-query-group` residues than this keeps
/// `group-i16x2` for all of them. The query-group kernel runs a pass
/// after another over the same pairs, so it needs many pairs to fill a
/// GPU: on UniProt 20k (19,755 of its sequences up to 2,048 residues) every
/// split was slower than none (1,180 GCUPS at 2,048 against 1,653), on
/// Swiss-Prot half (257,137) faster (4,223 against 4,027).
pub const AUTO_QUERY_GROUP_MIN_SEQUENCES: usize = 100_000;

/// `auto` with batches of query pairs (many queries, each paired and
/// batched on one GPU: `host::engine::gpu::resident::batch`): a database
/// of fewer sequences than this runs `query-group-i16x2` on every chunk,
/// whose launches then take a whole batch of queries at once. A small
/// database leaves the GPU idle for one query, and so slowed every other
/// kernel (benches/RESULTS.md, "Many queries in one launch").
pub const AUTO_BATCH_MAX_SEQUENCES: usize = 50_000;

/// With `simt` (32-bit) as the first stage, queries of at least this many
/// residues run the second stage on every chunk: it was faster on them.
pub const AUTO_LONG_QUERY: usize = 1000;

/// A GPU chunk with fewer sequences than this runs the second stage (a
/// database streamed in small parts): too few threads for the first.
pub const AUTO_MIN_CHUNK_SEQUENCES: usize = 20_000;

/// `auto`'s options (`--auto-threshold`, `--auto-long`, `--auto-min-sequences`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AutoOptions {
    /// Longest sequence (residues) still aligned by the first stage.
    pub threshold: usize,
    /// The second stage's kernel.
    pub long: Kernel,
    /// Fewer first-stage sequences than this in the database: the second
    /// stage aligns them all (GPUs only; 0: never).
    pub min_sequences: usize,
    /// At least this many sequences in the database: the group kernels
    /// align them all (GPUs with DPX, gaps that fit 16 bits; `usize::MAX`:
    /// never).
    pub group_min_sequences: usize,
    /// Where `group-i16x2` aligns them all: chunks whose longest sequence
    /// has at most this many residues run `query-group-i16x2` instead (0:
    /// none).
    pub query_group_max: usize,
    /// Fewer database sequences up to `query_group_max` than this:
    /// `group-i16x2` aligns them too.
    pub query_group_min_sequences: usize,
}

impl Default for AutoOptions {
    fn default() -> AutoOptions {
        AutoOptions {
            threshold: DEFAULT_AUTO_THRESHOLD,
            long: DEFAULT_AUTO_LONG,
            min_sequences: AUTO_MIN_FIRST_STAGE_SEQUENCES,
            group_min_sequences: AUTO_GROUP_MIN_SEQUENCES,
            query_group_max: AUTO_QUERY_GROUP_MAX,
            query_group_min_sequences: AUTO_QUERY_GROUP_MIN_SEQUENCES,
        }
    }
}

/// What the user asked for: `auto`, or one kernel for every chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// `auto` with these options.
    Auto(AutoOptions),
    /// One kernel.
    One(Kernel),
}

impl Default for KernelChoice {
    fn default() -> KernelChoice {
        KernelChoice::Auto(AutoOptions::default())
    }
}

impl FromStr for KernelChoice {
    type Err = Error;

    /// `auto` (default options) or a [`super::KERNELS`] name, any case.
    fn from_str(s: &str) -> Result<KernelChoice> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(KernelChoice::default());
        }
        s.parse().map(KernelChoice::One)
    }
}

impl fmt::Display for KernelChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelChoice::Auto(_) => f.write_str("auto"),
            KernelChoice::One(kernel) => write!(f, "{kernel}"),
        }
    }
}

/// Where a plan runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The host's cores: `auto` is `simt` throughout (its inter-sequence SIMD
    /// form; a CPU has no GPU to fill, so the warp stage would only cost time).
    Cpu,
    /// A GPU of this compute capability (major, minor).
    Gpu {
        /// Compute capability.
        capability: (i32, i32),
    },
}

/// The kernels that run a search, chosen once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    stages: Stages,
    /// How the plan differs from what was asked, to tell the user once.
    notice: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stages {
    /// One kernel for every chunk and query.
    One(Kernel),
    /// `auto`'s two stages on a GPU.
    Two {
        short: Kernel,
        long: Kernel,
        threshold: usize,
    },
}

impl Plan {
    /// One kernel for everything.
    pub fn one(kernel: Kernel) -> Plan {
        Plan {
            stages: Stages::One(kernel),
            notice: None,
        }
    }

    /// Resolves `choice` for `target`, the database `db` and gap penalties
    /// `gaps`:
    /// * on the CPU, `auto` is `simt`;
    /// * on a GPU from compute capability 9.0 on (DPX), with gaps that fit
    ///   16 bits and at least `group_min_sequences` sequences in `db`,
    ///   `group-i16x2` aligns everything, or with `query_group_max` above 0
    ///   and at least `query_group_min_sequences` sequences up to that many
    ///   residues the chunks up to it go to `query-group-i16x2`;
    /// * otherwise on a GPU, `auto`'s first stage is `simt-i16x2` from
    ///   compute capability 9.0 on when the gaps fit its 16 bits, else `simt`;
    /// * with fewer than `min_sequences` first-stage sequences in `db`, the
    ///   second stage runs alone (and [`Plan::notice`] says so).
    ///
    /// ```
    /// use gpu_kernels::recurrence::Gaps;
    /// use host::kernel::{Kernel, KernelChoice, Plan, Target};
    /// let db = host::db::Database::from_records(Vec::new());
    /// let auto = KernelChoice::default();
    /// let cpu = Plan::new(auto, Target::Cpu, &db, Gaps::new(11, 1));
    /// assert_eq!(cpu.kernels(), [Kernel::Simt]);
    /// ```
    pub fn new(choice: KernelChoice, target: Target, db: &Database, gaps: Gaps) -> Plan {
        Plan::for_search(choice, target, db, gaps, false)
    }

    /// [`Plan::new`] for a search whose queries the GPU may score in
    /// batches of pairs (`batches`: many queries, pairs allowed, and the
    /// matrix and gaps fit the kernel's lifted update, one GPU holding the
    /// database): then on a GPU with DPX and gaps that fit 16 bits, a
    /// database of fewer than [`AUTO_BATCH_MAX_SEQUENCES`] sequences runs
    /// `query-group-i16x2` throughout, unless `auto`'s
    /// [`AutoOptions::query_group_max`] is 0 (no `query-group-i16x2`).
    ///
    /// ```
    /// use gpu_kernels::recurrence::Gaps;
    /// use host::kernel::{Kernel, KernelChoice, Plan, Target};
    /// let db = host::db::Database::from_records(Vec::new());
    /// let hopper = Target::Gpu { capability: (9, 0) };
    /// let batched = Plan::for_search(KernelChoice::default(), hopper, &db, Gaps::new(11, 1), true);
    /// assert_eq!(batched.kernels(), [Kernel::QueryGroupI16x2]);
    /// let alone = Plan::for_search(KernelChoice::default(), hopper, &db, Gaps::new(11, 1), false);
    /// assert_ne!(alone.kernels(), [Kernel::QueryGroupI16x2]);
    /// let none = KernelChoice::Auto(host::kernel::AutoOptions {
    ///     query_group_max: 0,
    ///     ..Default::default()
    /// });
    /// let kept = Plan::for_search(none, hopper, &db, Gaps::new(11, 1), true);
    /// assert_ne!(kept.kernels(), [Kernel::QueryGroupI16x2]);
    /// ```
    pub fn for_search(
        choice: KernelChoice,
        target: Target,
        db: &Database,
        gaps: Gaps,
        batches: bool,
    ) -> Plan {
        let (options, capability) = match (choice, target) {
            (KernelChoice::One(kernel), _) => return Plan::one(kernel),
            (KernelChoice::Auto(_), Target::Cpu) => return Plan::one(Kernel::Simt),
            (KernelChoice::Auto(options), Target::Gpu { capability }) => (options, capability),
        };
        let short = if capability.0 >= 9 && gpu_kernels::simt_i16x2::gaps_fit(gaps) {
            Kernel::SimtI16x2
        } else {
            Kernel::Simt
        };
        if short == Kernel::SimtI16x2
            && batches
            && options.query_group_max > 0
            && db.len() < AUTO_BATCH_MAX_SEQUENCES
        {
            return Plan::one(Kernel::QueryGroupI16x2);
        }
        if short == Kernel::SimtI16x2 && db.len() >= options.group_min_sequences {
            let max = options.query_group_max;
            if max == 0
                || (0..db.len()).filter(|&i| db.length(i) <= max).count()
                    < options.query_group_min_sequences
            {
                return Plan::one(Kernel::GroupI16x2);
            }
            return Plan {
                stages: Stages::Two {
                    short: Kernel::QueryGroupI16x2,
                    long: Kernel::GroupI16x2,
                    threshold: options.query_group_max,
                },
                notice: None,
            };
        }
        let first_stage = (0..db.len())
            .filter(|&i| db.length(i) <= options.threshold)
            .count();
        if first_stage < options.min_sequences {
            return Plan {
                stages: Stages::One(options.long),
                notice: Some(format!(
                    "kernel auto: fewer than {} database sequences for its {short} stage, \
                     so {} aligns them all",
                    options.min_sequences, options.long
                )),
            };
        }
        Plan {
            stages: Stages::Two {
                short,
                long: options.long,
                threshold: options.threshold,
            },
            notice: None,
        }
    }

    /// How the plan differs from what was asked, if it does.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The lengths at which chunk plans are split: no chunk mixes `auto`'s
    /// two stages, nor two of a kernel's per-chunk configurations
    /// ([`Kernel::chunk_widths`]).
    pub fn splits(&self) -> Vec<usize> {
        match self.stages {
            Stages::One(kernel) => kernel.chunk_widths(),
            Stages::Two {
                short,
                long,
                threshold,
            } => short
                .chunk_widths()
                .into_iter()
                .filter(|&w| w < threshold)
                .chain([threshold])
                .chain(long.chunk_widths().into_iter().filter(|&w| w > threshold))
                .collect(),
        }
    }

    /// Every kernel the plan may run.
    pub fn kernels(&self) -> Vec<Kernel> {
        match self.stages {
            Stages::One(kernel) => vec![kernel],
            Stages::Two { short, long, .. } => vec![short, long],
        }
    }

    /// The kernels whose profiles a query of `query_len` residues needs.
    pub fn kernels_for_query(&self, query_len: usize) -> Vec<Kernel> {
        match self.whole_query(query_len) {
            Some(kernel) => vec![kernel],
            None => self.kernels(),
        }
    }

    /// The kernel that runs a chunk of `sequences` sequences, the longest of
    /// `longest` residues, for a query of `query_len` residues.
    ///
    /// ```
    /// use gpu_kernels::recurrence::Gaps;
    /// use host::kernel::{AutoOptions, Kernel, KernelChoice, Plan, Target};
    /// use host::kernel::plan::AUTO_MIN_CHUNK_SEQUENCES;
    /// let db = host::db::Database::from_records(Vec::new());
    /// let auto = KernelChoice::Auto(AutoOptions { threshold: 100, min_sequences: 0, ..Default::default() });
    /// let hopper = Plan::new(auto, Target::Gpu { capability: (9, 0) }, &db, Gaps::new(11, 1));
    /// let ampere = Plan::new(auto, Target::Gpu { capability: (8, 0) }, &db, Gaps::new(11, 1));
    /// let (n, long) = (AUTO_MIN_CHUNK_SEQUENCES, Kernel::Partitioned(host::kernel::PartitionShape::Vl32Pl512));
    /// assert_eq!(hopper.kernel_for(500, 100, n), Kernel::SimtI16x2);
    /// assert_eq!(hopper.kernel_for(500, 101, n), long);
    /// assert_eq!(hopper.kernel_for(500, 100, n - 1), long);
    /// assert_eq!(hopper.kernel_for(5000, 100, n), Kernel::SimtI16x2);
    /// assert_eq!(ampere.kernel_for(999, 100, n), Kernel::Simt);
    /// assert_eq!(ampere.kernel_for(1000, 100, n), long);
    /// ```
    pub fn kernel_for(&self, query_len: usize, longest: usize, sequences: usize) -> Kernel {
        if let Some(kernel) = self.whole_query(query_len) {
            return kernel;
        }
        match self.stages {
            Stages::One(kernel) => kernel,
            // Too few threads for a thread per sequence (or two).
            Stages::Two {
                short: Kernel::Simt | Kernel::SimtI16x2,
                long,
                ..
            } if sequences < AUTO_MIN_CHUNK_SEQUENCES => long,
            Stages::Two {
                short,
                long,
                threshold,
            } => {
                if longest > threshold {
                    long
                } else {
                    short
                }
            }
        }
    }

    /// The kernel that runs every chunk of a query of `query_len` residues,
    /// when that query skips the first stage: long queries do when it is
    /// `simt` (32-bit); `simt-i16x2` was faster on every query.
    fn whole_query(&self, query_len: usize) -> Option<Kernel> {
        match self.stages {
            Stages::Two {
                short: Kernel::Simt,
                long,
                ..
            } if query_len >= AUTO_LONG_QUERY => Some(long),
            _ => None,
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.stages {
            Stages::One(kernel) => write!(f, "{kernel}"),
            Stages::Two {
                short,
                long,
                threshold,
            } => {
                write!(f, "auto ({short} up to {threshold} residues, {long} above")?;
                if short == Kernel::Simt {
                    write!(
                        f,
                        "; {long} throughout for queries of {AUTO_LONG_QUERY}+ residues"
                    )?;
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

    const HOPPER: Target = Target::Gpu { capability: (9, 0) };

    /// `auto` with both of its stages whatever the database's size.
    fn auto_both_stages() -> KernelChoice {
        KernelChoice::Auto(AutoOptions {
            min_sequences: 0,
            group_min_sequences: usize::MAX,
            ..AutoOptions::default()
        })
    }

    /// With `query_group_max`, `auto`'s group plan splits at that length:
    /// `query-group-i16x2` up to it, whatever the chunk's size, and
    /// `group-i16x2` above, each chunk within one of its configurations.
    #[test]
    fn auto_splits_the_group_plan_with_the_query_group_kernel() {
        let auto = KernelChoice::Auto(AutoOptions {
            group_min_sequences: 0,
            query_group_max: 1024,
            query_group_min_sequences: 0,
            ..AutoOptions::default()
        });
        let plan = Plan::new(auto, HOPPER, &database(10), Gaps::new(11, 1));
        assert_eq!(
            plan.kernels(),
            [Kernel::QueryGroupI16x2, Kernel::GroupI16x2]
        );
        assert_eq!(plan.kernel_for(500, 1024, 1), Kernel::QueryGroupI16x2);
        assert_eq!(plan.kernel_for(5000, 1025, 100_000), Kernel::GroupI16x2);
        let splits = plan.splits();
        assert!(
            splits.contains(&1024) && splits.contains(&2048),
            "{splits:?}"
        );
        assert!(splits.windows(2).all(|w| w[0] < w[1]), "{splits:?}");
        assert_eq!(
            plan.to_string(),
            "auto (query-group-i16x2 up to 1024 residues, group-i16x2 above)"
        );
        // A two-stage plan splits at its second stage's widths too.
        let group_long = KernelChoice::Auto(AutoOptions {
            group_min_sequences: usize::MAX,
            min_sequences: 0,
            long: Kernel::GroupI16x2,
            ..AutoOptions::default()
        });
        let splits = Plan::new(group_long, HOPPER, &database(10), Gaps::new(11, 1)).splits();
        assert_eq!(
            splits,
            [DEFAULT_AUTO_THRESHOLD, 1280, 1536, 2048, 3072, 4096]
        );
        let default = KernelChoice::Auto(AutoOptions {
            group_min_sequences: 0,
            ..AutoOptions::default()
        });
        assert_eq!(
            Plan::new(default, HOPPER, &database(10), Gaps::new(11, 1)).kernels(),
            [Kernel::GroupI16x2]
        );
        // The default split needs that many sequences up to its length
        // (here all 15 of them are).
        let split_from = |query_group_min_sequences| {
            let auto = KernelChoice::Auto(AutoOptions {
                group_min_sequences: 0,
                query_group_min_sequences,
                ..AutoOptions::default()
            });
            Plan::new(auto, HOPPER, &database(10), Gaps::new(11, 1)).kernels()
        };
        assert_eq!(
            split_from(15),
            [Kernel::QueryGroupI16x2, Kernel::GroupI16x2]
        );
        assert_eq!(split_from(16), [Kernel::GroupI16x2]);
    }

    #[test]
    fn auto_runs_the_group_kernel_alone_on_a_large_database_with_dpx() {
        let auto = |group_min_sequences| {
            KernelChoice::Auto(AutoOptions {
                group_min_sequences,
                ..AutoOptions::default()
            })
        };
        let db = database(100);
        let fits = Gaps::new(11, 1);
        assert_eq!(
            Plan::new(auto(105), HOPPER, &db, fits).kernels(),
            [Kernel::GroupI16x2]
        );
        assert_ne!(
            Plan::new(auto(106), HOPPER, &db, fits).kernels(),
            [Kernel::GroupI16x2]
        );
        let ampere = Target::Gpu { capability: (8, 0) };
        assert_ne!(
            Plan::new(auto(0), ampere, &db, fits).kernels(),
            [Kernel::GroupI16x2]
        );
        let wide = Gaps::new(60_000, 1);
        assert_ne!(
            Plan::new(auto(0), HOPPER, &db, wide).kernels(),
            [Kernel::GroupI16x2]
        );
        assert_eq!(
            Plan::new(auto(0), Target::Cpu, &db, fits).kernels(),
            [Kernel::Simt]
        );
    }

    #[test]
    fn auto_runs_its_second_stage_alone_on_a_small_database() {
        let gaps = Gaps::new(11, 1);
        // The two stages' rules, without the group kernel's (tested below).
        let auto = KernelChoice::Auto(AutoOptions {
            group_min_sequences: usize::MAX,
            ..AutoOptions::default()
        });
        let long = Plan::new(auto, HOPPER, &database(1000), gaps);
        assert_eq!(long.kernels(), [DEFAULT_AUTO_LONG]);
        assert!(long.notice().unwrap().contains("simt-i16x2 stage"));
        let edge = database(AUTO_MIN_FIRST_STAGE_SEQUENCES - 1);
        assert_eq!(
            Plan::new(auto, HOPPER, &edge, gaps).kernels(),
            [DEFAULT_AUTO_LONG]
        );
        let big = Plan::new(
            auto,
            HOPPER,
            &database(AUTO_MIN_FIRST_STAGE_SEQUENCES),
            gaps,
        );
        assert_eq!(big.kernels(), [Kernel::SimtI16x2, DEFAULT_AUTO_LONG]);
        assert_eq!(big.splits(), [DEFAULT_AUTO_THRESHOLD]);
        assert_eq!(big.notice(), None);
        let always = auto_both_stages();
        assert_eq!(
            Plan::new(always, HOPPER, &database(0), gaps)
                .kernels()
                .len(),
            2
        );
        let simt = KernelChoice::One(Kernel::Simt);
        assert_eq!(
            Plan::new(simt, HOPPER, &database(10), gaps),
            Plan::one(Kernel::Simt)
        );
    }

    #[test]
    fn the_first_stage_is_sixteen_bits_only_on_hopper_with_gaps_that_fit() {
        let db = database(10);
        let always = auto_both_stages();
        let first = |target, gaps| Plan::new(always, target, &db, gaps).kernels()[0];
        assert_eq!(first(HOPPER, Gaps::new(11, 1)), Kernel::SimtI16x2);
        assert_eq!(first(HOPPER, Gaps::new(60_000, 1)), Kernel::Simt);
        let ampere = Target::Gpu { capability: (8, 0) };
        assert_eq!(first(ampere, Gaps::new(11, 1)), Kernel::Simt);
        assert_eq!(first(Target::Cpu, Gaps::new(11, 1)), Kernel::Simt);
    }

    #[test]
    fn auto_describes_its_stages() {
        let db = database(10);
        let always = auto_both_stages();
        let ampere = Plan::new(
            always,
            Target::Gpu { capability: (8, 0) },
            &db,
            Gaps::new(11, 1),
        );
        assert_eq!(
            ampere.to_string(),
            "auto (simt up to 1024 residues, partitioned-vl32-pl512 above; \
             partitioned-vl32-pl512 throughout for queries of 1000+ residues)"
        );
        assert_eq!(ampere.kernels_for_query(999).len(), 2);
        assert_eq!(ampere.kernels_for_query(1000), [DEFAULT_AUTO_LONG]);
        let hopper = Plan::new(always, HOPPER, &db, Gaps::new(11, 1));
        assert_eq!(
            hopper.to_string(),
            "auto (simt-i16x2 up to 1024 residues, partitioned-vl32-pl512 above)"
        );
        assert_eq!(
            "AUTO".parse::<KernelChoice>().unwrap(),
            KernelChoice::default()
        );
        assert_eq!(KernelChoice::default().to_string(), "auto");
    }
}
