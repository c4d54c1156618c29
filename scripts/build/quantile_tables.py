#!/usr/bin/env python3
"""Writes src/tools/explore/tables.rs: the integer quantile tables the hazard
explorer samples pause lengths and arrival gaps from.

The tables are computed once here, in double precision, and kept as
integers in the source, so that sampling needs no `ln` or `exp` at run
time and gives the same numbers natively and in wasm32.

    python3 scripts/build/quantile_tables.py > src/tools/explore/tables.rs && cargo fmt
"""

import math
from statistics import NormalDist

Q = 1 << 24  # fixed point: 24 fractional bits
POINTS = 256
LEVELS = 4


def fixed(x):
    return int(round(x * Q))


def rows(values, per_line=8):
    out = []
    for i in range(0, len(values), per_line):
        out.append("    " + " ".join(f"{v}," for v in values[i : i + per_line]))
    return "\n".join(out)


def main():
    normal = NormalDist()
    print("//! Integer quantile tables for the hazard explorer's sampling, written by")
    print("//! `scripts/build/quantile_tables.py` (do not edit by hand). Every value is a")
    print("//! fixed-point number with 24 fractional bits.")
    print()
    print("/// Fractional bits of every table value.")
    print("pub(super) const FRACTION_BITS: u32 = 24;")
    print()
    print(f"/// Points per table; the last segment of each table is refined by the next.")
    print(f"pub(super) const POINTS: usize = {POINTS};")
    print()
    exp = [fixed(-math.log1p(-j / POINTS)) for j in range(POINTS)]
    print("/// The exponential distribution's quantile -ln(1 - u) at u = j / 256.")
    print("/// A draw in the last segment, u >= 255/256, is ln(256) plus a fresh")
    print("/// draw: the exponential forgets how long it has waited.")
    print(f"pub(super) const EXP_QUANTILE: [u32; {POINTS}] = [")
    print(rows(exp))
    print("];")
    print()
    print(f"/// ln(256): where the exponential table's last segment starts.")
    print(f"pub(super) const EXP_TAIL: u32 = {fixed(math.log(POINTS))};")
    print()
    print("/// The standard normal's quantile z(u) for u in [1/2, 1), in levels:")
    print("/// level k holds u = 1 - 2^-(1 + 8k) * (1 - j / 256) for j = 0..256, so")
    print("/// each level spreads the last segment of the one before over 256")
    print("/// points. Four levels reach u = 1 - 2^-33 (z = 6.34).")
    print(f"pub(super) const NORMAL_QUANTILE: [[u32; {POINTS}]; {LEVELS}] = [")
    for k in range(LEVELS):
        width = 2.0 ** -(1 + 8 * k)
        values = [fixed(normal.inv_cdf(1 - width * (1 - j / POINTS))) for j in range(POINTS)]
        print("    [")
        print("\n".join("    " + line for line in rows(values).split("\n")))
        print("    ],")
    print("];")
    print()
    print("/// z(0.99): the normal quantile a profile's p99 stands at.")
    print(f"pub(super) const Z_P99: u32 = {fixed(normal.inv_cdf(0.99))};")
    print()
    print("/// 2^(j / 256) for j = 0..=256, with 32 fractional bits.")
    exp2 = [int(round(2 ** (j / POINTS) * (1 << 32))) for j in range(POINTS + 1)]
    print(f"pub(super) const EXP2: [u64; {POINTS + 1}] = [")
    print(rows(exp2, 4))
    print("];")


main()
