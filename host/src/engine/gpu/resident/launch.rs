//! A query's (or a pair's) launches: profiles uploaded, every chunk's
//! kernels queued on the worker streams, the chunks joined and the scores
//! read back, with the timeline's marks.

use super::read_back::ReadBack;
use super::*;

impl GpuEngine {
    /// Loads `query` and launches every chunk's kernels (longest chunk
    /// first) on the worker streams where the plan allows, else on the
    /// engine's stream; [`GpuEngine::read_scores`] waits for them. A short
    /// query's launches are all queued before it returns; a long one's go
    /// to the workers as they come free ([`Dispatch`]), so it returns once
    /// the last is launched, with up to one chunk a worker still running.
    pub fn launch_all(&mut self, query: &[u8]) -> Result<()> {
        self.launch_queries(query, None)
    }

    /// [`GpuEngine::launch_all`] for `query` and, if given, a partner
    /// scored beside it ([`GpuEngine::load_queries`]). A long query's
    /// chunks go to the workers as they come free ([`Dispatch::AsFreed`]),
    /// a short one's all at once, in turn.
    pub(super) fn launch_queries(&mut self, query: &[u8], partner: Option<&[u8]>) -> Result<()> {
        self.start_timeline();
        let host = self.host_profiles(query, partner)?;
        self.load_and_launch(query, host)
    }

    /// [`GpuEngine::launch_queries`] with the profiles already built on the
    /// host ([`GpuEngine::host_profiles`] of `query` and its partner): the
    /// timeline's "profiles" times their upload alone.
    pub(super) fn launch_prepared(&mut self, query: &[u8], host: HostProfiles) -> Result<()> {
        self.start_timeline();
        self.load_and_launch(query, host)
    }

    /// A timeline for the next query, or none (not a query's before).
    fn start_timeline(&mut self) {
        self.timeline =
            (self.timeline_detail != Detail::Off).then(|| Timeline::start(&self.stream));
    }

    /// Uploads `host` and launches `query`'s chunks
    /// ([`GpuEngine::launch_queries`]).
    fn load_and_launch(&mut self, query: &[u8], host: HostProfiles) -> Result<()> {
        self.load_queries(query, host)?;
        if self.query.is_empty() {
            return Ok(());
        }
        if let Some(timeline) = &mut self.timeline {
            timeline.mark("profiles", &self.stream);
        }
        let ordering = self.info.error("ordering the streams");
        let no_timing = Some(CUevent_flags::CU_EVENT_DISABLE_TIMING);
        // The workers start once the profiles are on the device.
        if self.overlap_scratch.iter().any(Option::is_some) {
            let ready = self.stream.record_event(no_timing).map_err(&ordering)?;
            for worker in &self.workers {
                worker.wait(&ready).map_err(&ordering)?;
            }
        }
        let longest_query = self
            .query_len
            .max(self.partner.as_ref().map_or(0, |p| p.len));
        let as_freed = self.dispatch.as_freed(longest_query) && !self.workers.is_empty();
        // With dispatch as freed: the chunk each of the first workers runs,
        // one a hardware queue.
        let mut running: Vec<Option<usize>> = match as_freed {
            true => vec![None; self.workers.len().min(hardware_queues())],
            false => Vec::new(),
        };
        // Each worker launch is recorded as pending at once, so that even
        // after an error the next query (or the engine's end) waits for it.
        self.pending = (0..self.chunks.len()).map(|_| None).collect();
        let mut turn = 0;
        for k in 0..self.chunks.len() {
            let (stream, region, worker) = match self.overlap_scratch[k].clone() {
                Some(region) => {
                    let w = match as_freed {
                        true => self.free_worker(&mut running)?,
                        false => turn % self.workers.len(),
                    };
                    turn += 1;
                    (self.workers[w].clone(), Some(region), Some(w))
                }
                None => (self.stream.clone(), None, None),
            };
            let started = self.timeline.as_mut().and_then(|t| t.chunk_start(&stream));
            let launched = self.launch_chunk_on(k, &stream, region.clone());
            if region.is_some() {
                self.pending[k] = Some(stream.record_event(no_timing).map_err(&ordering)?);
            }
            launched?;
            if let (true, Some(w)) = (as_freed, worker) {
                running[w] = Some(k);
            }
            let label = match self.timeline_detail == Detail::Chunks {
                true => Some(self.chunk_label(k, worker)?),
                false => None,
            };
            if let Some(timeline) = &mut self.timeline {
                timeline.chunk_end(started, &stream);
                if let Some(label) = label {
                    timeline.label_chunk(label);
                }
            }
            // A chunk the rescue scores whole is joined at once, so that
            // the rescue starts with the search, not after its last chunk.
            if region.is_some() && self.scored_whole(k)? {
                self.join_chunk(k)?;
            }
        }
        if let Some(timeline) = &mut self.timeline {
            timeline.mark("queued", &self.stream);
        }
        Ok(())
    }

    /// A worker of `running` (the chunk each runs) that is free, waiting
    /// for one to finish if none is; a finished chunk is joined at once,
    /// so that its rescue runs beside the others.
    fn free_worker(&mut self, running: &mut [Option<usize>]) -> Result<usize> {
        loop {
            if let Some(w) = running.iter().position(Option::is_none) {
                return Ok(w);
            }
            for w in 0..running.len() {
                let Some(k) = running[w] else { continue };
                let done = match &self.pending[k] {
                    Some(event) => event
                        .try_is_complete()
                        .map_err(self.info.error("waiting for a chunk"))?,
                    None => true,
                };
                if done {
                    self.join_chunk(k)?;
                    running[w] = None;
                    return Ok(w);
                }
            }
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
    }

    /// Whether chunk `k`'s launches for every loaded query are the 32-bit
    /// rescue's whole ([`crate::kernel::rescue::scores_whole_chunk`], in
    /// `group-i16x2`'s launch), each 16-bit launch only presetting the
    /// scores: then nothing the chunk queued runs long, and an early join
    /// costs the engine's stream nothing. (Only chunks on worker streams
    /// ask, whose gaps fit the 16-bit kernels. A `query-group-i16x2`
    /// chunk that falls back to `group-i16x2`, with a pinned configuration
    /// whose update does not fit, is also scored whole but joined later.)
    fn scored_whole(&self, k: usize) -> Result<bool> {
        let loaded = self.loaded();
        if loaded.is_empty() || self.paired(k) {
            return Ok(false);
        }
        for which in loaded {
            let kernel = self.chunk_kernel_for(k, self.query_len_of(which)?)?;
            if kernel != Kernel::GroupI16x2 {
                return Ok(false);
            }
            let launch = self.chunk_launch(k, kernel, which, &self.stream, None)?;
            if !crate::kernel::rescue::scores_whole_chunk(&launch)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Joins chunk `k`'s launch on a worker stream, if it is pending, into
    /// the engine's stream, and queues what it left there (the rescue).
    pub(super) fn join_chunk(&mut self, k: usize) -> Result<()> {
        let Some(done) = self.pending.get_mut(k).and_then(Option::take) else {
            return Ok(());
        };
        self.stream
            .wait(&done)
            .map_err(self.info.error("ordering the streams"))?;
        for which in self.loaded() {
            let kernel = self.chunk_kernel_for(k, self.query_len_of(which)?)?;
            let launch = self.chunk_launch(k, kernel, which, &self.stream, None)?;
            kernel.adapter().after_overlap(&launch)?;
        }
        if let Some(timeline) = &mut self.timeline {
            timeline.chunk_joined(k, &self.stream);
        }
        Ok(())
    }

    /// What the timeline's line of chunk `k` names; `stream`, the worker
    /// it ran on.
    fn chunk_label(&self, k: usize, stream: Option<usize>) -> Result<ChunkLabel> {
        let chunk = &self.chunks[k];
        let kernel = match (&self.partner, self.paired(k)) {
            (
                Some(Partner {
                    pair: Some((kernel, _)),
                    ..
                }),
                true,
            ) => {
                format!("{kernel} (two queries)")
            }
            _ => self.chunk_kernel_for(k, self.query_len)?.to_string(),
        };
        Ok(ChunkLabel {
            index: k,
            kernel,
            sequences: chunk.range.len(),
            longest: chunk.longest,
            stream,
        })
    }

    /// [`GpuEngine::join_chunk`] for every chunk.
    pub(super) fn join_all(&mut self) -> Result<()> {
        for k in 0..self.pending.len() {
            self.join_chunk(k)?;
        }
        self.pending.clear();
        Ok(())
    }

    /// The scores of [`GpuEngine::positions`] for the query of the last
    /// [`GpuEngine::launch_all`], once its kernels are done (all 0 when the
    /// query is empty).
    pub fn read_scores(&mut self) -> Result<Vec<i32>> {
        self.scores_of(Which::First)
    }

    /// Where chunk `chunk`'s scores lie in `scores`.
    pub(super) fn local(&self, chunk: &DeviceChunk) -> Range<usize> {
        chunk.range.start - self.positions.start..chunk.range.end - self.positions.start
    }

    /// Launches the plan's kernel on chunk `k` for the loaded query on the
    /// engine's stream (asynchronous; nothing for an empty query).
    pub fn launch_chunk(&self, k: usize) -> Result<()> {
        self.launch_chunk_on(k, &self.stream, None)
    }

    /// The plan's kernel for chunk `k` and the loaded query.
    pub(super) fn chunk_kernel(&self, k: usize) -> Result<Kernel> {
        self.chunk_kernel_for(k, self.query_len)
    }

    /// The plan's kernel for chunk `k` and a query of `query_len` residues.
    pub(super) fn chunk_kernel_for(&self, k: usize, query_len: usize) -> Result<Kernel> {
        let chunk = self
            .chunks
            .get(k)
            .ok_or_else(|| Error::Internal(format!("chunk {k} is not on {}", self.info.label())))?;
        Ok(self
            .plan
            .kernel_for(query_len, chunk.longest, chunk.range.len()))
    }

    /// The loaded queries: the first, and its partner if there is one.
    pub(super) fn loaded(&self) -> Vec<Which> {
        match self.partner {
            Some(_) => vec![Which::First, Which::Partner],
            None => vec![Which::First],
        }
    }

    /// A loaded query: its residues, its profiles and its scores (an
    /// internal error for a partner when none is loaded).
    pub(super) fn loaded_query(
        &self,
        which: Which,
    ) -> Result<(usize, &[DeviceQuery], &CudaSlice<i32>)> {
        match (which, &self.partner) {
            (Which::First, _) => Ok((self.query_len, &self.query, &self.scores)),
            (Which::Partner, Some(p)) => Ok((p.len, &p.query, &p.scores)),
            (Which::Partner, None) => Err(Error::Internal("no partner loaded".into())),
        }
    }

    /// Residues of a loaded query.
    pub(super) fn query_len_of(&self, which: Which) -> Result<usize> {
        Ok(self.loaded_query(which)?.0)
    }

    /// What `kernel`'s adapter needs to launch on chunk `k` for loaded
    /// query `which` on `stream`: beside other chunks with scratch region
    /// `overlap` (pairs), or on the engine's stream with the shared
    /// scratch.
    pub(super) fn chunk_launch<'a>(
        &'a self,
        k: usize,
        kernel: Kernel,
        which: Which,
        stream: &'a Arc<CudaStream>,
        overlap: Option<Range<usize>>,
    ) -> Result<ChunkLaunch<'a>> {
        let chunk = &self.chunks[k];
        let (query_len, profiles, scores) = self.loaded_query(which)?;
        let query = profiles
            .iter()
            .find(|q| q.kernel == kernel)
            .ok_or_else(|| Error::Internal(format!("no {kernel} profile loaded")))?;
        let scratch = self.scratch.as_ref().map(|buffer| match &overlap {
            Some(region) => Scratch {
                buffer,
                first_pair: region.start,
                pairs: region.len(),
            },
            None => Scratch {
                buffer,
                first_pair: 0,
                pairs: self.shared_scratch,
            },
        });
        Ok(ChunkLaunch {
            symbol: kernel.info().symbol,
            device: (self.info.ordinal, &self.info.name),
            stream,
            functions: &self.functions,
            chunk,
            score_offset: self.local(chunk).start,
            scores,
            profile: &query.profile,
            query_len,
            row_buffer: &self.row_buffer,
            scratch,
            sm_count: self.sm_count,
            database_residues: self.resident_residues,
            loaded_query_residues: self.query_len + self.partner.as_ref().map_or(0, |p| p.len),
            gaps: self.scoring.gaps.kernel_gaps(),
            max_score: self.scoring.matrix.max_score(),
            min_score: self.scoring.matrix.min_score(),
            overlapping: overlap.is_some(),
        })
    }

    /// Launches chunk `k` on `stream` for the loaded queries (both in one
    /// launch where they pair), beside other chunks with scratch region
    /// `overlap`, or with the shared scratch (`None`).
    pub(super) fn launch_chunk_on(
        &self,
        k: usize,
        stream: &Arc<CudaStream>,
        overlap: Option<Range<usize>>,
    ) -> Result<()> {
        if self.query.is_empty() {
            return Ok(());
        }
        if let (
            true,
            Some(Partner {
                pair: Some((kernel, pair)),
                ..
            }),
        ) = (self.paired(k), &self.partner)
        {
            let first = self.chunk_launch(k, *kernel, Which::First, stream, overlap.clone())?;
            let partner = self.chunk_launch(k, *kernel, Which::Partner, stream, overlap)?;
            let pairs = kernel.adapter().pairs().ok_or_else(|| {
                Error::Internal(format!(
                    "a launch of two queries for {kernel}, which scores one"
                ))
            })?;
            return pairs.launch_pair(&first, &partner, pair);
        }
        for which in self.loaded() {
            let kernel = self.chunk_kernel_for(k, self.query_len_of(which)?)?;
            let launch = self.chunk_launch(k, kernel, which, stream, overlap.clone())?;
            kernel.adapter().launch(&launch)?;
        }
        Ok(())
    }

    /// [`GpuEngine::join_all`], with an event on the engine's stream after
    /// each chunk's part (its rescue): what waits for chunk `k` without a
    /// read-back (`None` where the query is empty).
    pub(super) fn join_all_marked(&mut self) -> Result<Vec<Option<CudaEvent>>> {
        if self.query.is_empty() {
            return Ok((0..self.chunks.len()).map(|_| None).collect());
        }
        let mut done = Vec::with_capacity(self.chunks.len());
        for k in 0..self.chunks.len() {
            self.join_chunk(k)?;
            let event = self
                .stream
                .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                .map_err(self.info.error("ordering the streams"))?;
            done.push(Some(event));
        }
        self.pending.clear();
        Ok(done)
    }

    /// Loaded query `which`'s scores of [`GpuEngine::positions`] (sorted
    /// order), in one read-back once every chunk is joined; all 0 when the
    /// query is empty.
    pub(super) fn scores_of(&mut self, which: Which) -> Result<Vec<i32>> {
        let mut scores = vec![0; self.positions.len()];
        self.scores_into(which, &mut scores)?;
        Ok(scores)
    }

    /// [`GpuEngine::scores_of`] into `scores` (one a position).
    pub(super) fn scores_into(&mut self, which: Which, scores: &mut [i32]) -> Result<()> {
        if scores.len() != self.positions.len() {
            return Err(Error::Internal(format!(
                "{} scores asked for {} positions",
                scores.len(),
                self.positions.len()
            )));
        }
        if self.query.is_empty() {
            scores.fill(0);
            return Ok(());
        }
        let timeline = self.join_for_read_back()?;
        // The buffer is in chunk order: each chunk follows the one before
        // (GpuEngineBuilder::chunks refuses any other).
        self.read_back_into(which, 0..scores.len(), scores)?;
        self.report_timeline(timeline);
        Ok(())
    }

    /// Joins every chunk and takes the loaded query's timeline, marked
    /// "joined": what [`GpuEngine::report_timeline`] reports once its
    /// scores are read.
    fn join_for_read_back(&mut self) -> Result<Option<Timeline>> {
        self.join_all()?;
        let mut timeline = self.timeline.take();
        if let Some(timeline) = &mut timeline {
            timeline.mark("joined", &self.stream);
        }
        Ok(timeline)
    }

    /// `read` with the engine's page-locked buffer beside the engine,
    /// taken out for the call (`loaded_query` borrows all of `self`).
    fn with_read_back<T>(
        &mut self,
        read: impl FnOnce(&Self, &mut ReadBack) -> Result<T>,
    ) -> Result<T> {
        let mut read_back = std::mem::take(&mut self.read_back);
        let result = read(self, &mut read_back);
        self.read_back = read_back;
        result
    }

    /// Prints `timeline` (the loaded query's), its scores just read.
    fn report_timeline(&self, timeline: Option<Timeline>) {
        let Some(mut timeline) = timeline else {
            return;
        };
        timeline.mark("read-back", &self.stream);
        match timeline.report() {
            Ok(report) => {
                eprintln!("warpsw: {}: {report}", self.info.label());
                for chunk in &report.details {
                    eprintln!("warpsw: {}:   {chunk}", self.info.label());
                }
            }
            Err(why) => eprintln!("warpsw: warning: {}: no timeline: {why}", self.info.label()),
        }
    }

    /// Every loaded query's scores of [`GpuEngine::positions`] (one slice
    /// of `scores` each, in [`GpuEngine::loaded`]'s order), once every
    /// chunk is joined: copied into the engine's page-locked buffer one
    /// after another where together they fit in it (`true`: then
    /// [`GpuEngine::staged_scores_into`] copies each out, also after other
    /// queries are loaded), else read into `scores` now (`false`; all 0
    /// for an empty query). The timeline's "read-back" is the copy from
    /// the device, of both queries.
    fn stage_scores(&mut self, scores: &mut [&mut [i32]]) -> Result<bool> {
        let n = self.positions.len();
        if scores.len() != self.loaded().len() || scores.iter().any(|s| s.len() != n) {
            return Err(Error::Internal(format!(
                "scores of {} queries asked for {} loaded, {n} positions",
                scores.len(),
                self.loaded().len()
            )));
        }
        if self.query.is_empty() {
            scores.iter_mut().for_each(|s| s.fill(0));
            return Ok(false);
        }
        let timeline = self.join_for_read_back()?;
        let staged = self.with_read_back(|engine, read_back| {
            let views = engine
                .loaded()
                .into_iter()
                .map(|which| Ok(engine.loaded_query(which)?.2.slice(0..n)))
                .collect::<Result<Vec<_>>>()?;
            read_back
                .stage(&engine.stream, &views)
                .map_err(engine.info.error("reading the scores back"))
        })?;
        if !staged {
            for (which, dst) in self.loaded().into_iter().zip(scores.iter_mut()) {
                self.read_back_into(which, 0..n, dst)?;
            }
        }
        self.report_timeline(timeline);
        Ok(staged)
    }

    /// The scores of the `index`th query (in [`GpuEngine::loaded`]'s
    /// order) that [`GpuEngine::stage_scores`] last left in the
    /// page-locked buffer, into `scores` (one a position).
    fn staged_scores_into(&self, index: usize, scores: &mut [i32]) -> Result<()> {
        let n = scores.len();
        let staged = self
            .read_back
            .staged(index * n..(index + 1) * n)
            .map_err(self.info.error("reading the scores back"))?
            .ok_or_else(|| Error::Internal(format!("no staged scores of query {index}")))?;
        scores.copy_from_slice(staged);
        Ok(())
    }

    /// Waits for chunk `k`'s launch and returns its scores (sorted order).
    pub fn chunk_scores(&mut self, k: usize) -> Result<Vec<i32>> {
        let chunk = self
            .chunks
            .get(k)
            .ok_or_else(|| Error::Internal(format!("chunk {k} is not on {}", self.info.label())))?;
        let range = self.local(chunk);
        if self.query.is_empty() {
            return Ok(vec![0; range.len()]);
        }
        self.join_chunk(k)?;
        self.read_back_range(Which::First, range)
    }

    /// Positions `range` of loaded query `which`'s scores, read back
    /// through the engine's page-locked buffer once the engine's stream
    /// reaches the copy.
    fn read_back_range(&mut self, which: Which, range: Range<usize>) -> Result<Vec<i32>> {
        let mut scores = vec![0; range.len()];
        self.read_back_into(which, range, &mut scores)?;
        Ok(scores)
    }

    /// [`GpuEngine::read_back_range`] into `scores`, as long as `range`.
    fn read_back_into(
        &mut self,
        which: Which,
        range: Range<usize>,
        scores: &mut [i32],
    ) -> Result<()> {
        self.with_read_back(|engine, read_back| {
            let (_, _, all) = engine.loaded_query(which)?;
            read_back
                .read_into(&engine.stream, &all.slice(range), scores)
                .map_err(engine.info.error("reading the scores back"))
        })
    }

    /// Launches `query` (and its partner) from `host`, the profiles built
    /// for them on the host, and queues each chunk's join: what waits for
    /// chunk `k` ([`GpuEngine::join_all_marked`]).
    fn launch_pair(&mut self, query: &[u8], host: HostProfiles) -> Result<Vec<Option<CudaEvent>>> {
        self.launch_prepared(query, host)?;
        self.join_all_marked()
    }

    /// The scores of every query of `queries` (non-empty ones scored two
    /// at a time, each with the one next to it in length, where
    /// [`GpuEngineBuilder::pair_queries`] allows), telling `progress` the
    /// cells of each chunk as its scores come back.
    pub(super) fn score_paired(
        &mut self,
        queries: &[&[u8]],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<Vec<i32>>> {
        let mut order: Vec<usize> = (0..queries.len()).collect();
        order.sort_by_key(|&q| queries[q].len());
        // The pairs, each query with the next in length.
        let mut pairs = Vec::new();
        let mut at = 0;
        while at < order.len() {
            let first = order[at];
            // Both non-empty (an empty query has no profile to pair).
            let partner = order.get(at + 1).copied().filter(|&q| {
                self.pair_queries && !queries[first].is_empty() && !queries[q].is_empty()
            });
            pairs.push((first, partner));
            at += 1 + usize::from(partner.is_some());
        }
        let profiles_of = |engine: &Self, (first, partner): (usize, Option<usize>)| {
            engine.host_profiles(queries[first], partner.map(|q| queries[q]))
        };
        let mut all = vec![Vec::new(); queries.len()];
        let Some(&(first, partner)) = pairs.first() else {
            return Ok(all);
        };
        let host = profiles_of(self, (first, partner))?;
        let mut launched = self.launch_pair(queries[first], host)?;
        for (i, &(first, partner)) in pairs.iter().enumerate() {
            let done = std::mem::take(&mut launched);
            // Each chunk's join (and rescue) is queued first; then, while the
            // GPU scores this pair, the host builds the next pair's profiles
            // (built and uploaded between two pairs they kept the GPU
            // waiting up to 2.9 ms a pair on an H200's host) and writes once
            // over the memory this pair's scores go into (a read-back
            // straight into fresh pages, as for pairs beyond the
            // page-locked buffer, faulted them in for up to 3.2 ms a query
            // of 1,000,000 scores; a copy out of the buffer would fault them
            // in too, with nothing left to hide behind after the last
            // pair): benches/gpu-runs/2026-11-29-h200-part2/call5 and call6,
            // benches/RESULTS.md.
            let next = match pairs.get(i + 1) {
                Some(&pair) => Some((pair.0, profiles_of(self, pair)?)),
                None => None,
            };
            let mut first_scores = touched(self.positions.len());
            let mut partner_scores = partner.map(|_| touched(self.positions.len()));
            let mut cells = queries[first].len() as u64;
            if let Some(q) = partner {
                cells += queries[q].len() as u64;
            }
            for (k, chunk_done) in done.iter().enumerate() {
                if let Some(event) = chunk_done {
                    event
                        .synchronize()
                        .map_err(self.info.error("waiting for a chunk"))?;
                }
                progress(cells * self.chunks[k].residue_count);
            }
            // Both queries' scores come back into the page-locked buffer;
            // the next pair is launched before they are copied out of it,
            // so that the GPU does not wait for that copy (about 0.4 ms a
            // query of 1,000,000 scores on an H200's host: benches/RESULTS.md,
            // "Between two pairs").
            let staged = {
                let mut loaded = vec![&mut first_scores[..]];
                loaded.extend(partner_scores.as_deref_mut());
                self.stage_scores(&mut loaded)?
            };
            if let Some((next_first, host)) = next {
                launched = self.launch_pair(queries[next_first], host)?;
            }
            if staged {
                self.staged_scores_into(0, &mut first_scores)?;
                if let Some(scores) = &mut partner_scores {
                    self.staged_scores_into(1, scores)?;
                }
            }
            all[first] = first_scores;
            if let (Some(q), Some(scores)) = (partner, partner_scores) {
                all[q] = scores;
            }
        }
        Ok(all)
    }
}

/// `n` scores' worth of host memory, every page written (a fresh vector
/// of zeros may be pages the first write faults in).
// The zeros are written on purpose: `vec![0; n]` asks for zeroed memory,
// which the system maps only when first written, and LLVM may fold an
// allocation followed by a zero fill into just that; the vector escaping
// into `black_box` first keeps the fill.
fn touched(n: usize) -> Vec<i32> {
    let mut scores = std::hint::black_box(Vec::with_capacity(n));
    scores.resize(n, 0);
    scores
}

/// The environment variable that picks how a query's chunks go to the
/// worker streams, for benchmarks: `auto` (the default), `queued` or
/// `as-freed` ([`Dispatch`]).
pub const DISPATCH_VARIABLE: &str = "WARPSW_CHUNK_DISPATCH";

/// Queries of at least this many residues have their chunks dispatched as
/// workers come free (`auto`). Such a query's chunk of the longest
/// sequences runs for hundreds of milliseconds on a few warps, and a chunk
/// queued behind it on its hardware queue waits that long: on an H200
/// (half of Swiss-Prot, each query in the database) titin ran 1.14 times
/// as fast dispatched as freed, queries of 8,515–18,141 residues 1.02–1.06
/// times; at 5,030–6,061 residues it cost 1 %, and 1–2 % on CUDASW++'s
/// queries of 3,005–5,478 residues, whose chunks the GPU runs best 16 at
/// a time (benches/RESULTS.md, "A long query's chunks as the workers come
/// free").
pub const AS_FREED_FROM_RESIDUES: usize = 8_000;

/// How a query's chunks go to the worker streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// [`Dispatch::AsFreed`] for queries of at least
    /// [`AS_FREED_FROM_RESIDUES`] residues, else [`Dispatch::Queued`].
    Auto,
    /// Every chunk queued at once, the workers in turn. The driver runs a
    /// GPU's streams on a few hardware queues (`CUDA_DEVICE_MAX_CONNECTIONS`,
    /// 8 by default), each in order: with 16 workers, streams `k` and `k +
    /// 8` share one, and a chunk waits for whatever was queued before it
    /// on the other stream.
    Queued,
    /// A chunk on one of the first workers (one a hardware queue) once it
    /// is free: nothing waits behind a long chunk, and a finished chunk's
    /// rescue is queued at once.
    AsFreed,
}

impl Dispatch {
    /// [`DISPATCH_VARIABLE`]'s choice.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a value that is none of the three.
    pub fn from_environment() -> Result<Dispatch> {
        match std::env::var(DISPATCH_VARIABLE).as_deref() {
            Err(_) | Ok("") | Ok("auto") => Ok(Dispatch::Auto),
            Ok("queued") => Ok(Dispatch::Queued),
            Ok("as-freed") => Ok(Dispatch::AsFreed),
            Ok(other) => Err(Error::InvalidArgument(format!(
                "{DISPATCH_VARIABLE}={other}: expected auto, queued or as-freed"
            ))),
        }
    }

    /// Whether a query (or pair) whose longer query has `query_len`
    /// residues has its chunks dispatched as workers come free.
    pub fn as_freed(self, query_len: usize) -> bool {
        match self {
            Dispatch::Auto => query_len >= AS_FREED_FROM_RESIDUES,
            Dispatch::Queued => false,
            Dispatch::AsFreed => true,
        }
    }
}

/// The hardware queues the driver gives a context's streams:
/// `CUDA_DEVICE_MAX_CONNECTIONS`, 8 unless set (CUDA's default).
fn hardware_queues() -> usize {
    std::env::var("CUDA_DEVICE_MAX_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_queries_are_dispatched_as_workers_come_free() {
        assert!(!Dispatch::Auto.as_freed(AS_FREED_FROM_RESIDUES - 1));
        assert!(Dispatch::Auto.as_freed(AS_FREED_FROM_RESIDUES));
        assert!(Dispatch::AsFreed.as_freed(5));
        assert!(!Dispatch::Queued.as_freed(35_000));
    }
}
