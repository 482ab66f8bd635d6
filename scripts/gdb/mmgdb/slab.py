"""slab.py - the slab allocator seen from gdb: caches, sheaves, barns,
one slab with its hardened freelist decoded, and the deferred lists.

Where an object can be, for a cache with sheaves (mm/slab_internal.h):
  - free on its slab's freelist;
  - in a CPU's main or spare sheaf, or a full sheaf in its node's barn:
    free for the allocator, but its slab counts it in use (page->inuse);
  - in a CPU's rcu_free sheaf: given to kfree_rcu(), waiting for a grace
    period (a sheaf already handed to call_rcu() is out of reach here);
  - parked on a CPU's deferred list by kfree_nolock();
  - held by whoever allocated it.
The kernel's slabinfo line counts everything but the first as "active";
`slabinfo` here tells them apart, which Linux's lx-slabinfo does not.

The free pointer is hardened (mm/slab_internal.h): a link is stored as
next ^ s->random ^ bswap64(address of the slot), the slab's head
(page->freelist) against the address of that field, and a deferred link
with DEFERRED_LINK_TAG mixed in.  decode() below is the same formula.
"""
import gdb

from . import kernel as k
from . import pages


# ---- caches ----

def caches():
    """Every cache on slab_caches (struct kmem_cache * values)."""
    return k.list_entries(k.symbol("slab_caches"), "struct kmem_cache",
                          "list")


def find_cache(name):
    for s in caches():
        if s["name"].string() == name:
            return s
    names = ", ".join(s["name"].string() for s in caches()) or \
        "none yet (stop after kmem_cache_init())"
    raise gdb.GdbError("no cache named %r; the caches are: %s" % (name, names))


def cache_name(s):
    return s["name"].string()


def node_count(s):
    """The nodes a cache's node[] covers that may be online."""
    return min(int(k.symbol("nr_node_ids")), k.array_len(s["node"]))


def slabs_of(s):
    """(nid, head page) of each slab of s, partial and full lists."""
    for nid in range(node_count(s)):
        n = s["node"][nid]
        for lst in ("partial", "full"):
            for slab in k.list_entries(n[lst], "struct page", "lru"):
                yield nid, slab


# ---- sheaves ----

def bootstrap_sheaf():
    return k.addr(k.symbol("bootstrap_sheaf").address)


def cpu_sheaves(s, cpu):
    """s->cpu_sheaves[cpu] (the array is s's last, flexible member)."""
    base = k.addr(s) + k.offsetof("struct kmem_cache", "cpu_sheaves")
    return k.cast_ptr(base + cpu * k.struct("struct slub_percpu_sheaves").sizeof,
                      "struct slub_percpu_sheaves")


def sheaf_objects(sheaf):
    """The object addresses in a sheaf (objects[0..size))."""
    if not k.addr(sheaf):
        return []
    return k.read_pointers(k.addr(sheaf) + k.offsetof("struct slab_sheaf",
                                                      "objects"),
                           int(sheaf["size"]))


def pcs_main(pcs):
    """A CPU's main sheaf as the slow paths see it: a traced cache's main
    is slab_trace_gate while its lock is free, the real one in traced_main
    (mm/slab_trace.c, pcs_main_unlocked() in mm/slab_internal.h)."""
    main = pcs["main"]
    if k.addr(main) == k.addr(k.symbol("slab_trace_gate").address):
        return pcs["traced_main"]
    return main


def pcs_sheaf(pcs, kind):
    """pcs's main (behind the trace gate), spare or rcu_free."""
    return pcs_main(pcs) if kind == "main" else pcs[kind]


def pcs_sheaves(s, cpu):
    """[(kind, struct slab_sheaf *)] of a CPU: main, spare, rcu_free."""
    pcs = cpu_sheaves(s, cpu)
    return [(kind, pcs_sheaf(pcs, kind))
            for kind in ("main", "spare", "rcu_free")]


def barn_sheaves(s, nid, kind):
    """The sheaves on node nid's barn list, kind "full" or "empty"."""
    return k.list_entries(s["node"][nid]["barn"]["sheaves_" + kind],
                          "struct slab_sheaf", "barn_list")


# ---- the hardened free pointer ----

def bswap64(x):
    return int.from_bytes(x.to_bytes(8, "little"), "big")


def decode(s, stored, slot, deferred=False):
    """A stored link at address slot, decoded as mm/slab_internal.h's
    freeptr_decode() (deferred_link_decode() with deferred)."""
    if deferred:
        stored ^= k.constant("DEFERRED_LINK_TAG")
    return stored ^ k.addr(s["random"]) ^ bswap64(slot)


def slab_base(slab):
    return pages.pfn_to_virt(pages.page_to_pfn(slab))


def object_index(s, slab, obj):
    """Index of obj in slab, or -1 if obj is not an object's first byte."""
    off = obj - slab_base(slab)
    size = int(s["size"])
    if obj < slab_base(slab) or off % size or off // size >= int(slab["objects"]):
        return -1
    return off // size


def virt_to_slab(address):
    """The head page of the slab address lies in, or None."""
    pfn = pages.virt_to_pfn(address)
    if not pages.pfn_valid(pfn):
        return None
    page = pages.pfn_to_page(pfn)
    if not int(page["flags"]) & k.constant("PG_slab"):
        return None
    return k.cast_ptr(k.addr(page["private_data"]), "struct page")


def freelist(s, slab):
    """(decoded free objects in list order, error or None)."""
    slot = k.addr(slab["freelist"].address)
    obj = decode(s, k.addr(slab["freelist"]), slot)
    out = []
    while obj:
        if object_index(s, slab, obj) < 0:
            return out, ("corrupted: a link decodes to %#x, not an object of "
                         "this slab" % obj)
        if len(out) >= int(slab["objects"]):
            return out, "corrupted: longer than the slab (a loop)"
        out.append(obj)
        slot = obj + int(s["offset"])
        obj = decode(s, k.read_u64(slot), slot)
    return out, None


def parked_objects(cpu):
    """(objects, error) of cpu's kfree_nolock() deferred list, newest
    first: [(address, cache)]."""
    d = k.per_cpu("slab_defer", cpu)
    obj = k.addr(d["first"])
    out = []
    while obj:
        slab = virt_to_slab(obj)
        if slab is None:
            return out, "corrupted: a link decodes to %#x, not a slab object" % obj
        s = slab["slab_cache"]
        if object_index(s, slab, obj) < 0 or len(out) > (1 << 20):
            return out, "corrupted: %#x is not an object's first byte" % obj
        out.append((obj, s))
        slot = obj + int(s["offset"])
        obj = decode(s, k.read_u64(slot), slot, deferred=True)
    return out, None


def parked_by_cache():
    """{cache address: objects parked on any CPU's deferred list}."""
    counts = {}
    for cpu in k.possible_cpus():
        objs, _ = parked_objects(cpu)
        for _, s in objs:
            counts[k.addr(s)] = counts.get(k.addr(s), 0) + 1
    return counts


def where_objects_are(s):
    """{object address: where it is} for the objects of s that sit in a
    sheaf, the barn or a deferred list."""
    marks = {}
    for cpu in k.possible_cpus():
        for kind, sheaf in pcs_sheaves(s, cpu):
            what = "sheaf cpu%d %s" % (cpu, kind)
            if kind == "rcu_free":
                what += " (waits for a grace period)"
            for o in sheaf_objects(sheaf):
                marks[o] = what
    for nid in range(node_count(s)):
        for sheaf in barn_sheaves(s, nid, "full"):
            for o in sheaf_objects(sheaf):
                marks[o] = "barn node %d" % nid
    for cpu in k.possible_cpus():
        objs, _ = parked_objects(cpu)
        for o, oc in objs:
            if k.addr(oc) == k.addr(s):
                marks[o] = "deferred cpu%d (kfree_nolock())" % cpu
    return marks


# ---- commands ----

class SlabinfoCommand(gdb.Command):
    """slabinfo: per cache, objects in use and where the free-but-counted ones are parked.

inuse     objects out of their slabs (the sum of page->inuse): what the
          kernel's own slabinfo line calls "active";
sheaves   of those, free in the CPUs' main and spare sheaves;
barn      free in the full sheaves of the barns;
deferred  parked on the CPUs' deferred lists by kfree_nolock();
rcu       in the CPUs' rcu_free sheaves, waiting for a grace period;
active    inuse less all of these: what callers really hold.
total is slabs * objects per slab."""

    def __init__(self):
        super().__init__("slabinfo", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        parked = parked_by_cache()
        fmt = "%-22s %7s %7s %7s %7s %6s %7s %6s %8s %5s"
        print(fmt % ("name", "objsize", "active", "inuse", "total", "slabs",
                     "sheaves", "barn", "deferred", "rcu"))
        for s in caches():
            inuse = nslabs = 0
            for _, slab in slabs_of(s):
                inuse += int(slab["inuse"])
                nslabs += 1
            in_sheaves = in_rcu = in_barn = 0
            if int(s["sheaf_capacity"]):
                for cpu in k.possible_cpus():
                    pcs = cpu_sheaves(s, cpu)
                    for kind in ("main", "spare"):
                        sheaf = pcs_sheaf(pcs, kind)
                        if k.addr(sheaf):
                            in_sheaves += int(sheaf["size"])
                    if k.addr(pcs["rcu_free"]):
                        in_rcu += int(pcs["rcu_free"]["size"])
                for nid in range(node_count(s)):
                    in_barn += sum(int(sh["size"])
                                   for sh in barn_sheaves(s, nid, "full"))
            deferred = parked.get(k.addr(s), 0)
            active = inuse - in_sheaves - in_barn - deferred - in_rcu
            print(fmt % (cache_name(s), int(s["object_size"]), active, inuse,
                         nslabs * int(s["objects"]), nslabs, in_sheaves,
                         in_barn, deferred, in_rcu))


class SheavesCommand(gdb.Command):
    """sheaves CACHE [CPU]: a cache's per-CPU sheaves (main, spare, rcu_free): size/capacity and objects.

Without CPU, every possible CPU.  A CPU that has not used the cache (or
whose sheaves a shrink took) has the bootstrap sheaf, capacity 0, as its
main (mm/sheaf.c)."""

    def __init__(self):
        super().__init__("sheaves", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv or len(argv) > 2:
            raise gdb.GdbError("usage: sheaves CACHE [CPU]")
        s = find_cache(argv[0])
        cpus = list(k.possible_cpus())
        if len(argv) == 2:
            cpu = k.parse_number(argv[1], "CPU")
            if cpu not in cpus:
                raise gdb.GdbError("cpu %d is not possible (0..%d)"
                                   % (cpu, len(cpus) - 1))
            cpus = [cpu]
        cap = int(s["sheaf_capacity"])
        print("%s: sheaf capacity %d%s" % (cache_name(s), cap,
              "" if cap else " (no sheaves: every object goes to its slab)"))
        boot = bootstrap_sheaf()
        for cpu in cpus:
            print("cpu%d:" % cpu)
            for kind, sheaf in pcs_sheaves(s, cpu):
                a = k.addr(sheaf)
                if not a:
                    print("  %-8s none" % kind)
                    continue
                if a == boot:
                    print("  %-8s bootstrap sheaf %#x (capacity 0: cpu%d has "
                          "not used the cache since its last flush)"
                          % (kind, a, cpu))
                    continue
                objs = sheaf_objects(sheaf)
                print("  %-8s %#x %d/%d" % (kind, a, int(sheaf["size"]),
                                            int(sheaf["capacity"])))
                for i in range(0, len(objs), 4):
                    print("           " + " ".join("%#x" % o for o in objs[i:i + 4]))


class BarnCommand(gdb.Command):
    """barn CACHE: per node, the full and empty sheaves in the cache's barn.

The barn holds sheaves the node's CPUs trade: full ones (free objects,
counted in use by their slabs) and empty ones, each list up to its limit
(BARN_MAX_FULL, BARN_MAX_EMPTY in mm/slab_internal.h)."""

    def __init__(self):
        super().__init__("barn", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if len(argv) != 1:
            raise gdb.GdbError("usage: barn CACHE")
        s = find_cache(argv[0])
        for nid in range(node_count(s)):
            barn = s["node"][nid]["barn"]
            full = list(barn_sheaves(s, nid, "full"))
            empty = list(barn_sheaves(s, nid, "empty"))
            print("%s node %d: %d full (%d objects), %d empty "
                  "(nr_full %d, nr_empty %d)" % (
                      cache_name(s), nid, len(full),
                      sum(int(sh["size"]) for sh in full), len(empty),
                      int(barn["nr_full"]), int(barn["nr_empty"])))
            for kind, lst in (("full", full), ("empty", empty)):
                for sh in lst:
                    print("  %-5s %#x %d/%d" % (kind, k.addr(sh), int(sh["size"]),
                                                int(sh["capacity"])))


class SlabCommand(gdb.Command):
    """slab ADDR: the slab holding ADDR: cache, node, order, inuse, freelist decoded, each object marked.

The freelist is decoded as the kernel does (next ^ s->random ^
bswap64(slot)); a link that decodes outside the slab is reported, never
followed.  Each object is marked free (on the freelist), sheaf cpuN
main/spare/rcu_free, barn node N, deferred cpuN, or allocated."""

    def __init__(self):
        super().__init__("slab", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        pfn = pages.resolve_page(arg)
        address = k.parse_number(arg, "ADDR")
        page = pages.pfn_to_page(pfn)
        if not int(page["flags"]) & k.constant("PG_slab"):
            raise gdb.GdbError("pfn %#x is not a slab page (try `page %#x`)"
                               % (pfn, pfn))
        slab = k.cast_ptr(k.addr(page["private_data"]), "struct page")
        s = slab["slab_cache"]
        nid, _, _ = pages.page_zone(slab)
        base = slab_base(slab)
        nobj, size = int(slab["objects"]), int(s["size"])
        free, err = freelist(s, slab)
        print("slab %#x of %s: pfn %#x, struct page %#x" % (
            base, cache_name(s), pages.page_to_pfn(slab), k.addr(slab)))
        print("  node %d, order %d, inuse %d/%d, stride %d, free pointer at +%d"
              % (nid, int(s["order"]), int(slab["inuse"]), nobj, size,
                 int(s["offset"])))
        print("  freelist (%d free, decoded):" % len(free))
        for i in range(0, len(free), 4):
            print("    " + " -> ".join("%#x" % o for o in free[i:i + 4]))
        if err:
            print("  freelist %s" % err)
        marks = where_objects_are(s)
        for o in free:
            marks[o] = "free"
        tally = {}
        print("  objects:")
        for i in range(nobj):
            o = base + i * size
            what = marks.get(o, "allocated")
            key = "rcu_free" if "rcu_free" in what else what.split()[0]
            tally[key] = tally.get(key, 0) + 1
            here = "  <- ADDR" if o <= address < o + size else ""
            print("  [%3d] %#x  %s%s" % (i, o, what, here))
        print("  " + ", ".join("%s %d" % (w, n) for w, n in sorted(tally.items())))


class DeferredCommand(gdb.Command):
    """deferred: the parked lists: pages free_pages_nolock() deferred, objects kfree_nolock() and kfree_rcu_nolock() parked.

Pages wait on their zone's deferred list for the next locked free;
objects on their CPU's list for its irq_work (links decoded with the
cache's hardening and DEFERRED_LINK_TAG)."""

    def __init__(self):
        super().__init__("deferred", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        print("pages deferred by free_pages_nolock() (zone->deferred_free):")
        for nid, zone, blocks in pages.deferred_pages():
            print("  node %d zone %s: %d pages in %d block%s (nr_deferred %d)"
                  % (nid, zone["name"].string(),
                     sum(1 << o for _, o in blocks), len(blocks),
                     "" if len(blocks) == 1 else "s",
                     int(zone["nr_deferred"])))
            for pfn, order in blocks:
                print("    pfn %#x order %d" % (pfn, order))
        print("objects parked by kfree_nolock() (per-CPU deferred lists):")
        for cpu in k.online_cpus():
            objs, err = parked_objects(cpu)
            print("  cpu%d: %d (count %d)" % (
                cpu, len(objs), int(k.per_cpu("slab_defer", cpu)["count"])))
            for o, s in objs:
                print("    %#x %s" % (o, cache_name(s)))
            if err:
                print("    " + err)
        print("objects parked by kfree_rcu_nolock() (per CPU):")
        head_off = k.offsetof("struct rcu_head", "llnode")
        for cpu in k.online_cpus():
            d = k.per_cpu("kfree_rcu_defer", cpu)
            heads = list(k.llist_nodes(d["heads"]["first"]))
            print("  cpu%d: %d (count %d)" % (cpu, len(heads), int(d["count"])))
            for node in heads:
                head = node - head_off
                slab = virt_to_slab(head)
                if slab is None:
                    print("    rcu_head %#x (a large kmalloc block)" % head)
                    continue
                s = slab["slab_cache"]
                idx = (head - slab_base(slab)) // int(s["size"])
                print("    rcu_head %#x in %#x %s" % (
                    head, slab_base(slab) + idx * int(s["size"]), cache_name(s)))


def register():
    SlabinfoCommand()
    SheavesCommand()
    BarnCommand()
    SlabCommand()
    DeferredCommand()
