#!/usr/bin/env python3
"""make_seeds.py - write the hand-made seed inputs of the fuzzers.

The seeds are programs in each fuzzer's input language (the head comments
of tests/fuzz/fuzz_mm.c and fuzz_memblock.c, and the tables below, which
follow their enums): scenarios a person would write first, so the fuzzer
starts from inputs that already reach every part of the API instead of
finding the operation codes byte by byte.  Deterministic (a fixed
PRNG seed), so running it twice writes the same files.

    tests/fuzz/make_seeds.py [OUT_DIR]     (default tests/fuzz/corpus)

writes OUT_DIR/mm/seed-* and OUT_DIR/memblock/seed-*.  `make fuzz-merge`
later minimizes the corpus together with what `make fuzz` found.
"""
import os
import random
import struct
import sys

# ---- fuzz_mm: enum fuzz_op, and the context in the code's top two bits ----
(CACHE_CREATE, CACHE_DESTROY, CACHE_ALLOC, FREE, KMALLOC, KMALLOC_NOLOCK,
 KREALLOC, KSIZE, BULK_ALLOC, BULK_FREE, PREFILL, SHEAF_ALLOC, SHEAF_REFILL,
 SHEAF_RETURN, SHRINK, ALLOC_PAGES, TRY_ALLOC_PAGES, FREE_PAGES, DRAIN,
 SWITCH_CPU, ARM_NMI, CHECK) = range(22)
TASK, IRQ, NMI = 0x00, 0x40, 0x80
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def count_mm_points():
    """The entries of enum mm_point (include/mm_points.h), so a point
    added there gets its seed without an edit here."""
    with open(os.path.join(ROOT, "include", "mm_points.h")) as f:
        text = f.read()
    body = text[text.index("enum mm_point {"):text.index("NR_MM_POINTS")]
    return len([l for l in body.splitlines()
                if l.strip().startswith("MM_POINT_")])


NR_MM_POINTS = count_mm_points()
NR_SLUB_DEBUG = 12         # slub_debug_options[] in fuzz_mm.c


class MmProgram:
    def __init__(self, cpus=1, debug=0, poison=0):
        self.b = bytearray([cpus - 1, debug, poison])

    def op(self, code, *args, ctx=TASK):
        self.b.append(code | ctx)
        for a in args:
            self.b.append(a & 0xff)
        return self

    def size(self, kind, v):
        """pick_kmalloc_size(): kind byte and a 16-bit value."""
        return [kind, v & 0xff, (v >> 8) & 0xff]

    # size kind 1: v % (8 KiB + 1); kind 3: v % 64 KiB (large blocks too)
    def kmalloc(self, n, which=0, gfp=0, ctx=TASK):
        kind = 1 if n <= 8192 else 3
        return self.op(KMALLOC, which, gfp, *self.size(kind, n), ctx=ctx)

    def create(self, slot, size_idx, how=0x10, flags=0):
        return self.op(CACHE_CREATE, slot, how, flags, size_idx)


def mm_seeds(rng):
    seeds = {}

    # One cache of each kind: alloc, free, destroy.
    for size_idx in range(24):
        p = MmProgram()
        p.create(0, size_idx, how=(size_idx % 6) << 4)
        for i in range(20):
            p.op(CACHE_ALLOC, 0, i & 1)
        for i in range(20):
            p.op(FREE, i * 7, i % 3)
        p.op(CHECK).op(CACHE_DESTROY, 0)
        seeds["cache-size%02d" % size_idx] = p

    # A destroy that finds live objects: refused, then the cache goes on.
    p = MmProgram()
    p.create(0, 6).op(CACHE_ALLOC, 0, 0).op(CACHE_ALLOC, 0, 0)
    p.op(CACHE_DESTROY, 0x80).op(CACHE_ALLOC, 0, 1).op(FREE, 0, 2)
    p.op(CACHE_DESTROY, 0x80).op(CHECK)
    seeds["destroy-with-leaks"] = p

    # Debug flags, constructor, alignment, no sheaves.
    for flags in (0x41, 0x42, 0x44, 0x48, 0x4f, 0x20, 0x30, 0x6f, 0x10):
        for how in (0x00, 0x11, 0x1c, 0x26):
            p = MmProgram()
            p.create(1, 5 + flags % 13, how=how, flags=flags)
            p.op(BULK_ALLOC, 0, 1, 30).op(CACHE_ALLOC, 0, 0)
            p.op(BULK_FREE, 0, 16).op(FREE, 3, 2).op(SHRINK, 0)
            p.op(CACHE_ALLOC, 0, 0).op(CHECK)
            seeds["cache-flags%02x-how%02x" % (flags, how)] = p

    # kmalloc across the classes and their edges, kzalloc, kcalloc, ksize.
    p = MmProgram()
    for n in (0, 1, 7, 8, 9, 16, 17, 63, 64, 65, 96, 97, 128, 192, 193, 256,
              511, 1024, 2049, 4096, 8191, 8192, 8193, 20000, 65535):
        p.kmalloc(n, which=n % 3, gfp=n & 1)
    for i in range(12):
        p.op(KSIZE, i * 5).op(FREE, i * 3, i)
    seeds["kmalloc-classes"] = p

    # krealloc: grow and shrink, with and without __GFP_ZERO.
    for gfp in (0, 1):
        p = MmProgram()
        p.op(KMALLOC, 1, gfp, *p.size(1, 24))
        for n in (40, 100, 16, 300, 5000, 12, 9000, 200, 0):
            p.op(KREALLOC, 0, gfp, *p.size(1 if n <= 8192 else 3, n))
        seeds["krealloc-gfp%d" % gfp] = p

    # Any context: kmalloc_nolock and frees in NMI, the deferred drain.
    for cpus in (1, 4):
        p = MmProgram(cpus=cpus)
        for i in range(30):
            p.op(KMALLOC_NOLOCK, i % 8, *p.size(1, 8 + 37 * i))
        for i in range(30):
            p.op(FREE, i, 1, ctx=NMI if i & 1 else TASK)
        p.op(DRAIN, 0).op(SWITCH_CPU, 1).op(DRAIN, 0).op(CHECK)
        seeds["nolock-cpus%d" % cpus] = p

    # Prefilled sheaves: prefill, allocate, refill, return, in IRQ too.
    for cap in range(6):
        p = MmProgram()
        p.create(2, 8, how=cap << 4)
        p.op(PREFILL, 0, 0, 10).op(PREFILL, 0, 1, 70, ctx=IRQ)
        for i in range(12):
            p.op(SHEAF_ALLOC, i % 2, i & 1, ctx=NMI if i % 3 == 0 else TASK)
        p.op(SHEAF_REFILL, 0, 30).op(SHEAF_RETURN, 1).op(SHEAF_ALLOC, 0, 0)
        p.op(SHEAF_RETURN, 0).op(CHECK)
        seeds["sheaf-cap%d" % cap] = p

    # Pages: every order, zeroed, nolock in NMI, frees of every kind.
    p = MmProgram()
    for order in range(11):
        p.op(ALLOC_PAGES, 0x80 | order, order & 0xf)
        p.op(TRY_ALLOC_PAGES, order & 3, order % 4)
    for i in range(22):
        p.op(FREE_PAGES, i * 3, i % 3, ctx=NMI if i % 4 == 0 else TASK)
    p.op(DRAIN, 1).op(DRAIN, 2).op(CHECK)
    seeds["pages"] = p

    p = MmProgram(poison=1)
    for i in range(40):
        p.op(ALLOC_PAGES, i % 4, i)
        if i % 3 == 2:
            p.op(FREE_PAGES, i, i)
    seeds["pages-poison"] = p

    # Several CPUs: allocate on one, free on another.
    p = MmProgram(cpus=4)
    p.create(0, 6)
    for i in range(60):
        p.op(SWITCH_CPU, i % 4)
        p.op(CACHE_ALLOC, 0, 0) if i % 2 else p.kmalloc(50 + i)
        if i % 5 == 4:
            p.op(FREE, i * 11, i % 3)
    p.op(SHRINK, 0).op(SHRINK, 0x81).op(CHECK)
    seeds["cpus4"] = p

    # slub_debug= for every cache.
    for d in range(4, NR_SLUB_DEBUG):
        p = MmProgram(cpus=2, debug=d)
        p.create(1, 4).create(2, 12, flags=0x20)
        for i in range(25):
            p.op(CACHE_ALLOC, i, i & 1).kmalloc(3 + 13 * i)
        for i in range(25):
            p.op(FREE, i * 3, i % 3)
        seeds["slub-debug%d" % d] = p

    # An NMI at every interleaving point, in the middle of a workload.
    for point in range(NR_MM_POINTS):
        p = MmProgram(cpus=2)
        p.create(0, 6, how=0x20)
        p.op(ARM_NMI, point, point % 3, point % 5, point * 7)
        for i in range(40):
            p.op(CACHE_ALLOC, 0, 0).kmalloc(40 + i * 30)
            if i % 4 == 3:
                p.op(ARM_NMI, point, 0, i % 5, i)
                p.op(FREE, i, i % 3).op(FREE_PAGES, 0, i % 3)
                p.op(ALLOC_PAGES, i % 4, 0)
        p.op(BULK_FREE, 0, 40).op(SHRINK, 0).op(DRAIN, 0).op(CHECK)
        seeds["nmi-at-point%02d" % point] = p

    # Random programs over every operation.
    for k in range(24):
        p = MmProgram(cpus=rng.randrange(1, 5), debug=rng.randrange(16),
                      poison=rng.randrange(2))
        for _ in range(rng.randrange(60, 200)):
            code = rng.randrange(22)
            ctx = rng.choice((TASK, TASK, TASK, IRQ, NMI))
            p.op(code, *[rng.randrange(256) for _ in range(5)], ctx=ctx)
        seeds["random%02d" % k] = p
    return {k: bytes(v.b) for k, v in seeds.items()}


# ---- fuzz_memblock: entry mode byte = base kind | length kind << 2 |
# type index << 4 (entry_types[]); kinds 0 pages (u16), 1 u32, 2 MiB (u16,
# then a byte), 3 special (an index byte; bases one more byte) ----
RAM, RESV, ACPI, NVS, UNUSABLE, TYPE0 = 0, 8, 11, 12, 13, 14


def mb_entry(base_kind, base, len_kind, length, t):
    b = bytearray([base_kind | len_kind << 2 | t << 4])
    for kind, v, is_len in ((base_kind, base, False), (len_kind, length, True)):
        if kind == 0:
            b += struct.pack("<H", v)
        elif kind == 1:
            b += struct.pack("<I", v)
        elif kind == 2:
            b += struct.pack("<H", v) + bytes([0])
        else:
            b += bytes([v]) if is_len else bytes([v, 0])
    return bytes(b)


def mb_reserve(base_pages, len_pages):
    return bytes([0, 0]) + struct.pack("<HH", base_pages, len_pages)


def mb_alloc(size_pages, align_shift, lo=None, hi=None):
    if lo is None:
        return bytes([1, 0, align_shift]) + struct.pack("<H", size_pages)
    # mode 0x68: 0x40 = with limits; size in pages (kind 0, bits 0-1), the
    # maximum (bits 2-3) and minimum (bits 4-5) in MiB steps (kind 2).
    return (bytes([1, 0x40 | 0x20 | 0x08, align_shift]) +
            struct.pack("<H", size_pages) + struct.pack("<H", lo) + b"\0" +
            struct.pack("<H", hi) + b"\0")


def memblock_seeds(rng):
    seeds = {}
    qemu = [mb_entry(1, 0, 1, 0x9fc00, RAM),
            mb_entry(1, 0x9fc00, 1, 0x400, RESV),
            mb_entry(1, 0xf0000, 1, 0x10000, RESV),
            mb_entry(1, 0x100000, 1, 0x7ee0000, RAM),
            mb_entry(1, 0x7fe0000, 1, 0x20000, RESV),
            mb_entry(1, 0xfffc0000, 1, 0x40000, RESV)]
    ops = (mb_reserve(0x100, 0x200) +             # the kernel image
           mb_reserve(0x9000, 3) +                # a module
           b"".join(mb_alloc(n, s) for n, s in ((64, 12), (1, 0), (300, 21),
                                                  (2048, 22))))
    seeds["qemu-128M"] = bytes([len(qemu)]) + b"".join(qemu) + ops
    big = qemu[:3] + [mb_entry(1, 0x100000, 1, 0xbff00000, RAM),
                      mb_entry(2, 4096, 2, 3072, RAM)]
    seeds["qemu-5G"] = bytes([len(big)]) + b"".join(big) + ops + \
        mb_alloc(16, 12, 4096, 8192) + mb_alloc(16, 12, 0, 4096)
    odd = [mb_entry(1, 0x12345, 1, 0x3000000, RAM),       # unaligned
           mb_entry(0, 100, 0, 0, RAM),                    # zero length
           mb_entry(0, 2000, 0, 3000, RAM),                # overlapping
           mb_entry(0, 1000, 0, 5000, RAM),
           mb_entry(3, 5, 0, 0x200, RAM),                  # in the PCI hole
           mb_entry(3, 10, 3, 10, RAM),                    # to the top
           mb_entry(3, 13, 3, 3, RAM),                     # beyond it
           mb_entry(0, 2500, 0, 10, ACPI),                 # inside RAM
           mb_entry(1, 0x1801, 1, 0x10, NVS),
           mb_entry(0, 4000, 0, 64, UNUSABLE),
           mb_entry(0, 4100, 0, 64, TYPE0)]
    seeds["odd-entries"] = bytes([len(odd)]) + b"".join(odd) + ops
    many = [mb_entry(2, 0, 2, 1024, RAM)] + [
        mb_entry(0, 256 + i * 64, 0, 1, RESV) for i in range(140)]
    seeds["reserved-overflow"] = bytes([len(many)]) + b"".join(many) + \
        b"".join(mb_alloc(1, 12) for _ in range(20))
    holes = [mb_entry(0, i * 256, 0, 128, RAM) for i in range(150)]
    seeds["memory-overflow"] = bytes([len(holes)]) + b"".join(holes) + ops
    for k in range(16):
        nr = rng.randrange(1, 40)
        b = bytearray([nr])
        for _ in range(nr):
            b += bytes(rng.randrange(256) for _ in range(8))
        b += bytes(rng.randrange(256) for _ in range(rng.randrange(20, 200)))
        seeds["random%02d" % k] = bytes(b)
    return seeds


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus")
    rng = random.Random(1)
    for sub, seeds in (("mm", mm_seeds(rng)), ("memblock", memblock_seeds(rng))):
        d = os.path.join(out, sub)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, "seed-" + name), "wb") as f:
                f.write(data)
        print("%s: %d seeds" % (d, len(seeds)))


if __name__ == "__main__":
    main()
