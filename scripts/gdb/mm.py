"""mm.py - load the allocator commands into gdb: `source scripts/gdb/mm.py`
(make debug's gdbinit does).

    slabinfo              per cache: in use, and where the free objects
                          the slabs count in use are parked
    sheaves CACHE [CPU]   a cache's per-CPU main, spare and rcu_free sheaves
    barn CACHE            a cache's barns: full and empty sheaves per node
    slab ADDR             the slab holding ADDR, its freelist decoded
    page ADDR|PFN         a struct page: flags, node, zone, order, owner
    buddyinfo             free blocks per order, per node and zone
    pcp                   the per-CPU page lists of every zone
    deferred              the parked lists (pages and objects)
    nolock_stats          the any-context paths' counters, per CPU

`help COMMAND` says more.  Like Linux's scripts/gdb (lx-slabinfo), but
counting the objects parked in sheaves, which lx-slabinfo misses.
"""
import importlib
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
if _here not in sys.path:
    sys.path.insert(0, _here)

import mmgdb.kernel  # noqa: E402
import mmgdb.pages  # noqa: E402
import mmgdb.slab  # noqa: E402

# Sourced again (after an edit): take the new code.
for _m in (mmgdb.kernel, mmgdb.pages, mmgdb.slab):
    importlib.reload(_m)

mmgdb.pages.register()
mmgdb.slab.register()
