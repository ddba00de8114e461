//! `warpsw search` across the processes of an MPI job (`--features mpi`):
//! `mpirun -np N warpsw search -q Q.fa -d D.wsw …`, or Slurm's `srun`.
//!
//! Rank 0 checks the options and the output, reads the queries and
//! broadcasts them. Each rank searches its part of the `.wsw` database
//! (`host::dbfile::SplitFile`: a range of sorted positions holding
//! `1/N` of the residues, give or take a sequence) with its own engine —
//! its node's GPUs, shared out by its rank on the node, or its CPU cores —
//! and reads only that part's residues. Rank 0 gathers every rank's scores
//! into the whole database's sorted order, and from there the search is
//! the one-process search (`crate::search::search`): statistics over every
//! score of the whole database, ranking, realignment of the hits, output.
//! The output is byte for byte the one-process output, for any number of
//! ranks.
//!
//! # Failures
//! Every step ends with all ranks agreeing ([`Job::settle`]): a rank that
//! fails hands its error to rank 0, which ends the job with one message
//! naming each failed rank, its host and the cause; the other ranks stop
//! without a word. The output is never committed then (finished queries
//! are kept in `NAME.partial`, as in a one-process search). A rank that
//! dies (killed, crashed) is reported by the MPI launcher, which ends the
//! job; rank 0's signal handler keeps `NAME.partial` then too.

use std::ops::Range;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use host::dbfile::{Checksum, SplitFile};
use host::engine::{self, Engine, Placement, SearchOptions};
use host::scoring::Scoring;
use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::cli::SearchArgs;
use crate::search::{self, Ready, count};
use host::search::Scorer;

/// The environment variables through which MPI launchers give a process
/// its rank: Open MPI's `mpirun`, PMIx (`srun --mpi=pmix`), PMI-1/2
/// (MPICH's Hydra, `srun --mpi=pmi2`).
const RANK_VARIABLES: [&str; 3] = ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"];

/// This process's rank when an MPI launcher started it (read from the
/// environment; MPI is not started), `None` otherwise.
pub fn launched_rank() -> Option<usize> {
    RANK_VARIABLES
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// The error of a rank other than 0 when the job stops because some rank
/// failed: rank 0 says why and exits with 2, this rank says nothing and
/// exits with 0 (a non-zero exit would make the launcher end the job, rank
/// 0 included, before rank 0 has said why).
#[derive(Debug)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped: another rank of the MPI job failed (rank 0 says why)")
    }
}

impl std::error::Error for Stopped {}

/// Rank 0's error when a step failed on some ranks, every rank agreeing:
/// each failed rank, its host and its error.
#[derive(Debug)]
struct Failed(String);

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failed {}

/// `warpsw search` as one rank of an MPI job. `threads_given`: whether
/// `--threads` (or `RAYON_NUM_THREADS`) set the CPU threads; if not, the
/// ranks of a node share its cores.
pub fn run(args: SearchArgs, threads_given: bool) -> anyhow::Result<ExitCode> {
    let job = Job::start()?;
    if !threads_given && std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads((cores / job.local_size).max(1))
            .build_global()
            .context("starting the CPU threads")?;
    }
    match job.rank {
        0 => root(&job, &args),
        _ => worker(&job, &args),
    }
}

/// The processes of the job, as a search sees them; MPI ends when it drops.
struct Job {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    /// Rank among the processes of this node, and their number.
    local_rank: usize,
    local_size: usize,
    host: String,
    _universe: Universe,
}

impl Job {
    fn start() -> anyhow::Result<Job> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .context("MPI could not be started (already started?)")?;
        if threading == mpi::Threading::Single {
            bail!("the MPI library offers no thread support; warpsw needs MPI_THREAD_FUNNELED");
        }
        let world = universe.world();
        let node = world.split_shared(world.rank());
        Ok(Job {
            rank: world.rank() as usize,
            size: world.size() as usize,
            local_rank: node.rank() as usize,
            local_size: node.size() as usize,
            host: mpi::environment::processor_name().unwrap_or_else(|_| "?".into()),
            world,
            _universe: universe,
        })
    }

    fn root(&self) -> mpi::topology::Process<'_> {
        self.world.process_at_rank(0)
    }

    /// Ends a step: every rank hands in its outcome. When all succeeded,
    /// each gets its own value back; otherwise rank 0 gets a [`Failed`]
    /// naming every failed rank (ranks with the same error in one line)
    /// and the others [`Stopped`].
    fn settle<T>(&self, local: anyhow::Result<T>) -> anyhow::Result<T> {
        let failed = Count::from(local.is_err());
        let mut failures: Count = 0;
        self.world
            .all_reduce_into(&failed, &mut failures, SystemOperation::sum());
        if failures == 0 {
            return local;
        }
        let message = match &local {
            Ok(_) => String::new(),
            Err(e) => format!("{e:#}"),
        };
        let Some(messages) = self.gather_strings(&message) else {
            return Err(Stopped.into());
        };
        // Ranks with the same error in one line, in rank order.
        let mut lines: Vec<(Vec<usize>, &str)> = Vec::new();
        for (rank, m) in messages.iter().enumerate().filter(|(_, m)| !m.is_empty()) {
            match lines.iter_mut().find(|(_, seen)| seen == m) {
                Some((ranks, _)) => ranks.push(rank),
                None => lines.push((vec![rank], m)),
            }
        }
        let text: Vec<String> = lines
            .iter()
            .map(|(ranks, m)| {
                let names: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
                let which = match ranks.len() {
                    1 => "rank",
                    _ => "ranks",
                };
                format!("{which} {} of {} {m}", names.join(", "), self.size)
            })
            .collect();
        Err(Failed(text.join("; ")).into())
    }

    /// Every rank's `text` (with its host) on rank 0, in rank order;
    /// `None` on the other ranks.
    fn gather_strings(&self, text: &str) -> Option<Vec<String>> {
        let text = match text.is_empty() {
            true => String::new(),
            false => format!("on {}: {text}", self.host),
        };
        self.gather_bytes(text.as_bytes()).map(|all| {
            all.into_iter()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .collect()
        })
    }

    /// Every rank's `bytes` on rank 0, in rank order; `None` on the others.
    fn gather_bytes(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        // Each message ends in one byte more, so that no buffer is empty:
        // an empty byte vector's address is 1, which Open MPI takes for
        // MPI_IN_PLACE.
        let mut message = bytes[..bytes.len().min(Count::MAX as usize - 1)].to_vec();
        message.push(0);
        let len = message.len() as Count;
        if self.rank != 0 {
            self.root().gather_into(&len);
            self.root().gather_varcount_into(&message[..]);
            return None;
        }
        let mut lens = vec![0 as Count; self.size];
        self.root().gather_into_root(&len, &mut lens[..]);
        let displs = prefix_sums(&lens);
        let total: usize = lens.iter().map(|&l| l as usize).sum();
        let mut all = vec![0u8; total];
        let mut partition = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
        self.root()
            .gather_varcount_into_root(&message[..], &mut partition);
        Some(
            displs
                .iter()
                .zip(&lens)
                .map(|(&d, &l)| all[d as usize..(d + l - 1) as usize].to_vec())
                .collect(),
        )
    }

    /// Rank 0's queries (residue codes) on every rank.
    fn broadcast_queries(&self, queries: &[&[u8]]) -> Vec<Vec<u8>> {
        let root = self.root();
        let mut n = queries.len() as u64;
        root.broadcast_into(&mut n);
        let mut lengths: Vec<u64> = match self.rank {
            0 => queries.iter().map(|q| q.len() as u64).collect(),
            _ => vec![0; n as usize],
        };
        root.broadcast_into(&mut lengths[..]);
        let mut codes: Vec<u8> = match self.rank {
            0 => queries.concat(),
            _ => vec![0; lengths.iter().sum::<u64>() as usize],
        };
        // In pieces: an MPI count is 32-bit.
        for piece in codes.chunks_mut(1 << 30) {
            root.broadcast_into(piece);
        }
        let mut at = 0;
        lengths
            .iter()
            .map(|&l| {
                at += l as usize;
                codes[at - l as usize..at].to_vec()
            })
            .collect()
    }

    /// The largest of every rank's `value`, on every rank.
    fn max_f64(&self, value: f64) -> f64 {
        let mut max = 0.0;
        self.world
            .all_reduce_into(&value, &mut max, SystemOperation::max());
        max
    }
}

/// Exclusive prefix sums: where each rank's data starts.
fn prefix_sums(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}

/// The GPUs (ordinals) that rank `local_rank` of the `local_size` ranks on
/// a node uses, of the node's `ordinals`: every `local_size`-th GPU from
/// its own rank on when there are enough GPUs for every rank, else one GPU
/// that it shares (ranks `local_rank`, `local_rank + #GPUs`, … share it).
fn share(ordinals: &[usize], local_rank: usize, local_size: usize) -> Vec<usize> {
    if ordinals.is_empty() {
        return Vec::new();
    }
    if ordinals.len() >= local_size {
        ordinals
            .iter()
            .skip(local_rank)
            .step_by(local_size.max(1))
            .copied()
            .collect()
    } else {
        vec![ordinals[local_rank % ordinals.len()]]
    }
}

/// Where this rank's engine runs: the CPU when the search runs there, else
/// this rank's share ([`share`]) of the node's GPUs (those `--devices`
/// lists, or all); `--device auto` with no GPU falls back to the CPU as
/// one process does.
fn rank_placement(placement: &Placement, job: &Job) -> anyhow::Result<Placement> {
    let (auto, wanted) = match placement {
        Placement::Cpu => return Ok(Placement::Cpu),
        Placement::Auto(wanted) => (true, wanted),
        Placement::Gpus(wanted) => (false, wanted),
    };
    let ordinals = match wanted {
        Some(list) => list.clone(),
        None => match engine::gpu::devices() {
            Ok(devices) => devices.iter().map(|d| d.ordinal).collect(),
            Err(host::Error::NoDriver(_) | host::Error::NoDevice) if auto => {
                return Ok(Placement::Auto(None));
            }
            Err(e) => return Err(e.into()),
        },
    };
    let mine = Some(share(&ordinals, job.local_rank, job.local_size));
    Ok(match auto {
        true => Placement::Auto(mine),
        false => Placement::Gpus(mine),
    })
}

/// One rank's part of the database and its engine (none for an empty
/// part).
struct Local {
    engine: Option<Box<dyn Engine>>,
    checksum: Checksum,
    sequences: usize,
    residues: u64,
    notice: Option<String>,
}

impl Local {
    /// Opens this rank's part of `file` and an engine for it.
    fn open(
        file: &SplitFile,
        job: &Job,
        scoring: &Scoring,
        placement: &Placement,
        options: &SearchOptions,
    ) -> anyhow::Result<Local> {
        if file.sequences() > Count::MAX as usize {
            bail!(
                "{} sequences: an MPI search handles at most {} (MPI counts are 32-bit)",
                file.sequences(),
                Count::MAX
            );
        }
        let part = file.part(file.range(job.rank, job.size))?;
        let db = part.database;
        let (sequences, residues) = (db.len(), db.total_residues());
        let mut local = Local {
            engine: None,
            checksum: part.checksum,
            sequences,
            residues,
            notice: None,
        };
        if !db.is_empty() {
            let placement = rank_placement(placement, job)?;
            let opened = engine::open(placement, Arc::new(db), scoring.clone(), options)?;
            local.engine = Some(opened.engine);
            local.notice = opened.notice;
        }
        Ok(local)
    }

    /// Opens the part and the engine on every rank: what all ranks agree
    /// on once each has opened its own (the batch length, the slowest
    /// upload), and on rank 0 the parts' checksums and descriptions.
    fn open_everywhere(
        file: &SplitFile,
        job: &Job,
        scoring: &Scoring,
        placement: &Placement,
        options: &SearchOptions,
    ) -> anyhow::Result<(Local, Agreed)> {
        let local = job.settle(Local::open(file, job, scoring, placement, options))?;
        let batch_len = local.engine.as_ref().map_or(1, |e| e.batch_len()) as f64;
        let batch_len = job.max_f64(batch_len) as usize;
        let engine = match &local.engine {
            Some(e) => e.description(),
            None => "nothing to search".into(),
        };
        let line = format!(
            "{}, {} residues; {engine}",
            count(local.sequences as u64, "sequence", "sequences"),
            local.residues
        );
        let root = job.root();
        let crc = local.checksum.crc;
        let len = local.checksum.len;
        let (checksums, descriptions) = if job.rank == 0 {
            let mut crcs = vec![0u32; job.size];
            let mut lens = vec![0u64; job.size];
            root.gather_into_root(&crc, &mut crcs[..]);
            root.gather_into_root(&len, &mut lens[..]);
            let checksums = crcs
                .iter()
                .zip(&lens)
                .map(|(&crc, &len)| Checksum { crc, len })
                .collect();
            (checksums, job.gather_strings(&line).unwrap_or_default())
        } else {
            root.gather_into(&crc);
            root.gather_into(&len);
            job.gather_strings(&line);
            (Vec::new(), Vec::new())
        };
        Ok((
            local,
            Agreed {
                batch_len: batch_len.max(1),
                checksums,
                descriptions,
            },
        ))
    }

    /// The scores of `queries` against this rank's part (none for an
    /// empty part).
    fn score(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> anyhow::Result<Vec<Vec<i32>>> {
        match &mut self.engine {
            Some(engine) => Ok(engine.score_batch_reporting(queries, progress)?),
            None => Ok(vec![Vec::new(); queries.len()]),
        }
    }
}

/// What the ranks agree on once every part is open.
struct Agreed {
    batch_len: usize,
    /// Rank 0: every part's checksum, rank order.
    checksums: Vec<Checksum>,
    /// Rank 0: every rank's host, part and engine.
    descriptions: Vec<String>,
}

/// Rank 0: checks, reads the queries, writes the output; searches its part.
fn root(job: &Job, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let db_path = &args.inputs.db;
    let prepared = job.settle(search::prepare(args).and_then(|p| {
        check_wsw(db_path)?;
        Ok(p)
    }))?;
    let codes: Vec<&[u8]> = prepared.queries.iter().map(|q| &q.codes[..]).collect();
    job.broadcast_queries(&codes);
    let searched = (|| -> anyhow::Result<ClusterScorer<'_>> {
        let read_started = Instant::now();
        let file = SplitFile::open(db_path)?;
        let (db, descriptions) = file.whole(prepared.wants_descriptions)?;
        let read_seconds = read_started.elapsed().as_secs_f64();
        let (scoring, placement, options) = (
            prepared.scoring.clone(),
            prepared.placement.clone(),
            prepared.options.clone(),
        );
        search::search(prepared, Arc::new(db), descriptions, read_seconds, || {
            let (local, agreed) =
                Local::open_everywhere(&file, job, &scoring, &placement, &options)?;
            job.settle(file.verify(&agreed.checksums).map_err(anyhow::Error::from))?;
            let parts: Vec<Range<usize>> = (0..job.size).map(|k| file.range(k, job.size)).collect();
            let residues = file.total_residues();
            Ok(Ready {
                pack_seconds: None,
                on_gpus: !matches!(placement, Placement::Cpu),
                notice: local.notice.clone(),
                scorer: ClusterScorer {
                    job,
                    local,
                    parts,
                    residues,
                    agreed,
                    seconds: vec![0.0; job.size],
                    waiting_seconds: 0.0,
                    exchange_seconds: 0.0,
                },
            })
        })
    })();
    let scorer = match searched {
        Ok(scorer) => scorer,
        Err(e) if e.is::<Failed>() => return Err(e),
        // Rank 0 failed on its own: the others learn it at the step they
        // wait at.
        Err(e) => return Err(job.settle::<()>(Err(e)).unwrap_err()),
    };
    job.settle(Ok(()))?;
    if !args.quiet {
        scorer.summary();
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a database that is not a `.wsw` file: the ranks map their parts
/// of one.
fn check_wsw(path: &Path) -> anyhow::Result<()> {
    if search::is_standard_stream(path) || !host::dbfile::is_wsw(path)? {
        bail!(
            "{}: under MPI the database must be a .wsw file, each rank reading its part of it; \
             prepare it once with `warpsw makedb {} -o DB.wsw`",
            path.display(),
            path.display()
        );
    }
    Ok(())
}

/// A rank other than 0: searches its part, hands its scores to rank 0.
fn worker(job: &Job, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let (scoring, placement, options) = job.settle(search::engine_setup(args))?;
    let queries = job.broadcast_queries(&[]);
    let file = match SplitFile::open(&args.inputs.db) {
        Ok(file) => file,
        // The step that opens the parts, failed here.
        Err(e) => return Err(job.settle::<()>(Err(e.into())).unwrap_err()),
    };
    let (mut local, agreed) = Local::open_everywhere(&file, job, &scoring, &placement, &options)?;
    job.settle(Ok(()))?; // rank 0 checks the file's checksum
    let root = job.root();
    for batch in queries.chunks(agreed.batch_len) {
        let codes: Vec<&[u8]> = batch.iter().map(|q| &q[..]).collect();
        let started = Instant::now();
        let scored = local.score(&codes, &|_| {});
        let seconds = started.elapsed().as_secs_f64();
        let scores = job.settle(scored)?;
        root.gather_into(&seconds);
        for query in &scores {
            root.gather_varcount_into(&query[..]);
        }
        if let Some(engine) = &mut local.engine {
            for warning in engine.take_warnings() {
                eprintln!("warpsw: warning: rank {}: {warning}", job.rank);
            }
        }
    }
    job.settle(Ok(()))?; // rank 0 has written the output
    Ok(ExitCode::SUCCESS)
}

/// Rank 0's [`Scorer`]: its own part scored, every other rank's gathered
/// into the whole database's sorted order.
struct ClusterScorer<'a> {
    job: &'a Job,
    local: Local,
    /// Every rank's part (sorted positions), rank order.
    parts: Vec<Range<usize>>,
    /// The whole database's residues.
    residues: u64,
    agreed: Agreed,
    /// Seconds each rank has spent scoring.
    seconds: Vec<f64>,
    /// Seconds rank 0 waited for the others to finish scoring.
    waiting_seconds: f64,
    /// Seconds spent gathering the scores.
    exchange_seconds: f64,
}

impl Scorer for ClusterScorer<'_> {
    type Error = anyhow::Error;

    fn batch_len(&self) -> usize {
        self.agreed.batch_len
    }

    fn score_batch(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> anyhow::Result<Vec<Vec<i32>>> {
        let started = Instant::now();
        let scored = self.local.score(queries, progress);
        let own = started.elapsed().as_secs_f64();
        let waiting = Instant::now();
        let mine = self.job.settle(scored)?;
        self.waiting_seconds += waiting.elapsed().as_secs_f64();
        let exchange = Instant::now();
        let root = self.job.root();
        let mut seconds = vec![0.0f64; self.job.size];
        root.gather_into_root(&own, &mut seconds[..]);
        for (total, s) in self.seconds.iter_mut().zip(seconds) {
            *total += s;
        }
        let counts: Vec<Count> = self.parts.iter().map(|p| p.len() as Count).collect();
        let displs: Vec<Count> = self.parts.iter().map(|p| p.start as Count).collect();
        let sequences = self.parts.last().map_or(0, |p| p.end);
        let mut all = Vec::with_capacity(queries.len());
        for query in &mine {
            let mut scores = vec![0i32; sequences];
            let mut partition = PartitionMut::new(&mut scores[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(&query[..], &mut partition);
            all.push(scores);
        }
        self.exchange_seconds += exchange.elapsed().as_secs_f64();
        // The other ranks' cells, for the progress bar.
        progress(engine::batch_cells(
            queries,
            self.residues - self.local.residues,
        ));
        Ok(all)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        match &mut self.local.engine {
            Some(engine) => engine.take_warnings(),
            None => Vec::new(),
        }
    }

    fn description(&self) -> String {
        format!(
            "{}, one part of the database each",
            count(self.job.size as u64, "MPI rank", "MPI ranks")
        )
    }
}

impl ClusterScorer<'_> {
    /// The per-rank lines of the summary: each rank's host, part, engine
    /// and time scoring; the time spent gathering and waiting.
    fn summary(&self) {
        let slowest = self.seconds.iter().cloned().fold(0.0, f64::max);
        for (rank, (line, seconds)) in self
            .agreed
            .descriptions
            .iter()
            .zip(&self.seconds)
            .enumerate()
        {
            eprintln!("warpsw: rank {rank} {line}: scored in {seconds:.3} s");
        }
        let share = |s: f64| match slowest > 0.0 {
            true => 100.0 * s / slowest,
            false => 0.0,
        };
        eprintln!(
            "warpsw: {}: slowest {slowest:.3} s scoring; scores gathered in {:.3} s ({:.2} % of it); \
             rank 0 waited {:.3} s for the others",
            count(self.job.size as u64, "rank", "ranks"),
            self.exchange_seconds,
            share(self.exchange_seconds),
            self.waiting_seconds,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_the_gpus_of_their_node() {
        // Enough GPUs: each rank its own, every local_size-th.
        assert_eq!(share(&[0, 1, 2, 3], 0, 2), [0, 2]);
        assert_eq!(share(&[0, 1, 2, 3], 1, 2), [1, 3]);
        assert_eq!(share(&[0, 1, 2, 3], 3, 4), [3]);
        assert_eq!(share(&[4, 6], 1, 1), [4, 6]);
        // Fewer GPUs than ranks: ranks share one.
        assert_eq!(share(&[0], 1, 2), [0]);
        assert_eq!(share(&[0, 1], 2, 3), [0]);
        assert_eq!(share(&[0, 1], 1, 3), [1]);
        assert!(share(&[], 0, 2).is_empty());
    }

    #[test]
    fn prefix_sums_place_each_rank() {
        assert_eq!(prefix_sums(&[3, 0, 2, 5]), [0, 3, 3, 5]);
        assert!(prefix_sums(&[]).is_empty());
    }
}
