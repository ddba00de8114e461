"""The per-query rows of a `warpsw bench` log, for the GPU scripts' tables.

    from bench_rows import rows
    rows("out/bench_sprot_half.log")  # {query: (length, GCUPS)}, in the log's order

A row is a line of three fields: the query's name, its length and its GCUPS.
"""
import re


def rows(path):
    got = {}
    for line in open(path):
        f = line.split()
        if len(f) == 3 and f[1].isdigit() and re.fullmatch(r"[\d.]+", f[2]):
            got[f[0]] = (int(f[1]), float(f[2]))
    return got
