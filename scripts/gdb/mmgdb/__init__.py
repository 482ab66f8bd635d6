"""mmgdb - gdb commands for the page and slab allocators (scripts/gdb/mm.py
loads them).  kernel.py reads types, lists and constants; pages.py and
slab.py hold the commands."""
