//! What a search will run, decided by the same functions as [`super::open`]
//! and printed without searching (`warpsw search --explain`): where it
//! runs, whether the database stays resident, `auto`'s plan, which kernel
//! (and configuration) scores which chunks for each length of query,
//! whether queries are paired or batched, and what is said to the user.

use std::ops::Range;

use super::{Layout, Placement, SearchOptions, SearchPlan, cpu, gpu};
use crate::db::Database;
use crate::error::Result;
use crate::kernel::{Kernel, Plan, inter_sequence_narrow, query_group, rescue};
use crate::scoring::Scoring;

/// Query lengths described one by one at most; more are described by
/// ranges of lengths (powers of two).
const LENGTHS_ONE_BY_ONE: usize = 12;

/// The lines `--explain` prints for a search of queries of
/// `query_lengths` residues against `db` at `placement`.
///
/// # Errors
/// The placement cannot be had (`--device gpu` without a GPU, a GPU
/// number that does not exist), or the GPU's free memory cannot be read.
pub fn explain(
    placement: Placement,
    db: &Database,
    scoring: &Scoring,
    options: &SearchOptions,
    query_lengths: &[usize],
) -> Result<Vec<String>> {
    let gaps = scoring.gaps.kernel_gaps();
    let longest = db.longest();
    let mut lines = Vec::new();
    let gpus = match SearchPlan::decide(placement, db, scoring, options)? {
        SearchPlan::Cpu {
            plan,
            fell_back: notice,
        } => {
            lines.push(format!(
                "engine: the CPU, {} threads; {}",
                rayon::current_num_threads(),
                cpu_simd()
            ));
            if let Some(notice) = notice {
                lines.push(format!("said: {notice}"));
            }
            lines.push(format!("kernel: {plan}"));
            if plan.kernels() == [Kernel::Simt] {
                lines.push(
                    "scores: 8-bit lanes; a vector with a lane that may have saturated runs \
                     again in 16 bits, a lane beyond 16 bits in 32"
                        .into(),
                );
            }
            if cpu::swaps_roles(&plan, db.len(), longest) {
                lines.push(format!(
                    "roles swapped: {} database sequences fill less than a chunk, so the \
                     queries fill the lanes and each database sequence is their query",
                    db.len()
                ));
            }
            return Ok(lines);
        }
        SearchPlan::Gpus(gpus) => gpus,
    };
    let (devices, budget, layout) = (&gpus.devices, gpus.budget, gpus.layout);
    for d in devices {
        lines.push(format!(
            "GPU {}: {} (compute capability {}.{}, {:.1} GiB)",
            d.ordinal,
            d.name,
            d.compute_capability.0,
            d.compute_capability.1,
            d.total_memory as f64 / f64::from(1u32 << 30)
        ));
    }
    let ordinals: Vec<usize> = devices.iter().map(|d| d.ordinal).collect();
    let mib = |bytes: usize| bytes >> 20;
    lines.push(format!(
        "engine: {} (the database takes about {} MiB; {} MiB free{})",
        layout.describe(ordinals.len(), options),
        mib(gpu::budget::resident_bytes(db)),
        mib(budget.0),
        if ordinals.len() > 1 {
            " on the smallest"
        } else {
            ""
        }
    ));
    if layout == Layout::Split {
        // Each part as its GPU's engine will search it.
        for (k, (range, ordinal)) in db
            .residue_parts(ordinals.len())
            .into_iter()
            .zip(&ordinals)
            .enumerate()
            .filter(|(_, (r, _))| !r.is_empty())
        {
            let part = db.part(range.clone());
            lines.push(format!(
                "part {k}: sorted sequences {} to {} ({} residues) on GPU {ordinal}",
                range.start,
                range.end - 1,
                part.total_residues()
            ));
            let one = Placement::Gpus(Some(vec![*ordinal]));
            for line in explain(one, &part, scoring, options, query_lengths)? {
                if !line.starts_with("GPU ") {
                    lines.push(format!("  {line}"));
                }
            }
        }
        return Ok(lines);
    }
    // The one GPU's batched plan, else `auto` as on the oldest GPU, as the
    // engine says it.
    let oldest = (0..devices.len())
        .min_by_key(|&k| devices[k].compute_capability)
        .unwrap_or(0);
    let plan = gpus
        .batched
        .clone()
        .unwrap_or_else(|| gpus.plans[oldest].clone());
    let batched = gpus.batched.is_some();
    if let Some(notice) = plan.notice() {
        lines.push(format!("said: {notice}"));
    }
    lines.push(format!("kernels: {plan}"));
    let limits = match layout {
        Layout::OneResident | Layout::SeveralResident => budget.resident_chunks(db)?,
        Layout::OneStreamed | Layout::SeveralStreamed | Layout::Split => budget.streamed_chunks(),
    };
    // Several GPUs sharing a resident database cut it finer, so that each
    // has chunks to take (the engine's own cut).
    let chunks = match layout {
        Layout::SeveralResident => {
            // `open_gpus` cuts by the first GPU's plan.
            let first = gpus.plans.first().unwrap_or(&plan);
            super::multi::multi_device_plan(db, ordinals.len(), limits, first)
        }
        _ => gpu::resident::plan_for(&plan, db, limits),
    };
    lines.push(format!(
        "chunks: {} of at most {} sequences",
        chunks.len(),
        limits.max_sequences
    ));
    let queries_together = match (batched, plan.kernels() == [Kernel::QueryGroupI16x2]) {
        (true, true) => format!(
            "queries: in batches of pairs, one launch sequence a batch ({}, as the memory \
             allows; one at a time if it holds no batch)",
            options.query_batch.map_or(
                "as many queries a batch as fill the GPU".to_string(),
                |b| format!("{b} queries a batch at most")
            )
        ),
        _ if options.pair_queries && layout == Layout::OneResident => {
            "queries: two a launch where a chunk's kernel pairs them (its cost model, chunk by \
             chunk)"
                .into()
        }
        _ => "queries: one at a time".into(),
    };
    lines.push(queries_together);
    if !batched && matches!(layout, Layout::OneResident) && options.streams > 1 {
        lines.push(dispatch_line(query_lengths)?);
    }
    let sm_count = devices.get(oldest).map_or(1, |d| d.multiprocessors);
    for (lengths, label) in length_classes(query_lengths) {
        lines.push(format!(
            "  queries of {label}: {}",
            route(&plan, db, &chunks, scoring, lengths.end - 1, sm_count)?
        ));
    }
    let sixteen_bits = |k: &Kernel| k.info().score_bits == 16;
    if !gpu_kernels::simt_i16x2::gaps_fit(gaps) && plan.kernels().iter().any(sixteen_bits) {
        lines.push(format!(
            "gaps {} + {}*k do not fit 16 bits: the 16-bit kernels run their 32-bit forms \
             (simt-i16x2 as simt, the group kernels' chunks as simt)",
            scoring.gaps.open, scoring.gaps.extend
        ));
    } else if plan.kernels().iter().any(sixteen_bits) {
        lines.push(
            "scores past 16 bits: rescored in 32 bits on the GPU (the rescue kernel, a group \
             of lanes a pair)"
                .into(),
        );
    }
    Ok(lines)
}

/// How the resident engine hands a query's chunks to its worker streams
/// ([`gpu::Dispatch`]), for queries of these lengths (the chunks whose
/// kernel runs beside others; a pair of queries goes by its longer one).
fn dispatch_line(query_lengths: &[usize]) -> Result<String> {
    let dispatch = gpu::Dispatch::from_environment()?;
    let long = query_lengths
        .iter()
        .filter(|&&n| dispatch.as_freed(n))
        .count();
    Ok(match (long, query_lengths.len() - long) {
        (0, _) => {
            "chunks: every chunk of a query queued at once, the worker streams in turn".into()
        }
        (_, 0) => "chunks: to the worker streams as they come free, one a hardware queue".into(),
        _ => format!(
            "chunks: to the worker streams as they come free for queries (or pairs whose \
             longer query has) {} residues or more ({long} queries), else every chunk queued \
             at once",
            gpu::AS_FREED_FROM_RESIDUES
        ),
    })
}

/// The CPU's SIMD, as the CPU engine picks it at run time.
fn cpu_simd() -> String {
    format!(
        "{}, {} database sequences a vector",
        inter_sequence_narrow::simd_name(),
        inter_sequence_narrow::lanes()
    )
}

/// Query lengths in classes: each distinct length when there are few, else
/// ranges of powers of two; each with its label.
fn length_classes(query_lengths: &[usize]) -> Vec<(Range<usize>, String)> {
    let mut distinct: Vec<usize> = query_lengths.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() <= LENGTHS_ONE_BY_ONE {
        return distinct
            .into_iter()
            .map(|l| {
                (
                    l..l + 1,
                    format!("{l} residue{}", if l == 1 { "" } else { "s" }),
                )
            })
            .collect();
    }
    // Classes (2^(k-1), 2^k], each from its first length present to its
    // last.
    let mut classes: Vec<Range<usize>> = Vec::new();
    for l in distinct {
        let low = l.next_power_of_two() / 2 + 1;
        match classes.last_mut() {
            Some(range) if range.start >= low => range.end = l + 1,
            _ => classes.push(l..l + 1),
        }
    }
    classes
        .into_iter()
        .map(|range| {
            let label = match range.len() {
                1 => format!(
                    "{} residue{}",
                    range.start,
                    if range.start == 1 { "" } else { "s" }
                ),
                _ => format!("{} to {} residues", range.start, range.end - 1),
            };
            (range, label)
        })
        .collect()
}

/// How a query of `query_len` residues is scored on a GPU of `sm_count`
/// multiprocessors: the kernel of each chunk (and, for
/// `query-group-i16x2`, the configuration on its chunk of longest
/// sequences; for `group-i16x2`, the chunks the 32-bit rescue scores
/// whole).
fn route(
    plan: &Plan,
    db: &Database,
    chunks: &[Range<usize>],
    scoring: &Scoring,
    query_len: usize,
    sm_count: usize,
) -> Result<String> {
    let gaps = scoring.gaps.kernel_gaps();
    let residues = db.total_residues();
    // kernel, chunks, longest, chunks scored whole by the rescue
    let mut by_kernel: Vec<(Kernel, usize, usize, usize)> = Vec::new();
    for chunk in chunks {
        let longest = chunk.clone().map(|i| db.length(i)).max().unwrap_or(0);
        let kernel = plan.kernel_for(query_len, longest, chunk.len());
        let whole = kernel == Kernel::GroupI16x2
            && gpu_kernels::simt_i16x2::gaps_fit(gaps)
            && rescue::scores_whole(
                &rescue::PoleSearch {
                    query_len,
                    loaded_query_residues: query_len,
                    longest,
                    chunk_residues: chunk.clone().map(|i| db.length(i) as u64).sum(),
                    database_residues: residues,
                    sm_count,
                },
                scoring.matrix.max_score(),
            )?;
        match by_kernel.iter_mut().find(|(k, ..)| *k == kernel) {
            Some((_, n, l, w)) => {
                *n += 1;
                *l = (*l).max(longest);
                *w += usize::from(whole);
            }
            None => by_kernel.push((kernel, 1, longest, usize::from(whole))),
        }
    }
    let mut parts = Vec::new();
    for (kernel, n, longest, whole) in by_kernel {
        let mut part = format!("{kernel} on {n} chunk{}", if n == 1 { "" } else { "s" });
        if whole > 0 {
            part.push_str(&format!(
                " ({whole} of them scored whole by the 32-bit rescue, a block a sequence, for the longest query alone)"
            ));
        }
        if kernel == Kernel::QueryGroupI16x2 {
            let (min, max) = (scoring.matrix.min_score(), scoring.matrix.max_score());
            let config = query_group::describe_alone(query_len, longest, gaps, min, max)?;
            part.push_str(&format!(" (alone: {config} on its longest chunk)"));
        }
        parts.push(part);
    }
    Ok(parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_lengths_are_told_one_by_one_or_by_powers_of_two() {
        let labels = |lengths: &[usize]| -> Vec<String> {
            length_classes(lengths)
                .into_iter()
                .map(|(_, label)| label)
                .collect()
        };
        assert_eq!(labels(&[30, 5, 30]), ["5 residues", "30 residues"]);
        let many: Vec<usize> = (1..=40).collect();
        assert_eq!(
            labels(&many),
            [
                "1 residue",
                "2 residues",
                "3 to 4 residues",
                "5 to 8 residues",
                "9 to 16 residues",
                "17 to 32 residues",
                "33 to 40 residues"
            ]
        );
    }

    #[test]
    fn the_cpu_plan_is_told_without_a_gpu() {
        let db = crate::db::Database::from_records(vec![
            crate::db::tests::record("a", &[1, 2, 3]),
            crate::db::tests::record("b", &[4, 5, 6, 7, 8, 9]),
        ]);
        let lines = explain(
            Placement::Cpu,
            &db,
            &Scoring::default(),
            &SearchOptions::default(),
            &[10, 400],
        )
        .unwrap();
        assert!(lines[0].starts_with("engine: the CPU"), "{lines:?}");
        assert!(lines.iter().any(|l| l == "kernel: simt"), "{lines:?}");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("roles swapped: 2 database")),
            "{lines:?}"
        );
    }
}
