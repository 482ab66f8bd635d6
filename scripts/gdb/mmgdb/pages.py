"""pages.py - the page allocator seen from gdb: struct page and its
owner, the buddy's free areas, the per-CPU page lists, the zones'
deferred lists, and the any-context counters.

The memmap is one virtual array (include/mm.h): the struct page of frame
pfn is mem_map + (pfn - mem_map_base_pfn).  The direct map's base comes
from the kernel's own variables too: mem_map_virt_start is the direct-map
address of frame mem_map_base_pfn.
"""
import gdb

from . import kernel as k


def memmap():
    """(mem_map as an int, first pfn, end pfn); GdbError before the
    memmap exists (stop later in the boot)."""
    size = int(k.symbol("mem_map_virt_size"))
    if not size:
        raise gdb.GdbError("the memmap is not set up yet: stop the kernel "
                           "after mm_core_init()")
    return (k.addr(k.symbol("mem_map")), int(k.symbol("mem_map_base_pfn")),
            int(k.symbol("mem_map_end_pfn")))


def page_size():
    return 1 << k.constant("PAGE_SHIFT")


def direct_map_base():
    _, base_pfn, _ = memmap()
    return k.addr(k.symbol("mem_map_virt_start")) - base_pfn * page_size()


def pfn_valid(pfn):
    _, base, end = memmap()
    return base <= pfn < end


def pfn_to_page(pfn):
    """struct page * of pfn (a gdb.Value)."""
    mem_map, base, end = memmap()
    if not base <= pfn < end:
        raise gdb.GdbError("pfn %#x is outside the memmap [%#x, %#x)"
                           % (pfn, base, end))
    return k.cast_ptr(mem_map + (pfn - base) * k.struct("struct page").sizeof,
                      "struct page")


def page_to_pfn(page):
    mem_map, base, _ = memmap()
    return (k.addr(page) - mem_map) // k.struct("struct page").sizeof + base


def virt_to_pfn(address):
    """The frame of a direct-map or kernel-image address."""
    kernel_vma = k.constant("KERNEL_VMA")
    phys = (address - kernel_vma if address >= kernel_vma
            else address - direct_map_base())
    return phys >> k.constant("PAGE_SHIFT")


def pfn_to_virt(pfn):
    return direct_map_base() + pfn * page_size()


def resolve_page(arg):
    """ADDR or PFN of the `page` and `slab` commands: a struct page
    address, any address the direct map or the image covers, or (below
    the kernel half) a frame number.  Returns the pfn."""
    x = k.parse_number(arg, "ADDR or PFN")
    mem_map, base, end = memmap()
    sz = k.struct("struct page").sizeof
    if mem_map <= x < mem_map + (end - base) * sz:
        return (x - mem_map) // sz + base
    if x >= 1 << 63:
        return virt_to_pfn(x)
    return x


# ---- page->flags ----

def page_flag_bits():
    """{bit value: "PG_name"} from include/mm.h."""
    return {v: n for n, v in k.constants_with_prefix("PG_").items()
            if v and v & (v - 1) == 0}


def flags_field(flags, what):
    return (flags >> k.constant("PAGE_%s_SHIFT" % what)) & \
        k.constant("PAGE_%s_MASK" % what)


def flag_names(flags):
    bits = page_flag_bits()
    names = [bits[b] for b in sorted(bits) if flags & b]
    return " | ".join(names) if names else "none"


def alloc_order(flags):
    """The order of an allocated block's head, or None (0 stored)."""
    o = flags_field(flags, "ALLOC_ORDER")
    return o - 1 if o else None


def page_zone(page):
    flags = int(page["flags"])
    nid, zidx = flags_field(flags, "NID"), flags_field(flags, "ZONE")
    pgdat = k.symbol("node_data")[nid]
    if not k.addr(pgdat):
        return nid, zidx, None
    return nid, zidx, pgdat["node_zones"][zidx]


def zone_name(zone, zidx):
    if zone is None:
        return "zone%d" % zidx
    return zone["name"].string()


def pcp_lists(zone, cpu):
    """The lists[] of cpu's per_cpu_pages in zone."""
    return zone["pcp"][cpu]["lists"]


def find_on_pcp(zone, pfn):
    """The CPU whose page list in zone holds the block headed by pfn."""
    if zone is None:
        return None
    for cpu in k.possible_cpus():
        lists = pcp_lists(zone, cpu)
        for o in range(k.array_len(lists)):
            for p in k.list_entries(lists[o], "struct page", "lru"):
                if page_to_pfn(p) == pfn:
                    return cpu
    return None


def block_head(pfn):
    """(owner, head pfn, order) of the block pfn lies in, looked up from
    the aligned heads around it: "buddy", "pcp", "deferred" (free
    blocks, by their head's flag) or "allocated" (the head's order plus
    one in its flags); (None, pfn, None) when no head claims it."""
    max_order = k.field_len("struct zone", "free_area") - 1
    free_flags = {"buddy": k.constant("PG_buddy"),
                  "pcp": k.constant("PG_pcp"),
                  "deferred": k.constant("PG_deferred")}
    for o in range(max_order + 1):
        head = pfn & ~((1 << o) - 1)
        if not pfn_valid(head):
            break
        hp = pfn_to_page(head)
        flags = int(hp["flags"])
        for owner, bit in free_flags.items():
            if flags & bit:
                order = int(hp["order"])
                if head + (1 << order) > pfn:
                    return owner, head, order
        order = alloc_order(flags)
        if order is not None and head + (1 << order) > pfn:
            return "allocated", head, order
    return None, pfn, None


def describe_owner(pfn, page):
    """One line: who owns frame pfn."""
    flags = int(page["flags"])
    if flags & k.constant("PG_reserved"):
        return "reserved (never given to the buddy: firmware, the image, the memmap)", None
    if flags & k.constant("PG_slab"):
        head = k.cast_ptr(k.addr(page["private_data"]), "struct page")
        s = head["slab_cache"]
        order = int(s["order"])
        return ("slab of %s (head pfn %#x, order %d, inuse %d/%d): `slab %#x` "
                "shows its objects" % (s["name"].string(), page_to_pfn(head),
                                       order, int(head["inuse"]),
                                       int(head["objects"]),
                                       pfn_to_virt(page_to_pfn(head))),
                order)
    owner, head, order = block_head(pfn)
    where = "" if head == pfn else ", head pfn %#x" % head
    if owner == "buddy":
        return "buddy: free block of order %d%s" % (order, where), order
    if owner == "pcp":
        _, _, zone = page_zone(pfn_to_page(head))
        cpu = find_on_pcp(zone, head)
        return ("pcp: free block of order %d on cpu%s's page list%s"
                % (order, cpu if cpu is not None else "?", where), order)
    if owner == "deferred":
        return ("deferred: free block of order %d waiting on its zone's "
                "deferred list (free_pages_nolock())%s" % (order, where), order)
    if owner == "allocated":
        hflags = int(pfn_to_page(head)["flags"])
        how = []
        if hflags & k.constant("PG_large_kmalloc"):
            how.append("a large kmalloc() block")
        if hflags & k.constant("PG_nolock_alloc"):
            how.append("by try_alloc_pages()")
        return ("allocated: block of order %d%s%s" % (
            order, " (%s)" % ", ".join(how) if how else "", where), order)
    return "allocated or unknown: no block head claims it", None


class PageCommand(gdb.Command):
    """page ADDR|PFN: the struct page of a frame: flags, node, zone, order, owner.

ADDR is any direct-map or kernel-image address, or a struct page's own
address; a number below the kernel half is a frame number.  The owner is
buddy, pcp (and which CPU's list), deferred, slab (and its cache) or
allocated, found from the flags of the block's head page."""

    def __init__(self):
        super().__init__("page", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        pfn = resolve_page(arg)
        page = pfn_to_page(pfn)
        flags = int(page["flags"])
        nid, zidx, zone = page_zone(page)
        owner, order = describe_owner(pfn, page)
        print("pfn %#x  phys %#x  virt %#x  struct page %#x"
              % (pfn, pfn * page_size(), pfn_to_virt(pfn), k.addr(page)))
        ao = flags_field(flags, "ALLOC_ORDER")
        print("  flags %#018x: %s; packed: node %d, zone %d, alloc order+1 %d"
              % (flags, flag_names(flags), flags_field(flags, "NID"),
                 flags_field(flags, "ZONE"), ao))
        print("  node %d  zone %s  order %s" % (
            nid, zone_name(zone, zidx), "-" if order is None else order))
        print("  owner: %s" % owner)


# ---- buddyinfo ----

class BuddyinfoCommand(gdb.Command):
    """buddyinfo: free blocks per order, per node and zone (like /proc/buddyinfo).

One line per zone with memory: the count of free blocks of each order
(zone->free_area[order].nr_free), then the zone's free pages in the buddy,
on the per-CPU lists and on its deferred list."""

    def __init__(self):
        super().__init__("buddyinfo", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        rows = list(k.zones())
        if not rows:
            raise gdb.GdbError("no zone has memory yet: stop the kernel "
                               "after mm_core_init()")
        orders = k.array_len(rows[0][1]["free_area"])
        print("%-22s" % "order" + "".join("%7d" % o for o in range(orders)))
        for nid, zone in rows:
            counts = [int(zone["free_area"][o]["nr_free"]) for o in range(orders)]
            print("Node %d, zone %8s" % (nid, zone["name"].string()) +
                  "".join("%7d" % c for c in counts))
        for nid, zone in rows:
            pcp = sum(int(zone["pcp"][c]["count"]) for c in k.possible_cpus())
            print("  node %d zone %s: %d pages free in the buddy, %d on per-CPU "
                  "lists, %d deferred" % (nid, zone["name"].string(),
                                          int(zone["free_pages"]), pcp,
                                          int(zone["nr_deferred"])))


# ---- pcp ----

class PcpCommand(gdb.Command):
    """pcp: each CPU's page lists per zone: count, high, batch, blocks per order.

count is the pages on the CPU's lists (zone->pcp[cpu].count); a free that
takes it past high gives batch pages back to the buddy (PCP_HIGH,
PCP_BATCH in include/mmzone.h)."""

    def __init__(self):
        super().__init__("pcp", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        high, batch = k.constant("PCP_HIGH"), k.constant("PCP_BATCH")
        rows = list(k.zones())
        if not rows:
            raise gdb.GdbError("no zone has memory yet: stop the kernel "
                               "after mm_core_init()")
        for nid, zone in rows:
            print("Node %d, zone %s: high %d, batch %d%s" % (
                nid, zone["name"].string(), high, batch,
                " (lists switched off: zone_pcp_disable())"
                if int(zone["pcp_disabled"]) else ""))
            for cpu in k.online_cpus():
                pcp = zone["pcp"][cpu]
                lists = pcp["lists"]
                blocks = [sum(1 for _ in k.list_entries(lists[o], "struct page",
                                                        "lru"))
                          for o in range(k.array_len(lists))]
                print("  cpu%-3d count %4d  blocks by order %s" % (
                    cpu, int(pcp["count"]),
                    " ".join("%d:%d" % (o, b) for o, b in enumerate(blocks))))


# ---- nolock_stats ----

class NolockStatsCommand(gdb.Command):
    """nolock_stats: per CPU, why the any-context paths said "not now" (include/nolock_stats.h).

try_alloc_pages()/free_pages_nolock() and kmalloc_nolock()/kfree_nolock()
count every NULL by its reason and every free they deferred; one row per
CPU and the total."""

    def __init__(self):
        super().__init__("nolock_stats", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        names = [f.name for f in k.struct("struct nolock_stats").fields()]
        width = max(len(n) for n in names)
        cpus = list(k.online_cpus())
        table = {c: k.per_cpu("nolock_stats", c) for c in cpus}
        print("%-*s" % (width, "") + "".join("%8s" % ("cpu%d" % c) for c in cpus)
              + "%8s" % "total")
        for n in names:
            vals = [int(table[c][n]) for c in cpus]
            print("%-*s" % (width, n) + "".join("%8d" % v for v in vals)
                  + "%8d" % sum(vals))


def deferred_pages():
    """(nid, zone, [(pfn, order)]) of each zone's deferred list."""
    for nid, zone in k.zones():
        blocks = []
        for node in k.llist_nodes(zone["deferred_free"]["first"]):
            page = k.cast_ptr(node - k.offsetof("struct page", "llnode"),
                              "struct page")
            blocks.append((page_to_pfn(page), int(page["order"])))
        yield nid, zone, blocks


def register():
    PageCommand()
    BuddyinfoCommand()
    PcpCommand()
    NolockStatsCommand()
