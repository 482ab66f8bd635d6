#!/usr/bin/env python3
"""check-docs.py - the docs name only what exists.

README.md and docs/*.md quote the tree in backticks: files (`mm/slab.c`),
functions (`kmem_cache_free()`), make targets (`make bench`).  A rename or
a deleted function leaves such a name behind, and a learner who follows it
finds nothing.  This script lists every quoted name that the tree does not
have:

  - a path ending in a source or text suffix must be a file git tracks
    (relative to the root, to the document's folder, or as the tail of a
    tracked path);
  - name() must occur as a word in the tracked C, assembly, Python, shell,
    linker or make files;
  - `make target` must be a target of the Makefile;
  - `option=` (a lower-case name and `=` opening the quote, as in
    `slab_numa=blind` or `test=`) must be a command-line option the kernel
    parses (a `.name = "..."` of kernel/params.c);
  - `make mutate MUTANTS=a,b` must name mutants of tests/mutation/mutants.ini,
    and in docs/exercises.md each exercise's answer key must be a mutant of
    the file its "Where:" names (so the exercise and its key agree).

Some names are not ours and are allowed by name below, each with its
reason (Linux's files, what a run writes under build/, placeholders in
examples).  Exit status 1 when anything is missing, with file:line: what.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), ".."))

SOURCE_SUFFIXES = ("c", "h", "py", "md", "asm", "ld", "sh", "ini")
CODE_SUFFIXES = (".c", ".h", ".asm", ".py", ".ld", ".sh", ".ini")

# Names the docs may quote that this tree does not hold, and why.
FOREIGN_PATHS = {
    "mm/slub.c": "Linux's SLUB, the reference design",
    "kernel/bpf/memalloc.c": "Linux's bpf_mem_alloc, compared with",
    "qemu-plugin.h": "QEMU's plugin header, which Debian does not ship",
    "report.md": "written by make bench under build/bench/",
    "host.md": "written by make bench-host under build/bench/",
    "path/to/my_test.c": "a placeholder in an example",
    "_test.c": "a file-name pattern (tests/kernel/*_test.c)",
}
GENERATED_PREFIX = "build/"     # what a run writes: not in git
# key= quotes that are not the kernel's command-line options, and why.
FOREIGN_OPTIONS = {
    "function": "a key of tests/mutation/mutants.ini",
    "shift": "QEMU's -icount shift=",
}
PARAMS_FILE = "kernel/params.c"
MUTANTS_FILE = "tests/mutation/mutants.ini"
EXERCISES_DOC = "docs/exercises.md"

PATH_RE = re.compile(r"(?<![\w/.*-])((?:[\w.*-]+/)*[\w.*-]+\.(?:%s))\b"
                     % "|".join(SOURCE_SUFFIXES))
FUNCTION_RE = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(\)")
MAKE_RE = re.compile(r"^(?:[A-Z]+=\S+\s+)*make\s+([a-z][\w-]*)")
QUOTED_RE = re.compile(r"`([^`\n]+)`")
OPTION_RE = re.compile(r"^([a-z][a-z0-9_]*)=")
PARAM_NAME_RE = re.compile(r'\.name\s*=\s*"([a-z][a-z0-9_]*)"')
MUTANTS_RE = re.compile(r"MUTANTS=([\w.,-]+)")


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return [f for f in out.split("\n") if f]


def code_words(files):
    words = set()
    for f in files:
        if f.endswith(CODE_SUFFIXES) or os.path.basename(f) == "Makefile":
            try:
                with open(os.path.join(ROOT, f), errors="replace") as fh:
                    words.update(re.findall(r"\w+", fh.read()))
            except OSError:
                pass
    return words


def make_targets():
    targets = set()
    with open(os.path.join(ROOT, "Makefile")) as fh:
        for line in fh:
            m = re.match(r"^([a-z][\w-]*(?:\s+[a-z][\w-]*)*)\s*:(?!=)", line)
            if m:
                targets.update(m.group(1).split())
    return targets


def kernel_options():
    with open(os.path.join(ROOT, PARAMS_FILE)) as fh:
        return set(PARAM_NAME_RE.findall(fh.read()))


def mutant_files():
    """{mutant id: the file it mutates}."""
    mutants, current = {}, None
    with open(os.path.join(ROOT, MUTANTS_FILE)) as fh:
        for line in fh:
            m = re.match(r"^\[([\w.-]+)\]", line)
            if m:
                current = m.group(1)
                mutants[current] = None
            m = re.match(r"^file\s*=\s*(\S+)", line)
            if m and current:
                mutants[current] = m.group(1)
    return mutants


def check_exercises(text, mutants):
    """Each "## N." section: the answer key's mutant mutates the file the
    section's **Where:** names."""
    problems = []
    for sec in re.finditer(r"^## (\d+)\..*?(?=^## |\Z)", text, re.M | re.S):
        where = re.search(r"\*\*Where:\*\* `([^`]+)`", sec.group(0))
        key = MUTANTS_RE.search(sec.group(0))
        line = text.count("\n", 0, sec.start()) + 1
        if not where or not key:
            problems.append("%s:%d: exercise %s needs a **Where:** file and "
                            "an answer key (MUTANTS=)" % (EXERCISES_DOC, line,
                                                          sec.group(1)))
            continue
        for mid in key.group(1).split(","):
            if mutants.get(mid) and mutants[mid] != where.group(1):
                problems.append("%s:%d: exercise %s is in %s, its answer key "
                                "%s mutates %s" % (EXERCISES_DOC, line,
                                                   sec.group(1), where.group(1),
                                                   mid, mutants[mid]))
    return problems


def path_exists(path, doc, files, file_set):
    if path in FOREIGN_PATHS or path.startswith(GENERATED_PREFIX):
        return True
    if "*" in path:
        pattern = re.compile("^" + re.escape(path).replace(r"\*", "[^/]*")
                             + "$")
        return any(pattern.match(f) or pattern.match(os.path.basename(f))
                   for f in files)
    beside = os.path.normpath(os.path.join(os.path.dirname(doc), path))
    return (path in file_set or beside in file_set or
            any(f.endswith("/" + path) for f in files))


def check(doc, files, file_set, words, targets, options, mutants):
    with open(os.path.join(ROOT, doc)) as fh:
        text = fh.read()
    problems = check_text(doc, text, files, file_set, words, targets,
                          options, mutants)
    if doc == EXERCISES_DOC:
        problems += check_exercises(text, mutants)
    return problems


def check_text(doc, text, files, file_set, words, targets, options,
               mutants):
    problems = []
    for m in QUOTED_RE.finditer(text):
        quoted = m.group(1).strip()
        line = text.count("\n", 0, m.start()) + 1
        for p in PATH_RE.finditer(quoted):
            if not path_exists(p.group(1), doc, files, file_set):
                problems.append("%s:%d: no file %s" % (doc, line,
                                                       p.group(1)))
        for f in FUNCTION_RE.finditer(quoted):
            if f.group(1) not in words:
                problems.append("%s:%d: no function %s()" % (
                    doc, line, f.group(1)))
        mk = MAKE_RE.match(quoted)
        if mk and mk.group(1) not in targets:
            problems.append("%s:%d: no make target %s" % (doc, line,
                                                         mk.group(1)))
        for mm in MUTANTS_RE.finditer(quoted):
            for mid in mm.group(1).split(","):
                if mid not in mutants and mid not in ("<id>", "..."):
                    problems.append("%s:%d: no mutant %s" % (doc, line, mid))
        op = OPTION_RE.match(quoted)
        if op and op.group(1) not in options and \
                op.group(1) not in FOREIGN_OPTIONS:
            problems.append("%s:%d: no command-line option %s=" % (
                doc, line, op.group(1)))
    return problems


# --self-test: a made-up document with a good and a bad name of each
# kind, and an exercise whose answer key mutates another file, over a
# made-up tree; exactly the six bad ones must be reported, so the check is
# shown able to fail.
SELF_TEST_DOC = """Good: `mm/slab.c`, `kfree()`, `make bench`, `seed=42`,
`make mutate MUTANTS=slab.a`.
Bad: `mm/slob.c`, `kfree_gone()`, `make benhc`, `sede=42`,
`make mutate MUTANTS=slab.b`.
"""
SELF_TEST_EXPECT = [
    "self-test.md:3: no file mm/slob.c",
    "self-test.md:3: no function kfree_gone()",
    "self-test.md:3: no make target benhc",
    "self-test.md:3: no command-line option sede=",
    "self-test.md:4: no mutant slab.b",
    "exercises: exercise 1 is in mm/a.c, its answer key x.y mutates mm/b.c",
]
SELF_TEST_EXERCISES = """## 1. One
**Where:** `mm/a.c`
`make mutate MUTANTS=x.y`
"""


def self_test():
    files = ["mm/slab.c"]
    got = check_text("self-test.md", SELF_TEST_DOC, files, set(files),
                     {"kfree"}, {"bench", "mutate"}, {"seed"},
                     {"slab.a": "mm/slab.c"})
    got += [p.replace(EXERCISES_DOC + ":1:", "exercises:") for p in
            check_exercises(SELF_TEST_EXERCISES, {"x.y": "mm/b.c"})]
    ok = got == SELF_TEST_EXPECT
    print("check-docs: self-test %s" % ("passed" if ok else
                                        "FAILED: %r" % got))
    return 0 if ok else 1


def main():
    if "--self-test" in sys.argv[1:]:
        return self_test()
    files = tracked_files()
    file_set = set(files)
    docs = ["README.md"] + sorted(
        f for f in files if f.startswith("docs/") and f.endswith(".md"))
    words = code_words(files)
    targets = make_targets()
    options = kernel_options()
    mutants = mutant_files()
    problems = []
    for doc in docs:
        problems += check(doc, files, file_set, words, targets, options,
                          mutants)
    for p in problems:
        print(p)
    print("check-docs: %d documents, %d names missing" % (len(docs),
                                                         len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
