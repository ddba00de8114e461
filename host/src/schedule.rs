//! Longest-processing-time-first scheduling (Graham 1969): jobs sorted
//! longest first, each to the worker that is free (or would finish it)
//! first. Shared by the alignment windows spread over GPUs ([`run_lpt`], as
//! gpu-pairAlign's task manager does, Blazewicz 2011) and search's `greedy`
//! dispatch policy ([`assign_lpt`], NESW's, Dohi 2010).

/// Runs jobs `0..jobs` on `workers` workers (threads), each idle worker
/// taking the next job in order, and returns the jobs' results in job order.
///
/// With jobs sorted longest first, as [`crate::align::plan_windows`] makes
/// the windows, this is the longest-processing-time-first list schedule, as
/// gpu-pairAlign's task manager spreads windows over GPUs; the order the
/// workers take jobs in is decided as they run, so a slower worker simply
/// takes fewer. `run(worker, job)` is called
/// once per job.
///
/// ```
/// let squares = host::schedule::run_lpt(5, 2, |_, job| job * job);
/// assert_eq!(squares, vec![0, 1, 4, 9, 16]);
/// ```
pub fn run_lpt<R: Send>(
    jobs: usize,
    workers: usize,
    run: impl Fn(usize, usize) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        (0..jobs).map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for worker in 0..workers.max(1) {
            let (next, results, run) = (&next, &results, &run);
            scope.spawn(move || {
                loop {
                    let job = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if job >= jobs {
                        break;
                    }
                    let result = run(worker, job);
                    *results[job].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .expect("every job ran")
        })
        .collect()
}

/// Plans jobs ahead of running them: `jobs` as `(job, cost)`, longest first,
/// each to the worker marked `healthy` that would finish it first (cost
/// assigned so far plus its own, over the worker's weight; ties to the
/// lower worker number). Returns each worker's jobs in the order given;
/// unhealthy workers get none, and with no healthy worker no job is
/// assigned.
///
/// ```
/// let jobs = [(7, 5.0), (8, 4.0), (9, 3.0), (10, 3.0)];
/// let lists = host::schedule::assign_lpt(jobs, &[1.0, 1.0], &[true, true]);
/// assert_eq!(lists, vec![vec![7, 10], vec![8, 9]]);
/// ```
pub fn assign_lpt(
    jobs: impl IntoIterator<Item = (usize, f64)>,
    weights: &[f64],
    healthy: &[bool],
) -> Vec<Vec<usize>> {
    let mut lists = vec![Vec::new(); weights.len()];
    let mut load = vec![0.0f64; weights.len()];
    for (job, cost) in jobs {
        let best = (0..weights.len()).filter(|&k| healthy[k]).min_by(|&a, &b| {
            let fa = (load[a] + cost) / weights[a];
            let fb = (load[b] + cost) / weights[b];
            fa.total_cmp(&fb).then(a.cmp(&b))
        });
        if let Some(k) = best {
            load[k] += cost;
            lists[k].push(job);
        }
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lpt_runs_every_job_once_and_each_worker_takes_jobs_in_order() {
        use std::sync::Mutex;
        use std::time::Duration;
        // Windows largest first: job k takes (12 - k) ms.
        let taken: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
        let got = run_lpt(12, 3, |worker, job| {
            std::thread::sleep(Duration::from_millis(12 - job as u64));
            taken.lock().unwrap().push((worker, job));
            job
        });
        assert_eq!(got, (0..12).collect::<Vec<_>>());
        let taken = taken.into_inner().unwrap();
        assert_eq!(taken.len(), 12);
        for worker in 0..3 {
            let jobs: Vec<usize> = taken
                .iter()
                .filter(|t| t.0 == worker)
                .map(|t| t.1)
                .collect();
            assert!(
                jobs.windows(2).all(|p| p[0] < p[1]),
                "worker {worker}: {jobs:?}"
            );
        }
        // No workers still runs everything (on one thread); no jobs is fine.
        assert_eq!(run_lpt(3, 0, |_, j| j), vec![0, 1, 2]);
        assert!(run_lpt(0, 4, |_, j| j).is_empty());
    }

    #[test]
    fn assign_lpt_weighs_workers_and_skips_unhealthy_ones() {
        // Worker 1 is twice as fast: 6 and 4 take it as long (5) as 5 takes
        // worker 0.
        let jobs = [(0, 6.0), (1, 5.0), (2, 4.0)];
        assert_eq!(
            assign_lpt(jobs, &[1.0, 2.0], &[true, true]),
            vec![vec![1], vec![0, 2]]
        );
        assert_eq!(
            assign_lpt(jobs, &[1.0, 2.0], &[false, true]),
            vec![vec![], vec![0, 1, 2]]
        );
        assert_eq!(
            assign_lpt(jobs, &[1.0, 1.0], &[false, false]),
            vec![Vec::<usize>::new(), vec![]]
        );
    }
}
