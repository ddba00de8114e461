//! Occupancy: how many blocks of a kernel one multiprocessor holds, from the
//! kernel's registers per thread, shared memory per block and block size,
//! and the multiprocessor's limits as the driver reports them (the
//! arithmetic of NVIDIA's occupancy calculator, without a GPU).

/// What one multiprocessor offers, by the driver's device attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmLimits {
    /// 32-bit registers (`CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR`).
    pub registers: u32,
    /// Shared memory in bytes, at the largest carveout
    /// (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR`).
    pub shared_bytes: u32,
    /// Shared memory the system reserves for each block
    /// (`CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK`).
    pub reserved_shared_per_block: u32,
    /// Resident threads (`CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR`).
    pub threads: u32,
    /// Resident blocks (`CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR`).
    pub blocks: u32,
}

impl SmLimits {
    /// An H100 (compute capability 9.0): 64 Ki registers, 228 KiB of
    /// shared memory, 1 KiB reserved a block, 2048 threads, 32 blocks.
    pub const H100: SmLimits = SmLimits {
        registers: 65536,
        shared_bytes: 233_472,
        reserved_shared_per_block: 1024,
        threads: 2048,
        blocks: 32,
    };

    /// An A100 (compute capability 8.0): as the H100 but 164 KiB of shared
    /// memory.
    pub const A100: SmLimits = SmLimits {
        shared_bytes: 167_936,
        ..SmLimits::H100
    };
}

/// What limits the blocks a multiprocessor holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Resident threads.
    Threads,
    /// Resident blocks.
    Blocks,
}

/// Blocks of a kernel that one multiprocessor holds at once, and what
/// limits them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Blocks per multiprocessor (0: the kernel cannot run there).
    pub blocks: u32,
    /// The tightest limit (registers first when several tie).
    pub limit: Limit,
}

/// Registers are given to warps 256 at a time (8 a thread).
const REGISTER_UNIT_PER_WARP: u32 = 256;

/// Shared memory is given to blocks 128 bytes at a time.
const SHARED_UNIT: u32 = 128;

/// The occupancy of a kernel using `registers` per thread and
/// `shared_bytes` of shared memory per block (static and dynamic), in
/// blocks of `threads` threads, on a multiprocessor with `limits`.
///
/// ```
/// use host::kernel::occupancy::{Limit, SmLimits, occupancy};
/// // The group kernels on an H100: a 62.5 KB pair table per block of 256.
/// let at = |registers| occupancy(&SmLimits::H100, registers, 62_500, 256);
/// assert_eq!(at(80).blocks, 3);
/// assert_eq!(at(64).limit, Limit::SharedMemory);
/// assert_eq!(at(88).blocks, 2);
/// assert_eq!(at(128).limit, Limit::Registers);
/// assert_eq!(at(168).blocks, 1);
/// ```
pub fn occupancy(limits: &SmLimits, registers: u32, shared_bytes: u32, threads: u32) -> Occupancy {
    let warps = threads.div_ceil(32).max(1);
    let per_warp = (registers * 32).div_ceil(REGISTER_UNIT_PER_WARP) * REGISTER_UNIT_PER_WARP;
    let by_registers = limits
        .registers
        .checked_div(per_warp)
        .map_or(u32::MAX, |w| w / warps);
    let per_block =
        (shared_bytes + limits.reserved_shared_per_block).div_ceil(SHARED_UNIT) * SHARED_UNIT;
    let by_shared = limits.shared_bytes / per_block.max(1);
    let by_threads = limits.threads / (warps * 32);
    [
        (by_registers, Limit::Registers),
        (by_shared, Limit::SharedMemory),
        (by_threads, Limit::Threads),
        (limits.blocks, Limit::Blocks),
    ]
    .into_iter()
    .min_by_key(|&(blocks, _)| blocks)
    .map(|(blocks, limit)| Occupancy { blocks, limit })
    .expect("four limits")
}

/// One configuration of a group kernel family (`gpu_kernels::group_i16x2`
/// or `gpu_kernels::query_group_i16x2`), as `warpsw kernels` lists it.
#[derive(Clone, Copy, Debug)]
pub struct Capped<C> {
    /// The configuration.
    pub config: C,
    /// Its register cap in the `sm_80` and the `sm_90` PTX.
    pub max_registers: [u32; 2],
    /// Blocks of 256 threads per multiprocessor at the cap, with the
    /// block's shared memory: on an A100 (`sm_80` build) and an H100
    /// (`sm_90`).
    pub blocks: [u32; 2],
}

/// A configuration of the group kernels with its caps and occupancy.
pub type GroupConfig = Capped<gpu_kernels::group_i16x2::Config>;

/// A configuration of the query-group kernels with its caps and occupancy.
pub type QueryGroupConfig = Capped<gpu_kernels::query_group_i16x2::Config>;

/// `config` with register caps `caps` (`sm_80`, `sm_90`) and `shared`
/// bytes of shared memory a block of 256 threads.
fn capped<C>(config: C, caps: [u32; 2], shared: usize) -> Capped<C> {
    use gpu_kernels::group_i16x2::BLOCK_THREADS;
    let blocks =
        |limits: &SmLimits, cap: u32| occupancy(limits, cap, shared as u32, BLOCK_THREADS).blocks;
    Capped {
        config,
        max_registers: caps,
        blocks: [
            blocks(&SmLimits::A100, caps[0]),
            blocks(&SmLimits::H100, caps[1]),
        ],
    }
}

/// Every configuration of the group kernels, with its register caps and
/// the occupancy they give (the pair table in shared memory).
pub fn group_configs() -> Vec<GroupConfig> {
    use gpu_kernels::group_i16x2::{CONFIGS, SHARED_BYTES};
    CONFIGS
        .iter()
        .map(|&c| {
            capped(
                c,
                [c.max_registers(false), c.max_registers(true)],
                SHARED_BYTES,
            )
        })
        .collect()
}

/// Every configuration of the query-group kernels, with its register caps
/// and the occupancy they give (the window in shared memory).
pub fn query_group_configs() -> Vec<QueryGroupConfig> {
    gpu_kernels::query_group_i16x2::CONFIGS
        .iter()
        .map(|&c| {
            let caps = [c.max_registers(false), c.max_registers(true)];
            capped(c, caps, c.window_bytes())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_kernels_are_limited_by_threads_or_blocks() {
        // 32 registers would tie with the threads (8 blocks); registers
        // are named first then.
        let o = occupancy(&SmLimits::H100, 24, 0, 256);
        assert_eq!(
            o,
            Occupancy {
                blocks: 8,
                limit: Limit::Threads
            }
        );
        let o = occupancy(&SmLimits::H100, 16, 0, 32);
        assert_eq!(
            o,
            Occupancy {
                blocks: 32,
                limit: Limit::Blocks
            }
        );
    }

    #[test]
    fn registers_are_rounded_to_whole_units() {
        // 81 registers take 88 a thread: 2816 a warp, 23 warps, 2 blocks of 8.
        assert_eq!(occupancy(&SmLimits::H100, 81, 0, 256).blocks, 2);
        assert_eq!(occupancy(&SmLimits::H100, 255, 0, 256).blocks, 1);
        assert_eq!(occupancy(&SmLimits::H100, 255, 0, 1024).blocks, 0);
    }

    #[test]
    fn the_pair_table_fits_three_times_on_an_h100_and_twice_on_an_a100() {
        use gpu_kernels::group_i16x2::SHARED_BYTES;
        let shared = SHARED_BYTES as u32;
        assert_eq!(occupancy(&SmLimits::H100, 64, shared, 256).blocks, 3);
        assert_eq!(occupancy(&SmLimits::A100, 64, shared, 256).blocks, 2);
    }

    /// Every group configuration's register cap gives the blocks per
    /// multiprocessor it is meant for (`Config::blocks_per_sm`), on an A100
    /// (the `sm_80` build) and an H100 (`sm_90`).
    #[test]
    fn group_register_caps_give_the_intended_blocks() {
        for g in group_configs() {
            assert_eq!(g.blocks, g.config.blocks_per_sm, "{}", g.config.symbol);
        }
    }
}
