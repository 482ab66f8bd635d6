"""kernel.py - what every command needs: the kernel's types, lists,
per-CPU arrays and constants, read through gdb.

Types and fields come from the kernel's DWARF (it is built with -g): a
command names a struct and a field, never an offset, so a field that moves
moves here too.  What DWARF does not hold are the #define constants (page
flags, the fields packed into page->flags, PCP_HIGH, DEFERRED_LINK_TAG):
those are read from the tree's headers (include/, mm/), by name, the first
time one is asked for, so they can never disagree with the C.
"""
import glob
import os
import re

import gdb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


# ---- constants from the headers ----

_DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+(.+?)\s*$")
_NUMBER_RE = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU]?)\b")
_SAFE_RE = re.compile(r"^[\d\sxXa-fA-F()<>|&^~+\-*/]*$")
_defines = None


def _read_defines():
    defs = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "include", "*.h")) +
                       glob.glob(os.path.join(ROOT, "mm", "*.h"))):
        with open(path, errors="replace") as f:
            for line in f:
                m = _DEFINE_RE.match(line)
                if m:
                    body = re.sub(r"/\*.*$|//.*$", "", m.group(2)).strip()
                    defs.setdefault(m.group(1), body)
    return defs


def constant(name):
    """The value of a numeric #define of include/ or mm/ (others it
    names are expanded); gdb.GdbError if there is none."""
    global _defines
    if _defines is None:
        _defines = _read_defines()
    seen = set()

    def expand(n):
        if n in seen:
            raise gdb.GdbError("constant %s is defined in terms of itself" % n)
        seen.add(n)
        body = _defines.get(n)
        if body is None:
            raise gdb.GdbError("no #define %s in %s/include or %s/mm"
                               % (n, ROOT, ROOT))
        body = _NUMBER_RE.sub(lambda m: m.group(1), body)
        body = re.sub(r"\b[A-Za-z_]\w*\b",
                      lambda m: "(%d)" % expand(m.group(0)), body)
        if not _SAFE_RE.match(body):
            raise gdb.GdbError("#define %s is not a number: %s"
                               % (n, _defines[n]))
        return int(eval(body, {"__builtins__": {}}))  # digits and operators only

    return expand(name)


def constants_with_prefix(prefix):
    """{name: value} of every numeric #define whose name starts with
    prefix (the page flags: "PG_")."""
    constant("PAGE_SHIFT")   # loads the table
    out = {}
    for name in _defines:
        if name.startswith(prefix):
            try:
                out[name] = constant(name)
            except gdb.GdbError:
                pass
    return out


# ---- types, symbols, memory ----

def struct(name):
    """A struct type by its C name ("struct page")."""
    return gdb.lookup_type(name)


def symbol(name):
    """A global or file-static variable by name (per-CPU arrays of one
    file are static: slab_defer, kfree_rcu_defer)."""
    sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None:
        raise gdb.GdbError("the kernel has no symbol %s" % name)
    return sym.value()


_offsets = {}


def offsetof(type_name, member):
    """offsetof(type, member) from DWARF; member may be nested ("a.b")."""
    key = (type_name, member)
    if key not in _offsets:
        _offsets[key] = int(gdb.parse_and_eval(
            "(unsigned long)&((%s *)0)->%s" % (type_name, member)))
    return _offsets[key]


def array_len(value):
    """Elements of a C array value (from its type)."""
    lo, hi = value.type.strip_typedefs().range()
    return hi - lo + 1


def field_len(type_name, field):
    """Elements of an array field of a struct (struct zone's free_area:
    NR_PAGE_ORDERS)."""
    lo, hi = struct(type_name)[field].type.strip_typedefs().range()
    return hi - lo + 1


def addr(value):
    """A pointer value (or an address) as a Python int."""
    return int(value) & 0xffffffffffffffff


def read_u64(address):
    mem = gdb.selected_inferior().read_memory(address, 8)
    return int.from_bytes(bytes(mem), "little")


def read_pointers(address, count):
    """count 64-bit words at address, in one read."""
    if count <= 0:
        return []
    mem = bytes(gdb.selected_inferior().read_memory(address, 8 * count))
    return [int.from_bytes(mem[i:i + 8], "little") for i in range(0, len(mem), 8)]


def cast_ptr(address, type_name):
    return gdb.Value(address).cast(struct(type_name).pointer())


def list_entries(head, type_name, member, limit=1 << 20):
    """list_for_each_entry(): pointers (gdb.Value) to each type_name
    linked through member, from the struct list_head value head."""
    off = offsetof(type_name, member)
    head_addr = addr(head.address)
    node = addr(head["next"])
    count = 0
    while node != head_addr:
        if count >= limit or node == 0:
            raise gdb.GdbError("list at %#x is broken or longer than %d"
                               % (head_addr, limit))
        yield cast_ptr(node - off, type_name)
        node = addr(cast_ptr(node, "struct list_head")["next"])
        count += 1


def llist_nodes(first, limit=1 << 20):
    """The nodes of an llist from its first node's address (ints)."""
    node = addr(first)
    count = 0
    while node:
        if count >= limit:
            raise gdb.GdbError("llist longer than %d: a loop?" % limit)
        yield node
        node = read_u64(node)   # struct llist_node { next; }
        count += 1


# ---- CPUs and nodes ----

def possible_cpus():
    """range() of the CPUs a cache has sheaves for (nr_cpu_possible)."""
    n = int(symbol("nr_cpu_possible"))
    return range(min(n, array_len(symbol("percpu_areas"))))


def online_cpus():
    """range() of the CPUs brought up (nr_cpu_ids): the per-CPU counters
    and lists of the others were never used."""
    return range(min(int(symbol("nr_cpu_ids")), array_len(symbol("percpu_areas"))))


def per_cpu(name, cpu):
    """DEFINE_PER_CPU's slot of cpu (the arrays are indexed by CPU)."""
    return symbol(name)[cpu]


def node_ids():
    """(nid, struct pglist_data *) of every node with memory."""
    nodes = symbol("node_data")
    for nid in range(array_len(nodes)):
        if addr(nodes[nid]):
            yield nid, nodes[nid]


def zones():
    """(nid, struct zone value) of every zone that spans memory."""
    for nid, pgdat in node_ids():
        zs = pgdat["node_zones"]
        for z in range(array_len(zs)):
            if int(zs[z]["spanned_pages"]):
                yield nid, zs[z]


def parse_number(arg, what):
    """A command argument evaluated by gdb (so $1, a variable or an
    expression work) as an int."""
    if not arg.strip():
        raise gdb.GdbError("%s is missing" % what)
    try:
        return addr(gdb.parse_and_eval(arg))
    except gdb.error as e:
        raise gdb.GdbError("%s: %s" % (what, e))


def hx(x):
    return "%#x" % x
