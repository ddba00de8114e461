#!/usr/bin/env python3
"""The inner loop of the group kernels in an nvdisasm listing.

    scripts/sass_loop.py KERNELS.sass [PATTERN]

For every entry point whose name contains PATTERN (default
`sw_group_i16x2_`) and ends in `_r<R>` (optionally `_passes`, or a variant
letter), finds the loop that runs the steps: the innermost loop (a backward
branch) holding shared-memory loads and shuffles and no `WARPSYNC` (ptxas
also keeps a never-run copy of each shuffle loop for divergent warps, with
`WARPSYNC` around every shuffle). One iteration is four rows (four steps,
or two of two rows for the query-group `_2rows` configurations); in each
row a lane updates its R columns (R lane-cells, two DP cells each: the
pair's two sequences), so the loop does 4R lane-cells. Prints per kernel: SASS
instructions per iteration and per lane-cell, the main opcodes per
lane-cell, and the longest chain of dependent DPX operations (`VI*`)
through one iteration (register read-after-write only; how long E's chain
from column to column is, four steps at a time). Used by
scripts/codegen.sh --cells; the numbers are recorded in benches/RESULTS.md.
"""
import collections
import re
import sys


def parse(path):
    """{kernel: [(address, opcode, text)]} and {kernel: {label: index}}."""
    kernels, labels = {}, {}
    name = None
    for line in open(path):
        m = re.match(r'^\s*\.text\.(\S+):', line)
        if m:
            name = m.group(1)
            kernels[name], labels[name] = [], {}
            continue
        if name is None:
            continue
        m = re.match(r'^\s*(\.L\S+):', line)
        if m:
            labels[name][m.group(1)] = len(kernels[name])
            continue
        m = re.search(r'/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if m:
            text = re.sub(r'^@!?U?P[T0-9]+\s+', '', m.group(2).strip())
            kernels[name].append((int(m.group(1), 16), text.split()[0].split('.')[0], text))
    return kernels, labels


def loops(ins, labels):
    """(start, end) index pairs of the backward branches."""
    at = {a: i for i, (a, _, _) in enumerate(ins)}
    found = set()
    for i, (_, op, text) in enumerate(ins):
        if op != 'BRA':
            continue
        m = re.search(r'`\((\S+?)\)', text)
        target = labels.get(m.group(1)) if m else None
        if target is None:
            m = re.search(r'0x([0-9a-f]+)', text)
            target = at.get(int(m.group(1), 16)) if m else None
        if target is not None and target <= i:
            found.add((target, i))
    return found


def hot_loop(ins, labels):
    """The steps' loop: innermost, with LDS and SHFL, without WARPSYNC."""
    candidates = []
    for s, e in loops(ins, labels):
        ops = collections.Counter(op for _, op, _ in ins[s:e + 1])
        if ops['LDS'] and ops['SHFL'] and not ops['WARPSYNC']:
            candidates.append((s, e))
    inner = [(s, e) for s, e in candidates
             if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e for s2, e2 in candidates)]
    return max(inner, key=lambda se: se[1] - se[0], default=None)


def dpx_chain(body):
    """DPX operations on the longest register dependency chain of `body`."""
    ready = collections.defaultdict(int)
    longest = 0
    for _, op, text in body:
        if op in ('BRA', 'EXIT', 'BSSY', 'BSYNC', 'NOP'):
            continue
        regs = re.findall(r'\bR(\d+)\b', text.split(None, 1)[1] if ' ' in text else '')
        if not regs:
            continue
        store = op in ('ST', 'STS', 'STG')
        dst, srcs = (None, regs) if store else (regs[0], regs[1:])
        done = max([ready[r] for r in srcs] + [0]) + (1 if op.startswith('VI') else 0)
        if dst is not None:
            ready[dst] = done
        longest = max(longest, done)
    return longest


COLUMNS = ['VIADDMNMX', 'VIMNMX', 'VIMNMX3', 'VIADD', 'LDS', 'IMAD', 'SHFL', 'LDG', 'ISETP', 'BRA']


def main():
    path = sys.argv[1]
    pattern = sys.argv[2] if len(sys.argv) > 2 else 'sw_group_i16x2_'
    kernels, labels = parse(path)
    print(f"{'kernel':<32} {'instr/iter':>10} {'/lane-cell':>10} " +
          ' '.join(f'{c:>9}' for c in COLUMNS) + f" {'DPX chain':>9}")
    for name in sorted(kernels, key=lambda n: [int(x) if x.isdigit() else x for x in re.split(r'(\d+)', n)]):
        m = re.search(r'_r(\d+)', name)
        if pattern not in name or not m:
            continue
        cells = 4 * int(m.group(1))
        loop = hot_loop(kernels[name], labels[name])
        if loop is None:
            print(f'{name:<32} no steps loop found')
            continue
        body = kernels[name][loop[0]:loop[1] + 1]
        ops = collections.Counter(op for _, op, _ in body)
        ops['LDG'] += ops['LD']
        print(f'{name:<32} {len(body):>10} {len(body) / cells:>10.2f} ' +
              ' '.join(f'{ops[c] / cells:>9.2f}' for c in COLUMNS) +
              f' {dpx_chain(body):>9}')


if __name__ == '__main__':
    main()
